//! A small owned element tree, read with quick-xml, for one PubMed record or one short
//! E-utilities answer at a time, and the flattening of its mixed content to clean text.
//!
//! Character references and the five predefined entities are decoded; element names are local
//! names (`mml:math` is `math`); a document that is not well-formed (mismatched or missing end
//! tags, a dangling `&`) is an error, never a partial tree.

use std::borrow::Cow;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

/// An element with its attributes and its children in document order. Its name and text borrow
/// from the document where they can (`'a`), which spares an allocation per element and per text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Element<'a> {
    pub name: Cow<'a, str>,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<Node<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node<'a> {
    Element(Element<'a>),
    Text(Cow<'a, str>),
}

impl<'a> Element<'a> {
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The first child element called `name`.
    pub fn child(&self, name: &str) -> Option<&Element<'a>> {
        self.children.iter().find_map(|node| match node {
            Node::Element(element) if element.name == name => Some(element),
            _ => None,
        })
    }

    /// The child elements called `name` (direct children only, never deeper descendants).
    pub fn children_named<'b>(&'b self, name: &'b str) -> impl Iterator<Item = &'b Element<'a>> + 'b {
        self.children.iter().filter_map(move |node| match node {
            Node::Element(element) if element.name == name => Some(element),
            _ => None,
        })
    }

    /// Follows a path of child names, taking the first match at each step.
    pub fn descend(&self, path: &[&str]) -> Option<&Element<'a>> {
        path.iter().try_fold(self, |element, name| element.child(name))
    }

    /// The element's text with inline markup and MathML flattened, character references that
    /// were escaped twice decoded, and whitespace collapsed.
    pub fn text(&self) -> String {
        let mut flattened = String::new();
        append_flattened_text(self, &mut flattened);
        collapsed(&crate::paper::decode_leftover_entities(&flattened))
    }

    /// The flattened text of the child `name`, when there is such a child and its text is not
    /// empty.
    pub fn child_text(&self, name: &str) -> Option<String> {
        self.child(name).map(Element::text).filter(|text| !text.is_empty())
    }
}

/// `crate::paper::collapse_whitespace`'s result (the words of `text`, split where `char::is_whitespace` says,
/// joined by single spaces), built in one pass without a list of the words.
fn collapsed(text: &str) -> String {
    let mut words = String::with_capacity(text.len());
    let mut push_word = |word: &str| {
        if !words.is_empty() {
            words.push(' ');
        }
        words.push_str(word);
    };
    let mut word_start = None;
    for (at, character) in text.char_indices() {
        match (character.is_whitespace(), word_start) {
            (true, Some(start)) => {
                push_word(&text[start..at]);
                word_start = None;
            }
            (false, None) => word_start = Some(at),
            _ => {}
        }
    }
    if let Some(start) = word_start {
        push_word(&text[start..]);
    }
    words
}

/// Reads a document (or a fragment holding one element) into its root element. Declarations,
/// the DOCTYPE, comments and text outside the root are skipped.
pub(super) fn parse_tree(xml: &str) -> Result<Element<'_>, String> {
    parse_tree_pruned(xml, &[])
}

