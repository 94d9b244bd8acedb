//! ESearch answers (`esearch.fcgi?db=pubmed&term=…`), XML (`<eSearchResult>`) or JSON
//! (`{"esearchresult":{…}}`, where every number is a string).
//!
//! A search that finds nothing is not an error: NCBI's "No items found." and the phrases it could
//! not find become `warnings` beside a count of 0. An `ERROR` NCBI puts in an HTTP-200 body is
//! an [`EutilsError::Api`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::xml_tree::{parse_tree, Element, Node};
use super::{body_excerpt, parse_json_leniently, EutilsError};

/// What a search found: how many records match, this page of their PMIDs, and the
/// history-server keys (`usehistory=y`) to fetch them with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// Records matching the query (all of them, not only this page).
    pub count: u64,
    /// Ids returned on this page (0 for `rettype=count`).
    pub ret_max: u64,
    /// Index of the first returned id among all matches.
    pub ret_start: u64,
    /// PMIDs of this page, in NCBI's order.
    pub ids: Vec<String>,
    pub web_env: Option<String>,
    pub query_key: Option<String>,
    /// The query as PubMed understood it (with MeSH expansions).
    pub query_translation: Option<String>,
    /// NCBI's warnings and not-found phrases, e.g. `No items found.`,
    /// `PhraseNotFound: xyzzy`.
    pub warnings: Vec<String>,
}

/// Reads an XML ESearch answer (`retmode=xml`, the default).
pub fn parse_esearch_xml(xml: &str) -> Result<SearchResult, EutilsError> {
    let root = parse_tree(xml).map_err(|problem| EutilsError::Malformed(format!("{problem} (body starts with `{}`)", body_excerpt(xml))))?;
    if let Some(message) = root.child_text("ERROR") {
        return Err(EutilsError::Api(message));
    }
    if root.name != "eSearchResult" {
        return Err(EutilsError::Malformed(format!("expected <eSearchResult>, found <{}>", root.name)));
    }
    let count = xml_number(&root, "Count")?.ok_or_else(|| EutilsError::Malformed("<eSearchResult> has no <Count>".into()))?;
    let ids = root.children_named("IdList").flat_map(|list| list.children_named("Id")).map(Element::text).filter(|id| !id.is_empty()).collect();
    Ok(SearchResult {
        count,
        ret_max: xml_number(&root, "RetMax")?.unwrap_or(0),
        ret_start: xml_number(&root, "RetStart")?.unwrap_or(0),
        ids,
        web_env: root.child_text("WebEnv"),
        query_key: root.child_text("QueryKey"),
        query_translation: root.child_text("QueryTranslation"),
        warnings: xml_warnings(&root),
    })
}

/// Reads a JSON ESearch answer (`retmode=json`).
pub fn parse_esearch_json(json: &str) -> Result<SearchResult, EutilsError> {
    let document = parse_json_leniently(json)?;
    if let Some(message) = document.get("error").and_then(Value::as_str) {
        return Err(EutilsError::Api(message.to_owned()));
    }
    let result = document
        .get("esearchresult")
        .and_then(Value::as_object)
        .ok_or_else(|| EutilsError::Malformed(format!("no \"esearchresult\" object in `{}`", body_excerpt(json))))?;
    if let Some(message) = result.get("ERROR").and_then(Value::as_str).filter(|message| !message.trim().is_empty()) {
        return Err(EutilsError::Api(crate::paper::collapse_whitespace(message)));
    }
    let count = json_number(result, "count")?.ok_or_else(|| EutilsError::Malformed("esearchresult has no count".into()))?;
    let ids = result.get("idlist").and_then(Value::as_array).map(|ids| ids.iter().filter_map(json_scalar_text).collect()).unwrap_or_default();
    Ok(SearchResult {
        count,
        ret_max: json_number(result, "retmax")?.unwrap_or(0),
        ret_start: json_number(result, "retstart")?.unwrap_or(0),
        ids,
        web_env: result.get("webenv").and_then(json_scalar_text),
        query_key: result.get("querykey").and_then(json_scalar_text),
        query_translation: result.get("querytranslation").and_then(json_scalar_text),
        warnings: json_warnings(result),
    })
}

/// A number child (`<Count>42</Count>`), `None` when absent, an error when not a number.
fn xml_number(root: &Element, name: &str) -> Result<Option<u64>, EutilsError> {
    root.child_text(name).map(|text| text.parse::<u64>().map_err(|_| EutilsError::Malformed(format!("<{name}> is not a number: {text}")))).transpose()
}

