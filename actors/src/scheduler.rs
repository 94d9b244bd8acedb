//! The [`Scheduler`]: every few minutes it finds the users whose weekly digest is due
//! (`engine::digest::weekly_action`: their delivery day, from the configured UTC hour, once a
//! week; free plans get two digests, then one upgrade invitation) and hands each to their own
//! actor ([`crate::users`]), which builds one digest per active term; users' work runs side by
//! side, one pass at a time. A pass that fails for one user is logged and the others go on. A
//! crash mid-pass repeats nothing already recorded: each digest is stored with its mail in one
//! transaction, and a user counts as served once their digest of the week is stored.

use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use engine::digest::{weekly_action, DigestHistory, WeeklyAction};
use engine::UserId;
use futures_util::stream::{FuturesUnordered, StreamExt};
use store::Store;

use crate::status::StatusBoard;
use crate::users::UserActors;
pub use crate::users::UPGRADE_INVITE;

const ACTOR_NAME: &str = "scheduler";
/// How many users' weekly work a pass has in flight at once (their actors queue for the
/// workers; this bounds the pass's memory, not its speed).
const IN_FLIGHT: usize = 4096;

/// When the scheduler looks and what hour digests start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleConfig {
    pub hour: u32,
    pub interval: Duration,
}

/// Serve every user whose weekly digest is due at `now`; answers how many digests went out.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<usize, String>")]
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
        self.board.update(ACTOR_NAME, |_| {});
        ctx.run_interval(self.config.interval, |_, ctx| {
            ctx.address().do_send(RunDue { now: Utc::now() });
        });
    }
}

impl Supervised for Scheduler {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.running = false;
        self.board.update(ACTOR_NAME, |status| status.restarts += 1);
    }
}

impl Handler<RunDue> for Scheduler {
    type Result = ResponseActFuture<Self, Result<usize, String>>;

    fn handle(&mut self, RunDue { now }: RunDue, _: &mut Self::Context) -> Self::Result {
        if self.running {
            return Box::pin(fut::ready(Ok(0)));
        }
        self.running = true;
        let (store, users, hour) = (self.store.clone(), self.users.clone(), self.config.hour);
        let pass = async move { serve_due_users(&store, &users, now, hour).await };
        Box::pin(pass.into_actor(self).map(|outcome, scheduler, _| {
            scheduler.running = false;
            scheduler.board.update(ACTOR_NAME, |status| match &outcome {
                Ok(sent) => {
                    status.processed_total += *sent as u64;
                    status.last_success_at = Some(Utc::now());
                }
                Err(error) => {
                    status.failed_total += 1;
                    status.last_error_at = Some(Utc::now());
                    status.last_error = Some(error.clone());
                }
            });
            outcome
        }))
    }
}

/// One pass: every due user served by their actor; returns the digests sent.
pub async fn serve_due_users(store: &Store, users: &UserActors, now: DateTime<Utc>, hour: u32) -> Result<usize, String> {
    let reading = store.clone();
    let due = actix_rt::task::spawn_blocking(move || maybe_due(&reading, now, hour))
        .await
        .map_err(|error| format!("reading the users stopped abnormally: {error}"))??;
    let mut sent = 0;
    let mut pending = due.into_iter();
    let mut in_flight = FuturesUnordered::new();
    loop {
        while in_flight.len() < IN_FLIGHT {
            let Some(user_id) = pending.next() else { break };
            in_flight.push(async move { (user_id, users.weekly(user_id, now, hour).await) });
        }
        let Some((user_id, outcome)) = in_flight.next().await else { break };
        match outcome {
            Ok(count) => sent += count,
            Err(error) => tracing::error!(user = %user_id, %error, "a weekly digest failed; the others go on"),
        }
    }
    // Digests are not flushed one by one (the mailer flushes before it sends); the pass ends
    // with everything durable.
    store.flush_async().await.map_err(|error| error.to_string())?;
    Ok(sent)
}

/// The users who may be due at `now`: active, verified, and it is their delivery day and hour.
/// Most users are not due at any given pass, and this is settled from their preferences alone,
/// before their digests are read.
fn maybe_due(store: &Store, now: DateTime<Utc>, hour: u32) -> Result<Vec<UserId>, String> {
    let mut due = Vec::new();
    for user in store.users().map_err(|error| error.to_string())? {
        if !(user.is_active && user.is_email_verified) {
            continue;
        }
        let preferences = store.preferences(user.id).map_err(|error| error.to_string())?;
        // Only the signup date and the preferences settle it here; the user's actor reads the rest.
        let history = DigestHistory { signed_up_at: user.created_at, ..DigestHistory::default() };
        if weekly_action(&preferences, user.subscription_tier, &history, now, hour) != WeeklyAction::Wait {
            due.push(user.id);
        }
    }
    Ok(due)
}
