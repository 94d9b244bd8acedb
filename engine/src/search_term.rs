//! A search term as users type it: the spec's §5 schema with its exact messages.
//!
//! The term is trimmed, then checked in this order: length (3 to 200 characters), injection-like
//! patterns, then the allowed characters (letters, digits, whitespace and `- _ . , ( ) & + ' " :
//! /`). The spec lists quotes both as allowed and among injection patterns; Papertide reads that
//! as: quotes are fine for phrases and apostrophes (`"gene therapy"`, `Alzheimer's`), and refused
//! where they frame a comparison (`' or '1'='1`). SQL keywords are refused in the shapes of a
//! statement (`union select`, `drop table`, `insert into`, …), not as words, so that topics such
//! as "drug selection" or "protein drop-out" stay valid.

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
    if !term.chars().all(|character| character.is_alphanumeric() || character.is_whitespace() || ALLOWED_PUNCTUATION.contains(&character)) {
        return Err(MSG_UNSUPPORTED);
    }
    Ok(term.to_owned())
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
    fn other_characters_are_unsupported() {
        for term in ["cancer!", "gene@home", "p53 = tumour", "50% survival", "what?", "tilde~", "a*b", "brackets [x]", "{braces}"] {
            assert_eq!(validate_search_term(term), Err(MSG_UNSUPPORTED), "{term:?}");
        }
    }
}
