//! A user's rights over their data: `GET /api/users/{userId}/export` ("Download my data": every
//! record kept of them, as a JSON attachment) and `POST /api/users/{userId}/delete` `{ password }`
//! ("Delete my account"). Both for the signed-in owner only, named by id or email: anyone else
//! gets the 404 of a record that is not there (401 when not signed in).
//!
//! A deletion checks the password first (rate limited like sign-in; a wrong one is 403
//! `wrong_password` and changes nothing), cancels a paid subscription at Stripe when billing is
//! on (Stripe unreachable: 503 `payment_service_unavailable`, nothing deleted), then removes
//! everything of the user ([`store::Accounts::delete_account`]) — the outbox's mail files to the
//! address too — and queues one confirmation mail. The operator's `DELETE /api/admin/users/{id}`
//! ([`crate::admin`]) runs the same [`delete_user`].

use actix_web::http::header;
use actix_web::{web, HttpRequest};
use chrono::Utc;
use engine::account::normalize_email;
use engine::mail::account_deleted_mail;
use store::{User, UserData};

use crate::auth::session::removal_cookie;
use crate::auth::SignedIn;
use crate::config::Rate;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::{Answer, ApiRoutes};
use crate::security::client_ip;
use crate::state::AppState;
use crate::wire::rights::{
    AccountExport, DataExport, DeleteAccountRequest, DigestExport, PaperExport, PlanChangeExport, PreferencesExport, RatingExport, SubscriptionExport,
};
use crate::wire::Message;

pub const MSG_DELETED: &str = "Your account has been deleted.";
const MSG_WRONG_PASSWORD: &str = "That password is not right.";
const MSG_STRIPE_DOWN: &str =
    "Your subscription could not be canceled because the payment service could not be reached. Nothing was deleted; please try again in a few minutes.";
const PLAN_HISTORY_NOTE: &str =
    "Plan changes are listed from the version of Papertide that began keeping them; changes made before that upgrade are not recorded.";

/// Exports per user: a heavy read, so a few an hour.
const EXPORT_RATE: Rate = Rate { max: 10, window: std::time::Duration::from_secs(3600) };

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/users/{user_id}/export", export).post("/users/{user_id}/delete", delete_own_account);
}

/// Passes when the path segment names the signed-in user, by id or by email; anything else is
/// the 404 of a record that is not there.
fn require_owner_by_id_or_email(signed_in: &SignedIn, segment: &str) -> ApiResult<()> {
    if signed_in.require_owner(segment).is_ok() || normalize_email(segment) == signed_in.user.email {
        Ok(())
    } else {
        Err(ApiError::not_found("Not found"))
    }
}

/// `GET /api/users/{userId}/export`.
async fn export(state: web::Data<AppState>, signed_in: SignedIn, user_id: web::Path<String>) -> ApiResult<Answer<DataExport>> {
    require_owner_by_id_or_email(&signed_in, &user_id)?;
    state.limiter.check("export", &signed_in.user.id.to_string(), EXPORT_RATE)?;
    let store = state.store.clone();
    let id = signed_in.user.id;
    let data = web::block(move || store.accounts().user_data(id)).await.map_err(|_| ApiError::internal("the export was interrupted"))??;
    let data = data.ok_or_else(|| ApiError::not_found("Not found"))?;
    let now = Utc::now();
    let filename = format!("papertide-data-{}.json", now.format("%Y-%m-%d"));
    Ok(Answer::new(data_export(data, now))
        .header(header::CONTENT_DISPOSITION, format!("attachment; filename=\"{filename}\""))
        .header(header::CACHE_CONTROL, "no-store"))
}

