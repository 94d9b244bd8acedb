//! Search terms (`engine::search_term::SearchTerm`), kept by id with a per-user index. Adding a
//! term checks that the user does not follow it already and the plan limit, and writes, in one
//! step under a lock, so two concurrent adds cannot both take a user's last free place nor add
//! one topic twice.

use engine::search_term::{check_term_limit, is_same_term, SearchTerm, TermId, TermLimit};
use engine::{Tier, UserId};
use sled::Transactional;

use crate::codec::{decode, encode, tx_encode};
use crate::{Result, StoreError, Terms};

fn by_user_key(user_id: UserId, id: TermId) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), id.0.as_bytes().as_slice()].concat()
}

/// What [`Terms::add`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    Added(SearchTerm),
    /// The user has this topic already (`engine::search_term::is_same_term`): this one; nothing
    /// was written.
    AlreadyFollowed(SearchTerm),
    /// The plan has no room; nothing was written.
    OverLimit(TermLimit),
}

impl Terms<'_> {
    /// A user's terms, oldest first.
    pub fn of_user(&self, user_id: UserId) -> Result<Vec<SearchTerm>> {
        let mut terms = Vec::new();
        for entry in self.store.trees().search_terms_by_user.scan_prefix(user_id.as_bytes()) {
            let (key, _) = entry?;
            let id = &key[16..];
            if let Some(bytes) = self.store.trees().search_terms.get(id)? {
                terms.push(decode::<SearchTerm>("search term", &bytes)?);
            }
        }
        terms.sort_by(|a, b| a.created_at.cmp(&b.created_at).then_with(|| a.id.cmp(&b.id)));
        Ok(terms)
    }

    /// How many terms of every user are active: one pass over the terms, for the operator's counts.
    pub fn active_term_count(&self) -> Result<u64> {
        let mut active = 0;
        for bytes in self.store.trees().search_terms.iter().values() {
            if decode::<SearchTerm>("search term", &bytes?)?.is_active {
                active += 1;
            }
        }
        Ok(active)
    }

    pub fn get(&self, id: TermId) -> Result<Option<SearchTerm>> {
        self.store.trees().search_terms.get(id.0.as_bytes())?.map(|bytes| decode("search term", &bytes)).transpose()
    }

    /// Adds `term` if the user does not have it already and the plan allows one more active
    /// term (see `engine::search_term`).
    pub fn add(&self, term: &SearchTerm, tier: Tier, is_unlimited: bool) -> Result<Added> {
        let writer = self.store.writing()?;
        let _adding = engine::sync::lock(&self.store.adding_terms);
        let existing = self.of_user(term.user_id)?;
        if let Some(same) = existing.iter().find(|existing| is_same_term(&existing.term, &term.term)) {
            return Ok(Added::AlreadyFollowed(same.clone()));
        }
        let active = existing.iter().filter(|existing| existing.is_active).count();
        if let Err(limit) = check_term_limit(tier, is_unlimited, active) {
            return Ok(Added::OverLimit(limit));
        }
        let key = by_user_key(term.user_id, term.id);
        (&writer.search_terms, &writer.search_terms_by_user)
            .transaction(|(terms, by_user)| {
                terms.insert(term.id.0.as_bytes().as_slice(), tx_encode("search term", term)?)?;
                by_user.insert(key.as_slice(), &[])?;
                Ok(())
            })
            .map_err(StoreError::from)?;
        Ok(Added::Added(term.clone()))
    }

    /// Changes a term in place; `None` when there is no such term.
    pub fn update(&self, id: TermId, change: impl Fn(&mut SearchTerm)) -> Result<Option<SearchTerm>> {
        let writer = self.store.writing()?;
        let mut updated = None;
        writer.search_terms.fetch_and_update(id.0.as_bytes(), |bytes| {
            let mut term: SearchTerm = decode("search term", bytes?).ok()?;
            change(&mut term);
            let encoded = encode("search term", &term).ok()?;
            updated = Some(term);
            Some(encoded)
        })?;
        Ok(updated)
    }

    /// Removes a term and its ratings (in one transaction); whether it was there.
    pub fn delete(&self, id: TermId) -> Result<bool> {
        let writer = self.store.writing()?;
        let Some(term) = self.get(id)? else {
            return Ok(false);
        };
        let key = by_user_key(term.user_id, id);
        let rating_keys = self.store.ratings().rating_keys(term.user_id, id)?;
        (&writer.search_terms, &writer.search_terms_by_user, &writer.ratings, &writer.channels)
            .transaction(|(terms, by_user, ratings, channels)| {
                terms.remove(id.0.as_bytes().as_slice())?;
                by_user.remove(key.as_slice())?;
                channels.remove(crate::ratings::term_prefix(term.user_id, id))?;
                for rating_key in &rating_keys {
                    ratings.remove(rating_key)?;
                }
                Ok(())
            })
            .map_err(StoreError::from)?;
        // A rating written between the listing and the transaction: none can follow it, since
        // a rating is written only while its term is there.
        for late in self.store.ratings().rating_keys(term.user_id, id)? {
            writer.ratings.remove(late)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::{Duration, Utc};
    use engine::search_term::TermStatus;
    use uuid::Uuid;

    use super::*;

    fn term(user: UserId, text: &str, minutes: i64) -> SearchTerm {
        let id = TermId(Uuid::new_v4());
        SearchTerm::new(id, user, text.into(), Tier::Free, Utc::now() + Duration::minutes(minutes))
    }

    #[test]
    fn terms_are_added_within_the_plan_listed_changed_and_deleted() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let first = term(ada, "CRISPR", 0);
        assert_eq!(store.terms().add(&first, Tier::Free, false)?, Added::Added(first.clone()));
        let second = term(ada, "gene drive", 1);
        assert!(matches!(store.terms().add(&second, Tier::Free, false)?, Added::OverLimit(TermLimit::RequiresPayment { .. })));
        assert_eq!(store.terms().of_user(ada)?.len(), 1, "a refused term is not written");
        assert_eq!(store.terms().add(&second, Tier::Pro, false)?, Added::Added(second.clone()));
        store.terms().add(&term(bob, "dark matter", 2), Tier::Free, false)?;

        let listed: Vec<String> = store.terms().of_user(ada)?.into_iter().map(|term| term.term).collect();
        assert_eq!(listed, vec!["CRISPR", "gene drive"]);
        let changed = store.terms().update(first.id, |term| term.status = TermStatus::Completed)?.expect("there");
        assert_eq!(changed.status, TermStatus::Completed);
        assert_eq!(store.terms().get(first.id)?.map(|term| term.status), Some(TermStatus::Completed));
        assert_eq!(store.terms().update(TermId(Uuid::new_v4()), |_| {})?, None);

        assert!(store.terms().delete(first.id)?);
        assert!(!store.terms().delete(first.id)?);
        assert_eq!(store.terms().of_user(ada)?.len(), 1);
        assert_eq!(store.terms().of_user(bob)?.len(), 1);
        Ok(())
    }

    #[test]
    fn a_term_stored_before_exclusion_words_reads_back_with_none() -> Result<()> {
        /// A term as stored before it had `exclude`.
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct OlderTerm {
            id: TermId,
            user_id: UserId,
            term: String,
            is_active: bool,
            is_free: bool,
            status: TermStatus,
            last_processed_at: Option<chrono::DateTime<Utc>>,
            next_scheduled_run: Option<chrono::DateTime<Utc>>,
            created_at: chrono::DateTime<Utc>,
        }
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let older = OlderTerm {
            id: TermId(Uuid::new_v4()),
            user_id: ada,
            term: "CRISPR".into(),
            is_active: true,
            is_free: true,
            status: TermStatus::Completed,
            last_processed_at: None,
            next_scheduled_run: None,
            created_at: Utc::now(),
        };
        store.writing()?.search_terms.insert(older.id.0.as_bytes(), encode("search term", &older)?)?;
        store.writing()?.search_terms_by_user.insert(by_user_key(ada, older.id), &[])?;
        let read = store.terms().get(older.id)?.expect("there");
        assert_eq!((read.term.as_str(), read.status, read.exclude.len()), ("CRISPR", TermStatus::Completed, 0));
        let changed = store.terms().update(older.id, |term| term.exclude = vec!["mouse".into()])?.expect("there");
        assert_eq!(changed.exclude, ["mouse"]);
        assert_eq!(store.terms().of_user(ada)?[0].exclude, ["mouse"]);
        Ok(())
    }

    #[test]
    fn inactive_terms_do_not_count_against_the_limit() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let first = term(ada, "CRISPR", 0);
        store.terms().add(&first, Tier::Free, false)?;
        store.terms().update(first.id, |term| term.is_active = false)?;
        assert!(matches!(store.terms().add(&term(ada, "gene drive", 1), Tier::Free, false)?, Added::Added(_)));
        Ok(())
    }

    #[test]
    fn concurrent_adds_never_pass_the_limit() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let handles: Vec<_> = (0..8)
            .map(|index| {
                let store = store.clone();
                std::thread::spawn(move || store.terms().add(&term(ada, &format!("topic {index}"), index), Tier::Pro, false))
            })
            .collect();
        let results: Vec<Result<Added>> = handles.into_iter().map(|handle| handle.join().expect("thread")).collect();
        let added = results.iter().filter(|result| matches!(result, Ok(Added::Added(_)))).count();
        assert_eq!(added, 5);
        assert_eq!(store.terms().of_user(ada)?.len(), 5);
        Ok(())
    }

    #[test]
    fn a_topic_the_user_follows_is_not_added_again_however_it_is_typed_or_raced() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let spellings = ["CRISPR base editing", "crispr base editing", "Crispr  Base Editing", "CRISPR BASE EDITING"];
        let handles: Vec<_> = spellings
            .iter()
            .enumerate()
            .map(|(index, text)| {
                let (store, text) = (store.clone(), text.to_string());
                std::thread::spawn(move || store.terms().add(&term(ada, &text, index as i64), Tier::Team, false))
            })
            .collect();
        let results: Vec<Added> = handles.into_iter().map(|handle| handle.join().expect("thread")).collect::<Result<_>>()?;
        let added: Vec<&SearchTerm> = results.iter().filter_map(|result| if let Added::Added(term) = result { Some(term) } else { None }).collect();
        assert_eq!(added.len(), 1, "{results:?}");
        assert!(results.iter().all(|result| match result {
            Added::AlreadyFollowed(same) => same.id == added[0].id,
            other => matches!(other, Added::Added(_)),
        }));
        assert_eq!(store.terms().of_user(ada)?.len(), 1);
        // Even at the plan's limit, the answer is that the user follows it.
        assert!(matches!(store.terms().add(&term(ada, "crispr base editing", 9), Tier::Free, false)?, Added::AlreadyFollowed(_)));
        // Another user's topics are theirs.
        assert!(matches!(store.terms().add(&term(bob, "CRISPR base editing", 0), Tier::Free, false)?, Added::Added(_)));
        Ok(())
    }
}
