//! Digests as sent (spec §3 `email_digests`), the papers each user was sent (so that no paper
//! goes to a user twice; each by its first dedup key), and each user's unsubscribe link. A digest, its sent papers and its
//! mail are written in one transaction: a crash leaves all or none, so no mail goes twice and
//! none is lost.
//!
//! A week's digests are mostly the same papers told to many users, so a digest is stored slim:
//! its papers (`DigestEntry`, abstract and summary included) live once each in `digest_entries`,
//! keyed by a hash of their content, and the digest keeps those keys. Its mail is queued as a
//! reference to the digest and rendered when it is sent. A weekly run then writes about a
//! kilobyte per digest instead of the papers and their mail again for every user.

use chrono::{DateTime, Utc};
use engine::digest::{Digest, DigestEntry, DigestKind, DigestStatus, Widened};
use engine::mail::RenderedMail;
use engine::search_term::TermId;
use engine::signed::UnsubscribeClaim;
use engine::UserId;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use uuid::Uuid;

use crate::codec::{decode, encode};
use crate::secret::TokenHash;
use crate::{Digests, Result, StoreError};

fn user_prefixed(user_id: UserId, rest: &[u8]) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), rest].concat()
}

/// A digest's key: its user, when it was sent (µs, big-endian, so a user's digests are in time
/// order) and its id.
pub(crate) fn digest_key(user_id: UserId, sent_at: DateTime<Utc>, id: Uuid) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), &sent_at.timestamp_micros().to_be_bytes(), id.as_bytes().as_slice()].concat()
}

/// The content key of a stored paper entry.
pub type EntryKey = [u8; 16];
/// The content key of a stored digest text.
pub type TextKey = [u8; 16];

/// The first 16 bytes of the SHA-256 of `bytes`: the key of content stored once.
pub(crate) fn content_key(bytes: &[u8]) -> [u8; 16] {
    let hash = Sha256::digest(bytes);
    let mut key = [0u8; 16];
    key.copy_from_slice(&hash[..16]);
    key
}

/// A digest as stored (packed CBOR, so fields keep their order for good): its papers, AI
/// summary and "searched as" line by content key. Digests stored before those were shared kept
/// them inline, and read the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredDigest {
    id: Uuid,
    user_id: UserId,
    digest_type: DigestKind,
    search_term: String,
    #[serde(default)]
    searched_as: Option<String>,
    /// Keys into `digest_entries`, in the digest's order (older digests).
    #[serde(default)]
    entries: Vec<EntryKey>,
    /// Digests written before entries were shared kept their papers inline.
    #[serde(default)]
    papers_data: Vec<DigestEntry>,
    #[serde(default)]
    ai_summary: String,
    /// Empty: made from the term and the number of papers, as the mail's is.
    #[serde(default)]
    subject: String,
    status: DigestStatus,
    sent_at: DateTime<Utc>,
    #[serde(default)]
    sent_before: usize,
    #[serde(default)]
    widened: Option<Widened>,
    /// Keys into `digest_entries`, 16 bytes each, in the digest's order.
    #[serde(default, with = "crate::codec::byte_string")]
    entry_keys: Vec<u8>,
    /// Key into `digest_texts` of the AI summary (empty: `ai_summary` holds it).
    #[serde(default, with = "crate::codec::byte_string")]
    ai_summary_key: Vec<u8>,
    /// Key into `digest_texts` of the "searched as" line (empty: `searched_as` holds it, if any).
    #[serde(default, with = "crate::codec::byte_string")]
    searched_as_key: Vec<u8>,
    /// The stored term it was made for (none in digests written before it was kept). Last: a
    /// digest is stored packed, by position, so a new field goes at the end.
    #[serde(default)]
    term_id: Option<TermId>,
}

