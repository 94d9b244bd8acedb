//! One document per work: upserts of the same work, in one batch or across commits, merge.

use engine::dedup::{dedup_keys, DedupKey};
use engine::paper::{Paper, Source};
use index::{PaperIndex, PaperQuery, UpsertOutcome};

use crate::common::{biorxiv_preprint, date, paper, pubmed_record, with_abstract, TestResult, HEAP};

fn arxiv_version(version: u32, title: &str, day: &str) -> Paper {
    let mut record = with_abstract(paper(Source::Arxiv, title, "Reed", day), &format!("Version {version}."));
    record.ids.arxiv = Some("1605.05396".into());
    record.ids.preprint_version = Some(version);
    record.published = Some(date("2016-05-17"));
    record
}

/// Every paper of the last commit.
fn all_papers(index: &PaperIndex) -> Result<Vec<Paper>, index::IndexError> {
    Ok(index.search(&PaperQuery::new("", 1000))?.into_iter().map(|hit| hit.paper).collect())
}

#[test]
fn the_same_paper_twice_is_one_document() -> TestResult {
    let mut record = pubmed_record();
    record.publication_types = vec!["Journal Article".into()];
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;

    assert_eq!(writer.upsert(record.clone())?, UpsertOutcome::Added);
    assert_eq!(writer.upsert(record.clone())?, UpsertOutcome::Unchanged, "seen in the same batch");
    writer.commit()?;
    assert_eq!(writer.upsert(record.clone())?, UpsertOutcome::Unchanged, "seen in the index");
    assert_eq!(writer.pending_count(), 0, "nothing to rewrite");
    writer.commit()?;

    assert_eq!(index.paper_count()?, 1);
    assert_eq!(index.find(&DedupKey::Pmid("39000001".into()))?, Some(record));
    Ok(())
}

#[test]
fn a_record_bringing_something_new_is_merged() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(pubmed_record())?;
    writer.commit()?;
    let mut again = pubmed_record();
    again.ids.pmcid = Some("PMC1100001".into());
    assert_eq!(writer.upsert(again)?, UpsertOutcome::Merged);
    writer.commit()?;

    assert_eq!(index.paper_count()?, 1);
    let stored = index.find(&DedupKey::Pmid("39000001".into()))?.ok_or("stored")?;
    assert_eq!(stored.ids.pmcid.as_deref(), Some("PMC1100001"));
    Ok(())
}

#[test]
fn a_preprint_and_its_pubmed_record_become_one_paper_in_either_order() -> TestResult {
    for commit_between in [false, true] {
        for preprint_first in [true, false] {
            let (first, second) = if preprint_first { (biorxiv_preprint(), pubmed_record()) } else { (pubmed_record(), biorxiv_preprint()) };
            let index = PaperIndex::create_in_ram()?;
            let mut writer = index.writer(HEAP)?;
            assert_eq!(writer.upsert(first)?, UpsertOutcome::Added);
            if commit_between {
                writer.commit()?;
            }
            assert_eq!(writer.upsert(second)?, UpsertOutcome::Merged);
            writer.commit()?;

            let case = format!("commit between: {commit_between}, preprint first: {preprint_first}");
            assert_eq!(index.paper_count()?, 1, "{case}");
            let paper = index.find(&DedupKey::Pmid("39000001".into()))?.ok_or("found by PMID")?;
            assert_eq!(paper.sources, [Source::Pubmed, Source::Biorxiv], "{case}");
            assert_eq!(paper.ids.doi.as_deref(), Some("10.1000/jbac.2024.77"), "{case}");
            assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2024.03.01.000123"), "{case}");
            assert_eq!(paper.title, pubmed_record().title, "the peer-reviewed text wins ({case})");
            assert_eq!(paper.published, Some(date("2024-03-01")), "{case}");
            for key in dedup_keys(&biorxiv_preprint()).into_iter().chain(dedup_keys(&pubmed_record())) {
                assert_eq!(index.find(&key)?.as_ref(), Some(&paper), "{key} ({case})");
            }
        }
    }
    Ok(())
}

#[test]
fn arxiv_versions_become_one_paper_with_the_latest_title() -> TestResult {
    let first = arxiv_version(1, "Generative adversarial text-to-image synthesis", "2016-05-17");
    let second = arxiv_version(2, "Generative Adversarial Text to Image Synthesis", "2016-06-05");
    for input in [[first.clone(), second.clone()], [second.clone(), first.clone()]] {
        let index = PaperIndex::create_in_ram()?;
        let mut writer = index.writer(HEAP)?;
        for record in input {
            writer.upsert(record)?;
            writer.commit()?;
        }
        assert_eq!(index.paper_count()?, 1);
        let paper = index.find(&DedupKey::Arxiv("1605.05396".into()))?.ok_or("found by arXiv id")?;
        assert_eq!(paper.title, "Generative Adversarial Text to Image Synthesis");
        assert_eq!(paper.abstract_text(), "Version 2.");
        assert_eq!(paper.ids.preprint_version, Some(2));
        assert_eq!(paper.entered, Some(date("2016-06-05")));
    }
    Ok(())
}

