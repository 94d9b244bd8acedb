//! Seeds: the papers a researcher already knows, given when a term is made or later, that the
//! term takes for papers rated relevant from its first digest on.
//!
//! A researcher pastes identifiers, one per line (DOIs, PMIDs, arXiv ids, or their links), and/or
//! uploads a BibTeX, RIS or PubMed (MEDLINE, `.nbib`) export; [`parse_seeds`] reads them into
//! [`SeedId`]s, each with where it was given, or says what is wrong with each line or entry that
//! cannot be read. It is all or nothing: one problem and no seed is returned, so nothing partial
//! is saved. Looking the papers up (the index first, then their source) is the caller's.
//!
//! # What a pasted line may be
//! - a DOI: `10.1038/nature12373`, `doi:10.1038/nature12373`, `DOI: 10.…`,
//!   `https://doi.org/10.…`, `https://dx.doi.org/10.…` (a `.`, `,` or `;` a citation left at
//!   its end is dropped);
//! - a PMID: `12345678` (1 to 9 digits), `PMID: 12345678`,
//!   `https://pubmed.ncbi.nlm.nih.gov/12345678/`;
//! - an arXiv id: `2101.00001`, `2101.00001v2`, `arXiv:2101.00001`, `hep-th/9901001`,
//!   `https://arxiv.org/abs/…`, `https://arxiv.org/pdf/…(.pdf)`;
//! - a bioRxiv or medRxiv link: `https://www.biorxiv.org/content/10.1101/2020.09.09.20191205v1`
//!   is the DOI `10.1101/2020.09.09.20191205`.
//!
//! arXiv's own DOIs (`10.48550/arXiv.2101.00001`, which Zotero exports) are read as the arXiv id
//! they name, since the index keys arXiv papers by their arXiv id.
//!
//! # What a file may be
//! - **BibTeX**: the id of an entry is its `doi`; else its `eprint` when `archivePrefix` (or
//!   `eprinttype`) is `arXiv` (`pubmed` makes it a PMID); else its `pmid`; else its `url` (or
//!   `howpublished`) when that is one of the links above; else an `arXiv:…` id in its `journal`
//!   or `note` (Google Scholar writes `journal = {arXiv preprint arXiv:1810.04805}`, Zotero
//!   `note = {arXiv:1706.03762 [cs]}`). Values in braces or quotes, nested braces, `#`
//!   concatenation and `@string` macros are read; `@comment`, `@preamble` and text between
//!   entries are skipped; field names are case-insensitive.
//! - **RIS** (`TY  - ` … `ER  - `): `DO`; else a PMID where it is labelled as one (`AN` of a
//!   record whose `DB` or `DP` names PubMed or MEDLINE, as Ovid and EBSCO export, or a value
//!   written `PMID: 123` in `AN`, `C2`, `ID`, `M2` or `N1`); else an arXiv id in `AN` of a record
//!   whose `DB` names arXiv; else a `UR`, `L1` or `L2` that is one of the links above; else an
//!   `arXiv:…` id in `N1`, `T2`, `JO` or `JF`.
//! - **MEDLINE**, the `.nbib` file PubMed's "Send to: Citation manager" writes (it is not RIS,
//!   though its lines look alike): the `PMID`, else an `LID` or `AID` marked `[doi]`.
//!
//! A file is told by its content: RIS when its first line is a `TY` tag, MEDLINE when it is a
//! `PMID` tag, BibTeX when it has an `@type{` entry; anything else is one problem
//! ([`MSG_NOT_BIBTEX_OR_RIS`]). An entry with no usable id is a problem naming its key (BibTeX)
//! or its title (RIS, MEDLINE).
//!
//! # Limits
//! At most [`MAX_SEEDS`] papers once repeats are dropped (the same [`SeedId`] given twice is kept
//! once, where it was first given, without a word), at most [`MAX_SEED_TEXT_BYTES`] of pasted
//! text and file together, and lines of at most [`MAX_SEED_LINE_CHARS`] characters.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::dedup::DedupKey;
use crate::paper::{collapse_whitespace, normalize_arxiv_id, normalize_doi};
use crate::validation::is_invisible;

/// One paper identifier a seed names, normalized as the index keys papers: DOIs lower-case
/// without resolver prefix, arXiv ids without `arXiv:` and without version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeedId {
    Doi(String),
    Pmid(String),
    Arxiv(String),
}

impl SeedId {
    /// The index's key for this identifier.
    pub fn key(&self) -> DedupKey {
        match self {
            SeedId::Doi(doi) => DedupKey::Doi(doi.clone()),
            SeedId::Pmid(pmid) => DedupKey::Pmid(pmid.clone()),
            SeedId::Arxiv(arxiv) => DedupKey::Arxiv(arxiv.clone()),
        }
    }
}

/// Papers a term can be seeded from at most, once repeats are dropped.
pub const MAX_SEEDS: usize = 50;
/// The pasted identifiers and the uploaded file together, in bytes, at most.
pub const MAX_SEED_TEXT_BYTES: usize = 512 * 1024;
/// A pasted line, in characters, at most.
pub const MAX_SEED_LINE_CHARS: usize = 500;

pub const MSG_NO_SEEDS: &str = "Paste at least one DOI, PMID or arXiv id, or upload a BibTeX or RIS file";
pub const MSG_TOO_MANY_SEEDS: &str = "A search term can be seeded from at most 50 papers";
pub const MSG_SEEDS_TOO_LARGE: &str = "The pasted identifiers and the file can be at most 512 KB together";
pub const MSG_SEED_LINE_TOO_LONG: &str = "A line can be at most 500 characters";
pub const MSG_NOT_A_SEED_ID: &str = "Not a DOI, PMID or arXiv id";
pub const MSG_NOT_BIBTEX_OR_RIS: &str = "The file is neither BibTeX nor RIS";
pub const MSG_ENTRY_WITHOUT_ID: &str = "It has no DOI, PMID or arXiv id";
pub const MSG_ENTRY_NOT_CLOSED: &str = "It could not be read: a brace or a quote is not closed";

/// What a researcher gave: the pasted identifiers and the text of an uploaded file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedInput<'a> {
    /// The textarea: one identifier per line; blank lines are skipped.
    pub ids: &'a str,
    /// The text of an uploaded BibTeX, RIS or MEDLINE export (its decoding is the caller's).
    pub file: Option<&'a str>,
}

/// Where a seed, or a problem, was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeedPlace {
    /// A line of the pasted identifiers, from 1 (blank lines count, as the textarea shows them).
    Line(usize),
    /// An entry (BibTeX) or record (RIS, MEDLINE) of the file, from 1, in the file's order;
    /// `@comment`, `@string` and `@preamble` are not entries.
    FileEntry(usize),
    /// The file as a whole (it is not a format that is read).
    File,
    /// The identifiers and the file together (too large, too many papers, nothing given).
    Input,
}

/// One paper a term is seeded from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seed {
    pub id: SeedId,
    /// The line as given (trimmed), or the entry's key (BibTeX), or its PMID or title (RIS,
    /// MEDLINE).
    pub given_as: String,
    pub place: SeedPlace,
}

/// Something given that cannot be a seed, with what a researcher reads about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedProblem {
    pub place: SeedPlace,
    /// The line, the entry's key or title (shortened when long); empty for the whole input.
    pub given_as: String,
    pub message: String,
}

/// How much of what was given a problem quotes back, in characters.
const QUOTED_CHARS: usize = 60;

impl SeedProblem {
    fn new(place: SeedPlace, given_as: &str, message: &str) -> SeedProblem {
        SeedProblem { place, given_as: shortened(given_as, QUOTED_CHARS), message: message.to_owned() }
    }

