//! Extractive summaries, offline: a paper's summary is its most representative sentences, and a
//! digest's "AI Research Summary" is a few short lines about the week's papers as a whole —
//! how many, their shared themes, what kinds of work they are, and the one sentence that best
//! speaks for all of them — never a repeat of the papers' own summaries listed below it.
//!
//! A sentence's weight is the mean frequency (within the abstract) of its content words, so
//! sentences about what the abstract keeps returning to score high; a structured abstract's
//! conclusions and results sections get a bonus, and so does an unstructured abstract's last
//! sentence (where conclusions usually are). The chosen sentences keep their original order. No
//! randomness, no clock: the same abstract always gives the same summary, which is computed once
//! per paper and shared by every user.

use std::collections::HashMap;

use crate::digest::WINDOW_DAYS;
use crate::paper::Paper;

/// Sentences in a paper's summary.
pub const PAPER_SUMMARY_SENTENCES: usize = 2;
/// The most characters of a paper summary (longer sentences are cut at a word).
const MAX_SUMMARY_CHARS: usize = 400;

/// Words that end a sentence with their period without ending the sentence.
const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "al.", "fig.", "figs.", "vs.", "ca.", "approx.", "no.", "ref.", "eq.", "dr.", "st.", "cf."];

/// Splits prose into sentences at `.`, `!` or `?` followed by a space and a capital letter, a
/// digit or an opening bracket, leaving abbreviations and decimals alone.
pub fn sentences(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for (index, word) in words.iter().enumerate() {
        current.push(word);
        let next_starts_sentence = words
            .get(index + 1)
            .and_then(|next| next.chars().next())
            .is_some_and(|first| first.is_uppercase() || first.is_ascii_digit() || first == '(' || first == '[');
        let ends = word.ends_with(['.', '!', '?']) && !ABBREVIATIONS.contains(&word.to_lowercase().as_str());
        if ends && (next_starts_sentence || index + 1 == words.len()) {
            found.push(current.join(" "));
            current.clear();
        }
    }
    if !current.is_empty() {
        found.push(current.join(" "));
    }
    found
}

/// A paper's summary: its most representative sentences (see the module docs), or its title
/// when it has no abstract.
pub fn summarize_paper(paper: &Paper) -> String {
    let mut candidates: Vec<(String, f64)> = Vec::new();
    for section in &paper.abstract_sections {
        let bonus = match section.label.as_deref().map(str::to_lowercase) {
            Some(label) if label.contains("conclusion") || label.contains("interpretation") => 1.5,
            Some(label) if label.contains("result") || label.contains("finding") => 1.2,
            Some(label) if label.contains("background") || label.contains("method") => 0.8,
            _ => 1.0,
        };
        candidates.extend(sentences(&section.text).into_iter().map(|sentence| (sentence, bonus)));
    }
    if candidates.is_empty() {
        return paper.title.clone();
    }
    let unstructured = paper.abstract_sections.iter().all(|section| section.label.is_none());
    if unstructured && candidates.len() > 2 {
        if let Some(last) = candidates.last_mut() {
            last.1 *= 1.3;
        }
    }
    let frequencies = word_frequencies(candidates.iter().map(|(sentence, _)| sentence.as_str()));
    let mut scored: Vec<(usize, f64)> =
        candidates.iter().enumerate().map(|(index, (sentence, bonus))| (index, sentence_weight(sentence, &frequencies) * bonus)).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen: Vec<usize> = scored.iter().take(PAPER_SUMMARY_SENTENCES).map(|(index, _)| *index).collect();
    chosen.sort_unstable();
    let summary = chosen.iter().map(|index| candidates[*index].0.as_str()).collect::<Vec<_>>().join(" ");
    cut_at_word(&summary, MAX_SUMMARY_CHARS)
}

/// The most characters of the digest summary's "across the papers" sentence.
const MAX_ACROSS_CHARS: usize = 240;

