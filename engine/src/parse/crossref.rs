//! Parser for what Crossref's REST API answers about one work (`GET /works/{doi}`): the envelope
//! `{"status":"ok","message-type":"work","message":{…}}` whose `message` is the work's metadata
//! as its publisher deposited it.
//!
//! Crossref is not one of Papertide's sources: nothing is harvested from it. It is asked for a
//! DOI a researcher names as a seed when neither the index nor bioRxiv/medRxiv has it, so that
//! journal articles outside PubMed can be seeds too.
//!
//! How a work becomes a [`Paper`]:
//! - **Sources.** [`Source`] names the four services Papertide harvests and that users choose
//!   among. A work Crossref holds as `posted-content` under a bioRxiv/medRxiv DOI prefix
//!   ([`is_preprint_server_doi`]) *is* a preprint of that server, deposited there by it: its
//!   source is `Biorxiv`, or `Medrxiv` when `institution[0].name` says medRxiv, with the DOI as
//!   `preprint_doi` and `relation.is-preprint-of` as `published_doi`. Any other work gets **no
//!   source** ([`Paper::unsourced`]): calling it `Pubmed` would claim PubMed reported it (and
//!   give it PubMed's weight in ranking and its name in digests), and a `Crossref` variant would
//!   make Crossref a source users pick, the harvest run and every `match` on `Source` handle,
//!   for records that only serve as seeds. A source filter therefore never selects such a paper;
//!   when PubMed or a preprint server reports the same work later, the index merges the two and
//!   the paper has that source.
//! - `DOI` (normalized) → `ids.doi`; `title[0]` → `title`; `container-title[0]` → `journal`;
//!   `subject` (and a preprint's `group-title`) → `categories`; `type` → `publication_types`,
//!   as Crossref names it (`journal-article`, `posted-content`, …). A notice whose `update-to`
//!   names a retraction or withdrawal is a retraction, one naming a correction an erratum.
//! - Titles, names, affiliations and journals are text with markup: HTML or JATS tags
//!   (`<i>`, `<jats:italic>`, MathML) are removed keeping their text, character references
//!   (`&amp;`, `&#x2009;`) decoded and whitespace collapsed.
//! - `abstract` is a JATS snippet: each `<jats:sec>` becomes one section labelled by its
//!   `<jats:title>`; paragraphs outside sections become one unlabelled section each; a leading
//!   heading "Abstract" (or "Summary") is dropped; tags are removed and references decoded as
//!   above. A plain-text abstract is one section.
//! - `published` is the earliest of `issued`, `published`, `published-print`,
//!   `published-online` and `posted` (partial dates are the first day of their month or year);
//!   `entered` is the day of `created.date-time` (UTC), when the DOI was registered.
//! - Authors: `given`/`family` make a person; `name` alone an organization (a collective);
//!   `affiliation[].name` their affiliations.
//! - Links: the DOI resolver; the landing page (`resource.primary.URL`, else a `URL` that is
//!   not a DOI link); a `link` whose `content-type` is `application/pdf`.
//!
//! A body that is not such an envelope is a [`CrossrefError::Malformed`], an envelope whose
//! `status` is not `ok` a [`CrossrefError::Failed`], and a work without a DOI or a title a
//! [`CrossrefError::Unusable`]. A DOI Crossref does not hold is an HTTP 404 with the text
//! "Resource not found.", which never reaches this parser.

use chrono::NaiveDate;
use serde_json::{Map, Value};

use super::biorxiv::is_preprint_server_doi;
use super::pubmed::percent_encode_doi;
use crate::paper::{collapse_whitespace, decode_leftover_entities, normalize_doi, AbstractSection, Author, Link, LinkKind, Paper, Source};

/// Why a Crossref answer could not be read as a work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrossrefError {
    /// Not JSON, or JSON without the `message` of a work.
    #[error("malformed Crossref response: {0}")]
    Malformed(String),
    /// Crossref answered with a `status` other than `ok`, and why.
    #[error("Crossref reported an error: {0}")]
    Failed(String),
    /// The work has no DOI or no title: nothing Papertide can keep.
    #[error("Crossref's record {record} cannot be used: {why}")]
    Unusable { record: String, why: String },
}

