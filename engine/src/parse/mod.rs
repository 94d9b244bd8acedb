//! Parsers for what the four sources answer, and for Crossref's record of one work (asked for a
//! researcher's seed DOIs, see `crossref`). Each takes the raw body and returns the records it
//! could read plus a warning for each it could not; a bad record never sinks its batch.
//!
//! [`parse_any`] recognizes the format of a file (PubMed efetch XML, arXiv Atom or OAI-PMH,
//! bioRxiv/medRxiv `details` JSON) for `papertide import`.

pub mod arxiv;
pub mod biorxiv;
pub mod crossref;
pub mod pubmed;

use crate::paper::{Paper, ParseWarning, Parsed, Source};

/// The formats `papertide import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    PubmedXml,
    ArxivAtom,
    ArxivOaiPmh,
    PreprintDetailsJson,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::PubmedXml => "PubMed XML",
            Format::ArxivAtom => "arXiv Atom",
            Format::ArxivOaiPmh => "arXiv OAI-PMH",
            Format::PreprintDetailsJson => "bioRxiv/medRxiv JSON",
        }
    }
}

/// Tells the format from the body's first element or key; `None` when it is none of ours.
pub fn detect_format(body: &str) -> Option<Format> {
    let start = body.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('{') {
        let is_details = start.contains("\"collection\"") && start.contains("\"messages\"");
        return is_details.then_some(Format::PreprintDetailsJson);
    }
    let first_element = first_xml_element(start)?;
    match first_element {
        "PubmedArticleSet" => Some(Format::PubmedXml),
        "feed" => Some(Format::ArxivAtom),
        "OAI-PMH" => Some(Format::ArxivOaiPmh),
        _ => None,
    }
}

/// The name of the first element, skipping the XML declaration, DOCTYPE and comments.
fn first_xml_element(text: &str) -> Option<&str> {
    let mut rest = text;
    loop {
        let at = rest.find('<')?;
        rest = &rest[at + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let end = rest.find(|c: char| c.is_whitespace() || c == '>' || c == '/')?;
        let name = &rest[..end];
        return Some(name.rsplit(':').next().unwrap_or(name));
    }
}

/// Parses a body of any supported format; an unknown or unreadable body is one warning.
pub fn parse_any(body: &str) -> (Option<Format>, Parsed<Paper>) {
    let format = detect_format(body);
    let failed = |message: String| Parsed { items: Vec::new(), warnings: vec![ParseWarning { record: None, message }] };
    let parsed = match format {
        Some(Format::PubmedXml) => pubmed::parse_efetch(body),
        Some(Format::ArxivAtom) => match arxiv::parse_atom(body) {
            Ok(page) => page.papers,
            Err(error) => failed(error.to_string()),
        },
        Some(Format::ArxivOaiPmh) => arxiv::parse_oai_pmh(body),
        Some(Format::PreprintDetailsJson) => match biorxiv::parse_details(body, Source::Biorxiv) {
            Ok(page) => page.papers,
            Err(error) => failed(error.to_string()),
        },
        None => failed("not PubMed XML, arXiv Atom or OAI-PMH, or bioRxiv/medRxiv JSON".to_owned()),
    };
    (format, parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_their_first_element_or_keys() {
        let cases = [
            (include_str!("../../fixtures/pubmed/efetch_batch_6_articles.xml"), Some(Format::PubmedXml), 6),
            (include_str!("../../fixtures/arxiv/api_idlist_1605.08386_two_categories.xml"), Some(Format::ArxivAtom), 1),
            (include_str!("../../fixtures/arxiv/oaipmh_listrecords_arxiv_metadataprefix_3_records.xml"), Some(Format::ArxivOaiPmh), 3),
            (
                include_str!("../../fixtures/medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json"),
                Some(Format::PreprintDetailsJson),
                1,
            ),
        ];
        for (body, format, papers) in cases {
            let (detected, parsed) = parse_any(body);
            assert_eq!(detected, format);
            assert_eq!(parsed.items.len(), papers, "{format:?}");
        }
    }

    #[test]
    fn the_server_field_decides_between_biorxiv_and_medrxiv() {
        let (_, parsed) = parse_any(include_str!("../../fixtures/medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json"));
        assert_eq!(parsed.items[0].sources, vec![Source::Medrxiv]);
    }

    #[test]
    fn unknown_bodies_are_one_warning() {
        for body in ["", "hello", "<html><body/></html>", "{\"a\":1}", include_str!("../../fixtures/pubmed/esearch_xml_rettype_count.xml")] {
            let (format, parsed) = parse_any(body);
            assert_eq!(format, None, "{body:.40}");
            assert!(parsed.items.is_empty());
            assert_eq!(parsed.warnings.len(), 1);
        }
    }
}