/// The digest's "AI Research Summary", one line per point: how many papers matched (in the week,
/// or in the `window_days` a widened digest looked back), the themes they share, the kinds of
/// work they are, and the sentence most central to all of them that no paper's own summary
/// already shows. Empty when there are no papers (the digest says why).
pub fn digest_summary(term: &str, papers: &[&Paper], window_days: i64) -> Vec<String> {
    if papers.is_empty() {
        return Vec::new();
    }
    let noun = if papers.len() == 1 { "paper" } else { "papers" };
    let count_line = if window_days == WINDOW_DAYS {
        format!("{} new {noun} matched \"{term}\" this week.", papers.len())
    } else {
        format!("{} {noun} matched \"{term}\" in the last {window_days} days.", papers.len())
    };
    let mut lines = vec![count_line];
    let texts: Vec<String> = papers.iter().map(|paper| format!("{} {}", paper.title, paper.abstract_text())).collect();
    // A theme is a word at least two papers use (counted once per paper).
    let mut shared: HashMap<String, u32> = HashMap::new();
    for text in &texts {
        let mut words = content_words(text);
        words.sort_unstable();
        words.dedup();
        for word in words {
            *shared.entry(word).or_insert(0) += 1;
        }
    }
    let mut themes: Vec<(&String, &u32)> = shared.iter().filter(|(word, count)| **count > 1 && word.len() > 3).collect();
    themes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut chosen: Vec<&str> = Vec::new();
    for (word, _) in &themes {
        let singular = word.strip_suffix('s').unwrap_or(word);
        if !chosen.iter().any(|taken| taken.strip_suffix('s').unwrap_or(taken) == singular) {
            chosen.push(word.as_str());
        }
    }
    let themes: Vec<&str> = chosen.into_iter().take(5).collect();
    if themes.len() >= 2 {
        lines.push(format!("Recurring themes: {}.", themes.join(", ")));
    }
    if let Some(kinds) = kinds_of_work(papers) {
        lines.push(kinds);
    }
    if papers.len() > 1 {
        if let Some(sentence) = most_central_sentence(papers) {
            lines.push(format!("Across the papers: {sentence}"));
        }
    }
    lines
}

/// "Kinds of work: 2 reviews, 1 randomized controlled trial, 3 preprints." when the papers say.
fn kinds_of_work(papers: &[&Paper]) -> Option<String> {
    let kinds = [
        ("systematic review", "systematic reviews"),
        ("meta-analysis", "meta-analyses"),
        ("review", "reviews"),
        ("randomized controlled trial", "randomized controlled trials"),
        ("clinical trial", "clinical trials"),
    ];
    let mut parts: Vec<String> = Vec::new();
    for (kind, plural) in kinds {
        let count = papers.iter().filter(|paper| paper.publication_types.iter().any(|stated| stated.eq_ignore_ascii_case(kind))).count();
        if count > 0 {
            parts.push(format!("{count} {}", if count == 1 { kind } else { plural }));
        }
    }
    let preprints = papers.iter().filter(|paper| !paper.sources.contains(&crate::paper::Source::Pubmed)).count();
    if preprints > 0 {
        parts.push(format!("{preprints} {}", if preprints == 1 { "preprint" } else { "preprints" }));
    }
    (!parts.is_empty()).then(|| format!("Kinds of work: {}.", parts.join(", ")))
}

/// The sentence whose words the papers share most, among those that are not already in a
/// paper's own summary, cut at a word.
fn most_central_sentence(papers: &[&Paper]) -> Option<String> {
    let summaries: Vec<String> = papers.iter().map(|paper| summarize_paper(paper)).collect();
    let texts: Vec<String> = papers.iter().map(|paper| paper.abstract_text()).collect();
    let frequencies = word_frequencies(texts.iter().map(String::as_str));
    let mut best: Option<(f64, String)> = None;
    for text in &texts {
        for sentence in sentences(text) {
            // A summary may cut the sentence short, so its opening words are enough to know it.
            let opening: String = sentence.chars().take(60).collect();
            if summaries.iter().any(|summary| summary.contains(opening.as_str())) {
                continue;
            }
            let weight = sentence_weight(&sentence, &frequencies);
            if weight > 0.0 && best.as_ref().is_none_or(|(best_weight, _)| weight > *best_weight) {
                best = Some((weight, sentence));
            }
        }
    }
    best.map(|(_, sentence)| cut_at_word(&sentence, MAX_ACROSS_CHARS))
}

