//! Each user's digest ledger, the papers they were sent, and the one write that records a
//! user's digests.
//!
//! - **The ledger** (`digest_ledgers`, one small record per user) is what the weekly rules and
//!   the free plan need of a user's digests — how many they received and had papers, when the
//!   last weekly one and the last one with papers went out, whether the upgrade invitation went —
//!   kept up to date by every digest, so serving a user reads one record instead of scanning their
//!   digests. Its `version` counts the user's digest commits.
//! - **The sent papers** (`sent_paper_sets`) are one record per commit, keyed by the user and the
//!   commit's version: the fingerprints ([`paper_fingerprint`]) of the first dedup key of each
//!   paper sent. A user's set is one prefix scan; a commit writes one record, not one key per
//!   paper.
//! - **[`Digests::commit_digests`]** writes many users' digests in one transaction: each user's
//!   digests, their sent papers, their queued mails, their new ledger (and an upgrade
//!   invitation), all or nothing. Each user's part carries the ledger version their digests were
//!   chosen at; a user whose ledger moved on since (an immediate digest committed meanwhile) is
//!   left out and reported [`Commit::Stale`], so the caller chooses again: no paper is sent to a
//!   user twice, however their digests race, and no lock is held while digests are chosen.

use chrono::{DateTime, Utc};
use engine::digest::{DigestHistory, DigestKind};
use engine::mail::RenderedMail;
use engine::search_term::{SearchTerm, TermId, TermStatus};
use engine::{Tier, UserId};
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};
use sled::Transactional;

use crate::codec::{decode, encode_packed, tx_decode, tx_encode, tx_encode_packed};
use crate::digests::{digest_key, NewDigest, StoredDigest};
use crate::mail_queue::{tx_enqueue, DigestMailRef};
use crate::users::User;
use crate::{Digests, Result, StoreError};

/// What the weekly rules and the free plan know of a user's digests (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// How many digest commits the user had; the next commit must have read this one.
    pub version: u64,
    pub received: u64,
    pub with_papers: u64,
    pub last_weekly: Option<DateTime<Utc>>,
    pub last_with_papers: Option<DateTime<Utc>>,
    /// The last digest of any kind.
    pub last_digest: Option<DateTime<Utc>>,
    /// Whether the free plan's one upgrade invitation went out.
    pub invited: bool,
    /// The terms the last weekly pass served: their last processing was `last_weekly`.
    pub weekly_terms: Vec<TermId>,
    /// Of `with_papers`, those received on the free plan: what its allowance counts
    /// (`engine::digest::DigestHistory::free_with_papers`). `None` in a ledger written before
    /// it was kept, whose digests all count.
    #[serde(default)]
    pub free_with_papers: Option<u64>,
    /// The last digest received on the free plan (a user's `lastFreeSentAt`). `None` in a ledger
    /// written before it was kept.
    #[serde(default)]
    pub last_free: Option<DateTime<Utc>>,
}

impl Ledger {
    /// The free-plan and weekly rules' view of it, for a user who signed up at `signed_up_at`.
    pub fn history(&self, signed_up_at: DateTime<Utc>) -> DigestHistory {
        DigestHistory {
            signed_up_at,
            last_weekly: self.last_weekly,
            last_with_papers: self.last_with_papers,
            free_with_papers: usize::try_from(self.free_with_papers.unwrap_or(self.with_papers)).unwrap_or(usize::MAX),
            invited: self.invited,
        }
    }

    /// Adds a digest of `kind` made at `at` for a user on `tier` (`with_papers`: it had papers).
    pub fn record(&mut self, kind: DigestKind, tier: Tier, with_papers: bool, at: DateTime<Utc>) {
        let mut history = self.history(at);
        history.record(kind, tier, with_papers, at);
        self.last_weekly = history.last_weekly;
        self.last_with_papers = history.last_with_papers;
        self.free_with_papers = Some(history.free_with_papers as u64);
        self.with_papers += u64::from(with_papers);
        self.received += 1;
        self.last_digest = Some(self.last_digest.map_or(at, |last| last.max(at)));
        if !tier.is_paid() {
            self.last_free = Some(self.last_free.map_or(at, |last| last.max(at)));
        }
    }
}

