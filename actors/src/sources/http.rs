//! The HTTP exchange every source client shares: pace, send, classify, retry.
//!
//! One [`Transport`] per client holds the connection pool, the [`Pacer`] and the knobs. A
//! request goes out as a [`Call`]; its body is handed to an `interpret` function that turns it
//! into the parsed result or a [`Failure`]. Retried: failures whose kind is `Transient` or
//! `RateLimited` (5xx, 408, 429, timeouts, broken connections, error messages that say to try
//! again, incomplete pages), up to `max_retries` times, waiting the capped exponential backoff
//! with jitter, or longer when a 429/503 says `Retry-After` (then every caller of the client
//! waits). Not retried: 404/410, other 4xx, unreadable bodies and reported errors.

use std::error::Error as StdError;
use std::time::Duration;

use chrono::Utc;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use url::Url;

use super::error::{Failure, Origin, SourceError};
use super::pacing::Pacer;
use super::retry::{backoff_delay, parse_retry_after};

/// The knobs of one client's HTTP exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// Longest wait for one complete answer (connection, headers and body).
    pub timeout: Duration,
    /// Retries after the first attempt (so `max_retries + 1` requests at most).
    pub max_retries: u32,
    /// First backoff step; doubled per retry.
    pub backoff_base: Duration,
    /// Longest backoff step.
    pub backoff_cap: Duration,
    /// Longest `Retry-After` the client waits for; a source asking for more gets the error back
    /// at once (kind `RateLimited`), for the scheduler to try at that time.
    pub max_retry_after: Duration,
    /// Minimum time between the starts of two requests to the source.
    pub min_interval: Duration,
    /// At most this many requests open at once (`None`: limited by `min_interval` only).
    pub max_in_flight: Option<usize>,
    pub user_agent: String,
}

impl HttpConfig {
    /// Defaults for a source that wants `min_interval` between requests: 60 s timeout, 4 retries
    /// backing off from 2 s to 60 s, `Retry-After` honoured up to 5 minutes.
    pub fn paced(min_interval: Duration) -> HttpConfig {
        HttpConfig {
            timeout: Duration::from_secs(60),
            max_retries: 4,
            backoff_base: Duration::from_secs(2),
            backoff_cap: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(300),
            min_interval,
            max_in_flight: None,
            user_agent: default_user_agent(),
        }
    }
}

/// `Papertide/<version>`.
pub fn default_user_agent() -> String {
    format!("Papertide/{}", env!("CARGO_PKG_VERSION"))
}

