//! A research paper as Papertide keeps it, whatever source it came from: its identifiers, text,
//! people, venue, kinds, subjects, dates, links and the sources that reported it. One work is one
//! `Paper`, even when several sources (or several versions) describe it.

use std::fmt;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Where a record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Pubmed,
    Arxiv,
    Biorxiv,
    Medrxiv,
}

impl Source {
    pub const ALL: [Source; 4] = [Source::Pubmed, Source::Arxiv, Source::Biorxiv, Source::Medrxiv];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Pubmed => "pubmed",
            Source::Arxiv => "arxiv",
            Source::Biorxiv => "biorxiv",
            Source::Medrxiv => "medrxiv",
        }
    }
}

impl std::str::FromStr for Source {
    type Err = String;

    /// A source by name, any case: `pubmed`, `arxiv`, `biorxiv` or `medrxiv`.
    fn from_str(text: &str) -> Result<Source, String> {
        let name = text.trim().to_ascii_lowercase();
        Source::ALL
            .into_iter()
            .find(|source| source.as_str() == name)
            .ok_or_else(|| format!("unknown source {text:?}: one of pubmed, arxiv, biorxiv, medrxiv"))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Every identifier a paper is known by. All are normalized (see the `normalize_*` functions):
/// DOIs lower-case without resolver prefix, arXiv ids without `arXiv:` and without version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaperIds {
    /// The DOI of this record: the journal article's, or the preprint's own when that is all
    /// there is (bioRxiv/medRxiv DOIs are `10.1101/...`).
    pub doi: Option<String>,
    pub pmid: Option<String>,
    pub pmcid: Option<String>,
    /// arXiv identifier without version, e.g. `1605.08386` or `astro-ph/0601001`.
    pub arxiv: Option<String>,
    /// The bioRxiv/medRxiv DOI of the preprint.
    pub preprint_doi: Option<String>,
    /// The preprint's latest version seen (arXiv `vN`, bioRxiv/medRxiv `version`).
    pub preprint_version: Option<u32>,
    /// The journal DOI a preprint server says the preprint was published under.
    pub published_doi: Option<String>,
}

/// A person or a collective (a consortium, a study group).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    /// How the name is displayed: "Given Family", or the collective's name.
    pub name: String,
    pub family: Option<String>,
    pub given: Option<String>,
    pub is_collective: bool,
    pub affiliations: Vec<String>,
}

impl Author {
    pub fn person(given: Option<&str>, family: &str) -> Author {
        let given = given.map(str::trim).filter(|given| !given.is_empty()).map(str::to_owned);
        let family = family.trim().to_owned();
        let name = match &given {
            Some(given) => format!("{given} {family}"),
            None => family.clone(),
        };
        Author { name, family: Some(family), given, is_collective: false, affiliations: Vec::new() }
    }

    pub fn collective(name: &str) -> Author {
        Author { name: name.trim().to_owned(), family: None, given: None, is_collective: true, affiliations: Vec::new() }
    }
}

/// One part of an abstract; structured abstracts keep their labels (BACKGROUND, METHODS, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbstractSection {
    pub label: Option<String>,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// The record's landing page at its source.
    Abstract,
    Pdf,
    /// The DOI resolver link.
    Doi,
    FullText,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub kind: LinkKind,
    pub url: String,
}

/// A paper from one or more sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paper {
    pub ids: PaperIds,
    pub title: String,
    pub abstract_sections: Vec<AbstractSection>,
    pub authors: Vec<Author>,
    /// Journal (or book) title; for preprints, where it was published if known.
    pub journal: Option<String>,
    /// Publication types as the source names them (e.g. "Journal Article", "Review").
    pub publication_types: Vec<String>,
    /// The record is a retraction notice, or a retracted publication.
    pub is_retraction: bool,
    /// The record is an erratum / correction notice.
    pub is_erratum: bool,
    /// Subjects: arXiv categories, bioRxiv/medRxiv category, PubMed keywords then MeSH headings.
    pub categories: Vec<String>,
    /// When the work was published (first version, for preprints).
    pub published: Option<NaiveDate>,
    /// When the record entered the source (PubMed Entrez date, arXiv/bioRxiv version date); the
    /// date the weekly window is about.
    pub entered: Option<NaiveDate>,
    pub links: Vec<Link>,
    /// Every source that reported this work, sorted, without repeats. Empty for a work known
    /// only from Crossref (a researcher's seed none of the sources reported, see
    /// `parse::crossref`): no source filter selects it.
    pub sources: Vec<Source>,
}

