//! Ratings: a term's verdicts on its digests' papers, and the rating links of the digest mail.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{sorted_keys, Verdict};

/// A rating: `GET /api/search-terms/{termId}/ratings` (a list of them, newest first) and
/// `PUT /api/search-terms/{termId}/ratings`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingView {
    pub paper_key: String,
    pub title: String,
    pub verdict: Verdict,
    pub digest_id: Option<Uuid>,
    pub rated_at: DateTime<Utc>,
    /// A paper the term was seeded from, not rated from a digest.
    pub seeded: bool,
}

impl From<engine::rating::Rating> for RatingView {
    fn from(rating: engine::rating::Rating) -> RatingView {
        RatingView {
            paper_key: rating.paper_key,
            title: rating.title,
            verdict: rating.verdict.into(),
            digest_id: rating.digest_id,
            rated_at: rating.rated_at,
            seeded: rating.seeded,
        }
    }
}

/// `PUT /api/search-terms/{termId}/ratings` `{ digestId, paperKey, verdict }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateRequest {
    pub digest_id: Uuid,
    pub paper_key: String,
    pub verdict: Verdict,
}

/// `DELETE /api/search-terms/{termId}/ratings?paperKey=…`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoveRatingQuery {
    #[ts(optional = nullable)]
    pub paper_key: Option<String>,
}

/// `GET /api/ratings/link?token=…`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingLinkQuery {
    #[ts(optional = nullable)]
    pub token: Option<String>,
}

/// `POST /api/ratings/link {token}`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingLinkRequest {
    pub token: String,
}

/// What a rating link stands for: `GET /api/ratings/link`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingLinkView {
    pub term: String,
    pub term_id: String,
    pub title: String,
    pub paper_key: String,
    pub verdict: Verdict,
    /// The paper's citation as meta tags (`citation_title`, `citation_author`, …) that reference
    /// managers' browser connectors read: `[name, content]` pairs.
    pub citation: Vec<(String, String)>,
}

/// `POST /api/ratings/link`: the link's rating, recorded.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct RatingLinkConfirmed {
    #[serde(serialize_with = "sorted_keys")]
    pub rating: RatingLinkView,
    #[ts(type = "true")]
    pub success: bool,
}
