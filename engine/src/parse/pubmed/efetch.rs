//! EFetch bodies (`efetch.fcgi?db=pubmed&retmode=xml`): a `<PubmedArticleSet>` of
//! `<PubmedArticle>` and `<PubmedBookArticle>` records, one [`Paper`] each.
//!
//! The body is cut into records first and each record is read on its own, so a record that is
//! malformed, cut off, or lacks its PMID or title costs only itself: it becomes a
//! [`ParseWarning`] naming its PMID (or its position) and the rest of the batch is kept.

use serde::Serialize;

use super::dates::date_from_parts;
use super::xml_tree::{find_root, parse_tree, parse_tree_pruned, Element};
use super::{mark_notices, normalize_pmcid, pubmed_links, strip_translation_brackets};
use crate::paper::{collapse_whitespace, normalize_doi, AbstractSection, Author, Paper, PaperIds, ParseWarning, Parsed, Source};

/// One EFetch record: the paper, plus what the shared model has no place for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PubmedRecord {
    pub paper: Paper,
    /// The title in the original language (`VernacularTitle`), when the article has one.
    pub vernacular_title: Option<String>,
}

/// The papers of an EFetch body, with a warning for each record that could not be read.
pub fn parse_efetch(xml: &str) -> Parsed<Paper> {
    let records = parse_efetch_records(xml);
    Parsed { items: records.items.into_iter().map(|record| record.paper).collect(), warnings: records.warnings }
}

/// Like [`parse_efetch`], keeping each record's vernacular title.
pub fn parse_efetch_records(xml: &str) -> Parsed<PubmedRecord> {
    let mut parsed = Parsed { items: Vec::new(), warnings: Vec::new() };
    let content_start = match find_article_set(xml) {
        Ok(Some(content_start)) => content_start,
        Ok(None) => return parsed,
        Err(message) => {
            parsed.warnings.push(ParseWarning { record: None, message });
            return parsed;
        }
    };

    let mut cursor = content_start;
    let mut position = 0usize;
    let mut last_record_was_complete = true;
    while let Some(slice) = next_record_slice(xml, cursor) {
        position += 1;
        cursor = slice.end;
        last_record_was_complete = slice.is_complete;
        match read_record(slice.text) {
            Ok(record) => parsed.items.push(record),
            Err(failure) => parsed
                .warnings
                .push(ParseWarning { record: Some(failure.pmid.unwrap_or_else(|| format!("record {position}"))), message: failure.message }),
        }
    }

    let set_is_closed = xml[cursor..].contains("</PubmedArticleSet>");
    if last_record_was_complete && !set_is_closed {
        parsed.warnings.push(ParseWarning {
            record: None,
            message: format!("the body ends before </PubmedArticleSet> after {position} records; it was probably cut short"),
        });
    }
    parsed
}

/// Why one record was skipped.
struct RecordFailure {
    pmid: Option<String>,
    message: String,
}

impl RecordFailure {
    fn new(pmid: Option<&str>, message: impl Into<String>) -> RecordFailure {
        RecordFailure { pmid: pmid.map(str::to_owned), message: message.into() }
    }
}

/// The record elements a `PubmedArticleSet` holds.
const RECORD_TAGS: [&str; 2] = ["PubmedArticle", "PubmedBookArticle"];

/// One record's text, from its start tag to its end tag (or to where the next record starts,
/// or the body ends, when its end tag is missing).
struct RecordSlice<'a> {
    text: &'a str,
    end: usize,
    is_complete: bool,
}

/// Where the set's content starts, `None` for an empty `<PubmedArticleSet/>`, or why the body is
/// not an article set.
fn find_article_set(xml: &str) -> Result<Option<usize>, String> {
    let (root_name, content_start) =
        find_root(xml).map_err(|problem| format!("the body is not a PubmedArticleSet ({problem}); it starts with `{}`", super::body_excerpt(xml)))?;
    if root_name == "PubmedArticleSet" {
        return Ok(content_start);
    }
    let reported_error = parse_tree(xml).ok().and_then(|root| root.child_text("ERROR"));
    Err(match reported_error {
        Some(error) => {
            format!("expected a PubmedArticleSet, but E-utilities answered <{root_name}> with the error: {error}")
        }
        None => format!("expected a PubmedArticleSet, but the root element is <{root_name}>"),
    })
}

fn next_record_slice(xml: &str, from: usize) -> Option<RecordSlice<'_>> {
    let (start, tag) = find_record_start(xml, from)?;
    let after_start_tag_name = start + 1 + tag.len();
    // One scan for whichever comes first: the record's end tag, or the start of the next record
    // (when this one's end tag is missing). Both hold "Pubmed", which is rare elsewhere.
    let mut search_from = after_start_tag_name;
    let (end, is_complete) = loop {
        let Some(offset) = xml[search_from..].find("Pubmed") else { break (xml.len(), false) };
        let at = search_from + offset;
        let closes_record = xml[at..].strip_prefix(tag).is_some_and(|rest| rest.starts_with('>'));
        if closes_record && xml[..at].ends_with("</") {
            break (at + tag.len() + 1, true);
        }
        if xml[..at].ends_with('<') && record_tag_at(&xml[at..]).is_some() {
            break (at - 1, false);
        }
        search_from = at + 1;
    };
    Some(RecordSlice { text: &xml[start..end], end, is_complete })
}

/// The next `<PubmedArticle>` or `<PubmedBookArticle>` start tag at or after `from` (and not
/// `<PubmedArticleSet>`).
fn find_record_start(xml: &str, from: usize) -> Option<(usize, &'static str)> {
    let mut search_from = from;
    loop {
        let candidate = search_from + xml[search_from..].find("<Pubmed")?;
        if let Some(tag) = record_tag_at(&xml[candidate + 1..]) {
            return Some((candidate, tag));
        }
        search_from = candidate + 1;
    }
}

