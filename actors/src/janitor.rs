//! The janitor: drops expired sessions and one-time tokens every hour, and the accounts never
//! verified within their verification window, so the database does not grow with abandoned
//! sign-ins and no signup made in someone else's name waits for its owner. And it erases deleted
//! accounts from the disk: it looks every few seconds whether a compaction is due (see
//! [`store::compaction`]) and runs it on a blocking thread, at most one every
//! [`MIN_COMPACTION_SPACING`].

use std::time::{Duration, Instant};

use actix::prelude::*;
use chrono::Utc;
use store::Store;

use crate::status::StatusBoard;

pub const ACTOR_NAME: &str = "janitor";
const PURGE_INTERVAL: Duration = Duration::from_secs(3600);
/// How often the janitor looks whether a compaction is due.
const ERASURE_INTERVAL: Duration = Duration::from_secs(5);
/// The least time from one compaction's start to the next: many deletions in a row share one.
pub const MIN_COMPACTION_SPACING: Duration = Duration::from_secs(60);

/// Drop what has expired now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct PurgeExpired;

/// Compact the database when deleted accounts wait to be erased from the disk.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct EraseDeleted;

pub struct Janitor {
    store: Store,
    board: StatusBoard,
    /// When the compaction under way or the last one started.
    compacted_at: Option<Instant>,
    compacting: bool,
}

impl Janitor {
    pub fn new(store: Store, board: StatusBoard) -> Janitor {
        Janitor { store, board, compacted_at: None, compacting: false }
    }

    pub fn start_supervised(self) -> Addr<Janitor> {
        Supervisor::start(move |_| self)
    }
}

impl Actor for Janitor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.set_mailbox_capacity(4);
        ctx.run_interval(PURGE_INTERVAL, |_, ctx| ctx.notify(PurgeExpired));
        ctx.run_interval(ERASURE_INTERVAL, |_, ctx| ctx.notify(EraseDeleted));
        ctx.notify(PurgeExpired);
        ctx.notify(EraseDeleted);
    }
}

impl Supervised for Janitor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.compacting = false;
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<EraseDeleted> for Janitor {
    type Result = ();

    fn handle(&mut self, _: EraseDeleted, ctx: &mut Self::Context) {
        let too_soon = self.compacted_at.is_some_and(|at| at.elapsed() < MIN_COMPACTION_SPACING);
        if self.compacting || too_soon {
            return;
        }
        match self.store.compaction_due(Utc::now()) {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => {
                tracing::error!(%error, "looking whether deleted accounts wait to be erased");
                self.board.record_failure(ACTOR_NAME, error, Utc::now());
                return;
            }
        }
        self.compacting = true;
        self.compacted_at = Some(Instant::now());
        let store = self.store.clone();
        let compaction = async move { tokio::task::spawn_blocking(move || store.compact()).await };
        ctx.spawn(compaction.into_actor(self).map(|outcome, janitor, _| {
            janitor.compacting = false;
            let failure = match outcome {
                Ok(Ok(_)) => return,
                Ok(Err(error)) => error.to_string(),
                Err(join) => format!("the compaction stopped: {join}"),
            };
            tracing::error!(error = %failure, "compacting the database to erase deleted accounts; tried again in a minute");
            janitor.board.record_failure(ACTOR_NAME, failure, Utc::now());
        }));
    }
}

impl Handler<PurgeExpired> for Janitor {
    type Result = ();

    fn handle(&mut self, _: PurgeExpired, _: &mut Self::Context) {
        let now = Utc::now();
        let purged = self.store.accounts().purge_expired_sessions(now).and_then(|sessions| {
            let tokens = self.store.accounts().purge_expired_tokens(now)?;
            let unverified = self.store.accounts().remove_expired_unverified(now)?;
            if unverified > 0 {
                tracing::info!(accounts = unverified, "unverified accounts removed at the end of their verification window");
            }
            Ok(sessions + tokens + unverified)
        });
        match purged {
            Ok(count) => self.board.record_success(ACTOR_NAME, count as u64, now),
            Err(error) => {
                tracing::error!(%error, "purging expired sessions and tokens");
                self.board.record_failure(ACTOR_NAME, error, now);
            }
        }
    }
}
