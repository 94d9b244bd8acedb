//! arXiv through its export API: the papers first submitted in a window of days, optionally in
//! some categories, paged with `start`/`max_results` until `totalResults`; and papers by id
//! (`id_list`, at most 100 ids a request, each checked to be an arXiv id before it is sent).
//!
//! The query is `submittedDate:[YYYYMMDD0000 TO YYYYMMDD2359]` (GMT), `AND`ed with
//! `(cat:… OR cat:…)` when categories are given, sorted by submission date ascending so that
//! the pages stay put while the window is read. arXiv's terms allow one request every 3 s over a
//! single connection: the default pace, with one request open at a time. A query may reach
//! 30,000 results; a window with more is split in halves by days. arXiv's error feed (HTTP 400,
//! or inside a 200) is `Permanent`; an empty page before `totalResults` is reached (a known
//! arXiv hiccup) is retried as `Transient`.

use std::time::Duration;

use chrono::NaiveDate;
use engine::paper::{Paper, Parsed, Source};
use engine::parse::arxiv::{parse_atom, ArxivError, ArxivPage};
use url::Url;

use super::error::{Failure, SourceError};
use super::http::{Call, HttpConfig, Transport};
use super::{check_window, records_in, split_days, window_warning, Harvest, ProgressFn};

/// The export API's query endpoint.
pub const DEFAULT_BASE_URL: &str = "https://export.arxiv.org/api/query";

/// The most ids one `id_list` request names.
const MAX_IDS_PER_REQUEST: usize = 100;

/// The knobs of the arXiv client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArxivConfig {
    /// The query endpoint itself (not a directory).
    pub base_url: Url,
    /// `max_results` per page (the API serves at most 2,000).
    pub page_size: u64,
    /// The most results one query can be paged through (30,000); a window with more is split.
    pub max_results_per_query: u64,
    pub http: HttpConfig,
}

impl Default for ArxivConfig {
    /// The documented endpoint, pages of 200, one request every 3 s with one open at a time.
    fn default() -> ArxivConfig {
        ArxivConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL is a valid URL"),
            page_size: 200,
            max_results_per_query: 30_000,
            http: HttpConfig { max_in_flight: Some(1), ..HttpConfig::paced(Duration::from_secs(3)) },
        }
    }
}

/// The arXiv client. Clones share the connection and the pacing.
#[derive(Debug, Clone)]
pub struct ArxivClient {
    config: ArxivConfig,
    transport: Transport,
}

/// What came of reading one part of a window.
enum PartOutcome {
    Fetched,
    /// More results than one query reaches, and the part can still be split.
    TooLarge {
        total_results: u64,
    },
}

impl ArxivClient {
    /// Checks the config and sets up the connection pool; no request is sent.
    pub fn new(config: ArxivConfig) -> Result<ArxivClient, SourceError> {
        let invalid = |why: &str| SourceError::invalid_request(Source::Arxiv, "client setup", why);
        if !matches!(config.base_url.scheme(), "http" | "https") {
            return Err(invalid("the base URL must be http(s)"));
        }
        if !(1..=2_000).contains(&config.page_size) || config.max_results_per_query == 0 {
            return Err(invalid("page_size must be 1 to 2,000 and max_results_per_query at least 1"));
        }
        let transport = Transport::new(Source::Arxiv, config.http.clone(), explain_error_feed)?;
        Ok(ArxivClient { config, transport })
    }

    pub fn config(&self) -> &ArxivConfig {
        &self.config
    }

