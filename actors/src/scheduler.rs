//! The [`Scheduler`]: every few minutes it finds the users whose weekly digest is due
//! (`engine::digest::weekly_action`: their delivery day, from the configured UTC hour, once a
//! week; free plans get two digests, then one upgrade invitation) and serves them in batches
//! ([`crate::weekly`]), one digest per active term; one pass at a time. A pass that fails for one
//! user is logged and the others go on. A crash mid-pass repeats nothing already recorded: a
//! user's digests are stored with their mails and ledger in one transaction, and a user counts as
//! served once their digests of the week are stored.

use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use store::Store;

use crate::status::StatusBoard;
use crate::users::UserActors;
use crate::weekly::WeeklyError;

const ACTOR_NAME: &str = "scheduler";

/// When the scheduler looks and what hour digests start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleConfig {
    pub hour: u32,
    pub interval: Duration,
}

/// Serve every user whose weekly digest is due at `now`; answers how many digests went out.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<usize, WeeklyError>")]
pub struct RunDue {
    pub now: DateTime<Utc>,
}

pub struct Scheduler {
    store: Store,
    users: UserActors,
    config: ScheduleConfig,
    board: StatusBoard,
    running: bool,
}

impl Scheduler {
    pub fn new(store: Store, users: UserActors, config: ScheduleConfig, board: StatusBoard) -> Scheduler {
        Scheduler { store, users, config, board, running: false }
    }

    pub fn start_supervised(self) -> Addr<Scheduler> {
        Supervisor::start(move |_| self)
    }
}

impl Actor for Scheduler {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.board.register(ACTOR_NAME);
        ctx.run_interval(self.config.interval, |_, ctx| {
            ctx.address().do_send(RunDue { now: Utc::now() });
        });
    }
}

impl Supervised for Scheduler {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.running = false;
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<RunDue> for Scheduler {
    type Result = ResponseActFuture<Self, Result<usize, WeeklyError>>;

    fn handle(&mut self, RunDue { now }: RunDue, _: &mut Self::Context) -> Self::Result {
        if self.running {
            return Box::pin(fut::ready(Ok(0)));
        }
        self.running = true;
        let (store, users, hour) = (self.store.clone(), self.users.clone(), self.config.hour);
        let pass = async move { serve_due_users(&store, &users, now, hour).await };
        Box::pin(pass.into_actor(self).map(|outcome, scheduler, _| {
            scheduler.running = false;
            match &outcome {
                Ok(sent) => scheduler.board.record_success(ACTOR_NAME, *sent as u64, Utc::now()),
                Err(error) => scheduler.board.record_failure(ACTOR_NAME, error, Utc::now()),
            }
            outcome
        }))
    }
}

/// One pass: every due user served ([`crate::weekly`], on the users' worker count of threads);
/// returns the digests recorded.
pub async fn serve_due_users(store: &Store, users: &UserActors, now: DateTime<Utc>, hour: u32) -> Result<usize, WeeklyError> {
    let (store, users) = (store.clone(), users.clone());
    actix_rt::task::spawn_blocking(move || crate::weekly::serve_due(&store, users.digester(), users.mail(), now, hour, users.workers()))
        .await
        .map_err(|error| WeeklyError::Stopped(error.to_string()))?
}