/// The record tag that `after_bracket` (the text after a `<`) starts with, if it starts with one
/// followed by the end of the name.
fn record_tag_at(after_bracket: &str) -> Option<&'static str> {
    RECORD_TAGS.into_iter().find(|tag| {
        after_bracket
            .strip_prefix(tag)
            .is_some_and(|rest| rest.starts_with(|character: char| character == '>' || character == '/' || character.is_whitespace()))
    })
}

/// The parts of a record that [`read_journal_article`] and [`read_book_article`] never look at, as
/// (parent, child) element names: parsed and checked like the rest, but not kept in the tree. MeSH
/// headings and chemicals alone are about a third of a typical record; the dates, journal
/// information, pagination and identifiers are many small elements each. No (parent, child) pair
/// here names an element the readers look at, at any depth.
const UNREAD_PARTS: [(&str, &str); 24] = [
    ("MedlineCitation", "DateCompleted"),
    ("MedlineCitation", "DateRevised"),
    ("MedlineCitation", "MedlineJournalInfo"),
    ("MedlineCitation", "CitationSubset"),
    ("MedlineCitation", "OtherID"),
    ("MedlineCitation", "OtherAbstract"),
    ("MedlineCitation", "CoiStatement"),
    ("MedlineCitation", "GeneralNote"),
    ("MedlineCitation", "SpaceFlightMission"),
    ("MedlineCitation", "NumberOfReferences"),
    ("Article", "Pagination"),
    ("Article", "Language"),
    ("Author", "Identifier"),
    ("AffiliationInfo", "Identifier"),
    ("MedlineCitation", "ChemicalList"),
    ("MedlineCitation", "SupplMeshList"),
    ("MedlineCitation", "CommentsCorrectionsList"),
    ("MedlineCitation", "GeneSymbolList"),
    ("MedlineCitation", "PersonalNameSubjectList"),
    ("MedlineCitation", "InvestigatorList"),
    ("Article", "GrantList"),
    ("Article", "DataBankList"),
    ("PubmedData", "ReferenceList"),
    ("PubmedBookData", "ReferenceList"),
];

fn read_record(record_xml: &str) -> Result<PubmedRecord, RecordFailure> {
    let record = parse_tree_pruned(record_xml, &UNREAD_PARTS).map_err(|problem| RecordFailure::new(sniff_pmid(record_xml).as_deref(), problem))?;
    read_record_tree(&record)
}

fn read_record_tree(record: &Element) -> Result<PubmedRecord, RecordFailure> {
    match record.name.as_ref() {
        "PubmedBookArticle" => read_book_article(record),
        _ => read_journal_article(record),
    }
}

/// The first `<PMID>`'s text, found without parsing, to name a record that does not parse.
fn sniff_pmid(record_xml: &str) -> Option<String> {
    let after_tag_name = &record_xml[record_xml.find("<PMID")? + "<PMID".len()..];
    let content = &after_tag_name[after_tag_name.find('>')? + 1..];
    let pmid = content[..content.find('<')?].trim();
    let is_number = !pmid.is_empty() && pmid.chars().all(|character| character.is_ascii_digit());
    is_number.then(|| pmid.to_owned())
}

fn read_journal_article(record: &Element) -> Result<PubmedRecord, RecordFailure> {
    let pubmed_data = record.child("PubmedData");
    let Some(citation) = record.child("MedlineCitation") else {
        return Err(RecordFailure::new(None, "no MedlineCitation"));
    };
    let Some(pmid) = citation.child_text("PMID") else {
        let listed_pmid = pubmed_data.and_then(|data| listed_id(data, "pubmed"));
        let hint = listed_pmid.map(|pmid| format!(" (its ArticleIdList says pubmed {pmid})")).unwrap_or_default();
        return Err(RecordFailure::new(None, format!("no MedlineCitation/PMID{hint}")));
    };
    let Some(article) = citation.child("Article") else {
        return Err(RecordFailure::new(Some(&pmid), "no MedlineCitation/Article"));
    };
    let vernacular_title = article.child_text("VernacularTitle");
    let Some(title) = choose_title(article.child_text("ArticleTitle"), vernacular_title.as_deref()) else {
        return Err(RecordFailure::new(Some(&pmid), "no ArticleTitle or VernacularTitle"));
    };

    let mut paper = Paper::new(Source::Pubmed, title);
    paper.ids = record_ids(&pmid, pubmed_data, article.children_named("ELocationID"));
    paper.abstract_sections = abstract_sections(article.child("Abstract"));
    paper.authors = article.children_named("AuthorList").flat_map(authors).collect();
    paper.journal = article.descend(&["Journal", "Title"]).map(Element::text).filter(|title| !title.is_empty());
    paper.publication_types = texts(article.children_named("PublicationTypeList").flat_map(|list| list.children_named("PublicationType")));
    mark_notices(&mut paper);
    paper.categories = subjects(citation);
    let electronic_date = article
        .children_named("ArticleDate")
        .find(|date| date.attribute("DateType").unwrap_or("Electronic").eq_ignore_ascii_case("Electronic"))
        .and_then(date_from_parts);
    let issue_date = article.descend(&["Journal", "JournalIssue", "PubDate"]).and_then(date_from_parts);
    paper.published = electronic_date.or(issue_date);
    paper.entered = entry_date(pubmed_data);
    paper.links = pubmed_links(&paper.ids);
    Ok(PubmedRecord { paper, vernacular_title })
}