/// Like [`parse_tree`], except that the content of each element named `child` directly inside an
/// element named `parent`, for every `(parent, child)` of `pruned`, is read and checked exactly as
/// the rest (the result is the same `Err` for a document that is not well-formed) but not kept:
/// such an element is in the tree with its attributes and without children. For the large parts
/// of a record that its reader never looks at (MeSH headings, reference lists), whose thousands
/// of small elements would otherwise each cost a few allocations.
pub(super) fn parse_tree_pruned<'a>(xml: &'a str, pruned: &[(&str, &str)]) -> Result<Element<'a>, String> {
    let mut reader = Reader::from_str(xml);
    let mut open_elements: Vec<Element<'a>> = Vec::new();
    // While inside a pruned element: the names of the elements open inside it, innermost last.
    let mut pruning: Option<NameStack> = None;
    loop {
        let event = reader.read_event().map_err(|error| format!("not well-formed XML at byte {}: {error}", reader.error_position()))?;
        if let Some(inside) = &mut pruning {
            match event {
                Event::Start(start) => inside.push(check_start(&start)?),
                Event::Empty(start) => {
                    check_start(&start)?;
                }
                Event::End(_) if !inside.is_empty() => inside.pop(),
                Event::End(_) => {
                    pruning = None;
                    let element = open_elements.pop().ok_or("an end tag closes nothing")?;
                    if let Some(root) = close_element(&mut open_elements, element) {
                        return Ok(root);
                    }
                }
                Event::Text(_) | Event::CData(_) => {}
                Event::GeneralRef(reference) => {
                    resolve_reference(&reference)?;
                }
                Event::Eof => {
                    let innermost = inside.last().or(open_elements.last().map(|element| element.name.as_ref()));
                    return Err(innermost.map_or_else(|| "no XML element found".to_owned(), |name| format!("the body ends inside <{name}>")));
                }
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
            }
            continue;
        }
        match event {
            Event::Start(start) => {
                // The reader stands just past the tag's `>`.
                let element = element_from_start(xml, &start, position(&reader).saturating_sub(1))?;
                let parent = open_elements.last().map(|parent| parent.name.as_ref());
                if parent.is_some_and(|parent| pruned.contains(&(parent, element.name.as_ref()))) {
                    pruning = Some(NameStack::default());
                }
                open_elements.push(element);
            }
            Event::Empty(start) => {
                // The reader stands just past the tag's `/>`.
                let element = element_from_start(xml, &start, position(&reader).saturating_sub(2))?;
                if let Some(root) = close_element(&mut open_elements, element) {
                    return Ok(root);
                }
            }
            Event::End(_) => {
                let element = open_elements.pop().ok_or("an end tag closes nothing")?;
                if let Some(root) = close_element(&mut open_elements, element) {
                    return Ok(root);
                }
            }
            Event::Text(text) => append_text(&mut open_elements, text.into_inner()),
            Event::CData(data) => append_text(&mut open_elements, data.into_inner()),
            Event::GeneralRef(reference) => append_text(&mut open_elements, Cow::Owned(resolve_reference(&reference)?)),
            Event::Eof => {
                return Err(match open_elements.last() {
                    Some(unclosed) => format!("the body ends inside <{}>", unclosed.name),
                    None => "no XML element found".to_owned(),
                })
            }
            Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
        }
    }
}

/// Where `reader` stands in the document.
fn position(reader: &Reader<&[u8]>) -> usize {
    usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX)
}

/// A stack of element names that keeps its strings' buffers when popped, so that walking many
/// small elements allocates only for the deepest nesting seen.
#[derive(Default)]
struct NameStack {
    names: Vec<String>,
    depth: usize,
}

impl NameStack {
    fn push(&mut self, name: &str) {
        match self.names.get_mut(self.depth) {
            Some(slot) => {
                slot.clear();
                slot.push_str(name);
            }
            None => self.names.push(name.to_owned()),
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }

    fn last(&self) -> Option<&str> {
        self.depth.checked_sub(1).map(|top| self.names[top].as_str())
    }
}

/// The name of the document's root element and the byte offset just past its start tag, or
/// `None` for the offset when the root is an empty element (`<Root/>`).
pub(super) fn find_root(xml: &str) -> Result<(String, Option<usize>), String> {
    let mut reader = Reader::from_str(xml);
    loop {
        let event = reader.read_event().map_err(|error| format!("not XML: {error}"))?;
        match event {
            Event::Start(start) => {
                let content_start = usize::try_from(reader.buffer_position()).unwrap_or(xml.len());
                return Ok((local_name_str(&start).to_owned(), Some(content_start)));
            }
            Event::Empty(start) => return Ok((local_name_str(&start).to_owned(), None)),
            Event::Text(text) if !text.bytes().all(|byte| byte.is_ascii_whitespace()) => return Err("not XML: text before any element".to_owned()),
            Event::Eof => return Err("no XML element found".to_owned()),
            _ => {}
        }
    }
}

/// Checks a start tag as [`element_from_start`] does (same errors, in the same order) without
/// building the element; returns its local name.
fn check_start<'a>(start: &'a BytesStart) -> Result<&'a str, String> {
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|error| format!("bad attribute: {error}"))?;
        attribute.normalized_value(XmlVersion::Implicit1_0).map_err(|error| format!("bad attribute value: {error}"))?;
    }
    Ok(local_name_str(start))
}