impl Paper {
    /// An empty paper from `source`, for parsers to fill in.
    pub fn new(source: Source, title: impl Into<String>) -> Paper {
        Paper { sources: vec![source], ..Paper::unsourced(title) }
    }

    /// An empty paper that none of the four sources reported (a work from Crossref), for
    /// parsers to fill in.
    pub fn unsourced(title: impl Into<String>) -> Paper {
        Paper {
            ids: PaperIds::default(),
            title: title.into(),
            abstract_sections: Vec::new(),
            authors: Vec::new(),
            journal: None,
            publication_types: Vec::new(),
            is_retraction: false,
            is_erratum: false,
            categories: Vec::new(),
            published: None,
            entered: None,
            links: Vec::new(),
            sources: Vec::new(),
        }
    }

    /// The abstract as one text: labelled sections as "LABEL: text", blank-line separated.
    pub fn abstract_text(&self) -> String {
        let parts: Vec<String> = self
            .abstract_sections
            .iter()
            .map(|section| match &section.label {
                Some(label) => format!("{label}: {}", section.text),
                None => section.text.clone(),
            })
            .collect();
        parts.join("\n\n")
    }

    /// Whether any source reporting the paper is a peer-reviewed index (what the parsers' tests
    /// check of a preprint's published version).
    #[cfg(test)]
    pub(crate) fn is_peer_reviewed(&self) -> bool {
        self.sources.contains(&Source::Pubmed) || self.ids.published_doi.is_some()
    }
}

/// A record a parser could not use, with why; the rest of the batch is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseWarning {
    /// Which record, as far as it could be told (an id, or a position).
    pub record: Option<String>,
    pub message: String,
}

/// What a parser returns: the good records and a warning for each bad one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed<T> {
    pub items: Vec<T>,
    pub warnings: Vec<ParseWarning>,
}

/// A DOI in canonical form: trimmed, without `doi:` or resolver prefix, lower-case (DOIs are
/// case-insensitive). `None` for text that is not a DOI.
pub fn normalize_doi(text: &str) -> Option<String> {
    let trimmed = text.trim();
    let lowered = trimmed.to_lowercase();
    let prefixes = ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"];
    let bare = prefixes.iter().find_map(|prefix| lowered.strip_prefix(prefix)).unwrap_or(&lowered).trim();
    let is_doi = bare.starts_with("10.") && bare.contains('/') && !bare.ends_with('/');
    (is_doi && !bare.contains(char::is_whitespace)).then(|| bare.to_owned())
}

/// An arXiv identifier split into the id without version and the version, from any of
/// `1605.08386v2`, `arXiv:1605.08386`, `http://arxiv.org/abs/astro-ph/0601001v1`.
pub fn normalize_arxiv_id(text: &str) -> Option<(String, Option<u32>)> {
    let trimmed = text.trim();
    let without_url = ["http://arxiv.org/abs/", "https://arxiv.org/abs/", "http://export.arxiv.org/abs/", "oai:arXiv.org:"]
        .iter()
        .find_map(|prefix| trimmed.strip_prefix(prefix))
        .unwrap_or(trimmed);
    let bare = without_url.strip_prefix("arXiv:").or_else(|| without_url.strip_prefix("arxiv:")).unwrap_or(without_url);
    if bare.is_empty() || bare.contains(char::is_whitespace) {
        return None;
    }
    let (id, version) = match bare.rfind('v') {
        Some(at) if at > 0 && bare[at + 1..].chars().all(|c| c.is_ascii_digit()) && at + 1 < bare.len() => {
            (&bare[..at], bare[at + 1..].parse::<u32>().ok())
        }
        _ => (bare, None),
    };
    let looks_like_arxiv = id.chars().any(|c| c.is_ascii_digit()) && (id.contains('.') || id.contains('/'));
    looks_like_arxiv.then(|| (id.to_owned(), version))
}