/// A `PubmedBookArticle`: a book chapter (GeneReviews, StatPearls, ...) or a whole book.
fn read_book_article(record: &Element) -> Result<PubmedRecord, RecordFailure> {
    let Some(document) = record.child("BookDocument") else {
        return Err(RecordFailure::new(None, "no BookDocument"));
    };
    let Some(pmid) = document.child_text("PMID") else {
        return Err(RecordFailure::new(None, "no BookDocument/PMID"));
    };
    let book = document.child("Book");
    let book_title = book.and_then(|book| book.child_text("BookTitle"));
    let vernacular_title = document.child_text("VernacularTitle");
    let chapter_or_book_title = document.child_text("ArticleTitle").or_else(|| book_title.clone());
    let Some(title) = choose_title(chapter_or_book_title, vernacular_title.as_deref()) else {
        return Err(RecordFailure::new(Some(&pmid), "no ArticleTitle, BookTitle or VernacularTitle"));
    };

    let book_data = record.child("PubmedBookData");
    let mut paper = Paper::new(Source::Pubmed, title);
    paper.ids = record_ids(&pmid, book_data, document.children_named("ELocationID"));
    paper.abstract_sections = abstract_sections(document.child("Abstract"));
    paper.authors =
        document.children_named("AuthorList").filter(|list| list.attribute("Type").unwrap_or("authors") == "authors").flat_map(authors).collect();
    let publisher = book.and_then(|book| book.descend(&["Publisher", "PublisherName"])).map(Element::text);
    paper.journal = book_title.or(publisher).filter(|name| !name.is_empty());
    let listed_types = document.children_named("PublicationTypeList").flat_map(|list| list.children_named("PublicationType"));
    paper.publication_types = texts(document.children_named("PublicationType").chain(listed_types));
    mark_notices(&mut paper);
    paper.categories = keywords(document.children_named("KeywordList"));
    let contribution_date = document.child("ContributionDate").and_then(date_from_parts);
    let book_date = book.and_then(|book| book.child("PubDate")).and_then(date_from_parts);
    paper.published = contribution_date.or(book_date);
    paper.entered = entry_date(book_data);
    paper.links = pubmed_links(&paper.ids);
    Ok(PubmedRecord { paper, vernacular_title })
}

/// The English title without translation brackets; the vernacular one when there is no other.
fn choose_title(article_title: Option<String>, vernacular_title: Option<&str>) -> Option<String> {
    article_title.map(|title| strip_translation_brackets(&title)).filter(|title| !title.is_empty()).or_else(|| vernacular_title.map(str::to_owned))
}

/// The record's ids: the PMID, and the DOI and PMC id from the record's own `ArticleIdList`
/// (the child of `PubmedData`/`PubmedBookData`, never a `Reference`'s), falling back to an
/// `ELocationID` for the DOI.
fn record_ids<'b, 'a: 'b>(pmid: &str, data: Option<&Element>, elocation_ids: impl Iterator<Item = &'b Element<'a>>) -> PaperIds {
    let listed_doi = data.and_then(|data| listed_id(data, "doi")).and_then(|doi| normalize_doi(&doi));
    let elocation_doi = || {
        elocation_ids
            .filter(|id| id.attribute("EIdType") == Some("doi") && id.attribute("ValidYN") != Some("N"))
            .find_map(|id| normalize_doi(&id.text()))
    };
    PaperIds {
        pmid: Some(pmid.to_owned()),
        doi: listed_doi.or_else(elocation_doi),
        pmcid: data.and_then(|data| listed_id(data, "pmc")).and_then(|pmcid| normalize_pmcid(&pmcid)),
        ..PaperIds::default()
    }
}

/// The first `ArticleIdList/ArticleId` of `id_type` directly under `data`.
fn listed_id(data: &Element, id_type: &str) -> Option<String> {
    data.children_named("ArticleIdList")
        .flat_map(|list| list.children_named("ArticleId"))
        .filter(|id| id.attribute("IdType") == Some(id_type))
        .find_map(|id| Some(id.text()).filter(|text| !text.is_empty()))
}

/// Each non-empty `AbstractText`, with its `Label` when the abstract is structured. The
/// `CopyrightInformation` is not part of the abstract.
fn abstract_sections(abstract_element: Option<&Element>) -> Vec<AbstractSection> {
    let Some(abstract_element) = abstract_element else { return Vec::new() };
    abstract_element
        .children_named("AbstractText")
        .filter_map(|part| {
            let text = part.text();
            let label = part.attribute("Label").map(collapse_whitespace).filter(|label| !label.is_empty());
            (!text.is_empty()).then_some(AbstractSection { label, text })
        })
        .collect()
}

fn authors(author_list: &Element) -> Vec<Author> {
    author_list.children_named("Author").filter(|author| author.attribute("ValidYN") != Some("N")).filter_map(author).collect()
}

/// A person (`LastName` with `ForeName`, else `Initials`, and any `Suffix`) or a collective
/// (`CollectiveName`), with affiliations.
fn author(author_element: &Element) -> Option<Author> {
    let mut author = match author_element.child_text("CollectiveName") {
        Some(collective_name) => Author::collective(&collective_name),
        None => {
            let family = author_element.child_text("LastName")?;
            let given = author_element.child_text("ForeName").or_else(|| author_element.child_text("Initials"));
            let mut person = Author::person(given.as_deref(), &family);
            if let Some(suffix) = author_element.child_text("Suffix") {
                person.name = format!("{} {suffix}", person.name);
            }
            person
        }
    };
    author.affiliations = author_element.children_named("AffiliationInfo").filter_map(|info| info.child_text("Affiliation")).collect();
    Some(author)
}

/// Keywords of every `KeywordList`, without repeats (compared ignoring case).
/// A citation's subject terms: its keywords, then its MeSH headings (the descriptors; new
/// records get them weeks after they enter PubMed), each once whatever its case.
fn subjects(citation: &Element) -> Vec<String> {
    let mut subjects = keywords(citation.children_named("KeywordList"));
    let headings = citation.children_named("MeshHeadingList").flat_map(|list| list.children_named("MeshHeading"));
    for descriptor in texts(headings.filter_map(|heading| heading.child("DescriptorName"))) {
        if !subjects.iter().any(|seen| seen.to_lowercase() == descriptor.to_lowercase()) {
            subjects.push(descriptor);
        }
    }
    subjects
}

fn keywords<'b, 'a: 'b>(keyword_lists: impl Iterator<Item = &'b Element<'a>>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for keyword in texts(keyword_lists.flat_map(|list| list.children_named("Keyword"))) {
        if !unique.iter().any(|seen| seen.to_lowercase() == keyword.to_lowercase()) {
            unique.push(keyword);
        }
    }
    unique
}