/// The element a start tag opens. `tag_content_end` is the offset in `xml` where the tag's content
/// (name and attributes) ends, which lets the name borrow from `xml`.
fn element_from_start<'a>(xml: &'a str, start: &BytesStart, tag_content_end: usize) -> Result<Element<'a>, String> {
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|error| format!("bad attribute: {error}"))?;
        let key = attribute.key.local_name().as_ref().to_owned();
        let value = attribute.normalized_value(XmlVersion::Implicit1_0).map_err(|error| format!("bad attribute value: {error}"))?;
        attributes.push((key, value.into_owned()));
    }
    Ok(Element { name: local_name_in(xml, start, tag_content_end), attributes, children: Vec::new() })
}

/// The local name of `start` as a slice of `xml`, found from where the tag's content ends (and
/// checked against the tag); an owned copy should the slice not match.
fn local_name_in<'a>(xml: &'a str, start: &BytesStart, tag_content_end: usize) -> Cow<'a, str> {
    let local = start.local_name();
    let name_end = tag_content_end.checked_sub(start.len()).map(|content_start| content_start + start.name().as_ref().len());
    let in_xml = name_end.and_then(|end| xml.get(end.checked_sub(local.as_ref().len())?..end)).filter(|name| *name == local.as_ref());
    match in_xml {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Owned(local_name_str(start).to_owned()),
    }
}

fn local_name_str<'a>(start: &'a BytesStart) -> &'a str {
    start.local_name().into_inner()
}

/// Attaches a finished element to its parent; returns it when it is the root.
fn close_element<'a>(open_elements: &mut [Element<'a>], element: Element<'a>) -> Option<Element<'a>> {
    match open_elements.last_mut() {
        Some(parent) => {
            parent.children.push(Node::Element(element));
            None
        }
        None => Some(element),
    }
}

/// Appends text to the innermost open element, merging with a preceding text node (text and
/// references arrive as separate events). Text outside the root is ignored.
fn append_text<'a>(open_elements: &mut [Element<'a>], text: Cow<'a, str>) {
    let Some(parent) = open_elements.last_mut() else { return };
    match parent.children.last_mut() {
        Some(Node::Text(previous)) => previous.to_mut().push_str(&text),
        _ => parent.children.push(Node::Text(text)),
    }
}

/// `&#xe0;` → `à`, `&amp;` → `&`; an unknown named entity is kept as written.
fn resolve_reference(reference: &BytesRef) -> Result<String, String> {
    let character = reference.resolve_char_ref().map_err(|error| format!("bad character reference: {error}"))?;
    if let Some(character) = character {
        return Ok(character.to_string());
    }
    let name: &str = reference;
    Ok(match quick_xml::escape::resolve_predefined_entity(name) {
        Some(resolved) => resolved.to_owned(),
        None => format!("&{name};"),
    })
}

/// Inline markup (`<i>`, `<b>`, `<sub>`, `<sup>`, `<u>` and anything else) contributes its text
/// as is, without added spaces; MathML goes through [`append_math_text`].
fn append_flattened_text(element: &Element, flattened: &mut String) {
    if element.name == "math" {
        append_math_text(element, flattened);
        return;
    }
    for node in &element.children {
        match node {
            Node::Text(text) => flattened.push_str(text),
            Node::Element(child) => append_flattened_text(child, flattened),
        }
    }
}

