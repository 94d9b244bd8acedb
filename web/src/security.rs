//! Request-level protections: the same-origin check on state-changing requests, per-client rate
//! limits, and the client address they are keyed by.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::net::{IpAddr, Ipv6Addr};
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
/// Only the configured public URL's origin is ours (scheme, host and port); when the public URL
/// is a loopback address, so are its loopback equivalents on the same scheme and port
/// (`localhost`, `127.0.0.1`, `[::1]`), so that the default `http://localhost:PORT` also works
/// from a browser at `127.0.0.1:PORT`. The request's own `Host` counts for nothing: it is
/// whatever the caller wrote.
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
    Url::parse(origin).is_ok_and(|origin| is_public_origin(&origin, public_url))
}

/// Whether `origin` is the public URL's origin, or a loopback equivalent of a loopback one.
fn is_public_origin(origin: &Url, public_url: &Url) -> bool {
    let same_scheme_and_port = origin.scheme() == public_url.scheme() && origin.port_or_known_default() == public_url.port_or_known_default();
    let (Some(host), Some(public_host)) = (origin.host(), public_url.host()) else {
        return false;
    };
    let same_host = host == public_host || (is_loopback(&public_host) && is_loopback(&host));
    same_scheme_and_port && same_host
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(address) => address.is_loopback(),
        url::Host::Ipv6(address) => address.is_loopback(),
    }
}

/// Whether a content type is one of those an HTML form on any site can send without asking.
fn is_form_body(content_type: Option<&str>) -> bool {
    let Some(content_type) = content_type else {
        return false;
    };
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    matches!(essence.as_str(), "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain")
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

/// The client's address as every per-address limit counts it: the TCP peer, or behind a trusted
/// reverse proxy the last X-Forwarded-For hop (the one the proxy added, which the client cannot
/// forge); grouped by [`address_group`] under the configured IPv6 prefix. The one place
/// addresses are keyed.
pub fn client_ip(request: &HttpRequest, trust_proxy: bool) -> String {
    let ipv6_prefix = request.app_data::<web::Data<AppState>>().map_or(crate::config::DEFAULT_IPV6_PREFIX, |state| state.settings.ipv6_prefix);
    if trust_proxy {
        let forwarded = request.headers().get("x-forwarded-for").and_then(|value| value.to_str().ok());
        if let Some(last_hop) = forwarded.and_then(|hops| hops.rsplit(',').next()).map(str::trim) {
            if !last_hop.is_empty() {
                return last_hop.parse().map_or_else(|_| last_hop.to_owned(), |address| address_key(address, ipv6_prefix));
            }
        }
    }
    request.peer_addr().map_or_else(|| "unknown".to_owned(), |address| address_key(address.ip(), ipv6_prefix))
}

/// The group an address is counted in: an IPv4 address alone (also when written IPv4-mapped in
/// IPv6, `::ffff:a.b.c.d`), an IPv6 address by its first `ipv6_prefix` bits (one host usually
/// holds a whole /64).
pub fn address_group(address: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & prefix_mask(ipv6_prefix))),
        },
    }
}

/// The text key of an address's group: `192.0.2.1`, `2001:db8:1:2::/64`.
fn address_key(address: IpAddr, ipv6_prefix: u8) -> String {
    match address_group(address, ipv6_prefix) {
        IpAddr::V6(group) if ipv6_prefix < 128 => format!("{group}/{ipv6_prefix}"),
        group => group.to_string(),
    }
}

/// The mask of the first `prefix` bits of 128 (0 to 128).
fn prefix_mask(prefix: u8) -> u128 {
    match u32::from(prefix.min(128)) {
        0 => 0,
        bits => u128::MAX << (128 - bits),
    }
}

/// Fixed-window counters per (action, key), in memory. Windows reset on restart, which is fine
/// for throttling guessers; nothing depends on them for correctness.
///
/// Whatever a stranger sends, the limiter's memory is bounded, and no flood makes it forget a
/// count before its window ends:
/// - a key is kept only as a keyed hash of the action and the key (128 bits, under a secret made
///   at start, so nobody can aim two keys at one counter);
/// - at most `capacity` keys have an exact counter. When the table is full, counters whose window
///   has passed go first, then the keys counted least (seen once), oldest first; a key that is
///   limiting now (its count reached its maximum) is never evicted;
/// - an evicted counter's count is folded into [`Sketch`], a fixed-size count-min table that can
///   over-count but never under-count; a key's count is its exact count plus the sketch's
///   estimate, so a key at its maximum less one that is evicted by a flood is still one short of
///   its maximum afterwards;
/// - the caps on everyone together ([`GLOBAL_ACTIONS`]) have counters of their own, never
///   evicted.
///
/// Memory: about 60 bytes per exact counter (some 7 MiB at the default 100,000, with the hash
/// table's slack) plus the sketch's fixed 8 MiB.
#[derive(Clone)]
pub struct RateLimiter {
    counters: Arc<Mutex<Counters>>,
    hashers: Arc<(RandomState, RandomState)>,
}

