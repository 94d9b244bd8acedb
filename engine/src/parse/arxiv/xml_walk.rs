//! A namespace-aware walk over an XML document for the arXiv parsers: every element is reported
//! when it opens (with its attributes) and when it closes (with its own text, entities resolved),
//! together with the elements it sits in. Prefixes do not matter, only namespaces, so the
//! pre-2025 API serialization (an `xmlns:arxiv` on every element) and the current one (declared
//! once on `<feed>`) look the same to a visitor.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, XmlVersion};

const ATOM_NAMESPACE: &str = "http://www.w3.org/2005/Atom";
const ARXIV_ATOM_NAMESPACE: &str = "http://arxiv.org/schemas/atom";
const OPENSEARCH_NAMESPACE: &str = "http://a9.com/-/spec/opensearch/1.1/";
const OAI_PMH_NAMESPACE: &str = "http://www.openarchives.org/OAI/2.0/";
const ARXIV_OAI_NAMESPACE: &str = "http://arxiv.org/OAI/arXiv/";

/// The namespaces the arXiv parsers care about; everything else is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Namespace {
    Atom,
    /// `http://arxiv.org/schemas/atom`: the export API's `arxiv:` extension elements.
    ArxivAtom,
    OpenSearch,
    OaiPmh,
    /// `http://arxiv.org/OAI/arXiv/`: the OAI-PMH `arXiv` metadata format.
    ArxivOai,
    Other,
}

/// An element's namespace and local name (`arxiv:doi` → `(ArxivAtom, "doi")`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ElementName {
    pub namespace: Namespace,
    pub local: String,
}

impl ElementName {
    pub fn is(&self, namespace: Namespace, local: &str) -> bool {
        self.namespace == namespace && self.local == local
    }
}

/// An element that just opened.
pub(super) struct Opened<'walk, 'xml> {
    /// The elements it sits in, outermost first.
    pub parents: &'walk [ElementName],
    pub name: &'walk ElementName,
    start: &'walk BytesStart<'xml>,
}

impl Opened<'_, '_> {
    /// The value of the attribute with this (unprefixed) name, if it is there and readable, as XML
    /// normalizes it: references resolved, tabs and line breaks made spaces.
    pub fn attribute(&self, name: &str) -> Option<String> {
        let attribute = self.start.try_get_attribute(name).ok().flatten()?;
        attribute.normalized_value(XmlVersion::Implicit1_0).ok().map(|value| value.into_owned())
    }
}

/// An element that just closed.
pub(super) struct Closed<'walk> {
    /// The elements it sat in, outermost first.
    pub parents: &'walk [ElementName],
    pub name: &'walk ElementName,
    /// The text directly inside it after its last child element (all of it for a leaf), with
    /// character and predefined entity references resolved and nothing else changed.
    pub text: &'walk str,
}

pub(super) enum Visit<'walk, 'xml> {
    Open(Opened<'walk, 'xml>),
    Close(Closed<'walk>),
}

/// Why a document could not be walked to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct XmlFailure {
    pub position_bytes: u64,
    pub message: String,
}

impl std::fmt::Display for XmlFailure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{} (at byte {})", self.message, self.position_bytes)
    }
}

/// Walks `xml` from the start, calling `visit` for every element opening and closing. Stops at
/// the first well-formedness error, including a document that ends with elements still open;
/// everything visited before it has been visited.
pub(super) fn walk_xml(xml: &str, mut visit: impl FnMut(Visit<'_, '_>)) -> Result<(), XmlFailure> {
    let mut reader = NsReader::from_str(xml);
    let mut open_elements: Vec<ElementName> = Vec::new();
    let mut text = String::new();
    loop {
        let failure_at = |reader: &NsReader<&[u8]>, message: String| XmlFailure { position_bytes: reader.error_position(), message };
        let (namespace, event) = match reader.read_resolved_event() {
            Ok((resolved, event)) => (namespace_of(&resolved), event),
            Err(error) => return Err(failure_at(&reader, error.to_string())),
        };
        match event {
            Event::Start(start) => {
                let name = ElementName { namespace, local: local_name(&start) };
                visit(Visit::Open(Opened { parents: &open_elements, name: &name, start: &start }));
                open_elements.push(name);
                text.clear();
            }
            Event::Empty(start) => {
                let name = ElementName { namespace, local: local_name(&start) };
                visit(Visit::Open(Opened { parents: &open_elements, name: &name, start: &start }));
                visit(Visit::Close(Closed { parents: &open_elements, name: &name, text: "" }));
                text.clear();
            }
            Event::End(_) => {
                // The reader checks that end tags match their start tags, so this pops the
                // element being closed; an end tag with nothing open is an error there too.
                let Some(name) = open_elements.pop() else {
                    return Err(failure_at(&reader, "an end tag closes nothing".to_owned()));
                };
                visit(Visit::Close(Closed { parents: &open_elements, name: &name, text: &text }));
                text.clear();
            }
            Event::Text(content) => text.push_str(&content.xml10_content()),
            Event::CData(content) => text.push_str(&content),
            Event::GeneralRef(reference) => push_reference(&mut text, &reference),
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    match open_elements.last() {
        Some(unclosed) => Err(XmlFailure { position_bytes: xml.len() as u64, message: format!("the document ends inside <{}>", unclosed.local) }),
        None => Ok(()),
    }
}

fn namespace_of(resolved: &ResolveResult<'_>) -> Namespace {
    let ResolveResult::Bound(namespace) = resolved else {
        return Namespace::Other;
    };
    match namespace.as_ref() {
        ATOM_NAMESPACE => Namespace::Atom,
        ARXIV_ATOM_NAMESPACE => Namespace::ArxivAtom,
        OPENSEARCH_NAMESPACE => Namespace::OpenSearch,
        OAI_PMH_NAMESPACE => Namespace::OaiPmh,
        ARXIV_OAI_NAMESPACE => Namespace::ArxivOai,
        _ => Namespace::Other,
    }
}

fn local_name(start: &BytesStart<'_>) -> String {
    start.local_name().as_ref().to_owned()
}

/// Appends what `&name;` stands for: a character reference, one of XML's five predefined
/// entities, or (for an entity these documents cannot define) the reference as written.
fn push_reference(text: &mut String, reference: &BytesRef<'_>) {
    if let Ok(Some(character)) = reference.resolve_char_ref() {
        text.push(character);
        return;
    }
    let name: &str = reference;
    match resolve_predefined_entity(name) {
        Some(replacement) => text.push_str(replacement),
        None => {
            text.push('&');
            text.push_str(name);
            text.push(';');
        }
    }
}
