//! Digests as sent (spec §3 `email_digests`), the papers each user was sent (so that no paper
//! goes to a user twice), and each user's unsubscribe token. A digest, its sent papers and its
//! mail are written in one transaction: a crash leaves all or none, so no mail goes twice and
//! none is lost.

use chrono::{DateTime, Utc};
use engine::digest::Digest;
use engine::mail::RenderedMail;
use engine::UserId;
use sled::Transactional;

use crate::codec::{decode, tx_encode};
use crate::mail_queue::tx_enqueue;
use crate::secret::TokenHash;
use crate::{Result, Store, StoreError};

fn user_prefixed(user_id: UserId, rest: &[u8]) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), rest].concat()
}

impl Store {
    /// Stores `digest`, records its papers as sent to its user, and queues `mail`, together;
    /// returns the mail's queue id. Not flushed: callers flush before they answer (a crash before
    /// that loses the digest and its mail together, so a redo sends it once).
    pub fn record_digest(&self, digest: &Digest, mail: &RenderedMail, now: DateTime<Utc>) -> Result<u64> {
        let stamp = digest.sent_at.timestamp_micros().to_be_bytes();
        let digest_key = [user_prefixed(digest.user_id, &stamp).as_slice(), digest.id.as_bytes().as_slice()].concat();
        let sent_keys: Vec<Vec<u8>> = digest
            .papers_data
            .iter()
            .flat_map(|entry| entry.keys.iter())
            .map(|key| user_prefixed(digest.user_id, key.as_bytes()))
            .collect();
        let queued = (&self.digests, &self.sent_papers, &self.mail_queue)
            .transaction(|(digests, sent, queue)| {
                digests.insert(digest_key.as_slice(), tx_encode("digest", digest)?)?;
                for key in &sent_keys {
                    sent.insert(key.as_slice(), &digest.sent_at.timestamp().to_be_bytes())?;
                }
                tx_enqueue(queue, mail, now)
            })
            .map_err(StoreError::from)?;
        Ok(queued)
    }

    /// A user's digests, newest first.
    pub fn digests(&self, user_id: UserId) -> Result<Vec<Digest>> {
        let mut found = Vec::new();
        for entry in self.digests.scan_prefix(user_id.as_bytes()).rev() {
            let (_, bytes) = entry?;
            found.push(decode("digest", &bytes)?);
        }
        Ok(found)
    }

    /// Whether the paper with dedup key `key` was sent to the user.
    pub fn was_sent(&self, user_id: UserId, key: &str) -> Result<bool> {
        Ok(self.sent_papers.contains_key(user_prefixed(user_id, key.as_bytes()))?)
    }

    /// Records that a one-time notice (e.g. `upgrade-invite`) went to the user.
    pub fn mark_notice(&self, user_id: UserId, notice: &str, at: DateTime<Utc>) -> Result<()> {
        self.notices.insert(user_prefixed(user_id, notice.as_bytes()), &at.timestamp().to_be_bytes())?;
        self.flush()?;
        Ok(())
    }

    /// Whether the one-time notice went to the user.
    pub fn notice_sent(&self, user_id: UserId, notice: &str) -> Result<bool> {
        Ok(self.notices.contains_key(user_prefixed(user_id, notice.as_bytes()))?)
    }

    /// Remembers the user a (hashed) unsubscribe token stands for; tokens do not expire.
    pub fn put_unsubscribe_token(&self, hash: TokenHash, user_id: UserId) -> Result<()> {
        self.unsubscribe_tokens.insert(hash.as_bytes(), user_id.as_bytes())?;
        Ok(())
    }

    /// The user an unsubscribe token stands for.
    pub fn unsubscribe_user(&self, hash: TokenHash) -> Result<Option<UserId>> {
        Ok(self.unsubscribe_tokens.get(hash.as_bytes())?.and_then(|bytes| UserId::from_slice(&bytes)))
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use engine::digest::DigestEntry;
    use engine::paper::Source;
    use uuid::Uuid;

    use super::*;

    fn digest(user_id: UserId, term: &str, keys: &[&str], sent_at: DateTime<Utc>) -> Digest {
        let entry = DigestEntry {
            title: "A paper".into(),
            url: None,
            authors: String::new(),
            journal: None,
            abstract_text: String::new(),
            source: Source::Pubmed,
            sources: vec![Source::Pubmed],
            relevance_score: 0.9,
            impact: 1.0,
            summary: String::new(),
            reason: String::new(),
            retracted: false,
            keys: keys.iter().map(|key| (*key).to_owned()).collect(),
            links: vec![],
        };
        Digest {
            id: Uuid::new_v4(),
            user_id,
            digest_type: "immediate".into(),
            search_term: term.into(),
            searched_as: None,
            papers_data: vec![entry],
            ai_summary: String::new(),
            subject: format!("digest {term}"),
            status: "sent".into(),
            sent_at,
        }
    }

    fn mail(subject: &str) -> RenderedMail {
        RenderedMail { to: "ada@example.org".into(), subject: subject.into(), html: String::new(), text: String::new(), action_url: None, list_unsubscribe: None }
    }

    #[test]
    fn a_digest_its_sent_papers_and_its_mail_are_recorded_together() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let now = Utc::now();
        store.record_digest(&digest(ada, "first", &["doi:10.1/a", "pmid:1"], now - Duration::days(7)), &mail("first"), now)?;
        store.record_digest(&digest(ada, "second", &["doi:10.1/b"], now), &mail("second"), now)?;
        let terms: Vec<String> = store.digests(ada)?.into_iter().map(|digest| digest.search_term).collect();
        assert_eq!(terms, vec!["second", "first"], "newest first");
        assert!(store.digests(bob)?.is_empty());
        assert!(store.was_sent(ada, "pmid:1")? && store.was_sent(ada, "doi:10.1/b")?);
        assert!(!store.was_sent(bob, "pmid:1")?, "sent to ada, not to bob");
        assert_eq!(store.mail_queue_len(), 2);
        Ok(())
    }

    #[test]
    fn unsubscribe_tokens_name_their_user() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        store.put_unsubscribe_token(TokenHash::of("tok"), ada)?;
        assert_eq!(store.unsubscribe_user(TokenHash::of("tok"))?, Some(ada));
        assert_eq!(store.unsubscribe_user(TokenHash::of("other"))?, None);
        assert!(!store.notice_sent(ada, "upgrade-invite")?);
        store.mark_notice(ada, "upgrade-invite", Utc::now())?;
        assert!(store.notice_sent(ada, "upgrade-invite")?);
        Ok(())
    }
}