/// The actions that count everyone together under one key: their counters are never evicted.
pub const GLOBAL_ACTIONS: [&str; 1] = ["signup-global"];

struct Counters {
    /// Exact counters of the keys seen lately, at most `capacity`.
    windows: HashMap<u128, Window>,
    /// The counters of [`GLOBAL_ACTIONS`]: one per action.
    global: HashMap<u128, Window>,
    capacity: usize,
    /// The counts of evicted counters (and of keys that found the table full of limiting ones).
    folded: Sketch,
    evicted_total: u64,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    length: Duration,
    count: u32,
    /// The key's maximum as of its last hit: with it, whether the key is limiting now.
    max: u32,
}

impl Window {
    fn ends(&self) -> Instant {
        self.started + self.length
    }

    fn is_open(&self, now: Instant) -> bool {
        now < self.ends()
    }

    fn is_limiting(&self, now: Instant) -> bool {
        self.is_open(now) && self.count >= self.max
    }
}

/// The exact counters a limiter keeps at most by default.
pub const DEFAULT_LIMITER_CAPACITY: usize = 100_000;

impl Default for RateLimiter {
    fn default() -> RateLimiter {
        RateLimiter::with_capacity(DEFAULT_LIMITER_CAPACITY)
    }
}

impl RateLimiter {
    /// A limiter keeping at most `capacity` exact counters (at least 8).
    pub fn with_capacity(capacity: usize) -> RateLimiter {
        let counters = Counters {
            windows: HashMap::new(),
            global: HashMap::new(),
            capacity: capacity.max(8),
            folded: Sketch::new(Instant::now()),
            evicted_total: 0,
        };
        RateLimiter { counters: Arc::new(Mutex::new(counters)), hashers: Arc::new((RandomState::new(), RandomState::new())) }
    }

    /// The fixed-size name of `key` under `action`.
    fn slot(&self, action: &'static str, key: &str) -> u128 {
        let (high, low) = &*self.hashers;
        (u128::from(high.hash_one((action, key))) << 64) | u128::from(low.hash_one((action, key)))
    }

    /// Counts one event; `Err(retry_after)` when the key is over its rate (then nothing is
    /// counted).
    pub fn hit(&self, action: &'static str, key: &str, rate: Rate, now: Instant) -> Result<(), Duration> {
        let slot = self.slot(action, key);
        let is_global = GLOBAL_ACTIONS.contains(&action);
        lock(&self.counters).hit(slot, is_global, rate, now)
    }

    /// Whether `key` is over its rate now, without counting anything.
    pub fn is_over(&self, action: &'static str, key: &str, rate: Rate, now: Instant) -> Option<Duration> {
        let slot = self.slot(action, key);
        let counters = lock(&self.counters);
        let window = counters.windows.get(&slot).or_else(|| counters.global.get(&slot)).filter(|window| window.is_open(now));
        let exact = window.map_or(0, |window| window.count);
        let folded = counters.folded.estimate(slot, now);
        let total = exact.saturating_add(folded.map_or(0, |(count, _)| count));
        (total >= rate.max).then(|| retry_after(window.map(Window::ends), folded.map(|(_, ends)| ends), now))
    }

