//! What can go wrong in the paper index, by what was being done.

use std::path::PathBuf;

use tantivy::TantivyError;

use crate::PaperId;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("creating the index directory {path}: {source}")]
    CreateDirectory { path: PathBuf, source: std::io::Error },
    #[error("reading the index's schema version from {path}: {source}")]
    ReadSchemaVersion { path: PathBuf, source: std::io::Error },
    #[error("writing the index's schema version to {path}: {source}")]
    WriteSchemaVersion { path: PathBuf, source: std::io::Error },
    #[error("the paper index at {path} has no schema version file; it was not made by papertide, or is damaged")]
    MissingSchemaVersion { path: PathBuf },
    #[error(
        "the paper index at {path} has schema version {found}, which this binary (version {expected}) cannot read; \
         use the papertide that wrote it, or remove the index directory and re-import the papers"
    )]
    SchemaVersionMismatch { path: PathBuf, found: String, expected: u32 },
    #[error("rebuilding the paper index at {path} in the new schema: {reason}")]
    Rebuild { path: PathBuf, reason: String },
    #[error("the paper index at {path} says schema version {version} but its fields differ from this binary's; the index is damaged")]
    SchemaMismatch { path: PathBuf, version: u32 },
    #[error("opening the paper index at {path}: {source}")]
    Open { path: PathBuf, source: TantivyError },
    #[error("creating the paper index: {source}")]
    Create { source: TantivyError },
    #[error("opening a reader on the paper index: {source}")]
    OpenReader { source: TantivyError },
    #[error("the paper index already has a writer; only one may exist at a time")]
    WriterBusy,
    #[error("a paper index writer needs at least {minimum} heap bytes, {heap_bytes} were offered")]
    WriterHeapTooSmall { heap_bytes: usize, minimum: usize },
    #[error("opening the paper index writer: {source}")]
    OpenWriter { source: TantivyError },
    #[error("reading the paper index's commit record: {source}")]
    ReadCommitRecord { source: TantivyError },
    #[error("looking up papers by key: {source}")]
    Lookup { source: TantivyError },
    #[error("adding a paper to the index: {source}")]
    Add { source: TantivyError },
    #[error("committing the paper index: {source}")]
    Commit { source: TantivyError },
    #[error("rolling back the paper index writer: {source}")]
    Rollback { source: TantivyError },
    #[error("reloading the paper index reader after a commit: {source}")]
    Reload { source: TantivyError },
    #[error("searching the paper index: {source}")]
    Search { source: TantivyError },
    #[error("encoding paper {id} for the index: {source}")]
    EncodePaper { id: PaperId, source: serde_json::Error },
    #[error("encoding the commit record: {source}")]
    EncodeCommitRecord { source: serde_json::Error },
    #[error("decoding stored paper {id}: {source}")]
    DecodePaper { id: PaperId, source: serde_json::Error },
    #[error("reading the paper index to copy it: {reason}")]
    CopyRead { reason: String },
    #[error("writing the copy of the paper index at {path}: {source}")]
    CopyWrite { path: PathBuf, source: std::io::Error },
    #[error("a stored document of the paper index lacks its {field} field; the index is damaged")]
    DamagedDocument { field: &'static str },
}
