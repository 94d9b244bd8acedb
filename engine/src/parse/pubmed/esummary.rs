//! ESummary answers (`esummary.fcgi?db=pubmed&id=…`): XML v1 (`<eSummaryResult><DocSum>`) and
//! JSON (`{"result":{"uids":[…],"<uid>":{…}}}`). A summary has no abstract and no affiliations;
//! it is the light way to learn titles, authors, ids and dates.
//!
//! Authors come as `Family Initials` (`Hambrick GW Jr`); they become `Author`s with the
//! initials as given name, like EFetch's initials-only records.

use serde_json::Value;

use super::dates::date_from_free_text;
use super::xml_tree::{parse_tree, Element};
use super::{body_excerpt, mark_notices, normalize_pmcid, parse_json_leniently, pubmed_links, strip_translation_brackets, EutilsError};
use crate::paper::{collapse_whitespace, normalize_doi, Author, Paper, PaperIds, ParseWarning, Parsed, Source};

/// Reads an XML (v1) ESummary answer.
pub fn parse_esummary_xml(xml: &str) -> Result<Parsed<Paper>, EutilsError> {
    let root = parse_tree(xml).map_err(|problem| EutilsError::Malformed(format!("{problem} (body starts with `{}`)", body_excerpt(xml))))?;
    if let Some(message) = root.child_text("ERROR") {
        return Err(EutilsError::Api(message));
    }
    if root.name != "eSummaryResult" {
        return Err(EutilsError::Malformed(format!("expected <eSummaryResult>, found <{}>", root.name)));
    }
    let summaries = root.children_named("DocSum").map(summary_from_docsum).collect();
    Ok(papers_from_summaries(summaries))
}

/// Reads a JSON ESummary answer (`retmode=json`).
pub fn parse_esummary_json(json: &str) -> Result<Parsed<Paper>, EutilsError> {
    let document = parse_json_leniently(json)?;
    if let Some(message) = document.get("error").and_then(Value::as_str) {
        return Err(EutilsError::Api(message.to_owned()));
    }
    let result = document
        .get("result")
        .and_then(Value::as_object)
        .ok_or_else(|| EutilsError::Malformed(format!("no \"result\" object in `{}`", body_excerpt(json))))?;
    if let Some(message) = result.get("ERROR").and_then(Value::as_str) {
        return Err(EutilsError::Api(message.to_owned()));
    }
    let uids = result.get("uids").and_then(Value::as_array).ok_or_else(|| EutilsError::Malformed("result has no \"uids\" list".into()))?;
    let summaries = uids
        .iter()
        .filter_map(Value::as_str)
        .map(|uid| match result.get(uid) {
            Some(entry) => summary_from_json(uid, entry),
            None => DocumentSummary { pmid: Some(uid.to_owned()), error: Some("listed in uids but absent".into()), ..DocumentSummary::default() },
        })
        .collect();
    Ok(papers_from_summaries(summaries))
}

/// What both flavours say about one record, before it becomes a `Paper`.
#[derive(Debug, Default)]
struct DocumentSummary {
    pmid: Option<String>,
    title: Option<String>,
    /// Name as written, and whether it is a collective.
    authors: Vec<(String, bool)>,
    journal: Option<String>,
    publication_types: Vec<String>,
    /// `(idtype, value)` pairs: `doi`, `pmc`, `pubmed`, `pii`, ...
    article_ids: Vec<(String, String)>,
    elocation_id: Option<String>,
    publication_date: Option<String>,
    electronic_date: Option<String>,
    /// `(pubstatus, date)` pairs: `entrez`, `pubmed`, `medline`, ...
    history: Vec<(String, String)>,
    /// The error NCBI gave for this id instead of a summary.
    error: Option<String>,
}

fn papers_from_summaries(summaries: Vec<DocumentSummary>) -> Parsed<Paper> {
    let mut parsed = Parsed { items: Vec::new(), warnings: Vec::new() };
    for (index, summary) in summaries.into_iter().enumerate() {
        match paper_from_summary(summary) {
            Ok(paper) => parsed.items.push(paper),
            Err((pmid, message)) => {
                parsed.warnings.push(ParseWarning { record: Some(pmid.unwrap_or_else(|| format!("record {}", index + 1))), message })
            }
        }
    }
    parsed
}

