//! The [`Indexer`]: the one actor that owns the paper index's writer. Harvesters (and
//! `papertide harvest`) send it batches of papers; it upserts each batch and commits it, so a
//! batch is searchable whole or not at all.
//!
//! It runs on its own arbiter (thread): tantivy's indexing blocks, and must not stall HTTP
//! requests or the harvesters' network I/O. A panic while indexing a batch rolls the batch back
//! (the writer is dropped, uncommitted) and restarts the actor, which takes the writer again.

use std::panic::{catch_unwind, AssertUnwindSafe};

use actix::prelude::*;
use chrono::Utc;
use engine::paper::Paper;
use index::{IndexError, PaperIndex, PaperWriter, UpsertOutcome};

use crate::status::StatusBoard;

const ACTOR_NAME: &str = "indexer";

/// How many papers an upsert added, merged and found unchanged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestCounts {
    pub added: u64,
    /// Merged into a paper the index already had, changing it.
    pub merged: u64,
    /// Already in the index exactly as received.
    pub unchanged: u64,
}

impl IngestCounts {
    pub fn record(&mut self, outcome: UpsertOutcome) {
        match outcome {
            UpsertOutcome::Added => self.added += 1,
            UpsertOutcome::Merged => self.merged += 1,
            UpsertOutcome::Unchanged => self.unchanged += 1,
        }
    }

    pub fn add(&mut self, other: IngestCounts) {
        self.added += other.added;
        self.merged += other.merged;
        self.unchanged += other.unchanged;
    }

    pub fn total(&self) -> u64 {
        self.added + self.merged + self.unchanged
    }
}

/// Upserts every paper and commits them together; on an error nothing of the batch is kept.
pub fn index_papers(writer: &mut PaperWriter, papers: Vec<Paper>) -> Result<IngestCounts, IndexError> {
    let mut counts = IngestCounts::default();
    let upserted = papers.into_iter().try_for_each(|paper| writer.upsert(paper).map(|outcome| counts.record(outcome)));
    match upserted.and_then(|()| writer.commit().map(drop)) {
        Ok(()) => Ok(counts),
        Err(error) => {
            if let Err(rollback) = writer.rollback() {
                tracing::error!(%rollback, "rolling back a failed batch");
            }
            Err(error)
        }
    }
}

/// Index these papers and commit them; answers what became of them.
#[derive(Debug, Message)]
#[rtype(result = "Result<IngestCounts, IndexerError>")]
pub struct Ingest(pub Vec<Paper>);

/// Copy the index's last commit into this folder, after committing what is pending: the writer
/// waits while the copy is made (see `index::IndexCopy`). A backup sends it once it has copied
/// the store: every paper the store's copy refers to was committed before.
#[derive(Debug, Message)]
#[rtype(result = "Result<index::IndexCopy, IndexerError>")]
pub struct CopyIndex(pub std::path::PathBuf);

/// Why a batch was not indexed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum IndexerError {
    #[error("the index cannot be written: {0}")]
    Unavailable(String),
    #[error("indexing the batch failed: {0}")]
    Failed(String),
    #[error("indexing the batch panicked; it was rolled back")]
    Panicked,
    /// The data directory's disk is under its reserve: nothing was written.
    #[error("the index was not written: {0}")]
    DiskFull(String),
}

/// The index's one writer, as an actor. See the module documentation.
pub struct Indexer {
    index: PaperIndex,
    writer_heap_bytes: usize,
    writer: Option<PaperWriter>,
    board: StatusBoard,
    /// Checked before every batch: the index's files share the database's disk.
    room: store::DiskRoom,
}

impl Indexer {
    pub fn new(index: PaperIndex, writer_heap_bytes: usize, board: StatusBoard) -> Indexer {
        Indexer { index, writer_heap_bytes, writer: None, board, room: store::DiskRoom::default() }
    }

    /// Refuses batches while `room` says the disk is under its reserve (see `store::room`).
    pub fn with_disk_room(self, room: store::DiskRoom) -> Indexer {
        Indexer { room, ..self }
    }

    /// Starts the indexer under a supervisor on a new arbiter (its own thread). Keep the
    /// arbiter: stopping it stops the indexer.
    pub fn start_in_own_thread(self) -> (Addr<Indexer>, Arbiter) {
        let arbiter = Arbiter::new();
        let address = Supervisor::start_in_arbiter(&arbiter.handle(), move |_| self);
        (address, arbiter)
    }

    /// The writer, taken now if not held yet.
    fn writer(&mut self) -> Result<&mut PaperWriter, IndexerError> {
        if self.writer.is_none() {
            let writer = self.index.writer(self.writer_heap_bytes).map_err(|error| IndexerError::Unavailable(error.to_string()))?;
            self.writer = Some(writer);
        }
        self.writer.as_mut().ok_or_else(|| IndexerError::Unavailable("no writer".into()))
    }

    fn record_error(&self, error: &IndexerError) {
        self.board.record_failure(ACTOR_NAME, error, Utc::now());
    }
}

impl Actor for Indexer {
    type Context = Context<Self>;

    fn started(&mut self, _: &mut Self::Context) {
        self.board.register(ACTOR_NAME);
        if let Err(error) = self.writer() {
            tracing::error!(%error, "the indexer cannot take the index writer yet");
            self.record_error(&error);
        }
    }
}

impl Supervised for Indexer {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.writer = None;
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<CopyIndex> for Indexer {
    type Result = Result<index::IndexCopy, IndexerError>;

    fn handle(&mut self, CopyIndex(dest): CopyIndex, _: &mut Self::Context) -> Self::Result {
        let copied = match self.writer() {
            Ok(writer) => writer.copy_committed_to(&dest),
            // Without the writer nothing commits here: the last commit is copied as it is.
            Err(_) => self.index.copy_committed_to(&dest),
        };
        copied.map_err(|error| {
            tracing::error!(%error, dest = %dest.display(), "the index was not copied");
            IndexerError::Failed(error.to_string())
        })
    }
}

impl Handler<Ingest> for Indexer {
    type Result = Result<IngestCounts, IndexerError>;

    fn handle(&mut self, Ingest(papers): Ingest, ctx: &mut Self::Context) -> Self::Result {
        let count = papers.len() as u64;
        let room = self.room.ensure().map_err(|full| IndexerError::DiskFull(full.to_string()));
        let outcome = room.and_then(|()| self.writer()).and_then(|writer| {
            catch_unwind(AssertUnwindSafe(|| index_papers(writer, papers)))
                .map_err(|_| IndexerError::Panicked)?
                .map_err(|error| IndexerError::Failed(error.to_string()))
        });
        match &outcome {
            Ok(_) => self.board.record_success(ACTOR_NAME, count, Utc::now()),
            Err(error) => {
                tracing::error!(%error, papers = count, "a batch was not indexed");
                self.record_error(error);
                if matches!(error, IndexerError::Panicked) {
                    // The writer's state is unknown after a panic: drop it (uncommitted work is
                    // discarded) and let the supervisor start afresh.
                    self.writer = None;
                    ctx.stop();
                }
            }
        }
        outcome
    }
}
