//! The client of an OpenAI-compatible chat-completions endpoint, for query expansion and
//! summaries when an operator configures one. What is asked and what of the answer is kept is
//! `engine::llm`; this module does the HTTP exchange, its time limits, one retry and the circuit
//! breaker.
//!
//! The API is blocking, for the synchronous digest code that runs on plain threads and on
//! actix/tokio blocking-pool threads. It is built so that nothing panics whatever thread or
//! runtime it is created, used or dropped on: the HTTP client is reqwest's async one, driven by
//! a small single-threaded tokio runtime that lives on a thread of its own. A caller hands a
//! request to that thread and waits on a plain channel for the answer; the runtime is created
//! and dropped on its own thread only (reqwest's blocking client and a runtime dropped inside
//! another runtime both panic there). The thread ends when the last clone of [`Llm`] is dropped.
//! Calling from async code directly would block that runtime's worker: use `web::block` or
//! `spawn_blocking`.
//!
//! Failure policy: every call gets one whole-request timeout; a 429 or 5xx is retried once after
//! a short wait; anything else fails at once. After a failure of the service (timeout,
//! connection, HTTP error status, a body that is not a chat completion) the circuit breaker
//! opens: for the cool-down every call fails fast with [`LlmError::Unavailable`] without
//! reaching the server, so that a weekly run over many users waits one timeout, not one per
//! user; then one call probes, and its outcome closes or reopens the breaker. An answer the task
//! cannot use (no JSON list, an empty summary) fails that call only: the service worked.

use std::fmt;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use engine::llm::{self as tasks, AnswerError, ChatRequest};
use engine::paper::Paper;
use engine::sync::lock;
use engine::Tier;
use reqwest::header::RETRY_AFTER;
use reqwest::StatusCode;
use url::Url;

use crate::sources::error_chain;

/// The longest `Retry-After` honoured; a server asking for longer is not retried, and the
/// breaker's cool-down takes over.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);
/// The wait before the retry when a 429/5xx does not say how long to wait.
const DEFAULT_RETRY_WAIT: Duration = Duration::from_millis(500);
/// The largest response body read; a chat completion for these tasks is a few kilobytes.
const MAX_BODY_BYTES: usize = 1 << 20;
/// The longest connection set-up, within the request's timeout.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the model answers and how long to wait for it.
#[derive(Clone, PartialEq, Eq)]
pub struct LlmConfig {
    /// Base URL of the API, such as `https://api.openai.com/v1`; requests go to
    /// `{url}/chat/completions`.
    pub url: Url,
    /// Sent as `Authorization: Bearer …` when set; local servers need none.
    pub api_key: Option<String>,
    /// The standard model, for free plans.
    pub model: String,
    /// The model for paid plans; the standard model when unset.
    pub model_advanced: Option<String>,
    /// The longest wait for one whole request (connection, headers and body).
    pub timeout: Duration,
    /// How long calls fail fast after a failure before one call probes the service again.
    pub cool_down: Duration,
}

impl LlmConfig {
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
    pub const DEFAULT_COOL_DOWN: Duration = Duration::from_secs(60);

    /// `model` at `url`, without key or advanced model, with the default timeout and cool-down.
    pub fn new(url: Url, model: impl Into<String>) -> LlmConfig {
        LlmConfig {
            url,
            api_key: None,
            model: model.into(),
            model_advanced: None,
            timeout: LlmConfig::DEFAULT_TIMEOUT,
            cool_down: LlmConfig::DEFAULT_COOL_DOWN,
        }
    }

    /// `{url}/chat/completions`, whether or not the base URL ends in a slash.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.url.as_str().trim_end_matches('/'))
    }
}

impl fmt::Debug for LlmConfig {
    /// Everything but the API key, which is a secret.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("LlmConfig")
            .field("url", &self.url.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("model_advanced", &self.model_advanced)
            .field("timeout", &self.timeout)
            .field("cool_down", &self.cool_down)
            .finish()
    }
}

