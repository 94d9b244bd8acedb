//! Works by id: every id newest first, the ids in a window, papers by id.

use engine::paper::Source;
use index::{PaperId, PaperIndex, PaperQuery};

use crate::common::{biorxiv_preprint, date, index_of, paper, pubmed_record, TestResult, HEAP};

/// The id of the committed work with `title` (titles are unique in these tests).
fn id_of(index: &PaperIndex, title: &str) -> Result<PaperId, Box<dyn std::error::Error>> {
    let hits = index.search(&PaperQuery::new("", 1000))?;
    let hit = hits.into_iter().find(|hit| hit.paper.title == title).ok_or_else(|| format!("no work titled {title:?}"))?;
    Ok(hit.id)
}

fn titles_of(index: &PaperIndex, ids: &[PaperId]) -> Result<Vec<String>, index::IndexError> {
    Ok(index.papers_by_id(ids)?.into_iter().map(|(_, paper)| paper.title).collect())
}

#[test]
fn works_are_listed_newest_entered_first_then_newest_id_and_undated_last() -> TestResult {
    let mut undated = paper(Source::Arxiv, "Undated note on lattices", "Ng", "2025-01-01");
    undated.entered = None;
    let index = index_of(vec![
        paper(Source::Pubmed, "Middle day, first added", "Ash", "2025-01-03"),
        undated,
        paper(Source::Pubmed, "Newest day", "Ash", "2025-01-05"),
        paper(Source::Arxiv, "Middle day, added later", "Bo", "2025-01-03"),
        paper(Source::Biorxiv, "Oldest day", "Cho", "2025-01-01"),
    ])?;
    let ids = index.work_ids_newest_first()?;
    assert_eq!(
        titles_of(&index, &ids)?,
        ["Newest day", "Middle day, added later", "Middle day, first added", "Oldest day", "Undated note on lattices"]
    );
    assert_eq!(ids.len() as u64, index.paper_count()?);
    Ok(())
}

#[test]
fn the_list_follows_commits_and_leaves_out_works_absorbed_by_a_merge() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    assert_eq!(index.work_ids_newest_first()?, []);
    // The preprint does not name its journal DOI yet, and the titles differ: two works.
    let mut first_version = biorxiv_preprint();
    first_version.ids.published_doi = None;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(first_version)?;
    writer.upsert(pubmed_record())?;
    writer.upsert(paper(Source::Arxiv, "Unrelated work on galaxies", "Oh", "2024-09-20"))?;
    assert_eq!(index.work_ids_newest_first()?, [], "uncommitted works are not listed");
    writer.commit()?;
    let preprint = id_of(&index, &biorxiv_preprint().title)?;
    let journal = id_of(&index, &pubmed_record().title)?;
    let galaxies = id_of(&index, "Unrelated work on galaxies")?;
    assert_eq!(index.work_ids_newest_first()?, [galaxies, journal, preprint]);

    // Version 2 names the journal DOI: one work under the oldest id, entered on its later day.
    let mut second_version = biorxiv_preprint();
    second_version.ids.preprint_version = Some(2);
    second_version.entered = Some(date("2024-10-01"));
    writer.upsert(second_version)?;
    writer.commit()?;
    assert_eq!(index.work_ids_newest_first()?, [preprint, galaxies], "the absorbed id is gone; the merged work moved up");
    Ok(())
}

#[test]
fn papers_by_id_come_in_the_order_asked_and_skip_unknown_ids() -> TestResult {
    let index = index_of(vec![
        paper(Source::Pubmed, "Kidney organoids", "Ash", "2025-01-01"),
        paper(Source::Arxiv, "Sparse transformers", "Bo", "2025-01-02"),
        paper(Source::Biorxiv, "Soil fungi", "Cho", "2025-01-03"),
    ])?;
    let kidney = id_of(&index, "Kidney organoids")?;
    let soil = id_of(&index, "Soil fungi")?;
    let unknown = PaperId::new(9_999);

    let found = index.papers_by_id(&[soil, unknown, kidney, soil])?;
    let found: Vec<(PaperId, &str)> = found.iter().map(|(id, paper)| (*id, paper.title.as_str())).collect();
    assert_eq!(found, [(soil, "Soil fungi"), (kidney, "Kidney organoids")]);
    assert_eq!(index.papers_by_id(&[])?, []);
    assert_eq!(index.papers_by_id(&[unknown])?, []);

    let sparse = id_of(&index, "Sparse transformers")?;
    let upserted = paper(Source::Arxiv, "Sparse transformers", "Bo", "2025-01-02");
    assert_eq!(index.papers_by_id(&[sparse])?, [(sparse, upserted)], "the paper exactly as upserted");
    Ok(())
}

#[test]
fn ids_in_a_window_follow_the_query_filters_without_a_limit() -> TestResult {
    let mut merged = paper(Source::Medrxiv, "Vaccine uptake among older adults", "Park", "2025-01-03");
    merged.sources = vec![Source::Pubmed, Source::Medrxiv];
    let mut undated = paper(Source::Pubmed, "Vaccine trial without a date", "Roe", "2025-01-02");
    undated.entered = None;
    let index = index_of(vec![
        paper(Source::Pubmed, "Vaccine hesitancy in rural clinics", "Ahn", "2025-01-01"),
        paper(Source::Arxiv, "Vaccine allocation as an optimisation problem", "Bo", "2025-01-02"),
        paper(Source::Biorxiv, "Vaccine adjuvants activate innate immunity", "Cho", "2025-01-04"),
        merged,
        undated,
    ])?;
    let titles = |since: Option<&str>, until: Option<&str>, sources: &[Source]| -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let ids = index.ids_in_window(since.map(date), until.map(date), sources)?;
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "in id order, each once");
        assert_eq!(index.count_in_window(since.map(date), until.map(date), sources)?, ids.len() as u64, "the count is of the same works");
        let mut titles = titles_of(&index, &ids)?;
        titles.sort();
        Ok(titles)
    };

    assert_eq!(titles(None, None, &[])?.len(), 5, "no bound and no source: every work, undated ones too");
    assert_eq!(
        titles(Some("2025-01-02"), Some("2025-01-03"), &[])?,
        ["Vaccine allocation as an optimisation problem", "Vaccine uptake among older adults"],
        "both bounds inclusive"
    );
    assert_eq!(titles(Some("2025-01-04"), None, &[])?, ["Vaccine adjuvants activate innate immunity"]);
    assert_eq!(titles(None, Some("2025-01-01"), &[])?, ["Vaccine hesitancy in rural clinics"], "undated works are out once a bound is set");
    assert_eq!(
        titles(None, None, &[Source::Pubmed])?,
        ["Vaccine hesitancy in rural clinics", "Vaccine trial without a date", "Vaccine uptake among older adults"],
        "a merged work counts for each of its sources"
    );
    assert_eq!(
        titles(Some("2025-01-02"), None, &[Source::Arxiv, Source::Biorxiv])?,
        ["Vaccine adjuvants activate innate immunity", "Vaccine allocation as an optimisation problem"]
    );
    assert_eq!(titles(Some("2025-01-03"), Some("2025-01-02"), &[])?, Vec::<String>::new(), "a window ending before it starts");

    let query = PaperQuery { since: Some(date("2025-01-02")), sources: vec![Source::Pubmed, Source::Biorxiv], ..PaperQuery::new("", 1000) };
    let mut searched: Vec<PaperId> = index.search(&query)?.into_iter().map(|hit| hit.id).collect();
    searched.sort();
    assert_eq!(index.ids_in_window(query.since, query.until, &query.sources)?, searched, "the same works as a search with those filters");
    Ok(())
}
