//! A user's rights over their records: everything kept of them, read at once ([`Accounts::user_data`],
//! the "Download my data" export), and the deletion of all of it ([`Accounts::delete_account`]).
//!
//! Deletion, crash-safe: one transaction removes every record keyed by or pointing at the user
//! (gathered just before it: the account and its address, preferences, ledger, sessions,
//! tokens, terms, digests, sent-paper sets, notices, ratings, plan history, subscription rows,
//! Stripe customer, unsubscribe tokens, queued and dead mail to the address, and the digest texts
//! no other digest uses) and leaves a mark, `account_deletions` (user id → address and the
//! confirmation mail). Then whatever was written for the user meanwhile is swept. The mark names
//! the address ([`Accounts::account_deletions_to_close`]) until [`Accounts::close_account_deletion`]
//! sweeps again and, in one last transaction, removes the mark and queues the confirmation mail;
//! between the two the mailer removes its outbox files to the address
//! (`actors::mailer::close_account_deletions`, also run at every start, so a crash after the
//! first transaction is completed then).
//!
//! Paper entries (`digest_entries`) are content-addressed and shared between users: they hold a
//! paper's public metadata and its summary, nothing of the user, and are kept.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use engine::billing::SubscriptionTracking;
use engine::digest::Digest;
use engine::mail::RenderedMail;
use engine::rating::Rating;
use engine::search_term::SearchTerm;
use engine::{Preferences, UserId};
use serde::{Deserialize, Serialize};
use sled::{IVec, Transactional};

use crate::codec::{decode, tx_decode, tx_encode};
use crate::compaction::{Erasure, ERASURE_KEY};
use crate::db::TreeSet;
use crate::digests::StoredDigest;
use crate::mail_queue::{tx_enqueue, QueuedMail};
use crate::plan_history::PlanRecord;
use crate::tokens::TokenRecord;
use crate::users::{User, USER_COUNT_KEY};
use crate::{Accounts, Result};

/// Everything kept of one user, for their export.
#[derive(Debug, Clone, PartialEq)]
pub struct UserData {
    pub user: User,
    pub preferences: Preferences,
    /// Oldest first.
    pub terms: Vec<SearchTerm>,
    /// Newest first, with their papers.
    pub digests: Vec<Digest>,
    /// Newest first.
    pub ratings: Vec<Rating>,
    /// Oldest first.
    pub plan_history: Vec<PlanRecord>,
    /// Newest first.
    pub subscriptions: Vec<SubscriptionTracking>,
}

/// The mark of a deletion begun.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Deletion {
    email: String,
    started_at: DateTime<Utc>,
    confirmation: Option<RenderedMail>,
}

/// The trees a user's records live in, in the order [`Accounts::user_trees`] lists them.
#[derive(Clone, Copy)]
enum T {
    Users,
    UsersByEmail,
    Preferences,
    Ledgers,
    Sessions,
    SessionsByUser,
    Tokens,
    MailQueue,
    MailDead,
    SearchTerms,
    SearchTermsByUser,
    Digests,
    DigestTexts,
    SentPapersV1,
    SentPaperSets,
    Notices,
    Ratings,
    PlanHistory,
    UnsubscribeTokens,
    SubscriptionTracking,
    StripeCustomers,
    Meta,
    Deletions,
    Channels,
    ChannelPosts,
}

