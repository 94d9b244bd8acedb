//! OAI-PMH `ListRecords` with `metadataPrefix=arXiv` into papers, and the resumption token that
//! asks for the next part of the list.

use chrono::NaiveDate;

use super::xml_walk::{walk_xml, ElementName, Namespace, Visit};
use super::{arxiv_identifier, first_doi, is_collective_name};
use crate::paper::{collapse_whitespace, AbstractSection, Author, Link, LinkKind, Paper, ParseWarning, Parsed, Source};

/// Parses one `ListRecords` answer. See the module documentation of [`super`] for the mapping.
pub fn parse_oai_pmh(xml: &str) -> Parsed<Paper> {
    let mut papers = Parsed { items: Vec::new(), warnings: Vec::new() };
    let mut record: Option<RawRecord> = None;
    let mut records_seen = 0_usize;
    let mut error_code: Option<String> = None;
    let mut is_oai_pmh = false;
    let walked = walk_xml(xml, |visit| match visit {
        Visit::Open(opened) => {
            if opened.parents.is_empty() {
                is_oai_pmh = opened.name.is(Namespace::OaiPmh, "OAI-PMH");
            } else if opened.name.is(Namespace::OaiPmh, "record") {
                records_seen += 1;
                record = Some(RawRecord { position: records_seen, ..RawRecord::default() });
            } else if opened.name.is(Namespace::OaiPmh, "header") {
                if let Some(record) = record.as_mut() {
                    record.is_deleted = opened.attribute("status").is_some_and(|status| status == "deleted");
                }
            } else if opened.name.is(Namespace::OaiPmh, "error") {
                error_code = opened.attribute("code");
            } else if opened.name.is(Namespace::ArxivOai, "author") {
                if let Some(record) = record.as_mut() {
                    record.authors.push(RawAuthor::default());
                }
            }
        }
        Visit::Close(closed) => {
            if closed.name.is(Namespace::OaiPmh, "record") {
                if let Some(finished) = record.take() {
                    finished.finish_into(&mut papers);
                }
            } else if closed.name.is(Namespace::OaiPmh, "error") {
                if let Some(warning) = oai_error_warning(error_code.take(), closed.text, closed.parents) {
                    papers.warnings.push(warning);
                }
            } else if let Some(record) = record.as_mut() {
                record.take_field(closed.name, closed.parents, closed.text);
            }
        }
    });
    if !is_oai_pmh {
        papers.warnings.push(ParseWarning { record: None, message: "the body is not an OAI-PMH response".to_owned() });
        return papers;
    }
    if let Err(failure) = walked {
        let lost = if record.is_some() { "the record it was reading and any after it are lost" } else { "any records after it are lost" };
        papers.warnings.push(ParseWarning {
            record: record.map(|unfinished| unfinished.label()),
            message: format!("the response is not well-formed XML: {failure}; {lost}"),
        });
    }
    papers
}

/// The `resumptionToken` of a `ListRecords` answer, when the list continues; `None` when the list
/// is complete (no token, or the empty token OAI-PMH sends with the last part). A body cut off
/// before its token also gives `None`: the warning [`parse_oai_pmh`] returns for that body is what
/// tells a broken list from a complete one.
pub fn resumption_token(xml: &str) -> Option<String> {
    let mut token = None;
    // A token read before a later well-formedness error still continues the list.
    let _ = walk_xml(xml, |visit| {
        if let Visit::Close(closed) = visit {
            if closed.name.is(Namespace::OaiPmh, "resumptionToken") {
                let text = closed.text.trim();
                token = (!text.is_empty()).then(|| text.to_owned());
            }
        }
    });
    token
}

/// One `<record>` as read so far.
#[derive(Debug, Default)]
struct RawRecord {
    /// 1-based position in the answer.
    position: usize,
    is_deleted: bool,
    header_identifier: Option<String>,
    id: Option<String>,
    created: Option<String>,
    updated: Option<String>,
    title: Option<String>,
    categories: Option<String>,
    journal_ref: Option<String>,
    doi: Option<String>,
    abstract_text: Option<String>,
    authors: Vec<RawAuthor>,
}

#[derive(Debug, Default)]
struct RawAuthor {
    keyname: String,
    forenames: String,
    suffix: String,
    affiliations: Vec<String>,
}