    /// The problem in one sentence: `Line 3 ("foo"): Not a DOI, PMID or arXiv id`,
    /// `Entry 2 of the file ("smith2020"): It has no DOI, PMID or arXiv id`, or the message alone
    /// for the file or the whole input.
    pub fn describe(&self) -> String {
        let quoted = if self.given_as.is_empty() { String::new() } else { format!(" (\"{}\")", self.given_as) };
        match self.place {
            SeedPlace::Line(line) => format!("Line {line}{quoted}: {}", self.message),
            SeedPlace::FileEntry(entry) => format!("Entry {entry} of the file{quoted}: {}", self.message),
            SeedPlace::File | SeedPlace::Input => self.message.clone(),
        }
    }
}

/// The seeds given in `input`, in the order given (lines, then the file's entries), each paper
/// once; or every problem found, when there is any (see the module docs for what is read).
pub fn parse_seeds(input: &SeedInput) -> Result<Vec<Seed>, Vec<SeedProblem>> {
    let file = input.file.filter(|file| !file.trim().is_empty());
    if input.ids.len() + file.map_or(0, str::len) > MAX_SEED_TEXT_BYTES {
        return Err(vec![SeedProblem::new(SeedPlace::Input, "", MSG_SEEDS_TOO_LARGE)]);
    }
    let mut seeds: Vec<Seed> = Vec::new();
    let mut problems: Vec<SeedProblem> = Vec::new();
    for (index, line) in input.ids.lines().enumerate() {
        let place = SeedPlace::Line(index + 1);
        let visible: String = line.chars().filter(|character| !is_invisible(*character)).collect();
        let given = visible.trim();
        if given.is_empty() {
            continue;
        }
        if given.chars().count() > MAX_SEED_LINE_CHARS {
            problems.push(SeedProblem::new(place, given, MSG_SEED_LINE_TOO_LONG));
            continue;
        }
        match recognize(given) {
            Some(id) => seeds.push(Seed { id, given_as: given.to_owned(), place }),
            None => problems.push(SeedProblem::new(place, given, MSG_NOT_A_SEED_ID)),
        }
    }
    if let Some(file) = file {
        read_file(file, &mut seeds, &mut problems);
    }
    let mut seen: HashSet<SeedId> = HashSet::new();
    seeds.retain(|seed| seen.insert(seed.id.clone()));
    if seeds.len() > MAX_SEEDS {
        problems.push(SeedProblem::new(SeedPlace::Input, "", MSG_TOO_MANY_SEEDS));
    }
    if seeds.is_empty() && problems.is_empty() {
        problems.push(SeedProblem::new(SeedPlace::Input, "", MSG_NO_SEEDS));
    }
    if problems.is_empty() {
        Ok(seeds)
    } else {
        Err(problems)
    }
}

/// `text` cut to `max` characters, with "…" when cut.
fn shortened(text: &str, max: usize) -> String {
    let one_line: String = text.chars().map(|character| if character.is_control() { ' ' } else { character }).collect();
    match one_line.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &one_line[..end]),
        None => one_line,
    }
}

// ---------------------------------------------------------------------------------------------
// Identifiers

impl std::fmt::Display for SeedProblem {
    /// As [`SeedProblem::describe`].
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.describe())
    }
}

/// The identifier one pasted line (or one id field of a file) stands for.
fn recognize(text: &str) -> Option<SeedId> {
    let text = text.trim();
    if is_link(text) {
        return link_seed(text);
    }
    if let Some(rest) = strip_label(text, "doi") {
        return doi_seed(rest);
    }
    if let Some(rest) = strip_label(text, "pmid") {
        return pmid_seed(rest);
    }
    if let Some(rest) = strip_label(text, "arxiv") {
        return arxiv_seed_id(rest).map(SeedId::Arxiv);
    }
    doi_seed(text).or_else(|| pmid_seed(text)).or_else(|| arxiv_seed_id(text).map(SeedId::Arxiv))
}

/// The hosts whose links name a paper, as a line may give them without `https://`.
const LINK_HOSTS: [&str; 9] = [
    "doi.org/",
    "dx.doi.org/",
    "www.doi.org/",
    "arxiv.org/",
    "www.arxiv.org/",
    "export.arxiv.org/",
    "pubmed.ncbi.nlm.nih.gov/",
    "biorxiv.org/",
    "medrxiv.org/",
];

fn is_link(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("www.")
        || LINK_HOSTS.iter().any(|host| lower.starts_with(host))
}

/// What follows `label` (any case) and a `:` or whitespace: `PMID: 123` → `123`.
fn strip_label<'t>(text: &'t str, label: &str) -> Option<&'t str> {
    let head = text.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = &text[label.len()..];
    let after_space = rest.trim_start();
    let after_colon = after_space.strip_prefix(':').map(str::trim_start);
    match after_colon {
        Some(value) => Some(value),
        None if after_space.len() < rest.len() => Some(after_space),
        None => None,
    }
}

/// A DOI: `10.`, a registrant of digits and dots, `/`, a suffix without whitespace. Resolver
/// prefixes are dropped, case folded; a `.`, `,` or `;` at its end is taken for punctuation.
/// arXiv's DOIs are the arXiv id; a version copied from a bioRxiv/medRxiv link is dropped.
fn doi_seed(text: &str) -> Option<SeedId> {
    let text = text.trim().trim_end_matches(['.', ',', ';']);
    let doi = normalize_doi(text)?;
    let (prefix, suffix) = doi.split_once('/')?;
    let registrant = prefix.strip_prefix("10.")?;
    let registrant_ok = !registrant.is_empty() && registrant.chars().all(|character| character.is_ascii_digit() || character == '.');
    if !registrant_ok || suffix.is_empty() || doi.chars().any(char::is_control) {
        return None;
    }
    if prefix == "10.48550" {
        if let Some(id) = suffix.strip_prefix("arxiv.") {
            return arxiv_seed_id(id).map(SeedId::Arxiv);
        }
    }
    if prefix == "10.1101" {
        return Some(SeedId::Doi(format!("10.1101/{}", without_preprint_version(suffix))));
    }
    Some(SeedId::Doi(doi))
}

/// A bioRxiv/medRxiv DOI suffix without the `v2` a link adds (`2020.09.09.20191205v1`).
fn without_preprint_version(suffix: &str) -> &str {
    match suffix.rfind('v') {
        Some(at)
            if at > 0
                && !suffix[at + 1..].is_empty()
                && suffix[at + 1..].bytes().all(|byte| byte.is_ascii_digit())
                && suffix[..at].bytes().all(|byte| byte.is_ascii_digit() || byte == b'.') =>
        {
            &suffix[..at]
        }
        _ => suffix,
    }
}

/// A PMID: 1 to 9 digits, not all zeros; leading zeros dropped.
fn pmid_seed(text: &str) -> Option<SeedId> {
    let digits = text.trim();
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let number: u32 = digits.parse().ok()?;
    (number > 0).then(|| SeedId::Pmid(number.to_string()))
}

