//! Local query expansion by pseudo-relevance feedback, RM3-style: the best-ranked papers for a
//! query are taken as relevant, the words they use most (weighted by how well each paper
//! matched) form a relevance model, and the query becomes a weighted mix of its own words and the
//! model's strongest words. It needs no network and no model; the index supplies the feedback
//! papers as analyzed word counts, and runs the weighted query.
//!
//! Expansion words must be tied to the topic, so that an index with nothing on it expands to
//! nothing instead of to whatever its papers talk about:
//! - the topic must be there: at least `min_papers` feedback papers match the query's own words
//!   with a strength of at least `min_strength` (`scoring::Evidence::strength`, computed by the
//!   caller); otherwise the query stands alone;
//! - a feedback paper counts only if it carries at least `min_coverage` of the query's own
//!   words, each counted by its idf (`scoring::Evidence::coverage`);
//! - a word joins only if at least `min_papers` of those papers use it (fewer if fewer count),
//!   and it is over-represented in them: the share of them that contain it is at least
//!   `min_lift` times the share of all papers that do (generic words — "high", "dose",
//!   "effect" — are as common everywhere and stay out).
//!
//! The settings were read off the test collections (`bench/README.md`, "relevance"): each gate
//! was kept only where the digest's ranking did not lose on MED, Cranfield or SciFact.
//!
//! The rule (Lavrenko & Croft's relevance model, interpolated as RM3), over the papers and words
//! that pass:
//! - each feedback paper `d` weighs `w(d) = score(d) / Σ score` (its share of the retrieval
//!   scores);
//! - `P(t|R) = Σ_d w(d) · tf(t, d) / |d|` over the feedback papers, stopwords, numbers and
//!   one-letter words excluded, keeping the `feedback_terms` strongest and renormalizing them;
//! - `P(t|q) = qtf(t) / |q|` over the query's own words;
//! - the final weight is `original_weight · P(t|q) + (1 − original_weight) · P(t|R)`.

use std::collections::{BTreeMap, HashMap};

/// A feedback paper: its retrieval score, how much of the query's own words it carries (0–1,
/// idf-weighted), and its analyzed words (the index's own tokens).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FeedbackDoc {
    pub score: f32,
    pub coverage: f64,
    /// How strongly it matches the query's own words (`scoring::Evidence::strength`).
    pub strength: f64,
    pub term_counts: HashMap<String, u32>,
}

impl FeedbackDoc {
    /// Counts `tokens`, the paper's analyzed text.
    pub fn from_tokens(score: f32, coverage: f64, strength: f64, tokens: impl IntoIterator<Item = String>) -> FeedbackDoc {
        let mut term_counts = HashMap::new();
        for token in tokens {
            *term_counts.entry(token).or_insert(0) += 1;
        }
        FeedbackDoc { score, coverage, strength, term_counts }
    }

    fn length(&self) -> u32 {
        self.term_counts.values().sum()
    }
}

/// The knobs of the expansion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rm3 {
    /// How many of the best papers are taken as relevant.
    pub feedback_docs: usize,
    /// How many words of the relevance model join the query.
    pub feedback_terms: usize,
    /// The share of the query's own words in the mix (0 to 1).
    pub original_weight: f32,
    /// The least share of the query's own words (idf-weighted) a feedback paper must carry.
    pub min_coverage: f64,
    /// The least strength of match to the query's own words a feedback paper must have.
    pub min_strength: f64,
    /// How many times more often than in the whole index a word must occur among the feedback
    /// papers (by the share of papers containing it) to join.
    pub min_lift: f64,
    /// How many of the feedback papers that pass must use a word for it to join.
    pub min_papers: usize,
}

impl Default for Rm3 {
    /// 10 papers, 20 words, half and half: the common RM3 settings, with 20 feedback words
    /// rather than 10. A relevance model's 11th to 20th words still name the topic (synonyms,
    /// related methods) with small weights, so they add recall at little risk; on MED and
    /// Cranfield (bench/README.md, "relevance") 20 words beat 10 at every feedback-paper count
    /// of 10 or more and every original weight from 0.3 to 0.7, and 40 was no better overall.
    /// The gates: two papers of strength 0.15 (every word of a short topic once is about 0.45),
    /// no coverage floor (long topics cover little of themselves in any one paper), words in two
    /// papers and twice as common there as in the index.
    fn default() -> Rm3 {
        Rm3 { feedback_docs: 10, feedback_terms: 20, original_weight: 0.5, min_coverage: 0.0, min_strength: 0.15, min_lift: 2.0, min_papers: 2 }
    }
}

