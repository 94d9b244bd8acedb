//! Ratings: what a researcher told a search term about one of its papers ("Relevant", "Not
//! relevant", "More like this") and the words a term excludes. The signed rating links a digest
//! mail carries under each paper are `crate::signed::RatingClaim`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::search_term::TermId;

/// What a researcher says of a paper for one term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Relevant,
    NotRelevant,
    MoreLikeThis,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Relevant, Verdict::NotRelevant, Verdict::MoreLikeThis];

    /// The button's words: "Relevant", "Not relevant", "More like this".
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Relevant => "Relevant",
            Verdict::NotRelevant => "Not relevant",
            Verdict::MoreLikeThis => "More like this",
        }
    }

    /// Its byte in a rating link's token.
    pub(crate) fn code(self) -> u8 {
        match self {
            Verdict::Relevant => 1,
            Verdict::NotRelevant => 2,
            Verdict::MoreLikeThis => 3,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|verdict| verdict.code() == code)
    }
}

/// One rating: a user's verdict on a paper for one of their terms. One per user, term and paper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    pub term_id: TermId,
    /// The paper's first dedup key, as `DigestEntry::keys[0]` (`doi:10.1/x`, `pmid:123`).
    pub paper_key: String,
    pub title: String,
    pub verdict: Verdict,
    /// The digest it was rated from; `None` for a paper the term was seeded from.
    pub digest_id: Option<Uuid>,
    pub rated_at: DateTime<Utc>,
    /// A paper the researcher gave the term as one it should find more of (`crate::seed`),
    /// counted as rated relevant.
    #[serde(default)]
    pub seeded: bool,
}

impl Rating {
    /// A paper the term is seeded from (`crate::seed`): rated relevant, from no digest.
    pub fn seed(term_id: TermId, paper_key: String, title: String, now: DateTime<Utc>) -> Rating {
        Rating { term_id, paper_key, title, verdict: Verdict::Relevant, digest_id: None, rated_at: now, seeded: true }
    }
}

pub const MAX_EXCLUDE_WORDS: usize = 10;
pub const MIN_EXCLUDE_WORD_CHARS: usize = 2;
pub const MAX_EXCLUDE_WORD_CHARS: usize = 40;

pub const MSG_EXCLUDE_TOO_MANY: &str = "A search term can exclude at most 10 words";
pub const MSG_EXCLUDE_TOO_SHORT: &str = "Each excluded word must be at least 2 characters";
pub const MSG_EXCLUDE_TOO_LONG: &str = "Each excluded word must be at most 40 characters";
pub const MSG_EXCLUDE_UNSUPPORTED: &str = "Excluded words may only contain letters, digits and hyphens";

/// A term's exclusion words cleaned: each trimmed and lower-cased, empty ones and repeats
/// dropped (first kept), then checked: at most [`MAX_EXCLUDE_WORDS`], each 2 to 40 characters of
/// letters, digits and hyphens. The message of the first rule broken otherwise.
pub fn validate_exclude_words(words: &[String]) -> Result<Vec<String>, &'static str> {
    let mut cleaned: Vec<String> = Vec::new();
    for word in words {
        let word = word.trim().to_lowercase();
        if word.is_empty() || cleaned.contains(&word) {
            continue;
        }
        let length = word.chars().count();
        if length < MIN_EXCLUDE_WORD_CHARS {
            return Err(MSG_EXCLUDE_TOO_SHORT);
        }
        if length > MAX_EXCLUDE_WORD_CHARS {
            return Err(MSG_EXCLUDE_TOO_LONG);
        }
        if !word.chars().all(|character| character.is_alphanumeric() || character == '-') || word.chars().any(crate::validation::is_invisible) {
            return Err(MSG_EXCLUDE_UNSUPPORTED);
        }
        cleaned.push(word);
    }
    if cleaned.len() > MAX_EXCLUDE_WORDS {
        return Err(MSG_EXCLUDE_TOO_MANY);
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_camel_case_on_the_wire() {
        let json: Vec<String> = Verdict::ALL.iter().map(|verdict| serde_json::to_string(verdict).expect("json")).collect();
        assert_eq!(json, ["\"relevant\"", "\"notRelevant\"", "\"moreLikeThis\""]);
        assert_eq!(serde_json::from_str::<Verdict>("\"moreLikeThis\"").expect("read"), Verdict::MoreLikeThis);
    }

    #[test]
    fn exclusion_words_are_cleaned_then_checked() {
        let words = |list: &[&str]| list.iter().map(|word| word.to_string()).collect::<Vec<_>>();
        assert_eq!(
            validate_exclude_words(&words(&["  Mouse ", "mouse", "", "in-vitro", "Zebrafish", "p53"])),
            Ok(words(&["mouse", "in-vitro", "zebrafish", "p53"]))
        );
        assert_eq!(validate_exclude_words(&[]), Ok(Vec::new()));
        assert_eq!(validate_exclude_words(&words(&["x"])), Err(MSG_EXCLUDE_TOO_SHORT));
        assert_eq!(validate_exclude_words(&words(&[&"a".repeat(41)])), Err(MSG_EXCLUDE_TOO_LONG));
        assert_eq!(validate_exclude_words(&words(&[&"é".repeat(40)])), Ok(words(&[&"é".repeat(40)])), "characters, not bytes");
        for bad in ["two words", "semi;colon", "<b>", "under_score", "zero\u{200B}width"] {
            assert_eq!(validate_exclude_words(&words(&[bad])), Err(MSG_EXCLUDE_UNSUPPORTED), "{bad:?}");
        }
        let eleven: Vec<String> = (0..11).map(|index| format!("word{index}")).collect();
        assert_eq!(validate_exclude_words(&eleven), Err(MSG_EXCLUDE_TOO_MANY));
        let ten_with_repeats: Vec<String> = (0..11).map(|index| format!("word{}", index.min(9))).collect();
        assert_eq!(validate_exclude_words(&ten_with_repeats).map(|cleaned| cleaned.len()), Ok(10), "repeats do not count");
    }
}
