//! The weekly pass: every due user's digests, built in batches on one thread per core.
//!
//! A pass reads who may be due (their delivery day and hour, from their preferences), then
//! hands batches of [`BATCH`] users to the worker threads. For each user of a batch a worker
//! reads their account, preferences, ledger, terms and sent papers, applies the weekly rule
//! (`engine::digest::weekly_action`) and chooses one digest per active term from the terms'
//! shared rankings ([`Digester::choose`]; a term's later digest in the same pass never repeats
//! a paper of its earlier one). The whole batch is then recorded in one transaction
//! ([`Digests::commit_digests`]): each user's digests, sent papers, queued mails, ledger and
//! upgrade invitation, all or nothing.
//!
//! No lock is held while digests are chosen. A user whose digests changed between the read and
//! the commit (an immediate search of theirs committed meanwhile) is left out of the batch's
//! write and served again on their own; nothing of theirs was written, so no paper goes twice.
//! A crash mid-pass loses at most the batches not yet flushed, whose users are still due: the
//! next pass serves them once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use engine::digest::{allowance, weekly_action, DigestHistory, DigestKind, WeeklyAction, WeeklyInputs};
use engine::mail::{upgrade_invite_mail, MailContext};
use engine::search_term::TermStatus;
use engine::UserId;
use store::{Commit, Store, UserDigests};

use crate::digester::{Digester, Reader, COMMIT_TRIES};
use crate::error::DigestError;

/// Users per transaction of the pass: large enough that a commit's fixed costs are spread
/// thin, small enough that a commit holds other writers off for a few milliseconds only.
pub const BATCH: usize = 256;

/// Why a pass stopped early.
#[derive(Debug, thiserror::Error)]
pub enum WeeklyError {
    #[error("reading the users: {0}")]
    Store(#[from] store::StoreError),
    #[error("a worker of the weekly pass stopped abnormally: {0}")]
    Stopped(String),
}

/// What every step of one pass shares: where it reads and writes, and the time it serves.
#[derive(Clone, Copy)]
struct Pass<'a> {
    store: &'a Store,
    digester: &'a Digester,
    mail: &'a MailContext,
    now: DateTime<Utc>,
    hour: u32,
}

/// Serves every user due at `now` (from `hour` UTC on their delivery day) on `workers` threads;
/// answers how many digests were recorded. A user whose digests fail is logged and the others
/// go on. Blocking: run it on a thread of its own or tokio's blocking pool.
pub fn serve_due(
    store: &Store,
    digester: &Digester,
    mail: &MailContext,
    now: DateTime<Utc>,
    hour: u32,
    workers: usize,
) -> Result<usize, WeeklyError> {
    let pass = Pass { store, digester, mail, now, hour };
    let due = Arc::new(maybe_due(store, now, hour)?);
    let next = Arc::new(AtomicUsize::new(0));
    let sent = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..workers.max(1))
            .map(|_| {
                let (due, next) = (Arc::clone(&due), Arc::clone(&next));
                scope.spawn(move || {
                    let mut sent = 0;
                    loop {
                        let first = next.fetch_add(BATCH, Ordering::Relaxed);
                        let Some(batch) = due.get(first..due.len().min(first + BATCH)).filter(|batch| !batch.is_empty()) else { break };
                        sent += pass.serve_batch(batch);
                    }
                    sent
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().map_err(|_| WeeklyError::Stopped("a worker panicked".into())))
            .sum::<Result<usize, WeeklyError>>()
    })?;
    // Batches are not flushed one by one (the mailer flushes before it sends); the pass ends
    // with everything durable.
    store.flush()?;
    Ok(sent)
}