/// Reads one `works/{doi}` answer into a paper (see the module documentation).
pub fn parse_work(json: &str) -> Result<Paper, CrossrefError> {
    let body: Value = serde_json::from_str(json).map_err(|error| CrossrefError::Malformed(format!("not JSON: {error}")))?;
    let Some(body) = body.as_object() else {
        return Err(CrossrefError::Malformed("the body is not a JSON object".into()));
    };
    if let Some(failure) = failure_message(body) {
        return Err(CrossrefError::Failed(failure));
    }
    match body.get("message-type").and_then(Value::as_str) {
        None | Some("work") => {}
        Some(other) => return Err(CrossrefError::Malformed(format!("expected a work, got a {other:?} message"))),
    }
    let Some(work) = body.get("message").and_then(Value::as_object) else {
        return Err(CrossrefError::Malformed("no `message` object".into()));
    };
    parse_message(work)
}

/// Crossref's own explanation in an error answer (`{"status":"failed","message":[{"message":…}]}`
/// for a request it refuses), when the body is one.
pub fn explain_error(body: &str) -> Option<String> {
    let body: Value = serde_json::from_str(body).ok()?;
    failure_message(body.as_object()?)
}

/// The message of an envelope whose `status` is not `ok`.
fn failure_message(body: &Map<String, Value>) -> Option<String> {
    let status = body.get("status")?.as_str()?.trim();
    if status.eq_ignore_ascii_case("ok") {
        return None;
    }
    let explained = match body.get("message") {
        Some(Value::String(message)) => collapse_whitespace(message),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.get("message").and_then(Value::as_str).or_else(|| item.as_str()))
            .map(collapse_whitespace)
            .filter(|message| !message.is_empty())
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::new(),
    };
    Some(if explained.is_empty() { format!("status {status:?}") } else { explained })
}

fn parse_message(work: &Map<String, Value>) -> Result<Paper, CrossrefError> {
    let Some(doi) = string(work, "DOI").as_deref().and_then(normalize_doi) else {
        return Err(CrossrefError::Unusable { record: "(no DOI)".into(), why: "the work has no DOI".into() });
    };
    let title = first_string(work, "title").map(|title| clean_text(&title)).unwrap_or_default();
    if title.is_empty() {
        return Err(CrossrefError::Unusable { record: doi, why: "the work has no title".into() });
    }
    let kind = string(work, "type").map(|kind| collapse_whitespace(&kind)).filter(|kind| !kind.is_empty());
    let server = kind.as_deref().and_then(|kind| preprint_server(work, kind, &doi));

    let mut paper = match server {
        Some(server) => Paper::new(server, title),
        None => Paper::unsourced(title),
    };
    paper.ids.doi = Some(doi.clone());
    if server.is_some() {
        paper.ids.preprint_doi = Some(doi.clone());
        paper.ids.published_doi = preprint_of(work);
    }
    paper.abstract_sections = string(work, "abstract").map(|markup| abstract_sections(&markup)).unwrap_or_default();
    paper.authors = authors(work);
    paper.journal = first_string(work, "container-title").map(|journal| clean_text(&journal)).filter(|journal| !journal.is_empty());
    paper.publication_types = kind.into_iter().collect();
    paper.categories = categories(work, server.is_some());
    (paper.is_retraction, paper.is_erratum) = notices(work);
    paper.published =
        ["issued", "published", "published-print", "published-online", "posted"].iter().filter_map(|field| date_parts(work.get(*field))).min();
    paper.entered = created(work).or(paper.published);
    paper.links = links(work, &doi);
    Ok(paper)
}

/// The preprint server a `posted-content` work under a bioRxiv/medRxiv DOI prefix comes from.
fn preprint_server(work: &Map<String, Value>, kind: &str, doi: &str) -> Option<Source> {
    if kind != "posted-content" || !is_preprint_server_doi(doi) {
        return None;
    }
    let institution = work.get("institution").and_then(Value::as_array).and_then(|names| names.first()).and_then(|first| first.get("name"));
    let is_medrxiv = institution.and_then(Value::as_str).is_some_and(|name| name.trim().eq_ignore_ascii_case("medrxiv"));
    Some(if is_medrxiv { Source::Medrxiv } else { Source::Biorxiv })
}

