//! bioRxiv and medRxiv through `api.biorxiv.org`: the `details` of a window of posting dates,
//! paged by the cursor and total the API states in `messages[0]`.
//!
//! `details/{server}/{from}/{to}/{cursor}/json` is asked from cursor 0 on, and the next cursor
//! is what [`next_cursor`] derives from the page's own `cursor`, `count` and `total` (the page
//! size has changed over the years: never assumed). A cursor that does not move forward ends
//! the window with a warning instead of looping. Both servers live on one host, so one client,
//! with one pace (1 s between requests by default), serves both.
//!
//! One preprint is looked up by DOI with `details/{server}/{doi}/na/json`, which lists every
//! version of it; the latest version gives the paper ([`BiorxivClient::fetch_doi`]).
//!
//! The papers are returned as each page's parser made them: one per DOI *per page*. A preprint
//! whose versions fall on two pages comes back twice; the harvest merges them with
//! `engine::dedup` like any other duplicate.

use std::time::Duration;

use chrono::NaiveDate;
use engine::paper::{normalize_doi, Paper, Parsed, Source};
use engine::parse::biorxiv::{next_cursor, parse_details, DetailsError, DetailsPage};
use url::Url;

use super::error::{Failure, SourceError};
use super::http::{Call, HttpConfig, Transport};
use super::{check_window, window_warning, Harvest, ProgressFn};

/// The API's root; `details/…` is resolved against it.
pub const DEFAULT_BASE_URL: &str = "https://api.biorxiv.org/";

/// The knobs of the bioRxiv/medRxiv client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BiorxivConfig {
    pub base_url: Url,
    pub http: HttpConfig,
}

impl Default for BiorxivConfig {
    /// The documented endpoint and one request a second.
    fn default() -> BiorxivConfig {
        BiorxivConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL is a valid URL"),
            http: HttpConfig::paced(Duration::from_secs(1)),
        }
    }
}

/// The bioRxiv/medRxiv client. Clones share the connection pool and the pacing.
#[derive(Debug, Clone)]
pub struct BiorxivClient {
    config: BiorxivConfig,
    transport: Transport,
}

impl BiorxivClient {
    /// Checks the config and sets up the connection pool; no request is sent.
    pub fn new(config: BiorxivConfig) -> Result<BiorxivClient, SourceError> {
        let base_url = &config.base_url;
        if base_url.cannot_be_a_base() || !matches!(base_url.scheme(), "http" | "https") {
            return Err(SourceError::invalid_request(Source::Biorxiv, "client setup", "the base URL must be an http(s) directory"));
        }
        let transport = Transport::new(Source::Biorxiv, config.http.clone(), explain_refusal)?;
        Ok(BiorxivClient { config, transport })
    }

    pub fn config(&self) -> &BiorxivConfig {
        &self.config
    }