impl Pass<'_> {
    /// Serves `user_id` alone if they are due, chosen again while the user's ledger moves on
    /// under the choice; answers how many digests were recorded.
    fn serve_user(self, user_id: UserId) -> Result<usize, DigestError> {
        for _ in 0..COMMIT_TRIES {
            let Some(part) = self.user_week(user_id)? else { return Ok(0) };
            let count = part.digests.len();
            if let [Commit::Written { .. }] = self.store.digests().commit_digests(std::slice::from_ref(&part), Utc::now())?.as_slice() {
                return Ok(count);
            }
        }
        Err(DigestError::Busy(COMMIT_TRIES))
    }

    /// One batch: each user's week chosen, then recorded in one transaction; users whose digests
    /// changed meanwhile are served again on their own. Answers how many digests were recorded.
    fn serve_batch(self, batch: &[UserId]) -> usize {
        let mut parts = Vec::with_capacity(batch.len());
        for &user_id in batch {
            match self.user_week(user_id) {
                Ok(Some(part)) => parts.push(part),
                Ok(None) => {}
                Err(error) => tracing::error!(user = %user_id, %error, "a weekly digest failed; the others go on"),
            }
        }
        if parts.is_empty() {
            return 0;
        }
        let commits = match self.store.digests().commit_digests(&parts, Utc::now()) {
            Ok(commits) => commits,
            Err(error) => {
                tracing::error!(%error, users = parts.len(), "recording a batch of weekly digests failed; its users are served again next pass");
                return 0;
            }
        };
        tracing::debug!(users = parts.len(), "a batch of weekly digests recorded");
        let mut sent = 0;
        for (part, commit) in parts.iter().zip(commits) {
            match commit {
                Commit::Written { .. } => sent += part.digests.len(),
                Commit::Stale => match self.serve_user(part.user_id) {
                    Ok(count) => sent += count,
                    Err(error) => tracing::error!(user = %part.user_id, %error, "a weekly digest failed; the others go on"),
                },
            }
        }
        sent
    }

    /// What the weekly rule does for `user_id` at `now`, ready to record: their digests (one per
    /// active term while their plan allows), the upgrade invitation, or nothing. Read fresh from the
    /// store, so a change made while the user waited for their turn counts.
    fn user_week(self, user_id: UserId) -> Result<Option<UserDigests>, DigestError> {
        let Pass { store, digester, mail, now, hour } = self;
        let Some(user) = store.accounts().user(user_id)? else { return Ok(None) };
        if !(user.is_active && user.is_email_verified) {
            return Ok(None);
        }
        let preferences = store.accounts().preferences(user.id)?;
        let read = store.digests().ledger(user.id)?;
        let history = read.history(user.created_at);
        // The plan's allowance, decided once for the pass and counted down with its digests.
        let mut left = allowance(user.subscription_tier, &history);
        let inputs = WeeklyInputs { preferences: &preferences, tier: user.subscription_tier, history: &history, now, hour };
        let mut part = UserDigests { user_id, read: read.clone(), ledger: read, digests: Vec::new(), invite: None, completed_terms: Vec::new() };
        match weekly_action(&inputs) {
            WeeklyAction::Wait | WeeklyAction::Done => Ok(None),
            WeeklyAction::InviteUpgrade => {
                part.invite = Some(upgrade_invite_mail(mail, &user.email));
                part.ledger.invited = true;
                Ok(Some(part))
            }
            WeeklyAction::Send => {
                let terms = store.terms().of_user(user.id)?;
                let sources = preferences.effective(user.subscription_tier).sources();
                let mut sent = store.digests().sent_papers(user.id)?;
                let list_unsubscribe = digester.renderer().one_click_url(user.id)?;
                let mut served = Vec::new();
                for term in terms.iter().filter(|term| term.is_active) {
                    // A free plan with more terms than digests left stops when they are used.
                    if !left.allows_digest() {
                        break;
                    }
                    let rated = digester.rated(term)?;
                    let reader = Reader { tier: user.subscription_tier, sources: &sources, sent: &sent, rated: rated.as_ref() };
                    let chosen = digester.choose(&reader, &term.term, DigestKind::Weekly, now)?;
                    let digest = chosen.new_digest(&term.term, Some(term.id), DigestKind::Weekly, now, &user.email, &list_unsubscribe);
                    sent.extend(&digest.sent);
                    part.ledger.record(DigestKind::Weekly, user.subscription_tier, !chosen.is_empty(), now);
                    left = left.after_digest(!chosen.is_empty());
                    part.digests.push(digest);
                    served.push(term.id);
                    if term.status != TermStatus::Completed {
                        part.completed_terms.push((term.id, now));
                    }
                }
                if part.digests.is_empty() {
                    return Ok(None);
                }
                part.ledger.weekly_terms = served;
                Ok(Some(part))
            }
        }
    }
}

/// The users who may be due at `now`: active, verified, and it is their delivery day and hour.
/// Most users are not due at any given pass, and this is settled from their preferences alone,
/// before their digests are read.
fn maybe_due(store: &Store, now: DateTime<Utc>, hour: u32) -> Result<Vec<UserId>, store::StoreError> {
    let mut due = Vec::new();
    for user in store.accounts().users()? {
        if !(user.is_active && user.is_email_verified) {
            continue;
        }
        let preferences = store.accounts().preferences(user.id)?;
        // Only the signup date and the preferences settle it here; the pass reads the rest.
        let history = DigestHistory { signed_up_at: user.created_at, ..DigestHistory::default() };
        let inputs = WeeklyInputs { preferences: &preferences, tier: user.subscription_tier, history: &history, now, hour };
        if weekly_action(&inputs) != WeeklyAction::Wait {
            due.push(user.id);
        }
    }
    Ok(due)
}
