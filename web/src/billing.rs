//! The billing calls of spec §7 on a server whose billing is off (no payment provider
//! configured, the embedded default): each one still checks who is asking and what was asked,
//! and then answers 501 "Billing is not enabled on this server", so the client can say why an
//! upgrade or a cancellation cannot happen here. Plans are then set by the operator
//! (`papertide users set-tier`).
//!
//! `POST /api/cancel-subscription` applies the plan rules first: a free plan has nothing to
//! cancel, and a paid plan with more than one active search term must delete terms down to one
//! (`requiresSearchDeletion`, `currentSearchCount`, spec §5 and §8).

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use engine::Tier;
use serde::Deserialize;

use crate::auth::SignedIn;
use crate::routes::ApiRoutes;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub const MSG_BILLING_DISABLED: &str =
    "Billing is not enabled on this server. Plans on this Papertide installation are set by its operator.";
const MSG_NOTHING_TO_CANCEL: &str = "You are on the Free plan: there is no subscription to cancel.";
const MSG_BAD_TIER: &str = "Please select a valid subscription plan.";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .post("/cancel-subscription", cancel_subscription)
        .post("/create-subscription", create_subscription)
        .post("/create-checkout-session", create_subscription)
        .get("/session-status", billing_call)
        .get("/subscriptions/{subscription_id}/status", billing_call)
        .get("/debug-webhook-status", billing_call)
        .post("/fix-subscription", billing_call);
}

fn billing_disabled() -> ApiError {
    ApiError::new(StatusCode::NOT_IMPLEMENTED, "billing_disabled", MSG_BILLING_DISABLED).with("billingEnabled", false)
}

/// `POST /api/cancel-subscription`.
async fn cancel_subscription(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<HttpResponse> {
    let user = &signed_in.user;
    if !user.subscription_tier.is_paid() {
        return Err(ApiError::bad_request(MSG_NOTHING_TO_CANCEL));
    }
    let active = state.store.search_terms(user.id)?.iter().filter(|term| term.is_active).count();
    if active > 1 {
        return Err(ApiError::bad_request(format!(
            "You have {active} active search terms. Please delete search terms until only 1 remains, then cancel your subscription."
        ))
        .with("requiresSearchDeletion", true)
        .with("currentSearchCount", active));
    }
    Err(billing_disabled())
}

#[derive(Debug, Deserialize)]
struct PlanChoice {
    #[serde(default)]
    tier: String,
}

/// `POST /api/create-subscription` and `POST /api/create-checkout-session` `{ tier }`.
async fn create_subscription(_signed_in: SignedIn, body: web::Json<PlanChoice>) -> ApiResult<HttpResponse> {
    match body.tier.parse::<Tier>() {
        Ok(tier) if tier.is_paid() => Err(billing_disabled()),
        _ => Err(ApiError::bad_request(MSG_BAD_TIER)),
    }
}

/// The status, repair and webhook-debug calls: nothing to report without billing.
async fn billing_call(_signed_in: SignedIn) -> ApiResult<HttpResponse> {
    Err(billing_disabled())
}
