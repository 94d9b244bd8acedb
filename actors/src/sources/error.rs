//! Why a request to a paper source failed, and what a caller should do about it.
//!
//! A [`SourceError`] names whom it asked ([`Origin`]: a paper source, or Crossref), the request (as a label, never the URL: NCBI URLs carry
//! the API key), how many attempts were made, and the last [`Failure`]. Callers branch on
//! [`SourceError::kind`]: try later (`Transient`, `RateLimited`), give up on this request
//! (`NotFound`, `Parse`, `Permanent`).

use std::fmt;
use std::time::Duration;

use engine::paper::Source;

/// Whom a request went to: one of the paper sources, or Crossref, which is asked for seed DOIs
/// the sources do not hold and is not a source of its own (see `engine::parse::crossref`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    Source(Source),
    Crossref,
}

impl From<Source> for Origin {
    fn from(source: Source) -> Origin {
        Origin::Source(source)
    }
}

impl PartialEq<Source> for Origin {
    fn eq(&self, source: &Source) -> bool {
        *self == Origin::Source(*source)
    }
}

impl fmt::Display for Origin {
    /// The source's name (`pubmed`, …), or `crossref`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Source(source) => source.fmt(formatter),
            Origin::Crossref => formatter.write_str("crossref"),
        }
    }
}

/// What a caller should do about a failed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The source or the network had a bad moment (5xx, timeout, broken connection); the same
    /// request may work later.
    Transient,
    /// The source asked us to slow down (HTTP 429), possibly saying for how long.
    RateLimited { retry_after: Option<Duration> },
    /// The source says there is nothing at this address (HTTP 404 or 410).
    NotFound,
    /// The source answered, but not with something its parser can read. Repeating the request
    /// would most likely get the same body, so it is not retried.
    Parse,
    /// The request itself is wrong or refused (4xx, an error message in the body, a bad
    /// configuration); repeating it will not help.
    Permanent,
}

impl ErrorKind {
    /// Whether the same request is worth sending again.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::Transient | ErrorKind::RateLimited { .. })
    }
}

/// A request to a source that did not succeed, after every attempt the retry policy allowed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{origin} {request}: {failure} ({})", attempts_note(*.attempts))]
pub struct SourceError {
    /// The source (or Crossref) that was asked (a field named `source` would mean the error's
    /// cause to `thiserror`).
    pub origin: Origin,
    /// What was being fetched, e.g. `esearch edat 2024/01/01-2024/01/07`.
    pub request: String,
    /// Requests sent (0 when the request was refused before sending, e.g. a bad window).
    pub attempts: u32,
    /// What went wrong on the last attempt.
    pub failure: Failure,
}

impl SourceError {
    pub fn kind(&self) -> ErrorKind {
        self.failure.kind()
    }

    /// An error for a request that was never sent because it could not be made.
    pub(crate) fn invalid_request(origin: impl Into<Origin>, request: impl Into<String>, why: impl Into<String>) -> SourceError {
        SourceError { origin: origin.into(), request: request.into(), attempts: 0, failure: Failure::InvalidRequest(why.into()) }
    }
}

/// What went wrong with one attempt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The source answered with an unsuccessful HTTP status. `message` is the source's own
    /// explanation when its error body could be read, else the start of the body.
    #[error("HTTP {status}{}", message.as_deref().map(|message| format!(": {message}")).unwrap_or_default())]
    Status { status: u16, retry_after: Option<Duration>, message: Option<String> },
    /// No complete answer within the request timeout.
    #[error("no complete answer within {0:?}")]
    Timeout(Duration),
    /// The connection could not be made, or broke off before the answer was complete.
    #[error("connection failed: {0}")]
    Connection(String),
    /// The answer is not what the endpoint answers with (the parser could not read it).
    #[error("unreadable answer: {0}")]
    Parse(String),
    /// The source reported an error inside a successful answer (NCBI's `<ERROR>`, arXiv's
    /// error feed, bioRxiv's error status). `retry_later` when the message says to try again.
    #[error("the source reported an error: {message}")]
    Api { message: String, retry_later: bool },
    /// A page came back shorter than the source's own paging numbers promise (arXiv sometimes
    /// answers an empty page in the middle of a result set); asking again usually helps.
    #[error("incomplete page: {0}")]
    Incomplete(String),
    /// The request could not be made: a bad window, category, URL or configuration.
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