/// A paper's dedup key as the sent-paper records keep it: 64 bits of FNV-1a. Stable across
/// versions (it is stored); two keys of one user's papers collide with odds of about one in
/// 10¹³, and a collision can only hold a paper back, never send one twice.
pub fn paper_fingerprint(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The papers a user was sent, by fingerprint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SentPapers(Vec<u64>);

impl SentPapers {
    /// Whether a paper with dedup key `key` was sent.
    pub fn contains(&self, key: &str) -> bool {
        self.0.binary_search(&paper_fingerprint(key)).is_ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds papers chosen since the set was read (the digests of one user's commit).
    pub fn extend(&mut self, fingerprints: &[u64]) {
        self.0.extend_from_slice(fingerprints);
        self.0.sort_unstable();
        self.0.dedup();
    }
}

/// One user's part of a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct UserDigests {
    pub user_id: UserId,
    /// The ledger as read when the digests were chosen; the commit writes `ledger` with the
    /// next version only if the stored one is still this one.
    pub read: Ledger,
    /// The ledger after these digests (its version is set by the commit).
    pub ledger: Ledger,
    pub digests: Vec<NewDigest>,
    /// An upgrade invitation to queue (the free plan's, once).
    pub invite: Option<RenderedMail>,
    /// Terms whose status becomes completed, processed at this time.
    pub completed_terms: Vec<(TermId, DateTime<Utc>)>,
}

/// What came of one user's part of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commit {
    /// Written: the queued mails' ids, the digests' first.
    Written { digest_keys: Vec<Vec<u8>>, mail_ids: Vec<u64> },
    /// Nothing written: the user's ledger changed since it was read; choose again.
    Stale,
}

fn sent_set_key(user_id: UserId, version: u64) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), &version.to_be_bytes()].concat()
}

fn fingerprints_bytes(fingerprints: &[u64]) -> Vec<u8> {
    fingerprints.iter().flat_map(|fingerprint| fingerprint.to_le_bytes()).collect()
}

type TxError = ConflictableTransactionError<StoreError>;