fn paper_from_summary(summary: DocumentSummary) -> Result<Paper, (Option<String>, String)> {
    let Some(pmid) = summary.pmid else {
        return Err((None, "no uid".into()));
    };
    if let Some(error) = summary.error {
        return Err((Some(pmid), error));
    }
    let Some(title) = summary.title.map(|title| strip_translation_brackets(&title)) else {
        return Err((Some(pmid), "no title".into()));
    };
    let listed_id =
        |wanted: &str| summary.article_ids.iter().find(|(kind, value)| kind == wanted && !value.is_empty()).map(|(_, value)| value.as_str());
    let elocation_doi = summary
        .elocation_id
        .as_deref()
        .and_then(|elocation| elocation.split_whitespace().skip_while(|part| *part != "doi:").nth(1))
        .and_then(normalize_doi);
    let dated = |status: &str| summary.history.iter().find(|(kind, _)| kind == status).and_then(|(_, date)| date_from_free_text(date));

    let mut paper = Paper::new(Source::Pubmed, title);
    paper.ids = PaperIds {
        doi: listed_id("doi").and_then(normalize_doi).or(elocation_doi),
        pmcid: listed_id("pmc").and_then(normalize_pmcid),
        pmid: Some(pmid),
        ..PaperIds::default()
    };
    paper.authors = summary.authors.iter().map(|(name, is_collective)| author_from_summary_name(name, *is_collective)).collect();
    paper.journal = summary.journal;
    paper.publication_types = summary.publication_types;
    mark_notices(&mut paper);
    let electronic_date = summary.electronic_date.as_deref().and_then(date_from_free_text);
    paper.published = electronic_date.or_else(|| summary.publication_date.as_deref().and_then(date_from_free_text));
    paper.entered = dated("entrez").or_else(|| dated("pubmed"));
    paper.links = pubmed_links(&paper.ids);
    Ok(paper)
}

/// `LoPresti PJ` → given `PJ`, family `LoPresti`; `Hambrick GW Jr` keeps `Jr` after the name.
/// A name without trailing initials is kept whole as the family name.
fn author_from_summary_name(name: &str, is_collective: bool) -> Author {
    if is_collective {
        return Author::collective(name);
    }
    const SUFFIXES: [&str; 5] = ["Jr", "Sr", "II", "III", "IV"];
    let mut parts: Vec<&str> = name.split_whitespace().collect();
    let suffix = parts.last().copied().filter(|last| parts.len() > 2 && SUFFIXES.contains(last));
    if suffix.is_some() {
        parts.pop();
    }
    let initials = parts.last().copied().filter(|last| parts.len() > 1 && last.chars().all(|character| character.is_uppercase()));
    if initials.is_some() {
        parts.pop();
    }
    let mut author = Author::person(initials, &parts.join(" "));
    if let Some(suffix) = suffix {
        author.name = format!("{} {suffix}", author.name);
    }
    author
}

/// The `<Item Name="…">` child of an XML summary (items nest inside `Type="List"` items).
fn item<'b, 'a>(parent: &'b Element<'a>, name: &str) -> Option<&'b Element<'a>> {
    items(parent).find(|item| item.attribute("Name") == Some(name))
}

fn items<'b, 'a>(parent: &'b Element<'a>) -> impl Iterator<Item = &'b Element<'a>> {
    parent.children_named("Item")
}

fn item_text(parent: &Element, name: &str) -> Option<String> {
    item(parent, name).map(Element::text).filter(|text| !text.is_empty())
}

fn summary_from_docsum(docsum: &Element) -> DocumentSummary {
    let list = |name: &str| -> Vec<(String, String)> {
        item(docsum, name)
            .map(|list| items(list).filter_map(|entry| Some((entry.attribute("Name")?.to_owned(), entry.text()))).collect())
            .unwrap_or_default()
    };
    DocumentSummary {
        pmid: docsum.child_text("Id"),
        title: item_text(docsum, "Title"),
        authors: list("AuthorList").into_iter().map(|(_, name)| (name, false)).collect(),
        journal: item_text(docsum, "FullJournalName").or_else(|| item_text(docsum, "Source")),
        publication_types: list("PubTypeList").into_iter().map(|(_, kind)| kind).collect(),
        article_ids: list("ArticleIds"),
        elocation_id: item_text(docsum, "ELocationID"),
        publication_date: item_text(docsum, "PubDate"),
        electronic_date: item_text(docsum, "EPubDate"),
        history: list("History"),
        error: docsum.child_text("ERROR"),
    }
}

