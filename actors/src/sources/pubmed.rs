//! PubMed through NCBI's E-utilities: ESearch a window of Entrez dates with the history server,
//! then EFetch the records in batches from it.
//!
//! Every call carries `tool`, `email` and, when configured, `api_key`. A window whose count
//! passes what ESearch lets one search reach (9,999 records) is split in halves by days until
//! each part fits; a single day that still does not fit is fetched up to the limit, with a
//! warning. NCBI errors inside an HTTP-200 body (`<ERROR>`, JSON `"ERROR"`) are `Permanent`,
//! or `Transient` (and retried) when the message says to try again later.

use std::fmt;
use std::time::Duration;

use chrono::NaiveDate;
use engine::paper::{Paper, Parsed, Source};
use engine::parse::pubmed::{parse_efetch, parse_esearch_json, parse_esearch_xml, EutilsError, SearchResult};
use url::Url;

use super::error::{says_retry_later, Failure, SourceError};
use super::http::{excerpt, Call, HttpConfig, Transport};
use super::{check_window, split_days, window_warning, Harvest, ProgressFn};

/// NCBI's E-utilities, as documented.
pub const DEFAULT_BASE_URL: &str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/";

/// NCBI asks for an HTTP POST above this many ids in one request.
const MAX_IDS_IN_A_GET: usize = 200;

/// The knobs of the PubMed client.
#[derive(Clone, PartialEq, Eq)]
pub struct PubmedConfig {
    /// The E-utilities directory (`esearch.fcgi` and `efetch.fcgi` are resolved against it).
    pub base_url: Url,
    /// Sent as `tool=` on every call: the name NCBI may contact us about.
    pub tool: String,
    /// Sent as `email=` on every call.
    pub email: String,
    /// Sent as `api_key=` when present; raises NCBI's limit from 3 to 10 requests a second.
    pub api_key: Option<String>,
    /// Records per EFetch request (`retmax`).
    pub batch_size: u64,
    /// The most records one ESearch lets us reach (`retstart` stops at 9,998); a window with
    /// more is split.
    pub max_records_per_search: u64,
    pub http: HttpConfig,
}

impl PubmedConfig {
    /// The documented endpoint, batches of 200, and the pace NCBI allows: 350 ms between
    /// requests without an API key (3 a second), 110 ms with one (10 a second).
    pub fn new(tool: impl Into<String>, email: impl Into<String>, api_key: Option<String>) -> PubmedConfig {
        let interval = if api_key.is_some() { Duration::from_millis(110) } else { Duration::from_millis(350) };
        PubmedConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL is a valid URL"),
            tool: tool.into(),
            email: email.into(),
            api_key,
            batch_size: 200,
            max_records_per_search: 9_999,
            http: HttpConfig::paced(interval),
        }
    }
}

impl fmt::Debug for PubmedConfig {
    /// Everything but the API key, which is a secret.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("PubmedConfig")
            .field("base_url", &self.base_url.as_str())
            .field("tool", &self.tool)
            .field("email", &self.email)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("batch_size", &self.batch_size)
            .field("max_records_per_search", &self.max_records_per_search)
            .field("http", &self.http)
            .finish()
    }
}

/// The PubMed client. Clones share the connection pool and the pacing.
#[derive(Debug, Clone)]
pub struct PubmedClient {
    config: PubmedConfig,
    esearch_url: Url,
    efetch_url: Url,
    transport: Transport,
}

