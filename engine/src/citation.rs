//! Citations for reference managers: a paper (or a digest's entry of one) as BibTeX, RIS, the
//! HighWire Press `<meta name="citation_…">` tags Google Scholar and Zotero's connector read on a
//! page, and a COinS OpenURL ContextObject (`<span class="Z3988">`).
//!
//! A [`Citation`] is made from a [`Paper`] when the paper is at hand, or from a stored
//! [`DigestEntry`] when only the digest is ([`Citation::from_entry`]: its authors are one line of
//! at most three names, so the citation says the list goes on, and its year is the one its title
//! key keeps). The writers take citations as they are; each text is put on one line.
//!
//! - [`bibtex`]: `@article`, or `@misc` for a preprint, with `eprint`/`archivePrefix` for an arXiv
//!   id. Keys are the first author's family name folded to ASCII with the year (`smith2024`),
//!   `a`, `b`… added to repeats, `papertide` when there is no author. Text is escaped for LaTeX
//!   (`\&`, `\%`, `\$`, `\#`, `\_`, braces kept balanced) and left in UTF-8, which biblatex,
//!   Zotero and every current BibTeX reader take; `doi` and `url` are verbatim fields.
//! - [`ris`]: `TY  - JOUR` or `TY  - UNPB`, lines ended with CRLF as the RIS specification asks,
//!   a PMID as the accession number (`AN`, with `DB  - PubMed`), an arXiv id likewise when there
//!   is no PMID (with `DB  - arXiv`).
//! - [`highwire_tags`]: name and content pairs; [`highwire_html`] the escaped `<meta>` elements.
//! - [`coins`]: the KEV ContextObject (Z39.88-2004, journal format); [`coins_span`] its span.

use std::collections::HashSet;

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::dedup::DedupKey;
use crate::digest::{source_label, DigestEntry};
use crate::mail::escape_html;
use crate::paper::{collapse_whitespace, LinkKind, Paper, Source};

/// What kind of work is cited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CitationKind {
    /// A journal article (anything with a journal, and PubMed's records).
    Article,
    /// A preprint on arXiv, bioRxiv or medRxiv, not (yet) known in a journal.
    Preprint,
}

/// One author as a citation names them: a person by family and given names, or a collective
/// (a consortium, a study group) by its literal name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedAuthor {
    pub family: Option<String>,
    pub given: Option<String>,
    /// A collective's name, or a name that could not be split.
    pub literal: Option<String>,
}

impl CitedAuthor {
    /// A person; empty names are none.
    pub fn person(family: &str, given: Option<&str>) -> CitedAuthor {
        let clean = |text: &str| Some(collapse_whitespace(text)).filter(|text| !text.is_empty());
        CitedAuthor { family: clean(family), given: given.and_then(clean), literal: None }
    }

    /// A collective, or any name to be kept whole.
    pub fn literal(name: &str) -> CitedAuthor {
        CitedAuthor { family: None, given: None, literal: Some(collapse_whitespace(name)).filter(|name| !name.is_empty()) }
    }

    /// "Family, Given", "Family" or the literal name.
    pub fn inverted(&self) -> String {
        match (&self.literal, &self.family, &self.given) {
            (Some(literal), _, _) => literal.clone(),
            (None, Some(family), Some(given)) => format!("{family}, {given}"),
            (None, Some(family), None) => family.clone(),
            (None, None, Some(given)) => given.clone(),
            (None, None, None) => String::new(),
        }
    }

    /// "Given Family", "Family" or the literal name.
    pub fn display(&self) -> String {
        match (&self.literal, &self.family, &self.given) {
            (Some(literal), _, _) => literal.clone(),
            (None, Some(family), Some(given)) => format!("{given} {family}"),
            (None, Some(family), None) => family.clone(),
            (None, None, Some(given)) => given.clone(),
            (None, None, None) => String::new(),
        }
    }

    /// A name as people write it ("Given Family", "Ludwig van Beethoven", "the COVID-19 Genomics
    /// UK Consortium") split as well as it can be: a collective's name (one with a word such as
    /// Consortium, Group, Committee) stays whole; otherwise the family name is the last word, with
    /// the particles before it (`van`, `de la`) and a suffix after it (`Jr.`).
    pub fn from_display(name: &str) -> CitedAuthor {
        let name = collapse_whitespace(name);
        let words: Vec<&str> = name.split(' ').filter(|word| !word.is_empty()).collect();
        let is_collective = words.iter().any(|word| {
            let word = word.trim_matches(|character: char| !character.is_alphanumeric()).to_lowercase();
            COLLECTIVE_WORDS.contains(&word.as_str())
        });
        if is_collective {
            return CitedAuthor::literal(&name);
        }
        match words.len() {
            0 => CitedAuthor::default(),
            1 => CitedAuthor::person(words[0], None),
            count => {
                let has_suffix = count >= 3 && NAME_SUFFIXES.contains(&words[count - 1].to_lowercase().as_str());
                let last = if has_suffix { count - 2 } else { count - 1 };
                let first_particle = (1..last).find(|&index| NAME_PARTICLES.contains(&words[index])).unwrap_or(last);
                CitedAuthor::person(&words[first_particle..].join(" "), Some(&words[..first_particle].join(" ")))
            }
        }
    }
}

/// Words that make a name a collective's.
const COLLECTIVE_WORDS: [&str; 22] = [
    "consortium",
    "collaboration",
    "collaborative",
    "group",
    "committee",
    "network",
    "investigators",
    "society",
    "association",
    "organization",
    "organisation",
    "team",
    "initiative",
    "study",
    "council",
    "alliance",
    "project",
    "institute",
    "centre",
    "center",
    "authors",
    "force",
];