    /// How many exact counters are kept now (the caps on everyone included).
    pub fn len(&self) -> usize {
        let counters = lock(&self.counters);
        counters.windows.len() + counters.global.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many open counters were folded into the sketch to make room since the start.
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

/// How long until a key over its rate may try again: until both its exact window and what the
/// sketch holds for it have ended.
fn retry_after(exact_ends: Option<Instant>, folded_ends: Option<Instant>, now: Instant) -> Duration {
    let ends = exact_ends.into_iter().chain(folded_ends).max().unwrap_or(now);
    ends.saturating_duration_since(now)
}

impl Counters {
    fn hit(&mut self, slot: u128, is_global: bool, rate: Rate, now: Instant) -> Result<(), Duration> {
        let folded = self.folded.estimate(slot, now);
        let folded_count = folded.map_or(0, |(count, _)| count);
        let folded_ends = folded.map(|(_, ends)| ends);
        let has_room = is_global || self.windows.contains_key(&slot) || self.windows.len() < self.capacity || self.make_room(now);
        if !has_room {
            // Every exact counter is limiting: this key is counted in the sketch alone.
            if folded_count >= rate.max {
                return Err(retry_after(None, folded_ends, now));
            }
            self.folded.add(slot, 1, now + rate.window, now);
            return Ok(());
        }
        let table = if is_global { &mut self.global } else { &mut self.windows };
        let fresh = Window { started: now, length: rate.window, count: 0, max: rate.max };
        let window = table.entry(slot).or_insert(fresh);
        if !window.is_open(now) {
            *window = fresh;
        }
        window.max = rate.max;
        if window.count.saturating_add(folded_count) >= rate.max {
            return Err(retry_after(Some(window.ends()), folded_ends, now));
        }
        window.count += 1;
        Ok(())
    }

    /// Makes room for a new exact counter, down to seven eighths of the capacity when it can:
    /// drops the counters whose window has passed, then folds into the sketch the ones counted
    /// least, oldest first, never a limiting one. Answers whether there is room now.
    fn make_room(&mut self, now: Instant) -> bool {
        self.windows.retain(|_, window| window.is_open(now));
        let target = self.capacity - self.capacity / 8;
        if self.windows.len() > target {
            let excess = self.windows.len() - target;
            let mut candidates: Vec<(u32, Instant, u128)> = self
                .windows
                .iter()
                .filter(|(_, window)| !window.is_limiting(now))
                .map(|(slot, window)| (window.count, window.started, *slot))
                .collect();
            let evicted = excess.min(candidates.len());
            if evicted > 0 && evicted < candidates.len() {
                candidates.select_nth_unstable(evicted - 1);
            }
            for (_, _, slot) in candidates.into_iter().take(evicted) {
                if let Some(window) = self.windows.remove(&slot) {
                    self.folded.add(slot, window.count, window.ends(), now);
                    self.evicted_total += 1;
                }
            }
        }
        self.windows.len() < self.capacity
    }
}

/// Rows of the sketch: a key's estimate is the least of its cells in each row.
const SKETCH_ROWS: usize = 4;
/// Cells per row (2^18): 8 bytes each, so the sketch is 8 MiB whatever is folded into it.
const SKETCH_WIDTH: usize = 1 << 18;

/// A count-min sketch of the counts evicted from the exact table. Each cell holds a count and the
/// latest end of the windows folded into it; a cell whose end has passed counts nothing and starts
/// afresh. A key's estimate is at least its true folded count while any of its windows is open
/// (each of its cells received its count, and keeps it until the latest window folded into that
/// cell ends): collisions only add.
struct Sketch {
    /// Each cell packed in a `u64` (the count in the high half, the end in the low half), so the
    /// table is allocated zeroed and costs memory only where a count was folded.
    cells: Vec<u64>,
    /// Cell ends are whole seconds since this instant.
    epoch: Instant,
}

#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    count: u32,
    ends_secs: u32,
}

impl Cell {
    fn unpack(packed: u64) -> Cell {
        Cell { count: (packed >> 32) as u32, ends_secs: packed as u32 }
    }

    fn pack(self) -> u64 {
        (u64::from(self.count) << 32) | u64::from(self.ends_secs)
    }
}

impl Sketch {
    fn new(epoch: Instant) -> Sketch {
        Sketch { cells: vec![0; SKETCH_ROWS * SKETCH_WIDTH], epoch }
    }

    /// The cell of `slot` in each row: each row reads its own 32 bits of the keyed hash.
    fn cells_of(slot: u128) -> [usize; SKETCH_ROWS] {
        std::array::from_fn(|row| {
            let bits = (slot >> (32 * row)) as u32 as usize;
            row * SKETCH_WIDTH + bits % SKETCH_WIDTH
        })
    }

    /// Seconds since the epoch, rounded down (now) or up (an end), so a cell never ends early.
    fn secs_floor(&self, at: Instant) -> u32 {
        u32::try_from(at.saturating_duration_since(self.epoch).as_secs()).unwrap_or(u32::MAX)
    }

    fn secs_ceil(&self, at: Instant) -> u32 {
        let since = at.saturating_duration_since(self.epoch);
        let whole = since.as_secs().saturating_add(u64::from(since.subsec_nanos() > 0));
        u32::try_from(whole).unwrap_or(u32::MAX)
    }

