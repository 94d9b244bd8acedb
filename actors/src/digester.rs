//! The [`Digester`] builds a user's digest of one search term — the last week's papers from the
//! sources the user's plan and preferences allow, found, judged and chosen as the ranking recipe
//! says (`engine::recipe`, which names every step and decision; never a paper sent before),
//! summarized by `engine::summary` — and stores it with its sent papers and its mail in one
//! transaction. It does the recipe's I/O: the index searches, the embedding model, the store.
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
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use engine::digest::{allowance, score, Allowance, Candidate, Digest, DigestEntry, DigestKind, DigestStatus, Widened};
use engine::digest_text::empty_reason;
use engine::expansion::Rm3;
use engine::feedback::TermFeedback;
use engine::mail::{digest_mail, digest_subject, DigestMail, DigestPaper, MailContext, RenderedMail};
use engine::paper::{Paper, Source};
use engine::ranking::{Corpus, Expanded, Found, Knobs, Ranking, Rated};
use engine::rating::Verdict;
use engine::recipe::{self, WINDOW_DAYS};
use engine::scoring::{CollectionStats, PaperText, ScoredQuery, TaughtBy};
use engine::search_term::TermId;
use engine::summary::digest_summary;
use engine::sync::lock;
use engine::{Tier, UserId};
use index::{Hit, PaperId, PaperIndex, PaperQuery};
use store::{paper_fingerprint, Commit, DigestMailRef, EntryKey, Ledger, NewDigest, SentPapers, Store, TextKey, User, UserDigests};

use crate::error::DigestError;
use crate::llm::{Llm, ModelClass};
use crate::semantic::{Semantic, WindowVectors};
use uuid::Uuid;

/// What came of asking for a digest.
#[derive(Debug, Clone)]
pub enum DigestOutcome {
    /// Built, stored and queued (it may have no papers: a week with nothing relevant).
    Sent(Box<Digest>),
    /// Not built: a free plan whose digests are used up (`engine::digest::allowance`).
    FreeDigestsUsed,
}

impl DigestOutcome {
    /// The digest, if one was built.
    pub fn into_sent(self) -> Option<Digest> {
        match self {
            DigestOutcome::Sent(digest) => Some(*digest),
            DigestOutcome::FreeDigestsUsed => None,
        }
    }
}

/// A user's digest ledger as read, and the allowance their plan has by it: decided once
/// ([`engine::digest::allowance`]) and passed down to the digest it allows.
#[derive(Debug, Clone)]
pub struct Entitlement {
    /// The ledger the digest's commit expects to find unchanged.
    pub read: Ledger,
    pub allowance: Allowance,
}

impl Entitlement {
    /// Reads `user`'s ledger and decides their allowance.
    pub fn read(store: &Store, user: &User) -> Result<Entitlement, store::StoreError> {
        let read = store.digests().ledger(user.id)?;
        let allowance = allowance(user.subscription_tier, &read.history(user.created_at));
        Ok(Entitlement { read, allowance })
    }
}

/// How many times a digest is chosen again when the user's digests changed meanwhile.
pub(crate) const COMMIT_TRIES: usize = 16;

/// Builds and stores digests. Cheap to clone; clones share the ranking cache.
#[derive(Clone)]
pub struct Digester {
    store: Store,
    index: PaperIndex,
    renderer: DigestRenderer,
    /// The configured LLM, if any: it expands terms and writes summaries, and any failure falls
    /// back to the local expansion and the extractive summaries.
    llm: Option<Llm>,
    /// The embedding model's side of the ranking, when there is a model.
    semantic: Option<Semantic>,
    cache: Arc<Mutex<RankCache>>,
}

/// The most term rankings kept at once. A ranking is what every user of a term shares for the
/// day, so the weekly pass reuses it across batches; the terms are users' input, so the cache
/// is bounded: past it, the rankings used least recently go first.
const RANKINGS_CACHED: usize = 10_000;

/// Today's rankings by what they depend on, each with when it was last used.
#[derive(Default)]
struct RankCache {
    entries: HashMap<RankKey, (Arc<Ranked>, u64)>,
    clock: u64,
}