/// Lower-case words that start a family name (`van Beethoven`, `de la Cruz`).
const NAME_PARTICLES: [&str; 20] =
    ["van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "le", "la", "dos", "das", "ten", "ter", "zu", "bin", "ibn", "al"];

/// Words that end a name after the family name.
const NAME_SUFFIXES: [&str; 6] = ["jr.", "jr", "sr.", "sr", "ii", "iii"];

/// A work to cite. Every field is plain text (not escaped for any format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    pub kind: CitationKind,
    pub title: String,
    pub authors: Vec<CitedAuthor>,
    /// The author list goes on past `authors` (a digest's entry keeps three): BibTeX says
    /// `and others`.
    pub more_authors: bool,
    pub journal: Option<String>,
    pub year: Option<i32>,
    /// The publication date, when the day is known (its year is then `year`).
    pub date: Option<NaiveDate>,
    /// Normalized (lower-case, no resolver prefix).
    pub doi: Option<String>,
    pub pmid: Option<String>,
    /// Without version.
    pub arxiv: Option<String>,
    /// Where to read it: the DOI link, else its page at the source.
    pub url: Option<String>,
    pub abstract_text: Option<String>,
    /// The preprint server of a preprint ("arXiv", "bioRxiv", "medRxiv").
    pub publisher_source: Option<String>,
}

impl From<&Paper> for Citation {
    /// The paper's citation: the date it was published, else the date it entered its source; a
    /// preprint when a preprint server reported it and no journal is known; the DOI link, else
    /// its abstract page, else its first link.
    fn from(paper: &Paper) -> Citation {
        let ids = &paper.ids;
        let date = paper.published.or(paper.entered);
        let journal = paper.journal.as_deref().map(collapse_whitespace).filter(|journal| !journal.is_empty());
        let preprint_source = paper.sources.iter().copied().find(|source| is_preprint_server(*source));
        let kind = if journal.is_none() && preprint_source.is_some() { CitationKind::Preprint } else { CitationKind::Article };
        let doi =
            [&ids.doi, &ids.published_doi, &ids.preprint_doi].into_iter().flatten().map(|doi| doi.trim().to_lowercase()).find(|doi| !doi.is_empty());
        let url = doi.as_deref().map(doi_url).or_else(|| {
            let abstract_link = paper.links.iter().find(|link| link.kind == LinkKind::Abstract);
            abstract_link.or(paper.links.first()).map(|link| link.url.clone())
        });
        let authors = paper
            .authors
            .iter()
            .map(|author| match (&author.family, author.is_collective) {
                (_, true) => CitedAuthor::literal(&author.name),
                (Some(family), false) => CitedAuthor::person(family, author.given.as_deref()),
                (None, false) => CitedAuthor::from_display(&author.name),
            })
            .collect();
        let abstract_text = Some(paper.abstract_text()).filter(|text| !text.trim().is_empty());
        Citation {
            kind,
            title: collapse_whitespace(&paper.title),
            authors,
            more_authors: false,
            journal,
            year: date.map(|date| date.year()),
            date,
            doi,
            pmid: non_empty(&ids.pmid),
            arxiv: non_empty(&ids.arxiv),
            url,
            abstract_text,
            publisher_source: match kind {
                CitationKind::Preprint => preprint_source.map(|source| source_label(source).to_owned()),
                CitationKind::Article => None,
            },
        }
    }
}

impl Citation {
    /// The citation of a digest's entry whose paper is not at hand: authors from its author line
    /// (names split on ", " and " and "; "et al." sets [`Citation::more_authors`]), ids from its
    /// keys (`doi:…`, `pmid:…`, `arxiv:…`), the year its title key keeps (no day), its `url` or
    /// else its first link.
    pub fn from_entry(entry: &DigestEntry) -> Citation {
        let keys: Vec<DedupKey> = entry.keys.iter().filter_map(|key| DedupKey::parse(key)).collect();
        let doi = keys.iter().find_map(|key| if let DedupKey::Doi(doi) = key { Some(doi.clone()) } else { None });
        let pmid = keys.iter().find_map(|key| if let DedupKey::Pmid(pmid) = key { Some(pmid.clone()) } else { None });
        let arxiv = keys.iter().find_map(|key| if let DedupKey::Arxiv(arxiv) = key { Some(arxiv.clone()) } else { None });
        let year = keys.iter().find_map(|key| match key {
            DedupKey::Title(title) => title.rsplit('|').next().and_then(|year| year.parse::<i32>().ok()),
            _ => None,
        });
        let (authors, more_authors) = split_author_line(&entry.authors);
        let journal = entry.journal.as_deref().map(collapse_whitespace).filter(|journal| !journal.is_empty());
        let preprint_source = entry.sources.iter().chain([&entry.source]).copied().find(|source| is_preprint_server(*source));
        let kind = if journal.is_none() && preprint_source.is_some() { CitationKind::Preprint } else { CitationKind::Article };
        Citation {
            kind,
            title: collapse_whitespace(&entry.title),
            authors,
            more_authors,
            journal,
            year,
            date: None,
            doi,
            pmid,
            arxiv,
            url: entry.url.clone().or_else(|| entry.links.first().map(|(_, url)| url.clone())),
            abstract_text: Some(entry.abstract_text.trim().to_owned()).filter(|text| !text.is_empty()),
            publisher_source: match kind {
                CitationKind::Preprint => preprint_source.map(|source| source_label(source).to_owned()),
                CitationKind::Article => None,
            },
        }
    }
}

fn is_preprint_server(source: Source) -> bool {
    matches!(source, Source::Arxiv | Source::Biorxiv | Source::Medrxiv)
}

fn non_empty(text: &Option<String>) -> Option<String> {
    text.as_deref().map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned)
}

/// A digest's author line ("A. Author0, A. Author1, A. Author2, et al.") as authors, and whether
/// it went on.
fn split_author_line(line: &str) -> (Vec<CitedAuthor>, bool) {
    let mut authors = Vec::new();
    let mut more = false;
    for name in line.split(", ").flat_map(|part| part.split(" and ")) {
        let name = name.trim().trim_start_matches("and ").trim();
        match name.to_lowercase().as_str() {
            "" => {}
            "et al." | "et al" | "others" => more = true,
            _ => authors.push(CitedAuthor::from_display(name)),
        }
    }
    (authors, more)
}

/// The DOI resolver's link for `doi`, its characters that mean something in a URL escaped.
pub fn doi_url(doi: &str) -> String {
    format!("https://doi.org/{}", percent_encode(doi, b"/:;()@!$&'*+,="))
}

