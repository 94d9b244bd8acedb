//! Accounts: a page of them by email, plan and verification; a plan set by hand (as `papertide
//! users set-tier`), operators granted and removed, accounts disabled and enabled, the
//! verification mail sent again.

use actix_web::web;
use engine::Tier;
use store::User;

use super::user_of;
use crate::auth::{is_operator, Operator};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::admin::{AdminDisabledRequest, AdminOperatorRequest, AdminPlanRequest, AdminUser, AdminUserPage, AdminUsersQuery};
use crate::wire::Message;

/// Accounts on one page of `GET /api/admin/users`.
pub const PAGE_SIZE: u32 = 50;

const MSG_BAD_PLAN: &str = "The plan must be free, pro or team.";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/admin/users", user_page)
        .post("/admin/users/{user_id}/plan", set_plan)
        .post("/admin/users/{user_id}/operator", set_operator)
        .post("/admin/users/{user_id}/disabled", set_disabled)
        .post("/admin/users/{user_id}/resend-verification", resend_verification);
}

/// `user` as the operator sees it: with its terms and its digests counted.
pub(super) fn admin_user(state: &AppState, user: &User) -> ApiResult<AdminUser> {
    let terms = state.store.terms().of_user(user.id)?;
    let ledger = state.store.digests().ledger(user.id)?;
    Ok(AdminUser {
        id: user.id.0,
        email: user.email.clone(),
        plan: user.subscription_tier.into(),
        verified: user.is_email_verified,
        operator: is_operator(user, &state.settings),
        operator_granted: user.is_admin,
        operator_by_email: state.settings.is_admin_email(&user.email),
        disabled: !user.is_active,
        created_at: user.created_at,
        active_terms: terms.iter().filter(|term| term.is_active).count() as u64,
        terms: terms.len() as u64,
        digests_sent: ledger.received,
        last_digest_at: ledger.last_digest.or(user.last_digest_sent_at),
        stripe_customer_id: user.stripe_customer_id.clone(),
    })
}

/// `GET /api/admin/users?q=&plan=&verified=&page=`: the matching accounts, oldest first.
async fn user_page(state: web::Data<AppState>, _operator: Operator, query: web::Query<AdminUsersQuery>) -> ApiResult<web::Json<AdminUserPage>> {
    let query = query.into_inner();
    let plan = query.plan.as_deref().filter(|plan| !plan.trim().is_empty()).map(parse_plan).transpose()?;
    let page = query.page.unwrap_or(1);
    if page == 0 {
        return Err(ApiError::bad_request("Pages are counted from 1."));
    }
    let needle = query.q.as_deref().map(|text| text.trim().to_lowercase()).unwrap_or_default();
    let filter = UserFilter { needle, plan, verified: query.verified };
    // Every account is read: off the async threads.
    let answer = web::block(move || find_users(&state, &filter, page)).await??;
    Ok(web::Json(answer))
}

/// What `GET /api/admin/users` keeps.
struct UserFilter {
    /// Lower case; empty: every address.
    needle: String,
    plan: Option<Tier>,
    verified: Option<bool>,
}

fn find_users(state: &AppState, filter: &UserFilter, page: u32) -> ApiResult<AdminUserPage> {
    let matches = |user: &User| {
        user.email.contains(&filter.needle)
            && filter.plan.is_none_or(|plan| user.subscription_tier == plan)
            && filter.verified.is_none_or(|verified| user.is_email_verified == verified)
    };
    let found: Vec<User> = state.store.accounts().users()?.into_iter().filter(matches).collect();
    let skipped = usize::try_from(page - 1).unwrap_or(usize::MAX).saturating_mul(PAGE_SIZE as usize);
    let users = found.iter().skip(skipped).take(PAGE_SIZE as usize).map(|user| admin_user(state, user)).collect::<ApiResult<Vec<_>>>()?;
    Ok(AdminUserPage { users, total: found.len() as u64, page, page_size: PAGE_SIZE })
}

/// `POST /api/admin/users/{userId}/plan` `{ plan }`: as `papertide users set-tier`, the terms
/// turned off or back on to fit the plan; no mail. With billing on, Stripe's next event for
/// the user's subscription (or a repair) sets the plan its payments prove.
async fn set_plan(
    state: web::Data<AppState>,
    _operator: Operator,
    user_id: web::Path<String>,
    body: web::Json<AdminPlanRequest>,
) -> ApiResult<web::Json<AdminUser>> {
    let tier = parse_plan(&body.plan)?;
    let user = user_of(&state, &user_id)?;
    let user = state.store.billing().set_plan(user.id, tier)?;
    state.store.flush_async().await?;
    tracing::info!(user = %user.id, plan = %tier, "an operator set a plan");
    Ok(web::Json(admin_user(&state, &user)?))
}

