//! The export API's Atom feed (`/api/query`) into an [`ArxivPage`].
//!
//! feed-rs reads the Atom parts (id, title, summary, dates, links, categories); a second,
//! namespace-aware pass over the same text ([`scan_extensions`]) reads what feed-rs does not
//! expose: the OpenSearch paging numbers, the `arxiv:` elements and the authors with their
//! `arxiv:affiliation`s. Both passes read the same document in order, so the n-th entry of one is
//! the n-th entry of the other; a disagreement in the entry count is reported as malformed.

use feed_rs::model::{Entry, FeedType};

use super::xml_walk::{walk_xml, ElementName, Namespace, Visit};
use super::{arxiv_identifier, author_from_display_name, first_doi, ArxivError, ArxivPage};
use crate::paper::{collapse_whitespace, AbstractSection, Link, LinkKind, Paper, ParseWarning, Parsed, Source};

/// Parses one page of the export API. See the module documentation of [`super`] for the mapping.
pub fn parse_atom(xml: &str) -> Result<ArxivPage, ArxivError> {
    // An entry without <id> gets an empty id instead of one feed-rs would make up from its link
    // and title, so that it can be reported rather than stored under an invented key.
    let parser = feed_rs::parser::Builder::new().id_generator(|_, _, _| String::new()).build();
    let feed = parser.parse(xml.as_bytes()).map_err(|error| ArxivError::Malformed(format!("not a readable Atom feed: {error}")))?;
    if feed.feed_type != FeedType::Atom {
        return Err(ArxivError::Malformed(format!("expected an Atom feed, got {:?}", feed.feed_type)));
    }
    let extensions = scan_extensions(xml)?;

    if let Some(message) = feed.entries.iter().find_map(api_error_message) {
        return Err(ArxivError::Api(message));
    }
    if extensions.entries.len() != feed.entries.len() {
        return Err(ArxivError::Malformed(format!(
            "feed-rs read {} entries where the extension pass read {}",
            feed.entries.len(),
            extensions.entries.len()
        )));
    }

    let mut papers = Parsed { items: Vec::new(), warnings: Vec::new() };
    for (index, (entry, entry_extensions)) in feed.entries.iter().zip(&extensions.entries).enumerate() {
        match paper_from_entry(entry, entry_extensions) {
            Ok(paper) => papers.items.push(paper),
            Err(message) => papers.warnings.push(ParseWarning { record: Some(record_label(entry, index)), message }),
        }
    }
    Ok(ArxivPage {
        total_results: paging_number("totalResults", extensions.total_results)?,
        start_index: paging_number("startIndex", extensions.start_index)?,
        items_per_page: paging_number("itemsPerPage", extensions.items_per_page)?,
        papers,
    })
}

/// What the extension pass reads from the whole feed.
#[derive(Debug, Default)]
struct FeedExtensions {
    total_results: Option<String>,
    start_index: Option<String>,
    items_per_page: Option<String>,
    entries: Vec<EntryExtensions>,
}

/// What the extension pass reads from one `<entry>`.
#[derive(Debug, Default)]
struct EntryExtensions {
    primary_category: Option<String>,
    doi: Option<String>,
    journal_ref: Option<String>,
    authors: Vec<RawAuthor>,
}

#[derive(Debug, Default)]
struct RawAuthor {
    name: String,
    affiliations: Vec<String>,
}

fn scan_extensions(xml: &str) -> Result<FeedExtensions, ArxivError> {
    let mut extensions = FeedExtensions::default();
    walk_xml(xml, |visit| match visit {
        Visit::Open(opened) => {
            let parents = opened.parents;
            if opened.name.is(Namespace::Atom, "entry") && is_feed(parents) {
                extensions.entries.push(EntryExtensions::default());
            } else if let Some(entry) = current_entry(&mut extensions, parents) {
                if opened.name.is(Namespace::Atom, "author") {
                    entry.authors.push(RawAuthor::default());
                } else if opened.name.is(Namespace::ArxivAtom, "primary_category") {
                    entry.primary_category = opened.attribute("term");
                }
            }
        }
        Visit::Close(closed) => {
            let parents = closed.parents;
            let text = closed.text.to_owned();
            if is_feed(parents) && closed.name.namespace == Namespace::OpenSearch {
                match closed.name.local.as_str() {
                    "totalResults" => extensions.total_results = Some(text),
                    "startIndex" => extensions.start_index = Some(text),
                    "itemsPerPage" => extensions.items_per_page = Some(text),
                    _ => {}
                }
            } else if let Some(entry) = current_entry(&mut extensions, parents) {
                if closed.name.is(Namespace::ArxivAtom, "doi") {
                    entry.doi = Some(text);
                } else if closed.name.is(Namespace::ArxivAtom, "journal_ref") {
                    entry.journal_ref = Some(text);
                }
            } else if let Some(author) = current_author(&mut extensions, parents) {
                if closed.name.is(Namespace::Atom, "name") {
                    author.name = text;
                } else if closed.name.is(Namespace::ArxivAtom, "affiliation") {
                    author.affiliations.push(text);
                }
            }
        }
    })
    .map_err(|failure| ArxivError::Malformed(failure.to_string()))?;
    Ok(extensions)
}

/// `parents` is exactly `[feed]`.
fn is_feed(parents: &[ElementName]) -> bool {
    matches!(parents, [feed] if feed.is(Namespace::Atom, "feed"))
}

