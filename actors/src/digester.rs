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
use engine::digest::{choose_unsent_positions, score, Candidate, Digest, DigestEntry, Widened, ENOUGH_PAPERS, WIDER_WINDOWS_DAYS, WINDOW_DAYS};
use engine::expansion::Rm3;
use engine::mail::{digest_mail, digest_subject, DigestMail, DigestPaper, MailContext, RenderedMail};
use engine::paper::{Paper, Source};
use engine::scoring::{evidence, match_reason, relevance, PaperText};
use engine::summary::digest_summary;
use engine::UserId;
use index::{Hit, PaperId, PaperIndex, PaperQuery};
use store::{DigestMailRef, EntryKey, Store, User};

use crate::llm::{Llm, ModelClass};
use crate::semantic::Semantic;
use uuid::Uuid;

/// How many ranked candidates a digest chooses from.
const CANDIDATES: usize = 100;

/// Why a digest could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    #[error("searching the paper index: {0}")]
    Index(#[from] index::IndexError),
    #[error("the database: {0}")]
    Store(#[from] store::StoreError),
    #[error("the digest of a queued mail, or its user, is gone")]
    Missing,
    #[error("{0}")]
    Stopped(String),
    #[error("embedding the topic: {0}")]
    Embedding(String),
}

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
    cache: Arc<Mutex<HashMap<RankKey, Arc<Ranked>>>>,
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
    /// The candidates worth sending, described (summaries included) and ordered.
    scored: Vec<DigestEntry>,
    /// The stored key of each scored entry once some digest chose it: put once for every
    /// digest that has it (entries nobody chose are never stored).
    entry_keys: Mutex<Vec<Option<EntryKey>>>,
    /// Candidate index by each scored entry's first dedup key.
    by_key: HashMap<String, usize>,
    searched_as: Option<String>,
    /// The AI summary of each choice of papers made so far (by their first keys): users who
    /// were sent none of these papers before all get the same choice.
    summaries: Mutex<HashMap<Vec<String>, Arc<str>>>,
}

impl Ranked {
    /// The digest-level summary of `entries`, made once per distinct choice: by the LLM when
    /// one is given and it answers, else extractive.
    fn summary(&self, term: &str, entries: &[DigestEntry], llm: Option<(&Llm, ModelClass)>) -> Arc<str> {
        let choice: Vec<String> = entries.iter().filter_map(|entry| entry.keys.first().cloned()).collect();
        if let Some(summary) = lock(&self.summaries).get(&choice) {
            return Arc::clone(summary);
        }
        let papers: Vec<&Paper> = choice.iter().filter_map(|key| self.paper(key)).collect();
        let written = match llm {
            Some((llm, class)) if !papers.is_empty() => llm.summarize_digest(class, term, &papers).ok(),
            _ => None,
        };
        let summary: Arc<str> = written.unwrap_or_else(|| digest_summary(term, &papers)).join("\n").into();
        lock(&self.summaries).insert(choice, Arc::clone(&summary));
        summary
    }