/// One request, described so that it can be sent again.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// What is being fetched, for errors and logs (never the URL, which may hold an API key).
    pub label: String,
    pub url: Url,
    pub query: Vec<(&'static str, String)>,
    /// Sent as `application/x-www-form-urlencoded` in a POST when present.
    pub form: Option<Vec<(&'static str, String)>>,
}

impl Call {
    pub fn get(label: impl Into<String>, url: Url, query: Vec<(&'static str, String)>) -> Call {
        Call { label: label.into(), url, query, form: None }
    }
}

/// Reads a source's own explanation out of an error body (arXiv's error feed, NCBI's JSON
/// `error`), when it has one.
pub(crate) type ExplainErrorBody = fn(&str) -> Option<String>;

/// The shared half of every client: whom it asks, its connection pool, pacing and knobs.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub origin: Origin,
    pub config: HttpConfig,
    client: reqwest::Client,
    pacer: Pacer,
    explain_error_body: ExplainErrorBody,
}

impl Transport {
    pub fn new(origin: impl Into<Origin>, config: HttpConfig, explain_error_body: ExplainErrorBody) -> Result<Transport, SourceError> {
        let origin = origin.into();
        let connect_timeout = config.timeout.min(Duration::from_secs(10));
        let mut builder = reqwest::Client::builder().user_agent(config.user_agent.clone()).timeout(config.timeout).connect_timeout(connect_timeout);
        if let Some(max_in_flight) = config.max_in_flight {
            builder = builder.pool_max_idle_per_host(max_in_flight);
        }
        let client = builder.build().map_err(|error| SourceError::invalid_request(origin, "client setup", error_chain(&error.without_url())))?;
        let pacer = Pacer::new(config.min_interval, config.max_in_flight);
        Ok(Transport { origin, config, client, pacer, explain_error_body })
    }

    /// Sends `call` until `interpret` accepts an answer or the retry policy gives up.
    pub async fn fetch<T>(&self, call: &Call, interpret: impl Fn(&str) -> Result<T, Failure>) -> Result<T, SourceError> {
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let failure = match self.attempt(call).await {
                Ok(body) => match interpret(&body) {
                    Ok(value) => return Ok(value),
                    Err(failure) => failure,
                },
                Err(failure) => failure,
            };
            let asked_wait = failure.retry_after();
            let out_of_retries = attempts > self.config.max_retries;
            let asks_too_long = asked_wait.is_some_and(|wait| wait > self.config.max_retry_after);
            if !failure.kind().is_retryable() || out_of_retries || asks_too_long {
                return Err(SourceError { origin: self.origin, request: call.label.clone(), attempts, failure });
            }

            let backoff = backoff_delay(self.config.backoff_base, self.config.backoff_cap, attempts, rand::random::<f64>());
            if let Some(wait) = asked_wait {
                self.pacer.defer_until(tokio::time::Instant::now() + wait).await;
            }
            let delay = backoff.max(asked_wait.unwrap_or(Duration::ZERO));
            tracing::warn!(
                source = %self.origin,
                request = %call.label,
                attempt = attempts,
                delay_ms = delay.as_millis() as u64,
                error = %failure,
                "source request failed; retrying"
            );
            tokio::time::sleep(delay).await;
        }
    }

    /// One paced request: the body of a successful answer, or why there is none.
    async fn attempt(&self, call: &Call) -> Result<String, Failure> {
        let _slot = self.pacer.start_request().await;
        let request = match &call.form {
            Some(form) => self.client.request(Method::POST, call.url.clone()).query(&call.query).form(form),
            None => self.client.request(Method::GET, call.url.clone()).query(&call.query),
        };
        let response = request.send().await.map_err(|error| self.failure_from(error))?;
        let status = response.status();
        if status.is_success() {
            return response.text().await.map_err(|error| self.failure_from(error));
        }
        let retry_after = honoured_retry_after(status, response.headers());
        // The body of an error answer is read only for its message; losing it costs nothing.
        let body = response.text().await.unwrap_or_default();
        let message = (self.explain_error_body)(&body).or_else(|| excerpt(&body));
        Err(Failure::Status { status: status.as_u16(), retry_after, message })
    }

    fn failure_from(&self, error: reqwest::Error) -> Failure {
        if error.is_timeout() {
            return Failure::Timeout(self.config.timeout);
        }
        let is_builder = error.is_builder();
        let described = error_chain(&error.without_url());
        if is_builder {
            return Failure::InvalidRequest(described);
        }
        Failure::Connection(described)
    }
}

/// `Retry-After` counts on the statuses that use it to mean "come back then": 429 and 503.
fn honoured_retry_after(status: StatusCode, headers: &HeaderMap) -> Option<Duration> {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return None;
    }
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, Utc::now())
}

/// An error and its causes on one line: reqwest's own message ("error sending request") says
/// little without them.
pub(crate) fn error_chain(error: &dyn StdError) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// The start of a body on one line, for error messages; `None` for an empty body.
pub(crate) fn excerpt(body: &str) -> Option<String> {
    const MAX_CHARS: usize = 120;
    let collapsed = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    let mut start: String = collapsed.chars().take(MAX_CHARS).collect();
    if start.len() < collapsed.len() {
        start.push('…');
    }
    Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_only_on_429_and_503() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, reqwest::header::HeaderValue::from_static("3"));
        assert_eq!(honoured_retry_after(StatusCode::TOO_MANY_REQUESTS, &headers), Some(Duration::from_secs(3)));
        assert_eq!(honoured_retry_after(StatusCode::SERVICE_UNAVAILABLE, &headers), Some(Duration::from_secs(3)));
        assert_eq!(honoured_retry_after(StatusCode::INTERNAL_SERVER_ERROR, &headers), None);
        assert_eq!(honoured_retry_after(StatusCode::TOO_MANY_REQUESTS, &HeaderMap::new()), None);
    }

    #[test]
    fn excerpts_are_short_single_lines() {
        assert_eq!(excerpt("  \n "), None);
        assert_eq!(excerpt("<html>\n  <body>Bad   Gateway</body>").as_deref(), Some("<html> <body>Bad Gateway</body>"));
        let long = "x".repeat(500);
        assert_eq!(excerpt(&long).map(|text| text.chars().count()), Some(121));
    }
}
