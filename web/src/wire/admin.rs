//! The operator console's routes (`/api/admin/...`): accounts, counts, the sources and the index,
//! the mail and billing, as the operator reads and changes them.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::billing::SubscriptionStatus;
use super::common::{Source, Tier};

/// `GET /api/admin/stats`: the service's accounts and digests in numbers.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminStats {
    #[ts(type = "number")]
    pub users: u64,
    #[ts(type = "number")]
    pub verified: u64,
    #[ts(type = "number")]
    pub disabled: u64,
    #[ts(type = "number")]
    pub free: u64,
    #[ts(type = "number")]
    pub pro: u64,
    #[ts(type = "number")]
    pub team: u64,
    /// Effective operators (granted, or by a verified address in the settings).
    #[ts(type = "number")]
    pub operators: u64,
    #[ts(type = "number")]
    pub active_terms: u64,
    #[ts(type = "number")]
    pub digests_sent: u64,
    /// The last 12 ISO weeks, oldest first, weeks without any included.
    pub signups_by_week: Vec<WeekCount>,
    pub digests_by_week: Vec<WeekCount>,
}

/// How many in one ISO week (`2026-W47`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
pub struct WeekCount {
    pub week: String,
    #[ts(type = "number")]
    pub count: u64,
}

/// `GET /api/admin/users`: the filters and the page (from 1; 50 a page).
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdminUsersQuery {
    /// Part of the email, in any case.
    #[ts(optional)]
    pub q: Option<String>,
    /// Read as text: a plan of another name is refused with its own message.
    #[ts(optional, as = "Option<Tier>")]
    #[schema(value_type = Option<Tier>)]
    pub plan: Option<String>,
    #[ts(optional)]
    pub verified: Option<bool>,
    #[ts(optional)]
    pub page: Option<u32>,
}

/// One page of accounts, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUserPage {
    pub users: Vec<AdminUser>,
    /// How many accounts match the filters, on every page.
    #[ts(type = "number")]
    pub total: u64,
    pub page: u32,
    pub page_size: u32,
}

/// One account as the operator sees it.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUser {
    pub id: Uuid,
    pub email: String,
    pub plan: Tier,
    pub verified: bool,
    /// An operator in effect: granted here or from the command line, or by the settings.
    pub operator: bool,
    /// Granted here or from the command line (what "remove operator" takes back).
    pub operator_granted: bool,
    /// Named in the settings' admin emails (removed only there).
    pub operator_by_email: bool,
    pub disabled: bool,
    pub created_at: DateTime<Utc>,
    #[ts(type = "number")]
    pub active_terms: u64,
    #[ts(type = "number")]
    pub terms: u64,
    #[ts(type = "number")]
    pub digests_sent: u64,
    pub last_digest_at: Option<DateTime<Utc>>,
    pub stripe_customer_id: Option<String>,
}

/// `POST /api/admin/users/{userId}/plan`.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdminPlanRequest {
    /// Read as text: a plan of another name is refused with its own message.
    #[ts(as = "Tier")]
    #[schema(value_type = Tier)]
    pub plan: String,
}

/// `POST /api/admin/users/{userId}/operator`.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdminOperatorRequest {
    pub operator: bool,
}

/// `POST /api/admin/users/{userId}/disabled`.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdminDisabledRequest {
    pub disabled: bool,
}

/// `GET /api/admin/sources`: every source's harvesting, and the index.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminSources {
    pub sources: Vec<AdminSource>,
    pub index: AdminIndex,
}

/// One source's harvester.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminSource {
    pub source: Source,
    /// Harvested by this service (`PAPERTIDE_HARVEST_SOURCES`).
    pub enabled: bool,
    /// The last day harvested completely.
    pub cursor: Option<NaiveDate>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    /// Papers in the index whose source date is within the last 7 days (`/healthz`'s
    /// `papersThisWeek` counts the papers harvested this week).
    #[ts(type = "number")]
    pub papers_dated_last_7_days: u64,
    /// When the harvester runs next, if it runs here.
    pub next_run_at: Option<DateTime<Utc>>,
    pub running: bool,
}

/// The paper index.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminIndex {
    #[ts(type = "number")]
    pub papers: u64,
    /// A paper reported by several sources counts for each.
    pub by_source: PapersBySource,
    pub vectors: AdminVectors,
}

/// Papers in the index by source.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct PapersBySource {
    #[ts(type = "number")]
    pub pubmed: u64,
    #[ts(type = "number")]
    pub arxiv: u64,
    #[ts(type = "number")]
    pub biorxiv: u64,
    #[ts(type = "number")]
    pub medrxiv: u64,
}

/// The papers' sentence embeddings.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminVectors {
    /// None: no model is loaded, ranking is lexical.
    pub model: Option<String>,
    /// What runs the model (`onnx-int8`, `onnx-fp32`, `candle`); none without a model.
    pub runtime: Option<String>,
    #[ts(type = "number")]
    pub embedded: u64,
    #[ts(type = "number")]
    pub waiting: u64,
    /// Hours until every waiting paper has its vector, at the rate since start; none before the
    /// first batch was timed.
    pub hours_left: Option<f64>,
}

/// `GET /api/admin/mail`: how mail leaves, and what did not.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminMail {
    pub transport: MailTransportKind,
    pub smtp: SmtpStatus,
    /// Mails waiting to be handed over.
    #[ts(type = "number")]
    pub queued: u64,
    /// Mails given up for good, oldest first.
    pub dead: Vec<DeadMail>,
}

/// Where mail goes: an SMTP server, or files in the outbox folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MailTransportKind {
    Smtp,
    Outbox,
}

/// The mailer's last hand-overs.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmtpStatus {
    pub state: SmtpState,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

/// `ok`: the last hand-over worked; `failing`: the last error is newer; `idle`: neither yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SmtpState {
    Ok,
    Failing,
    Idle,
}

/// A mail given up for good.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeadMail {
    /// The id the retry and drop routes name.
    pub id: String,
    pub to: String,
    pub subject: String,
    /// When it was last tried (or queued, if never tried).
    pub failed_at: DateTime<Utc>,
    pub attempts: u32,
    pub error: Option<String>,
}

/// `GET /api/admin/billing`: the paid and tracked accounts, from the stored tracking.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminBilling {
    pub enabled: bool,
    pub users: Vec<AdminBillingUser>,
}

/// One paid account, or one with a tracked subscription.
#[derive(Debug, Clone, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminBillingUser {
    pub id: Uuid,
    pub email: String,
    pub plan: Tier,
    pub stripe_customer_id: Option<String>,
    /// The newest tracked subscription (or the account's own, if none is tracked).
    pub subscription_id: Option<String>,
    /// The tracking's status.
    pub status: Option<SubscriptionStatus>,
    /// Not stored with the tracking: known only from Stripe (the user's debug page).
    pub current_period_end: Option<DateTime<Utc>>,
    pub cancel_at_period_end: bool,
}
