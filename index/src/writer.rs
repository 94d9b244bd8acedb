//! [`PaperWriter`]: the index's one writer. It upserts papers, one document per work, and commits
//! when its owner says.
//!
//! An upsert looks for works sharing a dedup key with the incoming record, among the writer's
//! pending (uncommitted) works first and the committed index second, and merges with the oldest one
//! `engine::dedup::can_merge` allows; the merged work's keys may reach further works, which are
//! merged in turn, exactly as `engine::dedup::deduplicate` does. The result is staged, keyed by the
//! oldest id involved; the works it absorbed are marked for deletion. The staged work's document
//! is handed to tantivy's indexing threads at once, after deletions of the documents it replaces,
//! so indexing overlaps with whatever the caller does between upserts; but tantivy shows none of it
//! to readers before [`PaperWriter::commit`], which makes the whole batch visible in one commit: a
//! batch becomes visible whole, or not at all. (Tantivy applies a deletion to the documents sent
//! before it only, so a work merged twice in a batch leaves exactly its last document.)

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use engine::dedup::{can_merge, dedup_keys, merge};
use engine::paper::Paper;
use serde::{Deserialize, Serialize};
use tantivy::{IndexReader, IndexWriter, Searcher, TantivyDocument, Term};

use crate::error::IndexError;
use crate::paper_index::find_by_key;
use crate::schema::{Fields, StoredPaper};
use crate::PaperId;

/// What [`PaperWriter::upsert`] did with a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UpsertOutcome {
    /// No work shared a key with it (or none could take it): it is a new work.
    Added,
    /// It was merged into the work(s) it shares keys with; the merged work replaces them.
    Merged,
    /// It was merged into a work that the merge left as it was (it was seen before).
    Unchanged,
}

/// The index's one writer (see [`crate::PaperIndex::writer`]). Upserts stay pending, seen by later
/// upserts but not by searches, until [`PaperWriter::commit`]; dropping the writer discards them.
pub struct PaperWriter {
    writer: IndexWriter,
    reader: IndexReader,
    fields: Fields,
    next_id: u64,
    /// Works added or changed since the last commit, by id.
    pending: BTreeMap<PaperId, StoredPaper>,
    /// Every key of every pending work; entries of works absorbed since may linger.
    pending_by_key: BTreeMap<String, BTreeSet<PaperId>>,
    /// Works absorbed into an older one since the last commit (their documents are deleted).
    absorbed: BTreeSet<PaperId>,
    /// Whether tantivy may have lost part of the pending batch (a failed send or commit), so the
    /// next commit must send it all again.
    resend_at_commit: bool,
    /// The index's folder; `None` in RAM.
    dir: Option<Arc<std::path::PathBuf>>,
    /// Declared last so it is freed after `writer` has released tantivy's lock.
    _slot: WriterSlot,
}

/// The right to be the index's writer, shared by the clones of a `PaperIndex`; freed on drop.
pub(crate) struct WriterSlot(Arc<AtomicBool>);

/// What each commit records in tantivy's commit payload.
#[derive(Debug, Serialize, Deserialize)]
struct CommitRecord {
    next_paper_id: u64,
}

impl PaperWriter {
    pub(crate) fn new(
        writer: IndexWriter,
        reader: IndexReader,
        fields: Fields,
        commit_payload: Option<&str>,
        slot: WriterSlot,
    ) -> Result<PaperWriter, IndexError> {
        let recorded = commit_payload.and_then(|payload| serde_json::from_str::<CommitRecord>(payload).ok());
        let after_largest = largest_id_ever(&reader.searcher())?.map_or(1, |largest| largest.saturating_add(1));
        let next_id = recorded.map_or(after_largest, |record| record.next_paper_id.max(after_largest));
        Ok(PaperWriter {
            writer,
            reader,
            fields,
            next_id,
            pending: BTreeMap::new(),
            pending_by_key: BTreeMap::new(),
            absorbed: BTreeSet::new(),
            resend_at_commit: false,
            dir: None,
            _slot: slot,
        })
    }

    /// The same writer, of the index in `dir` (none: in RAM).
    pub(crate) fn in_directory(mut self, dir: Option<Arc<std::path::PathBuf>>) -> PaperWriter {
        self.dir = dir;
        self
    }

