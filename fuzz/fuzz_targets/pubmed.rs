//! PubMed E-utilities answers: efetch XML (papers and raw records), esearch XML and JSON,
//! esummary XML and JSON. Any bytes: no panic, and every paper read carries a PubMed id.
#![no_main]

use libfuzzer_sys::fuzz_target;

use engine::parse::pubmed;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // `parse_efetch` is these records' papers: reading them once covers both.
    for record in &pubmed::parse_efetch_records(&text).items {
        assert!(record.paper.ids.pmid.is_some(), "an efetch paper without a PMID: {:?}", record.paper);
    }
    let _ = pubmed::parse_esearch_xml(&text);
    let _ = pubmed::parse_esearch_json(&text);
    let _ = pubmed::parse_esummary_xml(&text);
    let _ = pubmed::parse_esummary_json(&text);
});
