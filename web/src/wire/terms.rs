//! A user's search terms: the term as the dashboard reads it, and the changes it sends.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

/// Where a term's search stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TermStatus {
    Pending,
    Processing,
    Completed,
    Failed,
}

impl From<engine::search_term::TermStatus> for TermStatus {
    fn from(status: engine::search_term::TermStatus) -> TermStatus {
        match status {
            engine::search_term::TermStatus::Pending => TermStatus::Pending,
            engine::search_term::TermStatus::Processing => TermStatus::Processing,
            engine::search_term::TermStatus::Completed => TermStatus::Completed,
            engine::search_term::TermStatus::Failed => TermStatus::Failed,
        }
    }
}

/// A search term: `GET /api/users/{userId}/search-terms` (a list of them) and
/// `PATCH /api/search-terms/{termId}`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchTermView {
    pub id: Uuid,
    pub user_id: Uuid,
    pub term: String,
    pub is_active: bool,
    /// Added on the free plan.
    pub is_free: bool,
    pub status: TermStatus,
    pub last_processed_at: Option<DateTime<Utc>>,
    pub next_scheduled_run: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// Words whose papers the term does not want.
    pub exclude: Vec<String>,
}

impl From<engine::search_term::SearchTerm> for SearchTermView {
    fn from(term: engine::search_term::SearchTerm) -> SearchTermView {
        SearchTermView {
            id: term.id.0,
            user_id: term.user_id.0,
            term: term.term,
            is_active: term.is_active,
            is_free: term.is_free,
            status: term.status.into(),
            last_processed_at: term.last_processed_at,
            next_scheduled_run: term.next_scheduled_run,
            created_at: term.created_at,
            exclude: term.exclude,
        }
    }
}

/// `PATCH /api/search-terms/{termId}` `{ term?, exclude? }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TermChange {
    #[ts(optional = nullable)]
    pub term: Option<String>,
    #[ts(optional = nullable)]
    pub exclude: Option<Vec<String>>,
}

/// `DELETE /api/search-terms/{termId}`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct TermDeleted {
    pub id: Uuid,
    #[ts(type = "true")]
    pub success: bool,
}
