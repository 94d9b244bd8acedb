//! The index on disk, its schema version, and its one writer.

use std::fs;

use engine::dedup::DedupKey;
use engine::paper::Source;
use index::{IndexError, PaperIndex, PaperQuery, MIN_WRITER_HEAP_BYTES, SCHEMA_VERSION, SCHEMA_VERSION_FILE};

use crate::common::{paper, pubmed_record, TestResult, HEAP};

#[test]
fn a_second_writer_is_refused_while_the_first_lives() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let writer = index.writer(HEAP)?;
    assert!(matches!(index.writer(HEAP), Err(IndexError::WriterBusy)));
    assert!(matches!(index.clone().writer(HEAP), Err(IndexError::WriterBusy)), "clones share the one writer");
    drop(writer);
    let mut writer = index.writer(HEAP)?;
    writer.upsert(pubmed_record())?;
    writer.commit()?;
    assert_eq!(index.paper_count()?, 1);
    Ok(())
}

#[test]
fn a_second_process_writer_on_the_same_directory_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let index = PaperIndex::open_or_create(dir.path())?;
    let _writer = index.writer(HEAP)?;
    let same_directory = PaperIndex::open_or_create(dir.path())?;
    assert!(matches!(same_directory.writer(HEAP), Err(IndexError::WriterBusy)), "tantivy's lock file holds");
    Ok(())
}

#[test]
fn a_writer_needs_tantivys_minimum_heap() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let error = index.writer(MIN_WRITER_HEAP_BYTES - 1).expect_err("too small");
    assert!(matches!(error, IndexError::WriterHeapTooSmall { .. }), "{error}");
    assert!(index.writer(MIN_WRITER_HEAP_BYTES).is_ok(), "the refused writer freed its slot");
    Ok(())
}

#[test]
fn papers_survive_reopening_the_index() -> TestResult {
    let dir = tempfile::tempdir()?;
    let first_id = {
        let index = PaperIndex::open_or_create(dir.path())?;
        let mut writer = index.writer(HEAP)?;
        writer.upsert(pubmed_record())?;
        writer.commit()?;
        index.search(&PaperQuery::new("ribosome", 1))?[0].id
    };
    assert_eq!(fs::read_to_string(dir.path().join(SCHEMA_VERSION_FILE))?.trim(), SCHEMA_VERSION.to_string());

    let index = PaperIndex::open_or_create(dir.path())?;
    assert_eq!(index.paper_count()?, 1);
    assert_eq!(index.find(&DedupKey::Pmid("39000001".into()))?, Some(pubmed_record()));
    let hits = index.search(&PaperQuery::new("ribosome", 1))?;
    assert_eq!(hits[0].id, first_id, "ids are stable");

    let mut writer = index.writer(HEAP)?;
    writer.upsert(paper(Source::Arxiv, "A second paper written after reopening", "Ode", "2025-01-01"))?;
    writer.commit()?;
    let newer = index.search(&PaperQuery::new("reopening", 1))?;
    assert!(newer[0].id > first_id, "ids are never reused");
    assert_eq!(index.paper_count()?, 2);
    Ok(())
}

#[test]
fn an_index_of_another_schema_version_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    drop(PaperIndex::open_or_create(dir.path())?);
    fs::write(dir.path().join(SCHEMA_VERSION_FILE), format!("{}\n", SCHEMA_VERSION + 1))?;

    let error = PaperIndex::open_or_create(dir.path()).expect_err("another version");
    match &error {
        IndexError::SchemaVersionMismatch { found, expected, .. } => {
            assert_eq!(found, &(SCHEMA_VERSION + 1).to_string());
            assert_eq!(*expected, SCHEMA_VERSION);
        }
        other => panic!("expected a schema version mismatch, got {other}"),
    }
    assert!(error.to_string().contains("schema version"), "{error}");
    Ok(())
}