/// Which of the configured models answers: the standard one for free plans, the advanced one
/// for paid plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelClass {
    Standard,
    Advanced,
}

impl ModelClass {
    /// Advanced for paid plans, standard for the free plan.
    pub fn for_tier(tier: Tier) -> ModelClass {
        if tier.is_paid() {
            ModelClass::Advanced
        } else {
            ModelClass::Standard
        }
    }
}

/// Why a call gave no usable answer. Every kind means the same to callers: use the local
/// expansion or extractive summary instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// No complete answer within the configured timeout.
    #[error("the LLM did not answer within {} s", .0.as_secs_f32())]
    Timeout(Duration),
    /// The server answered with an error status (after the one retry, for 429 and 5xx).
    #[error("the LLM answered HTTP {status}: {message}")]
    Status { status: u16, message: String },
    /// The server could not be reached, or the connection broke.
    #[error("the LLM could not be reached: {0}")]
    Connection(String),
    /// The body is not a chat completion, or the answer is not what the task asked for.
    #[error("the LLM's answer is unusable: {0}")]
    BadResponse(String),
    /// Skipped without a request: a recent failure opened the circuit breaker.
    #[error("the LLM is skipped for another {} s after a recent failure", .retry_in.as_secs())]
    Unavailable { retry_in: Duration },
    /// The HTTP client or its thread could not be started.
    #[error("the LLM client could not be started: {0}")]
    Setup(String),
}

/// Health counters since start-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlmStats {
    /// Calls made, including those the breaker skipped.
    pub calls: u64,
    /// Calls that failed, including those the breaker skipped.
    pub failures: u64,
    /// Of the failures, the calls the breaker skipped without a request.
    pub skipped: u64,
    /// The message of the last failure that reached the server (or tried to).
    pub last_error: Option<String>,
    /// Whether calls are being skipped now.
    pub breaker_open: bool,
}

/// A handle on the chat-completions client; clones share the connection pool, the breaker and
/// the counters.
#[derive(Clone)]
pub struct Llm {
    shared: Arc<Shared>,
}

struct Shared {
    config: LlmConfig,
    jobs: tokio::sync::mpsc::UnboundedSender<Job>,
    breaker: Mutex<Breaker>,
    stats: Mutex<LlmStats>,
}

/// One request for the HTTP thread, and where to put its outcome.
struct Job {
    request: ChatRequest,
    reply: mpsc::SyncSender<Result<String, LlmError>>,
}

impl fmt::Debug for Llm {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("Llm").field("config", &self.shared.config).finish_non_exhaustive()
    }
}