/// `text` percent-encoded: every byte but ASCII letters, digits, `-._~` and those in `keep` as
/// `%XX` (upper-case hex), as RFC 3986 does.
pub fn percent_encode(text: &str, keep: &[u8]) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || keep.contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// Text on one line: control characters and line separators become spaces, runs of spaces one.
fn one_line(text: &str) -> String {
    let spaced: String =
        text.chars().map(|character| if character.is_control() || matches!(character, '\u{2028}' | '\u{2029}') { ' ' } else { character }).collect();
    collapse_whitespace(&spaced)
}

// BibTeX --------------------------------------------------------------------------------------

/// The citations as one BibTeX file, an entry each, with unique keys (see the module docs).
pub fn bibtex(citations: &[Citation]) -> String {
    let mut used: HashSet<String> = HashSet::new();
    let mut file = String::new();
    for citation in citations {
        let key = unique_key(&base_key(citation), &mut used);
        let kind = match citation.kind {
            CitationKind::Article => "article",
            CitationKind::Preprint => "misc",
        };
        let mut fields: Vec<(&str, String)> = Vec::new();
        fields.push(("title", format!("{{{}}}", latex(&citation.title, true))));
        let mut names: Vec<String> = citation.authors.iter().map(bibtex_name).filter(|name| !name.is_empty()).collect();
        if citation.more_authors {
            names.push("others".to_owned());
        }
        if !names.is_empty() {
            fields.push(("author", format!("{{{}}}", names.join(" and "))));
        }
        if let Some(journal) = &citation.journal {
            fields.push(("journal", format!("{{{}}}", latex(journal, false))));
        }
        if let (CitationKind::Preprint, Some(server)) = (citation.kind, &citation.publisher_source) {
            fields.push(("howpublished", format!("{{{}}}", latex(server, false))));
        }
        if let Some(year) = citation.year {
            fields.push(("year", format!("{{{year}}}")));
        }
        if let Some(date) = citation.date {
            fields.push(("month", MONTHS[date.month0() as usize].to_owned()));
        }
        if let Some(doi) = &citation.doi {
            fields.push(("doi", format!("{{{}}}", verbatim(doi))));
        }
        if let Some(pmid) = &citation.pmid {
            fields.push(("pmid", format!("{{{}}}", verbatim(pmid))));
        }
        if let Some(arxiv) = &citation.arxiv {
            fields.push(("eprint", format!("{{{}}}", verbatim(arxiv))));
            fields.push(("archivePrefix", "{arXiv}".to_owned()));
        }
        if let Some(url) = &citation.url {
            fields.push(("url", format!("{{{}}}", verbatim(url))));
        }
        if let Some(text) = &citation.abstract_text {
            fields.push(("abstract", format!("{{{}}}", latex(text, false))));
        }
        file.push_str(&format!("@{kind}{{{key},\n"));
        for (name, value) in fields {
            file.push_str(&format!("  {name} = {value},\n"));
        }
        file.push_str("}\n\n");
    }
    file
}

/// BibTeX's month macros.
const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// `smith2024`: the first author's family name (or a collective's first word) folded to ASCII
/// letters and digits, then the year; `papertide` when that leaves nothing.
fn base_key(citation: &Citation) -> String {
    let first = citation.authors.first();
    let name = first.and_then(|author| {
        author.family.clone().or_else(|| author.literal.as_deref().and_then(|literal| literal.split(' ').next()).map(str::to_owned))
    });
    let folded: String = name.as_deref().map(fold_to_ascii).unwrap_or_default().chars().filter(char::is_ascii_alphanumeric).collect();
    let name = if folded.is_empty() { "papertide".to_owned() } else { folded };
    match citation.year {
        Some(year) => format!("{name}{year}"),
        None => name,
    }
}

/// `base`, or `base` with the first of `a`, `b`, … `z`, `aa`, … not used yet; recorded as used.
fn unique_key(base: &str, used: &mut HashSet<String>) -> String {
    let mut key = base.to_owned();
    let mut counter = 0usize;
    while used.contains(&key) {
        counter += 1;
        key = format!("{base}{}", letters(counter));
    }
    used.insert(key.clone());
    key
}

/// 1 → `a`, 26 → `z`, 27 → `aa` (bijective base 26).
fn letters(mut number: usize) -> String {
    let mut letters = Vec::new();
    while number > 0 {
        number -= 1;
        letters.push(b'a' + (number % 26) as u8);
        number /= 26;
    }
    letters.iter().rev().map(|&byte| byte as char).collect()
}

/// Lower-case ASCII for a name: accents dropped (`Wölfel` → `wolfel`, `Łukasz` → `lukasz`,
/// `Øster` → `oster`, `Straße` → `strasse`); letters of other scripts stay as they are.
pub fn fold_to_ascii(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for character in text.chars() {
        match ascii_of(character) {
            Some(ascii) => folded.push_str(ascii),
            None => folded.extend(character.to_lowercase()),
        }
    }
    folded
}

fn ascii_of(character: char) -> Option<&'static str> {
    Some(match character {
        'À'..='Å' | 'à'..='å' | 'Ā' | 'ā' | 'Ă' | 'ă' | 'Ą' | 'ą' => "a",
        'Æ' | 'æ' => "ae",
        'Ç' | 'ç' | 'Ć' | 'ć' | 'Č' | 'č' => "c",
        'Ð' | 'ð' | 'Đ' | 'đ' | 'Ď' | 'ď' => "d",
        'È'..='Ë' | 'è'..='ë' | 'Ē' | 'ē' | 'Ė' | 'ė' | 'Ę' | 'ę' | 'Ě' | 'ě' => "e",
        'Ğ' | 'ğ' => "g",
        'Ì'..='Ï' | 'ì'..='ï' | 'Ī' | 'ī' | 'Į' | 'į' | 'İ' | 'ı' => "i",
        'Ł' | 'ł' | 'Ľ' | 'ľ' | 'Ĺ' | 'ĺ' => "l",
        'Ñ' | 'ñ' | 'Ń' | 'ń' | 'Ň' | 'ň' => "n",
        'Ò'..='Ö' | 'Ø' | 'ò'..='ö' | 'ø' | 'Ō' | 'ō' | 'Ő' | 'ő' => "o",
        'Œ' | 'œ' => "oe",
        'Ř' | 'ř' | 'Ŕ' | 'ŕ' => "r",
        'Ś' | 'ś' | 'Š' | 'š' | 'Ş' | 'ş' | 'Ș' | 'ș' => "s",
        'ß' => "ss",
        'Ť' | 'ť' | 'Ţ' | 'ţ' | 'Ț' | 'ț' => "t",
        'Þ' | 'þ' => "th",
        'Ù'..='Ü' | 'ù'..='ü' | 'Ū' | 'ū' | 'Ů' | 'ů' | 'Ű' | 'ű' | 'Ų' | 'ų' => "u",
        'Ý' | 'ý' | 'ÿ' | 'Ÿ' => "y",
        'Ź' | 'ź' | 'Ż' | 'ż' | 'Ž' | 'ž' => "z",
        _ => return None,
    })
}

