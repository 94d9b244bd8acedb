//! Request-level protections: the same-origin check on state-changing requests, per-client rate
//! limits, and the client address they are keyed by.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, ResponseError};
use engine::sync::lock;
use url::Url;

use crate::config::Rate;
use crate::error::ApiError;
use crate::state::AppState;

/// Whether a request may change state: it comes from our own pages, or from a client that is
/// not a browser.
///
/// - An `Origin` must be ours, and a `Sec-Fetch-Site` must say `same-origin` (or `none`, a
///   navigation the user made): either one saying otherwise refuses the request, whatever the
///   other says.
/// - A request with neither header is not from a current browser (they send at least one on
///   every cross-origin POST): curl, scripts, Stripe's webhooks. It passes unless it carries a
///   body a cross-site HTML form could send (`application/x-www-form-urlencoded`,
///   `multipart/form-data`, `text/plain`), which no call of ours takes; a JSON body cannot come
///   from another site without a CORS preflight, which this server never grants.
///
/// `public_url` is the configured public address; the request's own Host also counts, so the
/// service works when reached at another name (a cookie never crosses names anyway).
pub fn is_same_origin(request: &HttpRequest, public_url: &Url) -> bool {
    is_allowed_origin(request, public_url, false)
}

/// [`is_same_origin`], with `forms_welcome`: a request with neither header may carry a form body
/// (for calls a secret in their address authorizes, not a cookie: RFC 8058's one-click
/// unsubscribe, which mail providers send as a form from their own servers).
fn is_allowed_origin(request: &HttpRequest, public_url: &Url, forms_welcome: bool) -> bool {
    let header = |name: &str| request.headers().get(name).and_then(|value| value.to_str().ok());
    let site = header("sec-fetch-site");
    if site.is_some_and(|site| !matches!(site, "same-origin" | "none")) {
        return false;
    }
    let Some(origin) = header("origin") else {
        return site.is_some() || forms_welcome || !is_form_body(header("content-type"));
    };
    let Ok(origin) = Url::parse(origin) else {
        return false;
    };
    let origin_authority = authority(&origin);
    let matches_public = origin.scheme() == public_url.scheme() && origin_authority == authority(public_url);
    let matches_host = header("host").is_some_and(|host| host.eq_ignore_ascii_case(&origin_authority));
    matches_public || matches_host
}

/// Whether a content type is one of those an HTML form on any site can send without asking.
fn is_form_body(content_type: Option<&str>) -> bool {
    let Some(content_type) = content_type else {
        return false;
    };
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    matches!(essence.as_str(), "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain")
}

fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// Does a request need the same-origin check? Every state-changing method, and the
/// verification link's API call, which signs the user in.
fn needs_origin_check(request: &ServiceRequest) -> bool {
    let is_safe_method = matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    !is_safe_method || request.path() == "/api/verify-email"
}

/// Middleware (`from_fn`) that refuses cross-site state changes with 403.
pub async fn same_origin_guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let forms_welcome = request.path().starts_with("/api/unsubscribe/");
    let is_allowed = state.is_some_and(|state| is_allowed_origin(request.request(), &state.settings.public_url, forms_welcome));
    if needs_origin_check(&request) && !is_allowed {
        tracing::warn!(path = request.path(), "cross-site request refused");
        let refusal = ApiError::new(crate::error::ErrorCode::CrossSiteRequest, "Cross-site request refused.").error_response();
        return Ok(request.into_response(refusal).map_into_right_body());
    }
    let response = next.call(request).await?;
    Ok(response.map_into_left_body())
}

/// The client's address: the TCP peer, or behind a trusted reverse proxy the last
/// X-Forwarded-For hop (the one the proxy added, which the client cannot forge).
pub fn client_ip(request: &HttpRequest, trust_proxy: bool) -> String {
    if trust_proxy {
        let forwarded = request.headers().get("x-forwarded-for").and_then(|value| value.to_str().ok());
        if let Some(last_hop) = forwarded.and_then(|hops| hops.rsplit(',').next()).map(str::trim) {
            if !last_hop.is_empty() {
                return last_hop.to_owned();
            }
        }
    }
    request.peer_addr().map(|address| address.ip().to_string()).unwrap_or_else(|| "unknown".to_owned())
}

/// Fixed-window counters per (action, key), in memory. Windows reset on restart, which is fine
/// for throttling guessers; nothing depends on them for correctness.
///
/// Whatever a stranger sends, the limiter's memory is bounded: a key is kept only as a keyed
/// hash of the action and the key (128 bits, under a secret made at start, so nobody can aim two
/// keys at one counter), and at most `capacity` counters are kept. When full, counters whose
/// window has passed are dropped, and if that is not enough the oldest eighth goes (their
/// callers start a new window early: a flood that large costs its victims a little throttling,
/// never the server's memory).
#[derive(Clone)]
pub struct RateLimiter {
    counters: Arc<Mutex<Counters>>,
    hashers: Arc<(RandomState, RandomState)>,
}

struct Counters {
    windows: HashMap<u128, Window>,
    capacity: usize,
    evicted_total: u64,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    length: Duration,
    count: u32,
}

