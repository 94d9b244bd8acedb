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

use crate::paper::Paper;
use crate::window::WINDOW_DAYS;

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
        candidates.extend(summary_sentences(&section.text).into_iter().map(|sentence| (sentence, bonus)));
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
    let texts: Vec<String> = papers.iter().map(|paper| format!("{} {}", paper.title, plain_abstract(paper))).collect();
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
    let texts: Vec<String> = papers.iter().map(|paper| plain_abstract(paper)).collect();
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

/// A paper's abstract as summaries read it: the sections' texts without their labels, each
/// sentence without a heading glued to it or footnote marks (see [`summary_sentences`]).
fn plain_abstract(paper: &Paper) -> String {
    paper.abstract_sections.iter().flat_map(|section| summary_sentences(&section.text)).collect::<Vec<_>>().join(" ")
}

/// The sentences of an abstract's text fit to quote: a structured abstract's heading that the
/// source left in the text ("METHODS AND FINDINGS We…", "BACKGROUND: …", medRxiv's glued
/// "BackgroundRheumatoid arthritis…") is dropped, and so are the reference numbers set as
/// superscripts and flattened onto their word ("Africa3", "studies1,2", "neurons4-7"), while
/// names that end in digits stay ("COVID-19", "IL6", "H1N1", "CD4", "p53", "Notch1").
fn summary_sentences(text: &str) -> Vec<String> {
    sentences(text).iter().map(|sentence| without_footnote_marks(without_heading(sentence))).filter(|sentence| !sentence.is_empty()).collect()
}

/// Words that structured-abstract headings are made of (with the joiners "and", "of", "/", "&").
const HEADING_WORDS: &[&str] = &[
    "abstract",
    "aim",
    "aims",
    "background",
    "case",
    "clinical",
    "conclusion",
    "conclusions",
    "context",
    "data",
    "design",
    "discussion",
    "evidence",
    "exposure",
    "exposures",
    "extraction",
    "findings",
    "funding",
    "hypothesis",
    "implications",
    "importance",
    "interpretation",
    "intervention",
    "interventions",
    "introduction",
    "key",
    "limitations",
    "main",
    "material",
    "materials",
    "measurements",
    "measures",
    "method",
    "methodology",
    "methods",
    "motivation",
    "objective",
    "objectives",
    "outcome",
    "outcomes",
    "participants",
    "patients",
    "points",
    "population",
    "presentation",
    "principal",
    "purpose",
    "rationale",
    "registration",
    "relevance",
    "result",
    "results",
    "selection",
    "setting",
    "settings",
    "significance",
    "sources",
    "study",
    "subjects",
    "summary",
    "synthesis",
    "trial",
];
const HEADING_JOINERS: &[&str] = &["and", "of", "&", "/"];

fn is_heading_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    HEADING_WORDS.contains(&lower.as_str())
}

/// `sentence` without the heading it starts with, if it starts with one: upper-case heading
/// words ("METHODS AND FINDINGS", "CONCLUSIONS/SIGNIFICANCE:"), or title-case ones ending in a
/// colon ("Background:") or glued to the sentence's first word ("Methods and FindingsA model…").
/// A sentence that merely begins with such a word ("Background noise was…") is left alone.
fn without_heading(sentence: &str) -> &str {
    let tokens: Vec<(usize, &str)> = sentence.split_whitespace().map(|token| (offset_in(sentence, token), token)).collect();
    let Some((_, first)) = tokens.first() else { return sentence };
    let upper_case = first.chars().filter(|c| c.is_alphabetic()).count() > 1 && !first.chars().any(char::is_lowercase);
    let mut consumed_words = 0;
    for (index, (start, token)) in tokens.iter().enumerate() {
        let bare = token.trim_end_matches(':');
        let parts: Vec<&str> = bare.split(['/', '&']).filter(|part| !part.is_empty()).collect();
        let is_joiner = HEADING_JOINERS.contains(&bare.to_lowercase().as_str());
        let all_heading = !parts.is_empty() && parts.iter().all(|part| is_heading_word(part));
        if upper_case {
            let in_case = !bare.chars().any(char::is_lowercase);
            if in_case && (all_heading || (is_joiner && consumed_words > 0)) {
                if all_heading {
                    consumed_words += 1;
                }
                if token.ends_with(':') && all_heading {
                    return sentence[start + token.len()..].trim_start();
                }
                continue;
            }
            // The heading ends before this token: it must end in a heading word, and the
            // sentence go on with a capital or a digit.
            let previous_is_word = index > 0 && !HEADING_JOINERS.contains(&tokens[index - 1].1.to_lowercase().as_str());
            let starts_sentence = token.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
            if consumed_words > 0 && previous_is_word && starts_sentence {
                return &sentence[*start..];
            }
            return sentence;
        }
        // Title case: "Background", "Methods and Findings", "Study Design", each word a heading
        // word; the last ends in a colon or runs into the sentence ("FindingsA", "MethodsIn").
        if is_joiner && consumed_words > 0 {
            continue;
        }
        if all_heading {
            if token.ends_with(':') && bare.len() < token.len() {
                let rest = sentence[start + token.len()..].trim_start();
                return if rest.is_empty() { sentence } else { rest };
            }
            consumed_words += 1;
            continue;
        }
        if let Some(glued_at) = glued_heading_end(token) {
            if consumed_words > 0 || index == 0 {
                return &sentence[start + glued_at..];
            }
        }
        return sentence;
    }
    sentence
}

