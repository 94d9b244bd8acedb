//! arXiv answers: the export API's Atom feed and OAI-PMH ListRecords (with its resumption token).
//! Any bytes: no panic, and every paper read carries its arXiv identifier.
#![no_main]

use libfuzzer_sys::fuzz_target;

use engine::parse::arxiv;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(page) = arxiv::parse_atom(&text) {
        for paper in &page.papers.items {
            assert!(paper.ids.arxiv.is_some(), "an Atom paper without an arXiv id: {paper:?}");
        }
    }
    for paper in &arxiv::parse_oai_pmh(&text).items {
        assert!(paper.ids.arxiv.is_some(), "an OAI-PMH paper without an arXiv id: {paper:?}");
    }
    let _ = arxiv::resumption_token(&text);
});