impl Digests<'_> {
    /// The user's ledger; an empty one for a user who never had a digest.
    pub fn ledger(&self, user_id: UserId) -> Result<Ledger> {
        match self.store.trees().digest_ledgers.get(user_id.as_bytes())? {
            Some(bytes) => decode("digest ledger", &bytes),
            None => Ok(Ledger::default()),
        }
    }

    /// [`Digests::ledger`] for a signed-in user's requests: decoded only when it changed since it
    /// was last read this way ([`crate::decoded`]). The weekly pass reads every user's ledger
    /// once and uses [`Digests::ledger`], so it does not sweep the signed-in users out.
    pub fn signed_in_ledger(&self, user_id: UserId) -> Result<Ledger> {
        match self.store.trees().digest_ledgers.get(user_id.as_bytes())? {
            Some(bytes) => Ok(Ledger::clone(&*self.store.signed_in.ledgers.get(user_id.as_bytes(), bytes)?)),
            None => Ok(Ledger::default()),
        }
    }

    /// What the free-plan rules (`engine::digest`) need to know of `user`'s digests.
    pub fn digest_history(&self, user: &User) -> Result<DigestHistory> {
        Ok(self.ledger(user.id)?.history(user.created_at))
    }

    /// Every paper the user was sent, by fingerprint.
    pub fn sent_papers(&self, user_id: UserId) -> Result<SentPapers> {
        let mut fingerprints = Vec::new();
        for entry in self.store.trees().sent_paper_sets.scan_prefix(user_id.as_bytes()) {
            let (_, bytes) = entry?;
            if bytes.len() % 8 != 0 {
                return Err(StoreError::Corrupt("a record of sent papers"));
            }
            fingerprints.extend(bytes.chunks_exact(8).map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default())));
        }
        fingerprints.sort_unstable();
        fingerprints.dedup();
        Ok(SentPapers(fingerprints))
    }

    /// Whether the paper with dedup key `key` was sent to the user.
    pub fn was_sent(&self, user_id: UserId, key: &str) -> Result<bool> {
        Ok(self.sent_papers(user_id)?.contains(key))
    }

    /// Records many users' digests in one transaction (see the module docs); answers, for each
    /// user's part in order, whether it was written. Not flushed: callers flush before they
    /// answer (a crash before that loses a user's digests and their mails together, so a redo
    /// sends them once).
    pub fn commit_digests(&self, parts: &[UserDigests], now: DateTime<Utc>) -> Result<Vec<Commit>> {
        let writer = self.store.writing()?;
        // Everything that does not depend on what the transaction reads is encoded before it,
        // since the transaction holds every other writer off while it runs.
        let encoded: Vec<Vec<(Vec<u8>, Vec<u8>)>> = parts
            .iter()
            .map(|part| {
                part.digests
                    .iter()
                    .map(|digest| {
                        Ok((digest_key(part.user_id, digest.sent_at, digest.id), encode_packed("digest", &StoredDigest::new(part.user_id, digest))?))
                    })
                    .collect::<Result<_>>()
            })
            .collect::<Result<_>>()?;
        let trees = (
            &writer.digests,
            &writer.sent_paper_sets,
            &writer.mail_queue,
            &writer.digest_ledgers,
            &writer.search_terms,
            &writer.channels,
            &writer.channel_posts,
        );
        let commits = trees
            .transaction(|(digests, sent_sets, queue, ledgers, terms, channels, posts)| {
                let mut commits = Vec::with_capacity(parts.len());
                for (part, encoded) in parts.iter().zip(&encoded) {
                    let written = commit_user(part, encoded, digests, sent_sets, queue, ledgers, terms, now)?;
                    if matches!(written, Commit::Written { .. }) {
                        for (digest, (key, _)) in part.digests.iter().zip(encoded).filter(|(digest, _)| !digest.entries.is_empty()) {
                            if let Some(term_id) = digest.term_id {
                                crate::channels::tx_queue_post(channels, posts, part.user_id, term_id, digest.id, key, now)?;
                            }
                        }
                    }
                    commits.push(written);
                }
                Ok(commits)
            })
            .map_err(StoreError::from)?;
        Ok(commits)
    }

    /// The user's terms as [`Terms::of_user`] gives them, with the last weekly pass counted
    /// as each served term's last processing.
    pub fn search_terms_as_processed(&self, user_id: UserId) -> Result<Vec<SearchTerm>> {
        let mut terms = self.store.terms().of_user(user_id)?;
        let ledger = self.ledger(user_id)?;
        if let Some(last_weekly) = ledger.last_weekly {
            for term in terms.iter_mut().filter(|term| ledger.weekly_terms.contains(&term.id)) {
                term.last_processed_at = Some(term.last_processed_at.map_or(last_weekly, |last| last.max(last_weekly)));
            }
        }
        Ok(terms)
    }

    /// Rebuilds every user's ledger from their stored digests and notices, and their sent papers
    /// from the key-per-paper records of schema 1: the migration to schema 2.
    pub(crate) fn build_ledgers(&self) -> Result<()> {
        for user in self.store.accounts().users()? {
            let mut ledger = Ledger::default();
            let stats = self.digest_stats(user.id)?;
            ledger.received = stats.received as u64;
            ledger.with_papers = stats.with_papers as u64;
            ledger.last_weekly = stats.last_weekly;
            ledger.last_with_papers = stats.last_with_papers;
            ledger.last_digest = stats.last_digest.or(user.last_digest_sent_at);
            ledger.last_free = user.last_free_sent_at;
            ledger.invited = self.notice_sent(user.id, crate::digests::UPGRADE_INVITE)?;
            let mut fingerprints: Vec<u64> = Vec::new();
            for entry in self.store.trees().sent_papers_v1.scan_prefix(user.id.as_bytes()) {
                let (key, _) = entry?;
                fingerprints.push(paper_fingerprint(&String::from_utf8_lossy(&key[16..])));
            }
            if !fingerprints.is_empty() {
                fingerprints.sort_unstable();
                self.store.writing()?.sent_paper_sets.insert(sent_set_key(user.id, 0), fingerprints_bytes(&fingerprints))?;
                ledger.version = 1;
            }
            if ledger != Ledger::default() {
                self.store.writing()?.digest_ledgers.insert(user.id.as_bytes(), encode_packed("digest ledger", &ledger)?)?;
            }
        }
        self.store.writing()?.sent_papers_v1.clear()?;
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn commit_user(
    part: &UserDigests,
    encoded: &[(Vec<u8>, Vec<u8>)],
    digests: &TransactionalTree,
    sent_sets: &TransactionalTree,
    queue: &TransactionalTree,
    ledgers: &TransactionalTree,
    terms: &TransactionalTree,
    now: DateTime<Utc>,
) -> Result<Commit, TxError> {
    let user_key = part.user_id.as_bytes();
    let stored = match ledgers.get(user_key)? {
        Some(bytes) => tx_decode::<Ledger>("digest ledger", &bytes)?,
        None => Ledger::default(),
    };
    if stored.version != part.read.version {
        return Ok(Commit::Stale);
    }
    let version = stored.version + 1;
    let ledger = Ledger { version, ..part.ledger.clone() };
    ledgers.insert(user_key.as_slice(), tx_encode_packed("digest ledger", &ledger)?)?;
    let sent: Vec<u64> = part.digests.iter().flat_map(|digest| digest.sent.iter().copied()).collect();
    if !sent.is_empty() {
        sent_sets.insert(sent_set_key(part.user_id, version), fingerprints_bytes(&sent))?;
    }
    let mut digest_keys = Vec::with_capacity(part.digests.len());
    let mut mail_ids = Vec::with_capacity(part.digests.len() + 1);
    for (digest, (key, bytes)) in part.digests.iter().zip(encoded) {
        digests.insert(key.as_slice(), bytes.as_slice())?;
        let reference = DigestMailRef { user_id: part.user_id, digest_key: key.clone() };
        mail_ids.push(tx_enqueue(queue, &digest.mail, Some(reference), now)?);
        digest_keys.push(key.clone());
    }
    if let Some(invite) = &part.invite {
        mail_ids.push(tx_enqueue(queue, invite, None, now)?);
    }
    for (term_id, at) in &part.completed_terms {
        let Some(bytes) = terms.get(term_id.0.as_bytes())? else { continue };
        let mut term: SearchTerm = tx_decode("search term", &bytes)?;
        term.status = TermStatus::Completed;
        term.last_processed_at = Some(*at);
        terms.insert(term_id.0.as_bytes().as_slice(), tx_encode("search term", &term)?)?;
    }
    Ok(Commit::Written { digest_keys, mail_ids })
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::Duration;
    use uuid::Uuid;

    use super::*;
    use crate::codec::encode;
    use crate::NewAccount;

    fn mail(to: &str) -> RenderedMail {
        RenderedMail { to: to.into(), subject: "a digest".into(), html: String::new(), text: String::new(), action_url: None, list_unsubscribe: None }
    }

    fn new_digest(store: &Store, kind: DigestKind, keys: &[&str], at: DateTime<Utc>) -> Result<NewDigest> {
        Ok(NewDigest {
            id: Uuid::new_v4(),
            kind,
            term: "malaria".into(),
            term_id: None,
            searched_as: Some(store.digests().put_digest_text("malaria, plasmodium")?),
            entries: Vec::new(),
            sent: keys.iter().map(|key| paper_fingerprint(key)).collect(),
            ai_summary: store.digests().put_digest_text("Two trials.\nOne review.")?,
            sent_at: at,
            sent_before: 0,
            widened: None,
            mail: mail("ada@example.org"),
        })
    }

    fn part(store: &Store, user_id: UserId, digests: Vec<NewDigest>) -> Result<UserDigests> {
        let read = store.digests().ledger(user_id)?;
        let mut ledger = read.clone();
        for digest in &digests {
            ledger.record(digest.kind, Tier::Free, !digest.sent.is_empty(), digest.sent_at);
        }
        Ok(UserDigests { user_id, read, ledger, digests, invite: None, completed_terms: Vec::new() })
    }

    #[test]
    fn a_commit_records_many_users_digests_their_sent_papers_and_their_ledgers() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let now = Utc::now();
        let parts = vec![
            part(
                &store,
                ada,
                vec![new_digest(&store, DigestKind::Weekly, &["doi:1", "doi:2"], now)?, new_digest(&store, DigestKind::Weekly, &[], now)?],
            )?,
            part(&store, bob, vec![new_digest(&store, DigestKind::Weekly, &["doi:2"], now)?])?,
        ];
        let commits = store.digests().commit_digests(&parts, now)?;
        assert!(commits.iter().all(|commit| matches!(commit, Commit::Written { .. })), "{commits:?}");
        assert_eq!(store.mail().queue_len(), 3);
        let sent = store.digests().sent_papers(ada)?;
        assert!(sent.contains("doi:1") && sent.contains("doi:2") && !sent.contains("doi:3"));
        assert_eq!(store.digests().sent_papers(bob)?.len(), 1);
        let ledger = store.digests().ledger(ada)?;
        assert_eq!((ledger.version, ledger.received, ledger.with_papers, ledger.last_weekly), (1, 2, 1, Some(now)));
        let digests = store.digests().of_user(ada)?;
        assert_eq!(digests.len(), 2);
        assert!(digests
            .iter()
            .all(|digest| digest.searched_as.as_deref() == Some("malaria, plasmodium") && digest.ai_summary == "Two trials.\nOne review."));
        assert!(
            digests.iter().all(|digest| digest.subject == engine::mail::digest_subject("malaria", 0, None)),
            "the subject is made as the mail's is"
        );
        // A second week's commit adds its own record; both are read.
        store
            .digests()
            .commit_digests(&[part(&store, ada, vec![new_digest(&store, DigestKind::Weekly, &["doi:3"], now + Duration::days(7))?])?], now)?;
        let sent = store.digests().sent_papers(ada)?;
        assert!(sent.contains("doi:1") && sent.contains("doi:3"));
        assert_eq!(store.digests().ledger(ada)?.version, 2);
        Ok(())
    }

    #[test]
    fn a_user_whose_ledger_moved_on_is_left_out_and_the_others_are_written() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let now = Utc::now();
        // Ada's weekly digests are chosen; then an immediate digest of hers commits first.
        let weekly_ada = part(&store, ada, vec![new_digest(&store, DigestKind::Weekly, &["doi:1"], now)?])?;
        let weekly_bob = part(&store, bob, vec![new_digest(&store, DigestKind::Weekly, &["doi:1"], now)?])?;
        store.digests().commit_digests(&[part(&store, ada, vec![new_digest(&store, DigestKind::Immediate, &["doi:1"], now)?])?], now)?;
        let before = store.raw_entries()?.into_iter().filter(|(tree, key, _)| tree != "digest_texts" && key.starts_with(ada.as_bytes())).count();
        let commits = store.digests().commit_digests(&[weekly_ada, weekly_bob], now)?;
        assert_eq!(commits[0], Commit::Stale, "chosen before the immediate digest: it could send doi:1 again");
        assert!(matches!(commits[1], Commit::Written { .. }));
        let after = store.raw_entries()?.into_iter().filter(|(tree, key, _)| tree != "digest_texts" && key.starts_with(ada.as_bytes())).count();
        assert_eq!(before, after, "nothing of ada's stale part was written");
        assert_eq!((store.digests().of_user(ada)?.len(), store.digests().of_user(bob)?.len(), store.mail().queue_len()), (1, 1, 2));
        Ok(())
    }

    /// A store with one account, Ada's, following one term on the free plan.
    fn ada_following_malaria(now: DateTime<Utc>) -> Result<(Store, User, SearchTerm)> {
        let store = Store::temporary()?;
        let user = User::new(UserId(Uuid::new_v4()), "ada@example.org", String::new(), now);
        let user = store.accounts().create(NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: None }, now)?;
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, "malaria".into(), engine::Tier::Free, now);
        store.terms().add(&term, engine::Tier::Free, false)?;
        Ok((store, user, term))
    }

    #[test]
    fn an_invitation_and_completed_terms_are_part_of_the_same_write() -> Result<()> {
        let now = Utc::now();
        let (store, user, term) = ada_following_malaria(now)?;
        let mut invitation = part(&store, user.id, Vec::new())?;
        invitation.ledger.invited = true;
        invitation.invite = Some(mail("ada@example.org"));
        invitation.completed_terms = vec![(term.id, now)];
        store.digests().commit_digests(&[invitation], now)?;
        assert!(store.digests().digest_history(&user)?.invited);
        assert_eq!(store.mail().queue_len(), 1);
        let stored = store.terms().get(term.id)?.expect("the term");
        assert_eq!((stored.status, stored.last_processed_at), (TermStatus::Completed, Some(now)));
        Ok(())
    }

    #[test]
    fn an_immediate_digest_and_its_terms_status_are_written_together_or_not_at_all() -> Result<()> {
        let now = Utc::now();
        let (store, user, term) = ada_following_malaria(now)?;
        store.terms().update(term.id, |stored| stored.status = TermStatus::Processing)?;
        // Chosen, then another digest of the user's commits first: the stale part writes neither
        // the digest nor the term's status.
        let mut stale = part(&store, user.id, vec![new_digest(&store, DigestKind::Immediate, &["doi:1"], now)?])?;
        stale.completed_terms = vec![(term.id, now)];
        store.digests().commit_digests(&[part(&store, user.id, vec![new_digest(&store, DigestKind::Weekly, &[], now)?])?], now)?;
        assert_eq!(store.digests().commit_digests(&[stale], now)?, vec![Commit::Stale]);
        assert_eq!(store.digests().of_user(user.id)?.len(), 1);
        assert_eq!(store.terms().get(term.id)?.map(|stored| stored.status), Some(TermStatus::Processing));
        // Chosen again: the digest and the completed term are one write.
        let later = now + Duration::seconds(5);
        let mut fresh = part(&store, user.id, vec![new_digest(&store, DigestKind::Immediate, &["doi:1"], later)?])?;
        fresh.completed_terms = vec![(term.id, later)];
        assert!(matches!(store.digests().commit_digests(&[fresh], later)?.as_slice(), [Commit::Written { .. }]));
        assert_eq!(store.digests().of_user(user.id)?.len(), 2);
        let stored = store.terms().get(term.id)?.expect("the term");
        assert_eq!((stored.status, stored.last_processed_at), (TermStatus::Completed, Some(later)));
        Ok(())
    }

    #[test]
    fn the_last_weekly_pass_is_the_last_processing_of_the_terms_it_served() -> Result<()> {
        let store = Store::temporary()?;
        let now = Utc::now();
        let user_id = UserId(Uuid::new_v4());
        let served = SearchTerm::new(TermId(Uuid::new_v4()), user_id, "malaria".into(), engine::Tier::Pro, now - Duration::days(9));
        let paused = SearchTerm::new(TermId(Uuid::new_v4()), user_id, "dengue".into(), engine::Tier::Pro, now - Duration::days(9));
        for term in [&served, &paused] {
            store.terms().add(term, engine::Tier::Pro, false)?;
        }
        let mut weekly = part(&store, user_id, vec![new_digest(&store, DigestKind::Weekly, &["doi:1"], now)?])?;
        weekly.ledger.weekly_terms = vec![served.id];
        store.digests().commit_digests(&[weekly], now)?;
        let terms = store.digests().search_terms_as_processed(user_id)?;
        let processed = |id: TermId| terms.iter().find(|term| term.id == id).and_then(|term| term.last_processed_at);
        assert_eq!((processed(served.id), processed(paused.id)), (Some(now), None));
        Ok(())
    }

    #[test]
    fn fingerprints_are_stable() {
        // Stored: a change of the function would forget every paper ever sent.
        assert_eq!(paper_fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(paper_fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(paper_fingerprint("doi:10.1/a"), paper_fingerprint("doi:10.1/b"));
    }

    #[test]
    fn a_schema_1_database_gets_ledgers_and_sent_papers_from_its_records() -> Result<()> {
        let store = Store::temporary()?;
        let now = Utc::now();
        let user = User::new(UserId(Uuid::new_v4()), "ada@example.org", String::new(), now - Duration::days(30));
        let user = store.accounts().create(NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: None }, now)?;
        // As schema 1 wrote them: a weekly digest with a paper inline, one key per sent paper,
        // the invitation as a notice.
        let old = engine::digest::Digest {
            id: Uuid::new_v4(),
            user_id: user.id,
            digest_type: DigestKind::Weekly,
            search_term: "malaria".into(),
            term_id: None,
            searched_as: None,
            papers_data: vec![engine::digest::DigestEntry {
                title: "A trial".into(),
                url: None,
                authors: String::new(),
                journal: None,
                abstract_text: String::new(),
                source: engine::paper::Source::Pubmed,
                sources: vec![engine::paper::Source::Pubmed],
                relevance_score: 0.9,
                impact: 1.0,
                summary: String::new(),
                reason: String::new(),
                retracted: false,
                keys: vec!["pmid:1".into()],
                links: vec![],
            }],
            ai_summary: String::new(),
            subject: "old".into(),
            status: engine::digest::DigestStatus::Sent,
            sent_at: now - Duration::days(7),
            sent_before: 0,
            widened: None,
        };
        store.writing()?.digests.insert(digest_key(user.id, old.sent_at, old.id), encode("digest", &old)?)?;
        store.writing()?.sent_papers_v1.insert([user.id.as_bytes().as_slice(), b"pmid:1"].concat(), &0i64.to_be_bytes())?;
        store.digests().record_notice(user.id, crate::UPGRADE_INVITE, now)?;
        store.digests().build_ledgers()?;
        let ledger = store.digests().ledger(user.id)?;
        assert_eq!((ledger.received, ledger.with_papers, ledger.last_weekly, ledger.invited), (1, 1, Some(old.sent_at), true));
        assert!(store.digests().was_sent(user.id, "pmid:1")? && !store.digests().was_sent(user.id, "pmid:2")?);
        assert!(store.trees().sent_papers_v1.is_empty());
        assert_eq!(store.digests().of_user(user.id)?[0].subject, "old", "a stored subject is kept");
        // The next commit follows the migrated ledger's version.
        store.digests().commit_digests(&[part(&store, user.id, vec![new_digest(&store, DigestKind::Immediate, &["pmid:2"], now)?])?], now)?;
        assert!(store.digests().was_sent(user.id, "pmid:1")? && store.digests().was_sent(user.id, "pmid:2")?);
        Ok(())
    }

    #[test]
    fn a_ledger_written_before_the_free_count_was_kept_counts_all_its_digests() -> Result<()> {
        /// The ledger as it was stored before `free_with_papers`.
        #[derive(Serialize)]
        struct Earlier {
            version: u64,
            received: u64,
            with_papers: u64,
            last_weekly: Option<DateTime<Utc>>,
            last_with_papers: Option<DateTime<Utc>>,
            last_digest: Option<DateTime<Utc>>,
            invited: bool,
            weekly_terms: Vec<TermId>,
        }
        let now = Utc::now();
        let earlier = Earlier {
            version: 3,
            received: 3,
            with_papers: 2,
            last_weekly: None,
            last_with_papers: Some(now),
            last_digest: Some(now),
            invited: false,
            weekly_terms: Vec::new(),
        };
        let mut ledger: Ledger = decode("digest ledger", &encode_packed("digest ledger", &earlier)?)?;
        assert_eq!((ledger.version, ledger.with_papers, ledger.free_with_papers), (3, 2, None));
        assert_eq!(ledger.history(now).free_with_papers, 2, "not knowing which plan they came on, all count");
        ledger.record(DigestKind::Weekly, Tier::Pro, true, now);
        assert_eq!((ledger.with_papers, ledger.free_with_papers), (3, Some(2)), "a paid plan's digest does not");
        assert_eq!(ledger.last_free, None, "nor is it the last free digest");
        Ok(())
    }

    #[test]
    fn the_last_free_digest_is_the_last_one_received_on_the_free_plan() {
        let monday = Utc::now();
        let next_monday = monday + chrono::Duration::days(7);
        let mut ledger = Ledger::default();
        ledger.record(DigestKind::Immediate, Tier::Free, true, monday);
        assert_eq!(ledger.last_free, Some(monday));
        ledger.record(DigestKind::Weekly, Tier::Free, false, next_monday);
        assert_eq!(ledger.last_free, Some(next_monday), "an empty free digest is a free digest sent");
        ledger.record(DigestKind::Weekly, Tier::Team, true, next_monday + chrono::Duration::days(7));
        assert_eq!((ledger.last_free, ledger.last_digest), (Some(next_monday), Some(next_monday + chrono::Duration::days(7))));
    }
}
