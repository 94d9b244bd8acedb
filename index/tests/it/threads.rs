//! Writers with several indexing threads: the same works, ids and scores as with one.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use engine::paper::{Paper, Source};
use index::{IndexError, PaperIndex, PaperQuery, UpsertOutcome, MIN_WRITER_HEAP_BYTES};

use crate::common::{paper, with_abstract, TestResult};

const TOPICS: [&str; 4] = ["protein folding", "cold shock response", "ribosome stalling", "gut microbiome"];

/// A few hundred records: journal articles, each fifth followed later by a record of the same
/// article bringing its PMCID, and each seventh by its preprint naming the journal DOI.
fn records() -> Vec<Paper> {
    let article = |number: usize| {
        let topic = TOPICS[number % TOPICS.len()];
        let title = format!("Study {number} of {topic} in bacteria");
        let text = format!("We measured {topic} across {number} strains; the {topic} changed with temperature.");
        let mut record = with_abstract(paper(Source::Pubmed, &title, &format!("Author{number}"), "2024-05-01"), &text);
        record.ids.doi = Some(format!("10.1000/study.{number}"));
        record.ids.pmid = Some(format!("{}", 38_000_000 + number));
        record
    };
    let mut records: Vec<Paper> = (0..240).map(article).collect();
    for number in (0..240).step_by(5) {
        let mut again = article(number);
        again.ids.pmcid = Some(format!("PMC{}", 9_000_000 + number));
        records.push(again);
    }
    for number in (0..240).step_by(7) {
        let journal = article(number);
        let mut preprint = paper(Source::Biorxiv, &journal.title, &format!("Author{number}"), "2024-01-10");
        preprint.ids.doi = Some(format!("10.1101/2024.01.10.{number:06}"));
        preprint.ids.preprint_doi = preprint.ids.doi.clone();
        preprint.ids.preprint_version = Some(1);
        preprint.ids.published_doi = journal.ids.doi;
        records.push(preprint);
    }
    records
}

/// What an index holds: every work by id, and the scores of a text query by id.
struct Indexed {
    works: BTreeMap<u64, Paper>,
    scores: BTreeMap<u64, f32>,
}

/// The index built with `threads` writer threads from [`records`], committing twice.
fn indexed_with(threads: usize) -> Result<Indexed, Box<dyn std::error::Error>> {
    let threads = NonZeroUsize::new(threads).ok_or("threads")?;
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer_with_threads(MIN_WRITER_HEAP_BYTES * threads.get(), threads)?;
    let records = records();
    let (first, second) = records.split_at(records.len() / 2);
    let mut outcomes = Vec::new();
    for batch in [first, second] {
        for record in batch {
            outcomes.push(writer.upsert(record.clone())?);
        }
        writer.commit()?;
    }
    assert!(outcomes.contains(&UpsertOutcome::Merged), "the records merge");

    let all = index.search(&PaperQuery::new("", 1000))?;
    assert_eq!(all.len() as u64, index.paper_count()?);
    let works = all.into_iter().map(|hit| (hit.id.get(), hit.paper)).collect();
    let scores = index.search(&PaperQuery::new("ribosome temperature", 1000))?.into_iter().map(|hit| (hit.id.get(), hit.score)).collect();
    Ok(Indexed { works, scores })
}

#[test]
fn more_writer_threads_index_the_same_works_with_the_same_scores() -> TestResult {
    let one = indexed_with(1)?;
    assert_eq!(one.works.len(), 240, "one work per article");
    assert!(!one.scores.is_empty());
    for threads in [2, 3] {
        let several = indexed_with(threads)?;
        assert_eq!(several.works, one.works, "{threads} threads");
        // The same works score the same, up to the length statistics of documents a merge
        // replaced: tantivy's background segment merges drop them when they run, which depends
        // on timing, not on the thread count.
        assert_eq!(several.scores.keys().collect::<Vec<_>>(), one.scores.keys().collect::<Vec<_>>(), "{threads} threads");
        for (id, score) in &several.scores {
            let single = one.scores.get(id).copied().unwrap_or_default();
            assert!((score - single).abs() <= 0.01 * single.abs().max(1e-6), "{threads} threads, work {id}: {score} vs {single}");
        }
    }
    Ok(())
}

#[test]
fn each_writer_thread_needs_tantivys_minimum_heap() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let two = NonZeroUsize::new(2).ok_or("two")?;
    let error = index.writer_with_threads(2 * MIN_WRITER_HEAP_BYTES - 1, two).expect_err("too small for two");
    assert!(matches!(error, IndexError::WriterHeapTooSmall { minimum, .. } if minimum == 2 * MIN_WRITER_HEAP_BYTES), "{error}");
    assert!(index.writer_with_threads(2 * MIN_WRITER_HEAP_BYTES, two).is_ok(), "the refused writer freed its slot");
    Ok(())
}
