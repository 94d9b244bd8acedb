//! From a search hit to what a digest shows: a relevance score in 0–1, an impact prior, and why
//! the paper matched.
//!
//! **Relevance** is absolute: how well the paper matches the topic on its own, never relative to
//! the week's best hit (a week with nothing on the topic scores low everywhere, and nothing is
//! sent). It is read from the [`Evidence`], the lexical parts against the whole index's word
//! statistics:
//! - `coverage`: the share of the topic's own words that the paper contains, each word counted by
//!   its idf (`ln(1 + (N − df + 0.5)/(df + 0.5))`), so "malaria vaccine" is mostly "malaria"
//!   (a paper with none of it, nor anything else, scores 0; once strength is known the fits gave
//!   coverage no weight of its own);
//! - `strength`: the paper's BM25 for the weighted (expanded) query, title and abstract as one
//!   text (k1 1.2, b 0.75), divided by what a perfect match would score (every word, each as
//!   often as BM25 can reward): 0 for no word, towards 1 for a paper made of the query. The
//!   same for the topic's own words alone counts if it is higher: the words a search added can
//!   only add evidence;
//! - `similarity` (when a sentence-embedding model is configured): the cosine of the paper's
//!   vector with the topic's, which sees a topic in other words ("CAR-T exhaustion" and "T cell
//!   dysfunction in chimeric antigen receptor therapy").
//!
//! All are 0–1 and mean the same on any collection. The score read from them is `strength`
//! alone (lexical), or `(1 − SIMILARITY_WEIGHT) · strength + SIMILARITY_WEIGHT · similarity`
//! (semantic: half each, chosen on MED, Cranfield and SciFact at once, where it beats plain BM25
//! on each by a wide margin; `bench/README.md`, "relevance"). A logistic curve of that score
//! ([`Calibration`], one per kind, fitted on the same judged collections) turns it into the
//! chance that a reader judges the paper relevant, so ordering by relevance is ordering by the
//! score.
//!
//! **Key concepts** ([`key_concepts`]): the topic's most specific concepts, those whose idf is
//! at least [`KEY_CONCEPT_SHARE`] of the rarest one's. With a model, a paper without evidence of
//! its own for each (`crate::concepts`) is about something else that shares the topic's generic
//! words or field (a malaria trial in a "multidrug-resistant tuberculosis treatment" digest), and
//! is never sent ([`Evidence::covers_key`]).
//!
//! **Impact prior** (a multiplier around 1, [`impact_prior`]): peer-reviewed journal records 1.0,
//! preprints 0.92; reviews, meta-analyses, systematic reviews and randomized controlled trials
//! ×1.08; errata ×0.5; retractions ×0.2 (and flagged); papers entered more than 14 days before
//! the digest lose 1% a week, down to ×0.85. It never changes the score shown: the digest is
//! ordered by the relevance it shows, and the prior only orders papers of the same percent.
//!
//! **Why it matched.** The topic's words found in the paper, as the paper spells them, and the
//! topic's two-word phrases found in its text.

use std::collections::HashMap;

use chrono::NaiveDate;

use crate::concepts::KeyEvidence;
use crate::paper::{Paper, Source};

/// BM25's term-frequency saturation.
pub const BM25_K1: f64 = 1.2;
/// BM25's length normalization.
pub const BM25_B: f64 = 0.75;

/// The index-wide figures the score needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectionStats {
    /// Papers in the index.
    pub documents: u64,
    /// Mean analyzed length (words) of a paper's title and abstract.
    pub average_length: f64,
}

/// BM25's idf of a word found in `document_frequency` of `documents` papers (Lucene's form,
/// never negative).
pub fn idf(document_frequency: u64, documents: u64) -> f64 {
    let (df, n) = (document_frequency as f64, documents.max(document_frequency) as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A word of a query, as analyzed, with its weight in the query and its idf in the index.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWord {
    pub word: String,
    pub weight: f64,
    pub idf: f64,
}

/// A query as the score reads it: the topic's own words (each once, weight 1) and the weighted
/// words it was searched with (the own words and the expansion's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoredQuery {
    pub own: Vec<QueryWord>,
    pub searched: Vec<QueryWord>,
}

/// A paper's title and abstract as the index analyzes them: word counts and length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PaperText {
    pub counts: HashMap<String, u32>,
    pub length: u32,
}

