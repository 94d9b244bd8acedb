//! The [`Scheduler`]: every few minutes it finds the users whose weekly digest is due
//! (`engine::digest::weekly_action`: their delivery day, from the configured UTC hour, once a
//! week; free plans get two digests, then one upgrade invitation) and has the [`Digester`] build
//! one digest per active term. The work runs on a blocking thread, one pass at a time; a pass
//! that fails for one user is logged and the others go on. A crash mid-pass repeats nothing
//! already recorded: each digest is stored with its mail in one transaction, and a user counts
//! as served once their digest of the week is stored.

use std::time::Duration;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use engine::digest::{weekly_action, WeeklyAction};
use engine::mail::{upgrade_invite_mail, MailContext};
use store::Store;

use crate::digester::Digester;
use crate::status::StatusBoard;

const ACTOR_NAME: &str = "scheduler";
/// The notice recorded once a free user was invited to upgrade.
pub const UPGRADE_INVITE: &str = "upgrade-invite";

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
    digester: Digester,
    mail: MailContext,
    config: ScheduleConfig,
    board: StatusBoard,
    running: bool,
}

impl Scheduler {
    pub fn new(store: Store, digester: Digester, mail: MailContext, config: ScheduleConfig, board: StatusBoard) -> Scheduler {
        Scheduler { store, digester, mail, config, board, running: false }
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
        let (store, digester, mail, hour) = (self.store.clone(), self.digester.clone(), self.mail.clone(), self.config.hour);
        let pass = actix_rt::task::spawn_blocking(move || serve_due_users(&store, &digester, &mail, now, hour));
        Box::pin(pass.into_actor(self).map(|joined, scheduler, _| {
            scheduler.running = false;
            let outcome = joined.map_err(|error| format!("the digest pass stopped abnormally: {error}")).and_then(|sent| sent);
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

/// One pass: every due user served; returns the digests sent.
pub fn serve_due_users(store: &Store, digester: &Digester, mail: &MailContext, now: DateTime<Utc>, hour: u32) -> Result<usize, String> {
    let users = store.users().map_err(|error| error.to_string())?;
    let mut sent = 0;
    for user in users.into_iter().filter(|user| user.is_active && user.is_email_verified) {
        let served = (|| -> Result<usize, String> {
            let preferences = store.preferences(user.id).map_err(|error| error.to_string())?;
            // Most users are not due at any given pass: settle that from the preferences alone
            // before reading their stored digests.
            if weekly_action(&preferences, user.subscription_tier, None, 0, false, now, hour) == WeeklyAction::Wait {
                return Ok(0);
            }
            let stats = store.digest_stats(user.id).map_err(|error| error.to_string())?;
            let invited = store.notice_sent(user.id, UPGRADE_INVITE).map_err(|error| error.to_string())?;
            match weekly_action(&preferences, user.subscription_tier, stats.last_weekly, stats.received, invited, now, hour) {
                WeeklyAction::Wait | WeeklyAction::Done => Ok(0),
                WeeklyAction::InviteUpgrade => {
                    store.enqueue_mail(&upgrade_invite_mail(mail, &user.email), Utc::now()).map_err(|error| error.to_string())?;
                    store.mark_notice(user.id, UPGRADE_INVITE, now).map_err(|error| error.to_string())?;
                    Ok(0)
                }
                WeeklyAction::Send => {
                    let terms = store.search_terms(user.id).map_err(|error| error.to_string())?;
                    let mut count = 0;
                    for term in terms.iter().filter(|term| term.is_active) {
                        digester.run(&user, &term.term, "weekly", now).map_err(|error| error.to_string())?;
                        store
                            .update_search_term(term.id, |stored| stored.last_processed_at = Some(now))
                            .map_err(|error| error.to_string())?;
                        count += 1;
                    }
                    if count > 0 {
                        store.update_user(user.id, |stored| stored.last_digest_sent_at = Some(now)).map_err(|error| error.to_string())?;
                        store.flush().map_err(|error| error.to_string())?;
                    }
                    Ok(count)
                }
            }
        })();
        match served {
            Ok(count) => sent += count,
            Err(error) => tracing::error!(user = %user.id, %error, "a weekly digest failed; the others go on"),
        }
    }
    Ok(sent)
}
