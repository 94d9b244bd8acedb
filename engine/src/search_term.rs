//! Search terms: the entity (spec §3), the plan limits (free 1, pro 5, team 10; §8's 402 and
//! 403 answers), and the term as users type it, checked with the spec's §5 schema and its exact
//! messages.
//!
//! The term is trimmed, then checked in this order: length (3 to 200 characters), injection-like
//! patterns, then the allowed characters (letters, digits, spaces — no line break, tab or other
//! control character, and nothing invisible — and `- _ . , ( ) & + ' " : /`). The spec lists quotes both as allowed and among injection patterns; Papertide reads that
//! as: quotes are fine for phrases and apostrophes (`"gene therapy"`, `Alzheimer's`), and refused
//! where they frame a comparison (`' or '1'='1`). SQL keywords are refused in the shapes of a
//! statement (`union select`, `drop table`, `insert into`, …), not as words, so that topics such
//! as "drug selection" or "protein drop-out" stay valid.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::account::{Tier, UserId};
use crate::plain_text::is_invisible;

pub const MSG_TOO_SHORT: &str = "Search term must be at least 3 characters";
pub const MSG_TOO_LONG: &str = "Search term must be less than 200 characters";
pub const MSG_INJECTION: &str = "Search term contains invalid characters or patterns";
pub const MSG_UNSUPPORTED: &str = "Search term contains unsupported characters";

pub const MIN_CHARS: usize = 3;
pub const MAX_CHARS: usize = 200;

/// Punctuation a term may hold besides letters, digits and whitespace.
const ALLOWED_PUNCTUATION: &[char] = &['-', '_', '.', ',', '(', ')', '&', '+', '\'', '"', ':', '/'];

/// Character sequences that never belong in a topic: statement ends, comment markers, markup.
const FORBIDDEN_SEQUENCES: &[&str] = &[";", "--", "/*", "*/", "#", "<", ">", "\\", "`"];

/// Consecutive words that make a statement: each pair is refused wherever it appears.
const STATEMENT_SHAPES: &[(&str, &str)] = &[
    ("union", "select"),
    ("union", "all"),
    ("select", "from"),
    ("insert", "into"),
    ("delete", "from"),
    ("drop", "table"),
    ("drop", "database"),
    ("alter", "table"),
    ("truncate", "table"),
    ("create", "table"),
    ("exec", "xp_cmdshell"),
];

/// Words that open script code when followed by `(` or `:`.
const SCRIPT_CALLS: &[&str] = &["javascript:", "vbscript:", "data:text", "eval(", "alert(", "exec(", "execute(", "sleep(", "benchmark("];

/// A search term's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TermId(pub Uuid);

impl std::fmt::Display for TermId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(formatter)
    }
}

impl std::str::FromStr for TermId {
    type Err = uuid::Error;

    fn from_str(text: &str) -> Result<TermId, uuid::Error> {
        Uuid::parse_str(text).map(TermId)
    }
}

/// Where a term's search stands (the dashboard shows 'Pending', 'Searching...', 'Complete',
/// 'Failed').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TermStatus {
    #[default]
    Pending,
    Processing,
    Completed,
    Failed,
}

/// A user's search term (spec §3 `search_terms`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchTerm {
    pub id: TermId,
    pub user_id: UserId,
    pub term: String,
    pub is_active: bool,
    /// Added on the free plan.
    pub is_free: bool,
    pub status: TermStatus,
    pub last_processed_at: Option<DateTime<Utc>>,
    pub next_scheduled_run: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// Words whose papers the term does not want (`rating::validate_exclude_words`); terms
    /// stored before there were any read back with none.
    #[serde(default)]
    pub exclude: Vec<String>,
}

impl SearchTerm {
    /// A new, active, pending term.
    pub fn new(id: TermId, user_id: UserId, term: String, tier: Tier, now: DateTime<Utc>) -> SearchTerm {
        SearchTerm {
            id,
            user_id,
            term,
            is_active: true,
            is_free: !tier.is_paid(),
            status: TermStatus::Pending,
            last_processed_at: None,
            next_scheduled_run: None,
            created_at: now,
            exclude: Vec::new(),
        }
    }
}