/// An arXiv id without version, checked strictly: new style `YYMM.NNNN(N)` with a month from 01
/// to 12, or old style `archive/YYMMNNN` (`hep-th/9901001`; a subject class, as in
/// `math.GT/0309136`, is not part of the id).
fn arxiv_seed_id(text: &str) -> Option<String> {
    let text = text.trim();
    let text = text.strip_prefix("arXiv:").or_else(|| text.strip_prefix("arxiv:")).unwrap_or(text);
    let (id, _version) = normalize_arxiv_id(text)?;
    if let Some((archive, number)) = id.split_once('/') {
        let archive = archive.split_once('.').map_or(archive, |(archive, _subject)| archive).to_ascii_lowercase();
        let archive_ok = !archive.is_empty()
            && archive.bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'-')
            && !archive.starts_with('-')
            && !archive.ends_with('-');
        let number_ok = number.len() == 7 && number.bytes().all(|byte| byte.is_ascii_digit()) && is_month(&number[2..4]);
        return (archive_ok && number_ok).then(|| format!("{archive}/{number}"));
    }
    let (yymm, number) = id.split_once('.')?;
    let yymm_ok = yymm.len() == 4 && yymm.bytes().all(|byte| byte.is_ascii_digit()) && is_month(&yymm[2..]);
    let number_ok = (4..=5).contains(&number.len()) && number.bytes().all(|byte| byte.is_ascii_digit());
    (yymm_ok && number_ok).then_some(id)
}

fn is_month(text: &str) -> bool {
    text.parse::<u8>().is_ok_and(|month| (1..=12).contains(&month))
}

/// The paper a link names: a DOI resolver, PubMed, arXiv (`abs` or `pdf`), bioRxiv or medRxiv.
fn link_seed(text: &str) -> Option<SeedId> {
    let lower = text.to_ascii_lowercase();
    let absolute = if lower.starts_with("http://") || lower.starts_with("https://") { text.to_owned() } else { format!("https://{text}") };
    let url = url::Url::parse(&absolute).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let path = percent_decode(url.path());
    let path = path.trim_start_matches('/');
    match host {
        "doi.org" | "dx.doi.org" => doi_seed(path),
        "pubmed.ncbi.nlm.nih.gov" => pmid_seed(path.trim_end_matches('/')),
        "ncbi.nlm.nih.gov" => pmid_seed(path.strip_prefix("pubmed/")?.trim_end_matches('/')),
        "arxiv.org" | "export.arxiv.org" => {
            let id = path.strip_prefix("abs/").or_else(|| path.strip_prefix("pdf/"))?.trim_end_matches('/');
            arxiv_seed_id(id.strip_suffix(".pdf").unwrap_or(id)).map(SeedId::Arxiv)
        }
        "biorxiv.org" | "medrxiv.org" => {
            let rest = path.strip_prefix("content/10.1101/")?;
            let end = rest.find(|character: char| !(character.is_ascii_digit() || character == '.')).unwrap_or(rest.len());
            let suffix = rest[..end].trim_end_matches('.');
            (!suffix.is_empty()).then(|| SeedId::Doi(format!("10.1101/{suffix}")))
        }
        _ => None,
    }
}

/// `%XX` escapes decoded; text that would not be UTF-8 decoded is kept as it was.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |offset: usize| bytes.get(at + offset).and_then(|byte| (*byte as char).to_digit(16));
        match (bytes[at], hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                at += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| text.to_owned())
}

/// The id an `arXiv:…` mention in free text names (`arXiv preprint arXiv:1810.04805`,
/// `arXiv:1706.03762 [cs]`).
fn arxiv_mention(text: &str) -> Option<SeedId> {
    let lower = text.to_ascii_lowercase();
    lower.match_indices("arxiv:").find_map(|(at, label)| {
        // No id is longer than this: a mention is read from this much, whatever follows.
        let candidate: String = text[at + label.len()..]
            .trim_start()
            .chars()
            .take_while(|character| !character.is_whitespace() && !matches!(character, ',' | ';' | ')' | ']' | '}'))
            .take(40)
            .collect();
        arxiv_seed_id(&candidate).map(SeedId::Arxiv)
    })
}

// ---------------------------------------------------------------------------------------------
// Files

/// The formats a file is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileFormat {
    Bibtex,
    Ris,
    Medline,
}

/// One entry of a file, as the readers give it: what names it, and its id when it has one.
struct FileEntry {
    name: String,
    id: Result<SeedId, &'static str>,
}

fn read_file(file: &str, seeds: &mut Vec<Seed>, problems: &mut Vec<SeedProblem>) {
    let entries = match detect_format(file) {
        Some(FileFormat::Bibtex) => bibtex_entries(file),
        Some(FileFormat::Ris) => ris_entries(file),
        Some(FileFormat::Medline) => medline_entries(file),
        None => {
            problems.push(SeedProblem::new(SeedPlace::File, "", MSG_NOT_BIBTEX_OR_RIS));
            return;
        }
    };
    for (index, entry) in entries.into_iter().enumerate() {
        let place = SeedPlace::FileEntry(index + 1);
        match entry.id {
            Ok(id) => seeds.push(Seed { id, given_as: entry.name, place }),
            Err(message) => problems.push(SeedProblem::new(place, &entry.name, message)),
        }
    }
}

/// The file's lines without a byte-order mark.
fn file_lines(file: &str) -> impl Iterator<Item = &str> {
    file.strip_prefix('\u{feff}').unwrap_or(file).lines()
}

fn detect_format(file: &str) -> Option<FileFormat> {
    let first = file_lines(file).map(str::trim).find(|line| !line.is_empty())?;
    if ris_tag(first).is_some_and(|(tag, _)| tag == "TY") {
        return Some(FileFormat::Ris);
    }
    if medline_tag(first).is_some_and(|(tag, _)| tag == "PMID") {
        return Some(FileFormat::Medline);
    }
    if has_bibtex_entry(file) {
        return Some(FileFormat::Bibtex);
    }
    if file_lines(file).any(|line| ris_tag(line.trim_start()).is_some_and(|(tag, _)| tag == "TY")) {
        return Some(FileFormat::Ris);
    }
    if file_lines(file).any(|line| medline_tag(line).is_some_and(|(tag, _)| tag == "PMID")) {
        return Some(FileFormat::Medline);
    }
    None
}

// BibTeX -------------------------------------------------------------------------------------

/// Whether `file` has an `@type{` (or `@type(`) anywhere.
fn has_bibtex_entry(file: &str) -> bool {
    file.match_indices('@').any(|(at, _)| {
        let mut scanner = Scanner { text: file, at: at + 1 };
        let kind = scanner.identifier();
        scanner.skip_space();
        !kind.is_empty() && kind.bytes().next().is_some_and(|byte| byte.is_ascii_alphabetic()) && matches!(scanner.peek(), Some(b'{' | b'('))
    })
}

