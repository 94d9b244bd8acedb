//! Rebuilding an index of an older schema version in this version's schema, from the works its
//! documents store: an upgrade keeps every harvested paper (the sources cannot be asked for
//! past weeks again) and every paper's id.
//!
//! The rebuild writes a new index beside the old one (`<dir>.rebuilding`), marks it complete,
//! then swaps the directories: the old index moves to `<dir>.previous` and is removed once the
//! new one is in place. A crash at any point leaves either the old index in place (the rebuild
//! starts over) or a complete new one, which [`finish_interrupted`] moves in.

use std::fs;
use std::path::{Path, PathBuf};

use tantivy::directory::MmapDirectory;
use tantivy::{DocAddress, Index, IndexSettings, TantivyDocument};

use crate::error::IndexError;
use crate::schema::{decode_stored, Fields, StoredPaper};

/// Marks a rebuilt index as complete, until it is moved in.
const COMPLETE_MARKER: &str = "papertide-rebuild-complete";
/// The writer heap of a rebuild.
const REBUILD_HEAP_BYTES: usize = 100_000_000;

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().map(|name| name.to_os_string()).unwrap_or_default();
    name.push(suffix);
    dir.with_file_name(name)
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Rebuild { path: path.to_owned(), reason: source.to_string() }
}

/// Whether `path` exists; an error reading its directory is an error, not "missing".
fn is_there(path: &Path) -> Result<bool, IndexError> {
    path.try_exists().map_err(io_error(path))
}

/// Finishes a rebuild a crash interrupted after the new index was complete.
pub(crate) fn finish_interrupted(dir: &Path) -> Result<(), IndexError> {
    let rebuilt = sibling(dir, ".rebuilding");
    if rebuilt.join(COMPLETE_MARKER).is_file() {
        if is_there(dir)? {
            let previous = sibling(dir, ".previous");
            if is_there(&previous)? {
                fs::remove_dir_all(&previous).map_err(io_error(&previous))?;
            }
            fs::rename(dir, &previous).map_err(io_error(dir))?;
        }
        fs::rename(&rebuilt, dir).map_err(io_error(&rebuilt))?;
        fs::remove_file(dir.join(COMPLETE_MARKER)).map_err(io_error(dir))?;
    }
    let previous = sibling(dir, ".previous");
    if is_there(&previous)? && is_there(dir)? {
        fs::remove_dir_all(&previous).map_err(io_error(&previous))?;
    }
    Ok(())
}

/// Rewrites the index in `dir` (of schema version `found`) in the current schema; returns how
/// many works it holds. Call [`crate::PaperIndex::open_or_create`] on `dir` afterwards.
pub(crate) fn rebuild(dir: &Path, found: &str) -> Result<u64, IndexError> {
    tracing::warn!(path = %dir.display(), from = found, to = crate::SCHEMA_VERSION, "rebuilding the paper index in the new schema; this takes a while");
    let rebuilt = sibling(dir, ".rebuilding");
    if is_there(&rebuilt)? {
        fs::remove_dir_all(&rebuilt).map_err(io_error(&rebuilt))?;
    }
    let old = Index::open_in_dir(dir).map_err(|source| IndexError::Open { path: dir.to_owned(), source })?;
    let old_fields = OldFields::of(&old, dir)?;
    let payload = old.load_metas().map_err(|source| IndexError::ReadCommitRecord { source })?.payload;
    let searcher = old.reader().map_err(|source| IndexError::OpenReader { source })?.searcher();

    fs::create_dir_all(&rebuilt).map_err(io_error(&rebuilt))?;
    let (schema, fields) = Fields::schema();
    let directory = MmapDirectory::open(&rebuilt).map_err(|error| IndexError::Open { path: rebuilt.clone(), source: error.into() })?;
    let new = Index::create(directory, schema, IndexSettings::default()).map_err(|source| IndexError::Create { source })?;
    new.tokenizers().register(crate::schema::ENGLISH_TOKENIZER, crate::tokenizer::english_analyzer());
    let mut writer = new.writer_with_num_threads(1, REBUILD_HEAP_BYTES).map_err(|source| IndexError::OpenWriter { source })?;
    let mut count = 0u64;
    for (segment, reader) in searcher.segment_readers().iter().enumerate() {
        for doc in reader.doc_ids_alive() {
            let document: TantivyDocument = searcher.doc(DocAddress::new(segment as u32, doc)).map_err(|source| IndexError::Lookup { source })?;
            let stored = old_fields.stored_paper(&document)?;
            writer
                .add_document(fields.document(&stored)?)
                .map_err(|source| IndexError::Rebuild { path: dir.to_owned(), reason: source.to_string() })?;
            count += 1;
        }
    }
    let mut prepared = writer.prepare_commit().map_err(|source| IndexError::Rebuild { path: dir.to_owned(), reason: source.to_string() })?;
    if let Some(payload) = &payload {
        // The record of the next paper id goes along, so no id is ever given twice.
        prepared.set_payload(payload);
    }
    prepared.commit().map_err(|source| IndexError::Rebuild { path: dir.to_owned(), reason: source.to_string() })?;
    drop(writer);
    crate::paper_index::write_schema_version(&rebuilt.join(crate::SCHEMA_VERSION_FILE))?;
    fs::write(rebuilt.join(COMPLETE_MARKER), b"").map_err(io_error(&rebuilt))?;
    finish_interrupted(dir)?;
    tracing::info!(path = %dir.display(), papers = count, "paper index rebuilt");
    Ok(count)
}

/// The fields of an older schema that hold a work, found by name.
struct OldFields {
    id: tantivy::schema::Field,
    keys: tantivy::schema::Field,
    paper: tantivy::schema::Field,
}

impl OldFields {
    fn of(index: &Index, dir: &Path) -> Result<OldFields, IndexError> {
        let schema = index.schema();
        let field = |name: &str| {
            schema.get_field(name).map_err(|_| IndexError::Rebuild { path: dir.to_owned(), reason: format!("the old index has no {name} field") })
        };
        Ok(OldFields { id: field(Fields::ID)?, keys: field("keys")?, paper: field("paper")? })
    }

    fn stored_paper(&self, document: &TantivyDocument) -> Result<StoredPaper, IndexError> {
        decode_stored(document, self.id, self.keys, self.paper)
    }
}