/// The expanded query: each word with its weight, strongest first (ties by word).
/// `index_share(word)` is the share of all papers that contain the word (0–1).
pub fn rm3(query_terms: &[String], feedback: &[FeedbackDoc], params: &Rm3, index_share: impl Fn(&str) -> f64) -> Vec<(String, f32)> {
    let mut weights: BTreeMap<String, f32> = BTreeMap::new();
    let query_length = query_terms.len() as f32;
    for term in query_terms {
        *weights.entry(term.clone()).or_insert(0.0) += params.original_weight / query_length;
    }
    // The topic must be in the index at all: fewer than `min_papers` papers that match it
    // strongly enough to be sent on their own, and the query stands alone.
    let strong = feedback.iter().filter(|doc| doc.strength >= params.min_strength).count();
    let on_topic = strong >= params.min_papers;
    let matching: Vec<&FeedbackDoc> = feedback.iter().filter(|doc| on_topic && doc.coverage >= params.min_coverage).collect();
    let is_topical = |term: &str| {
        let containing = matching.iter().filter(|doc| doc.term_counts.contains_key(term)).count();
        let feedback_share = containing as f64 / matching.len().max(1) as f64;
        containing >= params.min_papers.min(matching.len()) && feedback_share >= params.min_lift * index_share(term)
    };
    let model = relevance_model(&matching, params.feedback_terms, is_topical);
    let original_weight = if model.is_empty() { 1.0 } else { params.original_weight };
    if model.is_empty() {
        // Without feedback the query stands alone, with its own proportions.
        weights.values_mut().for_each(|weight| *weight /= params.original_weight.max(f32::EPSILON));
    }
    for (term, probability) in model {
        *weights.entry(term).or_insert(0.0) += (1.0 - original_weight) * probability;
    }
    let mut expanded: Vec<(String, f32)> = weights.into_iter().filter(|(_, weight)| *weight > 0.0).collect();
    expanded.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    expanded
}

/// `P(t|R)` over the feedback papers, of the words `is_topical` lets through: the `keep`
/// strongest, renormalized to sum to 1.
fn relevance_model(feedback: &[&FeedbackDoc], keep: usize, is_topical: impl Fn(&str) -> bool) -> Vec<(String, f32)> {
    let total_score: f32 = feedback.iter().map(|doc| doc.score.max(0.0)).sum();
    if total_score <= 0.0 || keep == 0 {
        return Vec::new();
    }
    let mut model: HashMap<&str, f32> = HashMap::new();
    for doc in feedback {
        let length = doc.length();
        if length == 0 {
            continue;
        }
        let doc_weight = doc.score.max(0.0) / total_score;
        for (term, count) in &doc.term_counts {
            if is_expansion_word(term) && is_topical(term) {
                *model.entry(term.as_str()).or_insert(0.0) += doc_weight * *count as f32 / length as f32;
            }
        }
    }
    let mut strongest: Vec<(&str, f32)> = model.into_iter().collect();
    strongest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    strongest.truncate(keep);
    let sum: f32 = strongest.iter().map(|(_, probability)| probability).sum();
    strongest.into_iter().map(|(term, probability)| (term.to_owned(), probability / sum)).collect()
}

/// Words worth adding to a query: not a stopword, not a number, longer than one letter.
fn is_expansion_word(term: &str) -> bool {
    term.chars().count() > 1 && !term.chars().all(|character| character.is_ascii_digit()) && !STOPWORDS.contains(&term)
}