impl PaperText {
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>) -> PaperText {
        let mut text = PaperText::default();
        for word in words {
            *text.counts.entry(word.to_owned()).or_insert(0) += 1;
            text.length += 1;
        }
        text
    }
}

/// The share of the semantic score that is the embedding similarity (see the module docs).
pub const SIMILARITY_WEIGHT: f64 = 0.5;

/// How much of the topic a paper carries (see the module docs); each in 0–1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    pub coverage: f64,
    pub strength: f64,
    /// The cosine of the paper's and the topic's vectors (negative cosines count as 0); `None`
    /// when there is no model or no vector for the paper yet.
    pub similarity: Option<f64>,
    /// Whether the paper shows every key concept ([`key_concepts`]) by evidence of its own
    /// (`crate::concepts::TopicConcepts::key_evidence`).
    pub key_words: bool,
}

impl Default for Evidence {
    fn default() -> Evidence {
        Evidence { coverage: 0.0, strength: 0.0, similarity: None, key_words: true }
    }
}

impl Evidence {
    /// This evidence with the embedding similarity `cosine`.
    pub fn with_similarity(self, cosine: Option<f32>) -> Evidence {
        Evidence { similarity: cosine.map(|cosine| f64::from(cosine).clamp(0.0, 1.0)), ..self }
    }

    /// The score relevance is read from: strength, fused with the similarity when there is one.
    pub fn score(&self) -> f64 {
        match self.similarity {
            Some(similarity) => (1.0 - SIMILARITY_WEIGHT) * self.strength + SIMILARITY_WEIGHT * similarity,
            None => self.strength,
        }
    }

    fn is_none(&self) -> bool {
        self.coverage <= 0.0 && self.strength <= 0.0 && self.similarity.unwrap_or(0.0) <= 0.0
    }
}

/// The [`Evidence`] that `text` matches `query`.
pub fn evidence(query: &ScoredQuery, text: &PaperText, stats: &CollectionStats) -> Evidence {
    let count = |word: &str| f64::from(text.counts.get(word).copied().unwrap_or(0));
    let own_total: f64 = query.own.iter().map(|word| word.idf).sum();
    let own_found: f64 = query.own.iter().filter(|word| count(&word.word) > 0.0).map(|word| word.idf).sum();
    let length_ratio = if stats.average_length > 0.0 { f64::from(text.length) / stats.average_length } else { 1.0 };
    let saturation = |tf: f64| tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * length_ratio)) / (BM25_K1 + 1.0);
    let share_of_perfect = |words: &[QueryWord]| {
        let perfect: f64 = words.iter().map(|word| word.weight * word.idf).sum();
        let scored: f64 = words.iter().map(|word| word.weight * word.idf * saturation(count(&word.word))).sum();
        if perfect > 0.0 {
            (scored / perfect).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    Evidence {
        similarity: None,
        coverage: if own_total > 0.0 { own_found / own_total } else { 0.0 },
        // Words the search added can only add evidence: a paper that matches the topic's own
        // words well is not marked down for lacking them.
        strength: share_of_perfect(&query.searched).max(share_of_perfect(&query.own)),
        key_words: true,
    }
}

/// A topic's concept is key when its idf is at least this share of the topic's rarest
/// concept's.
pub const KEY_CONCEPT_SHARE: f64 = 0.6;

/// Which of the topic's concepts are key, given each one's idf (a phrase's: the sum of its
/// words'): the most specific, whose idf is at least `share` of the rarest concept's
/// ("tuberculosis" in "tuberculosis drug resistance"; "multidrug" and "tuberculosis" in
/// "multidrug-resistant tuberculosis treatment"). A paper with the generic words and none of
/// these is about something else.
pub fn key_concepts(idfs: &[f64], share: f64) -> Vec<bool> {
    let rarest = idfs.iter().copied().fold(0.0_f64, f64::max);
    idfs.iter().map(|idf| rarest > 0.0 && *idf >= share * rarest).collect()
}

impl Evidence {
    /// Whether the paper may be sent for the topic's key concepts: it shows each by evidence of
    /// its own. Without a similarity (no model) there is no gate: on the test collections,
    /// requiring the words alone lost most relevant papers that put the topic in other words
    /// (`bench/README.md`, "relevance").
    pub fn covers_key(&self) -> bool {
        self.key_words || self.similarity.is_none()
    }
}

/// The logistic curve from an [`Evidence`]'s score to relevance:
/// `1 / (1 + e^−(slope · score + intercept))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub slope: f64,
    pub intercept: f64,
}

