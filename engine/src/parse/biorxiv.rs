//! Parser for the bioRxiv/medRxiv `details` API (`api.biorxiv.org`, shared by both servers): one
//! page of a date window (`details/{server}/{from}/{to}/{cursor}`) or every version of one preprint
//! (`details/{server}/{doi}/na/json`).
//!
//! The body is `{"messages":[{…}],"collection":[{…}]}`. `messages[0]` carries the paging numbers
//! for a window (`cursor` and `count` as numbers, `total` as a string) and only `status` and
//! `category` for a DOI lookup. Each collection item is one *version* of one preprint.
//!
//! Guarantees:
//! - one `Paper` per DOI on the page: the versions of a preprint collapse into one paper with the
//!   highest version's text, that version's date as `entered` and the earliest date seen as
//!   `published`;
//! - the paging numbers are reported as `messages` states them, not derived from the collection
//!   (a page may hold fewer items than `count` says); [`next_cursor`] pages by them;
//! - an item without a DOI or a title becomes a [`ParseWarning`]; the rest of the page survives;
//! - a body that is not a details response at all is a [`DetailsError`].

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::dedup::fold_text;
use crate::paper::{collapse_whitespace, normalize_doi, AbstractSection, Author, Link, LinkKind, Paper, ParseWarning, Parsed, Source};

/// The DOI prefixes bioRxiv and medRxiv register their preprints under: `10.1101/` (Cold Spring
/// Harbor Laboratory's, which its journals use too) and `10.64898/` (newer preprints).
pub const PREPRINT_DOI_PREFIXES: [&str; 2] = ["10.1101/", "10.64898/"];

/// Whether `doi` (normalized) has a prefix bioRxiv and medRxiv use: it may be a preprint of
/// theirs, and they are the ones to ask first.
pub fn is_preprint_server_doi(doi: &str) -> bool {
    PREPRINT_DOI_PREFIXES.iter().any(|prefix| doi.starts_with(prefix))
}

/// One answer of the `details` endpoint: its paging numbers and the papers on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DetailsPage {
    /// Offset of this page in the window (0 for a DOI lookup).
    pub cursor: u64,
    /// Version records on this page, as `messages[0].count` says (the collection length for a DOI
    /// lookup, whose messages have no count).
    pub count: u64,
    /// Version records in the whole window, as `messages[0].total` says (`count` for a DOI lookup).
    pub total: u64,
    pub papers: Parsed<Paper>,
}

/// Why a body could not be read as a `details` page at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetailsError {
    /// Not JSON, or JSON without the `messages`/`collection` shape, or unreadable paging numbers.
    #[error("malformed bioRxiv/medRxiv details response: {0}")]
    Malformed(String),
    /// The API answered with an error status (e.g. a badly formed date) and no papers.
    #[error("bioRxiv/medRxiv API refused the request: {status}")]
    Refused { status: String },
    /// `parse_details` was asked to read a source that does not use this API.
    #[error("{0} does not serve the bioRxiv/medRxiv details API")]
    NotAPreprintServer(Source),
}

/// Reads one `details` response. `server` is the server that was asked (`Source::Biorxiv` or
/// `Source::Medrxiv`); an item whose own `server` field names the other one is trusted.
pub fn parse_details(json: &str, server: Source) -> Result<DetailsPage, DetailsError> {
    if !matches!(server, Source::Biorxiv | Source::Medrxiv) {
        return Err(DetailsError::NotAPreprintServer(server));
    }
    let body: Value = serde_json::from_str(json).map_err(|error| DetailsError::Malformed(error.to_string()))?;
    let Some(body) = body.as_object() else {
        return Err(DetailsError::Malformed("the body is not a JSON object".into()));
    };
    let message = first_message(body)?;
    let collection = collection(body)?;

    let status = message.and_then(|message| message.get("status")).and_then(Value::as_str).unwrap_or("ok").trim();
    if !status.eq_ignore_ascii_case("ok") && collection.is_empty() && is_error_status(status) {
        return Err(DetailsError::Refused { status: status.to_owned() });
    }

    let item_count = collection.len() as u64;
    let cursor = message_number(message, "cursor")?.unwrap_or(0);
    let count = message_number(message, "count")?.unwrap_or(item_count);
    let total = message_number(message, "total")?.unwrap_or(cursor + count);

    let mut versions = Vec::new();
    let mut warnings = Vec::new();
    for (position, item) in collection.iter().enumerate() {
        match parse_item(item, position, server) {
            Ok(version) => versions.push(version),
            Err(warning) => warnings.push(warning),
        }
    }
    let papers = Parsed { items: collapse_versions(versions), warnings };
    Ok(DetailsPage { cursor, count, total, papers })
}