/// The journal DOI a preprint says it became (`relation.is-preprint-of`, the first DOI).
fn preprint_of(work: &Map<String, Value>) -> Option<String> {
    let related = work.get("relation")?.get("is-preprint-of")?.as_array()?;
    related
        .iter()
        .filter(|item| item.get("id-type").and_then(Value::as_str).is_some_and(|kind| kind.eq_ignore_ascii_case("doi")))
        .find_map(|item| item.get("id").and_then(Value::as_str).and_then(normalize_doi))
}

fn authors(work: &Map<String, Value>) -> Vec<Author> {
    let Some(people) = work.get("author").and_then(Value::as_array) else {
        return Vec::new();
    };
    people
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|person| {
            let part = |field: &str| string(person, field).map(|text| clean_text(&text)).filter(|text| !text.is_empty());
            let mut author = match (part("given"), part("family"), part("name")) {
                (given, Some(family), _) => Author::person(given.as_deref(), &family),
                (_, None, Some(name)) => Author::collective(&name),
                (Some(given), None, None) => Author::person(None, &given),
                (None, None, None) => return None,
            };
            author.affiliations = person
                .get("affiliation")
                .and_then(Value::as_array)
                .map(|affiliations| {
                    affiliations
                        .iter()
                        .filter_map(|affiliation| affiliation.get("name").and_then(Value::as_str))
                        .map(clean_text)
                        .filter(|name| !name.is_empty())
                        .collect()
                })
                .unwrap_or_default();
            Some(author)
        })
        .collect()
}

/// `subject`, and for a preprint its `group-title` (the server's subject area), without repeats.
fn categories(work: &Map<String, Value>, is_preprint: bool) -> Vec<String> {
    let subjects = work.get("subject").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_owned);
    let group = if is_preprint { string(work, "group-title") } else { None };
    let mut categories: Vec<String> = Vec::new();
    for category in subjects.chain(group).map(|text| clean_text(&text)) {
        if !category.is_empty() && !categories.contains(&category) {
            categories.push(category);
        }
    }
    categories
}

/// Whether the work is a retraction notice, and whether a correction notice, by the updates it
/// announces (`update-to[].type`).
fn notices(work: &Map<String, Value>) -> (bool, bool) {
    let kinds: Vec<String> = work
        .get("update-to")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|update| update.get("type").and_then(Value::as_str))
        .map(|kind| kind.trim().to_lowercase())
        .collect();
    let any = |wanted: &[&str]| kinds.iter().any(|kind| wanted.contains(&kind.as_str()));
    (any(&["retraction", "withdrawal", "removal"]), any(&["correction", "erratum", "corrigendum"]))
}

/// A Crossref date's `date-parts` (`[[2021, 6, 14]]`, `[[2019, 3]]`, `[[2019]]`): a missing or
/// impossible month or day is the first of the year or month; no year (`[[null]]`) is none.
fn date_parts(value: Option<&Value>) -> Option<NaiveDate> {
    let parts = value?.get("date-parts")?.as_array()?.first()?.as_array()?;
    let number = |index: usize| -> Option<u32> {
        match parts.get(index)? {
            Value::Number(number) => number.as_u64().and_then(|number| u32::try_from(number).ok()),
            Value::String(text) => text.trim().parse().ok(),
            _ => None,
        }
    };
    let year = i32::try_from(number(0)?).ok()?;
    let month = number(1).filter(|month| (1..=12).contains(month));
    let day = month.and(number(2));
    let month = month.unwrap_or(1);
    day.and_then(|day| NaiveDate::from_ymd_opt(year, month, day)).or_else(|| NaiveDate::from_ymd_opt(year, month, 1))
}

/// The day the DOI was registered: `created.date-time` (an ISO 8601 instant in UTC), else
/// `created.date-parts`.
fn created(work: &Map<String, Value>) -> Option<NaiveDate> {
    let created = work.get("created")?;
    let from_instant = created.get("date-time").and_then(Value::as_str).and_then(|instant| instant.get(..10)).and_then(|day| day.parse().ok());
    from_instant.or_else(|| date_parts(Some(created)))
}