/// A cursor over a BibTeX file. Every delimiter is ASCII, so byte positions found at them are
/// always character boundaries. A line that starts with `@` always starts an entry: a value or a
/// group that reaches one is not closed, which keeps reading a file of broken entries linear.
struct Scanner<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Scanner<'t> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Letters, digits and `-_:.+/` (an entry type, a field name, a macro).
    fn identifier(&mut self) -> &'t str {
        let start = self.at;
        while self.peek().is_some_and(|byte| byte.is_ascii_alphanumeric() || b"-_:.+/".contains(&byte)) {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// After an opening brace: the text up to its closing brace (nested braces kept), and the
    /// scanner after it. `None` when the file ends first.
    fn braced(&mut self) -> Option<&'t str> {
        let start = self.at;
        let mut depth = 1usize;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(&self.text[start..self.at - 1]);
                    }
                }
                b'\n' if self.peek() == Some(b'@') => return None,
                _ => {}
            }
        }
        None
    }

    /// After an opening quote: the text up to the closing quote outside braces.
    fn quoted(&mut self) -> Option<&'t str> {
        let start = self.at;
        let mut depth = 0usize;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                b'"' if depth == 0 => return Some(&self.text[start..self.at - 1]),
                b'\n' if self.peek() == Some(b'@') => return None,
                _ => {}
            }
        }
        None
    }

    /// Skips a `@comment{…}`/`@preamble(…)` body after its opening delimiter.
    fn skip_group(&mut self, close: u8) -> Option<()> {
        if close == b'}' {
            return self.braced().map(|_| ());
        }
        let mut depth = 0usize;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                b')' if depth == 0 => return Some(()),
                b'\n' if self.peek() == Some(b'@') => return None,
                _ => {}
            }
        }
        None
    }

    /// A field's value: parts in braces, quotes, numbers or macros, joined by `#`.
    fn value(&mut self, macros: &HashMap<String, String>) -> Option<String> {
        let mut value = String::new();
        loop {
            self.skip_space();
            match self.peek()? {
                b'{' => {
                    self.at += 1;
                    value.push_str(self.braced()?);
                }
                b'"' => {
                    self.at += 1;
                    value.push_str(self.quoted()?);
                }
                byte if byte.is_ascii_alphanumeric() => {
                    let word = self.identifier();
                    let is_number = word.bytes().all(|byte| byte.is_ascii_digit());
                    match macros.get(&word.to_ascii_lowercase()) {
                        Some(expansion) => value.push_str(expansion),
                        None if is_number => value.push_str(word),
                        // An undefined macro (a month such as `mar`): nothing an id is read from.
                        None => {}
                    }
                }
                _ => return None,
            }
            self.skip_space();
            if self.peek() == Some(b'#') {
                self.at += 1;
            } else {
                return Some(value);
            }
        }
    }

    /// `name = value` pairs after an entry's key, up to its closing delimiter.
    fn fields(&mut self, close: u8, macros: &HashMap<String, String>) -> Option<Vec<(String, String)>> {
        let mut fields = Vec::new();
        loop {
            self.skip_space();
            match self.peek()? {
                byte if byte == close => {
                    self.at += 1;
                    return Some(fields);
                }
                b',' => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let name = self.identifier().to_ascii_lowercase();
            self.skip_space();
            if name.is_empty() || self.peek()? != b'=' {
                return None;
            }
            self.at += 1;
            let value = self.value(macros)?;
            fields.push((name, value));
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                byte if byte == close => {}
                _ => return None,
            }
        }
    }

    /// An entry's key: everything up to the first comma, whitespace or closing delimiter.
    fn key(&mut self, close: u8) -> &'t str {
        let start = self.at;
        while self.peek().is_some_and(|byte| byte != b',' && byte != close && !byte.is_ascii_whitespace() && byte != b'{' && byte != b'}') {
            self.at += 1;
        }
        &self.text[start..self.at]
    }
}

/// The entries of a BibTeX file, in order, each its key and its fields (names lower-case,
/// values as written inside their delimiters, `#` parts joined, `@string` macros expanded), or
/// only its key when it cannot be read (a brace or quote not closed before the end or before a
/// line that starts with `@`): reading goes on at the next line that starts with `@`. `@comment`, `@preamble` and `@string` are not entries.
pub(crate) fn bibtex_records(file: &str) -> Vec<Result<BibRecord, String>> {
    let mut records = Vec::new();
    let mut macros: HashMap<String, String> = HashMap::new();
    let mut at = 0;
    while let Some(found) = file[at..].find('@') {
        let start = at + found;
        let mut scanner = Scanner { text: file, at: start + 1 };
        scanner.skip_space();
        let kind = scanner.identifier().to_ascii_lowercase();
        scanner.skip_space();
        let close = match scanner.peek() {
            Some(b'{') => b'}',
            Some(b'(') => b')',
            _ => {
                at = start + 1;
                continue;
            }
        };
        scanner.at += 1;
        if kind.is_empty() {
            at = start + 1;
            continue;
        }
        match kind.as_str() {
            "comment" | "preamble" => {
                at = match scanner.skip_group(close) {
                    Some(()) => scanner.at,
                    None => next_line_at(file, start),
                };
            }
            "string" => match scanner.fields(close, &macros) {
                Some(definitions) => {
                    macros.extend(definitions);
                    at = scanner.at;
                }
                None => at = next_line_at(file, start),
            },
            _ => {
                scanner.skip_space();
                let key = scanner.key(close).to_owned();
                match scanner.fields(close, &macros) {
                    Some(fields) => {
                        at = scanner.at;
                        records.push(Ok(BibRecord { kind, key, fields }));
                    }
                    None => {
                        at = next_line_at(file, start);
                        records.push(Err(key));
                    }
                }
            }
        }
    }
    records
}

/// One BibTeX entry as [`bibtex_records`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BibRecord {
    /// The entry type, lower-case (`article`, `misc`).
    pub kind: String,
    pub key: String,
    pub fields: Vec<(String, String)>,
}

/// The entries of a BibTeX file with their ids.
fn bibtex_entries(file: &str) -> Vec<FileEntry> {
    bibtex_records(file)
        .into_iter()
        .map(|record| match record {
            Ok(BibRecord { key, fields, .. }) => {
                let name = if key.is_empty() { bib_field(&fields, "title").map(bib_text).unwrap_or_default() } else { key };
                FileEntry { name, id: bib_seed(&fields).ok_or(MSG_ENTRY_WITHOUT_ID) }
            }
            Err(key) => FileEntry { name: key, id: Err(MSG_ENTRY_NOT_CLOSED) },
        })
        .collect()
}

/// Where the next line starting with `@` (after spaces) is, after `start`; the end otherwise.
fn next_line_at(file: &str, start: usize) -> usize {
    let mut line_start = match file[start..].find('\n') {
        Some(newline) => start + newline + 1,
        None => return file.len(),
    };
    loop {
        let line = &file[line_start..];
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.starts_with('@') {
            return line_start + (line.len() - trimmed.len());
        }
        match line.find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return file.len(),
        }
    }
}

/// The first value of a field (names are lower-case).
fn bib_field<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields.iter().find(|(field, _)| field == name).map(|(_, value)| value.as_str())
}

/// A value as text: braces gone, LaTeX escapes of `_ % & # $` undone, `\url` dropped,
/// whitespace collapsed.
fn bib_text(value: &str) -> String {
    let mut text = String::with_capacity(value.len());
    let mut characters = value.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '{' | '}' => {}
            '\\' if characters.peek().is_some_and(|next| "_%&#$".contains(*next)) => {}
            _ => text.push(character),
        }
    }
    let text = text.trim();
    let text = text.strip_prefix("\\url").unwrap_or(text);
    collapse_whitespace(text)
}

/// An entry's id, in the order the module docs give.
fn bib_seed(fields: &[(String, String)]) -> Option<SeedId> {
    let field = |name: &str| bib_field(fields, name).map(bib_text).filter(|value| !value.is_empty());
    if let Some(id) = field("doi").and_then(|doi| doi_seed(&doi)) {
        return Some(id);
    }
    if let Some(eprint) = field("eprint") {
        let kind = field("archiveprefix").or_else(|| field("eprinttype")).map(|kind| kind.to_ascii_lowercase());
        let id = match kind.as_deref() {
            Some("arxiv") => arxiv_seed_id(&eprint).map(SeedId::Arxiv),
            Some("pubmed") => pmid_seed(&eprint),
            _ => None,
        };
        if id.is_some() {
            return id;
        }
    }
    if let Some(id) = field("pmid").and_then(|pmid| pmid_seed(&pmid)) {
        return Some(id);
    }
    for name in ["url", "howpublished"] {
        if let Some(id) = field(name).filter(|value| is_link(value)).and_then(|value| link_seed(&value)) {
            return Some(id);
        }
    }
    ["journal", "note", "howpublished"].iter().find_map(|name| field(name).and_then(|value| arxiv_mention(&value)))
}