/// The entry being read, when `parents` is exactly `[feed, entry]`.
fn current_entry<'a>(extensions: &'a mut FeedExtensions, parents: &[ElementName]) -> Option<&'a mut EntryExtensions> {
    match parents {
        [feed, entry] if feed.is(Namespace::Atom, "feed") && entry.is(Namespace::Atom, "entry") => extensions.entries.last_mut(),
        _ => None,
    }
}

/// The author being read, when `parents` is exactly `[feed, entry, author]`.
fn current_author<'a>(extensions: &'a mut FeedExtensions, parents: &[ElementName]) -> Option<&'a mut RawAuthor> {
    match parents {
        [feed, entry, author] if feed.is(Namespace::Atom, "feed") && entry.is(Namespace::Atom, "entry") && author.is(Namespace::Atom, "author") => {
            extensions.entries.last_mut()?.authors.last_mut()
        }
        _ => None,
    }
}

/// The message of arXiv's error feed: "a single entry representing the error", whose id is under
/// `arxiv.org/api/errors` and whose title is "Error" (the HTTP 400 answer to a bad query).
fn api_error_message(entry: &Entry) -> Option<String> {
    let title = entry.title.as_ref().map(|title| collapse_whitespace(&title.content)).unwrap_or_default();
    let is_error_entry = entry.id.contains("arxiv.org/api/errors") || (title == "Error" && arxiv_identifier(&entry.id).is_none());
    if !is_error_entry {
        return None;
    }
    let summary = entry.summary.as_ref().map(|summary| collapse_whitespace(&summary.content)).unwrap_or_default();
    let message = if summary.is_empty() { entry.id.clone() } else { summary };
    Some(message)
}

fn paging_number(element: &str, text: Option<String>) -> Result<u64, ArxivError> {
    let text = text.ok_or_else(|| ArxivError::Malformed(format!("the feed has no opensearch:{element}")))?;
    text.trim().parse::<u64>().map_err(|_| ArxivError::Malformed(format!("opensearch:{element} is not a number: {:?}", text.trim())))
}

/// How a warning names an entry: its `<id>` as written, or its position when it has none.
fn record_label(entry: &Entry, index: usize) -> String {
    let id = entry.id.trim();
    if id.is_empty() {
        format!("entry {} of the feed", index + 1)
    } else {
        id.to_owned()
    }
}

/// One entry as a paper, or why it cannot be one.
fn paper_from_entry(entry: &Entry, extensions: &EntryExtensions) -> Result<Paper, String> {
    if entry.id.trim().is_empty() {
        return Err("entry has no <id>".to_owned());
    }
    let Some((arxiv_id, version)) = arxiv_identifier(&entry.id) else {
        return Err(format!("entry <id> is not an arXiv identifier: {:?}", entry.id.trim()));
    };
    let title = entry.title.as_ref().map(|title| collapse_whitespace(&title.content)).unwrap_or_default();
    if title.is_empty() {
        return Err("entry has no title".to_owned());
    }

    let mut paper = Paper::new(Source::Arxiv, title);
    paper.ids.arxiv = Some(arxiv_id);
    paper.ids.preprint_version = version;
    // arxiv:doi is the journal version's DOI as the authors gave it: it is this record's DOI
    // (there is no other) and the DOI the preprint was published under.
    let doi = extensions.doi.as_deref().and_then(first_doi);
    paper.ids.doi = doi.clone();
    paper.ids.published_doi = doi;

    let summary = entry.summary.as_ref().map(|summary| collapse_whitespace(&summary.content)).unwrap_or_default();
    if !summary.is_empty() {
        paper.abstract_sections.push(AbstractSection { label: None, text: summary });
    }
    paper.authors = extensions
        .authors
        .iter()
        .filter_map(|raw| {
            let mut author = author_from_display_name(&raw.name)?;
            author.affiliations = raw.affiliations.iter().map(|text| collapse_whitespace(text)).filter(|text| !text.is_empty()).collect();
            Some(author)
        })
        .collect();
    paper.journal = extensions.journal_ref.as_deref().map(collapse_whitespace).filter(|journal| !journal.is_empty());
    paper.categories = categories(extensions.primary_category.as_deref(), entry);
    paper.published = entry.published.map(|published| published.date_naive());
    paper.entered = entry.updated.map(|updated| updated.date_naive());
    paper.links = links(entry);
    Ok(paper)
}

/// The primary category first, then every `<category term>` in feed order, without repeats.
fn categories(primary: Option<&str>, entry: &Entry) -> Vec<String> {
    let mut categories: Vec<String> = Vec::new();
    let terms = primary.into_iter().chain(entry.categories.iter().map(|category| category.term.as_str()));
    for term in terms.map(str::trim) {
        if !term.is_empty() && !categories.iter().any(|known| known == term) {
            categories.push(term.to_owned());
        }
    }
    categories
}

/// The abstract page (`rel="alternate"`), the PDF (`title="pdf"`) and the DOI resolver link
/// (`title="doi"`), with their hrefs as arXiv wrote them.
fn links(entry: &Entry) -> Vec<Link> {
    entry
        .links
        .iter()
        .filter_map(|link| {
            let kind = match (link.title.as_deref(), link.rel.as_deref()) {
                (Some("pdf"), _) => LinkKind::Pdf,
                (Some("doi"), _) => LinkKind::Doi,
                (_, Some("alternate")) => LinkKind::Abstract,
                _ => return None,
            };
            let url = link.href.trim();
            (!url.is_empty()).then(|| Link { kind, url: url.to_owned() })
        })
        .collect()
}