impl Calibration {
    /// For the lexical score (strength alone). Fitted by logistic regression of "judged
    /// relevant" on the score of the digest's 100 candidates for every judged query of MED,
    /// Cranfield and SciFact's training split, their long queries and their short topics, each
    /// collection and kind of topic weighing the same (`papertide-bench relevance
    /// --fit-calibration`; `bench/README.md`, "Short topics, key concepts and the floor", has
    /// the fit and the reliability it gives on each collection). A paper with every word of a
    /// short topic once (strength about 0.45) reads about 31 %; with them repeated (0.7), 70 %.
    pub const LEXICAL: Calibration = Calibration { slope: 6.62, intercept: -3.80 };
    /// For the semantic score (strength and similarity, half each), fitted the same way on the
    /// semantic digest's candidates (BM25's best 100 and the cosine's best 100). A paper about
    /// the topic in other words (similarity 0.57, strength 0.35) reads about 32 %; one with the
    /// topic's words as well (0.6 and 0.6), about 68 %.
    pub const SEMANTIC: Calibration = Calibration { slope: 10.67, intercept: -5.64 };

    /// The curve for `evidence`: semantic when it has a similarity.
    pub fn of(evidence: &Evidence) -> Calibration {
        if evidence.similarity.is_some() {
            Calibration::SEMANTIC
        } else {
            Calibration::LEXICAL
        }
    }
}

/// A paper's relevance in 0–1 (see the module docs), by its kind's curve.
pub fn relevance(evidence: &Evidence) -> f64 {
    relevance_by(evidence, &Calibration::of(evidence))
}

/// A paper's relevance in 0–1 by the given curve (for fitting and measuring curves).
pub fn relevance_by(evidence: &Evidence, calibration: &Calibration) -> f64 {
    if evidence.is_none() {
        return 0.0;
    }
    1.0 / (1.0 + (-(calibration.slope * evidence.score() + calibration.intercept)).exp())
}

/// The impact prior of `paper` for a digest built on `today` (see the module docs).
pub fn impact_prior(paper: &Paper, today: NaiveDate) -> f64 {
    let mut prior = if paper.sources.contains(&Source::Pubmed) { 1.0 } else { 0.92 };
    let kinds: Vec<String> = paper.publication_types.iter().map(|kind| kind.to_lowercase()).collect();
    let strong_evidence = ["review", "meta-analysis", "systematic review", "randomized controlled trial"];
    if kinds.iter().any(|kind| strong_evidence.iter().any(|strong| kind == strong)) {
        prior *= 1.08;
    }
    if paper.is_erratum {
        prior *= 0.5;
    }
    if paper.is_retraction {
        prior *= 0.2;
    }
    if let Some(entered) = paper.entered {
        let weeks_past_fortnight = ((today - entered).num_days() - 14).max(0) / 7;
        prior *= (1.0 - 0.01 * weeks_past_fortnight as f64).max(0.85);
    }
    prior
}

