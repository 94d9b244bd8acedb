//! Atom 1.0 feeds (RFC 4287): a feed of entries written as one XML document, for feed readers
//! that follow a term's papers or a user's digests.
//!
//! [`AtomFeed::to_xml`] escapes every text and attribute, and drops the characters XML 1.0 does
//! not allow in a document at all (control characters other than tab, line feed and carriage
//! return; U+FFFE and U+FFFF), which no escaping can carry. What the RFC requires of the
//! document holds whatever it is given: the feed always names an author ([`FEED_AUTHOR`]), so an
//! entry without authors has one; an entry with neither a link nor HTML content carries its
//! summary as its content (an entry without content must have an alternate link).
//!
//! Ids are the caller's and must stay the same for the same feed or entry across renderings:
//! [`uuid_urn`] for what has a UUID (a digest), [`tag_uri`] (RFC 4151) for the rest, e.g.
//! [`paper_entry_id`] for a paper by its dedup key.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use uuid::Uuid;

use crate::citation::percent_encode;

/// The author the feed names, who stands for every entry that names none.
pub const FEED_AUTHOR: &str = "Papertide";
/// Atom's XML namespace.
pub const ATOM_NAMESPACE: &str = "http://www.w3.org/2005/Atom";

/// A feed (`atom:feed`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomFeed {
    /// A permanent IRI (`urn:uuid:…`, `tag:…`).
    pub id: String,
    pub title: String,
    pub subtitle: Option<String>,
    /// When the feed last changed in a way its readers should see.
    pub updated: DateTime<Utc>,
    /// The feed's own address (`rel="self"`).
    pub self_url: String,
    /// The page the feed is about (`rel="alternate"`, e.g. the dashboard).
    pub alternate_url: Option<String>,
    pub entries: Vec<AtomEntry>,
}

/// An entry (`atom:entry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomEntry {
    /// A permanent IRI, the same every time this entry is written.
    pub id: String,
    pub title: String,
    pub updated: DateTime<Utc>,
    pub published: Option<DateTime<Utc>>,
    /// Names as shown; none means the feed's author.
    pub authors: Vec<String>,
    /// Where to read it (`rel="alternate"`).
    pub link: Option<String>,
    /// Plain text.
    pub summary: String,
    /// HTML, escaped into the document as `type="html"` content.
    pub content_html: Option<String>,
    /// Category terms (subjects).
    pub categories: Vec<String>,
}

impl AtomFeed {
    /// The feed as an Atom document in UTF-8 (see the module docs).
    pub fn to_xml(&self) -> String {
        let mut xml = String::with_capacity(1024 + self.entries.len() * 1024);
        xml.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        xml.push_str(&format!("<feed xmlns=\"{ATOM_NAMESPACE}\">\n"));
        element(&mut xml, 1, "id", &self.id);
        element(&mut xml, 1, "title", &self.title);
        if let Some(subtitle) = &self.subtitle {
            element(&mut xml, 1, "subtitle", subtitle);
        }
        element(&mut xml, 1, "updated", &timestamp(self.updated));
        link(&mut xml, 1, "self", "application/atom+xml", &self.self_url);
        if let Some(alternate) = &self.alternate_url {
            link(&mut xml, 1, "alternate", "text/html", alternate);
        }
        author(&mut xml, 1, FEED_AUTHOR);
        element(&mut xml, 1, "generator", FEED_AUTHOR);
        for entry in &self.entries {
            entry.write(&mut xml);
        }
        xml.push_str("</feed>\n");
        xml
    }
}

impl AtomEntry {
    fn write(&self, xml: &mut String) {
        xml.push_str("  <entry>\n");
        element(xml, 2, "id", &self.id);
        element(xml, 2, "title", &self.title);
        element(xml, 2, "updated", &timestamp(self.updated));
        if let Some(published) = self.published {
            element(xml, 2, "published", &timestamp(published));
        }
        for name in self.authors.iter().filter(|name| !name.trim().is_empty()) {
            author(xml, 2, name.trim());
        }
        if let Some(href) = &self.link {
            link(xml, 2, "alternate", "text/html", href);
        }
        for term in self.categories.iter().map(|term| term.trim()).filter(|term| !term.is_empty()) {
            xml.push_str(&format!("    <category term=\"{}\"/>\n", escape_attribute(term)));
        }
        xml.push_str(&format!("    <summary type=\"text\">{}</summary>\n", escape_text(&self.summary)));
        match (&self.content_html, &self.link) {
            (Some(html), _) => xml.push_str(&format!("    <content type=\"html\">{}</content>\n", escape_text(html))),
            (None, None) => xml.push_str(&format!("    <content type=\"text\">{}</content>\n", escape_text(&self.summary))),
            (None, Some(_)) => {}
        }
        xml.push_str("  </entry>\n");
    }
}