/// MathML as plain text: token elements give their (trimmed) text, indentation between
/// elements is dropped, `<mtext>` keeps its spaces, prescripts come before their base
/// (`³He` is written `3He`), fractions get a slash and annotations (TeX sources) are skipped.
fn append_math_text(element: &Element, flattened: &mut String) {
    match element.name.as_ref() {
        "annotation" | "annotation-xml" => {}
        "mtext" => append_flattened_text_of_children(element, flattened),
        "mi" | "mn" | "mo" | "ms" => {
            let mut token = String::new();
            append_flattened_text_of_children(element, &mut token);
            flattened.push_str(token.trim());
        }
        "mfrac" => {
            let parts: Vec<String> = child_elements(element).map(math_text).collect();
            flattened.push_str(&parts.join("/"));
        }
        "mmultiscripts" => {
            let children: Vec<&Element<'_>> = child_elements(element).collect();
            let split_at = children.iter().position(|child| child.name == "mprescripts").unwrap_or(children.len());
            let (base_and_postscripts, prescripts) = children.split_at(split_at);
            for child in prescripts.iter().chain(base_and_postscripts) {
                append_math_text(child, flattened);
            }
        }
        _ => {
            for child in child_elements(element) {
                append_math_text(child, flattened);
            }
        }
    }
}

fn append_flattened_text_of_children(element: &Element, flattened: &mut String) {
    for node in &element.children {
        match node {
            Node::Text(text) => flattened.push_str(text),
            Node::Element(child) => append_math_text(child, flattened),
        }
    }
}

fn math_text(element: &Element) -> String {
    let mut text = String::new();
    append_math_text(element, &mut text);
    text
}

