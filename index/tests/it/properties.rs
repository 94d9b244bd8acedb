//! Properties: the index dedups as `engine::dedup::deduplicate` does, whatever the upsert order
//! and wherever the commits fall.

use std::collections::BTreeSet;

use engine::dedup::{dedup_keys, deduplicate};
use engine::paper::{Paper, Source};
use index::{PaperIndex, PaperQuery};
use proptest::prelude::*;

use crate::common::{paper, HEAP};

/// One record of one of three works, as one source reports it.
#[derive(Debug, Clone)]
enum Record {
    /// The journal article: journal DOI and PMID.
    Pubmed { work: u8 },
    /// A bioRxiv version, maybe naming the journal DOI.
    Biorxiv { work: u8, version: u32, names_journal: bool },
    /// An arXiv version.
    Arxiv { work: u8, version: u32 },
    /// Another PubMed article titled like the work's article, by the same author in the same year
    /// (a reply, say): its ids contradict the work's.
    NamesakeArticle { work: u8 },
}

impl Record {
    fn paper(&self) -> Paper {
        match *self {
            Record::Pubmed { work } => {
                let mut record = paper(Source::Pubmed, &title(work), &author(work), "2021-03-01");
                record.ids.doi = Some(format!("10.1000/journal.{work}"));
                record.ids.pmid = Some(format!("3300000{work}"));
                record
            }
            Record::Biorxiv { work, version, names_journal } => {
                let mut record = paper(Source::Biorxiv, &title(work), &author(work), &format!("2020-06-0{version}"));
                record.ids.doi = Some(format!("10.1101/2020.06.01.00000{work}"));
                record.ids.preprint_doi = record.ids.doi.clone();
                record.ids.preprint_version = Some(version);
                record.ids.published_doi = names_journal.then(|| format!("10.1000/journal.{work}"));
                record
            }
            Record::Arxiv { work, version } => {
                let mut record = paper(Source::Arxiv, &title(work).to_uppercase(), &author(work), &format!("2020-06-0{version}"));
                record.ids.arxiv = Some(format!("2006.0000{work}"));
                record.ids.preprint_version = Some(version);
                record
            }
            Record::NamesakeArticle { work } => {
                let mut record = paper(Source::Pubmed, &title(work), &author(work), "2021-07-01");
                record.ids.doi = Some(format!("10.1000/reply.{work}"));
                record.ids.pmid = Some(format!("3400000{work}"));
                record
            }
        }
    }
}

fn title(work: u8) -> String {
    format!("Work number {work} on protein folding dynamics")
}

fn author(work: u8) -> String {
    format!("Author{work}")
}

fn record() -> impl Strategy<Value = Record> {
    let work = 0u8..3;
    prop_oneof![
        work.clone().prop_map(|work| Record::Pubmed { work }),
        (work.clone(), 1u32..4, any::<bool>()).prop_map(|(work, version, names_journal)| Record::Biorxiv { work, version, names_journal }),
        (work.clone(), 1u32..4).prop_map(|(work, version)| Record::Arxiv { work, version }),
        work.prop_map(|work| Record::NamesakeArticle { work }),
    ]
}

/// Records, and the same records in another order.
fn records_in_two_orders() -> impl Strategy<Value = (Vec<Record>, Vec<Record>)> {
    prop::collection::vec(record(), 1..9).prop_flat_map(|records| (Just(records.clone()), Just(records).prop_shuffle()))
}

/// Upserts `papers` into a new in-RAM index, committing after every `batch` upserts (and at the
/// end); returns every paper of the index.
fn indexed(papers: &[Paper], batch: usize) -> Result<Vec<Paper>, index::IndexError> {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    for (position, paper) in papers.iter().enumerate() {
        writer.upsert(paper.clone())?;
        if (position + 1) % batch == 0 {
            writer.commit()?;
        }
    }
    writer.commit()?;
    let count = index.paper_count()?;
    let all = index.search(&PaperQuery::new("", 100))?;
    assert_eq!(all.len() as u64, count);
    Ok(all.into_iter().map(|hit| hit.paper).collect())
}

/// Each paper's identity: its ids and sources, order aside.
fn identities(papers: &[Paper]) -> BTreeSet<String> {
    papers.iter().map(|paper| format!("{:?} {:?}", paper.ids, paper.sources)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn upserts_in_any_order_dedup_as_the_engine_does((records, shuffled) in records_in_two_orders(), batch in 1usize..4) {
        let papers: Vec<Paper> = records.iter().map(Record::paper).collect();
        let shuffled: Vec<Paper> = shuffled.iter().map(Record::paper).collect();
        let expected = deduplicate(papers.clone());

        let in_one_batch = indexed(&papers, usize::MAX).map_err(|error| TestCaseError::fail(error.to_string()))?;
        let in_batches = indexed(&shuffled, batch).map_err(|error| TestCaseError::fail(error.to_string()))?;

        prop_assert_eq!(in_one_batch.len(), expected.len());
        prop_assert_eq!(in_batches.len(), expected.len());
        prop_assert_eq!(identities(&in_one_batch), identities(&expected));
        prop_assert_eq!(identities(&in_batches), identities(&expected));
        for paper in &papers {
            let keys = dedup_keys(paper);
            let holders = in_batches.iter().filter(|stored| dedup_keys(stored).iter().any(|key| keys.contains(key))).count();
            prop_assert!(holders >= 1, "every record's keys lead to a stored paper");
        }
    }
}
