//! Where researchers already work: a term seeded from papers they know, private Atom feeds,
//! citations for reference managers, and a lab's chat channel.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Source;

/// The papers a term is seeded from, as a researcher gives them: identifiers pasted one per line
/// (DOIs, PMIDs, arXiv ids or their links) and/or the text of a BibTeX or RIS export.
/// `POST /api/search-terms/{termId}/seeds`; also inside `POST /api/immediate-search` and
/// `POST /api/signup`.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeedsRequest {
    #[serde(default)]
    #[ts(optional)]
    pub ids: Option<String>,
    /// The uploaded file's text.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub file: Option<String>,
}

impl SeedsRequest {
    /// Whether nothing was given.
    pub fn is_empty(&self) -> bool {
        self.ids.as_deref().is_none_or(|ids| ids.trim().is_empty()) && self.file.as_deref().is_none_or(|file| file.trim().is_empty())
    }
}

/// Where a seed paper was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum SeedFoundIn {
    /// Already among Papertide's papers.
    Index,
    /// Looked up at its source just now.
    Source,
}

/// A paper a term was seeded from, as found.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeedPaperView {
    /// The identifier as the researcher gave it.
    pub given_as: String,
    /// What names the paper in the term's ratings.
    pub paper_key: String,
    pub title: String,
    pub authors: String,
    pub year: Option<i32>,
    /// The source that has it; `null` for a paper only Crossref knows.
    pub source: Option<Source>,
    pub found_in: SeedFoundIn,
}

/// `POST /api/search-terms/{termId}/seeds`: the papers found, now among the term's liked papers.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeedsAdded {
    pub seeded: Vec<SeedPaperView>,
}

/// A term's own feed.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TermFeedView {
    pub term_id: Uuid,
    pub term: String,
    pub url: String,
}

/// `GET /api/feeds` and `POST /api/feeds/renew`: the user's private Atom feeds. Renewing gives
/// every feed a new address and ends the old ones.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedsView {
    /// Every digest of the user, newest first.
    pub digests_url: String,
    pub terms: Vec<TermFeedView>,
}

/// A citation file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CitationFormat {
    #[default]
    Ris,
    Bibtex,
}

/// `GET /api/digests/{digestId}/citations?format=`, `GET /api/search-terms/{termId}/citations?format=`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CitationQuery {
    #[serde(default)]
    #[ts(optional = nullable)]
    pub format: Option<CitationFormat>,
}

/// `GET /api/papers/citation?key=&format=`: one paper of the user's digests.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PaperCitationQuery {
    #[ts(optional = nullable)]
    pub key: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub format: Option<CitationFormat>,
}

/// `GET /api/citations/link?token=&format=`: a digest's citations from the link in its mail.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CitationLinkQuery {
    #[ts(optional = nullable)]
    pub token: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub format: Option<CitationFormat>,
}

/// `PUT /api/search-terms/{termId}/channel {url}`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChannelRequest {
    pub url: String,
}

/// A term's lab channel: `GET`/`PUT /api/search-terms/{termId}/channel` (`null` when none).
/// The webhook's address is a secret: only its host is shown.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelView {
    pub host: String,
    pub connected_at: DateTime<Utc>,
    pub last_posted_at: Option<DateTime<Utc>>,
    /// Posts that failed in a row (0 once one succeeds).
    pub failures: u32,
    pub last_error: Option<String>,
}

/// `GET /api/search-terms/{termId}/channel`: the term's channel, `null` when it has none.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct ChannelAnswer {
    pub channel: Option<ChannelView>,
}

/// One lab channel in the operator's console: `GET /api/admin/channels`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminChannel {
    pub user_email: String,
    pub term: String,
    pub host: String,
    pub failures: u32,
    pub last_error: Option<String>,
    pub last_posted_at: Option<DateTime<Utc>>,
    /// Digests waiting to be posted.
    pub pending: usize,
}

/// `GET /api/admin/channels`: every lab channel, failing ones first.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminChannels {
    pub channels: Vec<AdminChannel>,
}

/// What each plan gives beyond its term and digest limits (`engine::account::Entitlements`):
/// `GET /api/config`'s `plans`, read by the plan cards.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntitlements {
    pub tier: super::common::Tier,
    pub max_search_terms: usize,
    pub seeds: bool,
    pub feeds: bool,
    pub citations: bool,
    pub lab_channels: bool,
}

impl From<engine::Tier> for PlanEntitlements {
    fn from(tier: engine::Tier) -> PlanEntitlements {
        let engine::account::Entitlements { seeds, feeds, citations, lab_channels } = tier.entitlements();
        PlanEntitlements { tier: tier.into(), max_search_terms: tier.search_term_limit(), seeds, feeds, citations, lab_channels }
    }
}
