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
fn an_index_of_the_previous_analyzer_is_refused_with_advice() -> TestResult {
    // Version 1 analyzed text without dropping stopwords: its terms would not match the queries of
    // this binary, so it must be rebuilt rather than read.
    let dir = tempfile::tempdir()?;
    drop(PaperIndex::open_or_create(dir.path())?);
    fs::write(dir.path().join(SCHEMA_VERSION_FILE), "1\n")?;

    let error = PaperIndex::open_or_create(dir.path()).expect_err("version 1");
    assert!(
        matches!(&error, IndexError::SchemaVersionMismatch { found, expected: 2, .. } if found == "1"),
        "expected a schema version mismatch, got {error}"
    );
    assert!(error.to_string().contains("re-import the papers"), "{error}");
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
