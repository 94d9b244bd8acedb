//! The one ranking: a term's candidates found, judged and ordered (the recipe's steps 2–6,
//! `crate::recipe`) as one function over a read-only view of a corpus, [`Corpus`]. The service's
//! digester views the paper index and the window's vectors through it; the bench views a test
//! collection through it. Both rank with [`rank`] and [`rerank`], so what the bench measures is
//! what the service sends.

use std::collections::HashMap;
use std::hash::Hash;

use crate::concepts::{self, KeyEvidence, Meaning, MeaningCovers, Shown, TopicConcepts};
use crate::digest::Candidate;
use crate::digest_text::{searched_as, word_weights, Surfaces};
use crate::expansion::Rm3;
use crate::feedback::{liked_words, searched_words, Rocchio, TermFeedback};
use crate::paper::Paper;
use crate::recipe::{self, CANDIDATES};
use crate::scoring::{
    evidence, key_concepts, match_reason, relevance_by, Calibration, CollectionStats, Evidence, PaperText, ScoredQuery, KEY_CONCEPT_SHARE,
};

/// A paper a search found, with its search score.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<Id> {
    pub id: Id,
    pub paper: Paper,
    pub score: f32,
}

/// What an expanded search found, and the words it searched with their weights.
pub type Expanded<Id> = (Vec<Found<Id>>, Vec<(String, f32)>);

/// What the ranking reads of a corpus (its window of papers, already chosen by the view): the
/// searches, the meaning of papers when there is a model, and the text analysis and statistics
/// the evidence is weighed by. Nothing in it writes.
pub trait Corpus {
    /// How the corpus names a paper.
    type Id: Copy + Eq + Hash;
    type Error;

    /// The best `limit` papers for `text` (BM25), best first.
    fn search(&self, text: &str, limit: usize) -> Result<Vec<Found<Self::Id>>, Self::Error>;
    /// The same, expanded by RM3 with `rm3`: the hits, and the words the search used with their
    /// weights.
    fn search_expanded(&self, text: &str, limit: usize, rm3: &Rm3) -> Result<Expanded<Self::Id>, Self::Error>;
    /// The topic's vector; `None` when the corpus has no model (the ranking is by words alone).
    fn topic_vector(&self, text: &str) -> Result<Option<Vec<f32>>, Self::Error>;
    /// The `limit` papers closest in meaning to `topic`, closest first.
    fn nearest(&self, topic: &[f32], limit: usize) -> Vec<Self::Id>;
    /// A paper's vector, when it has one.
    fn vector(&self, id: Self::Id) -> Option<&[f32]>;
    /// The cosine of two of the model's vectors (its vectors are normalized: their dot product).
    fn cosine(&self, a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }
    /// The papers `ids` names, in their order (a paper no longer there is left out).
    fn papers(&self, ids: &[Self::Id]) -> Result<Vec<(Self::Id, Paper)>, Self::Error>;
    /// `text` as the index reads it: each word's stem with the word it came from.
    fn analyze(&self, text: &str) -> Vec<(String, String)>;
    /// The topic's own words and the searched ones, weighed by the corpus's statistics.
    fn scored_query(&self, own: &[String], searched: &[(String, f32)]) -> ScoredQuery;
    fn stats(&self) -> CollectionStats;
}

/// The settings a ranking may be measured with instead of the service's (the bench tunes them);
/// [`Knobs::default`] is what the service ranks with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knobs {
    /// The expansion of the search without a model.
    pub rm3: Rm3,
    /// The relevance curve; `None`: the service's (`scoring::relevance`, by the evidence's kind).
    pub calibration: Option<Calibration>,
    /// From what closeness a paper shows a key concept in meaning.
    pub concept_meaning: MeaningCovers,
    /// A concept is key when its idf is at least this share of the rarest one's.
    pub key_share: f64,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs { rm3: Rm3::default(), calibration: None, concept_meaning: MeaningCovers::SERVICE, key_share: KEY_CONCEPT_SHARE }
    }
}