impl RawRecord {
    /// Stores the text of an element that just closed inside this record, if it is a field.
    fn take_field(&mut self, name: &ElementName, parents: &[ElementName], text: &str) {
        let parent = parents.last();
        let text = text.to_owned();
        match (name.namespace, name.local.as_str()) {
            (Namespace::OaiPmh, "identifier") if parent.is_some_and(|parent| parent.is(Namespace::OaiPmh, "header")) => {
                self.header_identifier = Some(text);
            }
            (Namespace::ArxivOai, field) if parent.is_some_and(|parent| parent.is(Namespace::ArxivOai, "arXiv")) => match field {
                "id" => self.id = Some(text),
                "created" => self.created = Some(text),
                "updated" => self.updated = Some(text),
                "title" => self.title = Some(text),
                "categories" => self.categories = Some(text),
                "journal-ref" => self.journal_ref = Some(text),
                "doi" => self.doi = Some(text),
                "abstract" => self.abstract_text = Some(text),
                _ => {}
            },
            (Namespace::ArxivOai, field) if parent.is_some_and(|parent| parent.is(Namespace::ArxivOai, "author")) => {
                if let Some(author) = self.authors.last_mut() {
                    match field {
                        "keyname" => author.keyname = text,
                        "forenames" => author.forenames = text,
                        "suffix" => author.suffix = text,
                        "affiliation" => author.affiliations.push(text),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// How a warning names this record: its arXiv id, its OAI identifier, or its position.
    fn label(&self) -> String {
        let known = self.id.as_deref().or(self.header_identifier.as_deref()).map(str::trim).filter(|id| !id.is_empty());
        match known {
            Some(id) => id.to_owned(),
            None => format!("record {} of the list", self.position),
        }
    }

    /// Adds the finished record to `papers`, or a warning for it. A deleted record (a header with
    /// `status="deleted"` and no metadata) is a withdrawal notice, not a paper nor a problem.
    fn finish_into(self, papers: &mut Parsed<Paper>) {
        if self.is_deleted {
            return;
        }
        let label = self.label();
        match self.into_paper() {
            Ok(paper) => papers.items.push(paper),
            Err(message) => papers.warnings.push(ParseWarning { record: Some(label), message }),
        }
    }

    fn into_paper(self) -> Result<Paper, String> {
        let id_text = self.id.as_deref().or(self.header_identifier.as_deref()).unwrap_or_default();
        let Some((arxiv_id, version)) = arxiv_identifier(id_text) else {
            return Err(format!("record has no usable arXiv id: {:?}", id_text.trim()));
        };
        let title = self.title.as_deref().map(collapse_whitespace).unwrap_or_default();
        if title.is_empty() {
            return Err("record has no title".to_owned());
        }

        let mut paper = Paper::new(Source::Arxiv, title);
        // Same meaning as the Atom feed's arxiv:doi: the journal version's DOI.
        let doi = self.doi.as_deref().and_then(first_doi);
        paper.ids.doi = doi.clone();
        paper.ids.published_doi = doi;
        paper.ids.preprint_version = version;
        paper.links = vec![
            Link { kind: LinkKind::Abstract, url: format!("https://arxiv.org/abs/{arxiv_id}") },
            Link { kind: LinkKind::Pdf, url: format!("https://arxiv.org/pdf/{arxiv_id}") },
        ];
        paper.ids.arxiv = Some(arxiv_id);

        let abstract_text = self.abstract_text.as_deref().map(collapse_whitespace).unwrap_or_default();
        if !abstract_text.is_empty() {
            paper.abstract_sections.push(AbstractSection { label: None, text: abstract_text });
        }
        paper.authors = self.authors.iter().filter_map(author_from_parts).collect();
        paper.journal = self.journal_ref.as_deref().map(collapse_whitespace).filter(|journal| !journal.is_empty());
        paper.categories = self.categories.as_deref().map(distinct_words).unwrap_or_default();
        paper.published = self.created.as_deref().and_then(parse_date);
        // A first version has no <updated>: its version date is its creation date.
        paper.entered = self.updated.as_deref().and_then(parse_date).or(paper.published);
        Ok(paper)
    }
}

fn author_from_parts(raw: &RawAuthor) -> Option<Author> {
    let keyname = collapse_whitespace(&raw.keyname);
    let forenames = collapse_whitespace(&raw.forenames);
    let suffix = collapse_whitespace(&raw.suffix);
    if keyname.is_empty() {
        return None;
    }
    let mut author =
        if forenames.is_empty() && is_collective_name(&keyname) { Author::collective(&keyname) } else { Author::person(Some(&forenames), &keyname) };
    if !suffix.is_empty() {
        author.name = format!("{} {suffix}", author.name);
    }
    author.affiliations = raw.affiliations.iter().map(|text| collapse_whitespace(text)).filter(|text| !text.is_empty()).collect();
    Some(author)
}

fn distinct_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        if !words.iter().any(|known| known == word) {
            words.push(word.to_owned());
        }
    }
    words
}

fn parse_date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()
}

/// An OAI-PMH `<error code>` (a child of the root) as a warning; `noRecordsMatch` is an empty
/// list, not a problem.
fn oai_error_warning(code: Option<String>, text: &str, parents: &[ElementName]) -> Option<ParseWarning> {
    let is_top_level = matches!(parents, [root] if root.is(Namespace::OaiPmh, "OAI-PMH"));
    let code = code.unwrap_or_default();
    if !is_top_level || code == "noRecordsMatch" {
        return None;
    }
    let message = collapse_whitespace(text);
    Some(ParseWarning { record: None, message: format!("OAI-PMH error {code}: {message}").trim_end_matches([' ', ':']).to_owned() })
}