fn summary_from_json(uid: &str, entry: &Value) -> DocumentSummary {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(collapse_whitespace).filter(|text| !text.is_empty());
    let array = |key: &str| entry.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let pairs = |key: &str, kind_key: &str, value_key: &str| -> Vec<(String, String)> {
        array(key)
            .iter()
            .filter_map(|pair| {
                let kind = pair.get(kind_key)?.as_str()?;
                let value = pair.get(value_key)?.as_str()?;
                Some((kind.to_owned(), collapse_whitespace(value)))
            })
            .collect()
    };
    DocumentSummary {
        pmid: Some(uid.to_owned()),
        title: text("title"),
        authors: pairs("authors", "authtype", "name").into_iter().map(|(kind, name)| (name, kind.eq_ignore_ascii_case("CollectiveName"))).collect(),
        journal: text("fulljournalname").or_else(|| text("source")),
        publication_types: array("pubtype").iter().filter_map(Value::as_str).map(collapse_whitespace).collect(),
        article_ids: pairs("articleids", "idtype", "value"),
        elocation_id: text("elocationid"),
        publication_date: text("pubdate"),
        electronic_date: text("epubdate"),
        history: pairs("history", "pubstatus", "date"),
        error: text("error"),
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    const XML_TWO_DOCSUMS: &str = include_str!("../../../fixtures/pubmed/esummary_xml_pubmed_two_docsums.xml");
    const XML_ERROR_NO_ID: &str = include_str!("../../../fixtures/pubmed/esummary_xml_error_no_id.xml");
    const JSON_FOUR_RECORDS: &str = include_str!("../../../fixtures/pubmed/esummary_json_four_records.json");

    fn date(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(year, month, day)
    }

    #[test]
    fn xml_two_docsums() {
        let parsed = parse_esummary_xml(XML_TWO_DOCSUMS).expect("summaries");
        assert!(parsed.warnings.is_empty());
        let [first, second] = parsed.items.as_slice() else { panic!("two papers") };
        assert_eq!(first.ids.pmid.as_deref(), Some("11850928"));
        assert_eq!(first.title, "Zirconium granuloma following treatment of rhus dermatitis.");
        let names: Vec<&str> = first.authors.iter().map(|author| author.name.as_str()).collect();
        assert_eq!(names, ["PJ LoPresti", "GW Hambrick Jr"]);
        assert_eq!(first.authors[1].family.as_deref(), Some("Hambrick"));
        assert_eq!(first.journal.as_deref(), Some("Archives of dermatology"));
        assert_eq!(first.published, date(1965, 8, 1), "free-text PubDate, empty EPubDate");
        assert_eq!(first.entered, date(1965, 8, 1));
        assert_eq!(second.publication_types, ["Journal Article", "Review"]);
        assert_eq!(second.entered, date(2001, 8, 3));
        assert_eq!(second.ids.doi, None);
    }

    #[test]
    fn xml_error_is_an_api_error() {
        assert_eq!(parse_esummary_xml(XML_ERROR_NO_ID), Err(EutilsError::Api("Neither query_key nor id specified".into())));
    }

    #[test]
    fn json_four_records() {
        let parsed = parse_esummary_json(JSON_FOUR_RECORDS).expect("summaries");
        assert!(parsed.warnings.is_empty());
        let pmids: Vec<&str> = parsed.items.iter().filter_map(|paper| paper.ids.pmid.as_deref()).collect();
        assert_eq!(pmids, ["31978945", "33515491", "32887691", "25760099"]);
        let first = &parsed.items[0];
        assert_eq!(first.ids.doi.as_deref(), Some("10.1056/nejmoa2001017"));
        assert_eq!(first.ids.pmcid.as_deref(), Some("PMC7092803"));
        assert_eq!(first.authors.len(), 19);
        assert_eq!(first.authors[18], Author::collective("China Novel Coronavirus Investigating and Research Team"));
        assert_eq!(first.published, date(2020, 1, 24), "the electronic date comes first");
        assert_eq!(first.entered, date(2020, 1, 25));
        let german = &parsed.items[3];
        assert_eq!(
            german.title,
            "Market Concentration in the Statutory Health Insurance of Germany since the Introduction of Free Choice of Sickness Funds."
        );
        assert_eq!(german.authors[0].name, "R Götze");
        assert_eq!(german.ids.doi.as_deref(), Some("10.1055/s-0034-1396891"));
        assert_eq!(german.ids.pmcid, None);
        assert_eq!(parsed.items[2].authors.len(), 85);
    }

    #[test]
    fn per_record_errors_are_warnings() {
        let json = r#"{"result":{"uids":["1","2"],"1":{"uid":"1","title":"Kept."},"2":{"uid":"2","error":"cannot get document summary"}}}"#;
        let parsed = parse_esummary_json(json).expect("summaries");
        assert_eq!(parsed.items.len(), 1);
        assert_eq!(parsed.warnings, [ParseWarning { record: Some("2".into()), message: "cannot get document summary".into() }]);
        assert!(matches!(parse_esummary_json("{}"), Err(EutilsError::Malformed(_))));
        assert!(matches!(parse_esummary_xml("<eSearchResult/>"), Err(EutilsError::Malformed(_))));
    }

    #[test]
    fn summary_author_names() {
        let check = |name: &str, expected: Author| assert_eq!(author_from_summary_name(name, false), expected, "{name}");
        check("LoPresti PJ", Author::person(Some("PJ"), "LoPresti"));
        check("De Luca F", Author::person(Some("F"), "De Luca"));
        check("Madonna", Author::person(None, "Madonna"));
        let mut junior = Author::person(Some("GW"), "Hambrick");
        junior.name = "GW Hambrick Jr".into();
        check("Hambrick GW Jr", junior);
    }
}