/// `POST /api/admin/users/{userId}/operator` `{ operator }`: grants or takes back the stored
/// operator flag. Nobody removes themselves (409 `cannot_demote_self`), and an operator named in
/// the settings' admin emails stays one until the settings change (409 `operator_by_settings`).
async fn set_operator(
    state: web::Data<AppState>,
    operator: Operator,
    user_id: web::Path<String>,
    body: web::Json<AdminOperatorRequest>,
) -> ApiResult<web::Json<AdminUser>> {
    let user = user_of(&state, &user_id)?;
    let grant = body.operator;
    if !grant {
        if operator.account().is_some_and(|own| own.id == user.id) {
            return Err(ApiError::new(ErrorCode::CannotDemoteSelf, "You cannot remove yourself as an operator; another operator can."));
        }
        refuse_operator_by_settings(&state, &user)?;
    }
    let user = state.store.accounts().update_user(user.id, |user| user.is_admin = grant)?;
    state.store.flush_async().await?;
    tracing::info!(user = %user.id, operator = grant, "an operator changed an account's operator flag");
    Ok(web::Json(admin_user(&state, &user)?))
}

/// `POST /api/admin/users/{userId}/disabled` `{ disabled }`: a disabled account cannot sign in
/// (`account_deactivated`) and gets no mail; disabling ends its sessions and device cookies
/// at once (the session epoch moves on, as a password reset does). Nobody disables themselves
/// (409 `cannot_disable_self`), nor an operator the settings name (409 `operator_by_settings`).
async fn set_disabled(
    state: web::Data<AppState>,
    operator: Operator,
    user_id: web::Path<String>,
    body: web::Json<AdminDisabledRequest>,
) -> ApiResult<web::Json<AdminUser>> {
    let user = user_of(&state, &user_id)?;
    let disable = body.disabled;
    if disable && operator.account().is_some_and(|own| own.id == user.id) {
        return Err(ApiError::new(ErrorCode::CannotDisableSelf, "You cannot disable your own account."));
    }
    if disable {
        refuse_operator_by_settings(&state, &user)?;
    }
    let user = state.store.accounts().set_disabled(user.id, disable)?;
    state.store.flush_async().await?;
    tracing::info!(user = %user.id, disabled = disable, "an operator changed an account's access");
    Ok(web::Json(admin_user(&state, &user)?))
}

/// `POST /api/admin/users/{userId}/resend-verification`: a new verification link, as the
/// account's owner would ask for it, without the owner's rate limits.
async fn resend_verification(state: web::Data<AppState>, _operator: Operator, user_id: web::Path<String>) -> ApiResult<web::Json<Message>> {
    let user = user_of(&state, &user_id)?;
    if user.is_email_verified {
        return Err(ApiError::new(ErrorCode::AlreadyVerified, "This account's address is verified already."));
    }
    if !user.is_active {
        return Err(ApiError::bad_request("This account is disabled; enable it first."));
    }
    crate::auth::handlers::mail_verification_link(&state, &user).await?;
    tracing::info!(user = %user.id, "an operator sent a verification link again");
    Ok(web::Json(Message::new(format!("A new verification link is on its way to {}.", user.email))))
}

/// 409 `operator_by_settings` for an operator named in the settings' admin emails: nobody in the
/// console demotes, disables or deletes them; the settings must change first (an operator granted
/// in the console must not lock out the one the installation names).
pub(super) fn refuse_operator_by_settings(state: &AppState, user: &User) -> ApiResult<()> {
    if state.settings.is_admin_email(&user.email) {
        return Err(ApiError::new(
            ErrorCode::OperatorBySettings,
            "This address is an operator by the service's settings (PAPERTIDE_ADMIN_EMAILS); remove it there.",
        ));
    }
    Ok(())
}

fn parse_plan(text: &str) -> ApiResult<Tier> {
    text.trim().to_lowercase().parse::<Tier>().map_err(|_| ApiError::bad_request(MSG_BAD_PLAN))
}
