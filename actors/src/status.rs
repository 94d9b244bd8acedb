//! A small, shared board where each actor reports how it is doing, for `/healthz` and `/metrics`.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
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
}

/// Cheap to clone; every clone sees the same board.
#[derive(Debug, Clone, Default)]
pub struct StatusBoard {
    inner: Arc<RwLock<BTreeMap<&'static str, ActorStatus>>>,
}

impl StatusBoard {
    /// Changes one actor's entry (created with defaults on first use).
    pub fn update(&self, actor: &'static str, change: impl FnOnce(&mut ActorStatus)) {
        let mut board = self.inner.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        change(board.entry(actor).or_default());
    }

    /// A copy of every entry, by actor name.
    pub fn snapshot(&self) -> BTreeMap<&'static str, ActorStatus> {
        self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    pub fn get(&self, actor: &str) -> Option<ActorStatus> {
        self.inner.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(actor).cloned()
    }
}
