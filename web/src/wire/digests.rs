//! Digests: the immediate search, the digests a user was sent (each paper as the dashboard reads
//! it, named by its `paperKey`), test mail, the triggered digest and the unsubscribe link.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::Source;

/// `POST /api/immediate-search` `{ email, searchTerm }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImmediateSearchRequest {
    pub email: String,
    pub search_term: String,
    /// Papers to seed a new term from before its first digest is ranked.
    #[serde(default)]
    #[ts(optional)]
    pub seeds: Option<super::workflows::SeedsRequest>,
}

/// `POST /api/immediate-search`: the term kept, and whether a digest went out.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImmediateSearchAnswer {
    /// `null` when no digest was sent (a free plan's digests are used).
    pub digest_id: Option<Uuid>,
    pub digest_sent: bool,
    pub message: String,
    pub papers_found: usize,
    pub search_term: String,
    /// The papers the term was seeded from by this request.
    pub seeded: Vec<super::workflows::SeedPaperView>,
    #[ts(type = "true")]
    pub success: bool,
    pub term_id: Uuid,
}

/// `POST /api/resend-email` `{ searchTerm }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResendRequest {
    pub search_term: String,
}

/// `POST /api/resend-email`: the term whose latest digest was mailed again.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResendAnswer {
    pub search_term: String,
    #[ts(type = "true")]
    pub success: bool,
}

/// `POST /api/test-email` `{ email, type: welcome | digest }`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TestEmailRequest {
    #[serde(default)]
    #[ts(optional, as = "Option<String>")]
    pub email: String,
    /// Read as text: a type of another name is refused with its own message.
    #[serde(rename = "type", default)]
    #[ts(optional, as = "Option<TestMailKind>")]
    #[schema(value_type = Option<TestMailKind>)]
    pub kind: String,
}

/// The mails `POST /api/test-email` sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TestMailKind {
    Welcome,
    Digest,
}

/// `POST /api/trigger-digest`: how many digests went out, with how many papers.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TriggerDigestAnswer {
    pub digests: usize,
    pub papers_found: usize,
    #[ts(type = "true")]
    pub success: bool,
}

/// Why a digest was made.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DigestKind {
    Immediate,
    Weekly,
}

impl From<engine::digest::DigestKind> for DigestKind {
    fn from(kind: engine::digest::DigestKind) -> DigestKind {
        match kind {
            engine::digest::DigestKind::Immediate => DigestKind::Immediate,
            engine::digest::DigestKind::Weekly => DigestKind::Weekly,
        }
    }
}

/// Where a digest stands: every stored digest is sent.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DigestStatus {
    Sent,
}

impl From<engine::digest::DigestStatus> for DigestStatus {
    fn from(status: engine::digest::DigestStatus) -> DigestStatus {
        match status {
            engine::digest::DigestStatus::Sent => DigestStatus::Sent,
        }
    }
}

/// A digest a user was sent: `GET /api/users/{userId}/digests` (a list of them, newest first).
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestView {
    /// Line-separated.
    pub ai_summary: String,
    pub digest_type: DigestKind,
    /// For a digest without papers: why, in its mail's words (which source could not be reached
    /// when it was sent is the mail's alone).
    pub empty_reason: Option<String>,
    pub id: Uuid,
    pub papers_data: Vec<DigestPaper>,
    pub search_term: String,
    pub searched_as: Option<String>,
    pub sent_at: DateTime<Utc>,
    /// For an empty digest: the papers left out because an earlier digest sent them.
    pub sent_before: usize,
    pub status: DigestStatus,
    pub subject: String,
    /// The user's term it was made for (its ratings are that term's, while that term lives);
    /// `null` for a digest whose term was already deleted when digests first kept their term's id.
    pub term_id: Option<Uuid>,
    pub user_id: Uuid,
    /// How far an immediate digest looked back when its week had too few papers.
    pub widened: Option<Widened>,
}

impl From<engine::digest::Digest> for DigestView {
    fn from(digest: engine::digest::Digest) -> DigestView {
        let empty_reason = digest
            .papers_data
            .is_empty()
            .then(|| engine::digest_text::empty_reason(&digest.search_term, digest.window_days(), digest.sent_before, &[]));
        DigestView {
            ai_summary: digest.ai_summary,
            digest_type: digest.digest_type.into(),
            empty_reason,
            id: digest.id,
            papers_data: digest.papers_data.into_iter().map(DigestPaper::from).collect(),
            search_term: digest.search_term,
            searched_as: digest.searched_as,
            sent_at: digest.sent_at,
            sent_before: digest.sent_before,
            status: digest.status.into(),
            subject: digest.subject,
            term_id: digest.term_id.map(|term_id| term_id.0),
            user_id: digest.user_id.0,
            widened: digest.widened.map(Widened::from),
        }
    }
}

/// A paper of a digest.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestPaper {
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    pub authors: String,
    pub journal: Option<String>,
    /// The paper's citation as a COinS OpenURL (the `title` of a `span.Z3988`), for reference
    /// managers' browser connectors.
    pub coins: String,
    /// (label, url) pairs.
    pub links: Vec<(String, String)>,
    /// What names the paper when it is rated (its first dedup key); absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub paper_key: Option<String>,
    pub reason: String,
    /// 0 to 1.
    pub relevance_score: f64,
    pub retracted: bool,
    /// The first source that reported it.
    pub source: Source,
    pub sources: Vec<Source>,
    pub summary: String,
    pub title: String,
    pub url: Option<String>,
}

impl From<engine::digest::DigestEntry> for DigestPaper {
    fn from(entry: engine::digest::DigestEntry) -> DigestPaper {
        let coins = engine::citation::coins(&engine::citation::Citation::from_entry(&entry));
        DigestPaper {
            abstract_text: entry.abstract_text,
            coins,
            authors: entry.authors,
            journal: entry.journal,
            links: entry.links,
            paper_key: entry.keys.into_iter().next(),
            reason: entry.reason,
            relevance_score: entry.relevance_score,
            retracted: entry.retracted,
            source: entry.source.into(),
            sources: entry.sources.into_iter().map(Source::from).collect(),
            summary: entry.summary,
            title: entry.title,
            url: entry.url,
        }
    }
}

/// How far an immediate digest looked back, and how many of its papers were the week's.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Widened {
    #[ts(type = "number")]
    pub days: i64,
    pub new_this_week: usize,
}

impl From<engine::digest::Widened> for Widened {
    fn from(widened: engine::digest::Widened) -> Widened {
        Widened { days: widened.days, new_this_week: widened.new_this_week }
    }
}