/// Why a paper matched a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchReason {
    /// The topic's words found in the paper, as the paper spells them, in the topic's order.
    pub terms: Vec<String>,
    /// Two-word phrases of the query found verbatim (case aside) in the paper's text.
    pub phrases: Vec<String>,
    /// When none of the topic's own words is in the paper: the words the search added (an
    /// expansion's) that it has, as the paper spells them.
    pub related: Vec<String>,
    /// Found by meaning alone (the embedding model), with none of the searched words.
    pub similar: bool,
    /// The topic's key concepts the paper lacks the words of, with the evidence it shows them
    /// by (`crate::concepts`).
    pub key_evidence: Vec<KeyEvidence>,
    /// How the researcher's ratings of the term moved the paper, if they did.
    pub rated: Option<RatingMove>,
    /// What the term was taught by: ratings of its digests, the papers it was seeded from, or
    /// both (what the reason line names when the paper moved).
    pub taught_by: TaughtBy,
}

/// Which way a term's ratings moved a paper's relevance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingMove {
    Raised,
    Lowered,
}

/// What taught a term: the researcher's ratings of its digests, the papers it was seeded from
/// (`crate::seed`), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaughtBy {
    #[default]
    Ratings,
    Seeds,
    SeedsAndRatings,
}

impl TaughtBy {
    /// What a reason line calls it.
    pub fn phrase(self) -> &'static str {
        match self {
            TaughtBy::Ratings => "your ratings",
            TaughtBy::Seeds => "the papers you seeded it with",
            TaughtBy::SeedsAndRatings => "your seed papers and ratings",
        }
    }
}

impl MatchReason {
    /// Whether no word or phrase of the search was found.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.phrases.is_empty() && self.related.is_empty()
    }

    /// A line for the digest: `Matched "gene editing"; words: gene, editing`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.phrases.is_empty() {
            parts.push(format!("Matched {}", self.phrases.iter().map(|phrase| format!("\"{phrase}\"")).collect::<Vec<_>>().join(", ")));
        }
        if !self.terms.is_empty() {
            parts.push(format!("words: {}", self.terms.join(", ")));
        }
        if !self.related.is_empty() {
            parts.push(format!("related words: {}", self.related.join(", ")));
        }
        if self.similar && parts.is_empty() {
            parts.push("close in meaning to the topic, in other words".to_owned());
        }
        if !self.key_evidence.is_empty() {
            parts.push(self.key_evidence.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "));
        }
        match self.rated {
            Some(RatingMove::Raised) => parts.push(format!("ranked higher by {}", self.taught_by.phrase())),
            Some(RatingMove::Lowered) => parts.push(format!("ranked lower by {}", self.taught_by.phrase())),
            None => {}
        }
        parts.join("; ")
    }
}