impl Accounts<'_> {
    /// Everything kept of the user, or `None` for no such user.
    pub fn user_data(&self, id: UserId) -> Result<Option<UserData>> {
        let Some(user) = self.user(id)? else {
            return Ok(None);
        };
        let mut terms = self.store.terms().of_user(id)?;
        terms.sort_by_key(|term| term.created_at);
        let mut ratings = Vec::new();
        for value in self.store.trees().ratings.scan_prefix(id.as_bytes()).values() {
            ratings.push(decode::<Rating>("rating", &value?)?);
        }
        ratings.sort_by(|a, b| b.rated_at.cmp(&a.rated_at).then_with(|| a.paper_key.cmp(&b.paper_key)));
        Ok(Some(UserData {
            preferences: self.preferences(id)?,
            terms,
            digests: self.store.digests().of_user(id)?,
            ratings,
            plan_history: self.store.billing().plan_history(id)?,
            subscriptions: self.store.billing().subscription_trackings(id)?,
            user,
        }))
    }

    fn user_trees(trees: &TreeSet<sled::Tree>) -> Vec<sled::Tree> {
        vec![
            trees.users.clone(),
            trees.users_by_email.clone(),
            trees.preferences.clone(),
            trees.digest_ledgers.clone(),
            trees.sessions.clone(),
            trees.sessions_by_user.clone(),
            trees.tokens.clone(),
            trees.mail_queue.clone(),
            trees.mail_dead.clone(),
            trees.search_terms.clone(),
            trees.search_terms_by_user.clone(),
            trees.digests.clone(),
            trees.digest_texts.clone(),
            trees.sent_papers_v1.clone(),
            trees.sent_paper_sets.clone(),
            trees.notices.clone(),
            trees.ratings.clone(),
            trees.plan_history.clone(),
            trees.unsubscribe_tokens.clone(),
            trees.subscription_tracking.clone(),
            trees.stripe_customers.clone(),
            trees.meta.clone(),
            trees.account_deletions.clone(),
            trees.channels.clone(),
            trees.channel_posts.clone(),
        ]
    }

    /// Deletes the account `id` and everything kept of it (see the module docs), keeping
    /// `confirmation` (rendered for the account) to queue as the one mail left to its address
    /// when [`Accounts::close_account_deletion`] closes the deletion. Answers the account as it was,
    /// or `None` when there was none.
    pub fn delete_account(&self, id: UserId, confirmation: impl Fn(&User) -> RenderedMail) -> Result<Option<User>> {
        let removed = self.purge_account(id, |_| true, Some(&confirmation))?;
        if removed.is_some() {
            self.sweep_account_deletion(id)?;
        }
        Ok(removed)
    }

    /// The deletions begun and not closed (the user and their address): every one just begun,
    /// and any a crash interrupted.
    pub fn account_deletions_to_close(&self) -> Result<Vec<(UserId, String)>> {
        let mut begun = Vec::new();
        for entry in self.store.trees().account_deletions.iter() {
            let (key, bytes) = entry?;
            let mark: Deletion = decode("account deletion", &bytes)?;
            if let Some(id) = UserId::from_slice(&key) {
                begun.push((id, mark.email));
            }
        }
        Ok(begun)
    }

    /// The first transaction of a deletion: removes every record of the account when
    /// `condition` holds of it, and marks the deletion begun. Answers the account removed.
    pub(crate) fn purge_account(
        &self,
        id: UserId,
        condition: impl Fn(&User) -> bool,
        confirmation: Option<&dyn Fn(&User) -> RenderedMail>,
    ) -> Result<Option<User>> {
        let writer = self.store.writing()?;
        let Some(user) = self.user(id)? else {
            return Ok(None);
        };
        let mut doomed = self.records_of(id, &user.email)?;
        doomed.extend(self.unshared_digest_texts(id)?.into_iter().map(|key| (T::DigestTexts, IVec::from(&key[..]))));
        let key = *id.as_bytes();
        let now = Utc::now();
        let trees = Accounts::user_trees(&writer);
        let removed = trees.as_slice().transaction(|views| {
            let view = |tree: T| &views[tree as usize];
            let Some(bytes) = view(T::Users).get(key)? else {
                return Ok(None);
            };
            let user: User = tx_decode("user", &bytes)?;
            if !condition(&user) {
                return Ok(None);
            }
            for (tree, record) in &doomed {
                view(*tree).remove(record)?;
            }
            let meta = view(T::Meta);
            let count = meta.get(USER_COUNT_KEY)?.as_deref().and_then(|bytes| <[u8; 8]>::try_from(bytes).ok()).map_or(0, u64::from_be_bytes);
            meta.insert(USER_COUNT_KEY, &count.saturating_sub(1).to_be_bytes())?;
            let mark = Deletion { email: user.email.clone(), started_at: now, confirmation: confirmation.map(|mail| mail(&user)) };
            view(T::Deletions).insert(&key, tx_encode("account deletion", &mark)?)?;
            Ok(Some(user))
        })?;
        if removed.is_some() {
            self.forget_decoded(id, &doomed);
        }
        Ok(removed)
    }

    /// The rest of a deletion begun: sweeps what was written for the user since, then removes
    /// the mark and queues the confirmation in one transaction. Nothing when none was begun.
    pub fn close_account_deletion(&self, id: UserId) -> Result<()> {
        if !self.sweep_account_deletion(id)? {
            return Ok(());
        }
        let trees = self.store.writing()?;
        let Some(bytes) = trees.account_deletions.get(id.as_bytes())? else {
            return Ok(());
        };
        let mark: Deletion = decode("account deletion", &bytes)?;
        (&trees.account_deletions, &trees.mail_queue, &trees.meta).transaction(|(deletions, queue, meta)| {
            if deletions.remove(id.as_bytes().as_slice())?.is_some() {
                let now = Utc::now();
                let mail = match &mark.confirmation {
                    Some(mail) => Some(tx_enqueue(queue, mail, None, now)?),
                    None => None,
                };
                // What is deleted stays in the database's files until a compaction.
                let previous = meta.get(ERASURE_KEY)?.map(|bytes| tx_decode::<Erasure>("erasure mark", &bytes)).transpose()?;
                meta.insert(ERASURE_KEY, tx_encode("erasure mark", &Erasure::after(previous, now, mail))?)?;
            }
            Ok(())
        })?;
        drop(trees);
        self.store.flush()?;
        tracing::info!(user_id = %id, "account deleted");
        Ok(())
    }

    /// Removes what was written for a user whose deletion was begun, since it began; the mark
    /// stays. Answers whether a deletion of `id` was begun.
    fn sweep_account_deletion(&self, id: UserId) -> Result<bool> {
        let writer = self.store.writing()?;
        let Some(bytes) = writer.account_deletions.get(id.as_bytes())? else {
            return Ok(false);
        };
        let mark: Deletion = decode("account deletion", &bytes)?;
        let leftovers = self.records_of(id, &mark.email)?;
        let trees = Accounts::user_trees(&writer);
        for (tree, record) in &leftovers {
            // Mail queued to the address after the deletion began goes too; the mark stays.
            if !matches!(tree, T::Deletions | T::Meta) {
                trees[*tree as usize].remove(record)?;
            }
        }
        self.forget_decoded(id, &leftovers);
        Ok(true)
    }

    fn forget_decoded(&self, id: UserId, records: &[(T, IVec)]) {
        self.store.signed_in.users.forget(id.as_bytes());
        self.store.signed_in.ledgers.forget(id.as_bytes());
        for (tree, key) in records {
            if matches!(tree, T::Sessions) {
                self.store.signed_in.sessions.forget(key);
            }
        }
    }

    /// The keys of every record of the user `id` (address `email`), by tree: those under the id,
    /// and those whose value names the user or is mail to the address.
    fn records_of(&self, id: UserId, email: &str) -> Result<Vec<(T, IVec)>> {
        let key = id.as_bytes().as_slice();
        let mut found: Vec<(T, IVec)> = Vec::new();
        for tree in [T::Users, T::Preferences, T::Ledgers] {
            found.push((tree, IVec::from(key)));
        }
        if self.store.trees().users_by_email.get(email.as_bytes())?.as_deref() == Some(key) {
            found.push((T::UsersByEmail, IVec::from(email.as_bytes())));
        }
        for entry in self.store.trees().sessions_by_user.scan_prefix(key).keys() {
            let entry = entry?;
            if let Some(hash) = entry.get(16..) {
                found.push((T::Sessions, IVec::from(hash)));
            }
            found.push((T::SessionsByUser, entry));
        }
        for entry in self.store.trees().search_terms_by_user.scan_prefix(key).keys() {
            let entry = entry?;
            if let Some(term_id) = entry.get(16..) {
                found.push((T::SearchTerms, IVec::from(term_id)));
            }
            found.push((T::SearchTermsByUser, entry));
        }
        let prefixed = [
            (T::Digests, &self.store.trees().digests),
            (T::SentPapersV1, &self.store.trees().sent_papers_v1),
            (T::SentPaperSets, &self.store.trees().sent_paper_sets),
            (T::Notices, &self.store.trees().notices),
            (T::Ratings, &self.store.trees().ratings),
            (T::PlanHistory, &self.store.trees().plan_history),
            (T::Channels, &self.store.trees().channels),
            (T::ChannelPosts, &self.store.trees().channel_posts),
        ];
        for (name, tree) in prefixed {
            for entry in tree.scan_prefix(key).keys() {
                found.push((name, entry?));
            }
        }
        for entry in self.store.trees().tokens.iter() {
            let (hash, value) = entry?;
            if decode::<TokenRecord>("token", &value).is_ok_and(|record| record.user_id == id) {
                found.push((T::Tokens, hash));
            }
        }
        for (name, tree) in [(T::MailQueue, &self.store.trees().mail_queue), (T::MailDead, &self.store.trees().mail_dead)] {
            for entry in tree.iter() {
                let (mail_id, value) = entry?;
                let queued: QueuedMail = decode("queued mail", &value)?;
                let is_theirs = queued.digest.as_ref().is_some_and(|digest| digest.user_id == id);
                if is_theirs || engine::account::normalize_email(&queued.mail.to) == email {
                    found.push((name, mail_id));
                }
            }
        }
        for (name, tree) in
            [(T::UnsubscribeTokens, &self.store.trees().unsubscribe_tokens), (T::StripeCustomers, &self.store.trees().stripe_customers)]
        {
            for entry in tree.iter() {
                let (entry_key, value) = entry?;
                if value.as_ref() == key {
                    found.push((name, entry_key));
                }
            }
        }
        for entry in self.store.trees().subscription_tracking.iter() {
            let (subscription, value) = entry?;
            if decode::<SubscriptionTracking>("subscription tracking", &value)?.user_id == id {
                found.push((T::SubscriptionTracking, subscription));
            }
        }
        Ok(found)
    }

    /// The digest texts (AI summaries, "searched as" lines) of the user's digests that no other
    /// user's digest uses. Texts are only ever referred to by their 16-byte key as a byte string,
    /// so a digest uses a text when its stored bytes hold the key.
    fn unshared_digest_texts(&self, id: UserId) -> Result<HashSet<[u8; 16]>> {
        let mut theirs = HashSet::new();
        for value in self.store.trees().digests.scan_prefix(id.as_bytes()).values() {
            let stored: StoredDigest = decode("digest", &value?)?;
            for key in stored.text_keys() {
                theirs.insert(key);
            }
        }
        if theirs.is_empty() {
            return Ok(theirs);
        }
        for entry in self.store.trees().digests.iter() {
            let (key, value) = entry?;
            if key.starts_with(id.as_bytes()) {
                continue;
            }
            for window in value.windows(16) {
                if let Ok(candidate) = <[u8; 16]>::try_from(window) {
                    theirs.remove(&candidate);
                }
            }
            if theirs.is_empty() {
                break;
            }
        }
        Ok(theirs)
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::Duration;
    use engine::digest::{DigestEntry, DigestKind, DigestStatus};
    use engine::paper::Source;
    use engine::rating::Verdict;
    use engine::search_term::TermId;
    use engine::Tier;
    use uuid::Uuid;

    use super::*;
    use crate::secret::TokenHash;
    use crate::testsuite::DigestMail;
    use crate::tokens::TokenPurpose;
    use crate::users::NewAccount;
    use crate::Session;

    fn mail_to(to: &str, subject: &str) -> RenderedMail {
        RenderedMail { to: to.into(), subject: subject.into(), html: String::new(), text: "text".into(), action_url: None, list_unsubscribe: None }
    }

    /// An account with something in every tree a user's records live in; answers it and its term.
    fn busy_account(store: &Store, email: &str, summary: &str) -> Result<(User, TermId)> {
        let now = Utc::now();
        let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), now - Duration::days(30));
        let verification = (TokenHash::of(&format!("verify {email}")), now + Duration::days(2));
        let account = NewAccount { user, preferences: Default::default(), verification: Some(verification), mail: Some(mail_to(email, "Verify")) };
        let user = store.accounts().create(account, now)?;
        store.accounts().issue_token(
            user.id,
            TokenPurpose::PasswordReset,
            TokenHash::of(&format!("reset {email}")),
            now + Duration::hours(1),
            &mail_to(email, "Reset"),
            now,
        )?;
        let session =
            Session { user_id: user.id, epoch: 0, created_at: now, expires_at: now + Duration::days(7), ip_address: Some("10.0.0.1".into()) };
        store.accounts().create_session(TokenHash::of(&format!("session {email}")), &session)?;
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, format!("topic of {email}"), Tier::Free, now);
        store.terms().add(&term, Tier::Team, false)?;
        let entry = DigestEntry {
            title: "A shared paper".into(),
            url: Some("https://doi.org/10.1/shared".into()),
            authors: "A. Author".into(),
            journal: Some("Journal".into()),
            abstract_text: "Abstract.".into(),
            source: Source::Pubmed,
            sources: vec![Source::Pubmed],
            relevance_score: 0.9,
            impact: 1.0,
            summary: "Summary.".into(),
            reason: String::new(),
            retracted: false,
            keys: vec!["doi:10.1/shared".into()],
            links: vec![],
        };
        let digest = Digest {
            id: Uuid::new_v4(),
            user_id: user.id,
            digest_type: DigestKind::Immediate,
            search_term: term.term.clone(),
            term_id: Some(term.id),
            searched_as: Some(format!("searched as {email}")),
            papers_data: vec![entry],
            ai_summary: summary.into(),
            subject: String::new(),
            status: DigestStatus::Sent,
            sent_at: now - Duration::days(1),
            sent_before: 0,
            widened: None,
        };
        store.record_digest(&digest, &DigestMail { to: email.into(), subject: "Digest".into(), list_unsubscribe: None }, now)?;
        let rating = Rating {
            term_id: term.id,
            paper_key: "doi:10.1/shared".into(),
            title: "A shared paper".into(),
            verdict: Verdict::Relevant,
            digest_id: Some(digest.id),
            rated_at: now,
            seeded: false,
        };
        store.ratings().rate(user.id, &rating)?;
        store.digests().mark_notice(user.id, "upgrade-invite", now)?;
        store.digests().put_unsubscribe_token(TokenHash::of(&format!("unsubscribe {email}")), user.id)?;
        let customer = format!("cus_{}", user.id.0.simple());
        store.billing().set_stripe_customer(user.id, &customer)?;
        store.billing().track_subscription(user.id, &format!("sub_{}", user.id.0.simple()), Tier::Pro, now)?;
        store.billing().set_plan(user.id, Tier::Pro)?;
        let dead = store.mail().enqueue(&mail_to(email, "Bounced"), now)?;
        store.mail().move_to_dead(dead, "rejected")?;
        store.mail().enqueue(&mail_to(&email.to_uppercase(), "Queued"), now)?;
        store.accounts().put_preferences(user.id, &Preferences { weekly_digest: false, ..Preferences::default() })?;
        Ok((store.accounts().user(user.id)?.expect("the account"), term.id))
    }

    fn mentions(haystack: &[u8], needles: &[Vec<u8>]) -> bool {
        needles.iter().any(|needle| haystack.windows(needle.len()).any(|window| window == needle.as_slice()))
    }

    #[test]
    fn the_export_holds_the_user_s_records_and_nobody_else_s() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, ada_term) = busy_account(&store, "ada@example.org", "Ada's summary")?;
        busy_account(&store, "bob@example.org", "Bob's summary")?;
        let data = store.accounts().user_data(ada.id)?.expect("ada's data");
        assert_eq!(data.user, ada);
        assert!(!data.preferences.weekly_digest);
        assert_eq!(data.terms.iter().map(|term| term.id).collect::<Vec<_>>(), vec![ada_term]);
        assert_eq!(data.digests.len(), 1);
        assert_eq!(data.digests[0].papers_data[0].title, "A shared paper");
        assert_eq!(data.digests[0].ai_summary, "Ada's summary");
        assert_eq!(data.ratings.len(), 1);
        assert_eq!(data.plan_history.len(), 1);
        assert_eq!((data.plan_history[0].from, data.plan_history[0].to), (Tier::Free, Tier::Pro));
        assert_eq!(data.subscriptions.len(), 1);
        assert!(data.subscriptions.iter().all(|row| row.user_id == ada.id));
        assert_eq!(store.accounts().user_data(UserId(Uuid::new_v4()))?, None);
        Ok(())
    }

    #[test]
    fn a_deleted_account_leaves_nothing_of_its_user_but_the_confirmation() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, _) = busy_account(&store, "ada@example.org", "Ada's summary")?;
        let (bob, _) = busy_account(&store, "bob@example.org", "Bob's summary")?;
        let bob_before = store.accounts().user_data(bob.id)?;
        let users_before = store.accounts().user_count();
        let confirmation = |user: &User| mail_to(&user.email, "Your Papertide account has been deleted");
        let deleted = store.accounts().delete_account(ada.id, confirmation)?;
        assert_eq!(deleted.map(|user| user.id), Some(ada.id));
        assert_eq!(store.accounts().user_count(), users_before - 1);
        assert_eq!(store.accounts().account_deletions_to_close()?, vec![(ada.id, "ada@example.org".to_owned())], "the address, for the outbox");
        let queued_to_ada = store.mail().queued()?.into_iter().filter(|queued| queued.mail.to == "ada@example.org").count();
        assert_eq!(queued_to_ada, 0, "the confirmation waits for the deletion's close");
        store.accounts().close_account_deletion(ada.id)?;
        assert_eq!(store.accounts().account_deletions_to_close()?, Vec::new());

        let needles = vec![
            ada.id.as_bytes().to_vec(),
            ada.id.0.to_string().into_bytes(),
            ada.id.0.simple().to_string().into_bytes(),
            b"ada@example.org".to_vec(),
            b"ADA@EXAMPLE.ORG".to_vec(),
            b"Ada's summary".to_vec(),
            b"searched as ada@".to_vec(),
        ];
        let mut confirmations = 0;
        for (tree, key, value) in store.raw_entries()? {
            if !(mentions(&key, &needles) || mentions(&value, &needles)) {
                continue;
            }
            let queued = (tree == "mail_queue").then(|| decode::<QueuedMail>("queued mail", &value)).transpose()?;
            match queued {
                Some(queued) if queued.mail.subject == "Your Papertide account has been deleted" => confirmations += 1,
                _ => panic!("{tree} still holds a record of the deleted user: {}", String::from_utf8_lossy(&value)),
            }
        }
        assert_eq!(confirmations, 1, "exactly one confirmation is queued");
        assert_eq!(store.accounts().user_data(bob.id)?, bob_before, "bob's records are untouched");
        assert_eq!(store.digests().of_user(bob.id)?[0].papers_data[0].title, "A shared paper", "the shared paper entry stays");
        assert!(store.accounts().user_by_email("ada@example.org")?.is_none());
        assert_eq!(store.accounts().delete_account(ada.id, confirmation)?, None, "a second deletion finds nothing");

        let again = User::new(UserId(Uuid::new_v4()), "ada@example.org", "hash".into(), Utc::now());
        store.accounts().create(NewAccount { user: again, preferences: Default::default(), verification: None, mail: None }, Utc::now())?;
        assert!(store.accounts().user_by_email("ada@example.org")?.is_some(), "the address is free again");
        Ok(())
    }

    #[test]
    fn a_deletion_a_crash_interrupted_is_finished_at_the_next_start() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, _) = busy_account(&store, "ada@example.org", "Ada's summary")?;
        let confirmation = |user: &User| mail_to(&user.email, "Your Papertide account has been deleted");
        store.accounts().purge_account(ada.id, |_| true, Some(&confirmation))?;
        // Written for the user after the first transaction, before the crash.
        store.mail().enqueue(&mail_to("ada@example.org", "Late"), Utc::now())?;
        store.digests().mark_notice(ada.id, "late-notice", Utc::now())?;
        assert_eq!(store.trees().account_deletions.len(), 1, "the deletion is marked begun");
        assert_eq!(store.accounts().account_deletions_to_close()?, vec![(ada.id, "ada@example.org".to_owned())]);
        store.accounts().close_account_deletion(ada.id)?;
        assert!(store.trees().account_deletions.is_empty());
        let subjects: Vec<String> =
            store.mail().queued()?.into_iter().filter(|queued| queued.mail.to == "ada@example.org").map(|queued| queued.mail.subject).collect();
        assert_eq!(subjects, vec!["Your Papertide account has been deleted"]);
        assert!(!store.digests().notice_sent(ada.id, "late-notice")?);
        Ok(())
    }
}