    /// Every version record posted on `server` (`Source::Biorxiv` or `Source::Medrxiv`) between
    /// `from` and `to` (inclusive).
    pub async fn fetch_window(
        &self,
        server: Source,
        from: NaiveDate,
        to: NaiveDate,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<Parsed<Paper>, SourceError> {
        let window = format!("details {server} {from}/{to}");
        if !matches!(server, Source::Biorxiv | Source::Medrxiv) {
            return Err(SourceError::invalid_request(server, window, format!("{server} is not served by api.biorxiv.org")));
        }
        check_window(server, &window, from, to)?;
        let mut harvest = Harvest::new(server);
        let mut cursor = 0u64;
        loop {
            let page = self.fetch_page(server, from, to, cursor).await?;
            let following = next_cursor(&page);
            harvest.pages += 1;
            harvest.expected = page.total;
            harvest.add_page(page.papers);
            harvest.report(progress);
            match following {
                None => break,
                Some(next) if next > cursor => cursor = next,
                Some(next) => {
                    let message = format!(
                        "{window}: the API answered cursor {cursor} with next cursor {next}; stopped to avoid a loop, \
                         {} of {} records read",
                        harvest.received, harvest.expected
                    );
                    harvest.papers.warnings.push(window_warning(message));
                    break;
                }
            }
        }
        Ok(harvest.papers)
    }

    /// The preprint with this DOI on `server` (`Source::Biorxiv` or `Source::Medrxiv`), its
    /// versions collapsed into one paper with the latest version's text; `None` when the server
    /// has no post under the DOI ("no posts found"). The DOI must be a plain `10.NNNN/suffix` of
    /// letters, digits, dots and hyphens, which cannot change the request's path.
    pub async fn fetch_doi(&self, server: Source, doi: &str) -> Result<Option<Paper>, SourceError> {
        let label = format!("details {server} doi");
        if !matches!(server, Source::Biorxiv | Source::Medrxiv) {
            return Err(SourceError::invalid_request(server, label, format!("{server} is not served by api.biorxiv.org")));
        }
        let Some(doi) = normalize_doi(doi).filter(|doi| is_path_safe_doi(doi)) else {
            return Err(SourceError::invalid_request(server, label, format!("not a bioRxiv/medRxiv DOI: {doi:?}")));
        };
        let label = format!("details {server} {doi}");
        let url = self
            .config
            .base_url
            .join(&format!("details/{server}/{doi}/na/json"))
            .map_err(|error| SourceError::invalid_request(server, label.clone(), error.to_string()))?;
        let call = Call::get(label, url, Vec::new());
        let page = self.transport.fetch(&call, |body| parse_details(body, server).map_err(details_failure)).await?;
        Ok(page.papers.items.into_iter().find(|paper| paper.ids.doi.as_deref() == Some(doi.as_str())))
    }

    async fn fetch_page(&self, server: Source, from: NaiveDate, to: NaiveDate, cursor: u64) -> Result<DetailsPage, SourceError> {
        let path = format!("details/{server}/{from}/{to}/{cursor}/json");
        let label = format!("details {server} {from}/{to} cursor {cursor}");
        let url = self.config.base_url.join(&path).map_err(|error| SourceError::invalid_request(server, label.clone(), error.to_string()))?;
        let call = Call::get(label, url, Vec::new());
        self.transport.fetch(&call, |body| parse_details(body, server).map_err(details_failure)).await
    }
}

/// `10.NNNN/suffix` with a suffix of ASCII letters, digits, dots and hyphens (every bioRxiv and
/// medRxiv DOI): no slash, `..`, `?`, `#` or `%` that would change the path it is put in.
fn is_path_safe_doi(doi: &str) -> bool {
    let Some((prefix, suffix)) = doi.split_once('/') else {
        return false;
    };
    let registrant = prefix.strip_prefix("10.").unwrap_or_default();
    let registrant_is_number = !registrant.is_empty() && registrant.bytes().all(|byte| byte.is_ascii_digit());
    let suffix_is_plain = suffix.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-');
    registrant_is_number && suffix_is_plain && suffix.bytes().any(|byte| byte.is_ascii_alphanumeric()) && !suffix.contains("..")
}

fn details_failure(error: DetailsError) -> Failure {
    match error {
        DetailsError::Malformed(problem) => Failure::Parse(problem),
        DetailsError::Refused { status } => Failure::Api { message: status, retry_later: false },
        not_served @ DetailsError::NotAPreprintServer(_) => Failure::InvalidRequest(not_served.to_string()),
    }
}

/// The API's own status message in an error answer.
fn explain_refusal(body: &str) -> Option<String> {
    match parse_details(body, Source::Biorxiv) {
        Err(DetailsError::Refused { status }) => Some(status),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_permanent_and_garbage_is_a_parse_failure() {
        let refused = r#"{"messages":[{"status":"Both dates must be in yyyy-mm-dd format"}],"collection":[]}"#;
        let failure = parse_details(refused, Source::Medrxiv).map(|_| ()).map_err(details_failure);
        assert_eq!(failure, Err(Failure::Api { message: "Both dates must be in yyyy-mm-dd format".into(), retry_later: false }));
        assert_eq!(explain_refusal(refused).as_deref(), Some("Both dates must be in yyyy-mm-dd format"));
        let garbage = parse_details("<html>502</html>", Source::Biorxiv).map(|_| ()).map_err(details_failure);
        assert!(matches!(garbage, Err(Failure::Parse(_))));
    }

    #[test]
    fn only_plain_dois_go_into_the_path() {
        for good in ["10.1101/2020.09.09.20191205", "10.1101/123456", "10.64898/2026.07.31.741971", "10.1101/gr.275.2"] {
            assert!(is_path_safe_doi(good), "{good}");
        }
        for bad in ["10.1101/", "10.1101/..", "10.1101/a/../../x", "10.1101/x?y", "10.1101/x#y", "10.1101/x%2F", "10.x/1", "11.1101/1", "10.1101/a b"]
        {
            assert!(!is_path_safe_doi(bad), "{bad}");
        }
    }

    #[test]
    fn only_the_two_servers_are_asked() {
        let client = BiorxivClient::new(BiorxivConfig::default()).expect("client");
        let day = NaiveDate::from_ymd_opt(2026, 8, 1).expect("date");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        for wrong in [Source::Pubmed, Source::Arxiv] {
            let error = runtime.block_on(client.fetch_window(wrong, day, day, None)).expect_err("not a bioRxiv server");
            assert_eq!((error.kind(), error.attempts), (super::super::ErrorKind::Permanent, 0));
        }
    }
}
