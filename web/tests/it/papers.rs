//! `papertide import` and `papertide search` on the recorded fixtures, as the real binary.

use std::path::PathBuf;
use std::process::Output;

use crate::common::papertide;

fn fixture(relative: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/fixtures").join(relative).display().to_string()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn import_counts_added_present_and_rejected_and_search_finds_them() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let garbage = data_dir.path().join("garbage.txt");
    std::fs::write(&garbage, "not a paper").expect("file");
    let files = [
        fixture("pubmed/efetch_batch_20_articles.xml"),
        fixture("arxiv/api_query_testing_start0_max100.xml"),
        fixture("biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json"),
        garbage.display().to_string(),
    ];
    let mut args = vec!["import"];
    args.extend(files.iter().map(String::as_str));
    let first = stdout(&papertide(data_dir.path(), &args));
    assert!(first.contains("PubMed XML: 20 added, 0 merged, 0 already present, 0 rejected"), "{first}");
    assert!(first.contains("arXiv Atom: 100 added"), "{first}");
    assert!(first.contains("bioRxiv/medRxiv JSON: 10 added"), "{first}");
    assert!(first.contains("garbage.txt: unknown format: 0 added, 0 merged, 0 already present, 1 rejected"), "{first}");
    assert!(first.trim_end().ends_with("130 papers in the index"), "{first}");

    let again = stdout(&papertide(data_dir.path(), &["import", &fixture("pubmed/efetch_batch_20_articles.xml")]));
    assert!(again.contains("0 added, 0 merged, 20 already present"), "re-importing added papers: {again}");
    assert!(again.trim_end().ends_with("130 papers in the index"), "{again}");

    let hits = stdout(&papertide(data_dir.path(), &["search", "protein function prediction", "--source", "arxiv", "--limit", "2"]));
    let lines: Vec<&str> = hits.lines().collect();
    assert_eq!(lines.last(), Some(&"2 hit(s)"), "{hits}");
    assert!(lines[0].contains("arxiv") && lines[0].contains("Protein Function Prediction"), "{hits}");
    assert!(!hits.contains("pubmed "), "the source filter let another source through: {hits}");

    let since = stdout(&papertide(data_dir.path(), &["search", "cells", "--since", "2026-08-01"]));
    for line in since.lines().filter(|line| line.contains("  20")) {
        assert!(line.contains("2026-08"), "a paper from before --since: {line}");
    }
}

#[test]
fn search_refuses_bad_input_with_a_reason() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let no_index = papertide(data_dir.path(), &["search", "x"]);
    assert!(!no_index.status.success());
    assert!(String::from_utf8_lossy(&no_index.stderr).contains("no paper index"));

    stdout(&papertide(data_dir.path(), &["import", &fixture("pubmed/efetch_batch_6_articles.xml")]));
    let bad_source = papertide(data_dir.path(), &["search", "x", "--source", "scopus"]);
    assert!(!bad_source.status.success());
    assert!(String::from_utf8_lossy(&bad_source.stderr).contains("one of pubmed, arxiv, biorxiv, medrxiv"));
    let bad_date = papertide(data_dir.path(), &["search", "x", "--since", "last week"]);
    assert!(!bad_date.status.success());
    let odd_query = stdout(&papertide(data_dir.path(), &["search", "\"unbalanced ("]));
    assert!(odd_query.trim_end().ends_with("hit(s)"), "{odd_query}");
}
