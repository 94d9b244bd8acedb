//! The search-term validator (spec §5). Any text: no panic; an accepted term is the input
//! trimmed, within the length bounds, and accepted again unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

use engine::search_term::{validate_search_term, MAX_CHARS, MIN_CHARS};

fuzz_target!(|text: &str| {
    let Ok(term) = validate_search_term(text) else {
        return;
    };
    assert_eq!(term, text.trim());
    let length = term.chars().count();
    assert!((MIN_CHARS..=MAX_CHARS).contains(&length), "{length} characters accepted");
    assert_eq!(validate_search_term(&term), Ok(term.clone()), "validation is not idempotent");
});