/// An author as BibTeX names them: `Family, Given`; a collective (or a family name alone with
/// spaces in it) in braces so that it is not split; a name with a comma or an `and` in a part
/// has that part in braces.
fn bibtex_name(author: &CitedAuthor) -> String {
    let protect = |part: &str| {
        let escaped = latex(part, false);
        let lower = format!(" {} ", part.to_lowercase());
        if part.contains(',') || lower.contains(" and ") {
            format!("{{{escaped}}}")
        } else {
            escaped
        }
    };
    match (&author.literal, &author.family, &author.given) {
        (Some(literal), _, _) => format!("{{{}}}", latex(literal, false)),
        (None, Some(family), Some(given)) => format!("{}, {}", protect(family), protect(given)),
        (None, Some(family), None) if family.contains(' ') => format!("{{{}}}", latex(family, false)),
        (None, Some(family), None) => protect(family),
        (None, None, Some(given)) => format!("{{{}}}", latex(given, false)),
        (None, None, None) => String::new(),
    }
}

/// Text for a braced BibTeX value: on one line, LaTeX's special characters escaped, every brace
/// balanced (`\{`…`\}` for a pair, `\textbraceleft{}` for one without its match), everything
/// else left in UTF-8. With `protect_case`, a word with a capital after its first letter
/// (`mRNA`, `CRISPR`, `SARS-CoV-2`) is wrapped in braces so that styles keep its case.
fn latex(text: &str, protect_case: bool) -> String {
    let text = one_line(text);
    let characters: Vec<char> = text.chars().collect();
    let matched = matched_braces(&characters);
    let mut escaped = String::with_capacity(text.len() + 16);
    let mut start = 0;
    while start < characters.len() {
        let end = characters[start..].iter().position(|character| *character == ' ').map_or(characters.len(), |offset| start + offset);
        let word = &characters[start..end];
        let protect = protect_case && word.iter().skip(1).any(|character| character.is_uppercase());
        if protect {
            escaped.push('{');
        }
        for (character, matched_brace) in word.iter().zip(&matched[start..end]) {
            push_latex(&mut escaped, *character, *matched_brace);
        }
        if protect {
            escaped.push('}');
        }
        if end < characters.len() {
            escaped.push(' ');
        }
        start = end + 1;
    }
    escaped
}

/// For each character, whether it is a brace with its match in `characters`.
fn matched_braces(characters: &[char]) -> Vec<bool> {
    let mut matched = vec![false; characters.len()];
    let mut open: Vec<usize> = Vec::new();
    for (index, character) in characters.iter().enumerate() {
        match character {
            '{' => open.push(index),
            '}' => {
                if let Some(opening) = open.pop() {
                    matched[opening] = true;
                    matched[index] = true;
                }
            }
            _ => {}
        }
    }
    matched
}

fn push_latex(escaped: &mut String, character: char, matched_brace: bool) {
    match character {
        '\\' => escaped.push_str("\\textbackslash{}"),
        '{' if matched_brace => escaped.push_str("\\{"),
        '}' if matched_brace => escaped.push_str("\\}"),
        '{' => escaped.push_str("\\textbraceleft{}"),
        '}' => escaped.push_str("\\textbraceright{}"),
        '&' | '%' | '$' | '#' | '_' => {
            escaped.push('\\');
            escaped.push(character);
        }
        '^' => escaped.push_str("\\textasciicircum{}"),
        '~' => escaped.push_str("\\textasciitilde{}"),
        _ => escaped.push(character),
    }
}

/// A verbatim field (`doi`, `url`, `eprint`): no whitespace, braces and backslashes
/// percent-encoded so that they cannot end the value.
fn verbatim(text: &str) -> String {
    let mut clean = String::with_capacity(text.len());
    for character in text.chars().filter(|character| !character.is_whitespace() && !character.is_control()) {
        match character {
            '{' => clean.push_str("%7B"),
            '}' => clean.push_str("%7D"),
            '\\' => clean.push_str("%5C"),
            _ => clean.push(character),
        }
    }
    clean
}

// RIS -----------------------------------------------------------------------------------------

/// The citations as one RIS file (see the module docs), CRLF line ends, a blank line between
/// records.
pub fn ris(citations: &[Citation]) -> String {
    let mut file = String::new();
    for citation in citations {
        let mut line = |tag: &str, value: &str| {
            let value = one_line(value);
            if !value.is_empty() {
                file.push_str(&format!("{tag}  - {value}\r\n"));
            }
        };
        line(
            "TY",
            match citation.kind {
                CitationKind::Article => "JOUR",
                CitationKind::Preprint => "UNPB",
            },
        );
        line("TI", &citation.title);
        for author in &citation.authors {
            line("AU", &author.inverted());
        }
        if let Some(journal) = &citation.journal {
            line("T2", journal);
        }
        if let (CitationKind::Preprint, Some(server)) = (citation.kind, &citation.publisher_source) {
            line("PB", server);
        }
        if let Some(year) = citation.year {
            line("PY", &year.to_string());
        }
        if let Some(date) = citation.date {
            line("DA", &date.format("%Y/%m/%d").to_string());
        }
        if let Some(doi) = &citation.doi {
            line("DO", doi);
        }
        if let Some(url) = &citation.url {
            line("UR", url);
        }
        if let Some(text) = &citation.abstract_text {
            line("AB", text);
        }
        match (&citation.pmid, &citation.arxiv) {
            (Some(pmid), _) => {
                line("AN", pmid);
                line("DB", "PubMed");
            }
            (None, Some(arxiv)) => {
                line("AN", arxiv);
                line("DB", "arXiv");
            }
            (None, None) => {}
        }
        file.push_str("ER  - \r\n\r\n");
    }
    file
}