impl Llm {
    /// Starts the client's HTTP thread. Safe on any thread, inside a runtime or not.
    pub fn new(config: LlmConfig) -> Result<Llm, LlmError> {
        let client = reqwest::Client::builder()
            .user_agent(crate::sources::default_user_agent())
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(MAX_CONNECT_TIMEOUT))
            .build()
            .map_err(|error| LlmError::Setup(error_chain(&error.without_url())))?;
        let exchange = Exchange { client, endpoint: config.endpoint(), api_key: config.api_key.clone(), timeout: config.timeout };
        let (jobs, queue) = tokio::sync::mpsc::unbounded_channel();
        let (ready, started) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("papertide-llm".into())
            .spawn(move || serve_jobs(exchange, queue, ready))
            .map_err(|error| LlmError::Setup(format!("spawning the HTTP thread: {error}")))?;
        started.recv().map_err(|_| LlmError::Setup("the HTTP thread stopped while starting".into()))??;
        let shared = Shared { config, jobs, breaker: Mutex::new(Breaker::default()), stats: Mutex::new(LlmStats::default()) };
        Ok(Llm { shared: Arc::new(shared) })
    }

    /// The model name a class of call is answered by (for cache keys).
    pub fn model(&self, class: ModelClass) -> &str {
        let config = &self.shared.config;
        match class {
            ModelClass::Advanced => config.model_advanced.as_deref().unwrap_or(&config.model),
            ModelClass::Standard => &config.model,
        }
    }

    pub fn config(&self) -> &LlmConfig {
        &self.shared.config
    }

    /// Search phrases related to `term` (see `engine::llm::parse_expansion` for what is kept).
    pub fn expand(&self, class: ModelClass, term: &str) -> Result<Vec<String>, LlmError> {
        let request = tasks::expansion_request(self.model(class), term);
        self.call("expansion", request, |content| tasks::parse_expansion(term, content))
    }

    /// A one- or two-sentence plain-text summary of `paper`.
    pub fn summarize_paper(&self, class: ModelClass, paper: &Paper) -> Result<String, LlmError> {
        let request = tasks::paper_summary_request(self.model(class), paper);
        self.call("paper summary", request, tasks::parse_paper_summary)
    }

    /// The digest's "AI Research Summary" lines for `papers` found for `term` in the last
    /// `window_days`.
    pub fn summarize_digest(&self, class: ModelClass, term: &str, papers: &[&Paper], window_days: i64) -> Result<Vec<String>, LlmError> {
        let request = tasks::digest_summary_request(self.model(class), term, papers, window_days);
        self.call("digest summary", request, tasks::parse_digest_summary)
    }

    /// A snapshot of the counters and the breaker.
    pub fn stats(&self) -> LlmStats {
        let mut stats = lock(&self.shared.stats).clone();
        stats.breaker_open = lock(&self.shared.breaker).is_open(Instant::now());
        stats
    }

    /// Asks the breaker, sends `request`, records the outcome and reads the answer with `parse`.
    fn call<T>(&self, task: &str, request: ChatRequest, parse: impl FnOnce(&str) -> Result<T, AnswerError>) -> Result<T, LlmError> {
        let model = request.model.clone();
        lock(&self.shared.stats).calls += 1;
        if let Err(retry_in) = lock(&self.shared.breaker).admit(Instant::now()) {
            let mut stats = lock(&self.shared.stats);
            stats.failures += 1;
            stats.skipped += 1;
            tracing::debug!(task, "LLM skipped: the breaker is open after a recent failure");
            return Err(LlmError::Unavailable { retry_in });
        }
        let exchanged = self.exchange(request);
        lock(&self.shared.breaker).record(exchanged.is_ok(), Instant::now(), self.shared.config.cool_down);
        let answer = exchanged.and_then(|content| parse(&content).map_err(|error| LlmError::BadResponse(error.to_string())));
        if let Err(error) = &answer {
            let mut stats = lock(&self.shared.stats);
            stats.failures += 1;
            stats.last_error = Some(error.to_string());
            tracing::warn!(task, model, "LLM call failed, using the local fallback: {error}");
        }
        answer
    }

    /// Hands `request` to the HTTP thread and waits for its outcome.
    fn exchange(&self, request: ChatRequest) -> Result<String, LlmError> {
        let (reply, outcome) = mpsc::sync_channel(1);
        let stopped = || LlmError::Setup("the HTTP thread has stopped".into());
        self.shared.jobs.send(Job { request, reply }).map_err(|_| stopped())?;
        outcome.recv().map_err(|_| stopped())?
    }
}

/// The HTTP thread: a current-thread runtime serving jobs concurrently until every sender is
/// gone. The runtime is created and dropped here, on a thread that is never inside another
/// runtime.
fn serve_jobs(exchange: Exchange, mut queue: tokio::sync::mpsc::UnboundedReceiver<Job>, ready: mpsc::SyncSender<Result<(), LlmError>>) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = ready.send(Err(LlmError::Setup(format!("starting the HTTP runtime: {error}"))));
            return;
        }
    };
    let _ = ready.send(Ok(()));
    let exchange = Arc::new(exchange);
    runtime.block_on(async move {
        while let Some(job) = queue.recv().await {
            let exchange = Arc::clone(&exchange);
            tokio::spawn(async move {
                let outcome = exchange.send(&job.request).await;
                let _ = job.reply.send(outcome);
            });
        }
    });
}