/// The counters a limiter keeps at most: about 64 bytes each, so a few MiB in all.
pub const DEFAULT_LIMITER_CAPACITY: usize = 100_000;

impl Default for RateLimiter {
    fn default() -> RateLimiter {
        RateLimiter::with_capacity(DEFAULT_LIMITER_CAPACITY)
    }
}

impl RateLimiter {
    /// A limiter keeping at most `capacity` counters (at least 8).
    pub fn with_capacity(capacity: usize) -> RateLimiter {
        let counters = Counters { windows: HashMap::new(), capacity: capacity.max(8), evicted_total: 0 };
        RateLimiter { counters: Arc::new(Mutex::new(counters)), hashers: Arc::new((RandomState::new(), RandomState::new())) }
    }

    /// The fixed-size name of `key` under `action`.
    fn slot(&self, action: &'static str, key: &str) -> u128 {
        let (high, low) = &*self.hashers;
        (u128::from(high.hash_one((action, key))) << 64) | u128::from(low.hash_one((action, key)))
    }

    /// Counts one event; `Err(retry_after)` when the key is over its rate.
    pub fn hit(&self, action: &'static str, key: &str, rate: Rate, now: Instant) -> Result<(), Duration> {
        let slot = self.slot(action, key);
        let mut counters = lock(&self.counters);
        if !counters.windows.contains_key(&slot) && counters.windows.len() >= counters.capacity {
            counters.make_room(now);
        }
        let fresh = Window { started: now, length: rate.window, count: 0 };
        let window = counters.windows.entry(slot).or_insert(fresh);
        if now.duration_since(window.started) >= rate.window {
            *window = fresh;
        }
        if window.count >= rate.max {
            let retry_after = rate.window.saturating_sub(now.duration_since(window.started));
            return Err(retry_after);
        }
        window.count += 1;
        Ok(())
    }

    /// Whether `key` is over its rate now, without counting anything.
    pub fn is_over(&self, action: &'static str, key: &str, rate: Rate, now: Instant) -> Option<Duration> {
        let slot = self.slot(action, key);
        let counters = lock(&self.counters);
        let window = counters.windows.get(&slot)?;
        let elapsed = now.duration_since(window.started);
        (elapsed < rate.window && window.count >= rate.max).then(|| rate.window.saturating_sub(elapsed))
    }