    /// Adds `paper` as a new work, or merges it into the works it shares dedup keys with (see the
    /// module docs). Visible to later upserts at once, to searches after [`PaperWriter::commit`].
    ///
    /// The work's document goes to tantivy's indexing threads at once (replacing the documents of
    /// the works it absorbed), so indexing runs while the caller reads its next records. Should
    /// tantivy refuse it ([`IndexError::Add`]), the work stays pending and the next commit sends
    /// the whole batch again.
    pub fn upsert(&mut self, paper: Paper) -> Result<UpsertOutcome, IndexError> {
        let searcher = self.reader.searcher();
        let mut keys = key_strings(&paper);
        let mut merged = paper;
        let mut absorbed: Vec<StoredPaper> = Vec::new();
        while let Some(existing) = self.oldest_mergeable_work(&searcher, &merged, &keys, &absorbed)? {
            merged = merge(existing.paper.clone(), merged);
            keys.extend(existing.keys.iter().cloned());
            keys.extend(key_strings(&merged));
            absorbed.push(existing);
        }

        let Some(oldest) = absorbed.iter().map(|work| work.id).min() else {
            let work = StoredPaper { id: PaperId::new(self.next_id), paper: merged, keys };
            // Encoded before anything changes, so that an encoding error leaves the writer as it was.
            let document = self.fields.document(&work)?;
            self.next_id = self.next_id.saturating_add(1);
            self.stage(work);
            self.send(&[], document)?;
            return Ok(UpsertOutcome::Added);
        };
        if let [only] = absorbed.as_slice() {
            if only.paper == merged && only.keys == keys {
                return Ok(UpsertOutcome::Unchanged);
            }
        }
        let work = StoredPaper { id: oldest, paper: merged, keys };
        let document = self.fields.document(&work)?;
        let replaced: Vec<PaperId> = absorbed.iter().map(|work| work.id).collect();
        for &id in &replaced {
            self.pending.remove(&id);
            if id != oldest {
                self.absorbed.insert(id);
            }
        }
        tracing::debug!(id = %oldest, works = absorbed.len(), "paper merged into the index");
        self.stage(work);
        self.send(&replaced, document)?;
        Ok(UpsertOutcome::Merged)
    }

    /// Makes every pending upsert durable and visible: replaced documents are deleted, merged and
    /// new ones added, in one tantivy commit; the reader is reloaded before this returns. Returns
    /// the commit's opstamp. Should it fail, the batch stays pending: retry the commit, or
    /// [`PaperWriter::rollback`] to drop it.
    pub fn commit(&mut self) -> Result<u64, IndexError> {
        if self.resend_at_commit {
            self.resend()?;
        }
        let record = CommitRecord { next_paper_id: self.next_id };
        let payload = serde_json::to_string(&record).map_err(|source| IndexError::EncodeCommitRecord { source })?;
        let committed = self.writer.prepare_commit().and_then(|mut prepared| {
            prepared.set_payload(&payload);
            prepared.commit()
        });
        let opstamp = match committed {
            Ok(opstamp) => opstamp,
            Err(source) => {
                // Tantivy may have dropped the documents it was sent; a retry sends them again.
                self.resend_at_commit = true;
                return Err(IndexError::Commit { source });
            }
        };
        tracing::debug!(opstamp, works = self.pending.len(), absorbed = self.absorbed.len(), "paper index committed");
        self.clear_pending();
        self.reader.reload().map_err(|source| IndexError::Reload { source })?;
        Ok(opstamp)
    }

    /// Discards every pending upsert; the index stays as the last commit left it. Returns that
    /// commit's opstamp.
    pub fn rollback(&mut self) -> Result<u64, IndexError> {
        self.clear_pending();
        self.writer.rollback().map_err(|source| IndexError::Rollback { source })
    }

    /// Commits what is pending, then copies the commit into `dest` (see [`crate::IndexCopy`]
    /// and `backup`): the copy holds every paper upserted before, and no commit of this writer
    /// comes during the copy.
    pub fn copy_committed_to(&mut self, dest: &std::path::Path) -> Result<crate::IndexCopy, IndexError> {
        if self.pending_count() > 0 || self.resend_at_commit {
            self.commit()?;
        }
        crate::backup::copy_committed(self.writer.index(), self.dir.as_deref().map(|dir| dir.as_path()), dest)
    }

    /// How many works the next commit will write (added or merged since the last one).
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// The oldest live work, pending or committed, sharing one of `keys` that `merged` can join;
    /// works in `absorbed` are already part of `merged`.
    fn oldest_mergeable_work(
        &self,
        searcher: &Searcher,
        merged: &Paper,
        keys: &BTreeSet<String>,
        absorbed: &[StoredPaper],
    ) -> Result<Option<StoredPaper>, IndexError> {
        let is_absorbed = |id: PaperId| absorbed.iter().any(|work| work.id == id);
        let committed_is_empty = searcher.num_docs() == 0;
        let mut sharing: BTreeMap<PaperId, StoredPaper> = BTreeMap::new();
        for key in keys {
            let pending_ids = self.pending_by_key.get(key).into_iter().flatten();
            for work in pending_ids.filter_map(|id| self.pending.get(id)) {
                sharing.entry(work.id).or_insert_with(|| work.clone());
            }
            if committed_is_empty {
                continue;
            }
            for work in find_by_key(searcher, self.fields, key)? {
                // A pending work supersedes its committed document, and carries all its keys.
                let superseded = self.pending.contains_key(&work.id) || self.absorbed.contains(&work.id);
                if !superseded {
                    sharing.entry(work.id).or_insert(work);
                }
            }
        }
        let mut candidates = sharing.into_values().filter(|work| !is_absorbed(work.id));
        Ok(candidates.find(|work| can_merge(&work.paper, merged)))
    }