    /// Every paper first submitted between `from` and `to` (inclusive, GMT days), in
    /// `categories` (e.g. `["q-bio.GN", "cs.LG"]`; empty: every category).
    pub async fn fetch_window(
        &self,
        from: NaiveDate,
        to: NaiveDate,
        categories: &[&str],
        progress: Option<ProgressFn<'_>>,
    ) -> Result<Parsed<Paper>, SourceError> {
        check_window(Source::Arxiv, "query", from, to)?;
        if let Some(bad) = categories.iter().find(|category| !is_category_name(category)) {
            return Err(SourceError::invalid_request(Source::Arxiv, "query", format!("not an arXiv category: {bad:?}")));
        }
        let mut harvest = Harvest::new(Source::Arxiv);
        let mut pending = vec![(from, to)];
        while let Some((part_from, part_to)) = pending.pop() {
            let outcome = self.fetch_part(part_from, part_to, categories, &mut harvest, progress).await?;
            if let PartOutcome::TooLarge { total_results } = outcome {
                if let Some((first_half, second_half)) = split_days(part_from, part_to) {
                    tracing::info!(total_results, from = %part_from, to = %part_to, "arxiv window too large; splitting");
                    pending.push(second_half);
                    pending.push(first_half);
                }
            }
        }
        Ok(harvest.papers)
    }

    /// The newest papers (by first submission) submitted between `from` and `to` (inclusive, GMT
    /// days) that match every one of `words` anywhere (`all:`): one page of at most
    /// `max_results`, newest first. Each word must be letters and digits only, so that it cannot
    /// change the query's meaning; it is sent lower-cased, never read as an operator.
    pub async fn search_recent(&self, words: &[String], from: NaiveDate, to: NaiveDate, max_results: u64) -> Result<Parsed<Paper>, SourceError> {
        check_window(Source::Arxiv, "recent query", from, to)?;
        if words.is_empty() {
            return Err(SourceError::invalid_request(Source::Arxiv, "recent query", "no word to search for"));
        }
        if let Some(bad) = words.iter().find(|word| !is_plain_word(word)) {
            return Err(SourceError::invalid_request(Source::Arxiv, "recent query", format!("not a plain word: {bad:?}")));
        }
        if !(1..=self.config.page_size).contains(&max_results) {
            return Err(SourceError::invalid_request(Source::Arxiv, "recent query", format!("max_results must be 1 to {}", self.config.page_size)));
        }
        let query = words_query(words, from, to);
        let page = self.fetch_page(&query, 0, max_results, "descending").await?;
        Ok(page.papers)
    }

    /// The papers with these arXiv ids (`1605.08386`, `hep-th/9901001`, either with a `vN` or
    /// without), asked by `id_list` in requests of at most 100 ids. An id arXiv does not know is
    /// simply absent from the result. Every id must be one ([`is_arxiv_id`]) before anything is
    /// sent, so that no id can change the request.
    pub async fn fetch_ids(&self, ids: &[String]) -> Result<Parsed<Paper>, SourceError> {
        if let Some(bad) = ids.iter().find(|id| !is_arxiv_id(id)) {
            return Err(SourceError::invalid_request(Source::Arxiv, "id_list", format!("not an arXiv id: {bad:?}")));
        }
        let mut harvest = Harvest::new(Source::Arxiv);
        for batch in ids.chunks(MAX_IDS_PER_REQUEST) {
            let parameters = vec![("id_list", batch.join(",")), ("start", "0".to_owned()), ("max_results", batch.len().to_string())];
            let label = format!("id_list {} ids from {}", batch.len(), batch[0]);
            let call = Call::get(label, self.config.base_url.clone(), parameters);
            let page = self
                .transport
                .fetch(&call, |body| {
                    let page = parse_atom(body).map_err(feed_failure)?;
                    if records_in(&page.papers) == 0 && page.total_results > 0 {
                        return Err(Failure::Incomplete(format!("no entries of {} results", page.total_results)));
                    }
                    Ok(page)
                })
                .await?;
            harvest.pages += 1;
            harvest.add_page(page.papers);
        }
        Ok(harvest.papers)
    }