/// The export of `data`: the wire's shape, without tokens, hashes or session data.
pub fn data_export(data: UserData, now: chrono::DateTime<Utc>) -> DataExport {
    let UserData { user, preferences, terms, digests, ratings, plan_history, subscriptions } = data;
    // When the newest digest went out (the account's own field is from before digests were kept).
    let last_digest_at = digests.iter().map(|digest| digest.sent_at).max().or(user.last_digest_sent_at);
    let term_text = |id: engine::search_term::TermId| terms.iter().find(|term| term.id == id).map(|term| term.term.clone());
    let ratings = ratings
        .into_iter()
        .map(|rating| RatingExport {
            term: term_text(rating.term_id),
            term_id: rating.term_id.0,
            paper: rating.paper_key,
            title: rating.title,
            verdict: rating.verdict.into(),
            digest_id: rating.digest_id,
            rated_at: rating.rated_at,
            seeded: rating.seeded,
        })
        .collect();
    let digests = digests
        .into_iter()
        .map(|digest| DigestExport {
            id: digest.id,
            kind: digest.digest_type.into(),
            search_term: digest.search_term,
            searched_as: digest.searched_as,
            subject: digest.subject,
            sent_at: digest.sent_at,
            ai_summary: digest.ai_summary,
            papers: digest
                .papers_data
                .into_iter()
                .map(|paper| PaperExport {
                    title: paper.title,
                    authors: paper.authors,
                    journal: paper.journal,
                    source: paper.source.into(),
                    url: paper.url,
                    links: paper.links,
                    abstract_text: paper.abstract_text,
                    summary: paper.summary,
                    reason: paper.reason,
                    relevance_score: paper.relevance_score,
                    retracted: paper.retracted,
                })
                .collect(),
        })
        .collect();
    DataExport {
        exported_at: now,
        account: AccountExport {
            id: user.id.0,
            email: user.email,
            created_at: user.created_at,
            plan: user.subscription_tier.into(),
            verified: user.is_email_verified,
            research_field: user.research_field,
            last_digest_at,
            stripe_customer_id: user.stripe_customer_id,
            stripe_subscription_id: user.stripe_subscription_id,
            signup_address: user.ip_address,
        },
        preferences: PreferencesExport {
            include_pubmed: preferences.include_pubmed,
            include_arxiv: preferences.include_arxiv,
            include_biorxiv: preferences.include_biorxiv,
            weekly_digest: preferences.weekly_digest,
            daily_highlights: preferences.daily_highlights,
            delivery_day: preferences.delivery_day.into(),
        },
        search_terms: terms.into_iter().map(Into::into).collect(),
        digests,
        ratings,
        plan_history: plan_history
            .into_iter()
            .map(|change| PlanChangeExport { at: change.at, from: change.from.into(), to: change.to.into(), reason: change.reason.into() })
            .collect(),
        plan_history_note: PLAN_HISTORY_NOTE.to_owned(),
        subscriptions: subscriptions
            .into_iter()
            .map(|row| SubscriptionExport {
                subscription_id: row.subscription_id,
                plan: row.tier.into(),
                status: row.status.into(),
                created_at: row.created_at,
                updated_at: row.updated_at,
            })
            .collect(),
    }
}

/// `POST /api/users/{userId}/delete` `{ password }`.
async fn delete_own_account(
    state: web::Data<AppState>,
    request: HttpRequest,
    signed_in: SignedIn,
    user_id: web::Path<String>,
    form: web::Json<DeleteAccountRequest>,
) -> ApiResult<Answer<Message>> {
    require_owner_by_id_or_email(&signed_in, &user_id)?;
    // Limited before anything is hashed, per account and per address, as sign-in is.
    let limits = &state.settings.rate_limits;
    let ip = client_ip(&request, state.settings.trust_proxy);
    let per_address = Rate { max: limits.login.max.saturating_mul(5), window: limits.login.window };
    state.limiter.check("delete-account-address", &ip, per_address)?;
    state.limiter.check("delete-account", &signed_in.user.id.to_string(), limits.login)?;
    let user = state.store.accounts().user(signed_in.user.id)?.ok_or_else(|| ApiError::not_found("Not found"))?;
    let is_match = state.hasher.verify(Some(user.password_hash.clone()), form.into_inner().password).await?;
    if !is_match {
        return Err(ApiError::new(ErrorCode::WrongPassword, MSG_WRONG_PASSWORD));
    }
    delete_user(&state, &user).await?;
    tracing::info!(user_id = %user.id, "account deleted by its owner");
    Ok(Answer::new(Message::new(MSG_DELETED)).cookie(removal_cookie(&state)))
}

/// Deletes `user` and everything kept of them: their paid subscription is canceled at Stripe
/// first (billing on), then the store's records go, and the mailer closes the deletion (the
/// outbox's mail files to the address go, and one confirmation mail is queued).
pub async fn delete_user(state: &AppState, user: &User) -> ApiResult<()> {
    let subscription = user.stripe_subscription_id.as_deref().filter(|_| user.subscription_tier.is_paid());
    if let (Some(gateway), Some(subscription_id)) = (state.billing.as_deref(), subscription) {
        match gateway.cancel(subscription_id).await {
            Ok(_) => {}
            // Already gone at Stripe.
            Err(failure) if failure.is_not_found() => {}
            Err(failure) => {
                tracing::warn!(error = %failure, user_id = %user.id, "canceling the subscription of an account being deleted");
                return Err(ApiError::new(ErrorCode::PaymentServiceUnavailable, MSG_STRIPE_DOWN));
            }
        }
    }
    let store = state.store.clone();
    let context = state.mail_context();
    let outbox = state.settings.outbox_dir();
    let id = user.id;
    let deleted = web::block(move || {
        store.accounts().delete_account(id, |user| account_deleted_mail(&context, &user.email))?;
        actors::mailer::close_account_deletions(&store, &outbox)
    });
    deleted.await.map_err(|_| ApiError::internal("the deletion was interrupted"))??;
    state.poke_mailer();
    Ok(())
}

/// Completes the deletions a crash interrupted (run when the service starts).
pub fn finish_unfinished_deletions(state: &AppState) -> anyhow::Result<()> {
    let outbox = state.settings.outbox_dir();
    let finished = actors::mailer::close_account_deletions(&state.store, &outbox)?;
    if finished > 0 {
        tracing::info!(finished, "account deletions interrupted by a stop were completed");
        state.poke_mailer();
    }
    Ok(())
}