/// `<OutputMessage>` texts as they are, anything else in `ErrorList`/`WarningList` as
/// `Kind: text` (`PhraseNotFound: xyzzy`).
fn xml_warnings(root: &Element) -> Vec<String> {
    let lists = root.children_named("ErrorList").chain(root.children_named("WarningList"));
    lists
        .flat_map(|list| list.children.iter())
        .filter_map(|node| match node {
            Node::Element(entry) => Some(entry),
            Node::Text(_) => None,
        })
        .filter_map(|entry| {
            let text = entry.text();
            match entry.name.as_ref() {
                _ if text.is_empty() => None,
                "OutputMessage" => Some(text),
                kind => Some(format!("{kind}: {text}")),
            }
        })
        .collect()
}

/// A count that NCBI writes as a string (`"239805"`), accepted as a JSON number too.
fn json_number(object: &Map<String, Value>, key: &str) -> Result<Option<u64>, EutilsError> {
    let Some(value) = object.get(key) else { return Ok(None) };
    let number = match value {
        Value::String(text) => text.trim().parse::<u64>().ok(),
        Value::Number(number) => number.as_u64(),
        _ => None,
    };
    number.map(Some).ok_or_else(|| EutilsError::Malformed(format!("\"{key}\" is not a count: {value}")))
}

