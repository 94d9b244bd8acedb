//! [`LiveSearch`]: when an immediate search finds the index thin on its term, the sources are
//! asked for the term's recent papers before the digest is ranked — PubMed (ESearch on the
//! term's words over the live window's Entrez dates, relevance first, then EFetch of those
//! PMIDs) and arXiv (the words over the window's submission dates, newest first) — and what
//! comes back is indexed by the [`Indexer`], so the digest ranks it with the rest.
//!
//! The rules (when the index is thin, the window, how many papers, the words sent) are
//! `engine::live_search`. Here:
//! - **Only the immediate path**: `UserActor` calls [`LiveSearch::plan`] (on the blocking pool:
//!   it counts the index's matches) and [`LiveSearch::run`] before an immediate digest; the
//!   weekly pass never does.
//! - **Sources**: those the user's plan and preferences allow that live search can ask
//!   (PubMed, arXiv) and was given a client for — the harvesters' own clients, so their pacing,
//!   retries and `Retry-After` pauses are shared with the harvest.
//! - **Rate**: each source is asked at most once a day for the same words, whatever the outcome
//!   and however many users follow the term (remembered in memory until the day changes).
//! - **Time**: every source's question and its indexing share one deadline (20 s by default);
//!   what is not back by then is left out of this digest (papers already sent to the indexer
//!   are still indexed, for the next search).
//! - **Failures** (network, 429, 5xx, garbage, an index error) never fail the digest: each is
//!   logged and counted on the source's board entry (`live-search-pubmed`, `live-search-arxiv`).
//!
//! Architecture invariant: live search writes the index only through the [`Indexer`], and only
//! for papers of the live window.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::Addr;
use chrono::{NaiveDate, Utc};
use engine::live_search::{has_little_for_term, live_window, query_key, query_words, FEW_MATCHES, LIVE_MAX_RESULTS};
use engine::paper::{Paper, Source};
use index::{IndexError, PaperIndex, PaperQuery};

use crate::indexer::{Indexer, IndexerError, Ingest, IngestCounts};
use crate::sources::{ArxivClient, PubmedClient, SourceError};
use crate::status::StatusBoard;

/// How long an immediate search waits for its live query at most, by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// The sources' clients, the index and its writer's address, and the memory of the day's
/// questions. Cheap to clone; clones share the memory (and the clients their pacing).
#[derive(Clone)]
pub struct LiveSearch {
    index: PaperIndex,
    indexer: Addr<Indexer>,
    board: StatusBoard,
    pubmed: Option<PubmedClient>,
    arxiv: Option<ArxivClient>,
    timeout: Duration,
    asked: Arc<Mutex<AskedToday>>,
}

/// The most live questions asked in a day (by words and source): a few MB of words at most, and
/// more than a busy server's immediate searches need.
const MAX_QUESTIONS_A_DAY: usize = 100_000;

/// The questions asked today, by the term's words and the source.
#[derive(Debug, Default)]
struct AskedToday {
    day: Option<NaiveDate>,
    queries: HashSet<(String, Source)>,
}

/// A live query [`LiveSearch::plan`] decided on: the words to send, to which sources, over which
/// days (both inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveQuery {
    pub words: Vec<String>,
    pub sources: Vec<Source>,
    pub window: (NaiveDate, NaiveDate),
}

/// What a live query did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveReport {
    /// The sources that answered in time, their papers indexed.
    pub answered: Vec<Source>,
    /// The sources that failed or did not answer in time.
    pub failed: Vec<Source>,
    /// What the answered papers did to the index.
    pub counts: IngestCounts,
}

/// Why one source's part of a live query brought nothing.
#[derive(Debug, thiserror::Error)]
enum LiveError {
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("{0}")]
    Index(#[from] IndexerError),
    #[error("the indexer is not running")]
    IndexerGone,
    #[error("no answer within {0:?}")]
    TimedOut(Duration),
}