/// The cursor of the page after `page`, or `None` when `page` was the last of its window.
///
/// Pages by what the API said (`cursor + count` while below `total`), never by a fixed page
/// size: the API has served 100 and 30 records per page at different times.
pub fn next_cursor(page: &DetailsPage) -> Option<u64> {
    let next = page.cursor.checked_add(page.count)?;
    (page.count > 0 && next < page.total).then_some(next)
}

/// One collection item: one version of one preprint, already turned into a paper.
struct ItemVersion {
    doi: String,
    version: Option<u32>,
    date: Option<NaiveDate>,
    position: usize,
    paper: Paper,
}

fn first_message(body: &Map<String, Value>) -> Result<Option<&Map<String, Value>>, DetailsError> {
    match body.get("messages") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(messages)) => match messages.first() {
            None => Ok(None),
            Some(Value::Object(message)) => Ok(Some(message)),
            Some(_) => Err(DetailsError::Malformed("messages[0] is not an object".into())),
        },
        Some(_) => Err(DetailsError::Malformed("`messages` is not an array".into())),
    }
}

fn collection(body: &Map<String, Value>) -> Result<&[Value], DetailsError> {
    match (body.get("collection"), body.contains_key("messages")) {
        (Some(Value::Array(items)), _) => Ok(items),
        (None | Some(Value::Null), true) => Ok(&[]),
        (None, false) => Err(DetailsError::Malformed("neither `messages` nor `collection` in the body".into())),
        (Some(_), _) => Err(DetailsError::Malformed("`collection` is not an array".into())),
    }
}

/// Statuses that say the request was wrong, as opposed to "no posts found" for an empty window.
fn is_error_status(status: &str) -> bool {
    let lowered = status.to_lowercase();
    ["error", "must be", "invalid", "incorrect", "not valid", "not allowed", "exception"].iter().any(|sign| lowered.contains(sign))
}

/// A paging number of `messages[0]`: a JSON number or a numeric string (the API sends both).
fn message_number(message: Option<&Map<String, Value>>, field: &str) -> Result<Option<u64>, DetailsError> {
    let Some(value) = message.and_then(|message| message.get(field)) else {
        return Ok(None);
    };
    match value {
        Value::Null => Ok(None),
        Value::Number(number) => {
            number.as_u64().map(Some).ok_or_else(|| DetailsError::Malformed(format!("messages[0].{field} is not a count: {number}")))
        }
        Value::String(text) if text.trim().is_empty() => Ok(None),
        Value::String(text) => {
            text.trim().parse::<u64>().map(Some).map_err(|_| DetailsError::Malformed(format!("messages[0].{field} is not a count: {text:?}")))
        }
        other => Err(DetailsError::Malformed(format!("messages[0].{field} is not a count: {other}"))),
    }
}

