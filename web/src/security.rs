//! Request-level protections: the same-origin check on state-changing requests, per-client rate
//! limits, and the client address they are keyed by.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, ResponseError};
use url::Url;

use crate::config::Rate;
use crate::error::ApiError;
use crate::state::AppState;

/// Whether a request may change state: it comes from our own pages, or from a client that is
/// not a browser (no `Sec-Fetch-Site` and no `Origin`: curl, scripts). Browsers send at least
/// one of the two on every cross-origin POST, so a page elsewhere cannot act for a signed-in
/// user. `public_url` is the configured public address; the request's own Host also counts, so
/// the service works when reached at another name (a cookie never crosses names anyway).
pub fn is_same_origin(request: &HttpRequest, public_url: &Url) -> bool {
    let header = |name: &str| request.headers().get(name).and_then(|value| value.to_str().ok());
    if let Some(site) = header("sec-fetch-site") {
        return matches!(site, "same-origin" | "none");
    }
    let Some(origin) = header("origin") else {
        return true;
    };
    let Ok(origin) = Url::parse(origin) else {
        return false;
    };
    let origin_authority = authority(&origin);
    let matches_public = origin.scheme() == public_url.scheme() && origin_authority == authority(public_url);
    let matches_host = header("host").is_some_and(|host| host.eq_ignore_ascii_case(&origin_authority));
    matches_public || matches_host
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
    let is_allowed = state.is_some_and(|state| is_same_origin(request.request(), &state.settings.public_url));
    if needs_origin_check(&request) && !is_allowed {
        tracing::warn!(path = request.path(), "cross-site request refused");
        let refusal = ApiError::forbidden("cross_site_request", "Cross-site request refused.").error_response();
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
/// for throttling guessers; nothing depends on them for correctness. Counters whose window has
/// passed are dropped once there are many of them (at most once a second), so a flood from many
/// addresses costs memory only for the windows still open.
#[derive(Clone, Default)]
pub struct RateLimiter {
    counters: Arc<Mutex<Counters>>,
}

#[derive(Default)]
struct Counters {
    windows: HashMap<(&'static str, String), Window>,
    last_pruned: Option<Instant>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    length: Duration,
    count: u32,
}

const PRUNE_ABOVE_ENTRIES: usize = 10_000;
const PRUNE_AT_MOST_EVERY: Duration = Duration::from_secs(1);

impl RateLimiter {
    /// Counts one event; `Err(retry_after)` when the key is over its rate.
    pub fn hit(&self, action: &'static str, key: &str, rate: Rate, now: Instant) -> Result<(), Duration> {
        let mut counters = self.counters.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let is_prune_due = counters.last_pruned.is_none_or(|last| now.duration_since(last) >= PRUNE_AT_MOST_EVERY);
        if counters.windows.len() > PRUNE_ABOVE_ENTRIES && is_prune_due {
            counters.windows.retain(|_, window| now.duration_since(window.started) < window.length);
            counters.last_pruned = Some(now);
        }
        let fresh = Window { started: now, length: rate.window, count: 0 };
        let window = counters.windows.entry((action, key.to_owned())).or_insert(fresh);
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

    /// How many counters are kept now.
    pub fn len(&self) -> usize {
        self.counters.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).windows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`RateLimiter::hit`] answering 429 with `Retry-After` when over the rate.
    pub fn check(&self, action: &'static str, key: &str, rate: Rate) -> Result<(), ApiError> {
        self.hit(action, key, rate, Instant::now()).map_err(|retry_after| ApiError::too_many_requests(retry_after.as_secs().max(1)))
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
    fn counters_of_passed_windows_are_dropped_when_many() {
        let limiter = RateLimiter::default();
        let rate = Rate { max: 1, window: Duration::from_secs(60) };
        let start = Instant::now();
        for address in 0..=PRUNE_ABOVE_ENTRIES {
            assert!(limiter.hit("reset-password", &address.to_string(), rate, start).is_ok());
        }
        assert_eq!(limiter.len(), PRUNE_ABOVE_ENTRIES + 1);
        let long = Rate { max: 1, window: Duration::from_secs(3600) };
        assert!(limiter.hit("login", "still open", long, start).is_ok());
        let later = start + Duration::from_secs(61);
        assert!(limiter.hit("signup", "new", rate, later).is_ok());
        assert_eq!(limiter.len(), 2, "only the open window and the new one are kept");
        assert!(limiter.hit("login", "still open", long, later).is_err(), "an open window keeps counting");
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
        assert!(check(&[("sec-fetch-site", "same-origin")]));
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
