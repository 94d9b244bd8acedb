//! `GET /api/config`: what the client needs to know of the server before anyone signs in.

use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

/// The support address, the analytics provider (loaded only after consent) and billing.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    pub analytics: Option<AnalyticsView>,
    pub billing_enabled: bool,
    /// Whether paid plans get another chat model than the free plan
    /// (`PAPERTIDE_LLM_MODEL_ADVANCED`): the plan cards promise one only then.
    pub advanced_model: bool,
    /// What each plan gives, as the plan cards list it.
    pub plans: Vec<super::workflows::PlanEntitlements>,
    pub stripe: Option<StripeView>,
    pub support_email: String,
}

/// A web-analytics provider.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsView {
    pub provider: String,
    pub script_url: String,
    pub site_id: String,
}

impl From<&crate::config::Analytics> for AnalyticsView {
    fn from(analytics: &crate::config::Analytics) -> AnalyticsView {
        AnalyticsView { provider: analytics.provider.clone(), script_url: analytics.script_url.clone(), site_id: analytics.site_id.clone() }
    }
}

/// Stripe.js, for the card and Checkout forms.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StripeView {
    pub js_url: String,
    pub publishable_key: String,
}