/// Why one more term is refused (spec §8): a plan with room to grow asks for payment (402), the
/// largest plan asks to contact support (403).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermLimit {
    RequiresPayment { current_count: usize, message: String },
    RequiresSupport { message: String },
}

/// Whether a user on `tier` with `active_terms` active terms may add one more. `is_unlimited`
/// (set by an operator) lifts the limit.
pub fn check_term_limit(tier: Tier, is_unlimited: bool, active_terms: usize) -> Result<(), TermLimit> {
    let limit = tier.search_term_limit();
    if is_unlimited || active_terms < limit {
        return Ok(());
    }
    let plural = if limit == 1 { "term" } else { "terms" };
    match tier {
        Tier::Team => Err(TermLimit::RequiresSupport {
            message: format!("You have reached the maximum of {limit} search {plural} on the Team plan. Contact support to add more."),
        }),
        Tier::Free | Tier::Pro => Err(TermLimit::RequiresPayment {
            current_count: active_terms,
            message: format!("Your {} plan includes {limit} search {plural}. Upgrade your plan to add more.", tier.label()),
        }),
    }
}

/// What a user over their plan's term limit is told where no plan can be bought (billing off):
/// plans there are set by the server's operator, so nothing says "upgrade".
pub fn term_limit_without_billing(tier: Tier) -> String {
    let limit = tier.search_term_limit();
    let plural = if limit == 1 { "term" } else { "terms" };
    format!(
        "Your {} plan includes {limit} search {plural}. Plans on this server are set by its operator: write to support to ask for more.",
        tier.label()
    )
}

/// Whether two terms are one topic: equal but for letter case and spacing ("CRISPR  Base
/// editing" is "crispr base editing"). A user follows a topic once.
pub fn is_same_term(one: &str, other: &str) -> bool {
    let words = |term: &str| term.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    words(one) == words(other)
}

/// What a user who adds a topic they follow already is told; `term` as they follow it.
pub fn already_followed(term: &str) -> String {
    format!("You already follow “{term}”: it is in your search terms.")
}

/// The trimmed term, or the message of the first rule it breaks.
pub fn validate_search_term(text: &str) -> Result<String, &'static str> {
    let term = text.trim();
    let length = term.chars().count();
    if length < MIN_CHARS {
        return Err(MSG_TOO_SHORT);
    }
    if length > MAX_CHARS {
        return Err(MSG_TOO_LONG);
    }
    if looks_like_injection(term) {
        return Err(MSG_INJECTION);
    }
    if !term.chars().all(is_allowed) {
        return Err(MSG_UNSUPPORTED);
    }
    Ok(term.to_owned())
}

/// A letter, a digit, a space within a line or allowed punctuation, and never a character that
/// shows nothing (a zero-width space, a tag letter, a Hangul filler, which counts as a letter).
fn is_allowed(character: char) -> bool {
    (character.is_alphanumeric() || is_space_within_a_line(character) || ALLOWED_PUNCTUATION.contains(&character)) && !is_invisible(character)
}

/// Whitespace that keeps text on one line: a term goes into mail subjects and headers, where a
/// line break (CR, LF, U+2028…) or a tab would start a header of its own.
fn is_space_within_a_line(character: char) -> bool {
    character.is_whitespace() && !character.is_control() && !matches!(character, '\u{2028}' | '\u{2029}')
}