fn word_frequencies<'a>(texts: impl Iterator<Item = &'a str>) -> HashMap<String, u32> {
    let mut frequencies = HashMap::new();
    for text in texts {
        for word in content_words(text) {
            *frequencies.entry(word).or_insert(0) += 1;
        }
    }
    frequencies
}

fn sentence_weight(sentence: &str, frequencies: &HashMap<String, u32>) -> f64 {
    let words = content_words(sentence);
    if words.len() < 4 {
        return 0.0;
    }
    let total: u32 = words.iter().map(|word| frequencies.get(word).copied().unwrap_or(0)).sum();
    f64::from(total) / (words.len() as f64).sqrt()
}

fn content_words(text: &str) -> Vec<String> {
    text.split(|character: char| !character.is_alphanumeric() && character != '-')
        .map(str::to_lowercase)
        .filter(|word| word.chars().count() > 2 && !COMMON_WORDS.contains(&word.as_str()) && !word.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

fn cut_at_word(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars).collect();
    let end = cut.rfind(' ').unwrap_or(cut.len());
    format!("{}…", cut[..end].trim_end_matches([',', ';', ':']))
}

/// Function words and the boilerplate of abstracts, which say nothing about the topic.
const COMMON_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "from",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "been",
    "which",
    "their",
    "these",
    "those",
    "into",
    "than",
    "then",
    "also",
    "can",
    "may",
    "not",
    "but",
    "its",
    "our",
    "all",
    "any",
    "both",
    "each",
    "such",
    "between",
    "during",
    "after",
    "before",
    "among",
    "within",
    "without",
    "using",
    "used",
    "use",
    "based",
    "study",
    "studies",
    "results",
    "result",
    "show",
    "shows",
    "showed",
    "shown",
    "found",
    "here",
    "however",
    "thus",
    "therefore",
    "whether",
    "while",
    "other",
    "more",
    "most",
    "less",
    "two",
    "three",
    "one",
    "new",
    "well",
    "high",
    "low",
    "data",
    "analysis",
    "method",
    "methods",
    "paper",
    "present",
    "propose",
    "proposed",
    "approach",
    "compared",
    "including",
    "associated",
    "significant",
    "significantly",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{AbstractSection, Source};

    fn paper_with(title: &str, sections: &[(Option<&str>, &str)]) -> Paper {
        let mut paper = Paper::new(Source::Pubmed, title);
        paper.abstract_sections =
            sections.iter().map(|(label, text)| AbstractSection { label: label.map(str::to_owned), text: (*text).to_owned() }).collect();
        paper
    }

    #[test]
    fn sentences_split_at_real_ends_only() {
        let text = "Mice were treated, e.g. with 2.5 mg of drug. Results differ (Smith et al. 2020). 3 groups improved! Why?";
        assert_eq!(
            sentences(text),
            vec!["Mice were treated, e.g. with 2.5 mg of drug.", "Results differ (Smith et al. 2020).", "3 groups improved!", "Why?"]
        );
        assert!(sentences("").is_empty());
        assert_eq!(sentences("no final stop"), vec!["no final stop"]);
    }

    #[test]
    fn a_summary_keeps_the_sentences_about_the_abstracts_subject_in_order() {
        let paper = paper_with(
            "Base editing in mice",
            &[(
                None,
                "We thank the funding agencies for support. Base editing corrected the mutation in liver cells of mice. \
                 The weather during the experiments was mild. Base editing of liver cells restored enzyme activity in mice.",
            )],
        );
        let summary = summarize_paper(&paper);
        assert_eq!(
            summary,
            "Base editing corrected the mutation in liver cells of mice. Base editing of liver cells restored enzyme activity in mice."
        );
        assert_eq!(summarize_paper(&paper), summary, "deterministic");
    }

    #[test]
    fn structured_abstracts_favour_their_conclusions_and_empty_ones_give_the_title() {
        let paper = paper_with(
            "Statins and memory",
            &[
                (Some("BACKGROUND"), "Statins are widely prescribed drugs for cholesterol and memory complaints are common."),
                (Some("METHODS"), "We followed statin users and memory tests for ten years in a cohort."),
                (Some("CONCLUSIONS"), "Statin use was not linked to memory decline in this cohort of statin users."),
            ],
        );
        assert!(summarize_paper(&paper).contains("Statin use was not linked to memory decline"), "{}", summarize_paper(&paper));
        assert_eq!(summarize_paper(&paper_with("Only a title", &[])), "Only a title");
    }

    #[test]
    fn long_summaries_are_cut_at_a_word() {
        let long = format!("{} end.", "word ".repeat(200));
        let summary = summarize_paper(&paper_with("Long", &[(None, &long)]));
        assert!(summary.chars().count() <= MAX_SUMMARY_CHARS + 1 && summary.ends_with('…'), "{summary}");
    }

    #[test]
    fn the_digest_summary_counts_names_themes_and_quotes_the_best_papers() {
        let first = paper_with("CRISPR screens in T cells", &[(None, "CRISPR screens identified regulators of T cell exhaustion in tumours.")]);
        let second = paper_with("Exhaustion of T cells", &[(None, "T cell exhaustion limits CRISPR engineered therapies in tumours.")]);
        let lines = digest_summary("CRISPR T cells", &[&first, &second], WINDOW_DAYS);
        assert_eq!(lines[0], "2 new papers matched \"CRISPR T cells\" this week.");
        // A widened digest's papers are the window's, not the week's.
        let widened = digest_summary("CRISPR T cells", &[&first, &second], 90);
        assert_eq!(widened[0], "2 papers matched \"CRISPR T cells\" in the last 90 days.");
        assert_eq!(widened[1..], lines[1..]);
        assert_eq!(digest_summary("CRISPR T cells", &[&first], 30)[0], "1 paper matched \"CRISPR T cells\" in the last 30 days.");
        assert!(lines[1].starts_with("Recurring themes: ") && lines[1].contains("crispr") && lines[1].contains("exhaustion"), "{lines:?}");
        let own_summaries = [summarize_paper(&first), summarize_paper(&second)];
        assert!(
            lines.iter().skip(1).all(|line| own_summaries.iter().all(|summary| !line.contains(summary.as_str()))),
            "nothing the list repeats: {lines:?}"
        );
        assert!(lines.len() <= 4 && lines.iter().all(|line| line.chars().count() <= 260), "short: {lines:?}");
        assert!(digest_summary("dark matter", &[], WINDOW_DAYS).is_empty(), "an empty digest says why elsewhere");

        // A long sentence that a paper's summary cuts short is still the paper's, not news.
        let long = "Markedly reduced final mean body weights were observed in males and females in the highest dose groups of rats and mice fed phthalate for two years, with liver weights increased and hepatocellular lesions in every exposed group, liver tumours in rats and mice of both sexes at the two highest doses, kidney and testis lesions in male rats fed phthalate, and liver enzyme changes in mice and rats that followed the phthalate dose in every group of both species";
        let third = paper_with(
            "Phthalate feeding study",
            &[(None, &format!("{long} of rats and mice. Phthalate exposure in rats and mice raised liver weights in a dose dependent way."))],
        );
        let fourth = paper_with(
            "Phthalate and rat liver",
            &[(None, "Phthalate exposure changed rat liver weights and mice liver weights in a dose dependent way.")],
        );
        let lines = digest_summary("phthalate liver", &[&third, &fourth], WINDOW_DAYS);
        let across = lines.iter().find(|line| line.starts_with("Across the papers: ")).map_or("", |line| line.as_str());
        assert!(!across.contains("Markedly reduced final mean body weights"), "{lines:?}");
    }

    #[test]
    fn summaries_of_recorded_papers() {
        let batch = include_str!("../fixtures/pubmed/efetch_batch_6_articles.xml");
        let structured = include_str!("../fixtures/pubmed/efetch_structured_abstract_21813367.xml");
        let mut papers = crate::parse::pubmed::parse_efetch(batch).items;
        papers.extend(crate::parse::pubmed::parse_efetch(structured).items);
        let summaries: Vec<String> = papers.iter().map(|paper| format!("{}\n  {}", paper.title, summarize_paper(paper))).collect();
        insta::assert_snapshot!(summaries.join("\n\n"));
        let refs: Vec<&Paper> = papers.iter().collect();
        insta::assert_snapshot!("digest_summary", digest_summary("perfluorooctanoic acid", &refs, WINDOW_DAYS).join("\n"));
    }
}
