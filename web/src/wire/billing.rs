//! Billing: the plan choice, the card and Checkout flows' answers, the finalizing page's poll,
//! the repair page, and the answer to Stripe's webhook.

use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;

use super::common::Tier;

/// `POST /api/create-subscription {tier[, setupIntentId]}` and
/// `POST /api/create-checkout-session {tier}`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanChoice {
    /// Read as text: a plan of another name is refused with its own message.
    #[serde(default)]
    #[ts(optional, as = "Option<PaidTier>")]
    #[schema(value_type = Option<PaidTier>)]
    pub tier: String,
    /// Step 2 of the card flow: the SetupIntent the browser confirmed.
    #[serde(default)]
    #[ts(optional)]
    pub setup_intent_id: Option<String>,
}

/// A plan one pays for: what the card and Checkout flows sell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PaidTier {
    Pro,
    Team,
}

/// The state a subscription's payment has reached, as the finalizing page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PaymentState {
    Success,
    Failed,
    Pending,
}

impl PaymentState {
    /// The state of a tracked subscription.
    pub fn of(row: &engine::billing::SubscriptionTracking) -> PaymentState {
        match row.state() {
            "success" => PaymentState::Success,
            "failed" => PaymentState::Failed,
            _ => PaymentState::Pending,
        }
    }
}

/// A tracked subscription's status (spec §3 `subscription_tracking.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubscriptionStatus {
    Pending,
    Active,
    PastDue,
    Failed,
    Canceled,
}

impl From<engine::billing::TrackingStatus> for SubscriptionStatus {
    fn from(status: engine::billing::TrackingStatus) -> SubscriptionStatus {
        match status {
            engine::billing::TrackingStatus::Pending => SubscriptionStatus::Pending,
            engine::billing::TrackingStatus::Active => SubscriptionStatus::Active,
            engine::billing::TrackingStatus::PastDue => SubscriptionStatus::PastDue,
            engine::billing::TrackingStatus::Failed => SubscriptionStatus::Failed,
            engine::billing::TrackingStatus::Canceled => SubscriptionStatus::Canceled,
        }
    }
}

/// `POST /api/create-subscription`: the plan is already active; or step 1 (`step: "setup"`, the
/// SetupIntent's secret); or step 2 (`step: "subscription"`, the payment's state and any
/// 3-D Secure secret).
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSubscriptionAnswer {
    pub already_active: bool,
    pub client_secret: Option<String>,
    /// Step 2 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub payment_status: Option<Option<String>>,
    /// Step 2 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub state: Option<Option<PaymentState>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step: Option<SubscriptionStep>,
    pub subscription_id: Option<String>,
    pub tier: Tier,
}

/// Which step of the card flow an answer is.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SubscriptionStep {
    Setup,
    Subscription,
}

/// `POST /api/create-checkout-session`: the embedded Checkout's secret.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutSessionAnswer {
    pub client_secret: String,
}

/// `GET /api/session-status?session_id=`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionQuery {
    #[serde(default)]
    #[ts(optional, as = "Option<String>")]
    pub session_id: String,
}

/// `GET /api/session-status`: the Checkout Session as Stripe reports it (snake_case, as Stripe
/// names them).
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct SessionStatusAnswer {
    pub payment_status: String,
    pub status: Option<String>,
    pub subscription_id: Option<String>,
}

/// `GET /api/subscriptions/{id}/status`: the finalizing page's poll.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct SubscriptionStatusAnswer {
    /// Why it failed, when it did.
    pub reason: Option<String>,
    pub state: PaymentState,
    /// The tracking row's status.
    pub status: SubscriptionStatus,
    pub tier: Tier,
}

/// `POST /api/cancel-subscription`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct CancelAnswer {
    pub message: String,
    #[ts(type = "true")]
    pub success: bool,
    pub tier: Tier,
}

/// `POST /api/fix-subscription`: the plan after applying what Stripe knows.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct FixSubscriptionAnswer {
    pub changed: bool,
    pub tier: Tier,
}

/// `GET /api/debug-webhook-status`: what Papertide and Stripe know of the caller.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct WebhookStatusAnswer {
    pub stripe: StripeCustomerView,
    pub user: BillingUserView,
}

/// The caller's billing fields.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillingUserView {
    pub email: String,
    pub stripe_customer_id: Option<String>,
    pub stripe_subscription_id: Option<String>,
    pub subscription_tier: Tier,
}

/// The caller's customer at Stripe.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StripeCustomerView {
    pub customer_id: Option<String>,
    pub invoices: Vec<InvoiceView>,
    pub subscriptions: Vec<StripeSubscriptionView>,
}

/// An invoice at Stripe (snake_case, as Stripe names the fields); amounts in cents.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct InvoiceView {
    #[ts(type = "number")]
    pub amount_due: i64,
    #[ts(type = "number")]
    pub amount_paid: i64,
    /// Unix seconds.
    #[ts(type = "number | null")]
    pub created: Option<i64>,
    pub currency: String,
    pub id: String,
    pub paid: bool,
    pub status: Option<String>,
}

/// A subscription at Stripe.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct StripeSubscriptionView {
    pub id: String,
    pub status: String,
    pub tier: Option<Tier>,
}

/// `POST /api/stripe/webhook`: received (and whether it was a delivery seen before).
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct WebhookAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "true")]
    pub duplicate: Option<bool>,
    #[ts(type = "true")]
    pub received: bool,
}