impl RankCache {
    fn get(&mut self, key: &RankKey) -> Option<Arc<Ranked>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|(ranked, used)| {
            *used = clock;
            Arc::clone(ranked)
        })
    }

    /// Keeps `ranked` under `key`, dropping the rankings of other days or index generations
    /// (never asked for again) and, when full, the eighth used least recently.
    fn insert(&mut self, key: RankKey, ranked: Arc<Ranked>) {
        self.entries.retain(|cached, _| cached.today == key.today && cached.generation == key.generation);
        if self.entries.len() >= RANKINGS_CACHED {
            let excess = self.entries.len() + 1 - (RANKINGS_CACHED - RANKINGS_CACHED / 8);
            let mut uses: Vec<u64> = self.entries.values().map(|(_, used)| *used).collect();
            let (_, cutoff, _) = uses.select_nth_unstable(excess - 1);
            let cutoff = *cutoff;
            self.entries.retain(|_, (_, used)| *used > cutoff);
        }
        self.clock += 1;
        self.entries.insert(key, (ranked, self.clock));
    }
}

/// What a term's ranking depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RankKey {
    term: String,
    sources: Vec<Source>,
    today: NaiveDate,
    /// How many days back the window reaches.
    window_days: i64,
    generation: u64,
    /// With a model: how many of the window's papers had their vector.
    embedded: Option<usize>,
    /// The LLM model that expands and summarizes (free and paid plans use different ones).
    model: Option<String>,
}

/// A term's ranked candidates, the same for every user until their sent papers are dropped.
struct Ranked {
    candidates: Vec<Candidate>,
    /// What a rated term's ranking reads again ([`Digester::personal`]).
    basis: Option<Arc<Basis>>,
    /// The candidates worth sending, described (summaries included) and ordered.
    scored: Vec<DigestEntry>,
    /// The stored key of each scored entry once some digest chose it: put once for every
    /// digest that has it (entries nobody chose are never stored).
    entry_keys: Mutex<Vec<Option<EntryKey>>>,
    /// Candidate index by each scored entry's first dedup key.
    by_key: HashMap<String, usize>,
    /// [`paper_fingerprint`] of each scored entry's first dedup key (the key it is sent by).
    fingerprints: Vec<Option<u64>>,
    searched_as: Option<String>,
    /// How many days back its papers may have entered (a week, or a widened digest's window).
    window_days: i64,
    /// The stored key of `searched_as`, once a digest stored it.
    searched_as_key: OnceLock<TextKey>,
    /// The AI summary of each choice of papers made so far (by their positions in `scored`),
    /// and its stored key: users who were sent none of these papers before all get the same
    /// choice.
    summaries: Mutex<HashMap<Vec<usize>, StoredSummary>>,
}

/// What a term's ranking was read from, for ranking it again with a researcher's ratings.
struct Basis {
    ranking: Ranking<PaperId>,
    /// The window's papers' vectors (with a model).
    window: Option<Arc<WindowVectors>>,
}

/// The paper index and, with a model, the window's vectors, as the ranking reads them
/// (`engine::ranking::Corpus`): searches are of the window's dates and sources.
struct IndexWindow<'a> {
    index: &'a PaperIndex,
    since: NaiveDate,
    until: NaiveDate,
    sources: &'a [Source],
    semantic: Option<&'a Semantic>,
    window: Option<&'a WindowVectors>,
}

impl IndexWindow<'_> {
    fn query(&self, text: &str, limit: usize) -> PaperQuery {
        PaperQuery { text: text.to_owned(), since: Some(self.since), until: Some(self.until), sources: self.sources.to_vec(), limit }
    }
}

fn found(hits: Vec<Hit>) -> Vec<Found<PaperId>> {
    hits.into_iter().map(|hit| Found { id: hit.id, paper: hit.paper, score: hit.score }).collect()
}

impl Corpus for IndexWindow<'_> {
    type Id = PaperId;
    type Error = DigestError;

    fn search(&self, text: &str, limit: usize) -> Result<Vec<Found<PaperId>>, DigestError> {
        Ok(found(self.index.search(&self.query(text, limit))?))
    }

    fn search_expanded(&self, text: &str, limit: usize, rm3: &Rm3) -> Result<Expanded<PaperId>, DigestError> {
        let (hits, expansion) = self.index.search_expanded(&self.query(text, limit), rm3)?;
        Ok((found(hits), expansion))
    }

    fn topic_vector(&self, text: &str) -> Result<Option<Vec<f32>>, DigestError> {
        match (self.semantic, self.window) {
            (Some(semantic), Some(_)) => Ok(Some(semantic.term_vector(text)?.to_vec())),
            _ => Ok(None),
        }
    }

    fn nearest(&self, topic: &[f32], limit: usize) -> Vec<PaperId> {
        self.window.map(|window| window.nearest(topic, limit).into_iter().map(|(id, _)| id).collect()).unwrap_or_default()
    }

    fn vector(&self, id: PaperId) -> Option<&[f32]> {
        self.window.and_then(|window| window.vector(id))
    }

    fn cosine(&self, a: &[f32], b: &[f32]) -> f32 {
        embed::cosine(a, b)
    }

    fn papers(&self, ids: &[PaperId]) -> Result<Vec<(PaperId, Paper)>, DigestError> {
        Ok(self.index.papers_by_id(ids)?)
    }

    fn analyze(&self, text: &str) -> Vec<(String, String)> {
        self.index.analyze_with_surface(text)
    }

    fn scored_query(&self, own: &[String], searched: &[(String, f32)]) -> ScoredQuery {
        self.index.scored_query(own, searched)
    }

    fn stats(&self) -> CollectionStats {
        self.index.collection_stats()
    }
}

