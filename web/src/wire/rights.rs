//! A user's rights over their data: the "Download my data" export and the account deletion.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::billing::SubscriptionStatus;
use super::common::{DeliveryDay, Source, Tier, Verdict};
use super::digests::DigestKind;
use super::terms::SearchTermView;

/// `GET /api/users/{userId}/export`: everything Papertide keeps of the user, as an attachment.
/// Never tokens, password hashes or sessions.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DataExport {
    pub exported_at: DateTime<Utc>,
    pub account: AccountExport,
    pub preferences: PreferencesExport,
    /// Oldest first.
    pub search_terms: Vec<SearchTermView>,
    /// Newest first, each with its papers.
    pub digests: Vec<DigestExport>,
    /// Newest first.
    pub ratings: Vec<RatingExport>,
    /// Oldest first.
    pub plan_history: Vec<PlanChangeExport>,
    /// What the plan history covers.
    pub plan_history_note: String,
    /// The paid subscriptions followed for the user, newest first.
    pub subscriptions: Vec<SubscriptionExport>,
}

/// The account itself.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountExport {
    pub id: Uuid,
    pub email: String,
    pub created_at: DateTime<Utc>,
    pub plan: Tier,
    pub verified: bool,
    pub research_field: Option<String>,
    pub last_digest_at: Option<DateTime<Utc>>,
    pub stripe_customer_id: Option<String>,
    pub stripe_subscription_id: Option<String>,
    /// The address the account was created from, when it was kept.
    pub signup_address: Option<String>,
}

/// The mail preferences as stored.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesExport {
    pub include_pubmed: bool,
    pub include_arxiv: bool,
    pub include_biorxiv: bool,
    pub weekly_digest: bool,
    pub daily_highlights: bool,
    pub delivery_day: DeliveryDay,
}

/// A digest the user was sent.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestExport {
    pub id: Uuid,
    pub kind: DigestKind,
    pub search_term: String,
    pub searched_as: Option<String>,
    pub subject: String,
    pub sent_at: DateTime<Utc>,
    /// Line-separated.
    pub ai_summary: String,
    pub papers: Vec<PaperExport>,
}

/// A paper of a digest, as it was sent.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaperExport {
    pub title: String,
    pub authors: String,
    pub journal: Option<String>,
    pub source: Source,
    pub url: Option<String>,
    /// (label, url) pairs.
    pub links: Vec<(String, String)>,
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    pub summary: String,
    pub reason: String,
    /// 0 to 1.
    pub relevance_score: f64,
    pub retracted: bool,
}

/// A verdict the user gave a paper for one of their terms.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingExport {
    pub term_id: Uuid,
    /// The term's words, when the term is still there.
    pub term: Option<String>,
    /// The paper's identifier (`doi:…`, `pmid:…`).
    pub paper: String,
    pub title: String,
    pub verdict: Verdict,
    pub digest_id: Option<Uuid>,
    pub rated_at: DateTime<Utc>,
    /// A paper the term was seeded from.
    pub seeded: bool,
}

/// Why a plan changed.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanReason {
    Operator,
    Stripe,
    PlanEnded,
    Canceled,
    Other,
}

impl From<store::PlanReason> for PlanReason {
    fn from(reason: store::PlanReason) -> PlanReason {
        match reason {
            store::PlanReason::Operator => PlanReason::Operator,
            store::PlanReason::Stripe => PlanReason::Stripe,
            store::PlanReason::PlanEnded => PlanReason::PlanEnded,
            store::PlanReason::Canceled => PlanReason::Canceled,
            store::PlanReason::Other => PlanReason::Other,
        }
    }
}

/// One change of the user's plan.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanChangeExport {
    pub at: DateTime<Utc>,
    pub from: Tier,
    pub to: Tier,
    pub reason: PlanReason,
}

/// A paid subscription followed for the user.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionExport {
    pub subscription_id: String,
    pub plan: Tier,
    pub status: SubscriptionStatus,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `POST /api/users/{userId}/delete` `{ password }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteAccountRequest {
    pub password: String,
}