/// English function words, and the stems the index's analyzer makes of them: they carry no topic.
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "about", "abov", "above", "after", "again", "against", "all", "also", "am", "an", "and", "ani", "any", "are", "as", "at", "be", "becaus",
    "because", "been", "befor", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "doe", "does", "done",
    "dure", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hi", "him", "his", "how",
    "howev", "however", "i", "if", "in", "into", "is", "it", "it'", "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my",
    "no", "nor", "not", "now", "of", "off", "on", "onc", "once", "onli", "only", "or", "other", "our", "out", "over", "own", "same", "she", "should",
    "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "thi", "this", "those", "through", "to", "too",
    "under", "until", "up", "us", "use", "used", "veri", "very", "wa", "was", "we", "were", "what", "when", "where", "whether", "which", "while",
    "who", "whom", "whi", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(score: f32, text: &str) -> FeedbackDoc {
        FeedbackDoc::from_tokens(score, 1.0, 1.0, text.split_whitespace().map(str::to_owned))
    }

    /// Every word rare in the index.
    fn rare(_: &str) -> f64 {
        0.01
    }

    /// No gates: every feedback paper and word counts.
    fn ungated() -> Rm3 {
        Rm3 { min_coverage: 0.0, min_strength: 0.0, min_lift: 0.0, min_papers: 1, ..Rm3::default() }
    }

    fn terms(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_query_keeps_half_and_the_feedback_words_share_the_rest() {
        let feedback = [doc(3.0, "lens crystallin protein the of"), doc(1.0, "lens cataract the")];
        let expanded = rm3(&terms("crystallin lens"), &feedback, &Rm3 { feedback_terms: 3, ..ungated() }, rare);
        let total: f32 = expanded.iter().map(|(_, weight)| weight).sum();
        assert!((total - 1.0).abs() < 1e-5, "weights sum to 1: {expanded:?}");
        assert_eq!(expanded[0].0, "lens", "in the query and in every feedback paper");
        assert!(expanded.iter().all(|(term, _)| term != "the" && term != "of"), "no stopwords: {expanded:?}");
        assert!(expanded.iter().any(|(term, _)| term == "protein"), "{expanded:?}");
        assert!(!expanded.iter().any(|(term, _)| term == "cataract"), "only the 3 strongest words join: {expanded:?}");
    }

    #[test]
    fn better_matching_papers_weigh_more() {
        let feedback = [doc(9.0, "alpha"), doc(1.0, "beta")];
        let expanded = rm3(&terms("query"), &feedback, &ungated(), rare);
        let weight = |word: &str| expanded.iter().find(|(term, _)| term == word).map(|(_, weight)| *weight).unwrap_or(0.0);
        assert!((weight("alpha") - 0.45).abs() < 1e-5 && (weight("beta") - 0.05).abs() < 1e-5, "{expanded:?}");
        assert!((weight("query") - 0.5).abs() < 1e-5);
    }

    #[test]
    fn without_feedback_the_query_stands_alone() {
        let expanded = rm3(&terms("gene gene editing"), &[], &Rm3::default(), rare);
        assert_eq!(expanded.len(), 2);
        let weight = |word: &str| expanded.iter().find(|(term, _)| term == word).map(|(_, weight)| *weight).unwrap_or(0.0);
        assert!((weight("gene") - 2.0 / 3.0).abs() < 1e-5 && (weight("editing") - 1.0 / 3.0).abs() < 1e-5, "{expanded:?}");
        assert!(rm3(&[], &[], &Rm3::default(), rare).is_empty());
    }

    #[test]
    fn papers_that_do_not_match_the_topic_expand_it_to_nothing() {
        // "malaria vaccine" over a week of phthalate toxicology: the best "matches" share a word
        // or none with the topic.
        let mut off_topic = doc(2.0, "phthalat high dose rat liver effect increas vaccin");
        (off_topic.coverage, off_topic.strength) = (0.3, 0.12);
        let mut other = doc(1.5, "phthalat dose mice effect high set model");
        (other.coverage, other.strength) = (0.0, 0.0);
        let expanded = rm3(&terms("malaria vaccin"), &[off_topic, other], &Rm3::default(), rare);
        let words: Vec<&str> = expanded.iter().map(|(word, _)| word.as_str()).collect();
        assert_eq!(words, vec!["malaria", "vaccin"], "only the topic's own words");
    }

    #[test]
    fn words_as_common_everywhere_as_in_the_feedback_do_not_join() {
        let feedback =
            [doc(3.0, "malaria plasmodium vaccin high"), doc(2.0, "malaria plasmodium vaccin trial high"), doc(1.0, "malaria vaccin high")];
        let share = |word: &str| if word == "high" { 0.6 } else { 0.01 };
        let expanded = rm3(&terms("malaria vaccin"), &feedback, &Rm3::default(), share);
        let words: Vec<&str> = expanded.iter().map(|(word, _)| word.as_str()).collect();
        assert!(words.contains(&"plasmodium"), "{words:?}");
        assert!(!words.contains(&"high"), "in every paper, but in 60% of the index: {words:?}");
        assert!(!words.contains(&"trial"), "in one feedback paper only: {words:?}");
    }

    #[test]
    fn numbers_and_single_letters_are_not_expansion_words() {
        assert!(!is_expansion_word("1998") && !is_expansion_word("x") && !is_expansion_word("thi"));
        assert!(is_expansion_word("p53") && is_expansion_word("glucos"));
    }
}