    /// Pages through one part of the window, unless its first page says it is too large and
    /// can be split.
    async fn fetch_part(
        &self,
        from: NaiveDate,
        to: NaiveDate,
        categories: &[&str],
        harvest: &mut Harvest,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<PartOutcome, SourceError> {
        let query = search_query(from, to, categories);
        let limit = self.config.max_results_per_query;
        let mut start = 0u64;
        // Known from the first page on: the results this part can be paged through.
        let mut reachable = u64::MAX;
        let mut is_first_page = true;
        while start < reachable {
            let max_results = self.config.page_size.min(reachable - start);
            let page = self.fetch_page(&query, start, max_results, "ascending").await?;
            harvest.pages += 1;
            if is_first_page {
                if page.total_results > limit {
                    if split_days(from, to).is_some() {
                        return Ok(PartOutcome::TooLarge { total_results: page.total_results });
                    }
                    harvest.papers.warnings.push(window_warning(format!(
                        "{from} holds {} arXiv results, but one query reaches only {limit}; the rest were not fetched",
                        page.total_results
                    )));
                }
                harvest.expected += page.total_results.min(limit);
                is_first_page = false;
            }
            reachable = page.total_results.min(limit);
            start += harvest.add_page(page.papers);
            harvest.report(progress);
        }
        Ok(PartOutcome::Fetched)
    }

    /// One page of results from `start`, by submission date in `sort_order` (`ascending` or
    /// `descending`). An empty page before the end is `Incomplete` (retried).
    async fn fetch_page(&self, query: &str, start: u64, max_results: u64, sort_order: &str) -> Result<ArxivPage, SourceError> {
        let parameters = vec![
            ("search_query", query.to_owned()),
            ("start", start.to_string()),
            ("max_results", max_results.to_string()),
            ("sortBy", "submittedDate".to_owned()),
            ("sortOrder", sort_order.to_owned()),
        ];
        let label = format!("query {query} from {start}");
        let call = Call::get(label, self.config.base_url.clone(), parameters);
        self.transport
            .fetch(&call, |body| {
                let page = parse_atom(body).map_err(feed_failure)?;
                let entries = records_in(&page.papers);
                if entries == 0 && start < page.total_results {
                    return Err(Failure::Incomplete(format!("no entries from {start} of {} results", page.total_results)));
                }
                Ok(page)
            })
            .await
    }
}

/// arXiv's error feed is a permanent failure; a body that is no feed is unreadable.
fn feed_failure(error: ArxivError) -> Failure {
    match error {
        ArxivError::Api(message) => Failure::Api { message, retry_later: false },
        ArxivError::Malformed(problem) => Failure::Parse(problem),
    }
}

/// Whether `id` has the form of an arXiv identifier, optionally with its version: new-style
/// `YYMM.NNNNN` (four digits after the dot until 1412, five from 1501 on; the month is not
/// checked, as arXiv does not: `0000.0000` is simply not found) or old-style `archive/YYMMNNN`, the
/// archive possibly with its subject class (`hep-th/9901001`, `math.GT/0309136`). Nothing else
/// (no comma, space, colon or quote) can reach `id_list`.
pub fn is_arxiv_id(id: &str) -> bool {
    let unversioned = match id.rsplit_once('v') {
        Some((bare, version)) if is_digits(version) => bare,
        _ => id,
    };
    if let Some((yymm, number)) = unversioned.split_once('.').filter(|(yymm, _)| is_digits(yymm)) {
        let digits_after_the_dot = if yymm >= "1501" { 5 } else { 4 };
        return yymm.len() == 4 && number.len() == digits_after_the_dot && is_digits(number);
    }
    let Some((archive, number)) = unversioned.split_once('/') else {
        return false;
    };
    let is_name = |part: &str| part.starts_with(|c: char| c.is_ascii_alphabetic()) && part.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
    let archive_is_named = match archive.split_once('.') {
        Some((name, subject_class)) => is_name(name) && is_name(subject_class),
        None => is_name(archive),
    };
    archive_is_named && number.len() == 7 && is_digits(number)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit())
}

/// The `search_query` for a window of days and, optionally, categories.
fn search_query(from: NaiveDate, to: NaiveDate, categories: &[&str]) -> String {
    let dates = format!("submittedDate:[{}0000 TO {}2359]", from.format("%Y%m%d"), to.format("%Y%m%d"));
    if categories.is_empty() {
        return dates;
    }
    let any_category = categories.iter().map(|category| format!("cat:{category}")).collect::<Vec<_>>().join(" OR ");
    format!("{dates} AND ({any_category})")
}