/// Whom a digest is chosen for: their plan, the sources they read, what they were sent, and
/// their term's ratings.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub tier: Tier,
    pub sources: &'a [Source],
    pub sent: &'a SentPapers,
    pub rated: Option<&'a RatedTerm>,
}

/// A term's ratings and exclusion words, as the ranking reads them.
pub type RatedTerm = Rated;

/// A digest summary and its key in `digest_texts`.
type StoredSummary = (Arc<str>, TextKey);

impl Ranked {
    fn new(candidates: Vec<Candidate>, basis: Option<Arc<Basis>>, searched_as: Option<String>, window_days: i64, today: NaiveDate) -> Ranked {
        let scored = score(&candidates, today);
        let entry_keys = Mutex::new(vec![None; scored.len()]);
        let by_key = index_by_first_key(&candidates);
        let fingerprints = scored.iter().map(|entry| entry.keys.first().map(|key| paper_fingerprint(key))).collect();
        Ranked {
            candidates,
            basis,
            scored,
            entry_keys,
            by_key,
            fingerprints,
            searched_as,
            window_days,
            searched_as_key: OnceLock::new(),
            summaries: Mutex::default(),
        }
    }

    /// The digest-level summary of the entries at `positions` and its stored key, made once per
    /// distinct choice: by the LLM when one is given and it answers, else extractive.
    fn summary(&self, store: &Store, term: &str, positions: &[usize], llm: Option<(&Llm, ModelClass)>) -> Result<(Arc<str>, TextKey), DigestError> {
        if let Some((summary, key)) = lock(&self.summaries).get(positions) {
            return Ok((Arc::clone(summary), *key));
        }
        let papers: Vec<&Paper> =
            positions.iter().filter_map(|&position| self.scored[position].keys.first()).filter_map(|key| self.paper(key)).collect();
        let written = match llm {
            Some((llm, class)) if !papers.is_empty() => llm.summarize_digest(class, term, &papers, self.window_days).ok(),
            _ => None,
        };
        let summary: Arc<str> = written.unwrap_or_else(|| digest_summary(term, &papers, self.window_days)).join("\n").into();
        let key = store.digests().put_digest_text(&summary)?;
        lock(&self.summaries).insert(positions.to_vec(), (Arc::clone(&summary), key));
        Ok((summary, key))
    }

    /// The stored key of the "searched as" line, storing it once.
    fn searched_as_key(&self, store: &Store) -> Result<Option<TextKey>, DigestError> {
        let Some(text) = &self.searched_as else { return Ok(None) };
        if let Some(key) = self.searched_as_key.get() {
            return Ok(Some(*key));
        }
        let key = store.digests().put_digest_text(text)?;
        Ok(Some(*self.searched_as_key.get_or_init(|| key)))
    }

    /// The stored keys of the scored entries at `positions`, storing those no digest had yet.
    fn stored_keys(&self, store: &Store, positions: &[usize]) -> Result<Vec<EntryKey>, DigestError> {
        let mut keys = lock(&self.entry_keys);
        let mut found = Vec::with_capacity(positions.len());
        for &position in positions {
            let key = match keys[position] {
                Some(key) => key,
                None => {
                    let key = store.digests().put_digest_entry(&self.scored[position])?;
                    keys[position] = Some(key);
                    key
                }
            };
            found.push(key);
        }
        Ok(found)
    }

    /// The candidate paper whose first dedup key is `key`.
    fn paper(&self, key: &str) -> Option<&Paper> {
        self.by_key.get(key).map(|&index| &self.candidates[index].paper)
    }
}

impl Digester {
    pub fn new(store: Store, index: PaperIndex, mail: MailContext) -> Digester {
        let renderer = DigestRenderer::new(store.clone(), mail);
        Digester { store, index, renderer, llm: None, semantic: None, cache: Arc::default() }
    }