impl StoredDigest {
    pub(crate) fn new(user_id: UserId, digest: &NewDigest) -> StoredDigest {
        StoredDigest {
            id: digest.id,
            user_id,
            digest_type: digest.kind,
            search_term: digest.term.clone(),
            searched_as: None,
            entries: Vec::new(),
            papers_data: Vec::new(),
            ai_summary: String::new(),
            subject: String::new(),
            status: DigestStatus::Sent,
            sent_at: digest.sent_at,
            sent_before: digest.sent_before,
            widened: digest.widened,
            term_id: digest.term_id,
            entry_keys: digest.entries.concat(),
            ai_summary_key: digest.ai_summary.to_vec(),
            searched_as_key: digest.searched_as.map(|key| key.to_vec()).unwrap_or_default(),
        }
    }

    /// The keys into `digest_texts` of its AI summary and "searched as" line.
    pub(crate) fn text_keys(&self) -> impl Iterator<Item = TextKey> + '_ {
        [&self.ai_summary_key, &self.searched_as_key].into_iter().filter_map(|key| <TextKey>::try_from(key.as_slice()).ok())
    }

    fn paper_count(&self) -> usize {
        self.entries.len() + self.papers_data.len() + self.entry_keys.len() / 16
    }
}

/// One digest to record, by reference to what is stored already: its papers' entries
/// ([`Digests::put_digest_entry`]) and its texts ([`Digests::put_digest_text`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NewDigest {
    pub id: Uuid,
    pub kind: DigestKind,
    pub term: String,
    /// The stored term it is made for, if any (see [`Digest::term_id`]).
    pub term_id: Option<TermId>,
    pub searched_as: Option<TextKey>,
    pub entries: Vec<EntryKey>,
    /// [`crate::paper_fingerprint`] of each entry's first dedup key: the papers it sends.
    pub sent: Vec<u64>,
    pub ai_summary: TextKey,
    pub sent_at: DateTime<Utc>,
    pub sent_before: usize,
    pub widened: Option<Widened>,
    /// Its queued mail: the address, subject and `List-Unsubscribe` (the body is rendered from
    /// the stored digest when it is sent).
    pub mail: RenderedMail,
}

/// What the weekly schedule needs to know of a user's digests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DigestStats {
    /// Every digest the user was sent, immediate ones included.
    pub received: usize,
    /// The digests that had papers (a notice of an empty week is not one).
    pub with_papers: usize,
    pub last_weekly: Option<DateTime<Utc>>,
    pub last_with_papers: Option<DateTime<Utc>>,
    /// The last digest of any kind.
    pub last_digest: Option<DateTime<Utc>>,
}

/// The notice recorded once a free user was invited to upgrade.
pub const UPGRADE_INVITE: &str = "upgrade-invite";

