//! Queries: words, stemming, ranking, the date window, the source filter, limits and bad syntax.

use engine::paper::Source;
use index::{PaperIndex, PaperQuery};

use crate::common::{date, index_of, paper, titles, with_abstract, TestResult, HEAP};

#[test]
fn a_paper_is_found_by_a_word_of_its_title() -> TestResult {
    let wanted = paper(Source::Arxiv, "Sparse attention for protein language models", "Li", "2025-01-06");
    let other = paper(Source::Arxiv, "Galaxy rotation curves without dark matter", "Ng", "2025-01-06");
    let index = index_of(vec![wanted.clone(), other])?;

    let hits = index.search(&PaperQuery::new("protein", 10))?;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].paper, wanted, "a hit returns the paper exactly as upserted");
    assert!(hits[0].score > 0.0);
    Ok(())
}

#[test]
fn words_match_their_other_forms() -> TestResult {
    let index = index_of(vec![paper(Source::Pubmed, "A recurrent mutation in KRAS-driven tumours", "Ito", "2025-01-06")])?;
    assert_eq!(index.search(&PaperQuery::new("mutations", 10))?.len(), 1, "plural finds singular");
    assert_eq!(index.search(&PaperQuery::new("Tumour", 10))?.len(), 1, "case does not matter");
    assert_eq!(index.search(&PaperQuery::new("kras", 10))?.len(), 1, "hyphenated words are split");
    Ok(())
}

#[test]
fn authors_journals_abstracts_and_categories_are_searched() -> TestResult {
    let mut found = with_abstract(paper(Source::Pubmed, "Untitled work of some length", "Okonkwo", "2025-01-06"), "Chromatin loops.");
    found.journal = Some("Cell Reports".into());
    found.categories = vec!["q-bio.GN".into()];
    let index = index_of(vec![found])?;
    for text in ["okonkwo", "chromatin", "cell reports", "q-bio.GN"] {
        assert_eq!(index.search(&PaperQuery::new(text, 10))?.len(), 1, "{text}");
    }
    Ok(())
}

#[test]
fn a_word_in_the_title_outranks_the_same_word_once_in_the_abstract() -> TestResult {
    let in_abstract = with_abstract(
        paper(Source::Biorxiv, "Soil microbiomes across a rainfall gradient", "Diaz", "2025-01-06"),
        "We sampled soils at twelve sites and sequenced their microbial communities; one site showed drought tolerance.",
    );
    let in_title = with_abstract(
        paper(Source::Biorxiv, "Drought tolerance in wheat landraces", "Kaur", "2025-01-06"),
        "We phenotyped landraces under water stress in the field.",
    );
    let index = index_of(vec![in_abstract, in_title])?;

    let hits = index.search(&PaperQuery::new("drought", 10))?;
    assert_eq!(titles(&hits), ["Drought tolerance in wheat landraces", "Soil microbiomes across a rainfall gradient"]);
    assert!(hits[0].score > hits[1].score);
    Ok(())
}

#[test]
fn stopwords_neither_match_nor_break_phrases() -> TestResult {
    let index = index_of(vec![paper(Source::Pubmed, "The role of the ribosome in stress", "Ito", "2025-01-06")])?;
    assert!(index.search(&PaperQuery::new("the of in", 10))?.is_empty(), "function words alone match nothing");
    assert_eq!(index.search(&PaperQuery::new("the ribosome", 10))?.len(), 1);
    assert_eq!(index.search(&PaperQuery::new("\"role of the ribosome\"", 10))?.len(), 1, "a phrase spans the dropped words");
    assert!(index.search(&PaperQuery::new("\"role ribosome\"", 10))?.is_empty(), "but the words still stand apart");
    Ok(())
}

#[test]
fn papers_matching_more_words_rank_higher() -> TestResult {
    let one_word = paper(Source::Arxiv, "Graph neural networks for traffic forecasting", "Wu", "2025-01-06");
    let two_words = paper(Source::Arxiv, "Graph neural networks for protein structure", "Xu", "2025-01-06");
    let index = index_of(vec![one_word, two_words])?;
    let hits = index.search(&PaperQuery::new("graph protein", 10))?;
    assert_eq!(titles(&hits), ["Graph neural networks for protein structure", "Graph neural networks for traffic forecasting"]);
    Ok(())
}

