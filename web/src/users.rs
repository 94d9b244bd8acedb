//! A user's own records over HTTP (spec §7): `GET /api/users/{userEmail}`, and the mail
//! preferences `GET`/`PATCH /api/users/{userId}/preferences` with the plan rules of
//! `engine::account` (free: PubMed only, Monday).
//!
//! Only the owner may read or change them: anyone else, signed in or not as that user, gets the
//! same 404 as a user that does not exist (401 when not signed in at all), so ids and addresses
//! cannot be probed.

use actix_web::{web, HttpResponse};
use engine::account::{normalize_email, PreferencesChange, MSG_FREE_PLAN_LOCKED};
use engine::{DeliveryDay, Preferences, UserId};
use serde::Serialize;

use crate::auth::{SignedIn, UserView};
use crate::error::{ApiError, ApiResult};
use crate::routes::ApiRoutes;
use crate::state::AppState;

const MSG_NOT_FOUND: &str = "Not found";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/users/{user_id}/preferences", preferences)
        .patch("/users/{user_id}/preferences", change_preferences)
        .get("/users/{user_email}", user_by_email);
}

/// Preferences as the client reads them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PreferencesView {
    user_id: UserId,
    include_pubmed: bool,
    include_arxiv: bool,
    include_biorxiv: bool,
    weekly_digest: bool,
    daily_highlights: bool,
    delivery_day: DeliveryDay,
    /// The fields the user's plan does not let them change.
    locked: Vec<&'static str>,
}

impl PreferencesView {
    fn of(signed_in: &SignedIn, stored: &Preferences) -> PreferencesView {
        let tier = signed_in.user.subscription_tier;
        let effective = stored.effective(tier);
        PreferencesView {
            user_id: signed_in.user.id,
            include_pubmed: effective.include_pubmed,
            include_arxiv: effective.include_arxiv,
            include_biorxiv: effective.include_biorxiv,
            weekly_digest: effective.weekly_digest,
            daily_highlights: effective.daily_highlights,
            delivery_day: effective.delivery_day,
            locked: if tier.is_paid() { Vec::new() } else { vec!["includePubmed", "includeArxiv", "includeBiorxiv", "deliveryDay"] },
        }
    }
}

/// `GET /api/users/{userId}/preferences`.
async fn preferences(state: web::Data<AppState>, signed_in: SignedIn, user_id: web::Path<String>) -> ApiResult<HttpResponse> {
    signed_in.require_owner(&user_id)?;
    let stored = state.store.preferences(signed_in.user.id)?;
    Ok(HttpResponse::Ok().json(PreferencesView::of(&signed_in, &stored)))
}

/// `PATCH /api/users/{userId}/preferences` with any of the fields; answers the preferences now.
async fn change_preferences(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    user_id: web::Path<String>,
    change: web::Json<PreferencesChange>,
) -> ApiResult<HttpResponse> {
    signed_in.require_owner(&user_id)?;
    let stored = state.store.preferences(signed_in.user.id)?;
    let changed = stored.changed(&change, signed_in.user.subscription_tier).map_err(|message| {
        if message == MSG_FREE_PLAN_LOCKED {
            ApiError::forbidden("requires_upgrade", message)
        } else {
            ApiError::bad_request(message)
        }
    })?;
    state.store.put_preferences(signed_in.user.id, &changed)?;
    state.store.flush_async().await?;
    Ok(HttpResponse::Ok().json(PreferencesView::of(&signed_in, &changed)))
}

/// `GET /api/users/{userEmail}` → the signed-in user's own record (`id`, `subscriptionTier`, …).
async fn user_by_email(state: web::Data<AppState>, signed_in: SignedIn, user_email: web::Path<String>) -> ApiResult<HttpResponse> {
    if normalize_email(&user_email) != signed_in.user.email {
        return Err(ApiError::not_found(MSG_NOT_FOUND));
    }
    Ok(HttpResponse::Ok().json(UserView::of(&signed_in.user, &state.settings)))
}