impl Failure {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Failure::Status { status: 429, retry_after, .. } => ErrorKind::RateLimited { retry_after: *retry_after },
            Failure::Status { status: 404 | 410, .. } => ErrorKind::NotFound,
            Failure::Status { status: 408, .. } => ErrorKind::Transient,
            Failure::Status { status, .. } if *status >= 500 => ErrorKind::Transient,
            Failure::Status { .. } => ErrorKind::Permanent,
            Failure::Timeout(_) | Failure::Connection(_) | Failure::Incomplete(_) => ErrorKind::Transient,
            Failure::Parse(_) => ErrorKind::Parse,
            Failure::Api { retry_later: true, .. } => ErrorKind::Transient,
            Failure::Api { retry_later: false, .. } | Failure::InvalidRequest(_) => ErrorKind::Permanent,
        }
    }

    /// How long the source asked us to wait before the next request (`Retry-After` on a 429 or
    /// 503), if it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// `after 3 attempts`, `after 1 attempt`, or `not sent`.
fn attempts_note(attempts: u32) -> String {
    match attempts {
        0 => "not sent".into(),
        1 => "after 1 attempt".into(),
        more => format!("after {more} attempts"),
    }
}

/// Whether a source's error message asks to try again later rather than saying the request is
/// wrong (NCBI: "please try again later", "temporarily unavailable", "timed out").
pub(crate) fn says_retry_later(message: &str) -> bool {
    let lowered = message.to_lowercase();
    ["try again", "retry later", "try later", "temporarily unavailable", "timed out", "timeout"].iter().any(|sign| lowered.contains(sign))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16) -> Failure {
        Failure::Status { status, retry_after: None, message: None }
    }

    #[test]
    fn statuses_map_to_kinds() {
        assert_eq!(status(429).kind(), ErrorKind::RateLimited { retry_after: None });
        let told = Failure::Status { status: 429, retry_after: Some(Duration::from_secs(2)), message: None };
        assert_eq!(told.kind(), ErrorKind::RateLimited { retry_after: Some(Duration::from_secs(2)) });
        assert_eq!(status(404).kind(), ErrorKind::NotFound);
        assert_eq!(status(410).kind(), ErrorKind::NotFound);
        for transient in [408, 500, 502, 503, 504] {
            assert_eq!(status(transient).kind(), ErrorKind::Transient, "{transient}");
        }
        for permanent in [400, 401, 403, 414] {
            assert_eq!(status(permanent).kind(), ErrorKind::Permanent, "{permanent}");
        }
    }

    #[test]
    fn only_transient_and_rate_limited_are_retried() {
        let retryable: Vec<bool> = [
            Failure::Timeout(Duration::from_secs(1)),
            Failure::Connection("reset".into()),
            Failure::Incomplete("empty page".into()),
            status(503),
            status(429),
            Failure::Api { message: "try again later".into(), retry_later: true },
        ]
        .iter()
        .map(|failure| failure.kind().is_retryable())
        .collect();
        assert!(retryable.iter().all(|retry| *retry));
        let final_ones = [
            Failure::Parse("garbage".into()),
            Failure::Api { message: "bad query".into(), retry_later: false },
            Failure::InvalidRequest("from after to".into()),
            status(404),
            status(400),
        ];
        assert!(final_ones.iter().all(|failure| !failure.kind().is_retryable()));
    }

    #[test]
    fn retry_later_messages_are_recognised() {
        assert!(says_retry_later("Search Backend temporarily unavailable, please try again later"));
        assert!(says_retry_later("Query timed out"));
        assert!(!says_retry_later("Neither query_key nor id specified"));
        assert!(!says_retry_later("'retstart' cannot be larger than 9998"));
    }

    #[test]
    fn the_message_names_source_request_and_attempts() {
        let error = SourceError { origin: Source::Pubmed.into(), request: "esearch".into(), attempts: 3, failure: status(500) };
        assert_eq!(error.to_string(), "pubmed esearch: HTTP 500 (after 3 attempts)");
        let once = SourceError { attempts: 1, ..error.clone() };
        assert!(once.to_string().ends_with("(after 1 attempt)"));
        let refused = SourceError::invalid_request(Source::Arxiv, "query", "not an arXiv category: \"x y\"");
        assert_eq!(refused.to_string(), "arxiv query: invalid request: not an arXiv category: \"x y\" (not sent)");
        assert_eq!(refused.origin, Source::Arxiv);
        let crossref = SourceError { origin: Origin::Crossref, request: "works".into(), attempts: 1, failure: status(503) };
        assert_eq!(crossref.to_string(), "crossref works: HTTP 503 (after 1 attempt)");
    }
}
