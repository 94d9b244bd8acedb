//! Parsers for what NCBI's E-utilities answer about PubMed: EFetch article sets (the papers),
//! ESearch results (counts, ids, history-server keys) and ESummary document summaries.
//!
//! Every function is pure over the body text. EFetch and ESummary return the records they could
//! read plus a [`ParseWarning`] per record they could not; an error NCBI reports inside an
//! HTTP-200 body (`<ERROR>`, `"ERROR"`) is an [`EutilsError::Api`], a body that cannot be read
//! at all an [`EutilsError::Malformed`].
//!
//! Choices where PubMed's data is ambiguous, in one place:
//! - Identifiers come only from the record's own `PubmedData/ArticleIdList` (and the article's
//!   `ELocationID EIdType="doi"` when that list has no DOI), never from `ReferenceList`, whose
//!   `ArticleIdList`s name the *cited* works.
//! - The title is the English `ArticleTitle`. NLM brackets titles it translated
//!   (`[Title in English].`); the brackets are dropped. The `VernacularTitle` becomes the title
//!   only when there is no English one, and stays available in [`PubmedRecord`].
//! - `published` is the electronic `ArticleDate` when there is one (it has a day and is usually
//!   the first appearance), else the issue's `PubDate`; a `Season` or a missing month or day
//!   gives the first day of the year or month. Book chapters use `ContributionDate`, else the
//!   book's `PubDate`.
//! - Authors marked `ValidYN="N"` (NLM's record of a wrong name) are left out; book editors are
//!   not authors.
//!
//! [`ParseWarning`]: crate::paper::ParseWarning

mod dates;
mod efetch;
mod esearch;
mod esummary;
mod xml_tree;

use serde_json::Value;

use crate::paper::{Link, LinkKind, Paper, PaperIds};

pub use efetch::{parse_efetch, parse_efetch_records, PubmedRecord};
pub use esearch::{parse_esearch_json, parse_esearch_xml, SearchResult};
pub use esummary::{parse_esummary_json, parse_esummary_xml};

/// Why an E-utilities answer could not be used as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EutilsError {
    /// NCBI answered with an error message (inside an HTTP-200 body, or a JSON `error`).
    #[error("e-utilities reported an error: {0}")]
    Api(String),
    /// The body is not the XML or JSON document the endpoint answers with.
    #[error("malformed e-utilities response: {0}")]
    Malformed(String),
}

/// The landing page, the DOI resolver and the PMC full text, for whichever ids are known.
fn pubmed_links(ids: &PaperIds) -> Vec<Link> {
    let abstract_page = ids.pmid.as_ref().map(|pmid| Link { kind: LinkKind::Abstract, url: format!("https://pubmed.ncbi.nlm.nih.gov/{pmid}/") });
    let doi_resolver = ids.doi.as_ref().map(|doi| Link { kind: LinkKind::Doi, url: format!("https://doi.org/{}", percent_encode_doi(doi)) });
    let pmc_full_text =
        ids.pmcid.as_ref().map(|pmcid| Link { kind: LinkKind::FullText, url: format!("https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/") });
    [abstract_page, doi_resolver, pmc_full_text].into_iter().flatten().collect()
}

/// Sets `is_retraction` and `is_erratum` from the publication types PubMed assigned.
fn mark_notices(paper: &mut Paper) {
    let has_type = |wanted: &str| paper.publication_types.iter().any(|kind| kind.eq_ignore_ascii_case(wanted));
    paper.is_retraction = has_type("Retraction of Publication") || has_type("Retracted Publication");
    paper.is_erratum = has_type("Published Erratum");
}

/// A PMC id as `PMC1234567`, from `PMC1234567`, `pmc1234567` or the bare number.
fn normalize_pmcid(text: &str) -> Option<String> {
    let trimmed = text.trim();
    let digits = trimmed.get(..3).filter(|prefix| prefix.eq_ignore_ascii_case("pmc")).map_or(trimmed, |_| &trimmed[3..]);
    let is_number = !digits.is_empty() && digits.chars().all(|character| character.is_ascii_digit());
    is_number.then(|| format!("PMC{digits}"))
}

/// Drops the brackets NLM puts around a title it translated: `[Title].` becomes `Title.`.
/// Titles that merely start and end with brackets of different pairs are left alone.
fn strip_translation_brackets(title: &str) -> String {
    let Some(bracketed) = title.strip_prefix('[') else { return title.to_owned() };
    let (inner, period) = match bracketed.strip_suffix("].") {
        Some(inner) => (inner, "."),
        None => match bracketed.strip_suffix(']') {
            Some(inner) => (inner, ""),
            None => return title.to_owned(),
        },
    };
    let mut depth = 0usize;
    for character in inner.chars() {
        match character {
            '[' => depth += 1,
            ']' if depth == 0 => return title.to_owned(),
            ']' => depth -= 1,
            _ => {}
        }
    }
    if inner.trim().is_empty() {
        return title.to_owned();
    }
    format!("{}{period}", inner.trim())
}