/// Why `paper` matched: `query_terms` are the topic's words as the index analyzes them (stems),
/// `related_terms` the words the search added, `paper_words` each analyzed word of the paper's
/// title and abstract with the text it was read from; a matched stem is shown as the paper
/// spells it most often. Phrases come from the query as typed. Added words are named only when
/// none of the topic's own words is there, so a sent paper always says why.
pub fn match_reason(query: &str, query_terms: &[String], related_terms: &[String], paper: &Paper, paper_words: &[(String, String)]) -> MatchReason {
    let terms = spelled_as_in_paper(query_terms, paper_words);
    let related = if terms.is_empty() { spelled_as_in_paper(related_terms, paper_words) } else { Vec::new() };
    let text_words: Vec<(String, String)> = phrase_words(&format!("{} {}", paper.title, paper.abstract_text()));
    let words = phrase_words(query);
    let mut phrases: Vec<String> = Vec::new();
    let is_short = |word: &str| word.chars().count() == 1 || word.chars().all(|character| character.is_ascii_digit());
    for (at, pair) in words.windows(2).enumerate() {
        // A phrase of two words that mean something: no function word ("in travelers"), and not
        // the tail of a short part's phrase ("1 diabetes" after "type 1").
        let function_word = |word: &str| crate::expansion::STOPWORDS.contains(&word);
        if function_word(&pair[0].0) || function_word(&pair[1].0) || (at > 0 && is_short(&pair[0].0)) {
            continue;
        }
        let found = text_words.windows(2).any(|text_pair| text_pair[0].0 == pair[0].0 && text_pair[1].0 == pair[1].0);
        let phrase = format!("{} {}", pair[0].1, pair[1].1);
        if found && !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    MatchReason { terms, phrases, related, similar: false, key_evidence: Vec::new(), rated: None, taught_by: TaughtBy::default() }
}

/// The words of `text` for matching phrases, each as (the word compared: lower case, apostrophes
/// dropped; the word shown: lower case as written). An apostrophe inside a word keeps it whole
/// (`Alzheimer's` is one word, never `alzheimer` and `s`); hyphens join words too.
fn phrase_words(text: &str) -> Vec<(String, String)> {
    let is_apostrophe = |character: char| matches!(character, '\'' | '\u{2019}');
    text.split(|character: char| !character.is_alphanumeric() && character != '-' && !is_apostrophe(character))
        .map(|word| word.trim_matches(|character: char| is_apostrophe(character) || character == '-'))
        .filter(|word| !word.is_empty())
        .map(|word| {
            let shown = word.to_lowercase();
            (shown.chars().filter(|character| !is_apostrophe(*character)).collect(), shown)
        })
        .collect()
}

/// Each of `stems` found in `paper_words`, as the paper spells it most often (the shorter
/// spelling on a tie), each spelling once.
fn spelled_as_in_paper(stems: &[String], paper_words: &[(String, String)]) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    for stem in stems {
        let mut spellings: HashMap<&str, u32> = HashMap::new();
        for (_, surface) in paper_words.iter().filter(|(word, _)| word == stem) {
            *spellings.entry(surface.as_str()).or_insert(0) += 1;
        }
        let commonest = spellings.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.len().cmp(&a.0.len())).then_with(|| b.0.cmp(a.0)));
        if let Some((surface, _)) = commonest {
            if !shown.iter().any(|known| known == surface) {
                shown.push(surface.to_owned());
            }
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::AbstractSection;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    fn query(own: &[(&str, f64)], expansion: &[(&str, f64, f64)]) -> ScoredQuery {
        let own_words: Vec<QueryWord> = own.iter().map(|(word, idf)| QueryWord { word: (*word).into(), weight: 1.0, idf: *idf }).collect();
        let mut searched: Vec<QueryWord> = own_words.iter().map(|word| QueryWord { weight: 0.5 / own.len() as f64, ..word.clone() }).collect();
        searched.extend(expansion.iter().map(|(word, weight, idf)| QueryWord { word: (*word).into(), weight: *weight, idf: *idf }));
        ScoredQuery { own: own_words, searched }
    }

    fn text(words: &str) -> PaperText {
        PaperText::from_words(words.split_whitespace())
    }

    const STATS: CollectionStats = CollectionStats { documents: 10_000, average_length: 8.0 };

    #[test]
    fn evidence_is_the_share_of_the_topic_a_paper_carries() {
        let topic = query(&[("malaria", 6.0), ("vaccin", 3.0)], &[]);
        let both = evidence(&topic, &text("malaria vaccin trial in children of ghana ok"), &STATS);
        assert!((both.coverage - 1.0).abs() < 1e-9);
        let rare_only = evidence(&topic, &text("malaria parasit in mosquito gut and blood stage"), &STATS);
        assert!((rare_only.coverage - 6.0 / 9.0).abs() < 1e-9, "the rarer word carries more of the topic");
        let none = evidence(&topic, &text("phthalat dose in rat liver high effect increas"), &STATS);
        assert_eq!((none.coverage, none.strength, none.similarity), (0.0, 0.0, None));
        assert!(both.strength > rare_only.strength && rare_only.strength > 0.0);
        let repeated = evidence(&topic, &text("malaria vaccin malaria vaccin malaria vaccin trial ok"), &STATS);
        assert!(repeated.strength > both.strength && repeated.strength < 1.0, "more evidence, never past a perfect match");
        assert!(idf(1, 10_000) > idf(100, 10_000) && idf(10_000, 10_000) > 0.0);
    }

    #[test]
    fn expansion_words_add_strength_but_not_coverage() {
        let topic = query(&[("malaria", 6.0), ("vaccin", 3.0)], &[("plasmodium", 0.2, 7.0)]);
        let plain = evidence(&topic, &text("malaria vaccin trial in children of ghana ok"), &STATS);
        let with_synonym = evidence(&topic, &text("malaria vaccin plasmodium plasmodium plasmodium in children ok"), &STATS);
        assert_eq!(plain.coverage, with_synonym.coverage);
        assert!(with_synonym.strength > plain.strength, "{with_synonym:?} {plain:?}");
        let own_only = ScoredQuery { searched: topic.own.clone(), ..topic.clone() };
        assert_eq!(
            plain.strength,
            evidence(&own_only, &text("malaria vaccin trial in children of ghana ok"), &STATS).strength,
            "lacking an added word costs nothing"
        );
        let synonym_only = evidence(&topic, &text("plasmodium falciparum in children of ghana ok"), &STATS);
        assert_eq!(synonym_only.coverage, 0.0);
        assert!(synonym_only.strength > 0.0);
    }

    #[test]
    fn relevance_rises_with_evidence_and_is_zero_without_any() {
        let weak = relevance(&Evidence { coverage: 0.3, strength: 0.1, ..Evidence::default() });
        let strong = relevance(&Evidence { coverage: 1.0, strength: 0.6, ..Evidence::default() });
        assert!(weak < strong && strong < 1.0 && weak > 0.0);
        assert_eq!(relevance(&Evidence::default()), 0.0);
        assert_eq!(relevance(&Evidence::default().with_similarity(Some(-0.2))), 0.0, "a negative cosine is no evidence");
    }

    #[test]
    fn similarity_sees_a_topic_in_other_words_and_orders_with_strength() {
        let no_word = Evidence::default().with_similarity(Some(0.7));
        assert!(relevance(&no_word) > relevance(&Evidence::default().with_similarity(Some(0.1))));
        assert!(relevance(&no_word) > 0.0, "a paraphrase with none of the topic's words still counts");
        let words = Evidence { coverage: 1.0, strength: 0.5, ..Evidence::default() };
        assert_eq!(words.score(), 0.5);
        let both = words.with_similarity(Some(0.25));
        assert!((both.score() - ((1.0 - SIMILARITY_WEIGHT) * 0.5 + SIMILARITY_WEIGHT * 0.25)).abs() < 1e-9);
        // The score orders relevance: one curve per kind, rising.
        let lower = Evidence { strength: 0.4, ..both };
        assert!(relevance(&lower) < relevance(&both));
        assert_eq!(Calibration::of(&both), Calibration::SEMANTIC);
        assert_eq!(Calibration::of(&words), Calibration::LEXICAL);
    }

    #[test]
    fn the_prior_favours_reviewed_strong_evidence_and_flags_retractions() {
        let today = day("2026-11-23");
        let mut journal = Paper::new(Source::Pubmed, "A trial");
        journal.entered = Some(day("2026-11-20"));
        let mut preprint = Paper::new(Source::Biorxiv, "A preprint");
        preprint.entered = Some(day("2026-11-20"));
        assert_eq!(impact_prior(&journal, today), 1.0);
        assert!((impact_prior(&preprint, today) - 0.92).abs() < 1e-9);

        journal.publication_types = vec!["Randomized Controlled Trial".into()];
        assert!((impact_prior(&journal, today) - 1.08).abs() < 1e-9);
        journal.is_retraction = true;
        assert!(impact_prior(&journal, today) < 0.25);

        let mut old = Paper::new(Source::Pubmed, "Old news");
        old.entered = Some(day("2026-01-01"));
        assert!((impact_prior(&old, today) - 0.85).abs() < 1e-9, "recency decay stops at 0.85");
    }

    #[test]
    fn reasons_name_the_matched_words_as_the_paper_spells_them() {
        let mut paper = Paper::new(Source::Arxiv, "Gene editing in plants");
        paper.abstract_sections = vec![AbstractSection { label: None, text: "Base editing of crop genomes.".into() }];
        let query_terms: Vec<String> = ["gene", "edit", "rice"].iter().map(|term| (*term).to_owned()).collect();
        let analyzed = [
            ("gene", "gene"),
            ("edit", "editing"),
            ("plant", "plants"),
            ("base", "base"),
            ("edit", "editing"),
            ("crop", "crop"),
            ("genom", "genomes"),
        ];
        let paper_words: Vec<(String, String)> = analyzed.iter().map(|(word, surface)| ((*word).to_owned(), (*surface).to_owned())).collect();
        let related: Vec<String> = vec!["crop".to_owned()];
        let reason = match_reason("Gene editing rice", &query_terms, &related, &paper, &paper_words);
        assert_eq!(reason.terms, vec!["gene", "editing"]);
        assert_eq!(reason.phrases, vec!["gene editing"]);
        assert!(reason.related.is_empty(), "the topic's own words are reason enough");
        assert_eq!(reason.describe(), "Matched \"gene editing\"; words: gene, editing");
        assert_eq!(MatchReason::default().describe(), "");
        // A paper found through the expansion alone still says why.
        let only_related = match_reason("rice blast", &["rice".to_owned(), "blast".to_owned()], &related, &paper, &paper_words);
        assert_eq!(only_related.describe(), "related words: crop");
        // A paper found by meaning alone says so.
        let by_meaning = MatchReason { similar: true, ..MatchReason::default() };
        assert!(by_meaning.is_empty());
        assert_eq!(by_meaning.describe(), "close in meaning to the topic, in other words");
        assert_eq!(MatchReason { similar: true, ..reason.clone() }.describe(), "Matched \"gene editing\"; words: gene, editing");
        let rice = KeyEvidence { concept: "rice".into(), shown: crate::concepts::Shown::Subject("Oryza sativa".into()) };
        let rated = MatchReason { key_evidence: vec![rice], rated: Some(RatingMove::Raised), ..reason };
        assert_eq!(
            rated.describe(),
            "Matched \"gene editing\"; words: gene, editing; \"rice\" as the subject \"Oryza sativa\"; ranked higher by your ratings"
        );
        let seeded = MatchReason { taught_by: TaughtBy::Seeds, ..rated.clone() };
        assert!(seeded.describe().ends_with("; ranked higher by the papers you seeded it with"), "{}", seeded.describe());
        let lowered = MatchReason { rated: Some(RatingMove::Lowered), taught_by: TaughtBy::SeedsAndRatings, ..rated };
        assert!(lowered.describe().ends_with("; ranked lower by your seed papers and ratings"), "{}", lowered.describe());
    }

    #[test]
    fn a_phrase_shown_is_two_words_that_mean_something() {
        let mut paper = Paper::new(Source::Pubmed, "Prophylaxis in travelers with type 1 diabetes");
        paper.abstract_sections = vec![AbstractSection { label: None, text: "Malaria prophylaxis in travelers.".into() }];
        let reason = match_reason("malaria prophylaxis in travelers with type 1 diabetes", &[], &[], &paper, &[]);
        assert_eq!(reason.phrases, vec!["malaria prophylaxis".to_owned(), "type 1".to_owned()], "no \"in travelers\", no \"1 diabetes\"");
    }

    #[test]
    fn a_phrase_is_whole_words_and_an_apostrophe_never_splits_one() {
        let paper_with = |title: &str, text: &str| {
            let mut paper = Paper::new(Source::Pubmed, title);
            paper.abstract_sections = vec![AbstractSection { label: None, text: text.into() }];
            paper
        };
        let paper = paper_with("Tau spreading in Alzheimer\u{2019}s disease", "Patients with Alzheimers disease and others' disease.");
        let reason = match_reason("Alzheimer's disease", &[], &[], &paper, &[]);
        assert_eq!(reason.phrases, vec!["alzheimer's disease".to_owned()]);
        assert!(reason.describe().starts_with("Matched \"alzheimer's disease\""), "{}", reason.describe());
        let elsewhere = paper_with("Kidney disease in the elderly", "Its disease course.");
        assert!(match_reason("Alzheimer's disease", &[], &[], &elsewhere, &[]).phrases.is_empty(), "no \"s disease\" from \"its disease\"");
        let inside = paper_with("Metagenes expression", "A cometagene expression atlas.");
        assert!(match_reason("gene expression", &[], &[], &inside, &[]).phrases.is_empty(), "words are whole, not parts of longer ones");
    }
}