fn looks_like_injection(term: &str) -> bool {
    let lower = term.to_lowercase();
    if FORBIDDEN_SEQUENCES.iter().any(|sequence| lower.contains(sequence)) {
        return true;
    }
    let compact: String = lower.chars().filter(|character| !character.is_whitespace()).collect();
    if SCRIPT_CALLS.iter().any(|call| compact.contains(call)) || has_event_handler(&compact) {
        return true;
    }
    let words: Vec<&str> = lower.split(|character: char| !character.is_alphanumeric() && character != '_').filter(|word| !word.is_empty()).collect();
    if words.windows(2).any(|pair| STATEMENT_SHAPES.contains(&(pair[0], pair[1]))) {
        return true;
    }
    // A comparison next to a boolean operator or a quote: `or 1=1`, `' or 'a'='a`, `and x!=y`.
    let compares = lower.contains('=') || lower.contains("!=");
    compares && (words.iter().any(|word| matches!(*word, "or" | "and" | "not" | "xor")) || lower.contains('\'') || lower.contains('"'))
}

/// `onerror=`, `onload=`…: an HTML event attribute.
fn has_event_handler(compact: &str) -> bool {
    compact.match_indices("on").any(|(start, _)| {
        let rest = &compact[start + 2..];
        let name_length = rest.chars().take_while(|character| character.is_ascii_alphabetic()).count();
        name_length >= 3 && rest[name_length..].starts_with('=')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_researchers_type_are_accepted_trimmed() {
        for topic in [
            "CRISPR gene editing",
            "  single-cell RNA-seq  ",
            "Alzheimer's disease",
            "\"gene therapy\" AND cancer",
            "COVID-19 vaccines (mRNA)",
            "T-cell receptor: repertoire / diversity",
            "drug selection in malaria",
            "protein drop-out & aggregation",
            "Schrödinger equation",
            "β-amyloid + tau",
            "3D",
        ]
        .iter()
        .filter(|topic| topic.trim().chars().count() >= MIN_CHARS)
        {
            assert_eq!(validate_search_term(topic), Ok(topic.trim().to_owned()), "{topic:?}");
        }
    }

    #[test]
    fn length_is_checked_after_trimming() {
        assert_eq!(validate_search_term("ab"), Err(MSG_TOO_SHORT));
        assert_eq!(validate_search_term("   ab   "), Err(MSG_TOO_SHORT));
        assert_eq!(validate_search_term(""), Err(MSG_TOO_SHORT));
        assert_eq!(validate_search_term("abc"), Ok("abc".into()));
        assert_eq!(validate_search_term(&"a".repeat(200)), Ok("a".repeat(200)));
        assert_eq!(validate_search_term(&"a".repeat(201)), Err(MSG_TOO_LONG));
        assert_eq!(validate_search_term(&"é".repeat(200)), Ok("é".repeat(200)), "characters, not bytes");
    }

    #[test]
    fn injection_like_patterns_are_refused() {
        for attack in [
            "cancer; DROP TABLE users",
            "cancer' OR '1'='1",
            "x or 1=1",
            "gene -- comment",
            "gene /* comment */",
            "tumor # note",
            "1 UNION SELECT password",
            "insert into users values",
            "<script>alert(1)</script>",
            "javascript:alert(1)",
            "img onerror=steal()",
            "a > b",
            "eval (document)",
        ] {
            assert_eq!(validate_search_term(attack), Err(MSG_INJECTION), "{attack:?}");
        }
    }

    #[test]
    fn a_term_with_a_line_break_could_start_a_mail_header() {
        for attack in ["gene\r\nBcc: all", "gene\nX-Injected: yes", "gene\tediting", "gene\u{2028}editing", "gene\u{85}editing"] {
            assert_eq!(validate_search_term(attack), Err(MSG_UNSUPPORTED), "{attack:?}");
        }
        assert_eq!(validate_search_term("gene\u{a0}editing"), Ok("gene\u{a0}editing".into()), "a no-break space stays on the line");
    }

    #[test]
    fn without_billing_the_limit_names_the_operator_not_an_upgrade() {
        let message = term_limit_without_billing(Tier::Free);
        assert_eq!(message, "Your Free plan includes 1 search term. Plans on this server are set by its operator: write to support to ask for more.");
        assert!(!term_limit_without_billing(Tier::Pro).to_lowercase().contains("upgrade"));
    }

    #[test]
    fn plan_limits_ask_for_payment_then_for_support() {
        assert_eq!(check_term_limit(Tier::Free, false, 0), Ok(()));
        assert!(matches!(check_term_limit(Tier::Free, false, 1), Err(TermLimit::RequiresPayment { current_count: 1, .. })));
        assert_eq!(check_term_limit(Tier::Pro, false, 4), Ok(()));
        let Err(TermLimit::RequiresPayment { current_count, message }) = check_term_limit(Tier::Pro, false, 5) else {
            panic!("pro stops at 5");
        };
        assert_eq!((current_count, message.as_str()), (5, "Your Pro plan includes 5 search terms. Upgrade your plan to add more."));
        assert_eq!(check_term_limit(Tier::Team, false, 9), Ok(()));
        assert!(matches!(check_term_limit(Tier::Team, false, 10), Err(TermLimit::RequiresSupport { .. })));
        assert_eq!(check_term_limit(Tier::Free, true, 40), Ok(()), "isUnlimited lifts the limit");
    }

    #[test]
    fn terms_serialize_as_the_client_reads_them() {
        let id = TermId(Uuid::from_u128(7));
        let user = UserId(Uuid::from_u128(9));
        let now: DateTime<Utc> = "2026-11-22T10:00:00Z".parse().expect("a time");
        let term = SearchTerm::new(id, user, "CRISPR".into(), Tier::Free, now);
        let json = serde_json::to_value(&term).expect("json");
        assert_eq!(json["id"], "00000000-0000-0000-0000-000000000007");
        assert_eq!((json["status"].as_str(), json["isActive"].as_bool(), json["isFree"].as_bool()), (Some("pending"), Some(true), Some(true)));
        assert!(json["lastProcessedAt"].is_null() && json["createdAt"].is_string());
    }

    #[test]
    fn a_term_with_an_invisible_character_is_unsupported() {
        let format_characters = [
            '\u{00AD}',
            '\u{0600}',
            '\u{061C}',
            '\u{180E}',
            '\u{200B}',
            '\u{200D}',
            '\u{202E}',
            '\u{2060}',
            '\u{2066}',
            '\u{FEFF}',
            '\u{FFF9}',
            '\u{110BD}',
            '\u{1343F}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{E0041}',
        ];
        let separators = ['\u{2028}', '\u{2029}'];
        let joiner_and_fillers = ['\u{034F}', '\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'];
        for character in format_characters.into_iter().chain(separators).chain(joiner_and_fillers) {
            assert_eq!(validate_search_term(&format!("gene{character}editing")), Err(MSG_UNSUPPORTED), "U+{:04X}", u32::from(character));
        }
        assert_eq!(validate_search_term("\u{3164}\u{3164}\u{3164}"), Err(MSG_UNSUPPORTED), "fillers count as letters, and show nothing");
        assert_eq!(validate_search_term("생물학 연구"), Ok("생물학 연구".into()), "Hangul itself is fine");
    }

    #[test]
    fn other_characters_are_unsupported() {
        for term in ["cancer!", "gene@home", "p53 = tumour", "50% survival", "what?", "tilde~", "a*b", "brackets [x]", "{braces}"] {
            assert_eq!(validate_search_term(term), Err(MSG_UNSUPPORTED), "{term:?}");
        }
    }

    #[test]
    fn a_topic_is_the_same_whatever_its_letter_case_and_spacing() {
        assert!(is_same_term("CRISPR base editing", "crispr base editing"));
        assert!(is_same_term("  crispr  Base\u{a0}editing ", "CRISPR base editing"));
        assert!(!is_same_term("crispr base editing", "crispr base-editing"));
        assert!(!is_same_term("crispr", "crispr base editing"));
        assert_eq!(already_followed("CRISPR"), "You already follow “CRISPR”: it is in your search terms.");
    }
}
