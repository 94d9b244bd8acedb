//! What tests need of the store and production never calls: recording a digest made by hand,
//! and stamping a schema version (a database "written by a newer binary").
//! Built for this crate's tests and with the `testsuite` feature, which only dev-dependencies
//! enable; the readers tests observe the store with (queued mail, sessions, vectors, every raw
//! entry) are gated the same way where they are defined.
//!
//! Production records digests through the digester, which chooses them against the ledger it
//! read and commits them with [`Digests::commit_digests`]; this does the same for one digest.

use chrono::{DateTime, Utc};
use engine::digest::Digest;
use engine::mail::RenderedMail;

use crate::{paper_fingerprint, Commit, NewDigest, Result, Store, StoreError, UserDigests};

/// A digest's mail as the queue holds it: the address and subject (the body is rendered from
/// the stored digest when it is sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestMail {
    pub to: String,
    pub subject: String,
    /// The one-click unsubscribe URL for the `List-Unsubscribe` header.
    pub list_unsubscribe: Option<String>,
}

impl Store {
    /// Stores `digest` (its papers and texts shared with every other digest that has them),
    /// records its papers as sent to its user and queues its mail, in one transaction (see
    /// [`Digests::commit_digests`]), counted against the plan the user is on; returns the mail's
    /// queue id. Not flushed. Fails, writing nothing, if the user's ledger changed between its
    /// read here and the commit (another writer recorded digests meanwhile).
    pub fn record_digest(&self, digest: &Digest, mail: &DigestMail, now: DateTime<Utc>) -> Result<u64> {
        let new = NewDigest {
            id: digest.id,
            kind: digest.digest_type,
            term: digest.search_term.clone(),
            term_id: digest.term_id,
            searched_as: digest.searched_as.as_deref().map(|text| self.digests().put_digest_text(text)).transpose()?,
            entries: self.digests().put_digest_entries(&digest.papers_data)?,
            sent: digest.papers_data.iter().filter_map(|entry| entry.keys.first()).map(|key| paper_fingerprint(key)).collect(),
            ai_summary: self.digests().put_digest_text(&digest.ai_summary)?,
            sent_at: digest.sent_at,
            sent_before: digest.sent_before,
            widened: digest.widened,
            mail: RenderedMail {
                to: mail.to.clone(),
                subject: mail.subject.clone(),
                html: String::new(),
                text: String::new(),
                action_url: None,
                list_unsubscribe: mail.list_unsubscribe.clone(),
            },
        };
        // Counted against the plan the user is on (none: as a free plan's).
        let tier = self.accounts().user(digest.user_id)?.map_or(engine::Tier::Free, |user| user.subscription_tier);
        let read = self.digests().ledger(digest.user_id)?;
        let mut ledger = read.clone();
        ledger.record(digest.digest_type, tier, !digest.papers_data.is_empty(), digest.sent_at);
        let part = UserDigests { user_id: digest.user_id, read, ledger, digests: vec![new], invite: None, completed_terms: Vec::new() };
        match self.digests().commit_digests(&[part], now)?.as_slice() {
            [Commit::Written { mail_ids, .. }] if !mail_ids.is_empty() => Ok(mail_ids[0]),
            _ => Err(StoreError::NotFound("unchanged ledger to record the digest on (another writer recorded digests meanwhile)")),
        }
    }

    /// Records `version` as the database's schema and flushes: what a newer binary would leave,
    /// for tests that check an older binary refuses it.
    pub fn stamp_schema_version(&self, version: u32) -> Result<()> {
        self.set_schema_version(version)?;
        self.trees().flush()?;
        Ok(())
    }
}