/// A term's ranking: its candidates judged (in the order they were found), and what a rated
/// term's ranking reads again ([`rerank`]).
#[derive(Debug, Clone)]
pub struct Ranking<Id> {
    pub candidates: Vec<Candidate>,
    /// Per candidate: its evidence and its id.
    pub evidence: Vec<Evidence>,
    pub ids: Vec<Id>,
    /// The topic's vector, with a model.
    pub topic: Option<Vec<f32>>,
    /// The topic's own words, as analyzed.
    pub own_words: Vec<String>,
    pub stats: CollectionStats,
    /// The words the papers were searched with, readable ("searched as").
    pub searched_as: Option<String>,
}

/// A key concept's own vector, and the topic's without it (none for a topic of one concept).
type ConceptVectors = (Vec<f32>, Option<Vec<f32>>);

/// `term`'s concepts (`crate::concepts`), key by their idf in `query` (a phrase's: its words'
/// summed, as rare as their meeting).
fn topic_concepts<C: Corpus>(corpus: &C, term: &str, query: &ScoredQuery, key_share: f64) -> TopicConcepts {
    let idf = |word: &str| query.own.iter().find(|own| own.word == word).map_or(0.0, |own| own.idf);
    TopicConcepts::new(concepts::concepts_of(term, |text| corpus.analyze(text)), |concepts| {
        let idfs: Vec<f64> = concepts.iter().map(|concept| concept.words.iter().map(|word| idf(word)).sum()).collect();
        key_concepts(&idfs, key_share)
    })
}

/// The analyzed words of a paper's title and abstract.
fn paper_words<C: Corpus>(corpus: &C, paper: &Paper) -> Vec<(String, String)> {
    corpus.analyze(&format!("{} {}", paper.title, paper.abstract_text()))
}

