//! What a digest says in words about its search, shared by every way a digest is made: the text
//! a term is searched with, the "searched as" line, and why a digest is empty.

use std::collections::HashMap;

use crate::digest::source_label;
use crate::paper::Source;

/// The text a term is searched with: the LLM's related phrases join the term's own words, and
/// the term is given twice so that the user's words weigh more than any one suggestion.
pub fn weighted_query_text(term: &str, phrases: &[String]) -> String {
    if phrases.is_empty() {
        term.to_owned()
    } else {
        format!("{term} {term} {}", phrases.join(" "))
    }
}

/// Why a digest of `term` that looked back `days` days is empty: nothing relevant enough, or
/// only papers an earlier digest sent (`sent_before` of them); and which of the user's sources
/// (`failing`) could not be reached at the last harvest.
pub fn empty_reason(term: &str, days: i64, sent_before: usize, failing: &[Source]) -> String {
    let mut reason = match sent_before {
        0 => format!("Nothing published in the last {days} days matched \"{term}\" closely enough to send."),
        1 => format!(
            "The one paper of the last {days} days that matched \"{term}\" was in an earlier digest of yours, so there is nothing new to send."
        ),
        many => format!(
            "The {many} papers of the last {days} days that matched \"{term}\" were all in your earlier digests, so there is nothing new to send."
        ),
    };
    if !failing.is_empty() {
        let names: Vec<&str> = failing.iter().map(|source| source_label(*source)).collect();
        reason.push_str(&format!(
            " {} could not be reached at the last harvest, so some of this week's papers may be missing; they will be in a later digest.",
            names.join(" and ")
        ));
    }
    reason
}

/// How the papers spelled each word of an expanded query: the index's words are stems
/// ("toxic", "phthalat"), which read badly in a mail.
pub struct Surfaces(HashMap<String, HashMap<String, u32>>);

impl Surfaces {
    pub fn of(expansion: &[(String, f32)]) -> Surfaces {
        Surfaces(expansion.iter().map(|(word, _)| (word.clone(), HashMap::new())).collect())
    }

    /// Counts the spellings of the expansion's words in one paper's analyzed text.
    pub fn count(&mut self, analyzed: &[(String, String)]) {
        for (word, surface) in analyzed {
            if let Some(spellings) = self.0.get_mut(word) {
                *spellings.entry(surface.clone()).or_default() += 1;
            }
        }
    }

    /// The commonest spelling of `word` (the shorter one on a tie), if the topic or a paper
    /// spelled it.
    pub fn readable(&self, word: &str) -> Option<&str> {
        self.0
            .get(word)
            .and_then(|spellings| spellings.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.len().cmp(&a.0.len())).then_with(|| b.0.cmp(a.0))))
            .map(|(surface, _)| surface.as_str())
    }
}

/// How many words of the expanded query "searched as" shows (the strongest; the rest weigh
/// little each).
pub const SEARCHED_AS_WORDS: usize = 10;

/// "Searched as …": the LLM's phrases, then the strongest words of the expanded query as the
/// topic or the papers spell them (each once). A word neither spelled (an expansion word of a
/// week with no candidates) is left out rather than shown as the index's stem.
pub fn searched_as(phrases: &[String], expansion: &[(String, f32)], surfaces: &Surfaces) -> Option<String> {
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
pub fn word_weights(words: &[String]) -> Vec<(String, f32)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn analyzed(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(word, surface)| (word.to_string(), surface.to_string())).collect()
    }

    #[test]
    fn the_term_weighs_more_than_any_suggestion() {
        assert_eq!(weighted_query_text("malaria", &[]), "malaria");
        assert_eq!(
            weighted_query_text("malaria", &["plasmodium".into(), "antimalarial drugs".into()]),
            "malaria malaria plasmodium antimalarial drugs"
        );
    }

    #[test]
    fn an_empty_digest_says_why_and_names_the_failing_sources() {
        assert_eq!(empty_reason("gut flora", 7, 0, &[]), "Nothing published in the last 7 days matched \"gut flora\" closely enough to send.");
        assert!(empty_reason("gut flora", 30, 1, &[])
            .starts_with("The one paper of the last 30 days that matched \"gut flora\" was in an earlier digest"));
        let both = empty_reason("gut flora", 7, 4, &[Source::Arxiv, Source::Biorxiv]);
        assert!(both.starts_with("The 4 papers of the last 7 days"), "{both}");
        assert!(both.ends_with(" arXiv and bioRxiv could not be reached at the last harvest, so some of this week's papers may be missing; they will be in a later digest."), "{both}");
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
