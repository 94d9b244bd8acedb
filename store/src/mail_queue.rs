//! The durable outgoing-mail queue. Producers enqueue in the same transaction as the change the
//! mail reports; the mailer removes a mail only after it was handed over, so a crash loses none.

use std::sync::MutexGuard;

use chrono::{DateTime, Utc};
use engine::mail::RenderedMail;
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};
use sled::Transactional;

use crate::codec::{decode, encode};
use crate::error::StoreError;
use crate::sent_journal::{Entry, Held, SentJournal};
use crate::{Mail, Result};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedMail {
    /// Increasing with enqueue order; also names the mail's Message-ID and outbox file, so a
    /// retry after a crash is recognizably the same message.
    pub id: u64,
    pub mail: RenderedMail,
    pub enqueued_at: DateTime<Utc>,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    #[serde(default)]
    pub last_error: Option<String>,
    /// A digest's mail is queued as this reference, with `mail` holding only its address,
    /// subject and headers; the mailer renders the body from the stored digest when it sends.
    #[serde(default)]
    pub digest: Option<DigestMailRef>,
}

/// Where a queued digest mail's digest is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestMailRef {
    pub user_id: engine::UserId,
    /// The digest's key in `email_digests` (see [`Digests::digest_at`]).
    #[serde(with = "crate::codec::byte_string")]
    pub digest_key: Vec<u8>,
}

/// Why a mail was given up at a start: the last one stopped while handing it over.
pub const MSG_HAND_OVER_INTERRUPTED: &str =
    "The service stopped while this mail was being handed to the SMTP server. It is not sent again, so that it can never arrive twice; the server may or may not have it.";

pub(crate) fn tx_enqueue(
    queue: &TransactionalTree,
    mail: &RenderedMail,
    digest: Option<DigestMailRef>,
    now: DateTime<Utc>,
) -> Result<u64, ConflictableTransactionError<StoreError>> {
    let id = queue.generate_id()?;
    let queued = QueuedMail { id, mail: mail.clone(), enqueued_at: now, attempts: 0, next_attempt_at: now, last_error: None, digest };
    queue.insert(&id.to_be_bytes(), crate::codec::tx_encode("queued mail", &queued)?)?;
    Ok(id)
}

impl<'s> Mail<'s> {
    /// Queues a mail on its own; returns its id.
    pub fn enqueue(&self, mail: &RenderedMail, now: DateTime<Utc>) -> Result<u64> {
        let writer = self.store.writing()?;
        let id = writer.read().generate_id()?;
        let queued = QueuedMail { id, mail: mail.clone(), enqueued_at: now, attempts: 0, next_attempt_at: now, last_error: None, digest: None };
        writer.mail_queue.insert(id.to_be_bytes(), encode("queued mail", &queued)?)?;
        Ok(id)
    }

    /// Makes every deferred mail due now; the mailer does this when it starts, since a restart
    /// often follows a repaired mail setup. Returns how many were deferred.
    pub fn make_all_due(&self, now: DateTime<Utc>) -> Result<usize> {
        let writer = self.store.writing()?;
        let mut deferred = 0;
        for queued in self.queued_iter() {
            let mut queued = queued?;
            if queued.next_attempt_at > now {
                queued.next_attempt_at = now;
                writer.mail_queue.insert(queued.id.to_be_bytes(), encode("queued mail", &queued)?)?;
                deferred += 1;
            }
        }
        Ok(deferred)
    }

    /// Every queued mail, oldest first.
    #[cfg(any(test, feature = "testsuite"))]
    pub fn queued(&self) -> Result<Vec<QueuedMail>> {
        self.queued_iter().collect()
    }