fn texts<'b, 'a: 'b>(elements: impl Iterator<Item = &'b Element<'a>>) -> Vec<String> {
    elements.map(Element::text).filter(|text| !text.is_empty()).collect()
}

/// The Entrez date (when the record entered PubMed), else the `pubmed` date.
fn entry_date(data: Option<&Element>) -> Option<chrono::NaiveDate> {
    let history = data?.child("History")?;
    let dated =
        |status: &str| history.children_named("PubMedPubDate").filter(|date| date.attribute("PubStatus") == Some(status)).find_map(date_from_parts);
    dated("entrez").or_else(|| dated("pubmed"))
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use proptest::prelude::*;

    use super::*;
    use crate::paper::LinkKind;

    const TWO_WITH_CHARREF_AFFILIATION: &str = include_str!("../../../fixtures/pubmed/efetch_2_articles_charref_affiliation_11748933_11700088.xml");
    const TWO_ONE_WITHOUT_ABSTRACT: &str = include_str!("../../../fixtures/pubmed/efetch_2_articles_one_without_abstract_12091962_9997.xml");
    const INLINE_MARKUP_ABSTRACT: &str = include_str!("../../../fixtures/pubmed/efetch_abstract_with_inline_markup_29186030.xml");
    const BATCH_OF_20: &str = include_str!("../../../fixtures/pubmed/efetch_batch_20_articles.xml");
    const BATCH_OF_6: &str = include_str!("../../../fixtures/pubmed/efetch_batch_6_articles.xml");

    /// A record one of whose tags carries 40,000 attributes reads exactly as the record without
    /// them. The input of RUSTSEC-2026-0194: quick-xml before 0.41 compared each attribute name of a
    /// tag with every earlier one, so such a tag cost seconds of CPU (1.6 s in a release build). The
    /// `Label` read from the tag comes after all of them.
    #[test]
    fn a_tag_with_forty_thousand_attributes_reads_as_without_them() {
        let plain = include_str!("../../../fixtures/pubmed/efetch_structured_abstract_21813367.xml");
        let many: String = (0..40_000).map(|n| format!(" a{n}=\"{n}\"")).collect();
        let tag = r#"<AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">"#;
        let heavy = plain.replacen(tag, &format!(r#"<AbstractText{many} Label="BACKGROUND" NlmCategory="BACKGROUND">"#), 1);
        assert!(heavy.len() > plain.len() + 40_000 * 8, "the tag is in the fixture");

        let papers = parse_efetch(&heavy);
        assert_eq!(papers, parse_efetch(plain));
        assert_eq!(papers.items.len(), 1);
        assert_eq!(papers.items[0].abstract_sections[0].label.as_deref(), Some("BACKGROUND"));
    }

    #[test]
    fn references_escaped_twice_in_the_recorded_batch_read_as_their_characters() {
        let papers = parse_efetch(BATCH_OF_20).items;
        let text: String = papers.iter().map(|paper| format!("{} {}", paper.title, paper.abstract_text())).collect();
        assert!(!text.contains("&percnt;") && !text.contains("&reg;"), "an entity was left in the text");
        assert!(text.contains("95% that of"), "the recorded '95&amp;percnt; that of' reads as 95%");
    }

    #[test]
    fn pruning_the_unread_parts_changes_no_record() {
        let bodies = [
            BATCH_OF_6,
            BATCH_OF_20,
            TWO_WITH_CHARREF_AFFILIATION,
            TWO_ONE_WITHOUT_ABSTRACT,
            INLINE_MARKUP_ABSTRACT,
            include_str!("../../../fixtures/pubmed/efetch_book_chapter_pubmedbookarticle_20301382.xml"),
            include_str!("../../../fixtures/pubmed/efetch_charref_inside_italic_title_37167981.xml"),
            include_str!("../../../fixtures/pubmed/efetch_collective_author_no_abstract_21860499.xml"),
            include_str!("../../../fixtures/pubmed/efetch_collective_author_raw_utf8_29963580.xml"),
            include_str!("../../../fixtures/pubmed/efetch_collective_author_structured_abstract_38534005.xml"),
            include_str!("../../../fixtures/pubmed/efetch_no_abstract_11618220.xml"),
            include_str!("../../../fixtures/pubmed/efetch_reference_list_cites_preprint_dois_36156117.xml"),
            include_str!("../../../fixtures/pubmed/efetch_structured_abstract_21813367.xml"),
            include_str!("../../../fixtures/pubmed/efetch_structured_abstract_italic_in_title_27797938.xml"),
            include_str!("../../../fixtures/pubmed/efetch_vernacular_title_norwegian_structured_abstract_36987902.xml"),
        ];
        let mut pruned_elements = 0;
        for body in bodies {
            let mut cursor = find_article_set(body).expect("an article set").expect("records");
            while let Some(slice) = next_record_slice(body, cursor) {
                cursor = slice.end;
                let full = parse_tree(slice.text).expect("well-formed");
                let pruned = parse_tree_pruned(slice.text, &UNREAD_PARTS).expect("well-formed");
                pruned_elements +=
                    UNREAD_PARTS.iter().filter(|(parent, child)| full.descend(&[parent]).is_some_and(|parent| parent.child(child).is_some())).count();
                let read_full = read_record_tree(&full).ok();
                assert!(read_full.is_some(), "a recorded record reads");
                assert_eq!(read_record_tree(&pruned).ok(), read_full);
            }
        }
        assert!(pruned_elements > 0, "the fixtures have parts to prune");
    }
    const BOOK_CHAPTER: &str = include_str!("../../../fixtures/pubmed/efetch_book_chapter_pubmedbookarticle_20301382.xml");
    const CHARREF_IN_ITALIC_TITLE: &str = include_str!("../../../fixtures/pubmed/efetch_charref_inside_italic_title_37167981.xml");
    const COLLECTIVE_NO_ABSTRACT: &str = include_str!("../../../fixtures/pubmed/efetch_collective_author_no_abstract_21860499.xml");
    const COLLECTIVE_RAW_UTF8: &str = include_str!("../../../fixtures/pubmed/efetch_collective_author_raw_utf8_29963580.xml");
    const COLLECTIVE_STRUCTURED: &str = include_str!("../../../fixtures/pubmed/efetch_collective_author_structured_abstract_38534005.xml");
    const NO_ABSTRACT: &str = include_str!("../../../fixtures/pubmed/efetch_no_abstract_11618220.xml");
    const CITES_PREPRINTS: &str = include_str!("../../../fixtures/pubmed/efetch_reference_list_cites_preprint_dois_36156117.xml");
    const STRUCTURED: &str = include_str!("../../../fixtures/pubmed/efetch_structured_abstract_21813367.xml");
    const STRUCTURED_ITALIC_TITLE: &str = include_str!("../../../fixtures/pubmed/efetch_structured_abstract_italic_in_title_27797938.xml");
    const VERNACULAR_TITLE: &str = include_str!("../../../fixtures/pubmed/efetch_vernacular_title_norwegian_structured_abstract_36987902.xml");

    const BATCH_OF_6_PMIDS: [&str; 6] = ["19008416", "18927361", "18787170", "18487186", "18239126", "18239125"];

    /// Parses a body that must give exactly one paper and no warning.
    fn single_paper(xml: &str) -> Paper {
        let parsed = parse_efetch(xml);
        assert!(parsed.warnings.is_empty(), "unexpected warnings: {:?}", parsed.warnings);
        assert_eq!(parsed.items.len(), 1);
        parsed.items.into_iter().next().expect("one paper")
    }

    /// Snapshots land in `src/parse/snapshots/`, beside the other parsers'.
    fn assert_paper_snapshot(name: &str, value: &impl Serialize) {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../snapshots");
        settings.bind(|| insta::assert_json_snapshot!(name, value));
    }

    fn labels(paper: &Paper) -> Vec<&str> {
        paper.abstract_sections.iter().filter_map(|section| section.label.as_deref()).collect()
    }

    fn pmids(papers: &[Paper]) -> Vec<&str> {
        papers.iter().filter_map(|paper| paper.ids.pmid.as_deref()).collect()
    }

    fn date(year: i32, month: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(year, month, day)
    }

    fn no_markup_left(text: &str) -> bool {
        !text.contains(['<', '>']) && !text.contains("&#")
    }

    #[test]
    fn two_articles_with_a_character_reference_in_an_affiliation() {
        let parsed = parse_efetch(TWO_WITH_CHARREF_AFFILIATION);
        assert!(parsed.warnings.is_empty());
        assert_eq!(pmids(&parsed.items), ["11748933", "11700088"]);
        let first = &parsed.items[0];
        assert_eq!(first.ids.doi.as_deref(), Some("10.1006/cryo.2001.2328"));
        assert_eq!(first.journal.as_deref(), Some("Cryobiology"));
        assert_eq!(first.authors[0].name, "A R Taddei");
        assert_eq!(first.authors[0].affiliations, ["Dipartimento di Scienze Ambientali, Università degli Studi della Tuscia, 01100 Viterbo, Italy."]);
        assert_eq!(first.authors.len(), 8);
        let abstract_text = first.abstract_text();
        assert!(abstract_text.contains("(P < 0.001)"), "{abstract_text}");
        assert!(!abstract_text.contains("Copyright"), "copyright is not abstract");
        assert_eq!(first.published, date(2001, 6, 1));
        assert_eq!(first.entered, date(2001, 12, 26));
        assert_eq!(parsed.items[1].title, "Proton MRI of (13)C distribution by J and chemical shift editing.");
        assert_eq!(parsed.items[1].ids.doi.as_deref(), Some("10.1006/jmre.2001.2429"));
    }

    #[test]
    fn mesh_headings_are_subject_terms_after_the_keywords() {
        let parsed = parse_efetch(BATCH_OF_6);
        let paper = parsed.items.iter().find(|paper| paper.ids.pmid.as_deref() == Some("19008416")).expect("19008416");
        assert!(paper.categories.contains(&"Prostatic Neoplasms".to_owned()), "{:?}", paper.categories);
        assert_eq!(paper.categories.first().map(String::as_str), Some("3' Untranslated Regions"), "the headings in their order");
        assert!(!paper.categories.iter().any(|subject| subject == "genetics"), "qualifiers are not subjects");
        let with_keywords = parse_efetch(TWO_ONE_WITHOUT_ABSTRACT);
        let subjects = &with_keywords.items[0].categories;
        assert_eq!(subjects[..2], ["Health Care and Public Health", "Legal Approach"], "the keywords first");
        assert!(subjects.contains(&"Acquired Immunodeficiency Syndrome".to_owned()), "then the headings: {subjects:?}");
    }

    #[test]
    fn two_articles_one_without_abstract_and_a_season_date() {
        let parsed = parse_efetch(TWO_ONE_WITHOUT_ABSTRACT);
        assert!(parsed.warnings.is_empty());
        let [without_abstract, with_parenthesised_doi] = parsed.items.as_slice() else { panic!("two papers") };
        assert_eq!(without_abstract.ids.pmid.as_deref(), Some("12091962"));
        assert!(without_abstract.abstract_sections.is_empty());
        assert_eq!(without_abstract.published, date(1990, 1, 1), "Season falls back to the year");
        assert_eq!(without_abstract.categories[..2], ["Health Care and Public Health", "Legal Approach"]);
        assert_eq!(without_abstract.publication_types, ["Journal Article", "Review"]);
        assert_eq!(without_abstract.ids.doi, None);
        assert_eq!(without_abstract.links.len(), 1);
        assert_eq!(with_parenthesised_doi.ids.doi.as_deref(), Some("10.1016/0005-2795(76)90109-4"));
        assert_eq!(with_parenthesised_doi.published, date(1976, 9, 28));
        let doi_link = with_parenthesised_doi.links.iter().find(|link| link.kind == LinkKind::Doi).expect("doi link");
        assert_eq!(doi_link.url, "https://doi.org/10.1016/0005-2795(76)90109-4");
    }

    #[test]
    fn abstract_with_inline_markup_keeps_every_word() {
        let paper = single_paper(INLINE_MARKUP_ABSTRACT);
        assert_eq!(paper.ids.pmid.as_deref(), Some("29186030"));
        assert_eq!(paper.ids.doi.as_deref(), Some("10.3390/ijms18122564"));
        let abstract_text = paper.abstract_text();
        assert!(no_markup_left(&abstract_text), "{abstract_text}");
        assert!(abstract_text.starts_with("CYP353D1v2 is a cytochrome P450 related to imidacloprid resistance in Laodelphax striatellus."));
        assert!(abstract_text.contains("the model substrate p-nitroanisole") && abstract_text.contains("Km = 6.21 µM"));
        assert!(no_markup_left(&paper.title));
        assert_paper_snapshot("abstract_with_inline_markup_29186030", &paper);
    }

    #[test]
    fn batch_of_20_articles() {
        let parsed = parse_efetch(BATCH_OF_20);
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(parsed.items.len(), 20);
        let count = |keep: fn(&Paper) -> bool| parsed.items.iter().filter(|paper| keep(paper)).count();
        assert_eq!(count(|paper| paper.abstract_sections.is_empty()), 1);
        assert_eq!(count(|paper| paper.ids.doi.is_none()), 3);
        assert_eq!(count(|paper| paper.ids.pmcid.is_some()), 1);
        assert!(parsed.items.iter().all(|paper| paper.ids.pmid.is_some() && paper.entered.is_some() && paper.published.is_some()));
        assert!(parsed.items.iter().all(|paper| paper.links[0].kind == LinkKind::Abstract));
        let suffixed = parsed.items.iter().flat_map(|paper| &paper.authors).filter(|author| author.name.ends_with(" Jr")).count();
        assert_eq!(suffixed, 2);
    }

    #[test]
    fn batch_of_6_articles() {
        let parsed = parse_efetch(BATCH_OF_6);
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        assert_eq!(pmids(&parsed.items), BATCH_OF_6_PMIDS);
        assert_eq!(parsed.items.iter().filter(|paper| paper.ids.pmcid.is_some()).count(), 5);
        assert_eq!(parsed.items.iter().filter(|paper| paper.abstract_sections.is_empty()).count(), 1);
        assert!(parsed.items.iter().all(|paper| paper.journal.as_deref() == Some("Science (New York, N.Y.)")));
        assert!(parsed.items.iter().all(|paper| paper.ids.doi.as_deref().is_some_and(|doi| doi.starts_with("10.1126/science."))));
        assert_paper_snapshot("batch_of_6_articles", &parsed.items);
    }

    #[test]
    fn book_chapter() {
        let parsed = parse_efetch_records(BOOK_CHAPTER);
        assert!(parsed.warnings.is_empty());
        let paper = &parsed.items[0].paper;
        assert_eq!(paper.ids.pmid.as_deref(), Some("20301382"));
        assert_eq!(paper.title, "Single Large-Scale Mitochondrial DNA Deletion Syndromes");
        assert_eq!(paper.journal.as_deref(), Some("GeneReviews®"));
        assert_eq!(labels(paper), ["CLINICAL CHARACTERISTICS", "DIAGNOSIS/TESTING", "MANAGEMENT", "GENETIC COUNSELING"]);
        let names: Vec<&str> = paper.authors.iter().map(|author| author.name.as_str()).collect();
        assert_eq!(names, ["Amy Goldstein", "Marni J Falk"], "editors are not authors");
        assert_eq!(paper.publication_types, ["Review"]);
        assert_eq!(paper.ids.doi, None);
        assert_eq!(paper.categories.len(), 9, "repeated keywords are dropped: {:?}", paper.categories);
        assert_eq!(paper.published, date(2003, 12, 17));
        assert_eq!(paper.entered, date(2023, 9, 28));
        assert!(paper.abstract_text().contains("coenzyme Q10 and antioxidants"));
        assert_paper_snapshot("book_chapter_20301382", paper);
    }

    #[test]
    fn character_reference_inside_italic_title() {
        let paper = single_paper(CHARREF_IN_ITALIC_TITLE);
        assert_eq!(
            paper.title,
            "Monte Carlo simulation of micro-x-ray fluorescence (μ-XRF) based detection of immunomagnetically labeled tumor cells."
        );
        assert!(paper.categories.contains(&"micro-x-ray fluorescence (μ-XRF)".to_owned()));
        assert!(paper.abstract_text().contains("Fe3O4@SiO2"));
        assert_eq!(paper.authors[0].affiliations, ["Federal University of Technology - Paraná, Curitiba, Brazil."]);
        assert_eq!(paper.published, date(2023, 5, 30));
        assert_eq!(paper.entered, date(2023, 5, 11));
        assert_paper_snapshot("charref_inside_italic_title_37167981", &paper);
    }

    #[test]
    fn collective_author_without_abstract() {
        let paper = single_paper(COLLECTIVE_NO_ABSTRACT);
        assert_eq!(paper.title, "Nitrofen.");
        assert_eq!(paper.authors, [Author::collective("National Toxicology Program")]);
        assert!(paper.abstract_sections.is_empty());
        assert_eq!(paper.ids.doi, None);
        assert_eq!(paper.published, date(2011, 1, 1));
        assert_eq!(paper.entered, date(2011, 8, 24));
        assert_paper_snapshot("collective_author_no_abstract_21860499", &paper);
    }

    #[test]
    fn collective_author_in_an_indented_raw_utf8_record() {
        let paper = single_paper(COLLECTIVE_RAW_UTF8);
        assert_eq!(paper.ids.pmid.as_deref(), Some("29963580"));
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1117/1.jmi.5.2.026002"), "not a cited work's DOI");
        assert_eq!(paper.authors.iter().filter(|author| author.is_collective).count(), 1);
        let abstract_text = paper.abstract_text();
        assert!(abstract_text.contains("inhaled 3He/129Xe MRI ventilation"), "MathML flattened: {abstract_text}");
        assert!(no_markup_left(&abstract_text));
        assert_paper_snapshot("collective_author_raw_utf8_29963580", &paper);
    }

    #[test]
    fn collective_author_with_structured_abstract() {
        let paper = single_paper(COLLECTIVE_STRUCTURED);
        let collective = paper.authors.iter().find(|author| author.is_collective).expect("a collective author");
        assert!(collective.name.starts_with("Task and Finish Group for Urinalysis (TFG-U), European Federation"), "{}", collective.name);
        assert!(paper.authors.iter().any(|author| author.name == "Sören Schubert"));
        assert_eq!(
            labels(&paper),
            ["BACKGROUND", "RECOMMENDATIONS", "MEDICAL NEEDS AND TEST REQUISITION", "SPECIMEN COLLECTION", "CHEMISTRY", "PARTICLES", "BACTERIOLOGY"]
        );
        assert!(paper.abstract_text().contains("α1-microglobulin"));
        assert_eq!(paper.published, date(2024, 6, 5), "the electronic ArticleDate comes first");
        assert_paper_snapshot("collective_author_structured_abstract_38534005", &paper);
    }

    #[test]
    fn minimal_record_without_abstract() {
        let paper = single_paper(NO_ABSTRACT);
        assert_eq!(paper.title, "Eroticism in late Ming, early Qing fiction: the beauteous realm and the sexual battlefield.");
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1163/156853287x00032"));
        assert_eq!(paper.authors, [Author::person(Some("K"), "McMahon")]);
        assert_eq!(paper.journal.as_deref(), Some("T'ung pao. T'oung pao"));
        assert_eq!(paper.published, date(1987, 1, 1));
        assert_paper_snapshot("no_abstract_11618220", &paper);
    }

    #[test]
    fn cited_preprint_dois_are_not_the_articles() {
        let paper = single_paper(CITES_PREPRINTS);
        assert!(CITES_PREPRINTS.contains("10.1101/"), "the fixture cites preprints");
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1093/cid/ciac769"));
        assert_eq!(paper.ids.pmcid.as_deref(), Some("PMC9619446"));
        assert_eq!(paper.ids.preprint_doi, None);
        assert!(paper.links.iter().all(|link| !link.url.contains("10.1101")));
        assert_eq!(paper.published, date(2023, 1, 13));
        assert_eq!(paper.entered, date(2022, 9, 26));
        assert_paper_snapshot("reference_list_cites_preprint_dois_36156117", &paper);
    }

    #[test]
    fn structured_abstract_with_cited_works() {
        let paper = single_paper(STRUCTURED);
        assert_eq!(paper.ids.pmid.as_deref(), Some("21813367"));
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1289/ehp.1103729"));
        assert_eq!(labels(&paper).len(), 5);
        assert_paper_snapshot("structured_abstract_21813367", &paper);
    }

    #[test]
    fn structured_abstract_and_italic_title_in_indented_output() {
        let paper = single_paper(STRUCTURED_ITALIC_TITLE);
        assert_eq!(paper.title, "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer.");
        assert_eq!(labels(&paper), ["OBJECTIVE", "DESIGN", "RESULTS", "CONCLUSIONS"]);
        let results = &paper.abstract_sections[2].text;
        assert!(results.contains("ptrend=0.048") && results.contains("r2<0.25"), "{results}");
        assert_eq!(paper.ids.doi.as_deref(), Some("10.1136/gutjnl-2016-312510"));
        assert!(paper.ids.pmcid.is_some());
        assert_eq!(paper.links.len(), 3);
        assert_paper_snapshot("structured_abstract_italic_in_title_27797938", &paper);
    }

    #[test]
    fn vernacular_title_is_kept_beside_the_english_one() {
        let parsed = parse_efetch_records(VERNACULAR_TITLE);
        assert!(parsed.warnings.is_empty());
        let record = &parsed.items[0];
        assert_eq!(record.paper.title, "Patients over 75 years admitted to the National Burn Centre, Haukeland University Hospital, 2000-19.");
        assert_eq!(
            record.vernacular_title.as_deref(),
            Some("Pasienter over 75 år innlagt ved Brannskadeavdelinga, Haukeland universitetssjukehus 2000–19.")
        );
        assert_eq!(labels(&record.paper), ["BACKGROUND", "MATERIAL AND METHOD", "RESULTS", "INTERPRETATION"]);
        assert!(record.paper.abstract_text().contains("All patients ≥ 75 years"));
        assert_eq!(record.paper.authors[0].name, "Øyvind Bruserud");
        assert_paper_snapshot("vernacular_title_36987902", &record.paper);
    }

    #[test]
    fn a_truncated_body_keeps_the_records_before_the_cut() {
        let cut_inside_fourth = BATCH_OF_6.find("<PMID Version=\"1\">18487186</PMID>").expect("fourth record") + 200;
        let parsed = parse_efetch(&BATCH_OF_6[..cut_inside_fourth]);
        assert_eq!(pmids(&parsed.items), BATCH_OF_6_PMIDS[..3]);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record.as_deref(), Some("18487186"));

        let cut_between_records = BATCH_OF_6.find("</PubmedArticle>").expect("first record") + "</PubmedArticle>".len();
        let parsed = parse_efetch(&BATCH_OF_6[..cut_between_records]);
        assert_eq!(pmids(&parsed.items), BATCH_OF_6_PMIDS[..1]);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record, None);
        assert!(parsed.warnings[0].message.contains("cut short"));
    }

    #[test]
    fn a_garbled_record_costs_only_itself() {
        let second_title_end = BATCH_OF_6.match_indices("</ArticleTitle>").nth(1).expect("second title").0;
        let garbled = format!("{}</Oops>{}", &BATCH_OF_6[..second_title_end], &BATCH_OF_6[second_title_end..]);
        let parsed = parse_efetch(&garbled);
        assert_eq!(pmids(&parsed.items), ["19008416", "18787170", "18487186", "18239126", "18239125"]);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record.as_deref(), Some("18927361"));

        let third_start = BATCH_OF_6.match_indices("<PubmedArticle>").nth(2).expect("third record").0;
        let junk_in_the_middle = format!("{}<PubmedArticle>%PDF-1.4 \u{0} garbage & more{}", &BATCH_OF_6[..third_start], &BATCH_OF_6[third_start..]);
        let parsed = parse_efetch(&junk_in_the_middle);
        assert_eq!(pmids(&parsed.items), BATCH_OF_6_PMIDS);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record.as_deref(), Some("record 3"));
    }

    #[test]
    fn an_article_without_its_pmid_gives_one_warning() {
        let without_pmid = BATCH_OF_6.replacen("<PMID Version=\"1\">18787170</PMID>", "", 1);
        let parsed = parse_efetch(&without_pmid);
        assert_eq!(pmids(&parsed.items), ["19008416", "18927361", "18487186", "18239126", "18239125"]);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record.as_deref(), Some("record 3"));
        assert!(parsed.warnings[0].message.contains("18787170"), "{}", parsed.warnings[0].message);
    }

    #[test]
    fn an_article_without_a_title_gives_one_warning() {
        let title_start = BATCH_OF_6.find("<ArticleTitle>").expect("a title") + "<ArticleTitle>".len();
        let title_end = BATCH_OF_6.find("</ArticleTitle>").expect("a title end");
        let untitled = format!("{}{}", &BATCH_OF_6[..title_start], &BATCH_OF_6[title_end..]);
        let parsed = parse_efetch(&untitled);
        assert_eq!(parsed.items.len(), 5);
        assert_eq!(parsed.warnings.len(), 1);
        assert_eq!(parsed.warnings[0].record.as_deref(), Some("19008416"));
    }

    #[test]
    fn bodies_that_are_not_article_sets_give_one_warning() {
        let bodies = [
            "",
            "Service Temporarily Unavailable",
            "{\"error\":\"API rate limit exceeded\",\"count\":\"11\"}",
            "<html><body><h1>502 Bad Gateway</h1></body></html>",
            "<?xml version=\"1.0\"?>\n<eFetchResult>\n\t<ERROR>Empty id list - nothing todo</ERROR>\n</eFetchResult>",
            include_str!("../../../fixtures/pubmed/esearch_xml_rettype_count.xml"),
            "<PubmedArticleSet",
        ];
        for body in bodies {
            let parsed = parse_efetch(body);
            assert!(parsed.items.is_empty(), "{body}");
            assert_eq!(parsed.warnings.len(), 1, "{body}: {:?}", parsed.warnings);
        }
        let error_body = parse_efetch(bodies[4]);
        assert!(error_body.warnings[0].message.contains("Empty id list"), "{:?}", error_body.warnings);
    }

    #[test]
    fn an_empty_article_set_is_no_papers_and_no_warnings() {
        assert_eq!(parse_efetch("<PubmedArticleSet></PubmedArticleSet>"), Parsed { items: Vec::new(), warnings: Vec::new() });
        assert_eq!(parse_efetch("<?xml version=\"1.0\" ?>\n<PubmedArticleSet/>"), Parsed { items: Vec::new(), warnings: Vec::new() });
    }

    /// A hand-made minimal record for behaviour no recording shows.
    fn minimal_record(article_inner: &str) -> String {
        format!(
            "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article>{article_inner}</Article>\
             </MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType=\"pubmed\">1</ArticleId></ArticleIdList>\
             </PubmedData></PubmedArticle></PubmedArticleSet>"
        )
    }

    #[test]
    fn retraction_notices_medline_dates_and_invalid_authors() {
        let xml = minimal_record(
            "<Journal><JournalIssue><PubDate><MedlineDate>2019 Jan-Feb</MedlineDate></PubDate></JournalIssue></Journal>\
             <ArticleTitle>Retraction.</ArticleTitle>\
             <AuthorList><Author ValidYN=\"N\"><LastName>Wrong</LastName></Author><Author><LastName>Right</LastName><Initials>AB</Initials></Author></AuthorList>\
             <PublicationTypeList><PublicationType>Retraction of Publication</PublicationType></PublicationTypeList>",
        );
        let paper = single_paper(&xml);
        assert!(paper.is_retraction && !paper.is_erratum);
        assert_eq!(paper.published, date(2019, 1, 1));
        assert_eq!(paper.authors, [Author::person(Some("AB"), "Right")]);
        assert_eq!(paper.entered, None);
    }

    #[test]
    fn bracketed_translations_and_vernacular_only_titles() {
        let translated = single_paper(&minimal_record(
            "<ArticleTitle>[Burns in the elderly].</ArticleTitle><VernacularTitle>Brannskader hos eldre.</VernacularTitle>",
        ));
        assert_eq!(translated.title, "Burns in the elderly.");
        let vernacular_only = single_paper(&minimal_record("<ArticleTitle></ArticleTitle><VernacularTitle>Brannskader hos eldre.</VernacularTitle>"));
        assert_eq!(vernacular_only.title, "Brannskader hos eldre.");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Cutting the batch anywhere keeps exactly the records that ended before the cut and
        /// says, once, that something is missing.
        #[test]
        fn any_truncation_keeps_the_complete_records(cut in 0usize..BATCH_OF_6.len()) {
            let mut cut_at = cut;
            while !BATCH_OF_6.is_char_boundary(cut_at) {
                cut_at -= 1;
            }
            let prefix = &BATCH_OF_6[..cut_at];
            let parsed = parse_efetch(prefix);
            prop_assert_eq!(parsed.items.len(), prefix.matches("</PubmedArticle>").count());
            prop_assert_eq!(parsed.warnings.len(), 1);
        }
    }
}