#[test]
fn an_index_of_an_older_version_is_rebuilt_keeping_every_work_and_its_id() -> TestResult {
    // Version 1 analyzed text without dropping stopwords: its terms would not match this
    // binary's queries, so it is rewritten from the works its documents store.
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("index");
    let ids = {
        let index = PaperIndex::open_or_create(&path)?;
        let mut writer = index.writer(HEAP)?;
        writer.upsert(paper(Source::Pubmed, "The role of the enzyme in kinetics", "Roe", "2025-01-01"))?;
        writer.upsert(paper(Source::Arxiv, "Graph neural networks for traffic", "Wu", "2025-01-02"))?;
        writer.commit()?;
        let hits = index.search(&PaperQuery::new("enzyme graph", 10))?;
        hits.iter().map(|hit| (hit.paper.title.clone(), hit.id)).collect::<std::collections::BTreeMap<_, _>>()
    };
    fs::write(path.join(SCHEMA_VERSION_FILE), "1\n")?;

    let index = PaperIndex::open_or_create(&path)?;
    assert_eq!(index.paper_count()?, 2);
    let hits = index.search(&PaperQuery::new("enzyme graph", 10))?;
    let rebuilt: std::collections::BTreeMap<_, _> = hits.iter().map(|hit| (hit.paper.title.clone(), hit.id)).collect();
    assert_eq!(rebuilt, ids, "the same works under the same ids");
    assert_eq!(fs::read_to_string(path.join(SCHEMA_VERSION_FILE))?.trim(), SCHEMA_VERSION.to_string());
    for leftover in ["index.rebuilding", "index.previous"] {
        assert!(!dir.path().join(leftover).try_exists().expect("the data directory reads"), "{leftover} was left behind");
    }
    let mut writer = index.writer(HEAP)?;
    writer.upsert(paper(Source::Pubmed, "A paper added after the rebuild", "Poe", "2025-01-03"))?;
    writer.commit()?;
    let newest = index.search(&PaperQuery::new("rebuild", 1))?;
    assert!(ids.values().all(|old| newest[0].id > *old), "ids are never given twice");
    Ok(())
}

#[test]
fn a_rebuild_interrupted_after_it_was_complete_is_finished_on_open() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("index");
    let write = |at: &std::path::Path, title: &str| -> TestResult {
        let index = PaperIndex::open_or_create(at)?;
        let mut writer = index.writer(HEAP)?;
        writer.upsert(paper(Source::Pubmed, title, "Roe", "2025-01-01"))?;
        writer.commit()?;
        Ok(())
    };
    write(&path, "Enzyme kinetics in the old index")?;
    let rebuilt = dir.path().join("index.rebuilding");
    write(&rebuilt, "Enzyme kinetics in the rebuilt index")?;
    fs::write(rebuilt.join("papertide-rebuild-complete"), "")?;

    let index = PaperIndex::open_or_create(&path)?;
    let hits = index.search(&PaperQuery::new("enzyme", 10))?;
    assert_eq!(hits.iter().map(|hit| hit.paper.title.as_str()).collect::<Vec<_>>(), ["Enzyme kinetics in the rebuilt index"]);
    let reads = "the data directory reads";
    assert!(!rebuilt.try_exists().expect(reads) && !dir.path().join("index.previous").try_exists().expect(reads));
    Ok(())
}

#[test]
fn a_rebuild_interrupted_before_it_was_complete_starts_over() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("index");
    {
        let index = PaperIndex::open_or_create(&path)?;
        let mut writer = index.writer(HEAP)?;
        writer.upsert(paper(Source::Pubmed, "Enzyme kinetics kept", "Roe", "2025-01-01"))?;
        writer.commit()?;
    }
    fs::write(path.join(SCHEMA_VERSION_FILE), "1\n")?;
    // Half a rebuild: a directory without the completion marker.
    fs::create_dir_all(dir.path().join("index.rebuilding"))?;
    fs::write(dir.path().join("index.rebuilding").join("junk"), "half written")?;

    let index = PaperIndex::open_or_create(&path)?;
    assert_eq!(index.search(&PaperQuery::new("enzyme", 10))?.len(), 1);
    assert!(!dir.path().join("index.rebuilding").try_exists().expect("the data directory reads"));
    Ok(())
}

#[test]
fn an_index_without_a_schema_version_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    drop(PaperIndex::open_or_create(dir.path())?);
    fs::remove_file(dir.path().join(SCHEMA_VERSION_FILE))?;
    let error = PaperIndex::open_or_create(dir.path()).expect_err("no version");
    assert!(matches!(error, IndexError::MissingSchemaVersion { .. }), "{error}");
    Ok(())
}

#[test]
fn a_missing_directory_is_created() -> TestResult {
    let dir = tempfile::tempdir()?;
    let nested = dir.path().join("data").join("index");
    let index = PaperIndex::open_or_create(&nested)?;
    assert_eq!(index.paper_count()?, 0);
    assert!(nested.join(SCHEMA_VERSION_FILE).is_file());
    Ok(())
}