#[test]
fn the_date_window_includes_both_of_its_days() -> TestResult {
    let days = ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04"];
    let papers = days.iter().map(|day| paper(Source::Pubmed, &format!("Enzyme kinetics report of {day}"), "Roe", day)).collect();
    let index = index_of(papers)?;
    let entered_days = |query: &PaperQuery| -> Result<Vec<String>, index::IndexError> {
        let mut found: Vec<String> = index.search(query)?.into_iter().filter_map(|hit| hit.paper.entered).map(|day| day.to_string()).collect();
        found.sort();
        Ok(found)
    };

    let window = PaperQuery { since: Some(date("2025-01-02")), until: Some(date("2025-01-03")), ..PaperQuery::new("enzyme", 10) };
    assert_eq!(entered_days(&window)?, ["2025-01-02", "2025-01-03"]);
    let from = PaperQuery { since: Some(date("2025-01-03")), ..PaperQuery::new("enzyme", 10) };
    assert_eq!(entered_days(&from)?, ["2025-01-03", "2025-01-04"]);
    let to = PaperQuery { until: Some(date("2025-01-01")), ..PaperQuery::new("enzyme", 10) };
    assert_eq!(entered_days(&to)?, ["2025-01-01"]);
    let one_day = PaperQuery { since: Some(date("2025-01-04")), until: Some(date("2025-01-04")), ..PaperQuery::new("enzyme", 10) };
    assert_eq!(entered_days(&one_day)?, ["2025-01-04"]);
    Ok(())
}

#[test]
fn papers_without_an_entry_date_fall_outside_any_window() -> TestResult {
    let mut undated = paper(Source::Pubmed, "Enzyme kinetics without a date", "Roe", "2025-01-01");
    undated.entered = None;
    let index = index_of(vec![undated])?;
    assert_eq!(index.search(&PaperQuery::new("enzyme", 10))?.len(), 1);
    let window = PaperQuery { since: Some(date("1900-01-01")), ..PaperQuery::new("enzyme", 10) };
    assert_eq!(index.search(&window)?.len(), 0);
    Ok(())
}

#[test]
fn the_date_window_does_not_change_scores() -> TestResult {
    let index = index_of(vec![paper(Source::Pubmed, "Enzyme kinetics in yeast cells", "Roe", "2025-01-02")])?;
    let unfiltered = index.search(&PaperQuery::new("enzyme", 10))?;
    let windowed = PaperQuery {
        since: Some(date("2025-01-01")),
        until: Some(date("2025-01-31")),
        sources: vec![Source::Pubmed],
        ..PaperQuery::new("enzyme", 10)
    };
    assert_eq!(index.search(&windowed)?, unfiltered);
    Ok(())
}

#[test]
fn the_source_filter_keeps_papers_reported_by_any_source_named() -> TestResult {
    let mut merged = paper(Source::Medrxiv, "Vaccine uptake among older adults", "Park", "2025-01-06");
    merged.sources = vec![Source::Pubmed, Source::Medrxiv];
    let index = index_of(vec![
        paper(Source::Pubmed, "Vaccine hesitancy in rural clinics", "Ahn", "2025-01-06"),
        paper(Source::Arxiv, "Vaccine allocation as an optimisation problem", "Bo", "2025-01-06"),
        paper(Source::Biorxiv, "Vaccine adjuvants activate innate immunity", "Cho", "2025-01-06"),
        merged,
    ])?;
    let with_sources = |sources: Vec<Source>| -> Result<usize, index::IndexError> {
        Ok(index.search(&PaperQuery { sources, ..PaperQuery::new("vaccine", 10) })?.len())
    };
    assert_eq!(with_sources(vec![])?, 4, "no filter: every source");
    assert_eq!(with_sources(vec![Source::Arxiv, Source::Biorxiv])?, 2);
    assert_eq!(with_sources(vec![Source::Pubmed])?, 2, "the merged paper counts as PubMed too");
    assert_eq!(with_sources(vec![Source::Medrxiv])?, 1);
    Ok(())
}

#[test]
fn the_limit_caps_the_hits() -> TestResult {
    let papers = (0..5).map(|n| paper(Source::Arxiv, &format!("Quantum error correction, part {n}"), "Kim", "2025-01-06")).collect();
    let index = index_of(papers)?;
    assert_eq!(index.search(&PaperQuery::new("quantum", 2))?.len(), 2);
    assert_eq!(index.search(&PaperQuery::new("quantum", 50))?.len(), 5);
    assert_eq!(index.search(&PaperQuery::new("quantum", 0))?, []);
    Ok(())
}