fn json_scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_owned()).filter(|text| !text.is_empty()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The JSON `errorlist`/`warninglist` entries, named as in the XML flavour.
fn json_warnings(result: &Map<String, Value>) -> Vec<String> {
    const LISTS: [(&str, &str, &str); 5] = [
        ("errorlist", "phrasesnotfound", "PhraseNotFound"),
        ("errorlist", "fieldsnotfound", "FieldNotFound"),
        ("warninglist", "phrasesignored", "PhraseIgnored"),
        ("warninglist", "quotedphrasesnotfound", "QuotedPhraseNotFound"),
        ("warninglist", "outputmessages", "OutputMessage"),
    ];
    let mut warnings = Vec::new();
    for (list_key, entries_key, kind) in LISTS {
        let entries = result.get(list_key).and_then(|list| list.get(entries_key)).and_then(Value::as_array);
        for text in entries.into_iter().flatten().filter_map(json_scalar_text) {
            warnings.push(if kind == "OutputMessage" { text } else { format!("{kind}: {text}") });
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON_COVID_RETMAX_5: &str = include_str!("../../../fixtures/pubmed/esearch_json_covid19_retmax5.json");
    const JSON_WITH_HISTORY: &str = include_str!("../../../fixtures/pubmed/esearch_json_usehistory_webenv.json");
    const XML_RETMAX_5000: &str = include_str!("../../../fixtures/pubmed/esearch_xml_retmax5000_idlist.xml");
    const XML_COUNT_ONLY: &str = include_str!("../../../fixtures/pubmed/esearch_xml_rettype_count.xml");
    const XML_SIMPLE: &str = include_str!("../../../fixtures/pubmed/esearch_xml_simple_biopython.xml");
    const XML_WITH_HISTORY: &str = include_str!("../../../fixtures/pubmed/esearch_xml_usehistory_webenv_reldate60_edat_retmax100.xml");

    #[test]
    fn json_numbers_are_strings() {
        let result = parse_esearch_json(JSON_COVID_RETMAX_5).expect("a search result");
        assert_eq!((result.count, result.ret_max, result.ret_start), (504_475, 5, 0));
        assert_eq!(result.ids, ["41730216", "41730214", "41730213", "41730209", "41730197"]);
        assert_eq!((result.web_env, result.query_key), (None, None));
        assert!(result.query_translation.is_some_and(|translation| translation.starts_with("\"covid 19\"[All Fields]")));
        assert!(result.warnings.is_empty());
    }

    #[test]
    fn json_with_history_server_keys() {
        let result = parse_esearch_json(JSON_WITH_HISTORY).expect("a search result");
        assert_eq!((result.count, result.ret_max, result.ret_start), (239_805, 10, 0));
        assert_eq!(result.web_env.as_deref(), Some("MCID_699d192e965f30cfc0090912"));
        assert_eq!(result.query_key.as_deref(), Some("1"));
        assert_eq!(result.ids.len(), 10);
        assert_eq!(result.ids[0], "41729584");
    }

    #[test]
    fn xml_page_of_ids_with_translation() {
        let result = parse_esearch_xml(XML_RETMAX_5000).expect("a search result");
        assert_eq!((result.count, result.ret_max, result.ret_start), (6, 6, 0));
        assert_eq!(result.ids, ["19008416", "18927361", "18787170", "18487186", "18239126", "18239125"]);
        assert!(result.query_translation.is_some_and(|translation| translation.contains("[Date - Publication]")));
        assert_eq!(result.web_env, None);
    }

    #[test]
    fn xml_count_only() {
        let result = parse_esearch_xml(XML_COUNT_ONLY).expect("a search result");
        assert_eq!(result, SearchResult { count: 6, ..SearchResult::default() });
    }

    #[test]
    fn xml_count_larger_than_the_page() {
        let result = parse_esearch_xml(XML_SIMPLE).expect("a search result");
        assert_eq!((result.count, result.ret_max), (63, 20));
        assert_eq!(result.ids.len(), 20);
        assert_eq!(result.ids.last().map(String::as_str), Some("37810457"));
        assert_eq!(result.query_translation.as_deref(), Some("\"biopython\"[All Fields]"));
    }

    #[test]
    fn xml_with_history_server_keys() {
        let result = parse_esearch_xml(XML_WITH_HISTORY).expect("a search result");
        assert_eq!((result.count, result.ret_max, result.ret_start), (42_249, 100, 0));
        assert_eq!(result.query_key.as_deref(), Some("1"));
        assert_eq!(result.web_env.as_deref(), Some("MCID_6927d6e7fee3e90f880ec190"));
        assert_eq!(result.ids.len(), 100);
        assert_eq!(result.ids[0], "41297076");
        assert!(result.query_translation.is_some_and(|translation| translation.ends_with("[Date - Entry]")));
    }

    #[test]
    fn no_hits_are_warnings_not_errors() {
        let xml = "<eSearchResult><Count>0</Count><RetMax>0</RetMax><RetStart>0</RetStart><IdList/><TranslationSet/>\
                   <QueryTranslation>(xyzzyq[All Fields])</QueryTranslation><ErrorList><PhraseNotFound>xyzzyq</PhraseNotFound>\
                   </ErrorList><WarningList><OutputMessage>No items found.</OutputMessage></WarningList></eSearchResult>";
        let result = parse_esearch_xml(xml).expect("a search result");
        assert_eq!(result.count, 0);
        assert_eq!(result.warnings, ["PhraseNotFound: xyzzyq", "No items found."]);

        let json = r#"{"header":{"type":"esearch","version":"0.3"},"esearchresult":{"count":"0","retmax":"0","retstart":"0",
            "idlist":[],"translationset":[],"querytranslation":"","errorlist":{"phrasesnotfound":["xyzzyq"],"fieldsnotfound":[]},
            "warninglist":{"phrasesignored":[],"quotedphrasesnotfound":[],"outputmessages":["No items found."]}}}"#;
        let result = parse_esearch_json(json).expect("a search result");
        assert_eq!(result.count, 0);
        assert_eq!(result.query_translation, None);
        assert_eq!(result.warnings, ["PhraseNotFound: xyzzyq", "No items found."]);
    }

    #[test]
    fn errors_inside_a_200_body_are_api_errors() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<eSearchResult><ERROR>Invalid query</ERROR></eSearchResult>";
        assert_eq!(parse_esearch_xml(xml), Err(EutilsError::Api("Invalid query".into())));
        let json_with_raw_line_break =
            "{\"esearchresult\":{\"ERROR\":\"Search Backend failed: Exception:\n'retstart' cannot be larger than 9998.\"}}";
        assert_eq!(
            parse_esearch_json(json_with_raw_line_break),
            Err(EutilsError::Api("Search Backend failed: Exception: 'retstart' cannot be larger than 9998.".into()))
        );
        let rate_limited = r#"{"error":"API rate limit exceeded","count":"11"}"#;
        assert_eq!(parse_esearch_json(rate_limited), Err(EutilsError::Api("API rate limit exceeded".into())));
    }

    #[test]
    fn unreadable_bodies_are_malformed() {
        let malformed_xml = [
            "",
            "<html><body>Bad Gateway</body></html>",
            "<eSearchResult><Count>6</Count>",
            "<eSearchResult><Count>six</Count></eSearchResult>",
            "<eSearchResult><RetMax>6</RetMax></eSearchResult>",
        ];
        for body in malformed_xml {
            assert!(matches!(parse_esearch_xml(body), Err(EutilsError::Malformed(_))), "{body}");
        }
        let malformed_json = ["", "<eSearchResult/>", "{}", r#"{"esearchresult":{"count":"many"}}"#, r#"{"esearchresult":{}}"#];
        for body in malformed_json {
            assert!(matches!(parse_esearch_json(body), Err(EutilsError::Malformed(_))), "{body}");
        }
    }
}
