//! The real HTTP clients of the four paper sources: PubMed (NCBI E-utilities), arXiv (export
//! API) and bioRxiv/medRxiv (`api.biorxiv.org`). They build the requests for a window of days
//! (or for papers by id, for a researcher's seeds), pace them, retry them, page through the
//! answers and hand every body to the `engine` parsers. Beside them, the Crossref client
//! ([`CrossrefClient`]) looks up one work by DOI, for seeds the sources do not hold; Crossref is
//! not a source ([`Origin::Crossref`] in its errors).
//!
//! Each client ([`PubmedClient`], [`ArxivClient`], [`BiorxivClient`], [`CrossrefClient`]) is built from its config
//! and owns its connection pool and its pacer (`pacing`); clone it (cheaply) to share the pacing
//! between concurrent callers. A fetch returns the papers and the parser's warnings ([`Parsed`]), or a
//! [`SourceError`] whose [`ErrorKind`] says whether to try again later.
//!
//! Policy, the same for every source (knobs in [`HttpConfig`]):
//! - **Pacing**: request starts are at least `min_interval` apart across all callers of a
//!   client: PubMed 350 ms without an API key (NCBI allows 3/s), 110 ms with one (10/s); arXiv
//!   3 s and one request open at a time (its terms of use); bioRxiv/medRxiv 1 s (undocumented;
//!   be polite); Crossref 200 ms. Both bioRxiv servers share one host, so one client serves both.
//! - **Retries**: 429, 408, 5xx, timeouts, broken connections, error messages that say to try
//!   again and incomplete pages are retried up to `max_retries` times with capped exponential
//!   backoff and jitter; a `Retry-After` (seconds or a date) on a 429 or 503 is honoured and
//!   pauses every caller of the client. 404/410 (`NotFound`), other 4xx and reported errors
//!   (`Permanent`) and unreadable bodies (`Parse`) are never retried.
//! - **Windows** are inclusive ranges of days, in the source's calendar (arXiv: GMT). A window with more results than the source
//!   will page through (PubMed 9,999, arXiv 30,000) is split in halves by days, recursively.
//!
//! Architecture invariant: the clients do the I/O and read the clock; what a body means is
//! decided by `engine::parse` alone. No error message or log line carries a request URL (NCBI
//! URLs hold the API key); requests are named by a label instead.

pub mod arxiv;
pub mod biorxiv;
pub mod crossref;
mod error;
mod http;
pub(crate) use http::error_chain;
mod pacing;
pub mod pubmed;
mod retry;

use chrono::NaiveDate;
use engine::paper::{Paper, Source};

pub use arxiv::{ArxivClient, ArxivConfig};
pub use biorxiv::{BiorxivClient, BiorxivConfig};
pub use crossref::{CrossrefClient, CrossrefConfig};
pub use engine::paper::{ParseWarning, Parsed};
pub use error::{ErrorKind, Failure, Origin, SourceError};
pub use http::{default_user_agent, HttpConfig};
pub use pubmed::{PubmedClient, PubmedConfig};

/// How far a fetch has come, reported after every page for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub source: Source,
    /// Answers received and parsed so far (searches and pages).
    pub pages: u32,
    /// Records read so far (papers plus records that became warnings).
    pub records_received: u64,
    /// Records the source said the window holds, as far as known yet (a window that is split
    /// learns its parts' counts one by one).
    pub records_expected: u64,
}

/// A callback for [`Progress`]; `Sync` so that a fetch can run on any runtime thread.
pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

/// The two halves of an inclusive window of days, the first one the longer; `None` for a
/// single day, which cannot be split.
pub(crate) fn split_days(from: NaiveDate, to: NaiveDate) -> Option<((NaiveDate, NaiveDate), (NaiveDate, NaiveDate))> {
    let days_after_first = (to - from).num_days();
    if days_after_first < 1 {
        return None;
    }
    let first_half_end = from + chrono::Duration::days(days_after_first / 2);
    let second_half_start = first_half_end.succ_opt()?;
    Some(((from, first_half_end), (second_half_start, to)))
}

/// Refuses a window whose end comes before its start.
fn check_window(source: Source, label: &str, from: NaiveDate, to: NaiveDate) -> Result<(), SourceError> {
    if from > to {
        return Err(SourceError::invalid_request(source, label, format!("the window ends ({to}) before it starts ({from})")));
    }
    Ok(())
}

/// What a fetch has gathered so far: the papers and warnings, and the numbers for [`Progress`].
#[derive(Debug)]
struct Harvest {
    source: Source,
    papers: Parsed<Paper>,
    pages: u32,
    received: u64,
    expected: u64,
}

impl Harvest {
    fn new(source: Source) -> Harvest {
        Harvest { source, papers: Parsed { items: Vec::new(), warnings: Vec::new() }, pages: 0, received: 0, expected: 0 }
    }

    /// Adds the records of one page; returns how many it held (papers and unreadable records).
    fn add_page(&mut self, page: Parsed<Paper>) -> u64 {
        let records = records_in(&page);
        self.received += records;
        self.papers.items.extend(page.items);
        self.papers.warnings.extend(page.warnings);
        records
    }

    fn report(&self, progress: Option<ProgressFn<'_>>) {
        if let Some(callback) = progress {
            callback(Progress { source: self.source, pages: self.pages, records_received: self.received, records_expected: self.expected });
        }
    }
}

/// Records an answer counted: papers plus the warnings that stand for a record.
fn records_in(parsed: &Parsed<Paper>) -> u64 {
    let unreadable_records = parsed.warnings.iter().filter(|warning| warning.record.is_some()).count();
    (parsed.items.len() + unreadable_records) as u64
}

/// A window-level warning (no record): a part of the window that could not be fetched.
fn window_warning(message: String) -> ParseWarning {
    ParseWarning { record: None, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    #[test]
    fn windows_split_into_covering_halves() {
        assert_eq!(split_days(day("2024-01-01"), day("2024-01-01")), None);
        assert_eq!(
            split_days(day("2024-01-01"), day("2024-01-02")),
            Some(((day("2024-01-01"), day("2024-01-01")), (day("2024-01-02"), day("2024-01-02"))))
        );
        assert_eq!(
            split_days(day("2024-01-01"), day("2024-01-07")),
            Some(((day("2024-01-01"), day("2024-01-04")), (day("2024-01-05"), day("2024-01-07"))))
        );
        assert_eq!(
            split_days(day("2023-12-30"), day("2024-01-02")),
            Some(((day("2023-12-30"), day("2023-12-31")), (day("2024-01-01"), day("2024-01-02"))))
        );
    }

    #[test]
    fn a_backwards_window_is_refused_before_sending() {
        let error = check_window(Source::Arxiv, "query", day("2024-01-02"), day("2024-01-01")).expect_err("backwards");
        assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0));
        assert!(check_window(Source::Arxiv, "query", day("2024-01-01"), day("2024-01-01")).is_ok());
    }
}