// HighWire Press ------------------------------------------------------------------------------

/// The `<meta name="citation_…">` tags of a citation's page, in the order Google Scholar lists
/// them: `citation_title`, a `citation_author` per author ("Family, Given"),
/// `citation_publication_date` (YYYY/MM/DD, or the year), `citation_journal_title`,
/// `citation_doi`, `citation_pmid`, `citation_arxiv_id`, `citation_abstract_html_url`. Contents are
/// plain text on one line: escape them for HTML ([`highwire_html`] does).
pub fn highwire_tags(citation: &Citation) -> Vec<(&'static str, String)> {
    let mut tags: Vec<(&'static str, String)> = vec![("citation_title", one_line(&citation.title))];
    tags.extend(citation.authors.iter().map(|author| ("citation_author", one_line(&author.inverted()))));
    let date = match (citation.date, citation.year) {
        (Some(date), _) => Some(date.format("%Y/%m/%d").to_string()),
        (None, Some(year)) => Some(year.to_string()),
        (None, None) => None,
    };
    tags.extend(date.map(|date| ("citation_publication_date", date)));
    tags.extend(citation.journal.as_deref().map(|journal| ("citation_journal_title", one_line(journal))));
    tags.extend(citation.doi.as_deref().map(|doi| ("citation_doi", one_line(doi))));
    tags.extend(citation.pmid.as_deref().map(|pmid| ("citation_pmid", one_line(pmid))));
    tags.extend(citation.arxiv.as_deref().map(|arxiv| ("citation_arxiv_id", one_line(arxiv))));
    tags.extend(citation.url.as_deref().map(|url| ("citation_abstract_html_url", one_line(url))));
    tags.retain(|(_, content)| !content.is_empty());
    tags
}

/// [`highwire_tags`] as `<meta>` elements, one a line, contents escaped for HTML.
pub fn highwire_html(citation: &Citation) -> String {
    highwire_tags(citation).iter().map(|(name, content)| format!("<meta name=\"{name}\" content=\"{}\">\n", escape_html(content))).collect()
}

// COinS ---------------------------------------------------------------------------------------

/// The OpenURL ContextObject of a citation in KEV form (Z39.88-2004, journal format), every value
/// percent-encoded: `ctx_ver`, `rft_val_fmt`, `rft.genre` (`article` or `preprint`),
/// `rft.atitle`, `rft.jtitle` (the journal, or a preprint's server), `rft.date` (ISO 8601), the
/// first author as `rft.aulast`/`rft.aufirst` (a collective as `rft.aucorp`) and the others as
/// `rft.au`, then `rft_id`s: `info:doi/…`, `info:pmid/…`, `info:arxiv/…` and the link. It goes in
/// a span's `title` escaped for HTML ([`coins_span`]).
pub fn coins(citation: &Citation) -> String {
    let mut pairs: Vec<(&str, String)> = vec![
        ("ctx_ver", "Z39.88-2004".to_owned()),
        ("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal".to_owned()),
        (
            "rft.genre",
            match citation.kind {
                CitationKind::Article => "article",
                CitationKind::Preprint => "preprint",
            }
            .to_owned(),
        ),
        ("rft.atitle", one_line(&citation.title)),
    ];
    if let Some(source) = citation.journal.as_ref().or(citation.publisher_source.as_ref()) {
        pairs.push(("rft.jtitle", one_line(source)));
    }
    match (citation.date, citation.year) {
        (Some(date), _) => pairs.push(("rft.date", date.format("%Y-%m-%d").to_string())),
        (None, Some(year)) => pairs.push(("rft.date", year.to_string())),
        (None, None) => {}
    }
    if let Some(first) = citation.authors.first() {
        match (&first.literal, &first.family) {
            (Some(literal), _) => pairs.push(("rft.aucorp", one_line(literal))),
            (None, Some(family)) => {
                pairs.push(("rft.aulast", one_line(family)));
                pairs.extend(first.given.as_deref().map(|given| ("rft.aufirst", one_line(given))));
            }
            (None, None) => pairs.extend(first.given.as_deref().map(|given| ("rft.au", one_line(given)))),
        }
    }
    pairs.extend(citation.authors.iter().skip(1).map(|author| ("rft.au", one_line(&author.inverted()))));
    pairs.extend(citation.doi.as_deref().map(|doi| ("rft_id", format!("info:doi/{}", one_line(doi)))));
    pairs.extend(citation.pmid.as_deref().map(|pmid| ("rft_id", format!("info:pmid/{}", one_line(pmid)))));
    pairs.extend(citation.arxiv.as_deref().map(|arxiv| ("rft_id", format!("info:arxiv/{}", one_line(arxiv)))));
    pairs.extend(citation.url.as_deref().map(|url| ("rft_id", one_line(url))));
    pairs
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(key, value)| format!("{key}={}", percent_encode(value, b"")))
        .collect::<Vec<_>>()
        .join("&")
}

