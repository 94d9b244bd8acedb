//! Papertide's paper index: every harvested work once, in tantivy, searchable with BM25 and
//! filtered by entry date and source.
//!
//! ```text
//! Paper ──upsert──▶ PaperWriter ──(pending batch)──commit──▶ tantivy index ◀── PaperIndex::search / find
//! ```
//!
//! [`PaperIndex`] opens (or creates) the index, in a directory ([`PaperIndex::open_or_create`],
//! which records [`SCHEMA_VERSION`] beside it and refuses any other) or in RAM for tests
//! ([`PaperIndex::create_in_ram`]). It answers look-ups by dedup key ([`PaperIndex::find`]) and
//! queries ([`PaperIndex::search`] with a [`PaperQuery`]), and lists works by id for work done on
//! every paper ([`PaperIndex::work_ids_newest_first`], [`PaperIndex::ids_in_window`],
//! [`PaperIndex::papers_by_id`]). Its [`PaperWriter`] upserts papers, merging records of one work
//! with `engine::dedup`'s rules, and commits them when its owner says; it indexes on one thread of
//! its own ([`PaperIndex::writer`]), or on several for bulk imports
//! ([`PaperIndex::writer_with_threads`]), while its owner goes on reading records.
//!
//! Architecture invariant: **one writer.** [`PaperIndex::writer`] hands out at most one
//! [`PaperWriter`] per index at a time, across clones of the [`PaperIndex`]; asking for a second
//! fails at once with [`IndexError::WriterBusy`] rather than waiting. Only the writer changes the
//! index.
//!
//! Architecture invariant: **readers see commits, and only commits.** Searches and look-ups read
//! the last commit; [`PaperWriter::commit`] reloads the reader before returning, so a search made
//! after it sees the batch. Uncommitted upserts are visible to the writer's later upserts only.
//!
//! Architecture invariant: **one document per work.** Records sharing a dedup key
//! (`engine::dedup::dedup_keys`) are merged with `engine::dedup::merge` whenever
//! `engine::dedup::can_merge` allows it, within a batch and against the committed index alike; a
//! record that joins works indexed apart (a preprint naming its journal DOI, found after both its
//! preprint and its journal record) merges them all into one document. The index keeps no dedup
//! rule of its own; it stores each work's keys and asks `engine`.

mod backup;
mod error;
mod expand;
mod paper_index;
mod query;
mod rebuild;
mod schema;
mod tokenizer;
mod works;
mod writer;

use std::fmt;

pub use backup::IndexCopy;
pub use error::IndexError;
pub use expand::Expansion;
pub use paper_index::{PaperIndex, DEFAULT_WRITER_HEAP_BYTES, MIN_WRITER_HEAP_BYTES, SCHEMA_VERSION_FILE};
pub use query::{Hit, PaperQuery, TITLE_BOOST};
pub use schema::SCHEMA_VERSION;
pub use writer::{PaperWriter, UpsertOutcome};

/// A work's document id in the index: given when the work is first added, never reused. When a
/// record joins works indexed apart, the merged work keeps the oldest (smallest) of their ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaperId(u64);

impl PaperId {
    pub fn new(id: u64) -> PaperId {
        PaperId(id)
    }

    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for PaperId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shareable_between_threads<T: Send + Sync>() {}

    #[test]
    fn the_index_and_its_writer_can_live_in_actors() {
        shareable_between_threads::<PaperIndex>();
        shareable_between_threads::<PaperWriter>();
        assert_eq!(PaperId::new(7).to_string(), "7");
    }
}