/// Ranks `term` over `corpus` (steps 2–4 of `crate::recipe`): the candidates (BM25's best with
/// the closest in meaning when there is a model, else BM25 expanded by RM3), each judged on its
/// evidence with why it matched. `phrases` are the LLM's related phrases, if any; the searched
/// text gives the term twice beside them (`digest_text::weighted_query_text`).
pub fn rank<C: Corpus>(corpus: &C, term: &str, phrases: &[String], knobs: &Knobs) -> Result<Ranking<C::Id>, C::Error> {
    let text = crate::digest_text::weighted_query_text(term, phrases);
    let own_words: Vec<String> = corpus.analyze(term).into_iter().map(|(word, _)| word).collect();
    let topic = corpus.topic_vector(term)?;
    let (found, expansion) = match &topic {
        // With a model: BM25's best and the closest in meaning, each paper once (no RM3: with
        // the model it lowered SciFact; bench/README.md, "relevance").
        Some(topic) => {
            let mut found = corpus.search(&text, CANDIDATES)?;
            let searched: Vec<C::Id> = found.iter().map(|hit| hit.id).collect();
            let nearest = recipe::nearest_to_add(&searched, &corpus.nearest(topic, CANDIDATES));
            found.extend(corpus.papers(&nearest)?.into_iter().map(|(id, paper)| Found { id, paper, score: 0.0 }));
            // The words searched: the topic's own, or with the LLM's phrases, by their counts.
            let searched = if phrases.is_empty() {
                Vec::new()
            } else {
                word_weights(&corpus.analyze(&text).into_iter().map(|(word, _)| word).collect::<Vec<_>>())
            };
            (found, searched)
        }
        None => corpus.search_expanded(&text, CANDIDATES, &knobs.rm3)?,
    };
    // Relevance is absolute: the user's own words against each paper, and the words the papers
    // were searched with, by the whole corpus's statistics, with the paper's similarity in
    // meaning when there is a model.
    let scored_query = corpus.scored_query(&own_words, &expansion);
    let stats = corpus.stats();
    let typed = corpus.analyze(term);
    let concepts = topic_concepts(corpus, term, &scored_query, knobs.key_share);
    let variants = concepts::variants_of(&concepts, |text| corpus.analyze(text));
    // Each key concept's own vector, and the topic's without it, for the evidence of its
    // meaning.
    let mut concept_vectors: Vec<Option<ConceptVectors>> = Vec::new();
    if topic.is_some() {
        for (concept, key) in concepts.concepts.iter().zip(&concepts.key) {
            // Only a key concept needs evidence: the others are never embedded.
            let vectors = match key.then(|| corpus.topic_vector(&concept.typed)).transpose()?.flatten() {
                Some(alone) => {
                    let without = concepts::without(term, concept);
                    let without = if without.is_empty() { None } else { corpus.topic_vector(&without)? };
                    Some((alone, without))
                }
                None => None,
            };
            concept_vectors.push(vectors);
        }
    }
    // The words the reason line names one by one: a phrase concept is named as its phrase.
    let single_words: Vec<String> =
        concepts.concepts.iter().filter(|concept| concept.words.len() == 1).map(|concept| concept.words[0].clone()).collect();
    let named_words: Vec<String> = own_words.iter().filter(|word| single_words.contains(word)).cloned().collect();
    let mut surfaces = Surfaces::of(&expansion);
    // The topic's own words as the user typed them, whatever the corpus holds.
    surfaces.count(&typed);
    let added_words: Vec<String> = expansion.iter().map(|(word, _)| word.clone()).filter(|word| !own_words.contains(word)).collect();
    let mut evidences = Vec::with_capacity(found.len());
    let mut ids = Vec::with_capacity(found.len());
    let mut candidates = Vec::with_capacity(found.len());
    for hit in found {
        let analyzed = concepts.read_paper(&paper_words(corpus, &hit.paper));
        surfaces.count(&analyzed);
        let subjects: Vec<(String, Vec<(String, String)>)> =
            hit.paper.categories.iter().map(|subject| (subject.clone(), concepts.read_paper(&corpus.analyze(subject)))).collect();
        // The subject terms the source gives the paper are evidence of what it is about, as the
        // index searches them (the reason line names only its own words).
        let weighed = concepts.with_variants_read(&analyzed, &variants);
        let mut text = PaperText::from_words(weighed.iter().map(|(word, _)| word.as_str()));
        // A topic word the subject terms name counts once if the text lacks it; the rest of the
        // headings neither add nor dilute (the paper's length stays its text's).
        for (word, _) in subjects.iter().flat_map(|(_, words)| words) {
            if own_words.contains(word) {
                text.counts.entry(word.clone()).or_insert(1);
            }
        }
        let vector = corpus.vector(hit.id);
        let similarity = topic.as_ref().and_then(|topic| vector.map(|vector| corpus.cosine(topic, vector)));
        let mut evidence = evidence(&scored_query, &text, &stats).with_similarity(similarity);
        let meaning = |index: usize| {
            let (alone, without) = concept_vectors.get(index).and_then(Option::as_ref)?;
            let vector = vector?;
            let contrast = without.as_ref().zip(similarity).map(|(without, whole)| whole - corpus.cosine(without, vector));
            Some(Meaning { alone: corpus.cosine(alone, vector), contrast })
        };
        let key = concepts.key_evidence(&analyzed, &subjects, &variants, &knobs.concept_meaning, meaning, similarity);
        evidence.key_words = key.is_some();
        let key_evidence: Vec<KeyEvidence> = key.unwrap_or_default().into_iter().filter(|shown| shown.shown != Shown::Words).collect();
        let matched = match_reason(term, &named_words, &added_words, &hit.paper, &analyzed);
        let reason = recipe::reason(matched, &evidence, if evidence.covers_key() { key_evidence } else { Vec::new() });
        evidences.push(evidence);
        ids.push(hit.id);
        let mut candidate = recipe::judge(hit.paper, hit.score, &evidence, reason);
        if let Some(calibration) = &knobs.calibration {
            candidate.relevance = relevance_by(&evidence, calibration);
        }
        candidates.push(candidate);
    }
    let searched_as = searched_as(phrases, &expansion, &surfaces);
    Ok(Ranking { candidates, evidence: evidences, ids, topic, own_words, stats, searched_as })
}