impl LiveSearch {
    /// A live search that asks no source yet (see [`LiveSearch::with_pubmed`] and
    /// [`LiveSearch::with_arxiv`]), counting on `index` and indexing through `indexer`.
    pub fn new(index: PaperIndex, indexer: Addr<Indexer>, board: StatusBoard) -> LiveSearch {
        LiveSearch { index, indexer, board, pubmed: None, arxiv: None, timeout: DEFAULT_TIMEOUT, asked: Arc::default() }
    }

    /// Asks PubMed through `client` (a clone of the harvester's, to share its pacing); its board
    /// entry shows from now on.
    pub fn with_pubmed(mut self, client: PubmedClient) -> LiveSearch {
        self.pubmed = Some(client);
        self.board.register(LiveSearch::board_name(Source::Pubmed));
        self
    }

    /// Asks arXiv through `client` (a clone of the harvester's, to share its pacing); its board
    /// entry shows from now on.
    pub fn with_arxiv(mut self, client: ArxivClient) -> LiveSearch {
        self.arxiv = Some(client);
        self.board.register(LiveSearch::board_name(Source::Arxiv));
        self
    }

    /// Waits at most `timeout` for a live query (the sources' answers and their indexing).
    pub fn with_timeout(mut self, timeout: Duration) -> LiveSearch {
        self.timeout = timeout;
        self
    }

