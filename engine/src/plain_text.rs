//! Plain text: the characters that show nothing, and text free of them, of control characters
//! and of markup.

/// Characters that show nothing, by ranges: every format character (Unicode category Cf: the
/// soft hyphen, zero-width spaces and joiners, bidirectional controls, the byte-order mark, the
/// invisible tag letters, ...), the line and paragraph separators, the combining grapheme joiner
/// and the Hangul fillers. Each can hide text or make it read differently from what it holds.
pub(crate) const INVISIBLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{2028}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `character` shows nothing (see [`INVISIBLE`]).
pub fn is_invisible(character: char) -> bool {
    INVISIBLE.iter().any(|&(first, last)| (first..=last).contains(&character))
}

/// Whether free text shown to people is plain: no control characters (NUL, CR, LF, ...), no
/// invisible characters (zero-width spaces, bidirectional controls that can make text read
/// backwards, tag letters, fillers: [`is_invisible`]), and no markup angle brackets.
pub fn is_plain_text(text: &str) -> bool {
    !text.chars().any(|character| character.is_control() || is_invisible(character) || matches!(character, '<' | '>'))
}