/// A term's ratings and exclusion words, as the ranking reads them.
#[derive(Debug, Clone, Default)]
pub struct Rated {
    pub feedback: TermFeedback,
    /// The analyzed words of the papers rated relevant.
    pub liked_texts: Vec<PaperText>,
    /// How far the ratings move the topic's vector (the service's: `Rocchio::DEFAULT`).
    pub rocchio: Rocchio,
    /// Whether the liked papers are ratings, seeds or both: what a moved paper's reason names.
    pub taught_by: crate::scoring::TaughtBy,
    /// The dedup keys (`doi:…`, `pmid:…`) of the papers the term was seeded from: the
    /// researcher knows them, so they are never sent.
    pub known: std::collections::HashSet<String>,
}

/// `ranking` ranked again for a term with ratings or exclusion words (step 5 of
/// `crate::recipe`): the topic's vector moved by the ratings, the liked papers' words joined to
/// the topic's, papers like the rejected ones or with an exclusion word never sent, and each
/// paper whose percent the ratings moved saying so. Answers the candidates judged again.
pub fn rerank<C: Corpus>(corpus: &C, ranking: &Ranking<C::Id>, rated: &Rated) -> Vec<Candidate> {
    let feedback = &rated.feedback;
    let liked: Vec<&PaperText> = rated.liked_texts.iter().collect();
    let liked_vocabulary: Vec<(String, f32)> = liked.iter().flat_map(|text| text.counts.keys().map(|word| (word.clone(), 1.0))).collect();
    let idf_query = corpus.scored_query(&ranking.own_words, &liked_vocabulary);
    let idf: HashMap<&str, f64> = idf_query.searched.iter().map(|word| (word.word.as_str(), word.idf)).collect();
    let liked_words = liked_words(&liked, &ranking.own_words, |word| idf.get(word).copied().unwrap_or(0.0));
    let searched = searched_words(&ranking.own_words, &liked_words);
    let rated_query = (!searched.is_empty()).then(|| corpus.scored_query(&ranking.own_words, &searched));
    let adjusted = ranking.topic.as_ref().map(|topic| feedback.adjusted_topic_with(topic, &rated.rocchio));
    ranking
        .candidates
        .iter()
        .zip(&ranking.evidence)
        .zip(&ranking.ids)
        .map(|((candidate, base), id)| {
            let words: Vec<String> = paper_words(corpus, &candidate.paper).into_iter().map(|(word, _)| word).collect();
            let text = PaperText::from_words(words.iter().map(String::as_str));
            let rated_strength = rated_query.as_ref().map(|query| evidence(query, &text, &ranking.stats).strength);
            let (rated_similarity, like_rejected) = match (&adjusted, &ranking.topic, corpus.vector(*id)) {
                (Some(adjusted), Some(topic), Some(vector)) => {
                    (Some(feedback.similarity(adjusted, vector)), feedback.is_like_rejected(vector, corpus.cosine(topic, vector)))
                }
                _ => (None, false),
            };
            let evidence = recipe::rated_evidence(*base, rated_strength, rated_similarity);
            let known =
                !rated.known.is_empty() && crate::dedup::dedup_keys(&candidate.paper).iter().any(|key| rated.known.contains(&key.to_string()));
            let excluded = known || feedback.is_excluded(words.iter().map(String::as_str));
            let mut judged = recipe::rejudge(candidate, &evidence, like_rejected, excluded);
            judged.reason.taught_by = rated.taught_by;
            judged
        })
        .collect()
}
