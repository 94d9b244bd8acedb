//! The [`Digester`] builds a user's digest of one search term — the term expanded by RM3 over
//! the index, the last week's papers from the sources the user's plan and preferences allow,
//! scored and chosen by `engine::digest` (never a paper sent before), summarized by
//! `engine::summary` — and stores it with its sent papers and its mail in one transaction.
//! Immediate searches (from `web`) and the weekly [`crate::Scheduler`] both use it.
//!
//! A term's ranking (expansion, search, why each paper matched) is computed once per day, set of
//! sources and index generation, and shared by every user who follows the term: the work grows
//! with the distinct topics, not with the users. Only the choice among the candidates (dropping
//! what each user was sent) is per user.
//!
//! Its work is blocking (index searches, sled): call it from a blocking thread or an actor of
//! its own, never on an HTTP worker's event loop.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use engine::digest::{choose_unsent, score, Candidate, Digest, DigestEntry};
use engine::expansion::Rm3;
use engine::mail::{digest_mail, DigestMail, DigestPaper, MailContext, RenderedMail};
use engine::paper::{Paper, Source};
use engine::scoring::match_reason;
use engine::summary::digest_summary;
use index::{PaperIndex, PaperQuery};
use store::{Store, TokenHash, User};
use uuid::Uuid;

/// How far back a digest looks for new papers.
pub const DIGEST_WINDOW_DAYS: i64 = 7;
/// How many ranked candidates a digest chooses from.
const CANDIDATES: usize = 100;

/// Why a digest could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    #[error("searching the paper index: {0}")]
    Index(#[from] index::IndexError),
    #[error("the database: {0}")]
    Store(#[from] store::StoreError),
}

/// Builds, stores and renders digests. Cheap to clone; clones share the ranking cache.
#[derive(Clone)]
pub struct Digester {
    store: Store,
    index: PaperIndex,
    mail: MailContext,
    /// Makes the secret of each unsubscribe link.
    new_token: fn() -> String,
    cache: Arc<Mutex<HashMap<RankKey, Arc<Ranked>>>>,
}

/// What a term's ranking depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RankKey {
    term: String,
    sources: Vec<Source>,
    today: NaiveDate,
    generation: u64,
}

/// A term's ranked candidates, the same for every user until their sent papers are dropped.
struct Ranked {
    candidates: Vec<Candidate>,
    /// The candidates worth sending, described (summaries included) and ordered.
    scored: Vec<DigestEntry>,
    searched_as: Option<String>,
}

impl Digester {
    pub fn new(store: Store, index: PaperIndex, mail: MailContext, new_token: fn() -> String) -> Digester {
        Digester { store, index, mail, new_token, cache: Arc::default() }
    }

    /// Builds `user`'s digest of `term` as of `now` (the last week's papers before it), stores it
    /// with its sent papers and queues its mail.
    pub fn run(&self, user: &User, term: &str, digest_type: &str, now: DateTime<Utc>) -> Result<Digest, DigestError> {
        let sources = self.store.preferences(user.id)?.effective(user.subscription_tier).sources();
        let today = now.date_naive();
        let ranked = self.ranked(term, sources, today)?;
        let entries = choose_unsent(&ranked.scored, |key| self.store.was_sent(user.id, key).unwrap_or(false));
        let papers: Vec<&Paper> = ranked.candidates.iter().map(|candidate| &candidate.paper).collect();
        let chosen: Vec<&Paper> = entries.iter().filter_map(|entry| paper_of(entry, &papers)).collect();
        let ai_summary = digest_summary(term, &chosen);
        let searched_as = ranked.searched_as.clone();
        let mut digest = Digest {
            id: Uuid::new_v4(),
            user_id: user.id,
            digest_type: digest_type.to_owned(),
            search_term: term.to_owned(),
            searched_as,
            subject: String::new(),
            papers_data: entries,
            ai_summary: ai_summary.join("\n"),
            status: "sent".to_owned(),
            sent_at: now,
        };
        let mail = self.render(user, &user.email, &digest)?;
        digest.subject = mail.subject.clone();
        // The digest is dated by the schedule's clock; its mail is due at once.
        self.store.record_digest(&digest, &mail, Utc::now())?;
        Ok(digest)
    }