/// The HTTP half, owned by the HTTP thread.
struct Exchange {
    client: reqwest::Client,
    endpoint: String,
    api_key: Option<String>,
    timeout: Duration,
}

/// A failed attempt, and whether (and after how long) it may be retried.
struct Attempt {
    error: LlmError,
    retry_after: Option<Duration>,
}

impl Exchange {
    /// POSTs `request`; a 429 or 5xx is retried once after the wait it asks for (at most
    /// [`MAX_RETRY_AFTER`]). Returns the answer's text.
    async fn send(&self, request: &ChatRequest) -> Result<String, LlmError> {
        match self.attempt(request).await {
            Ok(content) => Ok(content),
            Err(Attempt { retry_after: Some(wait), .. }) => {
                tokio::time::sleep(wait).await;
                self.attempt(request).await.map_err(|attempt| attempt.error)
            }
            Err(attempt) => Err(attempt.error),
        }
    }

    async fn attempt(&self, request: &ChatRequest) -> Result<String, Attempt> {
        let fail = |error| Attempt { error, retry_after: None };
        let mut post = self.client.post(&self.endpoint).json(request);
        if let Some(key) = &self.api_key {
            post = post.bearer_auth(key);
        }
        let mut response = post.send().await.map_err(|error| fail(self.classify(error)))?;
        let status = response.status();
        let asked_wait = response.headers().get(RETRY_AFTER).and_then(|value| value.to_str().ok()).and_then(parse_retry_after);
        let body = read_body(&mut response).await.map_err(|error| fail(self.classify(error)))?;
        if !status.is_success() {
            let message = self.redact(tasks::reported_error(&body).unwrap_or_else(|| one_line(&body)));
            let error = LlmError::Status { status: status.as_u16(), message };
            return Err(Attempt { error, retry_after: retry_wait(status, asked_wait) });
        }
        tasks::parse_chat_response(&body).map_err(|error| fail(LlmError::BadResponse(self.redact(error.to_string()))))
    }

    /// `message` without the API key, for servers that quote the key they refused.
    fn redact(&self, message: String) -> String {
        match self.api_key.as_deref().filter(|key| !key.is_empty()) {
            Some(key) if message.contains(key) => message.replace(key, "<redacted>"),
            _ => message,
        }
    }

    fn classify(&self, error: reqwest::Error) -> LlmError {
        if error.is_timeout() {
            LlmError::Timeout(self.timeout)
        } else {
            LlmError::Connection(error_chain(&error.without_url()))
        }
    }
}

/// Reads at most [`MAX_BODY_BYTES`] of the body, lossily as UTF-8.
async fn read_body(response: &mut reqwest::Response) -> Result<String, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = MAX_BODY_BYTES.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_BODY_BYTES {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// The wait before retrying a failed status: only 429 and 5xx are retried, after the asked wait
/// or [`DEFAULT_RETRY_WAIT`]; a wait longer than [`MAX_RETRY_AFTER`] is not waited out.
fn retry_wait(status: StatusCode, asked: Option<Duration>) -> Option<Duration> {
    let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
    let wait = asked.unwrap_or(DEFAULT_RETRY_WAIT);
    (retryable && wait <= MAX_RETRY_AFTER).then_some(wait)
}

/// A `Retry-After` in seconds (`2`, or `1.5` as some APIs send). The HTTP-date form is not
/// read: such a wait is never short enough to be waited out here.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// The circuit breaker's state: closed (`open_until` none), open until a time, or half-open
/// with one probe under way.
#[derive(Debug, Default)]
struct Breaker {
    open_until: Option<Instant>,
    probing: bool,
}

impl Breaker {
    /// Whether a call may go ahead at `now`; `Err` holds how long calls are skipped for. Once
    /// the cool-down is over, the first call probes and the others are skipped until it is done.
    fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        match self.open_until {
            None => Ok(()),
            Some(until) if now < until => Err(until - now),
            Some(_) if self.probing => Err(Duration::ZERO),
            Some(_) => {
                self.probing = true;
                Ok(())
            }
        }
    }

    /// A call's outcome: success closes the breaker, failure opens it for `cool_down`.
    fn record(&mut self, succeeded: bool, now: Instant, cool_down: Duration) {
        self.probing = false;
        self.open_until = if succeeded { None } else { Some(now + cool_down) };
    }

    fn is_open(&self, now: Instant) -> bool {
        self.open_until.is_some_and(|until| now < until) || self.probing
    }
}