/// Where the sentence starts in a token made of a heading word run into a capitalised word
/// ("MethodsIn" → 7, "FindingsA" → 8); `None` when the token is not such.
fn glued_heading_end(token: &str) -> Option<usize> {
    let mut boundaries = token.char_indices().skip(1).filter(|(_, c)| c.is_uppercase());
    boundaries.find_map(|(at, _)| {
        let (head, rest) = token.split_at(at);
        let head_is_word = head.chars().skip(1).all(char::is_lowercase);
        (head_is_word && is_heading_word(head) && !rest.is_empty()).then_some(at)
    })
}

/// The byte offset of `part` (a subslice of `whole`) in `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// `sentence` with reference numbers glued to words removed (see [`footnote_mark_start`]).
fn without_footnote_marks(sentence: &str) -> String {
    sentence
        .split_whitespace()
        .map(|token| {
            let core_end = token.trim_end_matches(['.', ',', ';', ':', '!', '?']).len();
            let (core, trailing) = token.split_at(core_end);
            match footnote_mark_start(core) {
                Some(at) => format!("{}{trailing}", &core[..at]),
                None => token.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a reference mark starts in `word`, if it ends in one: digits (a list "1,2" or a range
/// "4-7" or "8–12") after a closing bracket or after a word that cannot end in a digit by
/// name: a lower-case word of at least four letters ("measles4", "re-infection3"), or a
/// capitalised one of at least six ("Africa3"). Single numbers on shorter or mixed-case words
/// are names ("p53", "CD4", "IL6", "H1N1", "Notch1", "Sox2"), and so is anything after a hyphen
/// ("COVID-19"); a list or a range of numbers is a mark after any word of lower-case letters.
fn footnote_mark_start(word: &str) -> Option<usize> {
    let mark_start = word
        .rfind(|c: char| !(c.is_ascii_digit() || c == ',' || c == '-' || c == '–'))
        .map(|at| at + word[at..].chars().next().map_or(1, char::len_utf8))?;
    let mark = &word[mark_start..];
    let stem = &word[..mark_start];
    if mark.is_empty() || !mark.starts_with(|c: char| c.is_ascii_digit()) || !mark.ends_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let numbers: Vec<&str> = mark.split([',', '-', '–']).collect();
    if numbers.iter().any(|number| number.is_empty() || number.len() > 3) {
        return None;
    }
    if stem.ends_with(')') || stem.ends_with(']') {
        return Some(mark_start);
    }
    // The letters of the word's last part (after a hyphen: "re-infection3" looks at "infection").
    let last_part = stem.rsplit('-').next().unwrap_or(stem);
    if last_part.is_empty() || !last_part.chars().all(char::is_alphabetic) {
        return None;
    }
    let letters = last_part.chars().count();
    let lower_tail = last_part.chars().skip(1).all(char::is_lowercase);
    let all_lower = last_part.chars().all(char::is_lowercase);
    let is_list = numbers.len() > 1;
    let is_mark = if is_list { lower_tail && letters >= 3 } else { (all_lower && letters >= 4) || (lower_tail && letters >= 6) };
    is_mark.then_some(mark_start)
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

    /// The recorded medRxiv and bioRxiv papers (fixtures beside the parser), by DOI.
    fn preprint(doi: &str) -> Paper {
        let pages = [
            (include_str!("../fixtures/medrxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json"), Source::Medrxiv),
            (include_str!("../fixtures/medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json"), Source::Medrxiv),
            (include_str!("../fixtures/biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json"), Source::Biorxiv),
        ];
        pages
            .iter()
            .flat_map(|(json, source)| crate::parse::biorxiv::parse_details(json, *source).expect("parses").papers.items)
            .find(|paper| paper.ids.doi.as_deref() == Some(doi))
            .expect("a recorded paper with that DOI")
    }

    #[test]
    fn headings_are_dropped_from_summary_sentences() {
        let check = |sentence: &str, expected: &str| assert_eq!(without_heading(sentence), expected, "{sentence}");
        check("METHODS AND FINDINGS We followed 300 patients.", "We followed 300 patients.");
        check("BACKGROUND: Malaria in pregnancy is common.", "Malaria in pregnancy is common.");
        check("CONCLUSIONS/SIGNIFICANCE Statins did not help.", "Statins did not help.");
        check("Background: Malaria in pregnancy is common.", "Malaria in pregnancy is common.");
        check("Methods and FindingsA compartmental model was built.", "A compartmental model was built.");
        check("BackgroundRheumatoid arthritis is chronic.", "Rheumatoid arthritis is chronic.");
        check("Study DesignWe leveraged a sample of 70 FEP.", "We leveraged a sample of 70 FEP.");
        // Not headings: a sentence that begins with such a word, or with capitals that name things.
        check("Background noise was removed.", "Background noise was removed.");
        check("Methods differ between sites.", "Methods differ between sites.");
        check("COVID-19 RESULTS IN Lung damage.", "COVID-19 RESULTS IN Lung damage.");
        check("DNA Methylation changes with age.", "DNA Methylation changes with age.");
        check("RESULTS", "RESULTS");
    }

    #[test]
    fn footnote_marks_are_dropped_and_names_with_digits_kept() {
        let check = |sentence: &str, expected: &str| assert_eq!(without_footnote_marks(sentence), expected, "{sentence}");
        check("Malaria is endemic in sub-Saharan Africa3.", "Malaria is endemic in sub-Saharan Africa.");
        check(
            "Animal studies1,2 and the scarcity of confirmed re-infection3 suggest",
            "Animal studies and the scarcity of confirmed re-infection suggest",
        );
        check(
            "life-long for smallpox or measles4, to common cold coronaviruses (CCC)5.",
            "life-long for smallpox or measles, to common cold coronaviruses (CCC).",
        );
        check("motor neurons4-7, but with less precision8-12.", "motor neurons, but with less precision.");
        let kept = "COVID-19 raised IL6 and CD4 counts; H1N1 and p53 in 2019, Notch1 and Sox2 in mTORC1 cells at 37 degrees, 5 cm2 each.";
        check(kept, kept);
    }

    #[test]
    fn summaries_of_recorded_preprints_carry_no_headings_or_reference_marks() {
        // medRxiv leaves its headings glued to the text: "BackgroundRheumatoid …", "MethodsIn this …".
        let rheumatoid = preprint("10.1101/2025.11.18.25340542");
        assert!(rheumatoid.abstract_text().contains("BackgroundRheumatoid"), "the recorded text has the glued heading");
        // Reference numbers flattened onto words: "studies1,2", "re-infection3", "measles4".
        let immunity = preprint("10.1101/2020.09.09.20191205");
        assert!(immunity.abstract_text().contains("studies1,2"));
        let songbird = preprint("10.64898/2026.07.31.740148");
        assert!(songbird.abstract_text().contains("neurons4-7"));

        let papers = [&rheumatoid, &immunity, &songbird];
        let mut quoted: Vec<String> = papers.iter().map(|paper| summarize_paper(paper)).collect();
        quoted.extend(digest_summary("immunity", &papers, WINDOW_DAYS));
        quoted.extend(papers.iter().flat_map(|paper| summary_sentences(&paper.abstract_text())));
        let text = quoted.join("\n");
        for leftover in
            ["BackgroundRheumatoid", "MethodsIn", "ResultsA", "studies1", "infection3", "measles4", "(CCC)5", "learners1", "neurons4", "precision8"]
        {
            assert!(!text.contains(leftover), "{leftover:?} left in:\n{text}");
        }
        assert!(text.contains("SARS-CoV-2"), "a name with digits is kept:\n{text}");
    }

    #[test]
    fn the_digest_summary_quotes_no_section_label() {
        let first = paper_with(
            "Malaria in pregnancy",
            &[
                (Some("BACKGROUND"), "Malaria during pregnancy causes low birth weight in sub-Saharan Africa3 and elsewhere."),
                (Some("METHODS AND FINDINGS"), "A compartmental model of malaria transmission during pregnancy estimated low birth weight."),
                (Some("CONCLUSIONS/SIGNIFICANCE"), "Preventive treatment of malaria during pregnancy reduces low birth weight."),
            ],
        );
        let second = paper_with("Birth weight and malaria", &[(None, "Malaria transmission during pregnancy lowers birth weight across Africa.")]);
        let lines = digest_summary("malaria pregnancy", &[&first, &second], WINDOW_DAYS);
        let all = format!("{lines:?} {}", summarize_paper(&first));
        for label in ["BACKGROUND", "METHODS AND FINDINGS", "CONCLUSIONS", "Africa3"] {
            assert!(!all.contains(label), "{label} in {all}");
        }
        assert!(lines.iter().any(|line| line.starts_with("Across the papers: ")), "{lines:?}");
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