/// `urn:uuid:…` for a UUID (RFC 4122's URN namespace).
pub fn uuid_urn(id: Uuid) -> String {
    format!("urn:uuid:{}", id.hyphenated())
}

/// A tag URI (RFC 4151): `tag:{authority},{date}:{specific}`. `authority` is a domain name the
/// installation held on `date` (its public URL's host), lower-cased; `specific` is kept readable,
/// with the characters a tag URI does not allow percent-encoded.
pub fn tag_uri(authority: &str, date: NaiveDate, specific: &str) -> String {
    let authority = authority.trim().trim_end_matches('.').to_ascii_lowercase();
    format!("tag:{authority},{}:{}", date.format("%Y-%m-%d"), percent_encode(specific, b"!$&'()*+,;=:@/?"))
}

/// The id of a paper's entry in a term's feed: `tag:{authority},{date}:paper/{key}`, where `key` is
/// the paper's first dedup key (`doi:10.1038/nature12373`), so the paper keeps its entry across
/// digests.
pub fn paper_entry_id(authority: &str, date: NaiveDate, key: &str) -> String {
    tag_uri(authority, date, &format!("paper/{key}"))
}

/// An RFC 3339 time in UTC, to the second (`2026-11-23T08:00:00Z`).
fn timestamp(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn indent(xml: &mut String, depth: usize) {
    for _ in 0..depth {
        xml.push_str("  ");
    }
}

fn element(xml: &mut String, depth: usize, name: &str, text: &str) {
    indent(xml, depth);
    xml.push_str(&format!("<{name}>{}</{name}>\n", escape_text(text)));
}

fn link(xml: &mut String, depth: usize, rel: &str, media_type: &str, href: &str) {
    indent(xml, depth);
    xml.push_str(&format!("<link rel=\"{rel}\" type=\"{media_type}\" href=\"{}\"/>\n", escape_attribute(href)));
}

fn author(xml: &mut String, depth: usize, name: &str) {
    indent(xml, depth);
    xml.push_str(&format!("<author><name>{}</name></author>\n", escape_text(name)));
}

/// Whether XML 1.0 allows `character` in a document (its `Char` production).
pub fn is_xml_char(character: char) -> bool {
    matches!(character, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// Text for element content: `&`, `<` and `>` escaped (so `]]>` cannot appear), a carriage
/// return kept as a reference (parsers would fold it), characters XML forbids dropped.
fn escape_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars().filter(|character| is_xml_char(*character)) {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '\r' => escaped.push_str("&#13;"),
            _ => escaped.push(character),
        }
    }
    escaped
}

/// Text for a double-quoted attribute: as [`escape_text`], and quotes, tabs and line breaks as
/// references (parsers would make them spaces).
fn escape_attribute(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars().filter(|character| is_xml_char(*character)) {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\t' => escaped.push_str("&#9;"),
            '\n' => escaped.push_str("&#10;"),
            '\r' => escaped.push_str("&#13;"),
            _ => escaped.push(character),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::Event;
    use quick_xml::{Reader, XmlVersion};

    /// An element of a parsed document: its name, attributes, text and children.
    #[derive(Debug, Default)]
    struct Node {
        name: String,
        attributes: Vec<(String, String)>,
        text: String,
        children: Vec<Node>,
    }

    impl Node {
        fn all(&self, name: &str) -> Vec<&Node> {
            self.children.iter().filter(|child| child.name == name).collect()
        }

        fn one(&self, name: &str) -> &Node {
            let found = self.all(name);
            assert_eq!(found.len(), 1, "one <{name}> in <{}>", self.name);
            found[0]
        }

        fn attribute(&self, name: &str) -> Option<&str> {
            self.attributes.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
        }
    }

    fn node_of(start: &quick_xml::events::BytesStart<'_>) -> Node {
        let attributes = start
            .attributes()
            .map(|attribute| {
                let attribute = attribute.expect("a well-formed attribute");
                let value = attribute.normalized_value(XmlVersion::Implicit1_0).expect("a readable value").into_owned();
                (attribute.key.as_ref().to_owned(), value)
            })
            .collect();
        Node { name: start.name().as_ref().to_owned(), attributes, ..Node::default() }
    }

    /// The document's root element, read by quick-xml, which fails the test on any
    /// well-formedness error.
    fn parse(xml: &str) -> Node {
        let mut reader = Reader::from_str(xml);
        let mut open: Vec<Node> = Vec::new();
        let mut root = None;
        loop {
            match reader.read_event().unwrap_or_else(|error| panic!("not well-formed: {error}\n{xml}")) {
                Event::Start(start) => open.push(node_of(&start)),
                Event::Empty(start) => open.last_mut().expect("inside the root").children.push(node_of(&start)),
                Event::End(_) => {
                    let node = open.pop().expect("an open element");
                    match open.last_mut() {
                        Some(parent) => parent.children.push(node),
                        None => root = Some(node),
                    }
                }
                Event::Text(text) => match open.last_mut() {
                    Some(node) => node.text.push_str(&text.xml10_content()),
                    None => assert!(text.xml10_content().trim().is_empty(), "only spaces outside the root"),
                },
                Event::CData(data) => open.last_mut().expect("inside").text.push_str(&data),
                Event::GeneralRef(reference) => {
                    let character = reference.resolve_char_ref().expect("a valid reference");
                    let text = match character {
                        Some(character) => character.to_string(),
                        None => resolve_predefined_entity(&reference).expect("a predefined entity").to_owned(),
                    };
                    open.last_mut().expect("inside").text.push_str(&text);
                }
                Event::Eof => break,
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
            }
        }
        assert!(open.is_empty(), "unclosed elements");
        root.expect("a root element")
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().expect("a time")
    }

    fn feed() -> AtomFeed {
        AtomFeed {
            id: uuid_urn(Uuid::from_u128(0x1234)),
            title: "Papertide: CRISPR base editing".into(),
            subtitle: Some("Weekly papers on \"CRISPR base editing\" & related".into()),
            updated: at("2026-11-23T08:00:00Z"),
            self_url: "https://papers.example.org/feeds/abc.atom?token=x&y=1".into(),
            alternate_url: Some("https://papers.example.org/dashboard".into()),
            entries: vec![
                AtomEntry {
                    id: paper_entry_id("papers.example.org", "2026-11-01".parse().expect("day"), "doi:10.1038/nature12373"),
                    title: "Base editing of <i>HBB</i> in mice".into(),
                    updated: at("2026-11-23T08:00:00Z"),
                    published: Some(at("2026-11-20T00:00:00Z")),
                    authors: vec!["Ada Lovelace".into(), "  ".into(), "Jürgen Müller".into()],
                    link: Some("https://doi.org/10.1038/nature12373".into()),
                    summary: "87% relevant. Words: base, editing.".into(),
                    content_html: Some("<p>87% relevant</p><p>Why: <b>base editing</b></p>".into()),
                    categories: vec!["Gene Editing".into(), "".into(), "q-bio.GN".into()],
                },
                AtomEntry {
                    id: paper_entry_id("papers.example.org", "2026-11-01".parse().expect("day"), "arxiv:2101.00001"),
                    title: "An entry with nothing but a summary".into(),
                    updated: at("2026-11-22T08:00:00Z"),
                    published: None,
                    authors: Vec::new(),
                    link: None,
                    summary: "Only text.".into(),
                    content_html: None,
                    categories: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn the_feed_is_well_formed_atom_with_what_rfc_4287_requires() {
        let xml = feed().to_xml();
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"), "{xml}");
        let root = parse(&xml);
        assert_eq!(root.name, "feed");
        assert_eq!(root.one("id").text, "urn:uuid:00000000-0000-0000-0000-000000001234");
        assert_eq!(root.one("title").text, "Papertide: CRISPR base editing");
        assert_eq!(root.one("subtitle").text, "Weekly papers on \"CRISPR base editing\" & related");
        assert_eq!(root.one("updated").text, "2026-11-23T08:00:00Z");
        assert_eq!(root.one("author").one("name").text, FEED_AUTHOR, "the feed names its author, for entries that name none");
        let links = root.all("link");
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].attribute("rel"), Some("self"));
        assert_eq!(links[0].attribute("href"), Some("https://papers.example.org/feeds/abc.atom?token=x&y=1"));
        assert_eq!(links[1].attribute("rel"), Some("alternate"));

        let entries = root.all("entry");
        assert_eq!(entries.len(), 2);
        for entry in &entries {
            for required in ["id", "title", "updated", "summary"] {
                entry.one(required);
            }
            let has_alternate = entry.all("link").iter().any(|link| link.attribute("rel") == Some("alternate"));
            assert!(has_alternate || !entry.all("content").is_empty(), "an entry without content has an alternate link");
        }
        let first = entries[0];
        assert_eq!(first.one("id").text, "tag:papers.example.org,2026-11-01:paper/doi:10.1038/nature12373");
        assert_eq!(first.one("title").text, "Base editing of <i>HBB</i> in mice", "text, escaped, not markup");
        assert_eq!(first.one("published").text, "2026-11-20T00:00:00Z");
        let names: Vec<&str> = first.all("author").iter().map(|author| author.one("name").text.as_str()).collect();
        assert_eq!(names, ["Ada Lovelace", "Jürgen Müller"], "blank names are skipped");
        let terms: Vec<Option<&str>> = first.all("category").iter().map(|category| category.attribute("term")).collect();
        assert_eq!(terms, [Some("Gene Editing"), Some("q-bio.GN")]);
        assert_eq!(first.one("content").attribute("type"), Some("html"));
        assert_eq!(first.one("content").text, "<p>87% relevant</p><p>Why: <b>base editing</b></p>");
        assert_eq!(first.one("summary").text, "87% relevant. Words: base, editing.");

        let second = entries[1];
        assert!(second.all("author").is_empty() && second.all("link").is_empty() && second.all("published").is_empty());
        assert_eq!((second.one("content").attribute("type"), second.one("content").text.as_str()), (Some("text"), "Only text."));
    }

    #[test]
    fn a_feed_reader_reads_it_back() {
        let parsed = feed_rs::parser::parse(feed().to_xml().as_bytes()).expect("feed-rs reads it");
        assert_eq!(parsed.feed_type, feed_rs::model::FeedType::Atom);
        assert_eq!(parsed.title.map(|title| title.content).as_deref(), Some("Papertide: CRISPR base editing"));
        assert_eq!(parsed.entries.len(), 2);
        let first = &parsed.entries[0];
        assert_eq!(first.id, "tag:papers.example.org,2026-11-01:paper/doi:10.1038/nature12373");
        assert_eq!(first.links.first().map(|link| link.href.as_str()), Some("https://doi.org/10.1038/nature12373"));
        assert_eq!(first.authors.iter().map(|author| author.name.as_deref()).collect::<Vec<_>>(), [Some("Ada Lovelace"), Some("Jürgen Müller")]);
        assert_eq!(first.published, Some(at("2026-11-20T00:00:00Z")));
        assert_eq!(first.summary.as_ref().map(|summary| summary.content.as_str()), Some("87% relevant. Words: base, editing."));
    }

    #[test]
    fn a_hostile_title_stays_text_and_forbidden_characters_are_dropped() {
        let hostile = "</title><script>alert(1)</script> ]]> <![CDATA[x]]> \u{1}bell\u{7} \u{b}\u{c}\u{fffe}\u{ffff} &amp; tab\there \"quoted\" 'single'\r\nend";
        let mut feed = feed();
        feed.title = hostile.into();
        feed.self_url = format!("https://papers.example.org/feed?q=\"{hostile}");
        feed.entries[0].title = hostile.into();
        feed.entries[0].authors = vec![hostile.into()];
        feed.entries[0].categories = vec![hostile.into()];
        feed.entries[1].summary = hostile.into();
        let xml = feed.to_xml();
        assert!(xml.chars().all(is_xml_char), "only characters XML allows");
        assert!(!xml.contains("</title><script>") && !xml.contains("]]>") && !xml.contains("<![CDATA["));
        let expected = "</title><script>alert(1)</script> ]]> <![CDATA[x]]> bell  &amp; tab\there \"quoted\" 'single'\r\nend";
        let root = parse(&xml);
        assert_eq!(root.one("title").text, expected);
        let entries = root.all("entry");
        assert_eq!(entries[0].one("title").text, expected);
        assert_eq!(entries[0].one("author").one("name").text, expected);
        assert_eq!(entries[1].one("summary").text, expected);
        assert_eq!(entries[1].one("content").text, expected);
        assert_eq!(entries[0].one("category").attribute("term"), Some(expected.trim()));
        assert_eq!(root.all("link")[0].attribute("href").map(str::to_owned), Some(format!("https://papers.example.org/feed?q=\"{expected}")));
        assert!(feed_rs::parser::parse(xml.as_bytes()).is_ok());
    }

    #[test]
    fn an_empty_feed_is_still_valid() {
        let empty = AtomFeed { entries: Vec::new(), subtitle: None, alternate_url: None, ..feed() };
        let root = parse(&empty.to_xml());
        assert!(root.all("entry").is_empty());
        assert_eq!(root.one("author").one("name").text, FEED_AUTHOR, "a feed without entries still names an author");
        assert!(root.all("subtitle").is_empty());
        assert_eq!(root.all("link").len(), 1);
    }

    #[test]
    fn ids_are_stable_uris() {
        let day: NaiveDate = "2026-01-15".parse().expect("day");
        assert_eq!(tag_uri("Papers.Example.org.", day, "digest/7"), "tag:papers.example.org,2026-01-15:digest/7");
        assert_eq!(
            paper_entry_id("papers.example.org", day, "doi:10.1002/(sici)1097 <x>%#"),
            "tag:papers.example.org,2026-01-15:paper/doi:10.1002/(sici)1097%20%3Cx%3E%25%23"
        );
        assert_eq!(paper_entry_id("papers.example.org", day, "pmid:1"), paper_entry_id("papers.example.org", day, "pmid:1"));
        assert_eq!(uuid_urn(Uuid::from_u128(1)), "urn:uuid:00000000-0000-0000-0000-000000000001");
        assert_eq!(timestamp(at("2026-11-23T08:00:00.789+02:00")), "2026-11-23T06:00:00Z");
    }
}