/// The first 200 characters of `text` on one line, for error messages.
fn one_line(text: &str) -> String {
    let line = engine::paper::collapse_whitespace(text);
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None if line.is_empty() => "(empty body)".into(),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COOL_DOWN: Duration = Duration::from_secs(60);

    #[test]
    fn the_breaker_skips_calls_for_the_cool_down_then_lets_one_probe() {
        let start = Instant::now();
        let mut breaker = Breaker::default();
        assert_eq!(breaker.admit(start), Ok(()));
        breaker.record(false, start, COOL_DOWN);
        assert_eq!(breaker.admit(start + Duration::from_secs(10)), Err(Duration::from_secs(50)));
        let later = start + COOL_DOWN;
        assert_eq!(breaker.admit(later), Ok(()), "the first call after the cool-down probes");
        assert_eq!(breaker.admit(later), Err(Duration::ZERO), "one probe at a time");
        breaker.record(true, later, COOL_DOWN);
        assert_eq!(breaker.admit(later), Ok(()));
        assert!(!breaker.is_open(later));
    }

    #[test]
    fn a_failed_probe_opens_the_breaker_again() {
        let start = Instant::now();
        let mut breaker = Breaker::default();
        breaker.record(false, start, COOL_DOWN);
        let later = start + COOL_DOWN;
        assert_eq!(breaker.admit(later), Ok(()));
        breaker.record(false, later, COOL_DOWN);
        assert!(breaker.is_open(later + Duration::from_secs(1)));
        assert!(breaker.admit(later + Duration::from_secs(1)).is_err());
    }

    #[test]
    fn only_short_waits_on_429_and_5xx_are_retried() {
        assert_eq!(retry_wait(StatusCode::TOO_MANY_REQUESTS, Some(Duration::from_secs(2))), Some(Duration::from_secs(2)));
        assert_eq!(retry_wait(StatusCode::BAD_GATEWAY, None), Some(DEFAULT_RETRY_WAIT));
        assert_eq!(retry_wait(StatusCode::SERVICE_UNAVAILABLE, Some(Duration::from_secs(3600))), None);
        assert_eq!(retry_wait(StatusCode::UNAUTHORIZED, None), None);
        assert_eq!(retry_wait(StatusCode::BAD_REQUEST, Some(Duration::ZERO)), None);
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(parse_retry_after(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn the_endpoint_is_under_the_base_url_and_the_key_is_not_printed() -> Result<(), url::ParseError> {
        let mut config = LlmConfig::new(Url::parse("https://api.openai.com/v1")?, "gpt-4o-mini");
        assert_eq!(config.endpoint(), "https://api.openai.com/v1/chat/completions");
        config.url = Url::parse("http://127.0.0.1:8000/v1/")?;
        assert_eq!(config.endpoint(), "http://127.0.0.1:8000/v1/chat/completions");
        config.api_key = Some("sk-secret".into());
        assert!(!format!("{config:?}").contains("sk-secret"));
        Ok(())
    }

    #[test]
    fn paid_plans_get_the_advanced_model() {
        assert_eq!(ModelClass::for_tier(Tier::Free), ModelClass::Standard);
        assert_eq!(ModelClass::for_tier(Tier::Pro), ModelClass::Advanced);
        assert_eq!(ModelClass::for_tier(Tier::Team), ModelClass::Advanced);
    }
}