/// Stored digests are read back as [`Digest`]s.
impl Digests<'_> {
    /// Stores a digest's text (its AI summary, its "searched as" line) once under the hash of
    /// its content; returns its key.
    pub fn put_digest_text(&self, text: &str) -> Result<TextKey> {
        let writer = self.store.writing()?;
        let key = content_key(text.as_bytes());
        if !writer.digest_texts.contains_key(key)? {
            writer.digest_texts.insert(key, text.as_bytes())?;
        }
        Ok(key)
    }

    /// The text stored under `key`.
    pub fn digest_text(&self, key: &TextKey) -> Result<Option<String>> {
        Ok(self.store.trees().digest_texts.get(key)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Stores paper entries (each once, see the module docs); returns their keys. Entries that
    /// many digests share are put once and their keys reused, instead of encoding and hashing
    /// them again for every digest.
    pub fn put_digest_entries(&self, entries: &[DigestEntry]) -> Result<Vec<EntryKey>> {
        // One hold for every entry: a backup waits for all of them or none.
        let _writer = self.store.writing()?;
        entries.iter().map(|entry| self.put_digest_entry(entry)).collect()
    }

    /// Stores a paper entry once under the hash of its content; returns its key.
    pub fn put_digest_entry(&self, entry: &DigestEntry) -> Result<EntryKey> {
        let writer = self.store.writing()?;
        let bytes = encode("digest entry", entry)?;
        let key = content_key(&bytes);
        // Content-addressed, so an entry that is there is this entry: no need to write it again.
        if !writer.digest_entries.contains_key(key)? {
            writer.digest_entries.insert(key, bytes)?;
        }
        Ok(key)
    }

    fn load_digest(&self, stored: StoredDigest) -> Result<Digest> {
        let mut papers_data = stored.papers_data;
        let shared = stored.entries.iter().map(|key| key.as_slice()).chain(stored.entry_keys.chunks_exact(16));
        for key in shared {
            match self.store.trees().digest_entries.get(key)? {
                Some(bytes) => papers_data.push(decode("digest entry", &bytes)?),
                None => tracing::error!(digest = %stored.id, "a digest's paper entry is missing; it is left out"),
            }
        }
        let text = |key: &[u8], inline: String| -> Result<String> {
            if key.is_empty() {
                return Ok(inline);
            }
            match self.store.trees().digest_texts.get(key)? {
                Some(stored) => Ok(String::from_utf8_lossy(&stored).into_owned()),
                // Removed with the account of the only other digest that used it, as this one
                // was being written: the digest reads without it.
                None => {
                    tracing::error!(digest = %stored.id, "a digest's text is missing; it is left out");
                    Ok(String::new())
                }
            }
        };
        let searched_as = if stored.searched_as_key.is_empty() { stored.searched_as } else { Some(text(&stored.searched_as_key, String::new())?) };
        let subject = if stored.subject.is_empty() {
            engine::mail::digest_subject(&stored.search_term, papers_data.len(), stored.widened)
        } else {
            stored.subject
        };
        Ok(Digest {
            id: stored.id,
            user_id: stored.user_id,
            digest_type: stored.digest_type,
            ai_summary: text(&stored.ai_summary_key, stored.ai_summary)?,
            search_term: stored.search_term,
            term_id: stored.term_id,
            searched_as,
            papers_data,
            subject,
            status: stored.status,
            sent_at: stored.sent_at,
            sent_before: stored.sent_before,
            widened: stored.widened,
        })
    }

    /// Migration to schema 3: each digest stored without its term's id (made before digests
    /// kept it) gets the id of the user's term it was made for: the term of the same text (but
    /// for case and spacing) that existed when it was sent. A digest whose term is gone keeps
    /// none and belongs to no term (a term added again later is a new one). From then on
    /// ratings, rating links and resends find a digest's term by its id alone.
    pub(crate) fn bind_digests_to_terms(&self) -> Result<()> {
        for user in self.store.accounts().users()? {
            let terms = self.store.terms().of_user(user.id)?;
            for entry in self.store.trees().digests.scan_prefix(user.id.as_bytes()) {
                let (key, bytes) = entry?;
                let mut stored: StoredDigest = decode("digest", &bytes)?;
                if stored.term_id.is_some() {
                    continue;
                }
                let made_for =
                    terms.iter().find(|term| engine::search_term::is_same_term(&term.term, &stored.search_term) && term.created_at <= stored.sent_at);
                if let Some(term) = made_for {
                    stored.term_id = Some(term.id);
                    self.store.writing()?.digests.insert(key, crate::codec::encode_packed("digest", &stored)?)?;
                }
            }
        }
        Ok(())
    }

    /// A user's digests, newest first.
    pub fn of_user(&self, user_id: UserId) -> Result<Vec<Digest>> {
        let mut found = Vec::new();
        for entry in self.store.trees().digests.scan_prefix(user_id.as_bytes()).rev() {
            let (_, bytes) = entry?;
            found.push(self.load_digest(decode("digest", &bytes)?)?);
        }
        Ok(found)
    }

    /// When the user's newest digest was sent, and its id: read from the keys alone, so a feed
    /// reader's conditional request costs no digest's decoding.
    pub fn latest_digest(&self, user_id: UserId) -> Result<Option<(DateTime<Utc>, Uuid)>> {
        let Some(key) = self.store.trees().digests.scan_prefix(user_id.as_bytes()).keys().next_back().transpose()? else {
            return Ok(None);
        };
        let micros = key.get(16..24).and_then(|bytes| <[u8; 8]>::try_from(bytes).ok()).map(i64::from_be_bytes);
        let sent_at = micros.and_then(DateTime::from_timestamp_micros).ok_or(StoreError::Corrupt("digest key"))?;
        let id = key.get(24..40).and_then(|bytes| Uuid::from_slice(bytes).ok()).ok_or(StoreError::Corrupt("digest key"))?;
        Ok(Some((sent_at, id)))
    }

    /// The user's digest `id`, if the user has one of that id.
    pub fn user_digest(&self, user_id: UserId, id: Uuid) -> Result<Option<Digest>> {
        for entry in self.store.trees().digests.scan_prefix(user_id.as_bytes()).rev() {
            let (key, bytes) = entry?;
            if key.ends_with(id.as_bytes()) {
                return Ok(Some(self.load_digest(decode("digest", &bytes)?)?));
            }
        }
        Ok(None)
    }

    /// The digest stored under `key` (a queued digest mail's reference).
    pub fn digest_at(&self, key: &[u8]) -> Result<Option<Digest>> {
        match self.store.trees().digests.get(key)? {
            Some(bytes) => Ok(Some(self.load_digest(decode("digest", &bytes)?)?)),
            None => Ok(None),
        }
    }

    /// When each stored digest (of every user) was sent, read from the keys alone: for the
    /// operator's counts by week.
    pub fn digest_sent_times(&self) -> Result<Vec<DateTime<Utc>>> {
        let mut times = Vec::new();
        for key in self.store.trees().digests.iter().keys() {
            let key = key?;
            let Some(micros) = key.get(16..24).and_then(|bytes| <[u8; 8]>::try_from(bytes).ok()) else {
                continue;
            };
            if let Some(at) = DateTime::from_timestamp_micros(i64::from_be_bytes(micros)) {
                times.push(at);
            }
        }
        Ok(times)
    }

    /// How many digests the user received and when the last weekly one went out, without
    /// reading their papers.
    pub fn digest_stats(&self, user_id: UserId) -> Result<DigestStats> {
        let mut stats = DigestStats::default();
        for entry in self.store.trees().digests.scan_prefix(user_id.as_bytes()).rev() {
            let (_, bytes) = entry?;
            let stored: StoredDigest = decode("digest", &bytes)?;
            if stats.last_weekly.is_none() && stored.digest_type == DigestKind::Weekly {
                stats.last_weekly = Some(stored.sent_at);
            }
            stats.last_digest = stats.last_digest.or(Some(stored.sent_at));
            let has_papers = stored.paper_count() > 0;
            if has_papers {
                stats.with_papers += 1;
                stats.last_with_papers = stats.last_with_papers.or(Some(stored.sent_at));
            }
            stats.received += 1;
        }
        Ok(stats)
    }

    /// Records that a one-time notice (e.g. `upgrade-invite`) went to the user.
    pub fn mark_notice(&self, user_id: UserId, notice: &str, at: DateTime<Utc>) -> Result<()> {
        self.record_notice(user_id, notice, at)?;
        self.store.flush()?;
        Ok(())
    }

    /// Records that `notice` happened to the user at `at`, as [`Digests::mark_notice`], without
    /// flushing: for a caller that writes more and flushes once.
    pub fn record_notice(&self, user_id: UserId, notice: &str, at: DateTime<Utc>) -> Result<()> {
        let writer = self.store.writing()?;
        writer.notices.insert(user_prefixed(user_id, notice.as_bytes()), &at.timestamp().to_be_bytes())?;
        Ok(())
    }

    /// Whether the one-time notice went to the user.
    pub fn notice_sent(&self, user_id: UserId, notice: &str) -> Result<bool> {
        Ok(self.store.trees().notices.contains_key(user_prefixed(user_id, notice.as_bytes()))?)
    }

    /// The summary `model` wrote of the paper with dedup key `paper_key`, if it wrote one.
    pub fn paper_summary(&self, model: &str, paper_key: &str) -> Result<Option<String>> {
        let stored = self.store.trees().paper_summaries.get(summary_key(model, paper_key))?;
        Ok(stored.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Keeps the summary `model` wrote of a paper, for every user and every later week.
    pub fn put_paper_summary(&self, model: &str, paper_key: &str, summary: &str) -> Result<()> {
        let writer = self.store.writing()?;
        writer.paper_summaries.insert(summary_key(model, paper_key), summary.as_bytes())?;
        Ok(())
    }

    /// The user's unsubscribe token (`engine::signed::UnsubscribeClaim`) under this database's
    /// own unsubscribe key: the same in every mail, so sending one writes nothing, and only this
    /// database can make or check one.
    pub fn unsubscribe_token(&self, user_id: UserId) -> Result<String> {
        Ok(UnsubscribeClaim { user_id }.sign(self.unsubscribe_key()?))
    }

    /// The user an unsubscribe token stands for: a token of [`Digests::unsubscribe_token`], or a
    /// stored one (hashed) from mails sent before those existed. Tokens do not expire.
    pub fn unsubscribe_user(&self, token: &str) -> Result<Option<UserId>> {
        if let Some(claim) = self.existing_unsubscribe_key()?.and_then(|key| UnsubscribeClaim::verify(key, token)) {
            return Ok(Some(claim.user_id));
        }
        let hash = TokenHash::of(token);
        Ok(self.store.trees().unsubscribe_tokens.get(hash.as_bytes())?.and_then(|bytes| UserId::from_slice(&bytes)))
    }

    /// The unsubscribe links' key: read (or made) once, then kept, since every digest needs it.
    fn unsubscribe_key(&self) -> Result<&[u8]> {
        if let Some(key) = self.store.unsubscribe_key.get() {
            return Ok(key);
        }
        let key = self.store.secret_key(UNSUBSCRIBE_KEY)?;
        Ok(self.store.unsubscribe_key.get_or_init(|| key))
    }

    /// The unsubscribe links' key if one was made: checking a token makes none (without one, no
    /// token was ever signed), so a refused link writes nothing.
    fn existing_unsubscribe_key(&self) -> Result<Option<&[u8]>> {
        if let Some(key) = self.store.unsubscribe_key.get() {
            return Ok(Some(key));
        }
        let Some(key) = self.store.trees().meta.get(UNSUBSCRIBE_KEY)? else { return Ok(None) };
        Ok(Some(self.store.unsubscribe_key.get_or_init(|| key.to_vec())))
    }

    /// Remembers the user a (hashed) unsubscribe token stands for; kept for tokens made before
    /// [`Digests::unsubscribe_token`].
    #[cfg(any(test, feature = "testsuite"))]
    pub fn put_unsubscribe_token(&self, hash: TokenHash, user_id: UserId) -> Result<()> {
        let writer = self.store.writing()?;
        writer.unsubscribe_tokens.insert(hash.as_bytes(), user_id.as_bytes())?;
        Ok(())
    }
}

/// The meta key of the unsubscribe links' secret.
const UNSUBSCRIBE_KEY: &[u8] = b"unsubscribe_key";

fn summary_key(model: &str, paper_key: &str) -> Vec<u8> {
    [model.as_bytes(), &[0], paper_key.as_bytes()].concat()
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::Duration;
    use engine::digest::DigestEntry;
    use engine::paper::Source;
    use uuid::Uuid;

    use super::*;
    use crate::testsuite::DigestMail;

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
            digest_type: DigestKind::Immediate,
            search_term: term.into(),
            term_id: None,
            searched_as: None,
            papers_data: if keys.is_empty() { vec![] } else { vec![entry] },
            ai_summary: String::new(),
            subject: format!("digest {term}"),
            status: DigestStatus::Sent,
            sent_at,
            sent_before: 0,
            // Kept and read back like every other field.
            widened: Some(engine::digest::Widened { days: 30, new_this_week: 1 }),
        }
    }

    fn mail(subject: &str) -> DigestMail {
        DigestMail { to: "ada@example.org".into(), subject: subject.into(), list_unsubscribe: None }
    }

    #[test]
    fn a_digest_its_sent_papers_and_its_mail_are_recorded_together() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let now = Utc::now();
        store.record_digest(&digest(ada, "first", &["doi:10.1/a", "pmid:1"], now - Duration::days(7)), &mail("first"), now)?;
        store.record_digest(&digest(ada, "second", &["doi:10.1/b"], now), &mail("second"), now)?;
        let terms: Vec<String> = store.digests().of_user(ada)?.into_iter().map(|digest| digest.search_term).collect();
        assert_eq!(terms, vec!["second", "first"], "newest first");
        assert!(store.digests().of_user(bob)?.is_empty());
        assert!(store.digests().was_sent(ada, "doi:10.1/a")? && store.digests().was_sent(ada, "doi:10.1/b")?);
        assert!(!store.digests().was_sent(ada, "pmid:1")?, "a paper is remembered by its first key");
        assert!(!store.digests().was_sent(bob, "doi:10.1/a")?, "sent to ada, not to bob");
        assert_eq!(store.mail().queue_len(), 2);
        let queued = store.mail().queued()?;
        let reference = queued[1].digest.clone().expect("a digest mail refers to its digest");
        assert_eq!(reference.user_id, ada);
        let digest = store.digests().digest_at(&reference.digest_key)?.expect("the referenced digest");
        assert_eq!(digest.search_term, "second");
        assert_eq!(digest.papers_data[0].keys, vec!["doi:10.1/b"]);
        let stats = store.digests().digest_stats(ada)?;
        assert_eq!((stats.received, stats.with_papers, stats.last_weekly), (2, 2, None));
        let ledger = store.digests().ledger(ada)?;
        assert_eq!(
            (ledger.version, ledger.received, ledger.with_papers, ledger.last_digest),
            (2, 2, 2, Some(now)),
            "the ledger counts as the digests do"
        );
        Ok(())
    }

    #[test]
    fn the_schema_3_migration_binds_each_older_digest_to_the_term_it_was_made_for() -> Result<()> {
        use engine::search_term::SearchTerm;
        use engine::Tier;
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let day = |days: i64| DateTime::from_timestamp(1_790_000_000 + days * 86_400, 0).expect("a time");
        let account = crate::NewAccount {
            user: crate::User::new(ada, "ada@example.org", "hash".into(), day(0)),
            preferences: engine::Preferences::default(),
            verification: None,
            mail: None,
        };
        store.accounts().create(account, day(0))?;
        let term = |text: &str, created: i64| -> Result<SearchTerm> {
            let term = SearchTerm::new(TermId(Uuid::new_v4()), ada, text.into(), Tier::Pro, day(created));
            store.terms().add(&term, Tier::Pro, false)?;
            Ok(term)
        };
        let crispr = term("CRISPR base editing", 1)?;
        // Deleted, then added again after its first digest.
        let drive = term("gene drive", 5)?;
        let older = [
            digest(ada, "crispr  base Editing", &["pmid:1"], day(2)),
            digest(ada, "gene drive", &["pmid:2"], day(3)),
            digest(ada, "dark matter", &["pmid:3"], day(4)),
            digest(ada, "gene drive", &["pmid:4"], day(6)),
        ];
        for digest in &older {
            store.record_digest(digest, &mail("digest"), digest.sent_at)?;
        }
        let mut kept = digest(ada, "CRISPR base editing", &["pmid:5"], day(7));
        kept.term_id = Some(TermId(Uuid::new_v4()));
        store.record_digest(&kept, &mail("digest"), kept.sent_at)?;

        store.digests().bind_digests_to_terms()?;
        let bound: Vec<(String, Option<TermId>)> =
            store.digests().of_user(ada)?.into_iter().rev().map(|digest| (digest.papers_data[0].keys[0].clone(), digest.term_id)).collect();
        assert_eq!(
            bound,
            [
                ("pmid:1".to_owned(), Some(crispr.id)),
                ("pmid:2".to_owned(), None),
                ("pmid:3".to_owned(), None),
                ("pmid:4".to_owned(), Some(drive.id)),
                ("pmid:5".to_owned(), kept.term_id),
            ],
            "the same topic (case and spacing aside) existing when it was sent; a term added after the digest, a gone term and a kept id are left"
        );
        assert_eq!(store.digests().of_user(ada)?[1].papers_data, older[3].papers_data, "the rest of the digest is as it was");
        Ok(())
    }

    #[test]
    fn a_paper_told_to_many_users_is_stored_once() -> Result<()> {
        let store = Store::temporary()?;
        let now = Utc::now();
        for _ in 0..5 {
            store.record_digest(&digest(UserId(Uuid::new_v4()), "cancer", &["pmid:7"], now), &mail("cancer"), now)?;
        }
        assert_eq!(store.trees().digest_entries.len(), 1, "one shared entry");
        let mut changed = digest(UserId(Uuid::new_v4()), "cancer", &["pmid:7"], now);
        changed.papers_data[0].relevance_score = 0.5;
        store.record_digest(&changed, &mail("cancer"), now)?;
        assert_eq!(store.trees().digest_entries.len(), 2, "a different score is a different entry");
        assert_eq!(store.digests().of_user(changed.user_id)?[0].papers_data[0].relevance_score, 0.5);
        Ok(())
    }

    #[test]
    fn digests_stored_with_their_papers_inline_still_read() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let old = digest(ada, "legacy", &["pmid:9"], Utc::now());
        // The shape digests had before their papers were shared: the whole `Digest`.
        store.writing()?.digests.insert([ada.as_bytes().as_slice(), &[0u8; 8], old.id.as_bytes()].concat(), encode("digest", &old)?)?;
        let read = store.digests().of_user(ada)?;
        assert_eq!(read, vec![old]);
        Ok(())
    }

    #[test]
    fn paper_summaries_are_kept_per_model() -> Result<()> {
        let store = Store::temporary()?;
        assert_eq!(store.digests().paper_summary("small", "pmid:1")?, None);
        store.digests().put_paper_summary("small", "pmid:1", "A short account.")?;
        assert_eq!(store.digests().paper_summary("small", "pmid:1")?.as_deref(), Some("A short account."));
        assert_eq!(store.digests().paper_summary("large", "pmid:1")?, None, "another model's summary is its own");
        assert_eq!(store.digests().paper_summary("small", "pmid:2")?, None);
        Ok(())
    }

    #[test]
    fn weekly_stats_count_every_digest_and_find_the_last_weekly_one() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let now = Utc::now();
        let mut weekly = digest(ada, "a", &["pmid:1"], now - Duration::days(7));
        weekly.digest_type = DigestKind::Weekly;
        store.record_digest(&weekly, &mail("a"), now)?;
        store.record_digest(&digest(ada, "b", &["pmid:2"], now - Duration::days(1)), &mail("b"), now)?;
        store.record_digest(&digest(ada, "empty week", &[], now), &mail("c"), now)?;
        let stats = store.digests().digest_stats(ada)?;
        let expected = DigestStats {
            received: 3,
            with_papers: 2,
            last_weekly: Some(weekly.sent_at),
            last_with_papers: Some(now - Duration::days(1)),
            last_digest: Some(now),
        };
        assert_eq!(stats, expected, "an empty week's notice is a digest received, not one with papers");
        Ok(())
    }

    #[test]
    fn unsubscribe_tokens_name_their_user() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        store.digests().put_unsubscribe_token(TokenHash::of("tok"), ada)?;
        assert_eq!(store.digests().unsubscribe_user("tok")?, Some(ada), "a stored token from older mails");
        assert_eq!(store.digests().unsubscribe_user("other")?, None);
        let token = store.digests().unsubscribe_token(ada)?;
        assert_eq!(token, store.digests().unsubscribe_token(ada)?, "the same in every mail");
        assert_eq!(store.digests().unsubscribe_user(&token)?, Some(ada));
        let bob = UserId(Uuid::new_v4());
        assert_ne!(store.digests().unsubscribe_token(bob)?, token);
        // Another user's id with this user's signature, or a changed signature, is nobody.
        let forged = format!("{}{}", bob.0.simple(), &token[32..]);
        assert_eq!(store.digests().unsubscribe_user(&forged)?, None);
        let mut tampered = token.clone();
        tampered.replace_range(40..41, if &token[40..41] == "0" { "1" } else { "0" });
        assert_eq!(store.digests().unsubscribe_user(&tampered)?, None);
        assert_eq!(store.digests().unsubscribe_user(&token[..40])?, None);
        assert!(!store.digests().notice_sent(ada, "upgrade-invite")?);
        store.digests().mark_notice(ada, "upgrade-invite", Utc::now())?;
        assert!(store.digests().notice_sent(ada, "upgrade-invite")?);
        Ok(())
    }
}