fn parse_item(item: &Value, position: usize, asked_server: Source) -> Result<ItemVersion, ParseWarning> {
    let position_label = format!("collection[{position}]");
    let Some(item) = item.as_object() else {
        return Err(ParseWarning { record: Some(position_label), message: "item is not a JSON object".into() });
    };
    let Some(doi) = text_field(item, "doi").as_deref().and_then(normalize_doi) else {
        let title = text_field(item, "title").map(|title| collapse_whitespace(&title)).unwrap_or_default();
        return Err(ParseWarning { record: Some(position_label), message: format!("item has no DOI (title: {title:?})") });
    };
    let title = clean_text(&text_field(item, "title").unwrap_or_default());
    if title.is_empty() {
        return Err(ParseWarning { record: Some(doi), message: "item has no title".into() });
    }

    let server = item_server(item, asked_server);
    let version = version_number(item.get("version"));
    let date = text_field(item, "date").and_then(|date| NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok());

    let mut paper = Paper::new(server, title);
    paper.ids.doi = Some(doi.clone());
    paper.ids.preprint_doi = Some(doi.clone());
    paper.ids.preprint_version = version;
    paper.ids.published_doi = text_field(item, "published").as_deref().and_then(normalize_doi);
    let abstract_text = clean_text(&text_field(item, "abstract").unwrap_or_default());
    if !abstract_text.is_empty() {
        paper.abstract_sections = vec![AbstractSection { label: None, text: abstract_text }];
    }
    paper.authors = parse_authors(
        &text_field(item, "authors").unwrap_or_default(),
        text_field(item, "author_corresponding").as_deref(),
        text_field(item, "author_corresponding_institution").as_deref(),
    );
    paper.categories = non_empty(text_field(item, "category")).into_iter().collect();
    paper.publication_types = non_empty(text_field(item, "type")).into_iter().collect();
    paper.published = date;
    paper.entered = date;
    paper.links = preprint_links(server, &doi, version);
    Ok(ItemVersion { doi, version, date, position, paper })
}

/// A string field, trimmed; `None` when absent, not a string, or "NA".
fn text_field(item: &Map<String, Value>, field: &str) -> Option<String> {
    let text = item.get(field)?.as_str()?.trim();
    (!text.is_empty() && text != "NA").then(|| text.to_owned())
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|text| collapse_whitespace(&text)).filter(|text| !text.is_empty())
}

