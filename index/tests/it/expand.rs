//! Expanded ranking: the index's analyzer, RM3 feedback from the index itself, and a weighted
//! query that finds papers written in the feedback papers' words.

use engine::expansion::Rm3;
use engine::paper::Source;
use index::PaperQuery;

use crate::common::{index_of, paper, with_abstract, TestResult};

#[test]
fn text_is_analyzed_as_the_index_analyzes_it() -> TestResult {
    let index = index_of(vec![])?;
    assert_eq!(index.analyze("Running mutations, KRAS-driven"), vec!["run", "mutat", "kras", "driven"]);
    assert!(index.analyze("  ,;  ").is_empty());
    assert_eq!(index.analyze("The effects of a drug on the heart"), vec!["effect", "drug", "heart"], "stopwords are dropped");
    let with_surface = index.analyze_with_surface("Running Mutations of the heart");
    let expected = [("run", "running"), ("mutat", "mutations"), ("heart", "heart")].map(|(word, surface)| (word.to_string(), surface.to_string()));
    assert_eq!(with_surface, expected.to_vec(), "each word comes with the text it was read from");
    Ok(())
}

#[test]
fn feedback_words_find_papers_that_share_no_word_with_the_query() -> TestResult {
    let day = "2025-01-06";
    let index = index_of(vec![
        with_abstract(paper(Source::Pubmed, "Lens opacity in aging eyes", "Ito", day), "cataract lens opacity crystallin aggregation"),
        with_abstract(paper(Source::Pubmed, "Crystallin chaperones and the lens", "Li", day), "cataract crystallin chaperone lens"),
        with_abstract(
            paper(Source::Arxiv, "Surgery outcomes for cataract", "Ng", "2025-01-09"),
            "cataract extraction and phacoemulsification outcomes",
        ),
        with_abstract(paper(Source::Arxiv, "Gravitational lensing of quasars", "Oh", day), "quasar light bent by galaxies"),
        with_abstract(paper(Source::Pubmed, "Phthalate exposure in rats", "Ko", day), "high dose effects on rat liver"),
        with_abstract(paper(Source::Pubmed, "Dietary fibre and the gut", "Ma", day), "fibre intake changes gut microbes"),
        with_abstract(paper(Source::Pubmed, "Sleep in shift workers", "Ro", day), "shift work disturbs sleep and mood"),
        with_abstract(paper(Source::Pubmed, "Soil carbon under pasture", "Su", day), "grazing and soil carbon stocks"),
    ])?;
    let query = PaperQuery::new("lens crystallin", 10);
    let plain: Vec<String> = index.search(&query)?.iter().map(|hit| hit.paper.title.clone()).collect();
    assert!(!plain.iter().any(|title| title.starts_with("Surgery")), "the surgery paper shares no query word: {plain:?}");

    let params = Rm3 { feedback_docs: 2, feedback_terms: 5, ..Rm3::default() };
    let (ranked, expansion) = index.rank_expanded(&query, &params)?;
    assert!(expansion.iter().any(|(word, _)| word == "cataract"), "{expansion:?}");
    assert_eq!(expansion, index.expand(&query, &params)?);
    let (hits, same_expansion) = index.search_expanded(&query, &params)?;
    assert_eq!(hits.iter().map(|hit| (hit.id, hit.score)).collect::<Vec<_>>(), ranked, "search_expanded loads what rank_expanded ranks");
    assert_eq!(same_expansion, expansion);
    let titles: Vec<String> = ranked
        .iter()
        .map(|(id, _)| index.search(&PaperQuery::new("", 10)).map(|hits| hits.into_iter().find(|hit| hit.id == *id).map(|hit| hit.paper.title)))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    assert!(titles[0] == "Crystallin chaperones and the lens" || titles[0] == "Lens opacity in aging eyes", "{titles:?}");
    assert!(titles.iter().any(|title| title.starts_with("Surgery")), "expansion reaches the cataract surgery paper: {titles:?}");

    let arxiv_only = PaperQuery { sources: vec![Source::Arxiv], ..query.clone() };
    let (filtered, _) = index.rank_expanded(&arxiv_only, &params)?;
    let all_hits = index.search(&PaperQuery::new("", 10))?;
    let filtered_titles: Vec<&str> =
        filtered.iter().filter_map(|(id, _)| all_hits.iter().find(|hit| hit.id == *id)).map(|hit| hit.paper.title.as_str()).collect();
    assert_eq!(filtered_titles, vec!["Surgery outcomes for cataract"], "filters still apply ('lensing' stems apart from 'lens')");
    assert!(index.rank_expanded(&PaperQuery::new("lens", 0), &params)?.0.is_empty());
    Ok(())
}

#[test]
fn a_topic_the_index_does_not_cover_expands_to_nothing() -> TestResult {
    let day = "2025-01-06";
    // A week of phthalate toxicology; one paper mentions a vaccine in passing.
    let index = index_of(vec![
        with_abstract(paper(Source::Pubmed, "Phthalate exposure in rats", "Ko", day), "high dose effects on rat liver, increased weight"),
        with_abstract(paper(Source::Pubmed, "Phthalates and mouse testes", "Ma", day), "high dose effects in mice, a set of models"),
        with_abstract(paper(Source::Pubmed, "Phthalate metabolites in urine", "Ro", day), "dose and effects, increased levels; no vaccine studied"),
        with_abstract(paper(Source::Pubmed, "Phthalate and thyroid", "Su", day), "high dose effects on the thyroid of rats"),
    ])?;
    let query = PaperQuery::new("malaria vaccine", 10);
    let expansion = index.expand(&query, &Rm3::default())?;
    let words: Vec<&str> = expansion.iter().map(|(word, _)| word.as_str()).collect();
    assert_eq!(words, vec!["malaria", "vaccin"], "only the topic's own words: {expansion:?}");
    Ok(())
}