    /// Ranks by meaning as well as by words, with `embedder`'s vectors of the papers (made in
    /// the background) and of the topics.
    pub fn with_embedder(mut self, embedder: Arc<embed::Embedder>) -> Digester {
        self.semantic = Some(Semantic::new(embedder, self.store.clone(), self.index.clone()));
        self
    }

    /// Whether papers are ranked by meaning as well as by words.
    pub fn is_semantic(&self) -> bool {
        self.semantic.is_some()
    }

    /// Expands terms and writes summaries with `llm`, falling back to the local ways whenever
    /// it fails.
    pub fn with_llm(mut self, llm: Llm) -> Digester {
        self.llm = Some(llm);
        self
    }

    /// The configured LLM, if any.
    pub fn llm(&self) -> Option<&Llm> {
        self.llm.as_ref()
    }

    /// The renderer of this digester's mails (the mailer renders queued digests with it).
    pub fn renderer(&self) -> &DigestRenderer {
        &self.renderer
    }

    /// The sources `user`'s digests search: those their preferences name and their plan allows.
    pub fn sources(&self, user: &User) -> Result<Vec<Source>, DigestError> {
        Ok(self.store.accounts().preferences(user.id)?.effective(user.subscription_tier).sources())
    }

    /// Builds `user`'s digest of `term` as of `now` (the last week's papers before it, or
    /// further back for an immediate digest of a thin week) if their plan allows another, stores
    /// it with its sent papers and queues its mail (rendered when it is sent). Chosen again if
    /// another digest of the user's was stored meanwhile, so no paper is sent twice.
    pub fn run(&self, user: &User, term: &str, kind: DigestKind, now: DateTime<Utc>) -> Result<DigestOutcome, DigestError> {
        let entitlement = Entitlement::read(&self.store, user)?;
        self.run_entitled(user, term, None, kind, now, entitlement)
    }

    /// [`Digester::run`] with the user's ledger and allowance as the caller read and decided
    /// them ([`Entitlement::read`]); decided again only if the ledger changed before the commit.
    /// With `term_id`, the commit that records the digest also marks that term completed.
    pub fn run_entitled(
        &self,
        user: &User,
        term: &str,
        term_id: Option<TermId>,
        kind: DigestKind,
        now: DateTime<Utc>,
        entitlement: Entitlement,
    ) -> Result<DigestOutcome, DigestError> {
        let sources = self.sources(user)?;
        let list_unsubscribe = self.renderer.one_click_url(user.id)?;
        let rated = self.rated_term(user.id, term_id, term)?;
        let mut entitlement = entitlement;
        for _ in 0..COMMIT_TRIES {
            let Entitlement { read, allowance } = entitlement;
            if !allowance.allows_digest() {
                return Ok(DigestOutcome::FreeDigestsUsed);
            }
            let sent = self.store.digests().sent_papers(user.id)?;
            let reader = Reader { tier: user.subscription_tier, sources: &sources, sent: &sent, rated: rated.as_ref() };
            let chosen = self.choose(&reader, term, kind, now)?;
            let digest = chosen.new_digest(term, term_id, kind, now, &user.email, &list_unsubscribe);
            let mut ledger = read.clone();
            ledger.record(kind, user.subscription_tier, !chosen.positions.is_empty(), now);
            let committed_at = Utc::now();
            let completed_terms = term_id.map(|id| (id, committed_at)).into_iter().collect();
            let part = UserDigests { user_id: user.id, read, ledger, digests: vec![digest], invite: None, completed_terms };
            if let [Commit::Written { .. }] = self.store.digests().commit_digests(std::slice::from_ref(&part), committed_at)?.as_slice() {
                return Ok(DigestOutcome::Sent(Box::new(chosen.digest(user.id, &part.digests[0]))));
            }
            entitlement = Entitlement::read(&self.store, user)?;
        }
        Err(DigestError::Busy(COMMIT_TRIES))
    }

