//! Copies of the index's last commit, made while its writer commits and merges.

use engine::paper::Source;
use index::{PaperIndex, PaperQuery};

use crate::common::{paper, TestResult, HEAP};

fn numbered(n: usize) -> engine::paper::Paper {
    let mut work = paper(Source::Pubmed, &format!("Malaria vaccine trial number {n}"), "Okafor", "2024-05-01");
    work.ids.pmid = Some(format!("{}", 1_000 + n));
    work
}

#[test]
fn a_copy_opens_with_the_papers_of_the_commit_and_the_writer_goes_on() -> TestResult {
    let folder = tempfile::tempdir()?;
    let index = PaperIndex::open_or_create(&folder.path().join("index"))?;
    let mut writer = index.writer(HEAP)?;
    let mut copies = Vec::new();
    for batch in 0..6 {
        for n in batch * 10..batch * 10 + 10 {
            writer.upsert(numbered(n))?;
        }
        // The last batch is left pending: the writer's copy commits it first.
        if batch < 5 {
            writer.commit()?;
        }
        let dest = folder.path().join(format!("copy-{batch}"));
        let copied = writer.copy_committed_to(&dest)?;
        assert_eq!(copied.papers, (batch as u64 + 1) * 10);
        copies.push((dest, copied.papers));
    }
    drop(writer);
    let reader_copy = folder.path().join("copy-by-reader");
    assert_eq!(index.copy_committed_to(&reader_copy)?.papers, 60);
    copies.push((reader_copy, 60));
    for (dest, papers) in copies {
        let copy = PaperIndex::open_or_create(&dest)?;
        assert_eq!(copy.paper_count()?, papers, "{}", dest.display());
        let hits = copy.search(&PaperQuery::new("malaria vaccine", 100))?;
        assert_eq!(hits.len() as u64, papers);
        // The copy is an index of its own: its writer commits and merges there.
        let mut writer = copy.writer(HEAP)?;
        writer.upsert(numbered(500))?;
        writer.commit()?;
        assert_eq!(copy.paper_count()?, papers + 1);
    }
    Ok(())
}