    /// Folds `count` events of `slot`, counted in a window ending at `ends`.
    fn add(&mut self, slot: u128, count: u32, ends: Instant, now: Instant) {
        if count == 0 {
            return;
        }
        let (now_secs, ends_secs) = (self.secs_floor(now), self.secs_ceil(ends));
        for index in Sketch::cells_of(slot) {
            let cell = Cell::unpack(self.cells[index]);
            let folded = if cell.ends_secs <= now_secs {
                Cell { count, ends_secs }
            } else {
                Cell { count: cell.count.saturating_add(count), ends_secs: cell.ends_secs.max(ends_secs) }
            };
            self.cells[index] = folded.pack();
        }
    }

    /// What was folded for `slot` and has not ended: the count (never less than the truth) and
    /// when it ends; none when nothing is.
    fn estimate(&self, slot: u128, now: Instant) -> Option<(u32, Instant)> {
        let now_secs = self.secs_floor(now);
        let least = Sketch::cells_of(slot)
            .into_iter()
            .map(|index| Cell::unpack(self.cells[index]))
            .map(|cell| if cell.ends_secs > now_secs { cell } else { Cell::default() })
            .min_by_key(|cell| cell.count)?;
        (least.count > 0).then(|| (least.count, self.epoch + Duration::from_secs(u64::from(least.ends_secs))))
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
    fn a_full_limiter_drops_passed_windows_first_then_the_least_counted() {
        let limiter = RateLimiter::with_capacity(80);
        let short = Rate { max: 1, window: Duration::from_secs(60) };
        let long = Rate { max: 3, window: Duration::from_secs(3600) };
        let start = Instant::now();
        assert!(limiter.hit("login", "counted twice", long, start).is_ok());
        assert!(limiter.hit("login", "counted twice", long, start).is_ok());
        for address in 0..79 {
            assert!(limiter.hit("reset-password", &address.to_string(), short, start + Duration::from_secs(1)).is_ok());
        }
        assert_eq!(limiter.len(), 80);
        let later = start + Duration::from_secs(62);
        assert!(limiter.hit("signup", "new", short, later).is_ok());
        assert_eq!(limiter.len(), 2, "only the open window and the new one are kept");
        assert_eq!(limiter.evicted_total(), 0, "passed windows are not counted as evicted");

        for address in 0..200 {
            let at = later + Duration::from_millis(address);
            assert!(limiter.hit("login", &format!("flood {address}"), long, at).is_ok());
            assert!(limiter.len() <= 80, "never more than the capacity");
        }
        assert!(limiter.evicted_total() > 0);
        let counters = limiter.counters.lock().expect("lock");
        let twice = limiter.slot("login", "counted twice");
        assert_eq!(counters.windows.get(&twice).map(|window| window.count), Some(2), "keys seen once go before one seen twice");
    }

    #[test]
    fn a_limiting_key_survives_a_flood_of_a_million_new_keys() {
        let limiter = RateLimiter::with_capacity(64);
        let guesses = Rate { max: 5, window: Duration::from_secs(3600) };
        let start = Instant::now();
        for _ in 0..5 {
            assert!(limiter.hit("login-account", "ada@example.org", guesses, start).is_ok());
        }
        assert!(limiter.hit("login-account", "ada@example.org", guesses, start).is_err(), "the account refuses guesses");
        for index in 0..1_000_000u32 {
            let at = start + Duration::from_micros(u64::from(index));
            let _ = limiter.hit("login-account", &format!("flood{index}@example.org"), guesses, at);
            let _ = limiter.hit("login-address", &format!("10.{}.{}.{}", index >> 16, (index >> 8) & 255, index & 255), guesses, at);
        }
        assert!(limiter.len() <= 64, "{}", limiter.len());
        assert!(limiter.evicted_total() > 1_000_000);
        let after = start + Duration::from_secs(10);
        let refused = limiter.hit("login-account", "ada@example.org", guesses, after);
        assert!(refused.is_err(), "the flood did not reset the account's limit");
        assert!(refused.err().is_some_and(|retry| retry <= Duration::from_secs(3600)), "until about its window's end");
        assert!(limiter.hit("login-account", "ada@example.org", guesses, start + Duration::from_secs(3601)).is_ok(), "and then it ends");
    }

    #[test]
    fn a_key_one_short_of_its_maximum_cannot_be_reset_by_a_flood() {
        let limiter = RateLimiter::with_capacity(64);
        let guesses = Rate { max: 10, window: Duration::from_secs(900) };
        let start = Instant::now();
        for _ in 0..9 {
            assert!(limiter.hit("login", "203.0.113.9 ada@example.org", guesses, start).is_ok());
        }
        // Keys counted as often as the target, and newer: the target is the first to go.
        for index in 0..10_000u32 {
            let at = start + Duration::from_micros(u64::from(index));
            for _ in 0..9 {
                assert!(limiter.hit("login", &format!("203.0.113.9 flood{index}@example.org"), guesses, at).is_ok());
            }
        }
        let slot = limiter.slot("login", "203.0.113.9 ada@example.org");
        assert!(!lock(&limiter.counters).windows.contains_key(&slot), "the flood evicted the counter");
        let later = start + Duration::from_secs(1);
        assert!(limiter.hit("login", "203.0.113.9 ada@example.org", guesses, later).is_ok(), "its tenth guess");
        assert!(limiter.hit("login", "203.0.113.9 ada@example.org", guesses, later).is_err(), "and no eleventh");
        assert!(limiter.is_over("login", "203.0.113.9 ada@example.org", guesses, later).is_some());
    }

    #[test]
    fn the_cap_on_everyone_holds_through_a_flood() {
        let limiter = RateLimiter::with_capacity(16);
        let cap = Rate { max: 3, window: Duration::from_secs(3600) };
        let per_address = Rate { max: 1, window: Duration::from_secs(3600) };
        let start = Instant::now();
        for _ in 0..2 {
            assert!(limiter.hit("signup-global", "", cap, start).is_ok());
        }
        for index in 0..10_000 {
            let _ = limiter.hit("signup", &format!("198.51.100.{index}"), per_address, start);
        }
        assert!(limiter.hit("signup-global", "", cap, start).is_ok(), "the third signup");
        assert!(limiter.hit("signup-global", "", cap, start).is_err(), "the cap refuses the fourth");
        assert_eq!(lock(&limiter.counters).global.len(), 1);
    }

    #[test]
    fn the_sketch_never_counts_less_and_forgets_what_ended() {
        let start = Instant::now();
        let mut sketch = Sketch::new(start);
        let ends = start + Duration::from_millis(1_500);
        sketch.add(7, 3, ends, start);
        sketch.add(7 << 64, 2, start + Duration::from_secs(60), start);
        assert!(sketch.estimate(7, start).is_some_and(|(count, until)| count >= 3 && until >= ends));
        assert_eq!(sketch.estimate(99, start), None, "an unseen key with no collision counts nothing");
        assert_eq!(sketch.estimate(7, start + Duration::from_secs(2)).map(|(count, _)| count), None, "its window ended");
    }

    #[test]
    fn addresses_are_grouped_by_their_network() {
        let group = |text: &str, prefix: u8| address_key(text.parse().expect("an address"), prefix);
        assert_eq!(group("192.0.2.7", 64), "192.0.2.7");
        assert_eq!(group("::ffff:192.0.2.7", 64), "192.0.2.7", "an IPv4-mapped address is its IPv4 address");
        assert_eq!(group("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64), "2001:db8:1:2::/64");
        assert_eq!(group("2001:db8:1:2:ffff::1", 64), group("2001:db8:1:2::9", 64), "one /64 is one client");
        assert_ne!(group("2001:db8:1:3::1", 64), group("2001:db8:1:2::1", 64));
        assert_eq!(group("2001:db8:1:2:aaaa::1", 48), "2001:db8:1::/48");
        assert_eq!(group("2001:db8::1", 128), "2001:db8::1");
        let request = TestRequest::get().peer_addr("[2001:db8:5:6:7:8:9:a]:4000".parse().expect("addr")).to_http_request();
        assert_eq!(client_ip(&request, false), "2001:db8:5:6::/64", "the default prefix without settings");
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
        assert!(!check(&[("origin", "https://papers.example.org:8443")]), "port must match");
        assert!(!check(&[("origin", "https://127.0.0.1:8080"), ("host", "127.0.0.1:8080")]), "the request's own Host is not ours");
        assert!(!check(&[("origin", "http://evil.example"), ("host", "evil.example")]));
        assert!(!check(&[("origin", "https://localhost")]), "loopback equivalents only for a loopback public URL");
        assert!(!check(&[("origin", "null")]));
    }

    #[test]
    fn a_loopback_public_url_accepts_its_loopback_equivalents_only() {
        let public = Url::parse("http://localhost:8080").expect("url");
        let check = |origin: &str| is_same_origin(&TestRequest::post().insert_header(("origin", origin)).to_http_request(), &public);
        for same in ["http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080", "http://LOCALHOST:8080"] {
            assert!(check(same), "{same}");
        }
        for other in
            ["https://localhost:8080", "http://127.0.0.1:8081", "http://localhost", "http://papers.example.org:8080", "http://192.168.1.2:8080"]
        {
            assert!(!check(other), "{other}");
        }
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