    /// Chooses a digest of `term` for a user on `tier` reading `sources`, who was sent `sent`:
    /// the term's shared ranking (made once per day, sources and index generation), the best
    /// papers not sent before, their stored entries and the digest's stored texts. Writes only
    /// shared, content-keyed records; [`Digests::commit_digests`] records the digest.
    pub fn choose(&self, reader: &Reader<'_>, term: &str, kind: DigestKind, now: DateTime<Utc>) -> Result<Chosen, DigestError> {
        let Reader { tier, sources, sent, rated } = *reader;
        let today = now.date_naive();
        let llm = self.llm.as_ref().map(|llm| (llm, ModelClass::for_tier(tier)));
        let was_sent = |key: &str| sent.contains(key);
        // A term with ratings or exclusion words is ranked again for its researcher.
        let ranked_for = |days: i64| -> Result<Arc<Ranked>, DigestError> {
            let shared = self.ranked(term, sources.to_vec(), today, days, llm)?;
            Ok(match rated {
                Some(rated) => self.personal(&shared, rated, today),
                None => shared,
            })
        };
        let (ranked, positions, widened) = recipe::widen(ranked_for(WINDOW_DAYS)?, kind == DigestKind::Immediate, was_sent, ranked_for)?;
        // Only an empty digest says how many papers it left out as sent before (and every one
        // of them was looked up already, to choose none).
        let sent_before = if positions.is_empty() { ranked.scored.len() } else { 0 };
        let (own_entries, entries) = match llm {
            // The LLM's summaries make the entries this user's (for now): stored as they are.
            Some(llm) => {
                let mut own: Vec<DigestEntry> = positions.iter().map(|&position| ranked.scored[position].clone()).collect();
                self.write_summaries(&ranked, &mut own, llm);
                let keys = self.store.digests().put_digest_entries(&own)?;
                (Some(own), keys)
            }
            None => (None, ranked.stored_keys(&self.store, &positions)?),
        };
        let (ai_summary, ai_summary_key) = ranked.summary(&self.store, term, &positions, llm)?;
        let searched_as_key = ranked.searched_as_key(&self.store)?;
        Ok(Chosen { ranked, positions, own_entries, entries, ai_summary, ai_summary_key, searched_as_key, widened, sent_before })
    }

    fn ranked(
        &self,
        term: &str,
        sources: Vec<Source>,
        today: NaiveDate,
        window_days: i64,
        llm: Option<(&Llm, ModelClass)>,
    ) -> Result<Arc<Ranked>, DigestError> {
        let since = today - Duration::days(window_days);
        let window = self.semantic.as_ref().map(|semantic| semantic.window(since, today, &sources)).transpose()?;
        let model = llm.map(|(llm, class)| llm.model(class).to_owned());
        let key = RankKey {
            term: term.trim().to_lowercase(),
            sources: sources.clone(),
            today,
            window_days,
            generation: self.index.generation(),
            embedded: window.as_ref().map(|window| window.embedded()),
            model,
        };
        if let Some(ranked) = lock(&self.cache).get(&key) {
            return Ok(ranked);
        }
        // The LLM's related phrases join the term's own words (`engine::digest_text`).
        let phrases = llm.and_then(|(llm, class)| llm.expand(class, term).ok()).unwrap_or_default();
        let corpus =
            IndexWindow { index: &self.index, since, until: today, sources: &sources, semantic: self.semantic.as_ref(), window: window.as_deref() };
        let ranking = engine::ranking::rank(&corpus, term, &phrases, &Knobs::default())?;
        let (candidates, searched_as) = (ranking.candidates.clone(), ranking.searched_as.clone());
        let basis = Basis { ranking, window };
        let ranked = Arc::new(Ranked::new(candidates, Some(Arc::new(basis)), searched_as, window_days, today));
        lock(&self.cache).insert(key, Arc::clone(&ranked));
        Ok(ranked)
    }

    /// The ratings and exclusion words of `user_id`'s term: the stored term `term_id` when the
    /// digest is of one, else the user's term of the text `term` (case and spacing aside), as the
    /// ranking reads them; `None` when the term has neither.
    pub fn rated_term(&self, user_id: UserId, term_id: Option<TermId>, term: &str) -> Result<Option<RatedTerm>, DigestError> {
        let stored = match term_id {
            Some(id) => self.store.terms().get(id)?.filter(|stored| stored.user_id == user_id),
            None => self.store.terms().of_user(user_id)?.into_iter().find(|stored| engine::search_term::is_same_term(&stored.term, term)),
        };
        match stored {
            Some(stored) => self.rated(&stored),
            None => Ok(None),
        }
    }

