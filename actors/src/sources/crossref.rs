//! Crossref's REST API, for one work by DOI: `GET {base}/works/{doi}`, the DOI percent-encoded
//! as one path segment (its `/` too), with `mailto={contact}` when a contact is configured, so
//! that Crossref routes the request to its "polite" pool (the transport's `User-Agent` names
//! Papertide as well).
//!
//! Crossref is not a paper source: nothing is harvested from it. It is asked for a seed DOI the
//! index, PubMed and bioRxiv/medRxiv do not answer for, one DOI a request, 200 ms apart with
//! [`CrossrefConfig::new`] (Crossref states its limits in `X-Rate-Limit-*` headers and answers
//! 429 past them, which the transport honours like any source's). A 404 (Crossref's "Resource not
//! found.", also its answer for a DOI another agency registered, such as DataCite's) is `None`;
//! what a body means is `engine::parse::crossref`'s to say.

use std::fmt;
use std::time::Duration;

use engine::paper::{normalize_doi, Paper};
use engine::parse::crossref::{explain_error, parse_work, CrossrefError};
use url::Url;

use super::error::{ErrorKind, Failure, Origin, SourceError};
use super::http::{Call, HttpConfig, Transport};

/// The REST API's root; `works/{doi}` is resolved against it.
pub const DEFAULT_BASE_URL: &str = "https://api.crossref.org/";

/// The knobs of the Crossref client.
#[derive(Clone, PartialEq, Eq)]
pub struct CrossrefConfig {
    /// The API's root (a directory): `works/…` goes below it.
    pub base_url: Url,
    /// Sent as `mailto=` on every request when present: the address Crossref may write to about
    /// our requests, which puts them in its polite pool.
    pub mailto: Option<String>,
    pub http: HttpConfig,
}

impl CrossrefConfig {
    /// The API at `base_url` (normally [`DEFAULT_BASE_URL`]), `mailto` as given, and 200 ms
    /// between requests.
    pub fn new(base_url: Url, mailto: Option<String>) -> CrossrefConfig {
        CrossrefConfig { base_url, mailto, http: HttpConfig::paced(Duration::from_millis(200)) }
    }
}

impl fmt::Debug for CrossrefConfig {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("CrossrefConfig")
            .field("base_url", &self.base_url.as_str())
            .field("mailto", &self.mailto)
            .field("http", &self.http)
            .finish()
    }
}

/// The Crossref client. Clones share the connection pool and the pacing.
#[derive(Debug, Clone)]
pub struct CrossrefClient {
    config: CrossrefConfig,
    transport: Transport,
}

impl CrossrefClient {
    /// Checks the config and sets up the connection pool; no request is sent.
    pub fn new(config: CrossrefConfig) -> Result<CrossrefClient, SourceError> {
        let invalid = |why: &str| SourceError::invalid_request(Origin::Crossref, "client setup", why);
        let base_url = &config.base_url;
        if base_url.cannot_be_a_base() || !matches!(base_url.scheme(), "http" | "https") {
            return Err(invalid("the base URL must be an http(s) directory"));
        }
        if config.mailto.as_deref().is_some_and(|mailto| !mailto.contains('@') || mailto.contains(char::is_whitespace)) {
            return Err(invalid("mailto must be an email address"));
        }
        let transport = Transport::new(Origin::Crossref, config.http.clone(), explain_error)?;
        Ok(CrossrefClient { config, transport })
    }

    pub fn config(&self) -> &CrossrefConfig {
        &self.config
    }

    /// The work Crossref holds under `doi` (any form [`normalize_doi`] reads), or `None` when
    /// Crossref answers 404. A record without a title or DOI is a `Parse` error.
    pub async fn work(&self, doi: &str) -> Result<Option<Paper>, SourceError> {
        let Some(doi) = normalize_doi(doi) else {
            return Err(SourceError::invalid_request(Origin::Crossref, "works", format!("not a DOI: {doi:?}")));
        };
        let label = format!("works {doi}");
        let mut url = self.config.base_url.clone();
        url.path_segments_mut()
            .map_err(|()| SourceError::invalid_request(Origin::Crossref, label.clone(), "the base URL is not a directory"))?
            .pop_if_empty()
            .extend(["works", doi.as_str()]);
        let query = self.config.mailto.iter().map(|mailto| ("mailto", mailto.clone())).collect();
        let call = Call::get(label, url, query);
        match self.transport.fetch(&call, |body| parse_work(body).map_err(work_failure)).await {
            Ok(paper) => Ok(Some(paper)),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A status other than `ok` is Crossref refusing; anything else unreadable is a parse failure.
fn work_failure(error: CrossrefError) -> Failure {
    match error {
        CrossrefError::Failed(message) => Failure::Api { message, retry_later: false },
        unreadable @ (CrossrefError::Malformed(_) | CrossrefError::Unusable { .. }) => Failure::Parse(unreadable.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(mailto: Option<&str>) -> CrossrefConfig {
        CrossrefConfig::new(Url::parse(DEFAULT_BASE_URL).expect("the default URL"), mailto.map(str::to_owned))
    }

    #[test]
    fn a_contact_must_be_an_address_and_the_base_a_directory() {
        assert!(CrossrefClient::new(config(Some("ops@papers.example.org"))).is_ok());
        for bad in ["", "nobody", "a b@example.org"] {
            let error = CrossrefClient::new(config(Some(bad))).expect_err("not an address");
            assert_eq!((error.kind(), error.origin), (ErrorKind::Permanent, Origin::Crossref), "{bad:?}");
        }
        let mailto = CrossrefConfig { base_url: Url::parse("mailto:a@b.c").expect("url"), ..config(None) };
        assert!(CrossrefClient::new(mailto).is_err());
        assert_eq!(config(None).http.min_interval, Duration::from_millis(200));
    }

    #[test]
    fn refusals_are_permanent_and_garbage_unreadable() {
        assert_eq!(work_failure(CrossrefError::Failed("bad".into())).kind(), ErrorKind::Permanent);
        assert_eq!(work_failure(CrossrefError::Malformed("x".into())).kind(), ErrorKind::Parse);
        assert_eq!(work_failure(CrossrefError::Unusable { record: "10.1/x".into(), why: "no title".into() }).kind(), ErrorKind::Parse);
    }

    #[test]
    fn something_that_is_no_doi_is_refused_before_sending() {
        let client = CrossrefClient::new(config(None)).expect("client");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let error = runtime.block_on(client.work("not a doi")).expect_err("refused");
        assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0));
    }
}