// RIS ----------------------------------------------------------------------------------------

/// A RIS line's tag and value: two characters (a capital letter, then a capital or a digit), one
/// or two spaces, `-`, and the value after a space.
fn ris_tag(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let tag_ok = bytes.len() >= 4 && bytes[0].is_ascii_uppercase() && (bytes[1].is_ascii_uppercase() || bytes[1].is_ascii_digit());
    if !tag_ok {
        return None;
    }
    let rest = line[2..].strip_prefix("  -").or_else(|| line[2..].strip_prefix(" -"))?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((&line[..2], rest.trim()))
}

/// The records of a RIS file (`TY` to `ER`; a record the file ends in is read too). A line
/// without a tag continues the value before it.
pub(crate) fn ris_records(file: &str) -> Vec<Vec<(String, String)>> {
    let mut records = Vec::new();
    let mut current: Option<Vec<(String, String)>> = None;
    for line in file_lines(file) {
        match ris_tag(line.trim_start()) {
            Some(("TY", value)) => {
                records.extend(current.take());
                current = Some(vec![("TY".to_owned(), value.to_owned())]);
            }
            Some(("ER", _)) => records.extend(current.take()),
            Some((tag, value)) => {
                if let Some(record) = current.as_mut() {
                    record.push((tag.to_owned(), value.to_owned()));
                }
            }
            None if !line.trim().is_empty() => {
                if let Some((_, value)) = current.as_mut().and_then(|record| record.last_mut()) {
                    value.push(' ');
                    value.push_str(line.trim());
                }
            }
            None => {}
        }
    }
    records.extend(current);
    records
}

fn ris_entries(file: &str) -> Vec<FileEntry> {
    ris_records(file)
        .into_iter()
        .map(|record| {
            let values = |tags: &[&str]| -> Vec<String> {
                record
                    .iter()
                    .filter(|(tag, _)| tags.contains(&tag.as_str()))
                    .map(|(_, value)| value.clone())
                    .filter(|value| !value.is_empty())
                    .collect()
            };
            let title = values(&["TI", "T1", "CT", "BT"]).into_iter().next().or_else(|| values(&["ID"]).into_iter().next()).unwrap_or_default();
            let id = ris_seed(&values).ok_or(MSG_ENTRY_WITHOUT_ID);
            FileEntry { name: collapse_whitespace(&title), id }
        })
        .collect()
}

/// A RIS record's id, in the order the module docs give.
fn ris_seed(values: &dyn Fn(&[&str]) -> Vec<String>) -> Option<SeedId> {
    if let Some(id) = values(&["DO"]).iter().find_map(|doi| doi_seed(doi)) {
        return Some(id);
    }
    let databases = values(&["DB", "DP"]).join(" ").to_ascii_lowercase();
    let from_pubmed = databases.contains("pubmed") || databases.contains("medline");
    let accession = values(&["AN"]);
    if from_pubmed {
        if let Some(id) = accession.iter().find_map(|value| pmid_seed(value)) {
            return Some(id);
        }
    }
    let labelled = values(&["AN", "C2", "ID", "M2", "N1"]).iter().find_map(|value| strip_label(value.trim(), "pmid").and_then(pmid_seed));
    if labelled.is_some() {
        return labelled;
    }
    if databases.contains("arxiv") {
        if let Some(id) = accession.iter().find_map(|value| arxiv_seed_id(value).map(SeedId::Arxiv)) {
            return Some(id);
        }
    }
    let links = values(&["UR", "L1", "L2"]);
    let link = links.iter().flat_map(|value| value.split([' ', ';'])).filter(|value| is_link(value)).find_map(link_seed);
    if link.is_some() {
        return link;
    }
    values(&["N1", "T2", "JO", "JF"]).iter().find_map(|value| arxiv_mention(value))
}

// MEDLINE ------------------------------------------------------------------------------------

/// A MEDLINE line's tag and value: up to four capitals or digits padded with spaces to four,
/// then `- ` (`PMID- 123`, `TI  - …`, `AID - 10.1/x [doi]`).
fn medline_tag(line: &str) -> Option<(&str, &str)> {
    let head = line.get(..4)?;
    let tag = head.trim_end();
    let tag_ok = tag.len() >= 2
        && tag.bytes().all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit())
        && head[tag.len()..].bytes().all(|byte| byte == b' ');
    let rest = line.get(4..)?.strip_prefix('-')?;
    (tag_ok && (rest.is_empty() || rest.starts_with(' '))).then(|| (tag, rest.trim()))
}