    /// The stored keys of the scored entries at `positions`, storing those no digest had yet.
    fn stored_keys(&self, store: &Store, positions: &[usize]) -> Result<Vec<EntryKey>, DigestError> {
        let mut keys = lock(&self.entry_keys);
        let mut found = Vec::with_capacity(positions.len());
        for &position in positions {
            let key = match keys[position] {
                Some(key) => key,
                None => {
                    let key = store.put_digest_entry(&self.scored[position])?;
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
        Ok(self.store.preferences(user.id)?.effective(user.subscription_tier).sources())
    }

    /// Builds `user`'s digest of `term` as of `now` (the last week's papers before it), stores it
    /// with its sent papers and queues its mail (rendered when it is sent).
    pub fn run(&self, user: &User, term: &str, digest_type: &str, now: DateTime<Utc>) -> Result<Digest, DigestError> {
        let sources = self.sources(user)?;
        let today = now.date_naive();
        let llm = self.llm.as_ref().map(|llm| (llm, ModelClass::for_tier(user.subscription_tier)));
        let was_sent = |key: &str| self.store.was_sent(user.id, key).unwrap_or(false);
        let mut ranked = self.ranked(term, sources.clone(), today, WINDOW_DAYS, llm)?;
        let mut chosen = choose_unsent_positions(&ranked.scored, was_sent);
        let mut widened = None;
        if digest_type == "immediate" {
            // The first digest of a topic is never empty when the literature has matches: a
            // week with too few looks back 30, then 90 days.
            let this_week = chosen.len();
            for days in WIDER_WINDOWS_DAYS {
                if chosen.len() >= ENOUGH_PAPERS {
                    break;
                }
                let wider = self.ranked(term, sources.clone(), today, days, llm)?;
                let wider_chosen = choose_unsent_positions(&wider.scored, was_sent);
                // Searched back `days` either way: an empty digest says how far.
                if wider_chosen.len() > chosen.len() || chosen.is_empty() {
                    (ranked, chosen) = (wider, wider_chosen);
                    widened = Some(Widened { days, new_this_week: this_week });
                }
            }
        }
        // Only an empty digest says how many papers it left out as sent before (and every one
        // of them was looked up already, to choose none).
        let sent_before = if chosen.is_empty() { ranked.scored.len() } else { 0 };
        let mut entries: Vec<DigestEntry> = chosen.iter().map(|&position| ranked.scored[position].clone()).collect();
        let entry_keys = match llm {
            // The LLM's summaries make the entries this user's (for now): stored as they are.
            Some(llm) => {
                self.write_summaries(&ranked, &mut entries, llm);
                self.store.put_digest_entries(&entries)?
            }
            None => ranked.stored_keys(&self.store, &chosen)?,
        };
        let ai_summary = ranked.summary(term, &entries, llm).to_string();
        let digest = Digest {
            id: Uuid::new_v4(),
            user_id: user.id,
            digest_type: digest_type.to_owned(),
            search_term: term.to_owned(),
            searched_as: ranked.searched_as.clone(),
            subject: digest_subject(term, entries.len()),
            papers_data: entries,
            ai_summary,
            status: "sent".to_owned(),
            sent_at: now,
            sent_before,
            widened,
        };
        let mail = store::DigestMail {
            to: user.email.clone(),
            subject: digest.subject.clone(),
            list_unsubscribe: Some(self.renderer.one_click_url(user.id)?),
        };
        // The digest is dated by the schedule's clock; its mail is due at once.
        self.store.record_digest_with(&digest, entry_keys, &mail, Utc::now())?;
        Ok(digest)
    }

    /// The term's ranked candidates for `today`, `sources` and the last `window_days` days:
    /// searched once, then shared by every user who follows the same term with the same
    /// sources, until the index changes (or, with a model, until more of the window's papers
    /// have their vectors).
    fn ranked(&self, term: &str, sources: Vec<Source>, today: NaiveDate, window_days: i64, llm: Option<(&Llm, ModelClass)>) -> Result<Arc<Ranked>, DigestError> {
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
            return Ok(Arc::clone(ranked));
        }
        // The LLM's related phrases join the term's own words; the term is given twice so that
        // the user's words weigh more than any one suggestion.
        let phrases = llm.and_then(|(llm, class)| llm.expand(class, term).ok()).unwrap_or_default();
        let text = if phrases.is_empty() { term.to_owned() } else { format!("{term} {term} {}", phrases.join(" ")) };
        let query = PaperQuery { text, since: Some(since), until: Some(today), sources, limit: CANDIDATES };
        let query_terms = self.index.analyze(term);
        let (hits, expansion, similarity) = match (&self.semantic, &window) {
            (Some(semantic), Some(window)) => {
                // With a model: BM25's best and the closest in meaning, each paper once (no RM3:
                // with the model it lowered SciFact; bench/README.md, "relevance").
                let topic = semantic.term_vector(term)?;
                let mut hits = self.index.search(&query)?;
                let nearest: Vec<PaperId> =
                    window.nearest(&topic, CANDIDATES).into_iter().map(|(id, _)| id).filter(|id| !hits.iter().any(|hit| hit.id == *id)).collect();
                hits.extend(self.index.papers_by_id(&nearest)?.into_iter().map(|(id, paper)| Hit { id, paper, score: 0.0 }));
                let similarity: HashMap<PaperId, f32> =
                    hits.iter().filter_map(|hit| window.vector(hit.id).map(|vector| (hit.id, embed::cosine(&topic, vector)))).collect();
                // The words searched: the topic's own, or with the LLM's phrases, by their counts.
                let searched = if phrases.is_empty() { Vec::new() } else { word_weights(&self.index.analyze(&query.text)) };
                (hits, searched, Some(similarity))
            }
            _ => {
                let (hits, expansion) = self.index.search_expanded(&query, &Rm3::default())?;
                (hits, expansion, None)
            }
        };
        // Relevance is absolute: the user's own words against each paper, and the words the
        // papers were searched with, by the whole index's statistics (`engine::scoring`), with
        // the paper's similarity in meaning when there is a model.
        let scored_query = self.index.scored_query(&query_terms, &expansion);
        let stats = self.index.collection_stats();
        let mut surfaces = Surfaces::of(&expansion);
        // The topic's own words as the user typed them, whatever the week holds.
        surfaces.count(&self.index.analyze_with_surface(term));
        let added_words: Vec<String> = expansion.iter().map(|(word, _)| word.clone()).filter(|word| !query_terms.contains(word)).collect();
        let candidates: Vec<Candidate> = hits
            .into_iter()
            .map(|hit| {
                let analyzed = self.index.analyze_with_surface(&format!("{} {}", hit.paper.title, hit.paper.abstract_text()));
                surfaces.count(&analyzed);
                let text = PaperText::from_words(analyzed.iter().map(|(word, _)| word.as_str()));
                let cosine = similarity.as_ref().and_then(|similarity| similarity.get(&hit.id).copied());
                let evidence = evidence(&scored_query, &text, &stats).with_similarity(cosine);
                let mut reason = match_reason(term, &query_terms, &added_words, &hit.paper, &analyzed);
                reason.similar = reason.is_empty() && evidence.similarity.is_some_and(|similarity| similarity > 0.0);
                // The search score only breaks ties: with a model, the fused score.
                let score = if cosine.is_some() { evidence.score() as f32 } else { hit.score };
                Candidate { reason, relevance: relevance(&evidence), paper: hit.paper, score }
            })
            .collect();
        let searched_as = searched_as(&phrases, &expansion, &surfaces);
        let scored = score(&candidates, today);
        let entry_keys = Mutex::new(vec![None; scored.len()]);
        let by_key = index_by_first_key(&candidates);
        let ranked = Arc::new(Ranked { candidates, scored, entry_keys, by_key, searched_as, summaries: Mutex::default() });
        let mut cache = lock(&self.cache);
        // Entries of older days or index generations are never asked for again.
        cache.retain(|cached, _| cached.today == key.today && cached.generation == key.generation);
        cache.insert(key, Arc::clone(&ranked));
        Ok(ranked)
    }

    /// Replaces the extractive summary of each chosen paper with the LLM's: kept in the store by
    /// model and paper, so each paper is summarized once for every user and every later week.
    /// A paper the LLM cannot summarize now keeps its extractive summary.
    fn write_summaries(&self, ranked: &Ranked, entries: &mut [DigestEntry], (llm, class): (&Llm, ModelClass)) {
        let model = llm.model(class);
        for entry in entries {
            let Some(key) = entry.keys.first() else { continue };
            if let Ok(Some(summary)) = self.store.paper_summary(model, key) {
                entry.summary = summary;
                continue;
            }
            let Some(paper) = ranked.paper(key) else { continue };
            if let Ok(summary) = llm.summarize_paper(class, paper) {
                if let Err(error) = self.store.put_paper_summary(model, key, &summary) {
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

/// How the papers spelled each word of an expanded query: the index's words are stems
/// ("toxic", "phthalat"), which read badly in a mail.
struct Surfaces(HashMap<String, HashMap<String, u32>>);

impl Surfaces {
    fn of(expansion: &[(String, f32)]) -> Surfaces {
        Surfaces(expansion.iter().map(|(word, _)| (word.clone(), HashMap::new())).collect())
    }

    /// Counts the spellings of the expansion's words in one paper's analyzed text.
    fn count(&mut self, analyzed: &[(String, String)]) {
        for (word, surface) in analyzed {
            if let Some(spellings) = self.0.get_mut(word) {
                *spellings.entry(surface.clone()).or_default() += 1;
            }
        }
    }

    /// The commonest spelling of `word` (the shorter one on a tie), if the topic or a paper
    /// spelled it.
    fn readable(&self, word: &str) -> Option<&str> {
        self.0
            .get(word)
            .and_then(|spellings| spellings.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.len().cmp(&a.0.len())).then_with(|| b.0.cmp(a.0))))
            .map(|(surface, _)| surface.as_str())
    }
}

/// How many words of the expanded query "searched as" shows (the strongest; the rest weigh
/// little each).
const SEARCHED_AS_WORDS: usize = 10;

/// "Searched as …": the LLM's phrases, then the strongest words of the expanded query as the
/// topic or the papers spell them (each once). A word neither spelled (an expansion word of a
/// week with no candidates) is left out rather than shown as the index's stem.
fn searched_as(phrases: &[String], expansion: &[(String, f32)], surfaces: &Surfaces) -> Option<String> {
    let mut shown: Vec<&str> = phrases.iter().map(String::as_str).collect();
    for (word, _) in expansion.iter().take(SEARCHED_AS_WORDS) {
        let Some(readable) = surfaces.readable(word) else { continue };
        if !shown.contains(&readable) {
            shown.push(readable);
        }
    }
    (!shown.is_empty()).then(|| shown.join(", "))
}

/// Each distinct word with its share of `words`, commonest first.
fn word_weights(words: &[String]) -> Vec<(String, f32)> {
    let mut counts: Vec<(String, f32)> = Vec::new();
    for word in words {
        match counts.iter_mut().find(|(known, _)| known == word) {
            Some((_, count)) => *count += 1.0,
            None => counts.push((word.clone(), 1.0)),
        }
    }
    let total = words.len().max(1) as f32;
    counts.iter_mut().for_each(|(_, count)| *count /= total);
    counts.sort_by(|a, b| b.1.total_cmp(&a.1));
    counts
}

/// Each candidate's position by its first dedup key (the key a digest entry is known by).
fn index_by_first_key(candidates: &[Candidate]) -> HashMap<String, usize> {
    candidates
        .iter()
        .enumerate()
        .filter_map(|(index, candidate)| engine::dedup::dedup_keys(&candidate.paper).first().map(|key| (key.to_string(), index)))
        .collect()
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
        Ok(format!("{}/api/unsubscribe/{}", self.mail.public_url, self.store.unsubscribe_token(user_id)?))
    }

    /// The mail of the queued digest `reference`, to `to`.
    pub fn render_queued(&self, reference: &DigestMailRef, to: &str) -> Result<RenderedMail, DigestError> {
        let digest = self.store.digest_at(&reference.digest_key)?.ok_or(DigestError::Missing)?;
        let user = self.store.user(reference.user_id)?.ok_or(DigestError::Missing)?;
        self.render(&user, to, &digest)
    }

    /// The mail of a stored digest, to `to`, with `user`'s unsubscribe link.
    pub fn render(&self, user: &User, to: &str, digest: &Digest) -> Result<RenderedMail, DigestError> {
        let token = self.store.unsubscribe_token(user.id)?;
        let base = &self.mail.public_url;
        let unsubscribe_url = format!("{base}/unsubscribe?token={token}");
        let term = digest.search_term.as_str();
        let ai_summary: Vec<String> = digest.ai_summary.lines().map(str::to_owned).collect();
        let mail_papers: Vec<DigestPaper> = digest.papers_data.iter().map(DigestEntry::for_mail).collect();
        let empty_reason = if mail_papers.is_empty() { Some(self.empty_reason(user, digest)) } else { None };
        let mut mail = digest_mail(
            &self.mail,
            to,
            &DigestMail {
                term,
                weekly: digest.digest_type == "weekly",
                searched_as: digest.searched_as.as_deref(),
                widened_note: digest.widened.map(|widened| widened.note()).as_deref(),
                ai_summary: &ai_summary,
                papers: &mail_papers,
                empty_reason: empty_reason.as_deref(),
                unsubscribe_url: &unsubscribe_url,
            },
        );
        mail.list_unsubscribe = Some(format!("{base}/api/unsubscribe/{token}"));
        Ok(mail)
    }

    /// Why a digest may be empty: nothing relevant enough, or only papers sent before; and any of
    /// the user's sources whose harvest is failing.
    fn empty_reason(&self, user: &User, digest: &Digest) -> String {
        let term = &digest.search_term;
        let days = digest.window_days();
        let mut reason = match digest.sent_before {
            0 => format!("Nothing published in the last {days} days matched \"{term}\" closely enough to send."),
            1 => format!("The one paper of the last {days} days that matched \"{term}\" was in an earlier digest of yours, so there is nothing new to send."),
            many => format!("The {many} papers of the last {days} days that matched \"{term}\" were all in your earlier digests, so there is nothing new to send."),
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn analyzed(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(word, surface)| (word.to_string(), surface.to_string())).collect()
    }

    #[test]
    fn searched_as_shows_words_as_the_papers_spell_them() {
        let expansion = vec![("toxic".to_string(), 0.4), ("phthalat".to_string(), 0.3), ("rat".to_string(), 0.2), ("xyz".to_string(), 0.1)];
        let mut surfaces = Surfaces::of(&expansion);
        surfaces.count(&analyzed(&[("toxic", "toxicity"), ("phthalat", "phthalate"), ("rat", "rats"), ("liver", "liver")]));
        surfaces.count(&analyzed(&[("toxic", "toxic"), ("toxic", "toxicity"), ("phthalat", "phthalates"), ("rat", "rat")]));
        // "toxicity" twice beats "toxic"; phthalate/phthalates and rat/rats tie, and the shorter wins;
        // a word nobody spelled is left out, never shown as a stem.
        let shown = searched_as(&["hepatotoxicity".to_string()], &expansion, &surfaces);
        assert_eq!(shown.as_deref(), Some("hepatotoxicity, toxicity, phthalate, rat"));
        assert_eq!(searched_as(&[], &[], &Surfaces::of(&[])), None);
    }

    #[test]
    fn a_spelling_shown_already_is_not_repeated() {
        let expansion = vec![("studi".to_string(), 0.5), ("study".to_string(), 0.2)];
        let mut surfaces = Surfaces::of(&expansion);
        surfaces.count(&analyzed(&[("studi", "study"), ("study", "study")]));
        assert_eq!(searched_as(&[], &expansion, &surfaces).as_deref(), Some("study"));
    }
}