impl PubmedClient {
    /// Checks the config and sets up the connection pool; no request is sent.
    pub fn new(config: PubmedConfig) -> Result<PubmedClient, SourceError> {
        let invalid = |why: String| SourceError::invalid_request(Source::Pubmed, "client setup", why);
        if config.tool.trim().is_empty() || !config.email.contains('@') {
            return Err(invalid("NCBI asks every caller for a tool name and a contact email".into()));
        }
        if !(1..=10_000).contains(&config.batch_size) || config.max_records_per_search == 0 {
            return Err(invalid("batch_size must be 1 to 10,000 and max_records_per_search at least 1".into()));
        }
        let base_url = directory_url(&config.base_url).map_err(invalid)?;
        let endpoint = |name: &str| base_url.join(name).map_err(|error| invalid(format!("{name}: {error}")));
        let (esearch_url, efetch_url) = (endpoint("esearch.fcgi")?, endpoint("efetch.fcgi")?);
        let transport = Transport::new(Source::Pubmed, config.http.clone(), explain_ncbi_error)?;
        Ok(PubmedClient { config, esearch_url, efetch_url, transport })
    }

    pub fn config(&self) -> &PubmedConfig {
        &self.config
    }

    /// ESearches the records that entered PubMed between `from` and `to` (inclusive, Entrez
    /// date) and matching `term_or_all` (`"all"` or empty: every record), keeping the result on
    /// the history server (`usehistory=y`, no ids in the answer).
    pub async fn search_window(&self, term_or_all: &str, from: NaiveDate, to: NaiveDate) -> Result<SearchResult, SourceError> {
        let label = format!("esearch edat {}-{}", ncbi_date(from), ncbi_date(to));
        let listing = [("usehistory", "y".to_owned()), ("retmax", "0".to_owned())];
        self.esearch(label, search_term(term_or_all), (from, to), listing).await
    }

    /// ESearches the PMIDs of at most `max_records` records matching `term` (PubMed's own query
    /// text, never `all[sb]`) that entered PubMed between `from` and `to` (inclusive, Entrez
    /// date), the most relevant first (`sort=relevance`), with the ids in the answer.
    pub async fn search_ids(&self, term: &str, from: NaiveDate, to: NaiveDate, max_records: u64) -> Result<SearchResult, SourceError> {
        let label = format!("esearch ids edat {}-{}", ncbi_date(from), ncbi_date(to));
        if term.trim().is_empty() {
            return Err(SourceError::invalid_request(Source::Pubmed, &label, "an empty term would search every record"));
        }
        let listing = [("retmax", max_records.to_string()), ("sort", "relevance".to_owned())];
        self.esearch(label, term.trim().to_owned(), (from, to), listing).await
    }

    /// The records [`PubmedClient::search_ids`] finds, EFetched by PMID: at most `max_records`
    /// papers on `term` from the window, with ESearch's warnings (beside "No items found.").
    pub async fn search_recent(&self, term: &str, from: NaiveDate, to: NaiveDate, max_records: u64) -> Result<Parsed<Paper>, SourceError> {
        let search = self.search_ids(term, from, to, max_records).await?;
        let mut papers =
            if search.ids.is_empty() { Parsed { items: Vec::new(), warnings: Vec::new() } } else { self.fetch_ids(&search.ids, None).await? };
        papers.warnings.extend(
            search
                .warnings
                .iter()
                .filter(|warning| !warning.eq_ignore_ascii_case("No items found."))
                .map(|warning| window_warning(format!("esearch {from}..{to}: {warning}"))),
        );
        Ok(papers)
    }