fn medline_entries(file: &str) -> Vec<FileEntry> {
    let mut records: Vec<Vec<(String, String)>> = Vec::new();
    for line in file_lines(file) {
        match medline_tag(line) {
            Some(("PMID", value)) => records.push(vec![("PMID".to_owned(), value.to_owned())]),
            Some((tag, value)) => {
                if let Some(record) = records.last_mut() {
                    record.push((tag.to_owned(), value.to_owned()));
                }
            }
            None if line.starts_with(' ') && !line.trim().is_empty() => {
                if let Some((_, value)) = records.last_mut().and_then(|record| record.last_mut()) {
                    value.push(' ');
                    value.push_str(line.trim());
                }
            }
            None => {}
        }
    }
    records
        .into_iter()
        .map(|record| {
            let value = |tag: &str| record.iter().find(|(name, _)| name == tag).map(|(_, value)| value.as_str());
            let marked_doi = record
                .iter()
                .filter(|(tag, _)| tag == "LID" || tag == "AID")
                .find_map(|(_, value)| value.strip_suffix("[doi]").and_then(|doi| doi_seed(doi.trim())));
            let id = value("PMID").and_then(pmid_seed).or(marked_doi).ok_or(MSG_ENTRY_WITHOUT_ID);
            let name = value("PMID").filter(|pmid| !pmid.is_empty()).or_else(|| value("TI")).unwrap_or_default();
            FileEntry { name: collapse_whitespace(name), id }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pasted(ids: &str) -> Result<Vec<Seed>, Vec<SeedProblem>> {
        parse_seeds(&SeedInput { ids, file: None })
    }

    fn uploaded(file: &str) -> Result<Vec<Seed>, Vec<SeedProblem>> {
        parse_seeds(&SeedInput { ids: "", file: Some(file) })
    }

    fn ids(seeds: &[Seed]) -> Vec<SeedId> {
        seeds.iter().map(|seed| seed.id.clone()).collect()
    }

    fn doi(text: &str) -> SeedId {
        SeedId::Doi(text.to_owned())
    }

    fn pmid(text: &str) -> SeedId {
        SeedId::Pmid(text.to_owned())
    }

    fn arxiv(text: &str) -> SeedId {
        SeedId::Arxiv(text.to_owned())
    }

    fn messages(problems: &[SeedProblem]) -> Vec<String> {
        problems.iter().map(SeedProblem::describe).collect()
    }

    #[test]
    fn every_way_of_writing_an_identifier_is_read() {
        let cases: [(&str, SeedId); 28] = [
            ("10.1038/nature12373", doi("10.1038/nature12373")),
            ("10.1038/NATURE12373", doi("10.1038/nature12373")),
            ("doi:10.1038/nature12373", doi("10.1038/nature12373")),
            ("DOI: 10.1038/nature12373", doi("10.1038/nature12373")),
            ("https://doi.org/10.1038/nature12373", doi("10.1038/nature12373")),
            ("http://dx.doi.org/10.1038/nature12373", doi("10.1038/nature12373")),
            ("doi.org/10.1016/S0140-6736(20)30183-5", doi("10.1016/s0140-6736(20)30183-5")),
            ("https://doi.org/10.1002/%28SICI%291097-4636", doi("10.1002/(sici)1097-4636")),
            ("in a citation: 10.1038/nature12373.", doi("10.1038/nature12373")),
            ("12345678", pmid("12345678")),
            ("1", pmid("1")),
            ("PMID: 33301246", pmid("33301246")),
            ("pmid 33301246", pmid("33301246")),
            ("https://pubmed.ncbi.nlm.nih.gov/33301246/", pmid("33301246")),
            ("https://www.ncbi.nlm.nih.gov/pubmed/33301246", pmid("33301246")),
            ("2101.00001", arxiv("2101.00001")),
            ("2101.00001v2", arxiv("2101.00001")),
            ("arXiv:1706.03762v7", arxiv("1706.03762")),
            ("0704.0001", arxiv("0704.0001")),
            ("hep-th/9901001", arxiv("hep-th/9901001")),
            ("math.GT/0309136v2", arxiv("math/0309136")),
            ("https://arxiv.org/abs/2101.00001v3", arxiv("2101.00001")),
            ("https://arxiv.org/pdf/2101.00001v1.pdf", arxiv("2101.00001")),
            ("http://export.arxiv.org/abs/hep-th/9901001", arxiv("hep-th/9901001")),
            ("https://doi.org/10.48550/arXiv.2101.00001", arxiv("2101.00001")),
            ("https://www.biorxiv.org/content/10.1101/2020.09.09.20191205v1", doi("10.1101/2020.09.09.20191205")),
            ("https://www.medrxiv.org/content/10.1101/2020.04.14.20062463v2.full.pdf", doi("10.1101/2020.04.14.20062463")),
            ("10.1101/2020.09.09.20191205v1", doi("10.1101/2020.09.09.20191205")),
        ];
        for (given, expected) in cases {
            let line = given.strip_prefix("in a citation: ").unwrap_or(given);
            let seeds = pasted(line).unwrap_or_else(|problems| panic!("{given:?}: {:?}", messages(&problems)));
            assert_eq!(ids(&seeds), vec![expected], "{given:?}");
            assert_eq!(seeds[0].given_as, line);
        }
    }

    #[test]
    fn what_only_looks_like_an_identifier_is_a_problem_on_its_line() {
        for wrong in [
            "nature12373",
            "10.1038",
            "10.abc/nature",
            "1234567890",
            "0",
            "2113.00001",
            "2101.001",
            "arXiv:banana",
            "hep_th/9901001",
            "https://example.org/10.1038/nature12373",
            "https://www.nature.com/articles/nature12373",
            "javascript:alert(1)",
            "PMCID: PMC7095418",
            "10.1038/nature 12373",
            "https://arxiv.org/list/hep-th/new",
        ] {
            let problems = pasted(&format!("10.1038/nature12373\n\n{wrong}")).expect_err(wrong);
            assert_eq!(problems.len(), 1, "{wrong:?}");
            assert_eq!(problems[0].place, SeedPlace::Line(3), "{wrong:?}");
            assert_eq!(problems[0].message, MSG_NOT_A_SEED_ID, "{wrong:?}");
        }
        let problems = pasted("foo").expect_err("foo");
        assert_eq!(messages(&problems), ["Line 1 (\"foo\"): Not a DOI, PMID or arXiv id"]);
    }

    #[test]
    fn it_is_all_or_nothing_and_every_problem_is_told() {
        let problems = pasted("10.1038/nature12373\nfoo\n  \n33301246\nbar baz\n2101.00001").expect_err("two bad lines");
        assert_eq!(messages(&problems), ["Line 2 (\"foo\"): Not a DOI, PMID or arXiv id", "Line 5 (\"bar baz\"): Not a DOI, PMID or arXiv id"]);
    }

    #[test]
    fn repeats_are_dropped_silently_and_the_first_is_kept() {
        let seeds =
            pasted("10.1038/nature12373\nhttps://doi.org/10.1038/NATURE12373\n\narXiv:2101.00001v1\n2101.00001v2\nPMID: 123\n123").expect("all good");
        assert_eq!(ids(&seeds), [doi("10.1038/nature12373"), arxiv("2101.00001"), pmid("123")]);
        assert_eq!(seeds.iter().map(|seed| seed.place).collect::<Vec<_>>(), [SeedPlace::Line(1), SeedPlace::Line(4), SeedPlace::Line(6)]);
        assert_eq!(seeds[1].given_as, "arXiv:2101.00001v1");
    }

    #[test]
    fn lines_are_trimmed_of_spaces_invisible_characters_and_windows_line_ends() {
        let seeds = pasted("\u{feff}  10.1038/nature12373 \r\n\t33301246\u{200b}\r\n").expect("good");
        assert_eq!(ids(&seeds), [doi("10.1038/nature12373"), pmid("33301246")]);
        assert_eq!(seeds[0].given_as, "10.1038/nature12373");
    }

    #[test]
    fn the_limits_hold() {
        assert_eq!(pasted(""), Err(vec![SeedProblem::new(SeedPlace::Input, "", MSG_NO_SEEDS)]));
        assert_eq!(pasted(" \n\n  "), Err(vec![SeedProblem::new(SeedPlace::Input, "", MSG_NO_SEEDS)]));
        assert_eq!(
            parse_seeds(&SeedInput { ids: "\n", file: Some("  \n") }).map_err(|problems| messages(&problems)),
            Err(vec![MSG_NO_SEEDS.to_owned()])
        );

        let fifty: Vec<String> = (1..=50).map(|pmid| pmid.to_string()).collect();
        assert_eq!(pasted(&fifty.join("\n")).map(|seeds| seeds.len()), Ok(50));
        let fifty_with_repeats = format!("{}\n1\n2\n3", fifty.join("\n"));
        assert_eq!(pasted(&fifty_with_repeats).map(|seeds| seeds.len()), Ok(50), "repeats do not count");
        let fifty_one: Vec<String> = (1..=51).map(|pmid| pmid.to_string()).collect();
        assert_eq!(pasted(&fifty_one.join("\n")).map_err(|problems| messages(&problems)), Err(vec![MSG_TOO_MANY_SEEDS.to_owned()]));

        let long_line = format!("10.1000/{}", "x".repeat(MAX_SEED_LINE_CHARS));
        let problems = pasted(&long_line).expect_err("too long");
        assert_eq!(problems[0].message, MSG_SEED_LINE_TOO_LONG);
        assert_eq!(problems[0].given_as.chars().count(), QUOTED_CHARS + 1, "quoted back shortened: {:?}", problems[0].given_as);
        let just_fits = format!("10.1000/{}", "é".repeat(MAX_SEED_LINE_CHARS - 8));
        assert!(pasted(&just_fits).is_ok(), "characters, not bytes");

        let big = "1\n".repeat(MAX_SEED_TEXT_BYTES / 4);
        let file = format!("%{}", " ".repeat(MAX_SEED_TEXT_BYTES / 2));
        let problems = parse_seeds(&SeedInput { ids: &big, file: Some(&file) }).expect_err("too large");
        assert_eq!(messages(&problems), [MSG_SEEDS_TOO_LARGE]);
    }

    /// A Zotero "Export Library…" BibTeX: a journal article with a DOI, an arXiv preprint with
    /// arXiv's DOI, a bioRxiv preprint with only its link, a PubMed record with `pmid`, an
    /// INSPIRE-style eprint, a Google Scholar entry (no id at all) and a Google Scholar arXiv
    /// entry. Between them: a JabRef `@comment`, a `@string` and a `@preamble`.
    const BIBTEX: &str = r#"
This file was exported by Zotero; text out here is a comment to BibTeX.

@preamble{ "\newcommand{\noop}[1]{}" }
@string{ nat = "Nature" }

@article{chen_ultrasensitive_2013,
	title = {Ultrasensitive fluorescent proteins for imaging neuronal activity},
	volume = {499},
	issn = {1476-4687},
	url = {https://www.nature.com/articles/nature12354},
	doi = {10.1038/nature12354},
	number = {7458},
	journal = nat,
	author = {Chen, Tsai-Wen and Wardill, Trevor J. and Sun, Yi},
	month = jul,
	year = {2013},
	pages = {295--300},
}

@misc{vaswani_attention_2023,
	title = {Attention {Is} {All} {You} {Need}},
	url = {http://arxiv.org/abs/1706.03762},
	doi = {10.48550/arXiv.1706.03762},
	publisher = {arXiv},
	author = {Vaswani, Ashish and Shazeer, Noam},
	month = aug,
	year = {2023},
	note = {arXiv:1706.03762 [cs]},
}

@ARTICLE{Wolfel2020,
  TITLE = "Virological assessment of hospitalized patients with {COVID}-2019",
  AUTHOR = "W{\"o}lfel, Roman and Corman, Victor M.",
  JOURNAL = "Nature",
  YEAR = 2020,
  PMID = {32235945},
}

@misc{bioRxiv_2020,
  title = {A preprint with 100\% of its text in braces {{nested} twice}},
  howpublished = {\url{https://www.biorxiv.org/content/10.1101/2020.03.22.002386v3.full}},
  year = {2020}
}

@article(Maldacena:1997re,
    author = "Maldacena, Juan Martin",
    title = "{The Large N limit of superconformal field theories and supergravity}",
    eprint = "hep-th/9711200",
    archivePrefix = "arXiv",
    doi = "",
    year = "1998"
)

@comment{jabref-meta: databaseType:bibtex; @article{not_an_entry, doi = {10.9999/nope}}}

@article{smith2020deep,
  title={Deep learning for protein structure},
  author={Smith, John and Doe, Jane},
  journal={Bioinformatics},
  volume={36},
  number={2},
  pages={1--10},
  year={2020},
  publisher={Oxford University Press}
}

@article{devlin2018bert,
  title={Bert: Pre-training of deep bidirectional transformers for language understanding},
  author={Devlin, Jacob and Chang, Ming-Wei},
  journal={arXiv preprint arXiv:1810.04805},
  year={2018}
}
"#;

    #[test]
    fn a_bibtex_export_is_read_entry_by_entry() {
        let problems = uploaded(BIBTEX).expect_err("the Google Scholar entry has no id");
        assert_eq!(messages(&problems), ["Entry 6 of the file (\"smith2020deep\"): It has no DOI, PMID or arXiv id"]);

        let without_scholar = BIBTEX.replace("@article{smith2020deep", "@comment{smith2020deep");
        let seeds = uploaded(&without_scholar).expect("every entry has an id");
        assert_eq!(
            ids(&seeds),
            [
                doi("10.1038/nature12354"),
                arxiv("1706.03762"),
                pmid("32235945"),
                doi("10.1101/2020.03.22.002386"),
                arxiv("hep-th/9711200"),
                arxiv("1810.04805"),
            ]
        );
        let names: Vec<&str> = seeds.iter().map(|seed| seed.given_as.as_str()).collect();
        assert_eq!(names, ["chen_ultrasensitive_2013", "vaswani_attention_2023", "Wolfel2020", "bioRxiv_2020", "Maldacena:1997re", "devlin2018bert"]);
        assert_eq!(seeds[5].place, SeedPlace::FileEntry(6), "comments are not entries");
    }

    #[test]
    fn bibtex_fields_are_read_in_order_of_strength() {
        let entry = |fields: &str| uploaded(&format!("@article{{key, {fields}}}")).map(|seeds| ids(&seeds));
        assert_eq!(entry("pmid = {123}, doi = {10.1000/ABC}"), Ok(vec![doi("10.1000/abc")]), "the DOI first");
        assert_eq!(entry("doi = {not a doi}, pmid = {123}"), Ok(vec![pmid("123")]), "an unreadable DOI gives way");
        assert_eq!(entry("Eprint = {2101.00001v2}, EprintType = {arxiv}, pmid = {5}"), Ok(vec![arxiv("2101.00001")]));
        assert_eq!(entry("eprint = {2101.00001}, pmid = {5}"), Ok(vec![pmid("5")]), "an eprint of unknown kind is not read");
        assert_eq!(entry("eprint = {31452104}, eprinttype = {pubmed}"), Ok(vec![pmid("31452104")]), "biblatex's PubMed eprint");
        assert_eq!(entry("url = {https://pubmed.ncbi.nlm.nih.gov/31452104/}"), Ok(vec![pmid("31452104")]));
        assert_eq!(entry("doi = {10.1000/a\\_b}"), Ok(vec![doi("10.1000/a_b")]), "LaTeX escapes are undone");
        assert_eq!(entry("doi = \"10.1000/\" # \"joined\""), Ok(vec![doi("10.1000/joined")]), "concatenation");
        assert_eq!(entry("doi = {https://doi.org/10.1000/xyz}"), Ok(vec![doi("10.1000/xyz")]));
        let problems = uploaded("@misc{,\n title = {A title but no key nor id}}").expect_err("no id");
        assert_eq!(messages(&problems), ["Entry 1 of the file (\"A title but no key nor id\"): It has no DOI, PMID or arXiv id"]);
    }

    #[test]
    fn an_unclosed_bibtex_entry_is_a_problem_and_the_next_entries_are_still_read() {
        let file = "@article{broken,\n  title = {Never closed,\n  year = 2020\n}\n\n@article{good, doi = {10.1000/good}}\n";
        let problems = uploaded(file).expect_err("broken");
        assert_eq!(messages(&problems), [format!("Entry 1 of the file (\"broken\"): {MSG_ENTRY_NOT_CLOSED}")]);
        let with_ids = parse_seeds(&SeedInput { ids: "", file: Some("@article{a, doi = {10.1/a}}\n@article{b, doi = \"10.1/b}") });
        assert_eq!(with_ids.map_err(|problems| problems.iter().map(|problem| problem.place).collect::<Vec<_>>()), Err(vec![SeedPlace::FileEntry(2)]));
    }

    #[test]
    fn a_file_of_unclosed_entries_is_read_quickly_and_each_is_told() {
        let unclosed = "@article{k, title = {never closed\n".repeat(15_000);
        let problems = uploaded(&format!("{unclosed}@article{{good, doi = {{10.1000/good}}}}\n")).expect_err("unclosed entries");
        assert_eq!(problems.len(), 15_000);
        assert!(problems.iter().all(|problem| problem.message == MSG_ENTRY_NOT_CLOSED));
        let quoted = "@article{k, title = \"never closed\n@article{good, doi = {10.1000/good}}\n";
        assert_eq!(messages(&uploaded(quoted).expect_err("unclosed quote")), [format!("Entry 1 of the file (\"k\"): {MSG_ENTRY_NOT_CLOSED}")]);
    }

    /// Zotero's RIS export (CRLF line ends, `DA` with a trailing slash, an arXiv preprint with
    /// arXiv's DOI), an Ovid MEDLINE record (PMID as accession number, `DB - MEDLINE`), a Web of
    /// Science record whose `AN` is not a PMID and whose id is in its link, a record with a
    /// labelled PMID in a note, and one with nothing usable.
    const RIS: &str = "TY  - JOUR\r\nTI  - Ultrasensitive fluorescent proteins for imaging neuronal activity\r\nAU  - Chen, Tsai-Wen\r\nAU  - Wardill, Trevor J.\r\nT2  - Nature\r\nDA  - 2013/07/18/\r\nPY  - 2013\r\nDO  - 10.1038/nature12354\r\nDP  - www.nature.com\r\nVL  - 499\r\nIS  - 7458\r\nSP  - 295\r\nEP  - 300\r\nUR  - https://www.nature.com/articles/nature12354\r\nER  - \r\n\r\n\
TY  - PREPRINT\r\nTI  - Attention Is All You Need\r\nAU  - Vaswani, Ashish\r\nDA  - 2023/08/01/\r\nPY  - 2023\r\nDO  - 10.48550/arXiv.1706.03762\r\nDP  - arXiv.org\r\nPB  - arXiv\r\nUR  - http://arxiv.org/abs/1706.03762\r\nN1  - arXiv:1706.03762 [cs]\r\nER  - \r\n\r\n\
TY  - JOUR\r\nDB  - Ovid MEDLINE(R)\r\nAN  - 32235945\r\nT1  - Virological assessment of hospitalized patients with COVID-2019.\r\nJF  - Nature\r\nA1  - Wolfel, Roman\r\nY1  - 2020//\r\nER  - \r\n\r\n\
TY  - JOUR\r\nAN  - WOS:000535325100024\r\nTI  - Some paper\r\n  whose title goes on\r\nUR  - https://pubmed.ncbi.nlm.nih.gov/33301246/\r\nER  - \r\n\r\n\
TY  - JOUR\r\nTI  - A note says it\r\nN1  - PMID: 31452104\r\nER  - \r\n\r\n\
TY  - JOUR\r\nTI  - Nothing to go by\r\nAN  - 12345678\r\nUR  - https://example.org/paper\r\nER  - \r\n";

    #[test]
    fn a_ris_export_is_read_record_by_record() {
        let problems = uploaded(RIS).expect_err("the last record has no id");
        assert_eq!(
            messages(&problems),
            ["Entry 6 of the file (\"Nothing to go by\"): It has no DOI, PMID or arXiv id"],
            "an unlabelled AN is no PMID"
        );
        let good: String = RIS.split("TY  - JOUR\r\nTI  - Nothing").next().unwrap_or_default().to_owned();
        let seeds = uploaded(&good).expect("good records");
        assert_eq!(ids(&seeds), [doi("10.1038/nature12354"), arxiv("1706.03762"), pmid("32235945"), pmid("33301246"), pmid("31452104")]);
        let names: Vec<&str> = seeds.iter().map(|seed| seed.given_as.as_str()).collect();
        assert_eq!(names[3], "Some paper whose title goes on", "a line without a tag continues the value");
    }

    /// What PubMed's "Send to: Citation manager" writes: MEDLINE, not RIS.
    const MEDLINE: &str = "PMID- 23868258\nOWN - NLM\nSTAT- MEDLINE\nDCOM- 20130820\nIS  - 1476-4687 (Electronic)\nVI  - 499\nIP  - 7458\nDP  - 2013 Jul 18\nTI  - Ultrasensitive fluorescent proteins for imaging neuronal activity.\nPG  - 295-300\nLID - 10.1038/nature12354 [doi]\nAB  - Fluorescent calcium sensors are widely used to image neural activity. Using\n      structure-based mutagenesis and neuron-based screening, we developed a family.\nFAU - Chen, Tsai-Wen\nAU  - Chen TW\nAID - nature12354 [pii]\nAID - 10.1038/nature12354 [doi]\nSO  - Nature. 2013 Jul 18;499(7458):295-300. doi: 10.1038/nature12354.\n\nPMID- 32235945\nOWN - NLM\nTI  - Virological assessment of hospitalized patients with COVID-2019.\nAID - 10.1038/s41586-020-2196-x [doi]\n";

    #[test]
    fn a_pubmed_citation_manager_file_is_read_by_its_pmids() {
        let seeds = uploaded(MEDLINE).expect("two records");
        assert_eq!(ids(&seeds), [pmid("23868258"), pmid("32235945")]);
        assert_eq!(seeds[1].given_as, "32235945");
        let without_pmid = "PMID- \nTI  - A record whose PMID is missing\nLID - 10.1000/xyz [doi]\n";
        assert_eq!(uploaded(without_pmid).map(|seeds| ids(&seeds)), Ok(vec![doi("10.1000/xyz")]));
    }

    #[test]
    fn a_file_of_another_kind_is_one_problem() {
        for other in ["Title,Authors,DOI\nA,B,10.1000/x\n", "<?xml version=\"1.0\"?><xml><records/></xml>", "write to me@example.org"] {
            let problems = uploaded(other).expect_err(other);
            assert_eq!(problems, [SeedProblem::new(SeedPlace::File, "", MSG_NOT_BIBTEX_OR_RIS)], "{other:?}");
            assert_eq!(problems[0].describe(), MSG_NOT_BIBTEX_OR_RIS);
        }
    }

    #[test]
    fn pasted_lines_and_the_file_make_one_list_without_repeats() {
        let input = SeedInput { ids: "PMID: 32235945\n10.1038/NATURE12354", file: Some(BIBTEX) };
        let problems = parse_seeds(&input).expect_err("Google Scholar entry");
        assert_eq!(problems.len(), 1);
        let input = SeedInput { ids: "PMID: 32235945\n10.1038/NATURE12354", file: Some(MEDLINE) };
        let seeds = parse_seeds(&input).expect("good");
        assert_eq!(ids(&seeds), [pmid("32235945"), doi("10.1038/nature12354"), pmid("23868258")]);
        assert_eq!(seeds[2].place, SeedPlace::FileEntry(1));
    }

    #[test]
    fn problems_read_as_sentences() {
        let line = SeedProblem::new(SeedPlace::Line(3), "foo", MSG_NOT_A_SEED_ID);
        assert_eq!(line.describe(), "Line 3 (\"foo\"): Not a DOI, PMID or arXiv id");
        let entry = SeedProblem::new(SeedPlace::FileEntry(2), "smith2020", MSG_ENTRY_WITHOUT_ID);
        assert_eq!(entry.describe(), "Entry 2 of the file (\"smith2020\"): It has no DOI, PMID or arXiv id");
        let unnamed = SeedProblem::new(SeedPlace::FileEntry(4), "", MSG_ENTRY_WITHOUT_ID);
        assert_eq!(unnamed.describe(), "Entry 4 of the file: It has no DOI, PMID or arXiv id");
        assert_eq!(SeedProblem::new(SeedPlace::Line(1), "a\nb", MSG_NOT_A_SEED_ID).given_as, "a b");
        assert_eq!(line.to_string(), line.describe());
    }

    #[test]
    fn seeds_key_as_the_index_does() {
        let seeds = pasted("https://doi.org/10.1038/NATURE12373\narXiv:2101.00001v2\nPMID: 7").expect("good");
        let keys: Vec<String> = seeds.iter().map(|seed| seed.id.key().to_string()).collect();
        assert_eq!(keys, ["doi:10.1038/nature12373", "arxiv:2101.00001", "pmid:7"]);
    }
}