    /// The ratings and exclusion words of the stored term `stored` (the weekly pass holds its
    /// users' terms already), as the ranking reads them; `None` when it has neither.
    pub fn rated(&self, stored: &engine::search_term::SearchTerm) -> Result<Option<RatedTerm>, DigestError> {
        let user_id = stored.user_id;
        let ratings = self.store.ratings().of_term(user_id, stored.id)?;
        if ratings.is_empty() && stored.exclude.is_empty() {
            return Ok(None);
        }
        let excluded_words = stored.exclude.iter().flat_map(|word| self.index.analyze(word)).collect();
        let mut feedback = TermFeedback { excluded_words, ..TermFeedback::default() };
        let mut liked_texts = Vec::new();
        let model = self.semantic.as_ref().map(|semantic| semantic.fingerprint().to_owned());
        for rating in &ratings {
            let Some(key) = engine::dedup::DedupKey::parse(&rating.paper_key) else { continue };
            let Some((id, paper)) = self.index.find_with_id(&key)? else { continue };
            if rating.verdict != Verdict::NotRelevant {
                let words = self.index.analyze(&format!("{} {}", paper.title, paper.abstract_text()));
                liked_texts.push(PaperText::from_words(words.iter().map(String::as_str)));
            }
            let Some(model) = &model else { continue };
            let Some((_, vector)) = self.store.papers().vectors_of_model(&[id.get()], model)?.into_iter().next() else { continue };
            match rating.verdict {
                Verdict::Relevant => feedback.relevant.push(vector),
                Verdict::MoreLikeThis => feedback.relevant.extend([vector.clone(), vector]),
                Verdict::NotRelevant => feedback.rejected.push(vector),
            }
        }
        let seeded = ratings.iter().any(|rating| rating.seeded);
        let rated_from_digests = ratings.iter().any(|rating| !rating.seeded);
        let taught_by = match (seeded, rated_from_digests) {
            (true, false) => TaughtBy::Seeds,
            (true, true) => TaughtBy::SeedsAndRatings,
            (false, _) => TaughtBy::Ratings,
        };
        let known = ratings.iter().filter(|rating| rating.seeded).map(|rating| rating.paper_key.clone()).collect();
        Ok(Some(Rated { feedback, liked_texts, taught_by, known, ..Rated::default() }))
    }

    /// `ranked` ranked again for a term with ratings or exclusion words (`engine::feedback`):
    /// the topic's vector moved by the ratings, the liked papers' words joined to the topic's,
    /// papers like the rejected ones or with an exclusion word never sent, and each paper whose
    /// percent the ratings moved saying so.
    fn personal(&self, ranked: &Ranked, rated: &RatedTerm, today: NaiveDate) -> Arc<Ranked> {
        let Some(basis) = &ranked.basis else {
            return Arc::new(Ranked::new(ranked.candidates.clone(), None, ranked.searched_as.clone(), ranked.window_days, today));
        };
        // Only the text analysis, the statistics and the vectors are read again: no search.
        let corpus = IndexWindow {
            index: &self.index,
            since: today,
            until: today,
            sources: &[],
            semantic: self.semantic.as_ref(),
            window: basis.window.as_deref(),
        };
        let candidates = engine::ranking::rerank(&corpus, &basis.ranking, rated);
        Arc::new(Ranked::new(candidates, None, ranked.searched_as.clone(), ranked.window_days, today))
    }

    /// Replaces the extractive summary of each chosen paper with the LLM's: kept in the store by
    /// model and paper, so each paper is summarized once for every user and every later week.
    /// A paper the LLM cannot summarize now keeps its extractive summary.
    fn write_summaries(&self, ranked: &Ranked, entries: &mut [DigestEntry], (llm, class): (&Llm, ModelClass)) {
        let model = llm.model(class);
        for entry in entries {
            let Some(key) = entry.keys.first() else { continue };
            if let Ok(Some(summary)) = self.store.digests().paper_summary(model, key) {
                entry.summary = summary;
                continue;
            }
            let Some(paper) = ranked.paper(key) else { continue };
            if let Ok(summary) = llm.summarize_paper(class, paper) {
                if let Err(error) = self.store.digests().put_paper_summary(model, key, &summary) {
                    tracing::warn!(%error, "keeping a paper summary");
                }
                entry.summary = summary;
            }
        }
    }

    /// The mail of a stored digest, to `to`.
    pub fn render(&self, user: &User, to: &str, digest: &Digest) -> Result<RenderedMail, DigestError> {
        self.renderer.render(user, to, digest)
    }
}

/// Each candidate's position by its first dedup key (the key a digest entry is known by).
impl recipe::Choosable for Ranked {
    fn scored(&self) -> &[DigestEntry] {
        &self.scored
    }

    fn this_week(&self, position: usize) -> Option<u64> {
        self.fingerprints.get(position).copied().flatten()
    }
}

fn index_by_first_key(candidates: &[Candidate]) -> HashMap<String, usize> {
    candidates
        .iter()
        .enumerate()
        .filter_map(|(index, candidate)| engine::dedup::dedup_keys(&candidate.paper).first().map(|key| (key.to_string(), index)))
        .collect()
}