    /// Every record of the window: ESearch, split while a part holds too many records, then
    /// EFetch each part in batches through the history server.
    pub async fn fetch_window(
        &self,
        term_or_all: &str,
        from: NaiveDate,
        to: NaiveDate,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<Parsed<Paper>, SourceError> {
        check_window(Source::Pubmed, "fetch window", from, to)?;
        let mut harvest = Harvest::new(Source::Pubmed);
        let mut pending = vec![(from, to)];
        while let Some((part_from, part_to)) = pending.pop() {
            let search = self.search_window(term_or_all, part_from, part_to).await?;
            harvest.pages += 1;
            let limit = self.config.max_records_per_search;
            if search.count > limit {
                if let Some((first_half, second_half)) = split_days(part_from, part_to) {
                    tracing::info!(count = search.count, from = %part_from, to = %part_to, "pubmed window too large; splitting");
                    pending.push(second_half);
                    pending.push(first_half);
                    continue;
                }
                harvest.papers.warnings.push(window_warning(format!(
                    "{part_from} holds {} records, but one PubMed search reaches only {limit}; the rest were not fetched",
                    search.count
                )));
            }
            let reachable = search.count.min(limit);
            harvest.expected += reachable;
            harvest.papers.warnings.extend(
                search
                    .warnings
                    .iter()
                    .filter(|warning| !warning.eq_ignore_ascii_case("No items found."))
                    .map(|warning| window_warning(format!("esearch {part_from}..{part_to}: {warning}"))),
            );
            harvest.report(progress);
            self.fetch_search_results(&search, reachable, (part_from, part_to), &mut harvest, progress).await?;
        }
        Ok(harvest.papers)
    }

    /// EFetches records by PMID, in batches of `batch_size`; a batch of more than 200 ids goes as
    /// a POST, as NCBI asks.
    pub async fn fetch_ids(&self, pmids: &[String], progress: Option<ProgressFn<'_>>) -> Result<Parsed<Paper>, SourceError> {
        if let Some(bad) = pmids.iter().find(|pmid| pmid.is_empty() || !pmid.bytes().all(|byte| byte.is_ascii_digit())) {
            return Err(SourceError::invalid_request(Source::Pubmed, "efetch by id", format!("not a PMID: {bad:?}")));
        }
        let mut harvest = Harvest::new(Source::Pubmed);
        harvest.expected = pmids.len() as u64;
        let batch_size = usize::try_from(self.config.batch_size).unwrap_or(usize::MAX);
        for batch in pmids.chunks(batch_size) {
            let mut parameters = self.identity();
            parameters.extend([("id", batch.join(",")), ("retmode", "xml".into())]);
            let label = format!("efetch {} ids from {}", batch.len(), batch[0]);
            let call = if batch.len() > MAX_IDS_IN_A_GET {
                Call { label, url: self.efetch_url.clone(), query: Vec::new(), form: Some(parameters) }
            } else {
                Call::get(label, self.efetch_url.clone(), parameters)
            };
            let papers = self.transport.fetch(&call, interpret_efetch).await?;
            add_efetch_page(&mut harvest, papers, batch.len() as u64, &call.label);
            harvest.report(progress);
        }
        Ok(harvest.papers)
    }

    /// EFetches the first `reachable` records of a history-server search, batch by batch.
    async fn fetch_search_results(
        &self,
        search: &SearchResult,
        reachable: u64,
        (from, to): (NaiveDate, NaiveDate),
        harvest: &mut Harvest,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<(), SourceError> {
        if reachable == 0 {
            return Ok(());
        }
        let window = format!("edat {}-{}", ncbi_date(from), ncbi_date(to));
        let (Some(web_env), Some(query_key)) = (search.web_env.as_deref(), search.query_key.as_deref()) else {
            return Err(SourceError {
                origin: Source::Pubmed.into(),
                request: format!("esearch {window}"),
                attempts: 1,
                failure: Failure::Parse("the search found records but named no history-server WebEnv/QueryKey".into()),
            });
        };
        let mut retstart = 0;
        while retstart < reachable {
            let retmax = self.config.batch_size.min(reachable - retstart);
            let mut query = self.identity();
            query.extend([
                ("query_key", query_key.to_owned()),
                ("WebEnv", web_env.to_owned()),
                ("retstart", retstart.to_string()),
                ("retmax", retmax.to_string()),
                ("retmode", "xml".into()),
            ]);
            let label = format!("efetch {window} records {}-{}", retstart + 1, retstart + retmax);
            let call = Call::get(label, self.efetch_url.clone(), query);
            let papers = self.transport.fetch(&call, interpret_efetch).await?;
            add_efetch_page(harvest, papers, retmax, &call.label);
            harvest.report(progress);
            retstart += retmax;
        }
        Ok(())
    }

    /// One ESearch of `term` over a window of Entrez dates, listed as `listing` says (on the
    /// history server, or the ids themselves).
    async fn esearch(
        &self,
        label: String,
        term: String,
        (from, to): (NaiveDate, NaiveDate),
        listing: [(&'static str, String); 2],
    ) -> Result<SearchResult, SourceError> {
        check_window(Source::Pubmed, &label, from, to)?;
        let mut query = self.identity();
        query.extend([("term", term), ("datetype", "edat".into()), ("mindate", ncbi_date(from)), ("maxdate", ncbi_date(to))]);
        query.extend(listing);
        let call = Call::get(label, self.esearch_url.clone(), query);
        self.transport.fetch(&call, |body| parse_esearch_xml(body).map_err(eutils_failure)).await
    }

    /// `db`, `tool`, `email` and `api_key`, sent with every call.
    fn identity(&self) -> Vec<(&'static str, String)> {
        let mut parameters = vec![("db", "pubmed".to_owned()), ("tool", self.config.tool.clone()), ("email", self.config.email.clone())];
        if let Some(api_key) = &self.config.api_key {
            parameters.push(("api_key", api_key.clone()));
        }
        parameters
    }
}

/// Adds one EFetch answer, with a warning when it holds fewer records than were asked for.
fn add_efetch_page(harvest: &mut Harvest, page: Parsed<Paper>, asked: u64, label: &str) {
    harvest.pages += 1;
    let received = harvest.add_page(page);
    if received < asked {
        harvest.papers.warnings.push(window_warning(format!("{label}: asked for {asked} records, received {received}")));
    }
}

/// Reads an EFetch body: NCBI's `<ERROR>` answer is a reported error, a body that is not an
/// article set at all is unreadable; otherwise the parser reads what it can, with warnings.
fn interpret_efetch(body: &str) -> Result<Parsed<Paper>, Failure> {
    let is_article_set = body.contains("<PubmedArticleSet");
    if !is_article_set {
        if let Some(message) = ncbi_error_element(body) {
            return Err(Failure::Api { retry_later: says_retry_later(&message), message });
        }
        let start = excerpt(body).unwrap_or_else(|| "an empty body".into());
        return Err(Failure::Parse(format!("expected a PubmedArticleSet, got `{start}`")));
    }
    Ok(parse_efetch(body))
}

/// An E-utilities parse error as a failure: a reported error is permanent unless it says to try
/// later; an unreadable body is a parse failure.
fn eutils_failure(error: EutilsError) -> Failure {
    match error {
        EutilsError::Api(message) => Failure::Api { retry_later: says_retry_later(&message), message },
        EutilsError::Malformed(problem) => Failure::Parse(problem),
    }
}

/// NCBI's explanation in an error answer: the JSON `{"error": …}` of a 429 or a bad API key, or
/// an XML `<ERROR>`.
fn explain_ncbi_error(body: &str) -> Option<String> {
    if let Err(EutilsError::Api(message)) = parse_esearch_json(body) {
        return Some(message);
    }
    ncbi_error_element(body)
}

/// The text of the first `<ERROR>…</ERROR>` in a body.
fn ncbi_error_element(body: &str) -> Option<String> {
    let start = body.find("<ERROR>")? + "<ERROR>".len();
    let length = body[start..].find("</ERROR>")?;
    let message = body[start..start + length].split_whitespace().collect::<Vec<_>>().join(" ");
    (!message.is_empty()).then_some(message)
}

/// The base URL as a directory, so that endpoint names resolve inside it.
fn directory_url(base_url: &Url) -> Result<Url, String> {
    if base_url.cannot_be_a_base() || !matches!(base_url.scheme(), "http" | "https") {
        return Err(format!("not an http(s) base URL: {base_url}"));
    }
    let mut directory = base_url.clone();
    if !directory.path().ends_with('/') {
        let path = format!("{}/", directory.path());
        directory.set_path(&path);
    }
    Ok(directory)
}

/// E-utilities dates: `YYYY/MM/DD`.
fn ncbi_date(date: NaiveDate) -> String {
    date.format("%Y/%m/%d").to_string()
}

/// The ESearch term: `all[sb]` (every PubMed record) for `"all"` or nothing.
fn search_term(term_or_all: &str) -> String {
    let term = term_or_all.trim();
    if term.is_empty() || term.eq_ignore_ascii_case("all") {
        "all[sb]".into()
    } else {
        term.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efetch_bodies_are_classified() {
        let error = "<?xml version=\"1.0\"?><eFetchResult>\n\t<ERROR>Unable to obtain query #1</ERROR>\n</eFetchResult>";
        assert_eq!(interpret_efetch(error), Err(Failure::Api { message: "Unable to obtain query #1".into(), retry_later: false }));
        let later = "<eFetchResult><ERROR>Backend temporarily unavailable, try again later</ERROR></eFetchResult>";
        assert!(matches!(interpret_efetch(later), Err(Failure::Api { retry_later: true, .. })));
        assert!(matches!(interpret_efetch("<html><body>Bad Gateway</body></html>"), Err(Failure::Parse(_))));
        assert!(matches!(interpret_efetch(""), Err(Failure::Parse(_))));
        let empty_set = interpret_efetch("<?xml version=\"1.0\"?><PubmedArticleSet></PubmedArticleSet>").expect("an empty set");
        assert!(empty_set.items.is_empty() && empty_set.warnings.is_empty());
    }

    #[test]
    fn ncbi_error_bodies_are_explained() {
        assert_eq!(explain_ncbi_error(r#"{"error":"API rate limit exceeded","count":"11"}"#).as_deref(), Some("API rate limit exceeded"));
        assert_eq!(explain_ncbi_error("<eSummaryResult><ERROR>Invalid uid</ERROR></eSummaryResult>").as_deref(), Some("Invalid uid"));
        assert_eq!(explain_ncbi_error("<html>Service Unavailable</html>"), None);
        assert_eq!(explain_ncbi_error("<ERROR></ERROR>"), None);
    }

    #[test]
    fn terms_dates_and_base_urls() {
        assert_eq!(search_term(" all "), "all[sb]");
        assert_eq!(search_term(""), "all[sb]");
        assert_eq!(search_term("cancer[tiab]"), "cancer[tiab]");
        assert_eq!(ncbi_date(NaiveDate::from_ymd_opt(2024, 1, 7).expect("date")), "2024/01/07");
        let without_slash = Url::parse("http://127.0.0.1:9/entrez/eutils").expect("url");
        assert_eq!(directory_url(&without_slash).expect("dir").join("esearch.fcgi").expect("join").path(), "/entrez/eutils/esearch.fcgi");
        assert!(directory_url(&Url::parse("mailto:a@b.c").expect("url")).is_err());
    }

    #[test]
    fn the_api_key_stays_out_of_debug_output() {
        let config = PubmedConfig::new("papertide", "ops@example.org", Some("s3cr3t-key".into()));
        let shown = format!("{config:?}");
        assert!(!shown.contains("s3cr3t-key") && shown.contains("<redacted>"), "{shown}");
        assert_eq!(config.http.min_interval, Duration::from_millis(110));
        assert_eq!(PubmedConfig::new("papertide", "ops@example.org", None).http.min_interval, Duration::from_millis(350));
    }

    #[test]
    fn a_config_without_contact_is_refused() {
        let error = PubmedClient::new(PubmedConfig::new("papertide", "", None)).expect_err("no email");
        assert_eq!(error.kind(), super::super::ErrorKind::Permanent);
    }
}
