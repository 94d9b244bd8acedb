//! A user's own records over HTTP (spec §7): `GET /api/users/{userEmail}`, and the mail
//! preferences `GET`/`PATCH /api/users/{userId}/preferences` with the plan rules of
//! `engine::account` (free: PubMed only, Monday).
//!
//! Only the owner may read or change them: anyone else, signed in or not as that user, gets the
//! same 404 as a user that does not exist (401 when not signed in at all), so ids and addresses
//! cannot be probed.

use actix_web::web;
use engine::account::{normalize_email, MSG_FREE_PLAN_LOCKED};
use engine::Preferences;

use crate::auth::{SignedIn, UserView};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::users::{LockedPreference, PreferencesChange, PreferencesView};

const MSG_NOT_FOUND: &str = "Not found";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/users/{user_id}/preferences", preferences)
        .patch("/users/{user_id}/preferences", change_preferences)
        .get("/users/{user_email}", user_by_email);
}

/// The preferences the service applies on the signed-in user's plan, as the client reads them.
fn preferences_view(signed_in: &SignedIn, stored: &Preferences) -> PreferencesView {
    let tier = signed_in.user.subscription_tier;
    let effective = stored.effective(tier);
    let locked = [LockedPreference::IncludePubmed, LockedPreference::IncludeArxiv, LockedPreference::IncludeBiorxiv, LockedPreference::DeliveryDay];
    PreferencesView {
        id: signed_in.user.id.0,
        user_id: signed_in.user.id.0,
        include_pubmed: effective.include_pubmed,
        include_arxiv: effective.include_arxiv,
        include_biorxiv: effective.include_biorxiv,
        weekly_digest: effective.weekly_digest,
        daily_highlights: effective.daily_highlights,
        delivery_day: effective.delivery_day.into(),
        locked: if tier.is_paid() { Vec::new() } else { locked.to_vec() },
    }
}

/// `GET /api/users/{userId}/preferences`.
async fn preferences(state: web::Data<AppState>, signed_in: SignedIn, user_id: web::Path<String>) -> ApiResult<web::Json<PreferencesView>> {
    signed_in.require_owner(&user_id)?;
    let stored = state.store.accounts().preferences(signed_in.user.id)?;
    Ok(web::Json(preferences_view(&signed_in, &stored)))
}

/// `PATCH /api/users/{userId}/preferences` with any of the fields; answers the preferences now.
async fn change_preferences(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    user_id: web::Path<String>,
    change: web::Json<PreferencesChange>,
) -> ApiResult<web::Json<PreferencesView>> {
    signed_in.require_owner(&user_id)?;
    let stored = state.store.accounts().preferences(signed_in.user.id)?;
    let change = engine::account::PreferencesChange::from(change.into_inner());
    let changed = stored.changed(&change, signed_in.user.subscription_tier).map_err(|message| {
        if message == MSG_FREE_PLAN_LOCKED {
            ApiError::new(ErrorCode::RequiresUpgrade, message)
        } else {
            ApiError::bad_request(message)
        }
    })?;
    state.store.accounts().put_preferences(signed_in.user.id, &changed)?;
    state.store.flush_async().await?;
    Ok(web::Json(preferences_view(&signed_in, &changed)))
}

/// `GET /api/users/{userEmail}` → the signed-in user's own record (`id`, `subscriptionTier`, …).
async fn user_by_email(state: web::Data<AppState>, signed_in: SignedIn, user_email: web::Path<String>) -> ApiResult<web::Json<UserView>> {
    if normalize_email(&user_email) != signed_in.user.email {
        return Err(ApiError::not_found(MSG_NOT_FOUND));
    }
    Ok(web::Json(UserView::of(&signed_in.user, &state.settings)))
}
