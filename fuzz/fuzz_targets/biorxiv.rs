//! bioRxiv/medRxiv `details` JSON, read as either server. Any bytes: no panic, every paper read
//! carries a DOI, and the next page's cursor is past this one.
#![no_main]

use libfuzzer_sys::fuzz_target;

use engine::paper::Source;
use engine::parse::biorxiv;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for server in [Source::Biorxiv, Source::Medrxiv] {
        let Ok(page) = biorxiv::parse_details(&text, server) else {
            continue;
        };
        for paper in &page.papers.items {
            assert!(paper.ids.doi.is_some() || paper.ids.preprint_doi.is_some(), "a preprint without a DOI: {paper:?}");
        }
        if let Some(next) = biorxiv::next_cursor(&page) {
            assert!(next > page.cursor, "the next cursor {next} does not move past {}", page.cursor);
        }
    }
});