    /// Hands `document` to tantivy after deleting the documents of the `replaced` works (tantivy
    /// applies a deletion to the documents sent before it only). Nothing is sent while the batch
    /// awaits a resend, which covers it.
    fn send(&mut self, replaced: &[PaperId], document: TantivyDocument) -> Result<(), IndexError> {
        if self.resend_at_commit {
            return Ok(());
        }
        for id in replaced {
            self.writer.delete_term(Term::from_field_u64(self.fields.id, id.get()));
        }
        if let Err(source) = self.writer.add_document(document) {
            self.resend_at_commit = true;
            return Err(IndexError::Add { source });
        }
        Ok(())
    }

    /// Sends the whole pending batch again: deletes every replaced or pending work's documents,
    /// then adds each pending work's document.
    fn resend(&mut self) -> Result<(), IndexError> {
        let documents: Vec<TantivyDocument> = self.pending.values().map(|work| self.fields.document(work)).collect::<Result<_, _>>()?;
        for id in self.absorbed.iter().chain(self.pending.keys()) {
            self.writer.delete_term(Term::from_field_u64(self.fields.id, id.get()));
        }
        for document in documents {
            self.writer.add_document(document).map_err(|source| IndexError::Add { source })?;
        }
        self.resend_at_commit = false;
        Ok(())
    }

    fn stage(&mut self, work: StoredPaper) {
        for key in &work.keys {
            self.pending_by_key.entry(key.clone()).or_default().insert(work.id);
        }
        self.pending.insert(work.id, work);
    }

    fn clear_pending(&mut self) {
        self.pending.clear();
        self.pending_by_key.clear();
        self.absorbed.clear();
        self.resend_at_commit = false;
    }
}

impl Drop for PaperWriter {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            tracing::warn!(works = self.pending.len(), "paper index writer dropped with uncommitted upserts; they are lost");
        }
    }
}

impl std::fmt::Debug for PaperWriter {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PaperWriter")
            .field("next_id", &self.next_id)
            .field("pending", &self.pending.len())
            .field("absorbed", &self.absorbed.len())
            .finish_non_exhaustive()
    }
}

impl WriterSlot {
    /// The slot, unless another writer holds it.
    pub(crate) fn take(open: Arc<AtomicBool>) -> Option<WriterSlot> {
        let taken = open.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).is_ok();
        taken.then_some(WriterSlot(open))
    }
}

impl Drop for WriterSlot {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// A paper's dedup keys in their string form, as the index stores them.
fn key_strings(paper: &Paper) -> BTreeSet<String> {
    dedup_keys(paper).iter().map(ToString::to_string).collect()
}

/// The largest id any document of the index ever had, deleted ones included while their segment
/// lives: a floor for new ids should the commit record be missing.
fn largest_id_ever(searcher: &Searcher) -> Result<Option<u64>, IndexError> {
    let mut largest: Option<u64> = None;
    for segment in searcher.segment_readers() {
        if segment.max_doc() == 0 {
            continue;
        }
        let ids = segment.fast_fields().u64(Fields::ID).map_err(|source| IndexError::ReadCommitRecord { source })?;
        largest = largest.max(Some(ids.max_value()));
    }
    Ok(largest)
}

#[cfg(test)]
mod tests {
    use engine::paper::Source;

    use super::*;

    #[test]
    fn the_writer_slot_is_taken_once_and_freed_on_drop() {
        let open = Arc::new(AtomicBool::new(false));
        let first = WriterSlot::take(Arc::clone(&open)).expect("free at first");
        assert!(WriterSlot::take(Arc::clone(&open)).is_none(), "taken");
        drop(first);
        assert!(WriterSlot::take(open).is_some(), "freed");
    }

    #[test]
    fn keys_are_the_engines_in_their_string_form() {
        let mut paper = Paper::new(Source::Pubmed, "Short");
        paper.ids.pmid = Some("123".into());
        paper.ids.doi = Some("10.1000/X".into());
        let keys: Vec<String> = key_strings(&paper).into_iter().collect();
        assert_eq!(keys, ["doi:10.1000/x", "pmid:123"]);
    }
}