/// The COinS span of a citation: `<span class="Z3988" title="…"></span>`, the ContextObject
/// escaped for the attribute.
pub fn coins_span(citation: &Citation) -> String {
    format!("<span class=\"Z3988\" title=\"{}\"></span>", escape_html(&coins(citation)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{AbstractSection, Author, Link};
    use crate::seed::{bibtex_records, parse_seeds, ris_records, SeedId, SeedInput};

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    fn pubmed_paper() -> Paper {
        let mut paper = Paper::new(Source::Pubmed, "Virological assessment of hospitalized patients with COVID-2019");
        paper.ids.doi = Some("10.1038/s41586-020-2196-x".into());
        paper.ids.pmid = Some("32235945".into());
        paper.authors = vec![
            Author::person(Some("Roman"), "Wölfel"),
            Author::person(Some("Victor M."), "Corman"),
            Author::collective("the COVID-19 Investigators"),
        ];
        paper.journal = Some("Nature".into());
        paper.published = Some(day("2020-04-01"));
        paper.entered = Some(day("2020-04-02"));
        paper.abstract_sections =
            vec![AbstractSection { label: Some("BACKGROUND".into()), text: "Coronavirus disease 2019 (COVID-19) is an acute infection.".into() }];
        paper.links = vec![Link { kind: LinkKind::Abstract, url: "https://pubmed.ncbi.nlm.nih.gov/32235945/".into() }];
        paper
    }

    fn arxiv_paper() -> Paper {
        let mut paper = Paper::new(Source::Arxiv, "Attention Is All You Need");
        paper.ids.arxiv = Some("1706.03762".into());
        paper.authors = vec![Author::person(Some("Ashish"), "Vaswani"), Author::person(Some("Noam"), "Shazeer")];
        paper.entered = Some(day("2017-06-12"));
        paper.links = vec![
            Link { kind: LinkKind::Pdf, url: "https://arxiv.org/pdf/1706.03762v7".into() },
            Link { kind: LinkKind::Abstract, url: "https://arxiv.org/abs/1706.03762v7".into() },
        ];
        paper
    }

    fn biorxiv_paper() -> Paper {
        let mut paper = Paper::new(Source::Biorxiv, "Single-cell atlas of the {human} brain");
        paper.ids.doi = Some("10.1101/2020.09.09.20191205".into());
        paper.ids.preprint_doi = Some("10.1101/2020.09.09.20191205".into());
        paper.authors = vec![Author::person(Some("Jane"), "Smith")];
        paper.published = Some(day("2020-09-10"));
        paper
    }

    /// A title full of what breaks BibTeX and RIS.
    fn tricky() -> Citation {
        Citation {
            kind: CitationKind::Article,
            title: "R&D} of {unbalanced and 100% $5 #1 under_score ^caret ~tilde \\back {nested {pair}} café\nnext line".into(),
            authors: vec![
                CitedAuthor::person("Ødegård", Some("Åse")),
                CitedAuthor::person("Smith, Jr.", Some("John")),
                CitedAuthor::literal("Research and Development Group"),
            ],
            more_authors: false,
            journal: Some("J. Chem. & Phys.".into()),
            year: Some(2024),
            date: Some(day("2024-03-05")),
            doi: Some("10.1000/a{b}c d".into()),
            pmid: None,
            arxiv: None,
            url: Some("https://example.org/paper?id=1&x=50%".into()),
            abstract_text: Some("First line.\r\nSecond line.\u{2028}Third.".into()),
            publisher_source: None,
        }
    }

    fn brace_depths_ok(text: &str) -> bool {
        let mut depth = 0i64;
        for character in text.chars() {
            match character {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        depth == 0
    }

    #[test]
    fn a_paper_becomes_an_article_or_a_preprint() {
        let article = Citation::from(&pubmed_paper());
        assert_eq!(article.kind, CitationKind::Article);
        assert_eq!(article.date, Some(day("2020-04-01")), "published before entered");
        assert_eq!(article.year, Some(2020));
        assert_eq!(article.url.as_deref(), Some("https://doi.org/10.1038/s41586-020-2196-x"));
        assert_eq!(article.authors[0], CitedAuthor::person("Wölfel", Some("Roman")));
        assert_eq!(article.authors[2], CitedAuthor::literal("the COVID-19 Investigators"));
        assert_eq!(article.abstract_text.as_deref(), Some("BACKGROUND: Coronavirus disease 2019 (COVID-19) is an acute infection."));
        assert_eq!(article.publisher_source, None);

        let preprint = Citation::from(&arxiv_paper());
        assert_eq!((preprint.kind, preprint.publisher_source.as_deref()), (CitationKind::Preprint, Some("arXiv")));
        assert_eq!(preprint.date, Some(day("2017-06-12")), "entered when there is no published date");
        assert_eq!(preprint.url.as_deref(), Some("https://arxiv.org/abs/1706.03762v7"), "the abstract link when there is no DOI");
        assert_eq!(preprint.abstract_text, None);

        let mut published = biorxiv_paper();
        published.journal = Some("Cell".into());
        assert_eq!(Citation::from(&published).kind, CitationKind::Article, "a preprint with a journal is an article");
        assert_eq!(Citation::from(&biorxiv_paper()).publisher_source.as_deref(), Some("bioRxiv"));
    }

    #[test]
    fn a_digest_entry_gives_what_it_keeps() {
        let entry = DigestEntry {
            title: "Gene therapy\ntrial".into(),
            url: None,
            authors: "A. Author0, Ludwig van Beethoven, the COVID-19 Genomics UK Consortium, et al.".into(),
            journal: None,
            abstract_text: "".into(),
            source: Source::Medrxiv,
            sources: vec![Source::Medrxiv],
            relevance_score: 0.87,
            impact: 0.1,
            summary: String::new(),
            reason: String::new(),
            retracted: false,
            keys: vec![
                "doi:10.1101/2020.04.14.20062463".into(),
                "pmid:32345678".into(),
                "arxiv:2101.00001".into(),
                "title:gene therapy trial|author0|2020".into(),
            ],
            links: vec![("DOI".into(), "https://doi.org/10.1101/2020.04.14.20062463".into())],
        };
        let citation = Citation::from_entry(&entry);
        assert_eq!(citation.title, "Gene therapy trial");
        assert_eq!(
            citation.authors,
            [
                CitedAuthor::person("Author0", Some("A.")),
                CitedAuthor::person("van Beethoven", Some("Ludwig")),
                CitedAuthor::literal("the COVID-19 Genomics UK Consortium")
            ]
        );
        assert!(citation.more_authors);
        assert_eq!(
            (citation.doi.as_deref(), citation.pmid.as_deref(), citation.arxiv.as_deref()),
            (Some("10.1101/2020.04.14.20062463"), Some("32345678"), Some("2101.00001"))
        );
        assert_eq!((citation.year, citation.date), (Some(2020), None));
        assert_eq!(citation.url.as_deref(), Some("https://doi.org/10.1101/2020.04.14.20062463"), "the first link when there is no url");
        assert_eq!((citation.kind, citation.publisher_source.as_deref()), (CitationKind::Preprint, Some("medRxiv")));
        assert_eq!(citation.abstract_text, None);

        let (authors, more) = split_author_line("Ada Lovelace and Charles Babbage");
        assert_eq!((authors.len(), more), (2, false));
        assert_eq!(CitedAuthor::from_display("Martin Luther King Jr."), CitedAuthor::person("King Jr.", Some("Martin Luther")));
        assert_eq!(CitedAuthor::from_display("Maria de la Cruz"), CitedAuthor::person("de la Cruz", Some("Maria")));
        assert_eq!(CitedAuthor::from_display("Plato"), CitedAuthor::person("Plato", None));
    }

    #[test]
    fn bibtex_has_unique_keys_balanced_braces_and_every_field() {
        let citations = vec![
            Citation::from(&pubmed_paper()),
            Citation::from(&arxiv_paper()),
            Citation::from(&biorxiv_paper()),
            Citation::from(&biorxiv_paper()),
            Citation::from(&biorxiv_paper()),
            tricky(),
            Citation { authors: Vec::new(), year: None, date: None, ..Citation::from(&arxiv_paper()) },
            Citation { authors: vec![CitedAuthor::person("王", Some("小明"))], ..Citation::from(&arxiv_paper()) },
        ];
        let file = bibtex(&citations);
        assert!(brace_depths_ok(&file), "{file}");
        let records = bibtex_records(&file);
        assert_eq!(records.len(), citations.len(), "{file}");
        let records: Vec<_> = records.into_iter().map(|record| record.expect("every entry reads back")).collect();
        let keys: Vec<&str> = records.iter().map(|record| record.key.as_str()).collect();
        assert_eq!(keys, ["wolfel2020", "vaswani2017", "smith2020", "smith2020a", "smith2020b", "odegard2024", "papertide", "papertide2017"]);
        let kinds: Vec<&str> = records.iter().map(|record| record.kind.as_str()).collect();
        assert_eq!(kinds, ["article", "misc", "misc", "misc", "misc", "article", "misc", "misc"]);

        let field = |index: usize, name: &str| records[index].fields.iter().find(|(field, _)| field == name).map(|(_, value)| value.clone());
        assert_eq!(field(0, "author").as_deref(), Some("Wölfel, Roman and Corman, Victor M. and {the COVID-19 Investigators}"));
        assert_eq!(field(0, "title").as_deref(), Some("Virological assessment of hospitalized patients with {COVID-2019}"));
        assert_eq!(field(0, "journal").as_deref(), Some("Nature"));
        assert_eq!(
            (field(0, "year").as_deref(), field(0, "doi").as_deref(), field(0, "pmid").as_deref()),
            (Some("2020"), Some("10.1038/s41586-020-2196-x"), Some("32235945"))
        );
        assert!(file.contains("  month = apr,\n"), "{file}");
        assert_eq!((field(1, "eprint").as_deref(), field(1, "archiveprefix").as_deref()), (Some("1706.03762"), Some("arXiv")));
        assert_eq!(field(1, "howpublished").as_deref(), Some("arXiv"));
        assert_eq!(field(2, "title").as_deref(), Some("Single-cell atlas of the \\{human\\} brain"));

        let title = field(5, "title").expect("title");
        assert_eq!(
            title,
            "{R\\&D\\textbraceright{}} of \\textbraceleft{}unbalanced and 100\\% \\$5 \\#1 under\\_score \\textasciicircum{}caret \\textasciitilde{}tilde \\textbackslash{}back \\{nested \\{pair\\}\\} café next line"
        );
        assert_eq!(field(5, "author").as_deref(), Some("Ødegård, Åse and {Smith, Jr.}, John and {Research and Development Group}"));
        assert_eq!(field(5, "journal").as_deref(), Some("J. Chem. \\& Phys."));
        assert_eq!(field(5, "doi").as_deref(), Some("10.1000/a%7Bb%7Dcd"));
        assert_eq!(field(5, "url").as_deref(), Some("https://example.org/paper?id=1&x=50%"), "verbatim");
        assert_eq!(field(5, "abstract").as_deref(), Some("First line. Second line. Third."));
        assert!(!file.contains('\r'));
    }

    #[test]
    fn bibtex_and_ris_read_back_as_seeds() {
        let citations = vec![
            Citation::from(&pubmed_paper()),
            Citation::from(&arxiv_paper()),
            Citation::from(&biorxiv_paper()),
            Citation { doi: None, ..Citation::from(&pubmed_paper()) },
        ];
        let expected = [
            SeedId::Doi("10.1038/s41586-020-2196-x".into()),
            SeedId::Arxiv("1706.03762".into()),
            SeedId::Doi("10.1101/2020.09.09.20191205".into()),
            SeedId::Pmid("32235945".into()),
        ];
        for file in [bibtex(&citations), ris(&citations)] {
            let seeds = parse_seeds(&SeedInput { ids: "", file: Some(&file) }).expect("the exports read back");
            let ids: Vec<SeedId> = seeds.into_iter().map(|seed| seed.id).collect();
            assert_eq!(ids, expected, "without a DOI, the PMID:\n{file}");
        }
    }

    #[test]
    fn ris_records_start_with_ty_end_with_er_and_keep_to_one_line_each() {
        let citations = vec![Citation::from(&pubmed_paper()), Citation::from(&arxiv_paper()), tricky()];
        let file = ris(&citations);
        assert!(file.split("\r\n").all(|line| !line.contains('\n') && !line.contains('\r')), "CRLF only");
        assert!(file.ends_with("ER  - \r\n\r\n"));
        let lines: Vec<&str> = file.split("\r\n").filter(|line| !line.is_empty()).collect();
        assert!(lines.iter().all(|line| line.len() >= 6 && &line[2..6] == "  - "), "{lines:?}");
        assert_eq!(lines.iter().filter(|line| line.starts_with("TY  - ")).count(), 3);
        assert_eq!(lines.iter().filter(|line| line.starts_with("ER  - ")).count(), 3);
        let records = ris_records(&file);
        assert_eq!(records.len(), 3);
        let tags = |index: usize, tag: &str| -> Vec<String> {
            records[index].iter().filter(|(name, _)| name == tag).map(|(_, value)| value.clone()).collect()
        };
        assert_eq!(tags(0, "TY"), ["JOUR"]);
        assert_eq!(tags(0, "AU"), ["Wölfel, Roman", "Corman, Victor M.", "the COVID-19 Investigators"]);
        assert_eq!(
            (tags(0, "T2"), tags(0, "PY"), tags(0, "DA")),
            (vec!["Nature".to_owned()], vec!["2020".to_owned()], vec!["2020/04/01".to_owned()])
        );
        assert_eq!((tags(0, "AN"), tags(0, "DB")), (vec!["32235945".to_owned()], vec!["PubMed".to_owned()]));
        assert_eq!(tags(0, "DO"), ["10.1038/s41586-020-2196-x"]);
        assert_eq!(
            (tags(1, "TY"), tags(1, "PB"), tags(1, "AN"), tags(1, "DB")),
            (vec!["UNPB".to_owned()], vec!["arXiv".to_owned()], vec!["1706.03762".to_owned()], vec!["arXiv".to_owned()])
        );
        assert_eq!(tags(2, "TI"), ["R&D} of {unbalanced and 100% $5 #1 under_score ^caret ~tilde \\back {nested {pair}} café next line"]);
        assert_eq!(tags(2, "AB"), ["First line. Second line. Third."]);
    }

    #[test]
    fn highwire_tags_name_every_field_google_scholar_reads() {
        let tags = highwire_tags(&Citation::from(&pubmed_paper()));
        let names: Vec<&str> = tags.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            [
                "citation_title",
                "citation_author",
                "citation_author",
                "citation_author",
                "citation_publication_date",
                "citation_journal_title",
                "citation_doi",
                "citation_pmid",
                "citation_abstract_html_url"
            ]
        );
        assert_eq!(tags[1].1, "Wölfel, Roman");
        assert_eq!(tags[4].1, "2020/04/01");
        let preprint = highwire_tags(&Citation { date: None, ..Citation::from(&arxiv_paper()) });
        assert!(preprint.contains(&("citation_arxiv_id", "1706.03762".to_owned())));
        assert!(preprint.contains(&("citation_publication_date", "2017".to_owned())));
        assert!(!preprint.iter().any(|(name, _)| *name == "citation_journal_title"));

        let html = highwire_html(&tricky());
        assert!(html.contains("<meta name=\"citation_title\" content=\"R&amp;D} of {unbalanced"), "{html}");
        assert!(html.contains("content=\"https://example.org/paper?id=1&amp;x=50%\""), "{html}");
        assert_eq!(html.lines().count(), highwire_tags(&tricky()).len());
    }

    /// The KEV pairs of a ContextObject, decoded.
    fn decode_kev(kev: &str) -> Vec<(String, String)> {
        kev.split('&')
            .map(|pair| {
                let (key, value) = pair.split_once('=').expect("key=value");
                assert!(value.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"-._~%".contains(&byte)), "{value} is encoded");
                let mut bytes = Vec::new();
                let mut at = 0;
                while at < value.len() {
                    if value.as_bytes()[at] == b'%' {
                        bytes.push(u8::from_str_radix(&value[at + 1..at + 3], 16).expect("hex"));
                        at += 3;
                    } else {
                        bytes.push(value.as_bytes()[at]);
                        at += 1;
                    }
                }
                (key.to_owned(), String::from_utf8(bytes).expect("UTF-8"))
            })
            .collect()
    }

    #[test]
    fn coins_encodes_a_context_object_that_decodes_to_the_citation() {
        let pairs = decode_kev(&coins(&Citation::from(&pubmed_paper())));
        let expected: Vec<(String, String)> = [
            ("ctx_ver", "Z39.88-2004"),
            ("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal"),
            ("rft.genre", "article"),
            ("rft.atitle", "Virological assessment of hospitalized patients with COVID-2019"),
            ("rft.jtitle", "Nature"),
            ("rft.date", "2020-04-01"),
            ("rft.aulast", "Wölfel"),
            ("rft.aufirst", "Roman"),
            ("rft.au", "Corman, Victor M."),
            ("rft.au", "the COVID-19 Investigators"),
            ("rft_id", "info:doi/10.1038/s41586-020-2196-x"),
            ("rft_id", "info:pmid/32235945"),
            ("rft_id", "https://doi.org/10.1038/s41586-020-2196-x"),
        ]
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
        assert_eq!(pairs, expected);

        let tricky_pairs = decode_kev(&coins(&tricky()));
        assert!(tricky_pairs.contains(&(
            "rft.atitle".to_owned(),
            "R&D} of {unbalanced and 100% $5 #1 under_score ^caret ~tilde \\back {nested {pair}} café next line".to_owned()
        )));
        assert!(tricky_pairs.contains(&("rft.aulast".to_owned(), "Ødegård".to_owned())));
        assert!(tricky_pairs.contains(&("rft.date".to_owned(), "2024-03-05".to_owned())));

        let preprint = decode_kev(&coins(&Citation::from(&arxiv_paper())));
        assert!(preprint.contains(&("rft.genre".to_owned(), "preprint".to_owned())));
        assert!(preprint.contains(&("rft.jtitle".to_owned(), "arXiv".to_owned())));
        assert!(preprint.contains(&("rft_id".to_owned(), "info:arxiv/1706.03762".to_owned())));

        let span = coins_span(&tricky());
        assert!(
            span.starts_with("<span class=\"Z3988\" title=\"ctx_ver=Z39.88-2004&amp;rft_val_fmt=info%3Aofi%2Ffmt%3Akev%3Amtx%3Ajournal&amp;"),
            "{span}"
        );
        assert!(span.ends_with("\"></span>") && span.matches('"').count() == 4, "nothing in the title ends it early: {span}");
    }

    #[test]
    fn names_fold_to_ascii_keys() {
        assert_eq!(fold_to_ascii("Wölfel Łukasz Øster Straße Ærø Dvořák Şahin"), "wolfel lukasz oster strasse aero dvorak sahin");
        assert_eq!(letters(1), "a");
        assert_eq!(letters(26), "z");
        assert_eq!(letters(27), "aa");
        let mut used = HashSet::new();
        let keys: Vec<String> = (0..28).map(|_| unique_key("k", &mut used)).collect();
        assert_eq!((keys[0].as_str(), keys[1].as_str(), keys[26].as_str(), keys[27].as_str()), ("k", "ka", "kz", "kaa"));
        assert_eq!(doi_url("10.1002/(SICI)1097<x>#1"), "https://doi.org/10.1002/(SICI)1097%3Cx%3E%231");
    }
}
