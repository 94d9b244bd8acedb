//! Ratings (`engine::rating::Rating`): one per user, term and paper, kept under user ++ term ++
//! the paper's first dedup key, so a new verdict replaces the old one and a term's ratings (or a
//! user's) are one prefix scan. A rating is written only while its term exists (checked in the
//! same transaction), deleting a term removes its ratings, and a term keeps at most
//! [`MAX_RATINGS_PER_TERM`]: the oldest go.
//!
//! The installation's key of the rating links (`engine::rating`) lives in `meta`.

use engine::rating::Rating;
use engine::search_term::TermId;
use engine::UserId;
use sled::Transactional;

use crate::codec::{decode, tx_encode};
use crate::{Ratings, Result, StoreError};

/// The most ratings a term keeps; past it, the oldest go.
pub const MAX_RATINGS_PER_TERM: usize = 1000;

/// The meta key of the rating links' secret.
const RATING_LINK_KEY: &[u8] = b"rating_link_key";

pub(crate) fn term_prefix(user_id: UserId, term_id: TermId) -> Vec<u8> {
    [user_id.as_bytes().as_slice(), term_id.0.as_bytes().as_slice()].concat()
}

fn rating_key(user_id: UserId, term_id: TermId, paper_key: &str) -> Vec<u8> {
    [term_prefix(user_id, term_id).as_slice(), paper_key.as_bytes()].concat()
}