/// Parses JSON, tolerating the raw line breaks NCBI sometimes leaves inside error strings (they
/// make the body invalid JSON; outside strings a space is as good as a line break).
fn parse_json_leniently(json: &str) -> Result<Value, EutilsError> {
    match serde_json::from_str::<Value>(json) {
        Ok(value) => Ok(value),
        Err(first_error) => {
            let has_raw_controls = json.contains(['\n', '\r', '\t']);
            let repaired = json.replace(['\n', '\r', '\t'], " ");
            match has_raw_controls.then(|| serde_json::from_str::<Value>(&repaired)) {
                Some(Ok(value)) => Ok(value),
                _ => Err(EutilsError::Malformed(format!("not JSON: {first_error}"))),
            }
        }
    }
}

/// A DOI made safe for a URL path: characters outside the usual DOI alphabet become `%XX`.
pub(crate) fn percent_encode_doi(doi: &str) -> String {
    const KEPT_PUNCTUATION: &str = "-._~/():;,+=@!$'*";
    let mut encoded = String::with_capacity(doi.len());
    for character in doi.chars() {
        if character.is_ascii_alphanumeric() || KEPT_PUNCTUATION.contains(character) {
            encoded.push(character);
        } else {
            let mut utf8 = [0u8; 4];
            for byte in character.encode_utf8(&mut utf8).bytes() {
                encoded.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    encoded
}

/// A short, single-line start of a body, for messages about bodies that are not what we asked.
fn body_excerpt(body: &str) -> String {
    let collapsed = crate::paper::collapse_whitespace(body);
    let excerpt: String = collapsed.chars().take(60).collect();
    if excerpt.len() < collapsed.len() {
        format!("{excerpt}…")
    } else {
        excerpt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_follow_the_known_ids() {
        let ids = PaperIds {
            pmid: Some("9997".into()),
            doi: Some("10.1016/0005-2795(76)90109-4".into()),
            pmcid: Some("PMC123".into()),
            ..PaperIds::default()
        };
        let urls: Vec<String> = pubmed_links(&ids).into_iter().map(|link| link.url).collect();
        assert_eq!(
            urls,
            [
                "https://pubmed.ncbi.nlm.nih.gov/9997/",
                "https://doi.org/10.1016/0005-2795(76)90109-4",
                "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC123/"
            ]
        );
        assert!(pubmed_links(&PaperIds::default()).is_empty());
    }

    #[test]
    fn dois_with_url_delimiters_are_encoded() {
        assert_eq!(percent_encode_doi("10.1002/(sici)1097#x?y"), "10.1002/(sici)1097%23x%3Fy");
        assert_eq!(percent_encode_doi("10.1000/é"), "10.1000/%C3%A9");
    }

    #[test]
    fn pmcids_normalize() {
        assert_eq!(normalize_pmcid(" PMC9619446 ").as_deref(), Some("PMC9619446"));
        assert_eq!(normalize_pmcid("pmc42").as_deref(), Some("PMC42"));
        assert_eq!(normalize_pmcid("42").as_deref(), Some("PMC42"));
        assert_eq!(normalize_pmcid("pmc-id: PMC7092803;"), None);
        assert_eq!(normalize_pmcid("PMC"), None);
    }

    #[test]
    fn translated_titles_lose_their_brackets() {
        let check = |title: &str, expected: &str| assert_eq!(strip_translation_brackets(title), expected, "{title}");
        check("[Market Concentration in Germany].", "Market Concentration in Germany.");
        check("[Ein Titel]", "Ein Titel");
        check("[Nested [bracket] title].", "Nested [bracket] title.");
        check("[A] and [B].", "[A] and [B].");
        check("Plain title.", "Plain title.");
        check("[].", "[].");
    }

    #[test]
    fn notices_are_flagged_by_publication_type() {
        let mut paper = Paper::new(crate::paper::Source::Pubmed, "T");
        paper.publication_types = vec!["Journal Article".into(), "Retracted Publication".into()];
        mark_notices(&mut paper);
        assert!(paper.is_retraction && !paper.is_erratum);
        paper.publication_types = vec!["Published Erratum".into()];
        mark_notices(&mut paper);
        assert!(!paper.is_retraction && paper.is_erratum);
    }

    #[test]
    fn json_with_raw_line_breaks_in_strings_is_repaired() {
        let body = "{\"esearchresult\":{\"ERROR\":\"Search Backend failed: Exception:\n'retstart' cannot be larger than 9998.\"}}";
        let value = parse_json_leniently(body).expect("repaired");
        assert!(value["esearchresult"]["ERROR"].as_str().is_some_and(|message| message.contains("9998")));
        assert!(matches!(parse_json_leniently("<html>"), Err(EutilsError::Malformed(_))));
    }
}