    /// Every queued mail, oldest first, read as it is consumed: a queue of millions (a large
    /// weekly pass) is walked without being held in memory.
    pub fn queued_iter(&self) -> impl Iterator<Item = Result<QueuedMail>> + Send + 's {
        self.store.trees().mail_queue.iter().values().map(|bytes| decode("queued mail", &bytes?))
    }

    /// Queued mail whose next attempt is due, oldest first, at most `limit`.
    pub fn due(&self, now: DateTime<Utc>, limit: usize) -> Result<Vec<QueuedMail>> {
        let mut due = Vec::new();
        for bytes in self.store.trees().mail_queue.iter().values() {
            if due.len() == limit {
                break;
            }
            let queued: QueuedMail = decode("queued mail", &bytes?)?;
            if queued.next_attempt_at <= now {
                due.push(queued);
            }
        }
        Ok(due)
    }

    /// The earliest next attempt among queued mail.
    #[cfg(any(test, feature = "testsuite"))]
    pub fn next_attempt_at(&self) -> Result<Option<DateTime<Utc>>> {
        self.queued_iter().try_fold(None, |earliest: Option<DateTime<Utc>>, queued| {
            let next = queued?.next_attempt_at;
            Ok(Some(earliest.map_or(next, |earliest| earliest.min(next))))
        })
    }

    pub fn queue_len(&self) -> usize {
        self.store.trees().mail_queue.len()
    }

    pub fn dead_len(&self) -> usize {
        self.store.trees().mail_dead.len()
    }

    /// Every mail that failed for good, oldest first.
    pub fn dead(&self) -> Result<Vec<QueuedMail>> {
        self.store.trees().mail_dead.iter().values().map(|bytes| decode("queued mail", &bytes?)).collect()
    }

    /// One mail that failed for good, by id.
    pub fn dead_by_id(&self, id: u64) -> Result<Option<QueuedMail>> {
        self.store.trees().mail_dead.get(id.to_be_bytes())?.map(|bytes| decode("queued mail", &bytes)).transpose()
    }

    /// Gives a mail that failed for good another chance (the operator's retry, once the cause is
    /// repaired): it leaves the dead mail for the queue in one transaction, due now, with its
    /// attempts counted afresh and the same id (so the same Message-ID). Answers whether there was
    /// such a mail.
    pub fn retry_dead(&self, id: u64, now: DateTime<Utc>) -> Result<bool> {
        let writer = self.store.writing()?;
        let key = id.to_be_bytes();
        let moved = (&writer.mail_dead, &writer.mail_queue).transaction(|(dead, queue)| {
            let Some(bytes) = dead.get(key)? else {
                return Ok(false);
            };
            let mut queued: QueuedMail = crate::codec::tx_decode("queued mail", &bytes)?;
            queued.attempts = 0;
            queued.next_attempt_at = now;
            dead.remove(&key)?;
            queue.insert(&key, crate::codec::tx_encode("queued mail", &queued)?)?;
            Ok(true)
        })?;
        Ok(moved)
    }

    /// Drops a mail that failed for good, for an operator who decided it need not go; answers
    /// whether there was such a mail.
    pub fn drop_dead(&self, id: u64) -> Result<bool> {
        let writer = self.store.writing()?;
        Ok(writer.mail_dead.remove(id.to_be_bytes())?.is_some())
    }

    /// The mail was handed over: it leaves the queue. That goes first to the journal of
    /// handed-over mail (see [`crate::sent_journal`]), so that a process killed before the next
    /// flush does not send it again; a journal that cannot be written only leaves the window
    /// open until that flush.
    pub fn mark_sent(&self, id: u64) -> Result<()> {
        let writer = self.store.writing()?;
        // The entry and the removal under one hold of the journal, so that a flush counting the
        // entries covers the removal.
        let _held = self.journal(Entry::Sent(id));
        writer.mail_queue.remove(id.to_be_bytes())?;
        Ok(())
    }

    /// The message itself is about to go to the SMTP server. If the process dies before
    /// [`Mail::mark_sent`] or [`Mail::mark_not_handed_over`], the next start cannot
    /// know whether the server has it, and keeps it aside instead of sending it again (see
    /// [`crate::sent_journal`]). Nothing is written for a temporary store; a journal that cannot
    /// be written is logged, and the mail goes all the same.
    pub fn mark_handing_over(&self, id: u64) {
        drop(self.journal(Entry::HandingOver(id)));
    }

    /// The attempt announced by [`Mail::mark_handing_over`] failed: the mail is still to
    /// be sent (its failure is recorded by [`Mail::mark_failed`] or
    /// [`Mail::move_to_dead`]).
    pub fn mark_not_handed_over(&self, id: u64) {
        drop(self.journal(Entry::NotHandedOver(id)));
    }

    /// Appends `entry` to the journal (none for a temporary store) and answers the journal, still
    /// held. A journal that cannot be written is logged: it only leaves the window open until
    /// the next flush.
    fn journal(&self, entry: Entry) -> Option<MutexGuard<'_, Held>> {
        let journal = self.store.sent_journal.as_ref()?;
        // The journal is part of what a backup copies: its entries wait for a backup under way.
        let _writing = self.store.gate.hold();
        let mut held = journal.lock();
        if let Err(error) = SentJournal::append(&mut held, entry) {
            tracing::warn!(%error, path = %journal.path().display(), ?entry, "journalling a mail's hand-over");
        }
        Some(held)
    }

    /// The mail could not be sent now: count the attempt and schedule the next one.
    pub fn mark_failed(&self, id: u64, error: &str, next_attempt_at: DateTime<Utc>) -> Result<Option<QueuedMail>> {
        let writer = self.store.writing()?;
        let Some(bytes) = writer.mail_queue.get(id.to_be_bytes())? else {
            return Ok(None);
        };
        let mut queued: QueuedMail = decode("queued mail", &bytes)?;
        queued.attempts += 1;
        queued.last_error = Some(error.to_owned());
        queued.next_attempt_at = next_attempt_at;
        writer.mail_queue.insert(id.to_be_bytes(), encode("queued mail", &queued)?)?;
        Ok(Some(queued))
    }

    /// The mail will never go out (rejected for good, or out of attempts): keep it aside.
    pub fn move_to_dead(&self, id: u64, error: &str) -> Result<()> {
        let writer = self.store.writing()?;
        let Some(bytes) = writer.mail_queue.get(id.to_be_bytes())? else {
            return Ok(());
        };
        let mut queued: QueuedMail = decode("queued mail", &bytes)?;
        queued.attempts += 1;
        queued.last_error = Some(error.to_owned());
        writer.mail_dead.insert(id.to_be_bytes(), encode("queued mail", &queued)?)?;
        writer.mail_queue.remove(id.to_be_bytes())?;
        Ok(())
    }
}
