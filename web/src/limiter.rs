//! Per-client rate limits: fixed-window counters per (action, key), in memory, with bounded
//! memory whatever a stranger sends.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::sync::lock;

use crate::config::Rate;
use crate::error::ApiError;

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
}
