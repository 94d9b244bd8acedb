//! Lab channels: a term's incoming webhook (Slack- or Mattermost-compatible) that each of the
//! term's digests is posted to, and the durable queue of those posts.
//!
//! - A channel lives under user ++ term (`channels`) and only while its term does: it is set in
//!   a transaction that finds the term, and goes with the term and with the account.
//! - A digest's post is queued in the transaction that stores the digest (`crate::ledger`), so a
//!   digest is never stored without its post nor posted twice because it was stored twice.
//! - The poster (`actors::channels`) marks a post in flight before it sends it and removes it
//!   once the webhook took it. A post found in flight at a start was being sent when the service
//!   stopped: it is not sent again, so that it never appears twice; the channel's last error
//!   says so. A post that keeps failing is retried with backoff, then given up.

use chrono::{DateTime, Utc};
use engine::search_term::TermId;
use engine::UserId;
use serde::{Deserialize, Serialize};
use sled::transaction::TransactionalTree;
use sled::Transactional;
use uuid::Uuid;

use crate::codec::{decode, encode, tx_decode, tx_encode};
use crate::ratings::term_prefix;
use crate::{Channels, Result, StoreError};

/// A term's lab channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabChannel {
    pub user_id: UserId,
    pub term_id: TermId,
    /// The webhook's address: a secret (anyone with it can post), never shown back whole.
    pub url: String,
    pub connected_at: DateTime<Utc>,
    #[serde(default)]
    pub last_posted_at: Option<DateTime<Utc>>,
    /// Posts that failed in a row.
    #[serde(default)]
    pub failures: u32,
    #[serde(default)]
    pub last_error: Option<String>,
}

/// A digest waiting to be posted to its term's channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelPost {
    pub user_id: UserId,
    pub term_id: TermId,
    pub digest_id: Uuid,
    /// The digest's key in `email_digests` (see [`Digests::digest_at`]).
    #[serde(with = "crate::codec::byte_string")]
    pub digest_key: Vec<u8>,
    pub enqueued_at: DateTime<Utc>,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    /// Being sent: set before the request goes out, cleared by its outcome.
    pub in_flight: bool,
}

impl ChannelPost {
    fn key(&self) -> Vec<u8> {
        post_key(self.user_id, self.digest_id)
    }
}

/// Why a post was given up at a start.
pub const MSG_POST_INTERRUPTED: &str =
    "The service stopped while a digest was being posted. It is not posted again, so that it never appears twice; the channel may or may not show it.";

fn channel_key(user_id: UserId, term_id: TermId) -> Vec<u8> {
    term_prefix(user_id, term_id)
}

fn post_key(user_id: UserId, digest_id: Uuid) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), digest_id.as_bytes().as_slice()].concat()
}

/// Queues the post of a digest just stored, when its term has a channel (inside the digest's
/// transaction).
pub(crate) fn tx_queue_post(
    channels: &TransactionalTree,
    posts: &TransactionalTree,
    user_id: UserId,
    term_id: TermId,
    digest_id: Uuid,
    digest_key: &[u8],
    now: DateTime<Utc>,
) -> std::result::Result<(), sled::transaction::ConflictableTransactionError<StoreError>> {
    if channels.get(channel_key(user_id, term_id))?.is_none() {
        return Ok(());
    }
    let post = ChannelPost {
        user_id,
        term_id,
        digest_id,
        digest_key: digest_key.to_vec(),
        enqueued_at: now,
        attempts: 0,
        next_attempt_at: now,
        in_flight: false,
    };
    posts.insert(post.key(), tx_encode("channel post", &post)?)?;
    Ok(())
}

/// What became of one attempt to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostOutcome {
    Posted(DateTime<Utc>),
    /// Failed; tried again at `retry_at`, or given up when `None`.
    Failed {
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
}

