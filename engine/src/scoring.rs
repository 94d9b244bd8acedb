//! From a search hit to what a digest shows: a relevance score in 0–1, an impact prior, and why
//! the paper matched.
//!
//! **Relevance.** BM25 scores have no fixed scale (they grow with the number and rarity of the
//! query's words), so a hit's score is first taken relative to the best possible match of the
//! query, estimated as the score of the query's best hit, and then passed through a logistic
//! curve: `relevance = 1 / (1 + e^(−(a·r + b)))` with `r = score / best`, and `a`, `b` from
//! [`Calibration`]. A paper that matches the query as well as the best one scores about 0.9; one
//! with half the evidence about 0.5. The curve only orders and scales; the ranking is the index's.
//!
//! **Impact prior** (a multiplier around 1, [`impact_prior`]): peer-reviewed journal records 1.0,
//! preprints 0.92; reviews, meta-analyses, systematic reviews and randomized controlled trials
//! ×1.08; errata ×0.5; retractions ×0.2 (and flagged); papers entered more than 14 days before
//! the digest lose 1% a week, down to ×0.85. The digest orders by `relevance × prior`.
//!
//! **Why it matched.** The query's analyzed words found in the paper's analyzed title and
//! abstract, and the query's two-word phrases found in its text.

use chrono::NaiveDate;

use crate::paper::{Paper, Source};

/// The logistic curve from relative score to relevance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub slope: f64,
    pub intercept: f64,
}

impl Default for Calibration {
    /// A match as good as the best one gives about 0.9, half as good about 0.5, none about 0.1.
    fn default() -> Calibration {
        Calibration { slope: 4.4, intercept: -2.2 }
    }
}

/// A hit's relevance in 0–1 (see the module docs); 0 when nothing scored.
pub fn relevance(score: f32, best_score: f32, calibration: &Calibration) -> f64 {
    if score <= 0.0 || best_score <= 0.0 {
        return 0.0;
    }
    let relative = f64::from(score / best_score).min(1.0);
    1.0 / (1.0 + (-(calibration.slope * relative + calibration.intercept)).exp())
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
    /// Query words (as analyzed) found in the paper, in query order.
    pub terms: Vec<String>,
    /// Two-word phrases of the query found verbatim (case aside) in the paper's text.
    pub phrases: Vec<String>,
}

impl MatchReason {
    /// A line for the digest: `Matched "gene editing"; words: gene, edit`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.phrases.is_empty() {
            parts.push(format!("Matched {}", self.phrases.iter().map(|phrase| format!("\"{phrase}\"")).collect::<Vec<_>>().join(", ")));
        }
        if !self.terms.is_empty() {
            parts.push(format!("words: {}", self.terms.join(", ")));
        }
        parts.join("; ")
    }
}

/// Why `paper` matched: `query_terms` and `paper_terms` are analyzed as the index analyzes text
/// (so stems match stems); phrases come from the query as typed.
pub fn match_reason(query: &str, query_terms: &[String], paper: &Paper, paper_terms: &[String]) -> MatchReason {
    let mut terms: Vec<String> = Vec::new();
    for term in query_terms {
        if paper_terms.contains(term) && !terms.contains(term) {
            terms.push(term.clone());
        }
    }
    let text = format!("{} {}", paper.title, paper.abstract_text()).to_lowercase();
    let words: Vec<String> =
        query.split(|character: char| !character.is_alphanumeric() && character != '-').filter(|word| !word.is_empty()).map(str::to_lowercase).collect();
    let mut phrases: Vec<String> = Vec::new();
    for pair in words.windows(2) {
        let phrase = format!("{} {}", pair[0], pair[1]);
        if text.contains(&phrase) && !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    MatchReason { terms, phrases }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::AbstractSection;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    #[test]
    fn relevance_is_a_calibrated_share_of_the_best_match() {
        let calibration = Calibration::default();
        let best = relevance(12.0, 12.0, &calibration);
        let half = relevance(6.0, 12.0, &calibration);
        assert!((0.88..0.92).contains(&best), "{best}");
        assert!((0.45..0.55).contains(&half), "{half}");
        assert!(relevance(1.0, 12.0, &calibration) < half);
        assert_eq!(relevance(0.0, 12.0, &calibration), 0.0);
        assert_eq!(relevance(3.0, 0.0, &calibration), 0.0);
        assert!(relevance(20.0, 12.0, &calibration) <= best, "never above the best match's");
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
    fn reasons_name_the_matched_words_and_phrases() {
        let mut paper = Paper::new(Source::Arxiv, "Gene editing in plants");
        paper.abstract_sections = vec![AbstractSection { label: None, text: "Base editing of crop genomes.".into() }];
        let query_terms: Vec<String> = ["gene", "edit", "rice"].iter().map(|term| (*term).to_owned()).collect();
        let paper_terms: Vec<String> = ["gene", "edit", "in", "plant", "base", "edit", "of", "crop", "genom"].iter().map(|t| (*t).to_owned()).collect();
        let reason = match_reason("Gene editing rice", &query_terms, &paper, &paper_terms);
        assert_eq!(reason.terms, vec!["gene", "edit"]);
        assert_eq!(reason.phrases, vec!["gene editing"]);
        assert_eq!(reason.describe(), "Matched \"gene editing\"; words: gene, edit");
        assert_eq!(MatchReason::default().describe(), "");
    }
}