/// A user's digest of one term, chosen ([`Digester::choose`]), not yet recorded.
pub struct Chosen {
    ranked: Arc<Ranked>,
    /// The chosen entries' positions in the ranking.
    positions: Vec<usize>,
    /// The entries as this user's digest has them, when they are not the ranking's (the LLM's
    /// summaries).
    own_entries: Option<Vec<DigestEntry>>,
    entries: Vec<EntryKey>,
    ai_summary: Arc<str>,
    ai_summary_key: TextKey,
    searched_as_key: Option<TextKey>,
    widened: Option<Widened>,
    sent_before: usize,
}

impl Chosen {
    /// How many papers it sends.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The fingerprints of the papers it sends (see `store::ledger`).
    pub fn sent(&self) -> Vec<u64> {
        self.positions.iter().filter_map(|&position| self.ranked.fingerprints[position]).collect()
    }

    /// The digest to record, made `now`, its mail to `to` with `list_unsubscribe`.
    pub fn new_digest(
        &self,
        term: &str,
        term_id: Option<TermId>,
        kind: DigestKind,
        now: DateTime<Utc>,
        to: &str,
        list_unsubscribe: &str,
    ) -> NewDigest {
        NewDigest {
            id: Uuid::new_v4(),
            kind,
            term: term.to_owned(),
            term_id,
            searched_as: self.searched_as_key,
            entries: self.entries.clone(),
            sent: self.sent(),
            ai_summary: self.ai_summary_key,
            sent_at: now,
            sent_before: self.sent_before,
            widened: self.widened,
            mail: RenderedMail {
                to: to.to_owned(),
                subject: digest_subject(term, self.positions.len(), self.widened),
                html: String::new(),
                text: String::new(),
                action_url: None,
                list_unsubscribe: Some(list_unsubscribe.to_owned()),
            },
        }
    }

    /// The digest as stored by `digest` ([`Chosen::new_digest`]) for `user_id`.
    fn digest(&self, user_id: UserId, digest: &NewDigest) -> Digest {
        let papers_data = match &self.own_entries {
            Some(own) => own.clone(),
            None => self.positions.iter().map(|&position| self.ranked.scored[position].clone()).collect(),
        };
        Digest {
            id: digest.id,
            user_id,
            digest_type: digest.kind,
            search_term: digest.term.clone(),
            term_id: digest.term_id,
            searched_as: self.ranked.searched_as.clone(),
            subject: digest.mail.subject.clone(),
            papers_data,
            ai_summary: self.ai_summary.to_string(),
            status: DigestStatus::Sent,
            sent_at: digest.sent_at,
            sent_before: digest.sent_before,
            widened: digest.widened,
        }
    }
}

/// Renders digest mails: for the mailer when it sends a queued one, and for a resend or a test.
#[derive(Clone)]
pub struct DigestRenderer {
    store: Store,
    mail: MailContext,
}

impl std::fmt::Debug for DigestRenderer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("DigestRenderer").field("public_url", &self.mail.public_url).finish()
    }
}

impl DigestRenderer {
    pub fn new(store: Store, mail: MailContext) -> DigestRenderer {
        DigestRenderer { store, mail }
    }

    /// The one-click unsubscribe URL of `user_id` (`List-Unsubscribe`, RFC 8058).
    pub fn one_click_url(&self, user_id: UserId) -> Result<String, DigestError> {
        Ok(format!("{}/api/unsubscribe/{}", self.mail.public_url, self.store.digests().unsubscribe_token(user_id)?))
    }

    /// The mail of the queued digest `reference`, to `to`.
    pub fn render_queued(&self, reference: &DigestMailRef, to: &str) -> Result<RenderedMail, DigestError> {
        let digest = self.store.digests().digest_at(&reference.digest_key)?.ok_or(DigestError::Missing)?;
        let user = self.store.accounts().user(reference.user_id)?.ok_or(DigestError::Missing)?;
        self.render(&user, to, &digest)
    }