impl Channels<'_> {
    /// Connects `channel` to its term (replacing the one it had); [`StoreError::NotFound`] when
    /// the term is not the user's (or no longer there), and nothing is written.
    pub fn set(&self, channel: &LabChannel) -> Result<()> {
        let writer = self.store.writing()?;
        let key = channel_key(channel.user_id, channel.term_id);
        let bytes = encode("lab channel", channel)?;
        (&writer.search_terms, &writer.channels)
            .transaction(|(terms, channels)| {
                let owned = match terms.get(channel.term_id.0.as_bytes())? {
                    Some(stored) => tx_decode::<engine::search_term::SearchTerm>("search term", &stored)?.user_id == channel.user_id,
                    None => false,
                };
                if !owned {
                    return Err(crate::error::abort(StoreError::NotFound("search term")));
                }
                channels.insert(key.as_slice(), bytes.as_slice())?;
                Ok(())
            })
            .map_err(StoreError::from)
    }

    /// Queues `digest` (stored, of the channel's term) to be posted to the term's channel: how a
    /// channel just connected gets the term's latest digest. Nothing when the term has no
    /// channel or the digest is queued already.
    pub fn queue_post(&self, digest: &engine::digest::Digest, now: DateTime<Utc>) -> Result<()> {
        let writer = self.store.writing()?;
        let Some(term_id) = digest.term_id else { return Ok(()) };
        let key = crate::digests::digest_key(digest.user_id, digest.sent_at, digest.id);
        if writer.digests.get(&key)?.is_none() {
            return Err(StoreError::NotFound("digest"));
        }
        (&writer.channels, &writer.channel_posts)
            .transaction(|(channels, posts)| {
                if posts.get(post_key(digest.user_id, digest.id))?.is_some() {
                    return Ok(());
                }
                tx_queue_post(channels, posts, digest.user_id, term_id, digest.id, &key, now)
            })
            .map_err(StoreError::from)
    }

    /// The term's channel, if it has one.
    pub fn get(&self, user_id: UserId, term_id: TermId) -> Result<Option<LabChannel>> {
        self.store.trees().channels.get(channel_key(user_id, term_id))?.map(|bytes| decode("lab channel", &bytes)).transpose()
    }

    /// Every channel of the installation.
    pub fn all(&self) -> Result<Vec<LabChannel>> {
        self.store.trees().channels.iter().values().map(|bytes| decode("lab channel", &bytes?)).collect()
    }

    /// Disconnects the term's channel and drops its waiting posts; whether it had one.
    pub fn remove(&self, user_id: UserId, term_id: TermId) -> Result<bool> {
        let writer = self.store.writing()?;
        let removed = writer.channels.remove(channel_key(user_id, term_id))?.is_some();
        for post in self.posts_of(user_id)?.into_iter().filter(|post| post.term_id == term_id) {
            writer.channel_posts.remove(post.key())?;
        }
        Ok(removed)
    }

    /// The posts waiting, soonest due first.
    pub fn posts(&self) -> Result<Vec<ChannelPost>> {
        let mut posts: Vec<ChannelPost> =
            self.store.trees().channel_posts.iter().values().map(|bytes| decode("channel post", &bytes?)).collect::<Result<_>>()?;
        posts.sort_by_key(|post| (post.next_attempt_at, post.enqueued_at));
        Ok(posts)
    }

    fn posts_of(&self, user_id: UserId) -> Result<Vec<ChannelPost>> {
        self.store.trees().channel_posts.scan_prefix(user_id.as_bytes()).values().map(|bytes| decode("channel post", &bytes?)).collect()
    }

    /// The posts due at `now` and not in flight, soonest first, at most `limit`.
    pub fn due_posts(&self, now: DateTime<Utc>, limit: usize) -> Result<Vec<ChannelPost>> {
        let posts = self.posts()?;
        Ok(posts.into_iter().filter(|post| !post.in_flight && post.next_attempt_at <= now).take(limit).collect())
    }

    /// Marks `post` as being sent, durably, before the request goes out; `false` when it is no
    /// longer waiting (its channel was disconnected).
    pub fn mark_post_in_flight(&self, post: &ChannelPost) -> Result<bool> {
        let writer = self.store.writing()?;
        let key = post.key();
        let Some(bytes) = writer.channel_posts.get(&key)? else { return Ok(false) };
        let mut stored: ChannelPost = decode("channel post", &bytes)?;
        stored.in_flight = true;
        stored.attempts += 1;
        writer.channel_posts.insert(key, encode("channel post", &stored)?)?;
        writer.channel_posts.flush()?;
        Ok(true)
    }

    /// Records what became of an attempt: the post goes once posted or given up, else waits
    /// for its retry; the channel's record says how its posts fare.
    pub fn finish_post(&self, post: &ChannelPost, outcome: &PostOutcome) -> Result<()> {
        let writer = self.store.writing()?;
        let key = post.key();
        let channel_key = channel_key(post.user_id, post.term_id);
        (&writer.channel_posts, &writer.channels)
            .transaction(|(posts, channels)| {
                let Some(bytes) = posts.get(&key)? else { return Ok(()) };
                let mut stored: ChannelPost = tx_decode("channel post", &bytes)?;
                match outcome {
                    PostOutcome::Failed { retry_at: Some(at), .. } => {
                        stored.in_flight = false;
                        stored.next_attempt_at = *at;
                        posts.insert(key.as_slice(), tx_encode("channel post", &stored)?)?;
                    }
                    PostOutcome::Posted(_) | PostOutcome::Failed { retry_at: None, .. } => {
                        posts.remove(key.as_slice())?;
                    }
                }
                if let Some(bytes) = channels.get(&channel_key)? {
                    let mut channel: LabChannel = tx_decode("lab channel", &bytes)?;
                    match outcome {
                        PostOutcome::Posted(at) => {
                            channel.last_posted_at = Some(*at);
                            channel.failures = 0;
                            channel.last_error = None;
                        }
                        PostOutcome::Failed { error, .. } => {
                            channel.failures += 1;
                            channel.last_error = Some(error.clone());
                        }
                    }
                    channels.insert(channel_key.as_slice(), tx_encode("lab channel", &channel)?)?;
                }
                Ok(())
            })
            .map_err(StoreError::from)
    }

    /// Gives up every post a stop left in flight (see the module docs); answers how many.
    pub fn give_up_interrupted_posts(&self) -> Result<usize> {
        let interrupted: Vec<ChannelPost> = self.posts()?.into_iter().filter(|post| post.in_flight).collect();
        for post in &interrupted {
            let outcome = PostOutcome::Failed { error: MSG_POST_INTERRUPTED.to_owned(), retry_at: None };
            self.finish_post(post, &outcome)?;
        }
        Ok(interrupted.len())
    }

    /// How many of the term's digests wait to be posted.
    pub fn pending_posts(&self, user_id: UserId, term_id: TermId) -> Result<usize> {
        Ok(self.posts_of(user_id)?.iter().filter(|post| post.term_id == term_id).count())
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::Duration;
    use engine::digest::{Digest, DigestEntry, DigestKind, DigestStatus};
    use engine::paper::Source;
    use engine::search_term::SearchTerm;
    use engine::Tier;

    use super::*;
    use crate::testsuite::DigestMail;

    fn add_term(store: &Store, user_id: UserId, text: &str) -> Result<TermId> {
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user_id, text.into(), Tier::Team, Utc::now());
        store.terms().add(&term, Tier::Team, false)?;
        Ok(term.id)
    }

    fn channel(user_id: UserId, term_id: TermId) -> LabChannel {
        LabChannel {
            user_id,
            term_id,
            url: "https://hooks.example.org/services/T0/B0/x".into(),
            connected_at: Utc::now(),
            last_posted_at: None,
            failures: 0,
            last_error: None,
        }
    }

    fn record(store: &Store, user_id: UserId, term_id: TermId, papers: usize, minutes: i64) -> Result<Uuid> {
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
            keys: vec![format!("pmid:{minutes}")],
            links: vec![],
        };
        let digest = Digest {
            id: Uuid::new_v4(),
            user_id,
            digest_type: DigestKind::Immediate,
            search_term: "malaria".into(),
            term_id: Some(term_id),
            searched_as: None,
            papers_data: vec![entry; papers],
            ai_summary: String::new(),
            subject: "a digest".into(),
            status: DigestStatus::Sent,
            sent_at: Utc::now() + Duration::minutes(minutes),
            sent_before: 0,
            widened: None,
        };
        let mail = DigestMail { to: "ada@example.org".into(), subject: "a digest".into(), list_unsubscribe: None };
        store.record_digest(&digest, &mail, Utc::now())?;
        Ok(digest.id)
    }

    #[test]
    fn a_channel_is_set_only_on_the_users_own_term_and_goes_with_it() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let term = add_term(&store, ada, "malaria")?;
        assert!(matches!(store.channels().set(&channel(bob, term)), Err(StoreError::NotFound(_))), "not bob's term");
        assert_eq!(store.channels().get(bob, term)?, None, "nothing written");
        store.channels().set(&channel(ada, term))?;
        assert_eq!(store.channels().get(ada, term)?.map(|channel| channel.url), Some("https://hooks.example.org/services/T0/B0/x".to_owned()));
        assert!(store.terms().delete(term)?);
        assert_eq!(store.channels().get(ada, term)?, None, "deleting the term disconnects its channel");
        assert!(store.channels().all()?.is_empty());
        Ok(())
    }

    #[test]
    fn a_digest_with_papers_of_a_term_with_a_channel_is_queued_once_with_it() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let (with, without) = (add_term(&store, ada, "malaria")?, add_term(&store, ada, "dengue")?);
        store.channels().set(&channel(ada, with))?;
        let posted = record(&store, ada, with, 2, 1)?;
        record(&store, ada, without, 2, 2)?;
        record(&store, ada, with, 0, 3)?;
        let posts = store.channels().posts()?;
        assert_eq!(posts.iter().map(|post| post.digest_id).collect::<Vec<_>>(), vec![posted], "only the channel's digest with papers");
        assert_eq!(store.channels().pending_posts(ada, with)?, 1);
        assert_eq!(store.channels().due_posts(Utc::now(), 10)?.len(), 1);
        assert!(store.digests().digest_at(&posts[0].digest_key)?.is_some(), "the post names its stored digest");
        Ok(())
    }

    #[test]
    fn posts_are_finished_retried_and_given_up_after_a_stop() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let term = add_term(&store, ada, "malaria")?;
        store.channels().set(&channel(ada, term))?;
        record(&store, ada, term, 1, 1)?;
        let post = store.channels().posts()?.remove(0);

        // A failure waits for its retry and counts on the channel.
        assert!(store.channels().mark_post_in_flight(&post)?);
        assert!(store.channels().due_posts(Utc::now(), 10)?.is_empty(), "in flight: not due again");
        let later = Utc::now() + Duration::minutes(1);
        store.channels().finish_post(&post, &PostOutcome::Failed { error: "The webhook answered 500".into(), retry_at: Some(later) })?;
        let stored = store.channels().get(ada, term)?.expect("connected");
        assert_eq!((stored.failures, stored.last_error.as_deref()), (1, Some("The webhook answered 500")));
        assert!(store.channels().due_posts(Utc::now(), 10)?.is_empty(), "not before its retry");
        assert_eq!(store.channels().due_posts(later, 10)?.len(), 1);
        assert_eq!(store.channels().posts()?[0].attempts, 1);

        // Posted: it goes, and the channel is well again.
        let at = Utc::now();
        store.channels().finish_post(&post, &PostOutcome::Posted(at))?;
        assert!(store.channels().posts()?.is_empty());
        let stored = store.channels().get(ada, term)?.expect("connected");
        assert_eq!((stored.failures, stored.last_error, stored.last_posted_at), (0, None, Some(at)));

        // One in flight at a stop is never sent again.
        record(&store, ada, term, 1, 2)?;
        let post = store.channels().posts()?.remove(0);
        assert!(store.channels().mark_post_in_flight(&post)?);
        assert_eq!(store.channels().give_up_interrupted_posts()?, 1);
        assert!(store.channels().posts()?.is_empty());
        assert_eq!(store.channels().get(ada, term)?.and_then(|channel| channel.last_error).as_deref(), Some(MSG_POST_INTERRUPTED));
        Ok(())
    }

    #[test]
    fn a_stored_digest_is_queued_for_a_channel_just_connected_once() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let term = add_term(&store, ada, "malaria")?;
        record(&store, ada, term, 2, 1)?;
        assert!(store.channels().posts()?.is_empty(), "no channel when it was stored");
        let digest = store.digests().of_user(ada)?.remove(0);
        store.channels().queue_post(&digest, Utc::now())?;
        assert!(store.channels().posts()?.is_empty(), "still no channel: nothing to post to");
        store.channels().set(&channel(ada, term))?;
        store.channels().queue_post(&digest, Utc::now())?;
        store.channels().queue_post(&digest, Utc::now())?;
        let posts = store.channels().posts()?;
        assert_eq!(posts.iter().map(|post| post.digest_id).collect::<Vec<_>>(), vec![digest.id], "queued once");
        assert!(store.digests().digest_at(&posts[0].digest_key)?.is_some());
        Ok(())
    }

    #[test]
    fn disconnecting_drops_the_waiting_posts() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let term = add_term(&store, ada, "malaria")?;
        store.channels().set(&channel(ada, term))?;
        record(&store, ada, term, 1, 1)?;
        let post = store.channels().posts()?.remove(0);
        assert!(store.channels().remove(ada, term)?);
        assert!(!store.channels().remove(ada, term)?);
        assert!(store.channels().posts()?.is_empty());
        assert!(!store.channels().mark_post_in_flight(&post)?, "a post gone is not sent");
        Ok(())
    }
}
