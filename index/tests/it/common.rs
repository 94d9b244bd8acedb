//! Paper builders and index helpers shared by the tests.

use chrono::NaiveDate;
use engine::paper::{AbstractSection, Author, Paper, Source};
use index::{Hit, PaperIndex, MIN_WRITER_HEAP_BYTES};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The smallest heap a writer takes: plenty for tests.
pub const HEAP: usize = MIN_WRITER_HEAP_BYTES;

pub fn date(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a YYYY-MM-DD date")
}

/// A paper from `source` by one author, published and entered on `day`.
pub fn paper(source: Source, title: &str, author: &str, day: &str) -> Paper {
    let mut paper = Paper::new(source, title);
    paper.authors = vec![Author::person(Some("A."), author)];
    paper.published = Some(date(day));
    paper.entered = Some(date(day));
    paper
}

pub fn with_abstract(mut paper: Paper, text: &str) -> Paper {
    paper.abstract_sections = vec![AbstractSection { label: None, text: text.into() }];
    paper
}

/// An in-RAM index holding `papers`, upserted in order and committed once.
pub fn index_of(papers: Vec<Paper>) -> Result<PaperIndex, Box<dyn std::error::Error>> {
    let index = PaperIndex::create_in_ram()?;
    let mut writer = index.writer(HEAP)?;
    for paper in papers {
        writer.upsert(paper)?;
    }
    writer.commit()?;
    Ok(index)
}

pub fn titles(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.paper.title.as_str()).collect()
}

/// A bioRxiv preprint (version 1) that names the journal DOI it was published under.
pub fn biorxiv_preprint() -> Paper {
    let mut preprint = paper(Source::Biorxiv, "Ribosome stalling shapes the bacterial cold shock response", "Evans", "2024-03-01");
    preprint.ids.doi = Some("10.1101/2024.03.01.000123".into());
    preprint.ids.preprint_doi = Some("10.1101/2024.03.01.000123".into());
    preprint.ids.preprint_version = Some(1);
    preprint.ids.published_doi = Some("10.1000/jbac.2024.77".into());
    preprint.categories = vec!["microbiology".into()];
    preprint
}

/// The PubMed record of the journal article [`biorxiv_preprint`] became (its title changed).
pub fn pubmed_record() -> Paper {
    let mut record = paper(Source::Pubmed, "Ribosome stalling drives the cold-shock response of bacteria.", "Evans", "2024-09-15");
    record.ids.doi = Some("10.1000/jbac.2024.77".into());
    record.ids.pmid = Some("39000001".into());
    record.journal = Some("Journal of Bacteriology".into());
    record
}