/// Collapses runs of whitespace (line breaks of hard-wrapped text included) to single spaces.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The character an HTML entity name stands for, for the names that turn up escaped twice in
/// the sources' text (PubMed abstracts carry `&amp;percnt;`, i.e. the text `&percnt;`).
fn html_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "percnt" => '%',
        "reg" => '®',
        "copy" => '©',
        "trade" => '™',
        "deg" => '°',
        "plusmn" => '±',
        "micro" => 'µ',
        "times" => '×',
        "divide" => '÷',
        "middot" => '·',
        "ndash" => '–',
        "mdash" => '—',
        "hellip" => '…',
        "le" => '≤',
        "ge" => '≥',
        "ne" => '≠',
        "asymp" => '≈',
        "alpha" => 'α',
        "beta" => 'β',
        "gamma" => 'γ',
        "delta" => 'δ',
        "kappa" => 'κ',
        "lambda" => 'λ',
        "mu" => 'μ',
        "sigma" => 'σ',
        "tau" => 'τ',
        "Delta" => 'Δ',
        _ => return None,
    })
}

/// Text with the HTML character references left in it decoded: known names (`&percnt;`) and
/// numbers (`&#37;`, `&#x25;`). Anything else that looks like one stays as it is.
pub fn decode_leftover_entities(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut decoded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        decoded.push_str(&rest[..at]);
        let candidate = &rest[at + 1..];
        let reference = candidate.find(';').filter(|&end| end > 0 && end <= 10).map(|end| &candidate[..end]);
        let character = reference.and_then(|reference| match reference.strip_prefix('#') {
            Some(number) => match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => number.parse().ok(),
            }
            .and_then(char::from_u32),
            None => html_entity(reference),
        });
        match (reference, character) {
            (Some(reference), Some(character)) => {
                decoded.push(character);
                rest = &candidate[reference.len() + 1..];
            }
            _ => {
                decoded.push('&');
                rest = candidate;
            }
        }
    }
    decoded.push_str(rest);
    std::borrow::Cow::Owned(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_references_left_in_text_are_decoded() {
        assert_eq!(decode_leftover_entities("was 95&percnt; of control"), "was 95% of control");
        assert_eq!(decode_leftover_entities("Tween&reg; 80, 5&#37; and 6&#x25;"), "Tween® 80, 5% and 6%");
        assert_eq!(decode_leftover_entities("IL-1&beta; &le; 2"), "IL-1β ≤ 2");
        for kept in ["AT&T", "R&D; costs", "&unknown; name", "a & b", "&#xZZ;", "&;", "trailing &"] {
            assert_eq!(decode_leftover_entities(kept), kept);
        }
        assert!(matches!(decode_leftover_entities("no references"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn dois_normalize() {
        assert_eq!(normalize_doi(" https://doi.org/10.1101/2020.09.09.20191205 ").as_deref(), Some("10.1101/2020.09.09.20191205"));
        assert_eq!(normalize_doi("doi:10.1038/NATURE12373").as_deref(), Some("10.1038/nature12373"));
        assert_eq!(normalize_doi("NA"), None);
        assert_eq!(normalize_doi("10.1000"), None);
    }

    #[test]
    fn arxiv_ids_lose_their_version() {
        assert_eq!(normalize_arxiv_id("http://arxiv.org/abs/1605.08386v2"), Some(("1605.08386".into(), Some(2))));
        assert_eq!(normalize_arxiv_id("arXiv:1707.08567"), Some(("1707.08567".into(), None)));
        assert_eq!(normalize_arxiv_id("astro-ph/0601001v1"), Some(("astro-ph/0601001".into(), Some(1))));
        assert_eq!(normalize_arxiv_id("not an id"), None);
    }

    #[test]
    fn structured_abstracts_keep_labels_in_text() {
        let mut paper = Paper::new(Source::Pubmed, "T");
        paper.abstract_sections =
            vec![AbstractSection { label: Some("BACKGROUND".into()), text: "Why.".into() }, AbstractSection { label: None, text: "More.".into() }];
        assert_eq!(paper.abstract_text(), "BACKGROUND: Why.\n\nMore.");
        assert_eq!(Author::person(Some("Ada"), "Lovelace").name, "Ada Lovelace");
    }
}
