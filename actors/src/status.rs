//! A small, shared board where each actor reports how it is doing, for `/healthz` and `/metrics`.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
use engine::sync::{read, write};
use serde::Serialize;

/// What an actor last did and how often it was restarted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorStatus {
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub restarts: u32,
    /// Working now (a harvester in the middle of a run).
    pub busy: bool,
    /// Work waiting for the actor (queued mail for the mailer, papers without a current vector
    /// for the vectorizer).
    pub queue_depth: u64,
    /// How many of the things the actor keeps current are current now (papers with a vector of
    /// the model in use, for the vectorizer).
    pub up_to_date: u64,
    /// Units of work done since start (mails handed over, records purged).
    pub processed_total: u64,
    /// Units of work that failed since start.
    pub failed_total: u64,
    /// Milliseconds spent on the work done since start (embedding, for the vectorizer): with
    /// `processed_total`, the actor's rate.
    pub work_millis_total: u64,
}

/// Cheap to clone; every clone sees the same board.
#[derive(Debug, Clone, Default)]
pub struct StatusBoard {
    inner: Arc<RwLock<BTreeMap<&'static str, ActorStatus>>>,
}

impl ActorStatus {
    /// `processed` more units of work done, the last at `at`.
    pub fn record_success(&mut self, processed: u64, at: DateTime<Utc>) {
        self.processed_total += processed;
        self.last_success_at = Some(at);
    }

    /// Units of work done a second while working, since start; none before any was timed.
    pub fn per_second(&self) -> Option<f64> {
        (self.work_millis_total > 0 && self.processed_total > 0).then(|| self.processed_total as f64 * 1000.0 / self.work_millis_total as f64)
    }

    /// Hours the waiting work takes at [`ActorStatus::per_second`], rounded up to a tenth; zero
    /// when nothing waits, none when nothing was timed yet.
    pub fn hours_left(&self) -> Option<f64> {
        if self.queue_depth == 0 {
            return Some(0.0);
        }
        self.per_second().map(|rate| (self.queue_depth as f64 / rate / 360.0).ceil() / 10.0)
    }

    /// One unit of work failed at `at` with `error`.
    pub fn record_failure(&mut self, error: impl ToString, at: DateTime<Utc>) {
        self.failed_total += 1;
        self.last_error_at = Some(at);
        self.last_error = Some(error.to_string());
    }
}

impl StatusBoard {
    /// Changes one actor's entry (created with defaults on first use). The methods below are
    /// the common changes; this is for the rest.
    pub fn update(&self, actor: &'static str, change: impl FnOnce(&mut ActorStatus)) {
        let mut board = write(&self.inner);
        change(board.entry(actor).or_default());
    }

    /// Shows `actor` on the board (with a default entry) before it reports anything.
    pub fn register(&self, actor: &'static str) {
        self.update(actor, |_| {});
    }

    /// Counts one restart of `actor` by its supervisor.
    pub fn record_restart(&self, actor: &'static str) {
        self.update(actor, |status| status.restarts += 1);
    }

    /// Marks `actor` as working now or not.
    pub fn set_busy(&self, actor: &'static str, busy: bool) {
        self.update(actor, |status| status.busy = busy);
    }

    /// See [`ActorStatus::record_success`].
    pub fn record_success(&self, actor: &'static str, processed: u64, at: DateTime<Utc>) {
        self.update(actor, |status| status.record_success(processed, at));
    }

    /// See [`ActorStatus::record_failure`].
    pub fn record_failure(&self, actor: &'static str, error: impl ToString, at: DateTime<Utc>) {
        self.update(actor, |status| status.record_failure(error, at));
    }

    /// A copy of every entry, by actor name.
    pub fn snapshot(&self) -> BTreeMap<&'static str, ActorStatus> {
        read(&self.inner).clone()
    }

    pub fn get(&self, actor: &str) -> Option<ActorStatus> {
        read(&self.inner).get(actor).cloned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hours_left_come_from_the_rate_of_the_timed_work() {
        let mut status = super::ActorStatus { queue_depth: 36_000, ..Default::default() };
        assert_eq!((status.per_second(), status.hours_left()), (None, None), "nothing timed yet");
        status.processed_total = 100;
        status.work_millis_total = 10_000;
        assert_eq!(status.per_second(), Some(10.0));
        assert_eq!(status.hours_left(), Some(1.0), "36,000 papers at 10 a second");
        status.queue_depth = 36_001;
        assert_eq!(status.hours_left(), Some(1.1), "rounded up to a tenth");
        status.queue_depth = 0;
        assert_eq!(status.hours_left(), Some(0.0));
    }
}