    /// The board entry of live searches on `source`.
    pub fn board_name(source: Source) -> &'static str {
        match source {
            Source::Pubmed => "live-search-pubmed",
            Source::Arxiv => "live-search-arxiv",
            Source::Biorxiv => "live-search-biorxiv",
            Source::Medrxiv => "live-search-medrxiv",
        }
    }

    /// The live query an immediate search of `term` should make as of `today`, if any: the index
    /// has little for the term among `sources`' papers of the live window
    /// (`engine::live_search::has_little_for_term`), and some of `sources` that live search can
    /// ask was not asked for the term's words today. The sources returned count as asked from
    /// now on. Blocking: it searches the index.
    pub fn plan(&self, term: &str, sources: &[Source], today: NaiveDate) -> Result<Option<LiveQuery>, IndexError> {
        let key = query_key(term);
        let askable: Vec<Source> = sources.iter().copied().filter(|source| self.can_ask(*source) && !self.was_asked(&key, *source, today)).collect();
        if askable.is_empty() || key.is_empty() {
            return Ok(None);
        }
        let window = live_window(today);
        let count_query =
            PaperQuery { text: term.to_owned(), since: Some(window.0), until: Some(window.1), sources: sources.to_vec(), limit: FEW_MATCHES };
        let matches = self.index.rank(&count_query)?.len();
        if !has_little_for_term(matches) {
            return Ok(None);
        }
        let reserved = self.reserve(&key, &askable, today);
        if reserved.is_empty() {
            return Ok(None);
        }
        Ok(Some(LiveQuery { words: query_words(term), sources: reserved, window }))
    }

    /// Asks each of the query's sources at once and has the indexer index (and commit) what each
    /// brings from the window, all within the deadline; never fails (see the module docs).
    pub async fn run(&self, query: &LiveQuery) -> LiveReport {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let asks = query.sources.iter().map(|&source| async move {
            let outcome = tokio::time::timeout_at(deadline, self.ask_and_index(source, query)).await;
            (source, outcome.unwrap_or(Err(LiveError::TimedOut(self.timeout))))
        });
        let mut report = LiveReport::default();
        for (source, outcome) in futures_util::future::join_all(asks).await {
            match outcome {
                Ok(counts) => {
                    tracing::info!(%source, added = counts.added, merged = counts.merged, unchanged = counts.unchanged, "live search answered");
                    self.board.record_success(LiveSearch::board_name(source), 1, Utc::now());
                    report.answered.push(source);
                    report.counts.add(counts);
                }
                Err(error) => {
                    tracing::warn!(%source, %error, "live search failed; the digest uses what the index has");
                    self.board.record_failure(LiveSearch::board_name(source), &error, Utc::now());
                    report.failed.push(source);
                }
            }
        }
        report
    }

    /// One source's answer, its papers of the window indexed and committed.
    async fn ask_and_index(&self, source: Source, query: &LiveQuery) -> Result<IngestCounts, LiveError> {
        let (from, to) = query.window;
        let answer = match (source, &self.pubmed, &self.arxiv) {
            (Source::Pubmed, Some(pubmed), _) => pubmed.search_recent(&query.words.join(" "), from, to, LIVE_MAX_RESULTS).await?,
            (Source::Arxiv, _, Some(arxiv)) => arxiv.search_recent(&query.words, from, to, LIVE_MAX_RESULTS).await?,
            _ => return Ok(IngestCounts::default()),
        };
        for warning in answer.warnings.iter().take(3) {
            tracing::warn!(%source, record = warning.record.as_deref().unwrap_or("-"), "{}", warning.message);
        }
        // A source may answer with papers outside the dates asked for; they could not be in the
        // digest, and live search adds nothing else to the index.
        let in_window: Vec<Paper> = answer.items.into_iter().filter(|paper| paper.entered.is_some_and(|day| from <= day && day <= to)).collect();
        if in_window.is_empty() {
            return Ok(IngestCounts::default());
        }
        let indexed = self.indexer.send(Ingest(in_window)).await.map_err(|_| LiveError::IndexerGone)?;
        Ok(indexed?)
    }

    /// Whether live search has a client for `source`.
    fn can_ask(&self, source: Source) -> bool {
        match source {
            Source::Pubmed => self.pubmed.is_some(),
            Source::Arxiv => self.arxiv.is_some(),
            Source::Biorxiv | Source::Medrxiv => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, AskedToday> {
        engine::sync::lock(&self.asked)
    }

    fn was_asked(&self, key: &str, source: Source, today: NaiveDate) -> bool {
        let asked = self.lock();
        asked.day == Some(today) && asked.queries.contains(&(key.to_owned(), source))
    }

    /// Marks `key` as asked of `sources` today and returns those that were not yet.
    fn reserve(&self, key: &str, sources: &[Source], today: NaiveDate) -> Vec<Source> {
        self.lock().reserve(key, sources, today)
    }
}

impl AskedToday {
    /// Marks `key` as asked of `sources` on `today` and returns those that were not yet (the
    /// day's memory starts afresh when the day changes).
    fn reserve(&mut self, key: &str, sources: &[Source], today: NaiveDate) -> Vec<Source> {
        if self.day != Some(today) {
            self.day = Some(today);
            self.queries.clear();
        }
        // Bounded like everything users' input can grow: past the day's cap, digests are made
        // from the index alone until tomorrow.
        if self.queries.len() >= MAX_QUESTIONS_A_DAY {
            return Vec::new();
        }
        sources.iter().copied().filter(|source| self.queries.insert((key.to_owned(), *source))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_question_is_asked_once_a_day_and_the_days_questions_are_bounded() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 27).expect("a date");
        let mut asked = AskedToday::default();
        assert_eq!(asked.reserve("malaria vaccine", &[Source::Pubmed, Source::Arxiv], today), vec![Source::Pubmed, Source::Arxiv]);
        assert_eq!(asked.reserve("malaria vaccine", &[Source::Pubmed], today), vec![], "once a day");
        for index in 1..MAX_QUESTIONS_A_DAY - 1 {
            asked.reserve(&format!("term {index}"), &[Source::Pubmed], today);
        }
        assert_eq!(asked.queries.len(), MAX_QUESTIONS_A_DAY);
        assert_eq!(asked.reserve("one more", &[Source::Pubmed], today), vec![], "past the cap nothing is asked");
        assert_eq!(asked.queries.len(), MAX_QUESTIONS_A_DAY, "and nothing is kept");
        let tomorrow = today.succ_opt().expect("a date");
        assert_eq!(asked.reserve("one more", &[Source::Pubmed], tomorrow), vec![Source::Pubmed], "a new day starts afresh");
        assert_eq!(asked.queries.len(), 1);
    }
}