fn links(work: &Map<String, Value>, doi: &str) -> Vec<Link> {
    let is_web = |url: &&str| url.starts_with("https://") || url.starts_with("http://");
    let is_doi_link = |url: &&str| normalize_doi(url).is_some();
    let landing_page = work
        .get("resource")
        .and_then(|resource| resource.get("primary"))
        .and_then(|primary| primary.get("URL"))
        .and_then(Value::as_str)
        .or_else(|| work.get("URL").and_then(Value::as_str).filter(|url| !is_doi_link(url)))
        .map(str::trim)
        .filter(is_web);
    let pdf = work.get("link").and_then(Value::as_array).into_iter().flatten().find_map(|link| {
        let is_pdf = link.get("content-type").and_then(Value::as_str).is_some_and(|kind| kind.eq_ignore_ascii_case("application/pdf"));
        link.get("URL").and_then(Value::as_str).map(str::trim).filter(|url| is_pdf && is_web(url))
    });
    let mut links = vec![Link { kind: LinkKind::Doi, url: format!("https://doi.org/{}", percent_encode_doi(doi)) }];
    links.extend(landing_page.map(|url| Link { kind: LinkKind::Abstract, url: url.to_owned() }));
    links.extend(pdf.map(|url| Link { kind: LinkKind::Pdf, url: url.to_owned() }));
    links
}

fn string(object: &Map<String, Value>, field: &str) -> Option<String> {
    object.get(field)?.as_str().map(str::to_owned)
}

/// The first non-blank string of an array field (`title`, `container-title`).
fn first_string(object: &Map<String, Value>, field: &str) -> Option<String> {
    object.get(field)?.as_array()?.iter().filter_map(Value::as_str).find(|text| !text.trim().is_empty()).map(str::to_owned)
}

/// Text with its markup: tags removed (keeping their text), references decoded, whitespace
/// collapsed.
fn clean_text(markup: &str) -> String {
    let text: String = pieces(markup).into_iter().filter_map(|piece| if let Piece::Text(text) = piece { Some(text) } else { None }).collect();
    collapse_whitespace(&decode_leftover_entities(&text))
}

/// One part of a markup snippet: text as written (references not yet decoded), or a tag.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    /// A tag's local name (without namespace prefix, lower-case) and whether it closes.
    Tag {
        name: String,
        closing: bool,
    },
}