fn version_number(value: Option<&Value>) -> Option<u32> {
    match value? {
        Value::Number(number) => number.as_u64().and_then(|number| u32::try_from(number).ok()),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// The item's own `server` ("bioRxiv", "medRxiv", sometimes lower-case) wins over the one asked.
fn item_server(item: &Map<String, Value>, asked_server: Source) -> Source {
    match text_field(item, "server").map(|server| server.to_lowercase()).as_deref() {
        Some("biorxiv") => Source::Biorxiv,
        Some("medrxiv") => Source::Medrxiv,
        _ => asked_server,
    }
}

fn preprint_links(server: Source, doi: &str, version: Option<u32>) -> Vec<Link> {
    let host = match server {
        Source::Medrxiv => "https://www.medrxiv.org",
        _ => "https://www.biorxiv.org",
    };
    let versioned = match version {
        Some(version) => format!("{doi}v{version}"),
        None => doi.to_owned(),
    };
    vec![
        Link { kind: LinkKind::Abstract, url: format!("{host}/content/{versioned}") },
        Link { kind: LinkKind::Pdf, url: format!("{host}/content/{versioned}.full.pdf") },
        Link { kind: LinkKind::Doi, url: format!("https://doi.org/{doi}") },
    ]
}

/// One paper per DOI, in the order the DOIs first appear on the page: the highest version (then
/// the latest date, then the later item) gives the text, ids, links and `entered`; `published`
/// is the earliest date among the versions.
fn collapse_versions(versions: Vec<ItemVersion>) -> Vec<Paper> {
    let mut order: Vec<String> = Vec::new();
    let mut by_doi: HashMap<String, Vec<ItemVersion>> = HashMap::new();
    for version in versions {
        if !by_doi.contains_key(&version.doi) {
            order.push(version.doi.clone());
        }
        by_doi.entry(version.doi.clone()).or_default().push(version);
    }
    order.iter().filter_map(|doi| by_doi.remove(doi)).filter_map(collapse_one_preprint).collect()
}

fn collapse_one_preprint(mut versions: Vec<ItemVersion>) -> Option<Paper> {
    versions.sort_by_key(|version| (version.version.unwrap_or(0), version.date, version.position));
    let earliest_date = versions.iter().filter_map(|version| version.date).min();
    let published_doi = versions.iter().rev().find_map(|version| version.paper.ids.published_doi.clone());
    let latest = versions.pop()?;
    let mut paper = latest.paper;
    paper.published = earliest_date;
    paper.entered = latest.date;
    paper.ids.published_doi = published_doi;
    Some(paper)
}

/// Authors from `"Family, G.; Family, G. H.; Consortium name"`, in order, empty pieces skipped.
/// The corresponding institution goes to the one author the corresponding name matches.
fn parse_authors(authors: &str, corresponding: Option<&str>, institution: Option<&str>) -> Vec<Author> {
    let mut parsed: Vec<Author> =
        authors.split(';').map(collapse_whitespace).filter(|piece| !piece.is_empty()).map(|piece| parse_author(&piece)).collect();
    let institution = institution.map(collapse_whitespace).filter(|institution| !institution.is_empty());
    if let (Some(corresponding), Some(institution)) = (corresponding, institution) {
        if let Some(index) = corresponding_author(&parsed, corresponding) {
            parsed[index].affiliations.push(institution);
        }
    }
    parsed
}

fn parse_author(piece: &str) -> Author {
    match piece.rsplit_once(',') {
        Some((family, given)) if !family.trim().is_empty() => Author::person(Some(given), family),
        Some((_, given)) => Author::person(None, given),
        None if looks_collective(piece) => Author::collective(piece),
        None => Author::person(None, piece),
    }
}

fn looks_collective(name: &str) -> bool {
    let lowered = name.to_lowercase();
    ["consortium", "group", "collaborat", "network", "investigators", "committee", "team", "initiative", "alliance"]
        .iter()
        .any(|word| lowered.contains(word))
}

/// Which author `corresponding` ("Stephen J Kent") names: the family name must end the
/// corresponding name and the first initials must agree; when several authors still fit (two
/// Kents with the same first initial), all initials must agree; still ambiguous means no match.
fn corresponding_author(authors: &[Author], corresponding: &str) -> Option<usize> {
    let name_words: Vec<String> = corresponding.split_whitespace().map(fold_text).filter(|word| !word.is_empty()).collect();
    let fits: Vec<(usize, bool)> = authors
        .iter()
        .enumerate()
        .filter_map(|(index, author)| {
            let family_words: Vec<String> = author.family.as_deref()?.split_whitespace().map(fold_text).filter(|word| !word.is_empty()).collect();
            if family_words.is_empty() || !name_words.ends_with(&family_words) {
                return None;
            }
            let name_initials = initials(&name_words[..name_words.len() - family_words.len()].join(" "));
            let author_initials = initials(author.given.as_deref().unwrap_or_default());
            let first_agrees = match (name_initials.first(), author_initials.first()) {
                (Some(name_initial), Some(author_initial)) => name_initial == author_initial,
                _ => true,
            };
            first_agrees.then_some((index, name_initials == author_initials))
        })
        .collect();
    match fits.as_slice() {
        [(index, _)] => Some(*index),
        _ => {
            let exact: Vec<usize> = fits.iter().filter(|(_, all_agree)| *all_agree).map(|(index, _)| *index).collect();
            (exact.len() == 1).then(|| exact[0])
        }
    }
}

/// First letters of the parts of a given name: "H.-X." and "Hong Xia" both give `['h', 'x']`.
fn initials(given: &str) -> Vec<char> {
    given.split(|c: char| c.is_whitespace() || c == '.' || c == '-').filter_map(|part| fold_text(part).chars().next()).collect()
}

/// Whitespace collapsed and the markers bioRxiv's JATS flattening leaves in text removed:
/// small caps (`GO_SCPLOWRAC_SCPLOWNPA` is "GRANPA"), figure blocks (`O_FIG … M_FIG caption C_FIG`),
/// list items (`O_LI … C_LI`, shown as bullets) and structured-abstract headings
/// (`O_ST_ABSBackgroundC_ST_ABS`).
fn clean_text(text: &str) -> String {
    let without_figures = remove_figure_blocks(text);
    let cleaned = without_figures
        .replace("O_SCPLOW", "")
        .replace("C_SCPLOW", "")
        .replace("C_LI", " ")
        .replace("O_LI", " • ")
        .replace("O_ST_ABS", " ")
        .replace("C_ST_ABS", ": ");
    collapse_whitespace(&crate::paper::decode_leftover_entities(&cleaned))
}

/// Drops each figure's image markup (`O_FIG` up to `M_FIG`, where the caption starts) and the
/// closing `C_FIG`; a figure without `M_FIG` loses everything up to its `C_FIG`.
fn remove_figure_blocks(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("O_FIG") {
        kept.push_str(&rest[..start]);
        kept.push(' ');
        let after_open = &rest[start + "O_FIG".len()..];
        let caption_start = after_open.find("M_FIG").map(|at| at + "M_FIG".len());
        let figure_end = after_open.find("C_FIG").map(|at| at + "C_FIG".len());
        let skip = match (caption_start, figure_end) {
            (Some(caption), Some(end)) if caption < end => caption,
            (_, Some(end)) => end,
            (Some(caption), None) => caption,
            (None, None) => 0,
        };
        rest = &after_open[skip..];
    }
    kept.push_str(rest);
    kept.replace("C_FIG", " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIORXIV_INTERVAL: &str = include_str!("../../fixtures/biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json");
    const MEDRXIV_INTERVAL: &str = include_str!("../../fixtures/medrxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json");
    const MEDRXIV_DOI_LOOKUP: &str = include_str!("../../fixtures/medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json");

    fn date(text: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
    }

    fn paper_with_doi<'a>(page: &'a DetailsPage, doi: &str) -> &'a Paper {
        page.papers.items.iter().find(|paper| paper.ids.doi.as_deref() == Some(doi)).expect("paper with that DOI")
    }

    fn affiliated_author_counts(page: &DetailsPage) -> Vec<usize> {
        let affiliated = |paper: &Paper| paper.authors.iter().filter(|author| !author.affiliations.is_empty()).count();
        page.papers.items.iter().map(affiliated).collect()
    }

    #[test]
    fn biorxiv_interval_page_reports_messages_and_parses_every_item() {
        let page = parse_details(BIORXIV_INTERVAL, Source::Biorxiv).expect("parses");
        assert_eq!((page.cursor, page.count, page.total), (0, 30, 873));
        assert_eq!(page.papers.items.len(), 10);
        assert!(page.papers.warnings.is_empty());
        assert_eq!(next_cursor(&page), Some(30));
        assert!(page.papers.items.iter().all(|paper| paper.sources == [Source::Biorxiv]));
        assert_eq!(affiliated_author_counts(&page), [1; 10], "each corresponding author is found");

        let revision = paper_with_doi(&page, "10.1101/2025.04.11.648403");
        assert_eq!(revision.ids.preprint_doi.as_deref(), Some("10.1101/2025.04.11.648403"));
        assert_eq!(revision.ids.preprint_version, Some(2));
        assert_eq!(revision.ids.published_doi, None);
        assert_eq!(revision.entered, date("2026-08-01"));
        assert_eq!(revision.categories, ["systems biology"]);
        assert_eq!(revision.publication_types, ["new results"]);
        assert_eq!(revision.links[0].url, "https://www.biorxiv.org/content/10.1101/2025.04.11.648403v2");
        assert_eq!(revision.links[1].url, "https://www.biorxiv.org/content/10.1101/2025.04.11.648403v2.full.pdf");
        assert_eq!(revision.links[2], Link { kind: LinkKind::Doi, url: "https://doi.org/10.1101/2025.04.11.648403".into() });

        let new_prefix = paper_with_doi(&page, "10.64898/2026.07.31.741971");
        assert_eq!(new_prefix.ids.preprint_version, Some(1));
        let authors: Vec<&str> = new_prefix.authors.iter().map(|author| author.name.as_str()).collect();
        assert_eq!(authors, ["C. Carrette", "F. Sabot", "C. Muller"]);
        assert_eq!(new_prefix.authors[1].family.as_deref(), Some("Sabot"));
        assert_eq!(new_prefix.authors[1].affiliations, ["IRD - French institute for Sustainable Development"]);
        assert!(new_prefix.authors[0].affiliations.is_empty());
        let abstract_text = new_prefix.abstract_text();
        assert!(abstract_text.contains("We introduce GRANPA, standing for"), "{abstract_text}");
        assert!(!abstract_text.contains("SCPLOW") && !abstract_text.contains('\n'));
    }

    #[test]
    fn medrxiv_interval_page_keeps_versions_and_odd_names() {
        let page = parse_details(MEDRXIV_INTERVAL, Source::Medrxiv).expect("parses");
        assert_eq!((page.cursor, page.count, page.total), (0, 30, 246));
        assert_eq!(page.papers.items.len(), 10);
        assert!(page.papers.warnings.is_empty());
        assert_eq!(next_cursor(&page), Some(30));
        assert_eq!(affiliated_author_counts(&page), [1; 10], "each corresponding author is found");

        let third_version = paper_with_doi(&page, "10.64898/2025.12.05.25341712");
        assert_eq!(third_version.ids.preprint_version, Some(3));
        assert_eq!(third_version.sources, [Source::Medrxiv]);
        assert_eq!(third_version.publication_types, ["PUBLISHAHEADOFPRINT"]);
        assert_eq!(third_version.links[0].url, "https://www.medrxiv.org/content/10.64898/2025.12.05.25341712v3");

        let many_particles = paper_with_doi(&page, "10.64898/2026.07.30.26359325");
        let families: Vec<&str> = many_particles.authors.iter().filter_map(|author| author.family.as_deref()).collect();
        assert_eq!(families[0], "van Wijk");
        assert_eq!(families.len(), 13);
        assert_eq!(many_particles.authors[12].affiliations, ["University Medical Center Groningen"]);

        let spaced_initials = paper_with_doi(&page, "10.1101/2025.11.18.25340542");
        assert_eq!(spaced_initials.authors[4].family.as_deref(), Some("Srinivas K"));
        assert_eq!(spaced_initials.authors[4].given.as_deref(), Some("R."));
    }

    #[test]
    fn doi_lookup_collapses_two_versions_and_keeps_the_journal_doi() {
        let page = parse_details(MEDRXIV_DOI_LOOKUP, Source::Medrxiv).expect("parses");
        assert_eq!((page.cursor, page.count, page.total), (0, 2, 2));
        assert_eq!(next_cursor(&page), None);
        assert_eq!(page.papers.items.len(), 1);
        let paper = &page.papers.items[0];
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1101/2020.09.09.20191205"));
        assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2020.09.09.20191205"));
        assert_eq!(paper.ids.preprint_version, Some(2));
        assert_eq!(paper.ids.published_doi.as_deref(), Some("10.1038/s41467-021-21444-5"));
        assert_eq!(paper.published, date("2020-09-10"));
        assert_eq!(paper.entered, date("2020-09-11"));
        assert!(paper.is_peer_reviewed());
        assert_eq!(paper.authors.len(), 22);
        let affiliated: Vec<&str> =
            paper.authors.iter().filter(|author| !author.affiliations.is_empty()).map(|author| author.name.as_str()).collect();
        assert_eq!(affiliated, ["S. J. Kent"], "Kent, H. E. is not the corresponding Stephen J Kent");
        assert_eq!(paper.links[0].url, "https://www.medrxiv.org/content/10.1101/2020.09.09.20191205v2");
    }

    #[test]
    fn doi_lookup_snapshot() {
        let page = parse_details(MEDRXIV_DOI_LOOKUP, Source::Medrxiv).expect("parses");
        insta::assert_json_snapshot!("medrxiv_doi_lookup", page);
    }

    #[test]
    fn interval_snapshots_of_the_first_three_papers() {
        let biorxiv = parse_details(BIORXIV_INTERVAL, Source::Biorxiv).expect("parses");
        insta::assert_json_snapshot!("biorxiv_interval_first_three", &biorxiv.papers.items[..3]);
        let medrxiv = parse_details(MEDRXIV_INTERVAL, Source::Medrxiv).expect("parses");
        insta::assert_json_snapshot!("medrxiv_interval_first_three", &medrxiv.papers.items[..3]);
    }

    #[test]
    fn versions_within_a_window_page_collapse_to_the_highest() {
        let json = r#"{"messages":[{"status":"ok","cursor":0,"count":3,"total":"3"}],"collection":[
            {"doi":"10.1101/2024.01.01.000001","title":"Second   version title","version":"2","date":"2024-01-05","authors":"Doe, J.","published":"NA","server":"bioRxiv"},
            {"doi":"10.1101/2024.01.01.000002","title":"Other","version":"1","date":"2024-01-03","authors":"Roe, R.","published":"NA","server":"bioRxiv"},
            {"doi":"10.1101/2024.01.01.000001","title":"First version title","version":"1","date":"2024-01-01","authors":"Doe, J.","published":"NA","server":"bioRxiv"}
        ]}"#;
        let page = parse_details(json, Source::Biorxiv).expect("parses");
        assert_eq!(page.papers.items.len(), 2);
        let collapsed = &page.papers.items[0];
        assert_eq!(collapsed.title, "Second version title");
        assert_eq!(collapsed.ids.preprint_version, Some(2));
        assert_eq!(collapsed.published, date("2024-01-01"));
        assert_eq!(collapsed.entered, date("2024-01-05"));
        assert_eq!(next_cursor(&page), None);
    }

    #[test]
    fn item_server_field_wins_over_the_server_asked() {
        let json = r#"{"messages":[{"status":"ok"}],"collection":[
            {"doi":"10.1101/2024.01.01.24300001","title":"A medRxiv preprint","version":"1","date":"2024-01-02","server":"medrxiv"}]}"#;
        let page = parse_details(json, Source::Biorxiv).expect("parses");
        let paper = &page.papers.items[0];
        assert_eq!(paper.sources, [Source::Medrxiv]);
        assert!(paper.links[0].url.starts_with("https://www.medrxiv.org/content/"));
    }

    #[test]
    fn an_item_without_doi_or_title_is_a_warning_and_the_rest_survive() {
        let json = r#"{"messages":[{"status":"ok","cursor":0,"count":4,"total":"4"}],"collection":[
            {"doi":"","title":"No DOI here","version":"1","date":"2024-01-01"},
            {"doi":"10.1101/2024.01.01.000003","title":"  ","version":"1","date":"2024-01-01"},
            "not an object",
            {"doi":"10.1101/2024.01.01.000004","title":"Kept","version":"1","date":"2024-01-01","authors":"; Doe, J.;;"}
        ]}"#;
        let page = parse_details(json, Source::Biorxiv).expect("parses");
        assert_eq!(page.papers.items.len(), 1);
        assert_eq!(page.papers.items[0].title, "Kept");
        assert_eq!(page.papers.items[0].authors.len(), 1);
        let records: Vec<Option<&str>> = page.papers.warnings.iter().map(|warning| warning.record.as_deref()).collect();
        assert_eq!(records, [Some("collection[0]"), Some("10.1101/2024.01.01.000003"), Some("collection[2]")]);
        assert!(page.papers.warnings[0].message.contains("no DOI"));
    }

    #[test]
    fn garbage_is_malformed() {
        for body in ["", "<html>502 Bad Gateway</html>", "[1,2]", "{}", r#"{"collection":"x"}"#, r#"{"messages":[{"total":"many"}],"collection":[]}"#]
        {
            let result = parse_details(body, Source::Biorxiv);
            assert!(matches!(result, Err(DetailsError::Malformed(_))), "{body:?} gave {result:?}");
        }
    }

    #[test]
    fn no_posts_found_is_an_empty_page_but_an_error_status_is_refused() {
        let empty =
            parse_details(r#"{"messages":[{"status":"no posts found"}],"collection":[]}"#, Source::Medrxiv).expect("an empty window is not an error");
        assert!(empty.papers.items.is_empty() && empty.papers.warnings.is_empty());
        assert_eq!(next_cursor(&empty), None);

        let refused = parse_details(r#"{"messages":[{"status":"Both dates must be in yyyy-mm-dd format"}],"collection":[]}"#, Source::Biorxiv);
        assert_eq!(refused, Err(DetailsError::Refused { status: "Both dates must be in yyyy-mm-dd format".into() }));
        assert_eq!(parse_details("{}", Source::Pubmed), Err(DetailsError::NotAPreprintServer(Source::Pubmed)));
    }

    #[test]
    fn next_cursor_pages_by_what_the_messages_say() {
        let page = |cursor, count, total| DetailsPage { cursor, count, total, papers: Parsed { items: Vec::new(), warnings: Vec::new() } };
        assert_eq!(next_cursor(&page(0, 30, 873)), Some(30));
        assert_eq!(next_cursor(&page(840, 30, 873)), Some(870));
        assert_eq!(next_cursor(&page(870, 3, 873)), None);
        assert_eq!(next_cursor(&page(0, 0, 873)), None, "an empty page ends the loop");
        let cursor_as_string = r#"{"messages":[{"status":"ok","cursor":"100","count":"100","total":"250"}],"collection":[]}"#;
        let parsed = parse_details(cursor_as_string, Source::Biorxiv).expect("numbers as strings are read");
        assert_eq!(next_cursor(&parsed), Some(200));
    }

    #[test]
    fn jats_flattening_markers_are_removed() {
        assert_eq!(clean_text("GO_SCPLOWRAC_SCPLOWNPA works"), "GRANPA works");
        assert_eq!(clean_text("HIGHLIGHTSO_LIOne point\nC_LIO_LIDirect second\nC_LI"), "HIGHLIGHTS • One point • Direct second");
        assert_eq!(clean_text("O_ST_ABSBackgroundC_ST_ABSWhy we did it."), "Background: Why we did it.");
        assert_eq!(
            clean_text("Done.\n\nO_FIG O_LINKSMALLFIG WIDTH=200 SRC=\"x.gif\">\nView larger_HPS_FORMAT_FIGEXP  M_FIG Overview C_FIG Tail"),
            "Done. Overview Tail"
        );
        assert_eq!(clean_text("Broken O_FIG junk"), "Broken junk");
    }

    #[test]
    fn author_strings_split_into_people_and_collectives() {
        let authors =
            parse_authors("Tan, H.-X.; COVID-19 Genomics UK Consortium; Smith, Jr., J.; Plato", Some("Hong Xia Tan"), Some("Doherty Institute"));
        assert_eq!(authors[0].name, "H.-X. Tan");
        assert_eq!(authors[0].affiliations, ["Doherty Institute"]);
        assert!(authors[1].is_collective);
        assert_eq!(authors[2].family.as_deref(), Some("Smith, Jr."));
        assert_eq!(authors[3].family.as_deref(), Some("Plato"));
        assert_eq!(authors[3].given, None);
        let ambiguous = parse_authors("Kent, S.; Kent, S.", Some("S Kent"), Some("Somewhere"));
        assert!(ambiguous.iter().all(|author| author.affiliations.is_empty()));
    }
}