fn child_elements<'b, 'a>(element: &'b Element<'a>) -> impl Iterator<Item = &'b Element<'a>> {
    element.children.iter().filter_map(|node| match node {
        Node::Element(child) => Some(child),
        Node::Text(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::collapse_whitespace;

    fn text_of(xml: &str) -> String {
        parse_tree(xml).expect("well-formed").text()
    }

    #[test]
    fn inline_markup_is_flattened_without_losing_words() {
        assert_eq!(text_of("<T>risk at the <i>TERT</i> gene, r<sup>2</sup>&lt;0.25</T>"), "risk at the TERT gene, r2<0.25");
        assert_eq!(text_of("<T>(<i>&#x3bc;</i>-XRF) Universit&#xe0; &amp; co</T>"), "(μ-XRF) Università & co");
        assert_eq!(text_of("<T>\n   line\n   broken  </T>"), "line broken");
    }

    #[test]
    fn mathml_reads_as_text() {
        let xml = r#"<T>inhaled <mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML">
            <mml:mrow><mml:mmultiscripts><mml:mrow><mml:mi>He</mml:mi></mml:mrow><mml:mprescripts/>
            <mml:none/><mml:mrow><mml:mn>3</mml:mn></mml:mrow></mml:mmultiscripts>
            <mml:mo>/</mml:mo><mml:mtext> </mml:mtext><mml:mi>MRI</mml:mi>
            <mml:mfrac><mml:mi>a</mml:mi><mml:mi>b</mml:mi></mml:mfrac>
            <mml:annotation encoding="TeX">^3He</mml:annotation></mml:mrow></mml:math> ventilation</T>"#;
        assert_eq!(text_of(xml), "inhaled 3He/ MRIa/b ventilation");
    }

    #[test]
    fn navigation_takes_direct_children_only() {
        let root = parse_tree(r#"<A><B kind="x"><C>deep</C></B><C>near</C></A>"#).expect("well-formed");
        assert_eq!(root.child_text("C").as_deref(), Some("near"));
        assert_eq!(root.descend(&["B", "C"]).map(Element::text).as_deref(), Some("deep"));
        assert_eq!(root.child("B").and_then(|b| b.attribute("kind")), Some("x"));
        assert_eq!(root.children_named("C").count(), 1);
    }

    #[test]
    fn names_and_text_borrow_from_the_document() {
        let root = parse_tree("<p:R k=\"v\">\n <B/><C >t &amp; u</C><D a=\"1\" /><p:E\n/></p:R>").expect("well-formed");
        let mut names = vec![&root.name];
        names.extend(child_elements(&root).map(|child| &child.name));
        let spelled: Vec<&str> = names.iter().map(|name| name.as_ref()).collect();
        assert_eq!(spelled, ["R", "B", "C", "D", "E"]);
        assert!(names.iter().all(|name| matches!(name, Cow::Borrowed(_))), "{names:?}");
        assert!(matches!(root.children.first(), Some(Node::Text(Cow::Borrowed("\n ")))));
        assert_eq!(root.child_text("C").as_deref(), Some("t & u"));
    }

    #[test]
    fn whitespace_collapses_as_the_shared_rule_does() {
        let ascii_whitespace: String = (0u8..=0x7f).map(char::from).filter(|character| character.is_whitespace()).collect();
        let texts = [
            String::new(),
            "   ".to_owned(),
            " a  b\tc\n\nd ".to_owned(),
            format!("{ascii_whitespace}x{ascii_whitespace}y{ascii_whitespace}"),
            (0u8..=0x7f).map(char::from).collect(),
            "\u{1c}\u{1d}word\u{1f} next".to_owned(),
            "non\u{a0}breaking and\u{2009}thin spaces, Università".to_owned(),
        ];
        for text in texts {
            assert_eq!(collapsed(&text), collapse_whitespace(&text), "{text:?}");
        }
    }

    #[test]
    fn pruned_parts_are_checked_but_not_kept() {
        let xml = r#"<R><P><L kind="x"><I a="1">one &amp; <b>two</b></I><I/></L><K>kept</K></P><L><I>elsewhere</I></L></R>"#;
        let pruned = parse_tree_pruned(xml, &[("P", "L")]).expect("well-formed");
        let list = pruned.descend(&["P", "L"]).expect("the pruned element stays");
        assert_eq!(list.attribute("kind"), Some("x"));
        assert!(list.children.is_empty());
        assert_eq!(pruned.descend(&["P", "K"]).map(Element::text).as_deref(), Some("kept"));
        assert_eq!(pruned.child_text("L").as_deref(), Some("elsewhere"), "an L elsewhere is kept");
        assert_eq!(parse_tree_pruned(xml, &[]), parse_tree(xml));

        let broken = [
            "<R><P><L><I></L></P></R>",
            "<R><P><L>fish & chips</L></P></R>",
            "<R><P><L><I>cut short",
            "<R><P><L>cut short",
            "<R><P><L><I a=\"&bogus;\" a=\"twice\">x</I></L></P></R>",
            "<R><P><L><I>&#xD800;</I></L></P></R>",
        ];
        for xml in broken {
            let error = parse_tree(xml).expect_err(xml);
            assert_eq!(parse_tree_pruned(xml, &[("P", "L")]), Err(error), "{xml}");
        }
    }

    #[test]
    fn broken_documents_are_errors() {
        assert!(parse_tree("<A><B></A>").is_err());
        assert!(parse_tree("<A><B>").is_err());
        assert!(parse_tree("<A>fish & chips</A>").is_err());
        assert!(parse_tree("").is_err());
        assert!(parse_tree("just words").is_err());
    }

    #[test]
    fn the_root_is_found_after_the_prolog() {
        let xml = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Set>\n<Set>\n<Item/></Set>";
        let (name, content_start) = find_root(xml).expect("xml");
        assert_eq!(name, "Set");
        assert_eq!(content_start.map(|offset| &xml[offset..]), Some("\n<Item/></Set>"));
        assert_eq!(find_root("<Set/>").expect("xml"), ("Set".to_owned(), None));
        assert!(find_root("{\"error\":\"API rate limit exceeded\"}").is_err());
        assert!(find_root("   ").is_err());
    }
}