    /// The mail of a stored digest, to `to`, with `user`'s unsubscribe link.
    pub fn render(&self, user: &User, to: &str, digest: &Digest) -> Result<RenderedMail, DigestError> {
        let token = self.store.digests().unsubscribe_token(user.id)?;
        let base = &self.mail.public_url;
        let unsubscribe_url = format!("{base}/unsubscribe?token={token}");
        let term = digest.search_term.as_str();
        let ai_summary: Vec<String> = digest.ai_summary.lines().map(str::to_owned).collect();
        let mail_papers: Vec<DigestPaper> = digest.papers_data.iter().map(DigestEntry::for_mail).collect();
        let empty_reason = if mail_papers.is_empty() { Some(self.empty_reason(user, digest)) } else { None };
        // Each paper's rating links: signed tokens of the user, digest, position and verdict
        // (`engine::signed`), good for 90 days from now; nothing is stored per link.
        let link_key = self.store.ratings().link_key()?;
        let now = chrono::Utc::now();
        let rating_link = |position: u16, verdict: engine::rating::Verdict| {
            let token = engine::signed::RatingClaim::new(user.id, digest.id, position, verdict, now).sign(&link_key);
            format!("{base}/rate?token={token}")
        };
        let rating_links: Vec<engine::mail::RatingLinks> = (0..mail_papers.len())
            .map_while(|position| u16::try_from(position).ok())
            .map(|position| engine::mail::RatingLinks {
                relevant: rating_link(position, engine::rating::Verdict::Relevant),
                not_relevant: rating_link(position, engine::rating::Verdict::NotRelevant),
                more_like_this: rating_link(position, engine::rating::Verdict::MoreLikeThis),
            })
            .collect();
        let citation_claim = engine::signed::CitationClaim { user_id: user.id, digest_id: digest.id };
        let citations_url = format!("{base}/api/citations/link?token={}", citation_claim.sign(&link_key));
        let mut mail = digest_mail(
            &self.mail,
            to,
            &DigestMail {
                term,
                weekly: digest.digest_type == DigestKind::Weekly,
                searched_as: digest.searched_as.as_deref(),
                widened: digest.widened,
                ai_summary: &ai_summary,
                papers: &mail_papers,
                empty_reason: empty_reason.as_deref(),
                unsubscribe_url: &unsubscribe_url,
                rating_links: &rating_links,
                citations_url: Some(&citations_url),
            },
        );
        mail.list_unsubscribe = Some(format!("{base}/api/unsubscribe/{token}"));
        Ok(mail)
    }

    /// Why a digest may be empty (`engine::digest_text::empty_reason`), with any of the user's
    /// sources whose harvest is failing.
    fn empty_reason(&self, user: &User, digest: &Digest) -> String {
        let preferences = self.store.accounts().preferences(user.id).map(|stored| stored.effective(user.subscription_tier)).unwrap_or_default();
        let failing: Vec<Source> = preferences
            .sources()
            .into_iter()
            .filter(|source| self.store.papers().harvest_state(*source).is_ok_and(|state| !state.is_healthy()))
            .collect();
        empty_reason(&digest.search_term, digest.window_days(), digest.sent_before, &failing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking() -> Arc<Ranked> {
        Arc::new(Ranked {
            candidates: Vec::new(),
            basis: None,
            scored: Vec::new(),
            entry_keys: Mutex::default(),
            by_key: HashMap::new(),
            fingerprints: Vec::new(),
            searched_as: None,
            window_days: WINDOW_DAYS,
            searched_as_key: OnceLock::new(),
            summaries: Mutex::default(),
        })
    }

    fn key(term: &str, today: NaiveDate, generation: u64) -> RankKey {
        RankKey { term: term.to_owned(), sources: vec![Source::Pubmed], today, window_days: 7, generation, embedded: None, model: None }
    }

    #[test]
    fn the_rankings_cache_is_bounded_and_keeps_the_ones_in_use() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 27).expect("a date");
        let mut cache = RankCache::default();
        cache.insert(key("popular", today, 1), ranking());
        for index in 0..RANKINGS_CACHED * 2 {
            cache.insert(key(&format!("term {index}"), today, 1), ranking());
            if index % 100 == 0 {
                assert!(cache.get(&key("popular", today, 1)).is_some(), "a ranking in use stays ({index})");
            }
            assert!(cache.entries.len() <= RANKINGS_CACHED, "never more than the bound");
        }
        assert!(cache.get(&key("term 0", today, 1)).is_none(), "the least recently used went");
        assert!(cache.get(&key(&format!("term {}", RANKINGS_CACHED * 2 - 1), today, 1)).is_some(), "the newest stays");
        cache.insert(key("tomorrow", today.succ_opt().expect("a date"), 1), ranking());
        assert_eq!(cache.entries.len(), 1, "another day's rankings are dropped");
        cache.insert(key("new index", today.succ_opt().expect("a date"), 2), ranking());
        assert_eq!(cache.entries.len(), 1, "and another generation's");
    }
}