    /// How many counters are kept now.
    pub fn len(&self) -> usize {
        lock(&self.counters).windows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many open counters were dropped to make room since the start.
    pub fn evicted_total(&self) -> u64 {
        lock(&self.counters).evicted_total
    }

    /// [`RateLimiter::hit`] answering 429 with `Retry-After` when over the rate.
    pub fn check(&self, action: &'static str, key: &str, rate: Rate) -> Result<(), ApiError> {
        self.hit(action, key, rate, Instant::now()).map_err(too_many_requests)
    }

    /// 429 when `key` is over its rate now; counts nothing (see [`RateLimiter::is_over`]).
    pub fn check_not_over(&self, action: &'static str, key: &str, rate: Rate) -> Result<(), ApiError> {
        self.is_over(action, key, rate, Instant::now()).map_or(Ok(()), |retry_after| Err(too_many_requests(retry_after)))
    }
}

fn too_many_requests(retry_after: Duration) -> ApiError {
    ApiError::too_many_requests(retry_after.as_secs().max(1))
}

impl Counters {
    /// Drops the counters whose window has passed; if that frees less than an eighth of the
    /// capacity, also the oldest open ones until it does.
    fn make_room(&mut self, now: Instant) {
        self.windows.retain(|_, window| now.duration_since(window.started) < window.length);
        let target = self.capacity - self.capacity / 8;
        if self.windows.len() <= target {
            return;
        }
        let excess = self.windows.len() - target;
        let mut starts: Vec<Instant> = self.windows.values().map(|window| window.started).collect();
        let (_, cutoff, _) = starts.select_nth_unstable(excess - 1);
        let cutoff = *cutoff;
        let mut dropped = 0;
        self.windows.retain(|_, window| {
            let drop = dropped < excess && window.started <= cutoff;
            dropped += usize::from(drop);
            !drop
        });
        self.evicted_total += dropped as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn a_key_over_its_rate_waits_for_the_window() {
        let limiter = RateLimiter::default();
        let rate = Rate { max: 2, window: Duration::from_secs(60) };
        let start = Instant::now();
        assert!(limiter.hit("login", "a", rate, start).is_ok());
        assert!(limiter.hit("login", "a", rate, start).is_ok());
        let refused = limiter.hit("login", "a", rate, start + Duration::from_secs(20));
        assert_eq!(refused, Err(Duration::from_secs(40)));
        assert!(limiter.hit("login", "b", rate, start).is_ok(), "keys are independent");
        assert!(limiter.hit("signup", "a", rate, start).is_ok(), "actions are independent");
        assert!(limiter.hit("login", "a", rate, start + Duration::from_secs(61)).is_ok());
    }

    #[test]
    fn a_full_limiter_drops_passed_windows_first_then_the_oldest() {
        let limiter = RateLimiter::with_capacity(80);
        let short = Rate { max: 1, window: Duration::from_secs(60) };
        let long = Rate { max: 1, window: Duration::from_secs(3600) };
        let start = Instant::now();
        assert!(limiter.hit("login", "still open", long, start).is_ok());
        for address in 0..79 {
            assert!(limiter.hit("reset-password", &address.to_string(), short, start + Duration::from_secs(1)).is_ok());
        }
        assert_eq!(limiter.len(), 80);
        let later = start + Duration::from_secs(62);
        assert!(limiter.hit("signup", "new", short, later).is_ok());
        assert_eq!(limiter.len(), 2, "only the open window and the new one are kept");
        assert_eq!(limiter.evicted_total(), 0, "passed windows are not counted as evicted");
        assert!(limiter.hit("login", "still open", long, later).is_err(), "an open window keeps counting");

        for address in 0..200 {
            let at = later + Duration::from_millis(address);
            assert!(limiter.hit("login", &format!("flood {address}"), long, at).is_ok());
            assert!(limiter.len() <= 80, "never more than the capacity");
        }
        assert!(limiter.evicted_total() > 0);
        assert!(limiter.hit("login", "flood 199", long, later + Duration::from_secs(1)).is_err(), "the newest counters stay");
        assert!(limiter.hit("login", "still open", long, later + Duration::from_secs(1)).is_ok(), "the oldest went first");
    }

    #[test]
    fn keys_of_any_length_take_the_same_room() {
        let limiter = RateLimiter::with_capacity(1_000);
        let rate = Rate { max: 1, window: Duration::from_secs(60) };
        let start = Instant::now();
        let long_key = "x".repeat(60_000);
        assert!(limiter.hit("login", &long_key, rate, start).is_ok());
        assert!(limiter.hit("login", &long_key, rate, start).is_err(), "the same long key is one counter");
        assert!(limiter.hit("login", &format!("{long_key}y"), rate, start).is_ok());
        let counters = limiter.counters.lock().expect("lock");
        assert_eq!(std::mem::size_of_val(counters.windows.keys().next().expect("a key")), 16, "a key is 16 bytes whatever its text");
    }

    #[test]
    fn looking_counts_nothing() {
        let limiter = RateLimiter::default();
        let rate = Rate { max: 1, window: Duration::from_secs(60) };
        let start = Instant::now();
        assert_eq!(limiter.is_over("verify", "a", rate, start), None);
        assert!(limiter.is_empty(), "a look makes no counter");
        assert!(limiter.hit("verify", "a", rate, start).is_ok());
        assert_eq!(limiter.is_over("verify", "a", rate, start + Duration::from_secs(10)), Some(Duration::from_secs(50)));
        assert_eq!(limiter.is_over("verify", "a", rate, start + Duration::from_secs(60)), None);
    }

    #[test]
    fn origins() {
        let public = Url::parse("https://papers.example.org").expect("url");
        let check = |headers: &[(&str, &str)]| {
            let mut request = TestRequest::post().uri("/api/auth/login");
            for header in headers {
                request = request.insert_header(*header);
            }
            is_same_origin(&request.to_http_request(), &public)
        };
        assert!(check(&[]), "non-browser clients pass");
        assert!(check(&[("content-type", "application/json")]), "a JSON body without either header is not from a browser form");
        for form in ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "Text/Plain;charset=UTF-8"] {
            assert!(!check(&[("content-type", form)]), "what a cross-site form sends is refused without either header: {form}");
        }
        assert!(check(&[("sec-fetch-site", "same-origin")]));
        assert!(
            !check(&[("sec-fetch-site", "same-origin"), ("origin", "https://evil.example")]),
            "a foreign Origin is refused whatever Sec-Fetch-Site says"
        );
        assert!(!check(&[("sec-fetch-site", "cross-site"), ("origin", "https://papers.example.org")]), "and the other way round");
        assert!(check(&[("sec-fetch-site", "same-origin"), ("origin", "https://papers.example.org")]));
        assert!(!check(&[("sec-fetch-site", "cross-site")]));
        assert!(!check(&[("sec-fetch-site", "same-site")]));
        assert!(check(&[("origin", "https://papers.example.org")]));
        assert!(!check(&[("origin", "http://papers.example.org")]), "scheme must match");
        assert!(!check(&[("origin", "https://evil.example")]));
        assert!(check(&[("origin", "http://127.0.0.1:8080"), ("host", "127.0.0.1:8080")]));
        assert!(!check(&[("origin", "http://evil.example"), ("host", "127.0.0.1:8080")]));
        assert!(!check(&[("origin", "null")]));
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let request = TestRequest::get()
            .peer_addr("10.0.0.1:5000".parse().expect("addr"))
            .insert_header(("x-forwarded-for", "6.6.6.6, 203.0.113.9"))
            .to_http_request();
        assert_eq!(client_ip(&request, false), "10.0.0.1");
        assert_eq!(client_ip(&request, true), "203.0.113.9");
    }
}