#[test]
fn duplicates_in_one_uncommitted_batch_become_one_document() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    let other = paper(Source::Pubmed, "An unrelated paper on sleep and memory", "Walker", "2024-05-01");
    let outcomes = [
        writer.upsert(biorxiv_preprint())?,
        writer.upsert(other)?,
        writer.upsert(pubmed_record())?,
        writer.upsert(biorxiv_preprint())?,
        writer.upsert(pubmed_record())?,
    ];
    assert_eq!(outcomes, [UpsertOutcome::Added, UpsertOutcome::Added, UpsertOutcome::Merged, UpsertOutcome::Unchanged, UpsertOutcome::Unchanged]);
    assert_eq!(writer.pending_count(), 2);
    writer.commit()?;
    assert_eq!(index.paper_count()?, 2);
    Ok(())
}

#[test]
fn a_record_joining_works_indexed_apart_merges_them_into_the_oldest() -> TestResult {
    // The preprint does not name its journal DOI yet, and the titles differ: two works.
    let mut first_version = biorxiv_preprint();
    first_version.ids.published_doi = None;
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(first_version)?;
    writer.upsert(pubmed_record())?;
    writer.commit()?;
    assert_eq!(index.paper_count()?, 2);
    let preprint_id = index.search(&PaperQuery::new("stalling shapes", 1))?[0].id;

    // Version 2 names the journal DOI: preprint and journal record are one work.
    let mut second_version = biorxiv_preprint();
    second_version.ids.preprint_version = Some(2);
    second_version.entered = Some(date("2024-10-01"));
    assert_eq!(writer.upsert(second_version)?, UpsertOutcome::Merged);
    writer.commit()?;

    assert_eq!(index.paper_count()?, 1);
    let hits = index.search(&PaperQuery::new("ribosome", 10))?;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].id, preprint_id, "the oldest id survives");
    let paper = &hits[0].paper;
    assert_eq!(paper.sources, [Source::Pubmed, Source::Biorxiv]);
    assert_eq!(paper.ids.pmid.as_deref(), Some("39000001"));
    assert_eq!(paper.ids.preprint_version, Some(2));
    assert_eq!(paper.ids.published_doi.as_deref(), Some("10.1000/jbac.2024.77"));
    Ok(())
}

#[test]
fn an_old_title_still_finds_the_work_after_the_title_changed() -> TestResult {
    let first = arxiv_version(1, "A first title that is long enough to key", "2016-05-17");
    let old_title_key = dedup_keys(&first).into_iter().find(|key| matches!(key, DedupKey::Title(_))).ok_or("a title key")?;
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(first)?;
    writer.upsert(arxiv_version(2, "A second, quite different title for the work", "2016-06-05"))?;
    writer.commit()?;
    let paper = index.find(&old_title_key)?.ok_or("found by its old title")?;
    assert_eq!(paper.title, "A second, quite different title for the work");
    Ok(())
}

#[test]
fn records_whose_ids_contradict_stay_apart() -> TestResult {
    // Same title, first author and year, but two PMIDs: two replies, not one work.
    let mut reply = paper(Source::Pubmed, "Reply to the comment on our cohort study", "Moss", "2024-02-01");
    reply.ids.pmid = Some("38000001".into());
    let mut other_reply = reply.clone();
    other_reply.ids.pmid = Some("38000002".into());
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    assert_eq!(writer.upsert(reply.clone())?, UpsertOutcome::Added);
    assert_eq!(writer.upsert(other_reply)?, UpsertOutcome::Added);
    writer.commit()?;

    assert_eq!(index.paper_count()?, 2);
    let title_key = dedup_keys(&reply).into_iter().find(|key| matches!(key, DedupKey::Title(_))).ok_or("a title key")?;
    assert_eq!(index.find(&title_key)?, Some(reply), "the oldest of the works sharing the key");
    Ok(())
}

#[test]
fn unknown_keys_find_nothing() -> TestResult {
    let index = crate::common::index_of(vec![pubmed_record()])?;
    assert_eq!(index.find(&DedupKey::Pmid("1".into()))?, None);
    assert_eq!(index.find(&DedupKey::Doi("10.1000/none".into()))?, None);
    Ok(())
}

#[test]
fn a_rollback_discards_the_batch() -> TestResult {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    writer.upsert(pubmed_record())?;
    writer.commit()?;
    writer.upsert(biorxiv_preprint())?;
    writer.upsert(paper(Source::Arxiv, "A paper that never was committed", "Nil", "2024-01-01"))?;
    writer.rollback()?;
    assert_eq!(writer.pending_count(), 0);
    writer.commit()?;
    assert_eq!(all_papers(&index)?, [pubmed_record()]);
    Ok(())
}