/// Splits a snippet into text and tags. A `<` that does not start a tag (`p < 0.05` written
/// unescaped) is text.
fn pieces(markup: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = markup;
    while let Some(at) = rest.find('<') {
        let after = &rest[at + 1..];
        let starts_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?');
        let Some(end) = after.find('>').filter(|_| starts_tag) else {
            pieces.push(Piece::Text(&rest[..at + 1]));
            rest = after;
            continue;
        };
        if at > 0 {
            pieces.push(Piece::Text(&rest[..at]));
        }
        let inside = &after[..end];
        let closing = inside.starts_with('/');
        let name = inside.trim_start_matches('/').split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or_default();
        let local = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
        pieces.push(Piece::Tag { name: local, closing });
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    pieces
}

/// What a JATS abstract is made of, in order.
#[derive(Debug)]
enum Block {
    SectionStart,
    SectionEnd,
    Title(String),
    Text(String),
}

/// Elements that end the text before them: a paragraph, a section, a list item.
const BLOCK_ELEMENTS: [&str; 9] = ["p", "sec", "title", "list", "list-item", "def-list", "disp-quote", "boxed-text", "br"];

/// The abstract's sections (see the module documentation).
fn abstract_sections(markup: &str) -> Vec<AbstractSection> {
    let mut blocks = Vec::new();
    let mut text = String::new();
    let mut in_title = false;
    let flush = |text: &mut String, in_title: bool, blocks: &mut Vec<Block>| {
        let cleaned = collapse_whitespace(&decode_leftover_entities(text));
        text.clear();
        if !cleaned.is_empty() {
            blocks.push(if in_title { Block::Title(cleaned) } else { Block::Text(cleaned) });
        }
    };
    for piece in pieces(markup) {
        match piece {
            Piece::Text(part) => text.push_str(part),
            Piece::Tag { name, closing } if BLOCK_ELEMENTS.contains(&name.as_str()) => {
                flush(&mut text, in_title, &mut blocks);
                match (name.as_str(), closing) {
                    ("title", opening_or_closing) => in_title = !opening_or_closing,
                    ("sec", false) => blocks.push(Block::SectionStart),
                    ("sec", true) => blocks.push(Block::SectionEnd),
                    _ => {}
                }
            }
            Piece::Tag { .. } => {}
        }
    }
    flush(&mut text, in_title, &mut blocks);
    assemble_sections(blocks)
}

/// Sections from the blocks: a section's title labels its text; a title outside sections labels
/// what follows it, unless it is the abstract's own heading; unlabelled paragraphs outside
/// sections stay apart.
fn assemble_sections(blocks: Vec<Block>) -> Vec<AbstractSection> {
    let mut sections: Vec<AbstractSection> = Vec::new();
    let mut current: Option<AbstractSection> = None;
    let mut depth = 0usize;
    let close = |current: &mut Option<AbstractSection>, sections: &mut Vec<AbstractSection>| {
        if let Some(section) = current.take().filter(|section| !section.text.is_empty()) {
            sections.push(section);
        }
    };
    for block in blocks {
        match block {
            Block::SectionStart => {
                close(&mut current, &mut sections);
                depth += 1;
            }
            Block::SectionEnd => {
                close(&mut current, &mut sections);
                depth = depth.saturating_sub(1);
            }
            Block::Title(title) if depth == 0 && is_abstract_heading(&title) => {}
            Block::Title(title) => {
                close(&mut current, &mut sections);
                current = Some(AbstractSection { label: Some(label(&title)), text: String::new() });
            }
            Block::Text(text) => match current.as_mut() {
                Some(section) if section.text.is_empty() => section.text = text,
                Some(section) if section.label.is_some() || depth > 0 => {
                    section.text.push(' ');
                    section.text.push_str(&text);
                }
                _ => {
                    close(&mut current, &mut sections);
                    current = Some(AbstractSection { label: None, text });
                }
            },
        }
    }
    close(&mut current, &mut sections);
    sections
}

/// "Abstract", "Summary" (any case, with a trailing colon or period): the heading of the whole
/// abstract, not of a part of it.
fn is_abstract_heading(title: &str) -> bool {
    let bare = label(title).to_lowercase();
    matches!(bare.as_str(), "abstract" | "summary")
}

/// A section title as a label: without a trailing colon or period.
fn label(title: &str) -> String {
    title.trim().trim_end_matches([':', '.']).trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::{dedup_keys, DedupKey};

    const STRUCTURED: &str = include_str!("../../fixtures/crossref/works_journal_article_jats_structured_abstract.json");
    const NO_ABSTRACT: &str = include_str!("../../fixtures/crossref/works_journal_article_no_abstract.json");
    const PREPRINT: &str = include_str!("../../fixtures/crossref/works_posted_content_biorxiv_published.json");
    const NOT_FOUND: &str = include_str!("../../fixtures/crossref/works_404_resource_not_found.txt");

    fn day(text: &str) -> Option<NaiveDate> {
        text.parse().ok()
    }

    #[test]
    fn a_journal_article_with_a_structured_jats_abstract() {
        let paper = parse_work(STRUCTURED).expect("a work");
        assert_eq!(paper.ids.doi.as_deref(), Some("10.5555/psycho.2021.0042"));
        assert_eq!((paper.ids.preprint_doi.as_deref(), paper.ids.pmid.as_deref()), (None, None));
        assert_eq!(paper.title, "Water retention of cracked pots: a controlled comparison of crack shapes");
        assert!(paper.sources.is_empty(), "a journal article from Crossref is reported by none of the four sources");
        assert_eq!(paper.journal.as_deref(), Some("Journal of Psychoceramics"));
        assert_eq!(paper.publication_types, ["journal-article"]);
        assert_eq!(paper.categories, ["Ceramics and Composites", "Psychology (miscellaneous)"]);
        assert_eq!(paper.published, day("2021-06-14"), "online before print");
        assert_eq!(paper.entered, day("2021-06-15"), "the day the DOI was registered");
        assert!(!paper.is_retraction && !paper.is_erratum);

        let names: Vec<&str> = paper.authors.iter().map(|author| author.name.as_str()).collect();
        assert_eq!(names, ["Josiah S. Carberry", "Marta de la Cruz", "Cracked Pot Study Group"]);
        assert_eq!(paper.authors[0].affiliations, ["Department of Psychoceramics, Example University", "Institute of Fractured Studies"]);
        assert_eq!(paper.authors[1].family.as_deref(), Some("de la Cruz"));
        assert!(paper.authors[2].is_collective && paper.authors[2].family.is_none());

        let sections: Vec<(Option<&str>, &str)> =
            paper.abstract_sections.iter().map(|section| (section.label.as_deref(), section.text.as_str())).collect();
        assert_eq!(
            sections,
            [
                (
                    Some("Background"),
                    "Cracked pots are said to hold water poorly; whether the kind of crack matters has not been measured (n < 10 in every earlier study)."
                ),
                (Some("Methods"), "We glazed 412 pots & cracked them in three ways, then weighed the water left after 24 h."),
                (Some("Results"), "Hairline cracks lost 12% of the water, star cracks 48%. Glaze thickness did not matter (p = 0.41)."),
            ]
        );
        let text = paper.abstract_text();
        assert!(!text.contains("jats") && !text.contains("&amp;") && !text.contains("&#x"), "{text}");

        let links: Vec<(LinkKind, &str)> = paper.links.iter().map(|link| (link.kind, link.url.as_str())).collect();
        assert_eq!(
            links,
            [
                (LinkKind::Doi, "https://doi.org/10.5555/psycho.2021.0042"),
                (LinkKind::Abstract, "https://psychoceramics.example.org/articles/2021/0042"),
                (LinkKind::Pdf, "https://psychoceramics.example.org/articles/2021/0042.pdf"),
            ]
        );
        assert_eq!(dedup_keys(&paper)[0], DedupKey::Doi("10.5555/psycho.2021.0042".into()));
    }

    #[test]
    fn a_work_without_abstract_and_with_partial_dates() {
        let paper = parse_work(NO_ABSTRACT).expect("a work");
        assert_eq!(paper.ids.doi.as_deref(), Some("10.5555/example-note-7"));
        assert_eq!(paper.title, "Glazes & glues: a short note on mending");
        assert!(paper.abstract_sections.is_empty());
        assert_eq!(paper.abstract_text(), "");
        assert_eq!(paper.published, day("2019-01-01"), "the year alone is its first day, before 2019-03");
        assert_eq!(paper.entered, day("2019-04-02"));
        assert!(paper.authors[0].is_collective);
        assert_eq!(paper.authors[0].name, "Example Mending Consortium");
        assert_eq!((paper.authors[1].name.as_str(), paper.authors[1].given.as_deref()), ("Ng", None));
        assert_eq!(paper.authors[1].affiliations, ["Example Workshop"]);
        assert!(paper.categories.is_empty());
        assert_eq!(paper.links[1], Link { kind: LinkKind::Abstract, url: "https://notes.example.org/7".into() });
    }

    #[test]
    fn a_biorxiv_preprint_is_from_biorxiv_and_names_its_journal_version() {
        let paper = parse_work(PREPRINT).expect("a work");
        assert_eq!(paper.sources, [Source::Biorxiv]);
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1101/2099.01.01.000001"));
        assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2099.01.01.000001"));
        assert_eq!(paper.ids.published_doi.as_deref(), Some("10.5555/psycho.2099.0001"));
        assert_eq!(paper.journal, None);
        assert_eq!(paper.categories, ["Cell Biology"]);
        assert_eq!(paper.published, day("2099-01-02"));
        assert_eq!(
            paper.abstract_sections,
            [AbstractSection { label: None, text: "A placeholder preprint, hand-built for tests: no such preprint exists.".into() }]
        );

        let medrxiv = PREPRINT.replace("\"name\": \"bioRxiv\"", "\"name\": \"medRxiv\"");
        assert_eq!(parse_work(&medrxiv).expect("a work").sources, [Source::Medrxiv]);
        let journal_under_the_same_prefix = PREPRINT.replace("\"type\": \"posted-content\"", "\"type\": \"journal-article\"");
        let journal = parse_work(&journal_under_the_same_prefix).expect("a work");
        assert!(journal.sources.is_empty() && journal.ids.preprint_doi.is_none(), "10.1101 also names Cold Spring Harbor's journals");
    }

    #[test]
    fn snapshot_of_the_structured_abstract_work() {
        insta::assert_json_snapshot!("crossref_journal_article", parse_work(STRUCTURED).expect("a work"));
    }

    #[test]
    fn failures_and_bodies_that_are_not_works() {
        assert!(matches!(parse_work(NOT_FOUND), Err(CrossrefError::Malformed(_))));
        for body in ["", "[]", "{}", r#"{"status":"ok","message-type":"work-list","message":{"items":[]}}"#] {
            assert!(matches!(parse_work(body), Err(CrossrefError::Malformed(_))), "{body:?}");
        }
        let refused = r#"{"status":"failed","message-type":"validation-failure","message":[{"value":"x","message":"Parameter x is not allowed","type":"parameter-not-allowed"}]}"#;
        assert_eq!(parse_work(refused), Err(CrossrefError::Failed("Parameter x is not allowed".into())));
        assert_eq!(explain_error(refused).as_deref(), Some("Parameter x is not allowed"));
        assert_eq!(explain_error(NOT_FOUND), None);
        assert_eq!(explain_error(STRUCTURED), None);

        let untitled = r#"{"status":"ok","message-type":"work","message":{"DOI":"10.5555/X","title":[" "]}}"#;
        assert_eq!(parse_work(untitled), Err(CrossrefError::Unusable { record: "10.5555/x".into(), why: "the work has no title".into() }));
        let no_doi = r#"{"status":"ok","message-type":"work","message":{"title":["T"]}}"#;
        assert!(matches!(parse_work(no_doi), Err(CrossrefError::Unusable { .. })));
    }

    #[test]
    fn notices_and_odd_dates() {
        let retraction = r#"{"status":"ok","message-type":"work","message":{"DOI":"10.5555/r","title":["Retraction"],
            "update-to":[{"type":"retraction","DOI":"10.5555/a"}],"issued":{"date-parts":[[null]]},"created":{"date-parts":[[2020,2,30]]}}}"#;
        let paper = parse_work(retraction).expect("a work");
        assert!(paper.is_retraction && !paper.is_erratum);
        assert_eq!(paper.published, None);
        assert_eq!(paper.entered, day("2020-02-01"), "an impossible day is the first of its month");
        assert_eq!(date_parts(Some(&serde_json::json!({"date-parts": [["2018", "7"]]}))), day("2018-07-01"));
        assert_eq!(date_parts(Some(&serde_json::json!({"date-parts": [[2018, 13, 2]]}))), day("2018-01-01"));
    }

    #[test]
    fn markup_is_removed_and_references_decoded() {
        assert_eq!(clean_text("H<sub>2</sub>O &amp; <mml:math><mml:mi>x</mml:mi></mml:math>"), "H2O & x");
        assert_eq!(clean_text("p < 0.05 and a<b"), "p < 0.05 and a<b");
        assert_eq!(clean_text("&lt;i&gt; is text"), "<i> is text");
        let plain = abstract_sections("Just text, no markup.");
        assert_eq!(plain, [AbstractSection { label: None, text: "Just text, no markup.".into() }]);
        let paragraphs = abstract_sections("<jats:p>One.</jats:p><jats:p>Two.</jats:p>");
        assert_eq!(paragraphs.iter().map(|section| section.text.as_str()).collect::<Vec<_>>(), ["One.", "Two."]);
        let headed = abstract_sections("<title>Summary</title><title>Aims:</title><p>To see.</p><p>And more.</p><title>Graphical abstract</title>");
        assert_eq!(headed, [AbstractSection { label: Some("Aims".into()), text: "To see. And more.".into() }]);
    }
}