    /// The term's ranked candidates for `today` and `sources`: searched once, then shared by
    /// every user who follows the same term with the same sources, until the index changes.
    fn ranked(&self, term: &str, sources: Vec<Source>, today: NaiveDate) -> Result<Arc<Ranked>, DigestError> {
        let key = RankKey { term: term.trim().to_lowercase(), sources: sources.clone(), today, generation: self.index.generation() };
        if let Some(ranked) = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(&key) {
            return Ok(Arc::clone(ranked));
        }
        let since = Some(today - Duration::days(DIGEST_WINDOW_DAYS));
        let query = PaperQuery { text: term.to_owned(), since, until: Some(today), sources, limit: CANDIDATES };
        let (hits, expansion) = self.index.search_expanded(&query, &Rm3::default())?;
        let query_terms = self.index.analyze(term);
        let candidates: Vec<Candidate> = hits
            .into_iter()
            .map(|hit| {
                let words = self.index.analyze(&format!("{} {}", hit.paper.title, hit.paper.abstract_text()));
                Candidate { reason: match_reason(term, &query_terms, &hit.paper, &words), paper: hit.paper, score: hit.score }
            })
            .collect();
        let searched_as = (!expansion.is_empty()).then(|| expansion.iter().map(|(word, _)| word.as_str()).collect::<Vec<_>>().join(", "));
        let scored = score(&candidates, today);
        let ranked = Arc::new(Ranked { candidates, scored, searched_as });
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Entries of older days or index generations are never asked for again.
        cache.retain(|cached, _| cached.today == key.today && cached.generation == key.generation);
        cache.insert(key, Arc::clone(&ranked));
        Ok(ranked)
    }

    /// The mail of a stored digest, to `to`, with a fresh unsubscribe link for `user`.
    pub fn render(&self, user: &User, to: &str, digest: &Digest) -> Result<RenderedMail, DigestError> {
        let token = (self.new_token)();
        self.store.put_unsubscribe_token(TokenHash::of(&token), user.id)?;
        let base = &self.mail.public_url;
        let unsubscribe_url = format!("{base}/unsubscribe?token={token}");
        let term = digest.search_term.as_str();
        let ai_summary: Vec<String> = digest.ai_summary.lines().map(str::to_owned).collect();
        let mail_papers: Vec<DigestPaper> = digest.papers_data.iter().map(DigestEntry::for_mail).collect();
        let empty_reason = self.empty_reason(user, term);
        let mut mail = digest_mail(
            &self.mail,
            to,
            &DigestMail {
                term,
                searched_as: digest.searched_as.as_deref(),
                ai_summary: &ai_summary,
                papers: &mail_papers,
                empty_reason: Some(&empty_reason),
                unsubscribe_url: &unsubscribe_url,
            },
        );
        mail.list_unsubscribe = Some(format!("{base}/api/unsubscribe/{token}"));
        Ok(mail)
    }

    /// Why a digest may be empty: no matches, and any of the user's sources whose harvest is
    /// failing.
    fn empty_reason(&self, user: &User, term: &str) -> String {
        let mut reason = format!("No new papers matched \"{term}\" in the last {DIGEST_WINDOW_DAYS} days.");
        let preferences = self.store.preferences(user.id).map(|stored| stored.effective(user.subscription_tier)).unwrap_or_default();
        let failing: Vec<&str> = preferences
            .sources()
            .into_iter()
            .filter(|source| self.store.harvest_state(*source).is_ok_and(|state| !state.is_healthy()))
            .map(engine::digest::source_label)
            .collect();
        if !failing.is_empty() {
            reason.push_str(&format!(
                " {} could not be reached at the last harvest, so some of this week's papers may be missing; they will be in a later digest.",
                failing.join(" and ")
            ));
        }
        reason
    }
}

/// The paper an entry was made from.
fn paper_of<'a>(entry: &DigestEntry, papers: &[&'a Paper]) -> Option<&'a Paper> {
    let first_key = entry.keys.first()?;
    papers.iter().copied().find(|paper| engine::dedup::dedup_keys(paper).iter().any(|key| &key.to_string() == first_key))
}
