//! Pacing: a minimum interval between the starts of requests to one source, shared by every
//! caller of that source's client.
//!
//! Guarantees of a [`Pacer`] and its clones:
//! - two request starts are at least `interval` apart, measured between the instants the
//!   starts were granted (so a caller woken late never squeezes the next one);
//! - callers are served in arrival order (a fair `tokio` mutex);
//! - after [`Pacer::defer_until`] (a source's `Retry-After`) no request starts before that
//!   instant, for any caller;
//! - with `max_in_flight`, at most that many requests are open at once (arXiv allows one
//!   connection); the [`RequestSlot`] holds the place until it is dropped.
//!
//! The clock is tokio's, so tests may pause it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep_until, Instant};

/// Spaces out request starts. Cheap to clone; clones share the schedule.
#[derive(Debug, Clone)]
pub struct Pacer {
    interval: Duration,
    schedule: Arc<Mutex<Schedule>>,
    in_flight: Option<Arc<Semaphore>>,
}

/// The right to send one request now. Keep it until the answer has been read.
#[derive(Debug)]
pub struct RequestSlot {
    _in_flight: Option<OwnedSemaphorePermit>,
}

#[derive(Debug, Default)]
struct Schedule {
    last_start: Option<Instant>,
    not_before: Option<Instant>,
}

impl Pacer {
    /// A pacer granting one start per `interval`, with at most `max_in_flight` requests open at
    /// once (`None`: no limit beyond the interval).
    pub fn new(interval: Duration, max_in_flight: Option<usize>) -> Pacer {
        let in_flight = max_in_flight.map(|permits| Arc::new(Semaphore::new(permits.max(1))));
        Pacer { interval, schedule: Arc::new(Mutex::new(Schedule::default())), in_flight }
    }

    /// Waits for this caller's turn and returns the slot to send one request in.
    pub async fn start_request(&self) -> RequestSlot {
        // The semaphore is never closed, so acquiring fails only if that changes; then pacing
        // by the interval alone is the safe fallback.
        let in_flight = match &self.in_flight {
            Some(semaphore) => Arc::clone(semaphore).acquire_owned().await.ok(),
            None => None,
        };
        let mut schedule = self.schedule.lock().await;
        let next_by_interval = schedule.last_start.map(|last_start| last_start + self.interval);
        if let Some(earliest) = next_by_interval.into_iter().chain(schedule.not_before).max() {
            sleep_until(earliest).await;
        }
        schedule.last_start = Some(Instant::now());
        RequestSlot { _in_flight: in_flight }
    }

    /// No request of any caller starts before `instant` (later calls can only push it further).
    pub async fn defer_until(&self, instant: Instant) {
        let mut schedule = self.schedule.lock().await;
        schedule.not_before = schedule.not_before.max(Some(instant));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts `callers` concurrent requests through one pacer and returns their start times.
    async fn start_times(pacer: &Pacer, callers: usize) -> Vec<Instant> {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..callers {
            let pacer = pacer.clone();
            tasks.spawn(async move {
                let _slot = pacer.start_request().await;
                Instant::now()
            });
        }
        let mut starts = Vec::new();
        while let Some(start) = tasks.join_next().await {
            starts.push(start.expect("task"));
        }
        starts.sort();
        starts
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_callers_start_an_interval_apart() {
        let pacer = Pacer::new(Duration::from_millis(300), None);
        let began = Instant::now();
        let starts = start_times(&pacer, 5).await;
        assert_eq!(starts[0], began, "the first request waits for nobody");
        for pair in starts.windows(2) {
            assert!(pair[1] - pair[0] >= Duration::from_millis(300), "{:?}", pair[1] - pair[0]);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_deferral_holds_every_caller() {
        let pacer = Pacer::new(Duration::from_millis(10), None);
        let began = Instant::now();
        pacer.defer_until(began + Duration::from_secs(2)).await;
        pacer.defer_until(began + Duration::from_secs(1)).await;
        let starts = start_times(&pacer, 2).await;
        assert!(starts[0] >= began + Duration::from_secs(2), "a shorter deferral must not shorten a longer one");
    }

    #[tokio::test(start_paused = true)]
    async fn one_in_flight_waits_for_the_open_request() {
        let pacer = Pacer::new(Duration::from_millis(10), Some(1));
        let first = pacer.start_request().await;
        let waiting = {
            let pacer = pacer.clone();
            tokio::spawn(async move {
                let _slot = pacer.start_request().await;
                Instant::now()
            })
        };
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!waiting.is_finished(), "a second request started while the first was open");
        let released_at = Instant::now();
        drop(first);
        assert!(waiting.await.expect("task") >= released_at);
    }
}
