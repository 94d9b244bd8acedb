//! Billing as stored: whether it is on, the paid accounts and those with a tracked
//! subscription (no call to Stripe), and the repair of one account's plan from Stripe, as the
//! user's own `/api/fix-subscription` does it.

use std::collections::BTreeMap;

use actix_web::web;
use engine::billing::SubscriptionTracking;
use engine::UserId;

use super::user_of;
use crate::auth::Operator;
use crate::error::ApiResult;
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::admin::{AdminBilling, AdminBillingUser};
use crate::wire::billing::FixSubscriptionAnswer;

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/admin/billing", billing).post("/admin/users/{user_id}/repair-subscription", repair);
}

/// `GET /api/admin/billing`: paid accounts and accounts with a tracked subscription, oldest
/// account first.
async fn billing(state: web::Data<AppState>, _operator: Operator) -> ApiResult<web::Json<AdminBilling>> {
    // Every account is read: off the async threads.
    let answer = web::block(move || paid_and_tracked(&state)).await??;
    Ok(web::Json(answer))
}

fn paid_and_tracked(state: &AppState) -> ApiResult<AdminBilling> {
    let mut newest: BTreeMap<UserId, SubscriptionTracking> = BTreeMap::new();
    for row in state.store.billing().all_subscription_trackings()? {
        let is_newer = newest.get(&row.user_id).is_none_or(|kept| kept.created_at < row.created_at);
        if is_newer {
            newest.insert(row.user_id, row);
        }
    }
    let mut users = Vec::new();
    for user in state.store.accounts().users()? {
        let tracked = newest.get(&user.id);
        if !user.subscription_tier.is_paid() && tracked.is_none() {
            continue;
        }
        users.push(AdminBillingUser {
            id: user.id.0,
            email: user.email.clone(),
            plan: user.subscription_tier.into(),
            stripe_customer_id: user.stripe_customer_id.clone(),
            subscription_id: tracked.map(|row| row.subscription_id.clone()).or_else(|| user.stripe_subscription_id.clone()),
            status: tracked.map(|row| row.status.into()),
            current_period_end: None,
            cancel_at_period_end: false,
        });
    }
    Ok(AdminBilling { enabled: state.billing.is_some(), users })
}

/// `POST /api/admin/users/{userId}/repair-subscription`: reads the account's subscriptions
/// from Stripe and applies them (501 `billing_disabled` when billing is off).
async fn repair(state: web::Data<AppState>, _operator: Operator, user_id: web::Path<String>) -> ApiResult<web::Json<FixSubscriptionAnswer>> {
    let user = user_of(&state, &user_id)?;
    let answer = crate::billing::repair_subscription(&state, user.id).await?;
    tracing::info!(user = %user.id, changed = answer.changed, "an operator repaired a subscription");
    Ok(web::Json(answer))
}