impl Ratings<'_> {
    /// Records `rating` of the user's term (replacing their earlier verdict on the paper), then
    /// drops the term's oldest ratings past [`MAX_RATINGS_PER_TERM`]. A term that is not the
    /// user's (or no longer there) is [`StoreError::NotFound`], and nothing is written.
    pub fn rate(&self, user_id: UserId, rating: &Rating) -> Result<()> {
        let writer = self.store.writing()?;
        let key = rating_key(user_id, rating.term_id, &rating.paper_key);
        let term_index_key = term_prefix(user_id, rating.term_id);
        (&writer.search_terms_by_user, &writer.ratings)
            .transaction(|(by_user, ratings)| {
                if by_user.get(term_index_key.as_slice())?.is_none() {
                    return Err(crate::error::abort(StoreError::NotFound("search term")));
                }
                ratings.insert(key.as_slice(), tx_encode("rating", rating)?)?;
                Ok(())
            })
            .map_err(StoreError::from)?;
        self.trim_ratings(user_id, rating.term_id)
    }

    /// The user's ratings of a term, newest first.
    pub fn of_term(&self, user_id: UserId, term_id: TermId) -> Result<Vec<Rating>> {
        let mut found = Vec::new();
        for entry in self.store.trees().ratings.scan_prefix(term_prefix(user_id, term_id)) {
            let (_, bytes) = entry?;
            found.push(decode::<Rating>("rating", &bytes)?);
        }
        found.sort_by(|a, b| b.rated_at.cmp(&a.rated_at).then_with(|| a.paper_key.cmp(&b.paper_key)));
        Ok(found)
    }

    /// Removes the user's rating of a paper for a term; whether there was one.
    pub fn remove(&self, user_id: UserId, term_id: TermId, paper_key: &str) -> Result<bool> {
        let writer = self.store.writing()?;
        Ok(writer.ratings.remove(rating_key(user_id, term_id, paper_key))?.is_some())
    }

    /// The rating links' key (32 random bytes, made on first use and kept).
    pub fn link_key(&self) -> Result<Vec<u8>> {
        self.store.secret_key(RATING_LINK_KEY)
    }

    /// The rating links' key if one was made: checking a link never makes one (no link exists
    /// before it).
    pub fn link_key_if_made(&self) -> Result<Option<Vec<u8>>> {
        Ok(self.store.trees().meta.get(RATING_LINK_KEY)?.map(|key| key.to_vec()))
    }

    /// The keys of a term's ratings (to remove them with the term).
    pub(crate) fn rating_keys(&self, user_id: UserId, term_id: TermId) -> Result<Vec<sled::IVec>> {
        self.store.trees().ratings.scan_prefix(term_prefix(user_id, term_id)).keys().map(|key| key.map_err(StoreError::from)).collect()
    }

    fn trim_ratings(&self, user_id: UserId, term_id: TermId) -> Result<()> {
        let prefix = term_prefix(user_id, term_id);
        if self.store.trees().ratings.scan_prefix(&prefix).keys().nth(MAX_RATINGS_PER_TERM).is_none() {
            return Ok(());
        }
        let ratings = self.of_term(user_id, term_id)?;
        for oldest in ratings.iter().skip(MAX_RATINGS_PER_TERM) {
            self.store.writing()?.ratings.remove(rating_key(user_id, term_id, &oldest.paper_key))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use chrono::{DateTime, Utc};
    use engine::rating::Verdict;
    use engine::search_term::SearchTerm;
    use engine::Tier;
    use uuid::Uuid;

    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_790_000_000 + seconds, 0).expect("a time")
    }

    fn rating(term_id: TermId, paper_key: &str, verdict: Verdict, seconds: i64) -> Rating {
        Rating {
            term_id,
            paper_key: paper_key.into(),
            title: format!("About {paper_key}"),
            verdict,
            digest_id: Some(Uuid::from_u128(1)),
            rated_at: at(seconds),
            seeded: false,
        }
    }

    fn add_term(store: &Store, user_id: UserId, text: &str) -> Result<TermId> {
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user_id, text.into(), Tier::Team, at(0));
        store.terms().add(&term, Tier::Team, false)?;
        Ok(term.id)
    }

    fn verdicts(ratings: &[Rating]) -> Vec<(&str, Verdict)> {
        ratings.iter().map(|rating| (rating.paper_key.as_str(), rating.verdict)).collect()
    }

    #[test]
    fn a_new_verdict_replaces_the_old_and_ratings_list_newest_first() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let (crispr, drive) = (add_term(&store, ada, "CRISPR")?, add_term(&store, ada, "gene drive")?);
        let bobs = add_term(&store, bob, "dark matter")?;
        store.ratings().rate(ada, &rating(crispr, "doi:10.1/a", Verdict::Relevant, 1))?;
        store.ratings().rate(ada, &rating(crispr, "pmid:2", Verdict::NotRelevant, 2))?;
        store.ratings().rate(ada, &rating(drive, "doi:10.1/a", Verdict::MoreLikeThis, 3))?;
        store.ratings().rate(bob, &rating(bobs, "doi:10.1/a", Verdict::NotRelevant, 4))?;
        assert_eq!(verdicts(&store.ratings().of_term(ada, crispr)?), [("pmid:2", Verdict::NotRelevant), ("doi:10.1/a", Verdict::Relevant)]);

        store.ratings().rate(ada, &rating(crispr, "doi:10.1/a", Verdict::NotRelevant, 5))?;
        assert_eq!(
            verdicts(&store.ratings().of_term(ada, crispr)?),
            [("doi:10.1/a", Verdict::NotRelevant), ("pmid:2", Verdict::NotRelevant)],
            "one per paper"
        );
        assert_eq!(verdicts(&store.ratings().of_term(ada, drive)?), [("doi:10.1/a", Verdict::MoreLikeThis)], "each term its own");
        assert_eq!(store.ratings().of_term(ada, bobs)?, Vec::new(), "another user's term lists nothing of theirs");

        assert!(store.ratings().remove(ada, crispr, "pmid:2")?);
        assert!(!store.ratings().remove(ada, crispr, "pmid:2")?);
        assert!(!store.ratings().remove(ada, bobs, "doi:10.1/a")?, "a user removes only their own");
        assert_eq!(verdicts(&store.ratings().of_term(ada, crispr)?), [("doi:10.1/a", Verdict::NotRelevant)]);
        assert_eq!(store.ratings().of_term(bob, bobs)?.len(), 1);
        Ok(())
    }

    #[test]
    fn a_term_that_is_not_the_users_takes_no_rating() -> Result<()> {
        let store = Store::temporary()?;
        let (ada, bob) = (UserId(Uuid::new_v4()), UserId(Uuid::new_v4()));
        let bobs = add_term(&store, bob, "dark matter")?;
        assert!(matches!(store.ratings().rate(ada, &rating(bobs, "pmid:1", Verdict::Relevant, 1)), Err(StoreError::NotFound(_))));
        assert!(matches!(store.ratings().rate(ada, &rating(TermId(Uuid::new_v4()), "pmid:1", Verdict::Relevant, 1)), Err(StoreError::NotFound(_))));
        assert!(store.ratings().of_term(ada, bobs)?.is_empty() && store.ratings().of_term(bob, bobs)?.is_empty());
        Ok(())
    }

    #[test]
    fn deleting_a_term_or_the_account_removes_their_ratings() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let account = crate::NewAccount {
            user: crate::User::new(ada, "ada@example.org", "hash".into(), at(0)),
            preferences: engine::Preferences::default(),
            verification: None,
            mail: None,
        };
        store.accounts().create(account, at(0))?;
        let (crispr, drive) = (add_term(&store, ada, "CRISPR")?, add_term(&store, ada, "gene drive")?);
        store.ratings().rate(ada, &rating(crispr, "pmid:1", Verdict::Relevant, 1))?;
        store.ratings().rate(ada, &rating(drive, "pmid:1", Verdict::Relevant, 1))?;
        assert!(store.terms().delete(crispr)?);
        assert!(store.ratings().of_term(ada, crispr)?.is_empty());
        assert_eq!(store.ratings().of_term(ada, drive)?.len(), 1);
        assert!(
            matches!(store.ratings().rate(ada, &rating(crispr, "pmid:2", Verdict::Relevant, 2)), Err(StoreError::NotFound(_))),
            "a deleted term takes none"
        );

        assert!(store.accounts().remove_account_if(ada, |_| true)?);
        assert!(store.ratings().of_term(ada, drive)?.is_empty());
        assert_eq!(store.trees().ratings.len(), 0);
        Ok(())
    }

    #[test]
    fn a_term_keeps_its_newest_thousand() -> Result<()> {
        let store = Store::temporary()?;
        let ada = UserId(Uuid::new_v4());
        let crispr = add_term(&store, ada, "CRISPR")?;
        for index in 0..(MAX_RATINGS_PER_TERM as i64 + 3) {
            store.ratings().rate(ada, &rating(crispr, &format!("pmid:{index}"), Verdict::Relevant, index))?;
        }
        let kept = store.ratings().of_term(ada, crispr)?;
        assert_eq!(kept.len(), MAX_RATINGS_PER_TERM);
        assert_eq!(kept.first().map(|rating| rating.paper_key.as_str()), Some("pmid:1002"));
        assert_eq!(kept.last().map(|rating| rating.paper_key.as_str()), Some("pmid:3"), "the three oldest went");
        Ok(())
    }

    #[test]
    fn the_link_key_is_made_once() -> Result<()> {
        let store = Store::temporary()?;
        assert_eq!(store.ratings().link_key_if_made()?, None);
        let key = store.ratings().link_key()?;
        assert_eq!(key.len(), 32);
        assert_eq!(store.ratings().link_key_if_made()?, Some(key.clone()));
        assert_eq!(store.ratings().link_key()?, key);
        assert_ne!(store.digests().unsubscribe_token(UserId(Uuid::new_v4()))?.len(), 0);
        assert_ne!(store.secret_key(b"unsubscribe_key")?, key, "not the unsubscribe links' key");
        Ok(())
    }
}