/// The `search_query` for papers matching every one of `words`, submitted in a window of days:
/// `all:w1 AND all:w2 AND submittedDate:[…]`.
fn words_query(words: &[String], from: NaiveDate, to: NaiveDate) -> String {
    let mut clauses: Vec<String> = words.iter().map(|word| format!("all:{}", word.to_lowercase())).collect();
    clauses.push(format!("submittedDate:[{}0000 TO {}2359]", from.format("%Y%m%d"), to.format("%Y%m%d")));
    clauses.join(" AND ")
}

/// A word of letters and digits only: no space, colon, bracket, quote or sign the API's query
/// syntax would read.
fn is_plain_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(char::is_alphanumeric)
}

/// An arXiv category name (`cs.AI`, `q-bio.GN`, `hep-th`), which cannot change the query's
/// meaning (no spaces, colons, brackets or quotes).
fn is_category_name(category: &str) -> bool {
    !category.is_empty() && category.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-')
}

/// The message of arXiv's error feed, for an error status.
fn explain_error_feed(body: &str) -> Option<String> {
    match parse_atom(body) {
        Err(ArxivError::Api(message)) => Some(message),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    #[test]
    fn queries_cover_whole_days_and_any_listed_category() {
        assert_eq!(search_query(day("2024-01-01"), day("2024-01-07"), &[]), "submittedDate:[202401010000 TO 202401072359]");
        assert_eq!(
            search_query(day("2024-01-01"), day("2024-01-01"), &["q-bio.GN", "cs.LG"]),
            "submittedDate:[202401010000 TO 202401012359] AND (cat:q-bio.GN OR cat:cs.LG)"
        );
    }

    #[test]
    fn recent_queries_want_every_word_in_the_window() {
        let words = ["codon".to_owned(), "Model".to_owned()];
        assert_eq!(
            words_query(&words, day("2026-05-13"), day("2026-08-11")),
            "all:codon AND all:model AND submittedDate:[202605130000 TO 202608112359]"
        );
    }

    #[test]
    fn only_plain_words_are_searched_for() {
        for good in ["codon", "19", "müller", "AND"] {
            assert!(is_plain_word(good), "{good}");
        }
        for bad in ["", "covid-19", "all:x", "\"gene\"", "a b", "(x)", "x*"] {
            assert!(!is_plain_word(bad), "{bad}");
        }
    }

    #[test]
    fn category_names_cannot_inject_query_syntax() {
        for good in ["cs.AI", "q-bio.GN", "hep-th", "math-ph"] {
            assert!(is_category_name(good), "{good}");
        }
        for bad in ["", "cs.AI OR all:x", "cat:cs.AI", "cs.AI)", "\"cs\""] {
            assert!(!is_category_name(bad), "{bad}");
        }
    }

    #[test]
    fn only_arxiv_ids_reach_id_list() {
        for good in
            ["1605.08386", "1605.08386v2", "0704.0001", "0000.0000", "2606.27607v11", "hep-th/9901001", "math.GT/0309136v1", "cond-mat/0412498"]
        {
            assert!(is_arxiv_id(good), "{good}");
        }
        let bad = [
            "",
            "1605.0838",
            "0704.00011",
            "1605.083861",
            "16050.8386",
            "1605.08386v",
            "1605.08386,1",
            "1605.08386 OR all:x",
            "arXiv:1605.08386",
            "hep-th/990100",
            "hep th/9901001",
            "/9901001",
            "hep-th/9901001&start=5",
            "10.1101/2020.09.09.20191205",
            "abc",
        ];
        for bad in bad {
            assert!(!is_arxiv_id(bad), "{bad}");
        }
    }

    #[test]
    fn the_default_respects_the_terms_of_use() {
        let config = ArxivConfig::default();
        assert_eq!((config.http.min_interval, config.http.max_in_flight), (Duration::from_secs(3), Some(1)));
        assert!(config.page_size <= 2_000);
    }
}