#[test]
fn malformed_query_text_is_searched_as_plain_words() -> TestResult {
    let index = index_of(vec![paper(Source::Arxiv, "Unbalanced optimal transport on graphs", "Fox", "2025-01-06")])?;
    let hits = index.search(&PaperQuery::new("\"unbalanced (", 10))?;
    assert_eq!(titles(&hits), ["Unbalanced optimal transport on graphs"]);
    let hits = index.search(&PaperQuery::new("COVID-19: transport", 10))?;
    assert_eq!(hits.len(), 1, "an unknown field name is a word");
    for text in ["(", ")", "\"", "title:", "AND", "OR OR", "[2020 TO", "^2", "*", "nofield:x", "paper:x", "a~", "+", "-", "\\"] {
        assert!(index.search(&PaperQuery::new(text, 10)).is_ok(), "{text:?}");
    }
    Ok(())
}

#[test]
fn query_syntax_works_when_it_parses() -> TestResult {
    let index = index_of(vec![
        paper(Source::Arxiv, "Optimal transport on graphs", "Fox", "2025-01-06"),
        paper(Source::Arxiv, "Graphs of optimal routes for transport", "Gray", "2025-01-06"),
    ])?;
    assert_eq!(titles(&index.search(&PaperQuery::new("\"optimal transport\"", 10))?), ["Optimal transport on graphs"]);
    assert_eq!(titles(&index.search(&PaperQuery::new("graphs -routes", 10))?), ["Optimal transport on graphs"]);
    Ok(())
}

#[test]
fn empty_text_lists_what_the_filters_let_through_newest_first() -> TestResult {
    let index = index_of(vec![
        paper(Source::Pubmed, "Older paper about kidneys", "Ash", "2025-01-01"),
        paper(Source::Pubmed, "Newer paper about livers", "Ash", "2025-01-05"),
        paper(Source::Arxiv, "An arXiv paper about lungs", "Ash", "2025-01-03"),
    ])?;
    let hits = index.search(&PaperQuery { sources: vec![Source::Pubmed], ..PaperQuery::new("  ", 10) })?;
    assert_eq!(titles(&hits), ["Newer paper about livers", "Older paper about kidneys"]);
    assert!(hits.iter().all(|hit| hit.score == 0.0));
    Ok(())
}

#[test]
fn searches_see_upserts_only_once_committed() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(paper(Source::Arxiv, "Photonic neural networks", "Lee", "2025-01-06"))?;
    assert_eq!(index.search(&PaperQuery::new("photonic", 10))?, []);
    assert_eq!(index.paper_count()?, 0);
    writer.commit()?;
    assert_eq!(index.search(&PaperQuery::new("photonic", 10))?.len(), 1);
    assert_eq!(index.clone().paper_count()?, 1, "clones share the reader");
    Ok(())
}

#[test]
fn rank_orders_ids_exactly_as_search_orders_papers() -> TestResult {
    let papers = vec![
        with_abstract(paper(Source::Pubmed, "Protein folding kinetics", "Ito", "2025-01-06"), "protein protein folding"),
        paper(Source::Arxiv, "Protein language models", "Li", "2025-01-07"),
        paper(Source::Biorxiv, "Folding of RNA hairpins in living cells", "Ng", "2025-01-08"),
        paper(Source::Medrxiv, "Galaxy rotation curves", "Oh", "2025-01-08"),
    ];
    let index = index_of(papers)?;
    let arxiv_only = PaperQuery { sources: vec![Source::Arxiv], ..PaperQuery::new("protein", 10) };
    for query in [PaperQuery::new("protein folding", 10), PaperQuery::new("", 10), arxiv_only] {
        let searched = index.search(&query)?;
        let ranked = index.rank(&query)?;
        let searched: Vec<_> = searched.iter().map(|hit| (hit.id, hit.score)).collect();
        assert_eq!(ranked, searched, "{query:?}");
    }
    assert_eq!(index.rank(&PaperQuery::new("protein folding", 10))?.len(), 3);

    let rna = paper(Source::Biorxiv, "Folding of RNA hairpins in living cells", "Ng", "2025-01-08");
    let key = engine::dedup::DedupKey::Title(engine::dedup::title_key(&rna).expect("a title key"));
    let (id, found) = index.find_with_id(&key)?.expect("found");
    assert_eq!(found, rna);
    assert!(index.rank(&PaperQuery::new("RNA", 10))?.iter().any(|(ranked, _)| *ranked == id));
    Ok(())
}
