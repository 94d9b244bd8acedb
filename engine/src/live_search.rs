//! Live search: when an immediate search finds the index thin on its term, Papertide asks the
//! sources themselves (PubMed's ESearch, arXiv's API) for the term's recent papers, indexes them
//! and ranks the digest with them. This module holds the rules: when the index counts as thin
//! ([`has_little_for_term`]), how far back the question reaches ([`live_window`]), how many
//! papers it asks for, and the words it carries ([`query_words`]), which are also the key under
//! which a live query is remembered (one a day per term and source).
//!
//! The words are the term's letters and digits only, so no source's query syntax (quotes,
//! brackets, field prefixes, `AND`/`OR`/`NOT`) can be written through a search term.

use chrono::{Duration, NaiveDate};

use crate::digest::{MAX_PAPERS, WIDER_WINDOWS_DAYS};

/// The index has little for a term when fewer papers than this match it in the live window: not
/// even a full digest's worth (`digest::MAX_PAPERS`) of candidates, before the relevance floor
/// and the papers sent before take their share.
pub const FEW_MATCHES: usize = MAX_PAPERS;

/// How many days back the count and the live query reach: the widest window an immediate digest
/// looks at (`digest::WIDER_WINDOWS_DAYS`), so that whatever comes back can be in the digest.
pub const LIVE_WINDOW_DAYS: i64 = WIDER_WINDOWS_DAYS[WIDER_WINDOWS_DAYS.len() - 1];

/// The most papers a live query asks one source for: a digest sends at most ten, and the
/// sources' answers stay small (one ESearch, one EFetch, one arXiv page).
pub const LIVE_MAX_RESULTS: u64 = 50;

/// The most words of a term a live query carries; a longer term keeps its first ones.
pub const MAX_QUERY_WORDS: usize = 12;

/// Words both sources read as operators, and which carry no topic of their own.
const OPERATOR_WORDS: &[&str] = &["and", "or", "not", "andnot"];

/// Whether the index has little for a term that `matches` of its papers in the live window match
/// (any of the term's words, as the index searches).
pub fn has_little_for_term(matches: usize) -> bool {
    matches < FEW_MATCHES
}

/// The days a live query covers as of `today`, both inclusive: the last [`LIVE_WINDOW_DAYS`]
/// days, the same window as an immediate digest's widest.
pub fn live_window(today: NaiveDate) -> (NaiveDate, NaiveDate) {
    (today - Duration::days(LIVE_WINDOW_DAYS), today)
}

/// The words a live query for `term` carries: runs of letters and digits, lower-cased, with
/// apostrophes dropped inside words (`Alzheimer's` → `alzheimers`), without the operator words,
/// at most [`MAX_QUERY_WORDS`]. Empty when the term has no word to ask for.
pub fn query_words(term: &str) -> Vec<String> {
    let without_apostrophes: String = term.chars().filter(|character| !matches!(character, '\'' | '\u{2019}')).collect();
    without_apostrophes
        .split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !OPERATOR_WORDS.contains(&word.as_str()))
        .take(MAX_QUERY_WORDS)
        .collect()
}

/// The key a live query is remembered by: terms with the same words ask the same question.
pub fn query_key(term: &str) -> String {
    query_words(term).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(term: &str) -> Vec<String> {
        query_words(term)
    }

    #[test]
    fn the_index_has_little_below_a_digests_worth_of_matches() {
        assert!(has_little_for_term(0));
        assert!(has_little_for_term(FEW_MATCHES - 1));
        assert!(!has_little_for_term(FEW_MATCHES));
        assert!(!has_little_for_term(500));
    }

    #[test]
    fn the_window_is_the_widest_an_immediate_digest_reaches() {
        let today = NaiveDate::from_ymd_opt(2026, 8, 11).expect("a day");
        assert_eq!(live_window(today), (NaiveDate::from_ymd_opt(2026, 5, 13).expect("a day"), today));
        assert_eq!(Some(&LIVE_WINDOW_DAYS), WIDER_WINDOWS_DAYS.iter().max());
    }

    #[test]
    fn words_keep_letters_and_digits_only() {
        assert_eq!(words("Codon model"), ["codon", "model"]);
        assert_eq!(words("  COVID-19 vaccine (mRNA) "), ["covid", "19", "vaccine", "mrna"]);
        assert_eq!(words("Alzheimer's disease"), ["alzheimers", "disease"]);
        assert_eq!(words("Alzheimer’s disease"), ["alzheimers", "disease"]);
        assert_eq!(words("\"gene therapy\" in Müller glia"), ["gene", "therapy", "in", "müller", "glia"]);
        assert_eq!(words("ti:quantum all:criticality"), ["ti", "quantum", "all", "criticality"]);
        assert_eq!(words("--- / ..."), Vec::<String>::new());
    }

    #[test]
    fn operator_words_are_never_sent() {
        assert_eq!(words("cancer AND mice OR rats NOT dogs ANDNOT cats"), ["cancer", "mice", "rats", "dogs", "cats"]);
        assert_eq!(words("and or"), Vec::<String>::new());
    }

    #[test]
    fn a_long_term_keeps_its_first_words() {
        let term = (1..=20).map(|number| format!("w{number}")).collect::<Vec<_>>().join(" ");
        let kept = words(&term);
        assert_eq!(kept.len(), MAX_QUERY_WORDS);
        assert_eq!(kept.first().map(String::as_str), Some("w1"));
    }

    #[test]
    fn terms_with_the_same_words_share_a_key() {
        assert_eq!(query_key("Codon  Model"), query_key("codon model"));
        assert_eq!(query_key("(codon) model"), "codon model");
        assert_ne!(query_key("codon model"), query_key("model codon evolution"));
    }
}
