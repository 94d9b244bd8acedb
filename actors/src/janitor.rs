//! The janitor: drops expired sessions and one-time tokens every hour, and the accounts never
//! verified within their verification window, so the database does not grow with abandoned
//! sign-ins and no signup made in someone else's name waits for its owner.

use std::time::Duration;

use actix::prelude::*;
use chrono::Utc;
use store::Store;

use crate::status::StatusBoard;

pub const ACTOR_NAME: &str = "janitor";
const PURGE_INTERVAL: Duration = Duration::from_secs(3600);

/// Drop what has expired now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct PurgeExpired;

pub struct Janitor {
    store: Store,
    board: StatusBoard,
}

impl Janitor {
    pub fn new(store: Store, board: StatusBoard) -> Janitor {
        Janitor { store, board }
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
        ctx.notify(PurgeExpired);
    }
}

impl Supervised for Janitor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<PurgeExpired> for Janitor {
    type Result = ();

    fn handle(&mut self, _: PurgeExpired, _: &mut Self::Context) {
        let now = Utc::now();
        let purged = self.store.purge_expired_sessions(now).and_then(|sessions| {
            let tokens = self.store.purge_expired_tokens(now)?;
            let unverified = self.store.remove_expired_unverified(now)?;
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
