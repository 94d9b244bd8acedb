//! [`PaperIndex`]: opening or creating the index (on disk with its schema version, or in RAM),
//! handing out its one writer, and look-ups by dedup key.

use std::fs;
use std::io::ErrorKind;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use engine::dedup::DedupKey;
use engine::paper::Paper;
use tantivy::collector::TopDocs;
use tantivy::directory::error::LockError;
use tantivy::directory::MmapDirectory;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{Index, IndexBuilder, IndexReader, IndexSettings, Order, ReloadPolicy, Searcher, TantivyDocument, TantivyError, Term};

use crate::error::IndexError;
use crate::schema::{Fields, StoredPaper, ENGLISH_TOKENIZER, SCHEMA_VERSION};
use crate::tokenizer::english_analyzer;
use crate::writer::{PaperWriter, WriterSlot};
use crate::PaperId;

/// The file beside an on-disk index that records its [`SCHEMA_VERSION`].
pub const SCHEMA_VERSION_FILE: &str = "papertide-index-version";

/// The smallest heap a [`PaperWriter`] accepts (tantivy's minimum for one indexing thread).
pub const MIN_WRITER_HEAP_BYTES: usize = 15_000_000;

/// A heap for the writer that suits a harvest: batches of a few thousand papers.
pub const DEFAULT_WRITER_HEAP_BYTES: usize = 50_000_000;

/// The paper index: its tantivy index, a reader that follows the writer's commits, and the slot of
/// its one writer. Clones share all three, so a clone cannot open a second writer either.
#[derive(Clone)]
pub struct PaperIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    writer_open: Arc<AtomicBool>,
    /// The index's folder; `None` in RAM.
    dir: Option<Arc<PathBuf>>,
}

impl PaperIndex {
    /// Opens the index in `dir`, or creates it (and the directory) when there is none. A new index
    /// gets a [`SCHEMA_VERSION_FILE`]; an existing one must have one naming [`SCHEMA_VERSION`].
    ///
    /// An index of an older schema version is rebuilt in this one first, from the works its
    /// documents store (see `rebuild`); one of a newer version is refused.
    pub fn open_or_create(dir: &Path) -> Result<PaperIndex, IndexError> {
        crate::rebuild::finish_interrupted(dir)?;
        let (schema, fields) = Fields::schema();
        fs::create_dir_all(dir).map_err(|source| IndexError::CreateDirectory { path: dir.to_owned(), source })?;
        let open_error = |source: TantivyError| IndexError::Open { path: dir.to_owned(), source };
        let directory = MmapDirectory::open(dir).map_err(|error| open_error(error.into()))?;
        let index_exists = Index::exists(&directory).map_err(|error| open_error(error.into()))?;

        let version_path = dir.join(SCHEMA_VERSION_FILE);
        match read_schema_version(&version_path)? {
            Some(found) if found != SCHEMA_VERSION.to_string() => {
                let older = found.parse::<u32>().is_ok_and(|version| (1..SCHEMA_VERSION).contains(&version));
                if older && index_exists {
                    drop(directory);
                    crate::rebuild::rebuild(dir, &found)?;
                    return PaperIndex::open_or_create(dir);
                }
                return Err(IndexError::SchemaVersionMismatch { path: dir.to_owned(), found, expected: SCHEMA_VERSION });
            }
            Some(_) => {}
            None if index_exists => return Err(IndexError::MissingSchemaVersion { path: dir.to_owned() }),
            None => write_schema_version(&version_path)?,
        }

        let index = if index_exists {
            let index = Index::open(directory).map_err(open_error)?;
            if index.schema() != schema {
                return Err(IndexError::SchemaMismatch { path: dir.to_owned(), version: SCHEMA_VERSION });
            }
            index
        } else {
            tracing::info!(path = %dir.display(), version = SCHEMA_VERSION, "creating the paper index");
            Index::create(directory, schema, IndexSettings::default()).map_err(|source| IndexError::Create { source })?
        };
        let opened = PaperIndex::with_index(index, fields)?;
        Ok(PaperIndex { dir: Some(Arc::new(dir.to_owned())), ..opened })
    }

    /// A new, empty index in RAM: for tests, and for tools that need no persistence.
    pub fn create_in_ram() -> Result<PaperIndex, IndexError> {
        let (schema, fields) = Fields::schema();
        let index = IndexBuilder::new().schema(schema).create_in_ram().map_err(|source| IndexError::Create { source })?;
        PaperIndex::with_index(index, fields)
    }

    /// The index's one writer, with `heap_bytes` (at least [`MIN_WRITER_HEAP_BYTES`]) for
    /// buffering documents. Fails with [`IndexError::WriterBusy`] while another writer of this
    /// index (or another process's writer of the same directory) lives; dropping the writer frees
    /// the slot, discarding its uncommitted upserts.
    ///
    /// The writer indexes on one thread of its own: documents reach the index in upsert order,
    /// so hits of equal score always come in the same order, and a harvest's batches are small
    /// enough for it. [`PaperIndex::writer_with_threads`] indexes faster on several cores.
    pub fn writer(&self, heap_bytes: usize) -> Result<PaperWriter, IndexError> {
        self.writer_with_threads(heap_bytes, NonZeroUsize::MIN)
    }

    /// Like [`PaperIndex::writer`], with `threads` indexing threads (at most 8, tantivy's limit)
    /// sharing `heap_bytes`, which must give each at least [`MIN_WRITER_HEAP_BYTES`]. For bulk
    /// imports: the index holds the same works, with the same ids and scores, whatever the
    /// thread count, but the threads split each commit's documents into several segments in an
    /// order that varies from run to run, so hits of *equal* score may come in another order.
    pub fn writer_with_threads(&self, heap_bytes: usize, threads: NonZeroUsize) -> Result<PaperWriter, IndexError> {
        let minimum = MIN_WRITER_HEAP_BYTES.saturating_mul(threads.get());
        if heap_bytes < minimum {
            return Err(IndexError::WriterHeapTooSmall { heap_bytes, minimum });
        }
        let slot = WriterSlot::take(Arc::clone(&self.writer_open)).ok_or(IndexError::WriterBusy)?;
        let writer = self.index.writer_with_num_threads(threads.get(), heap_bytes).map_err(|error| match error {
            TantivyError::LockFailure(LockError::LockBusy, _) => IndexError::WriterBusy,
            source => IndexError::OpenWriter { source },
        })?;
        let metas = self.index.load_metas().map_err(|source| IndexError::ReadCommitRecord { source })?;
        let paper_writer = PaperWriter::new(writer, self.reader.clone(), self.fields, metas.payload.as_deref(), slot)?;
        Ok(paper_writer.in_directory(self.dir.clone()))
    }

    /// The committed paper recognised by `key`. Should several works share the key (records whose
    /// ids contradict, see `engine::dedup::can_merge`), the oldest.
    pub fn find(&self, key: &DedupKey) -> Result<Option<Paper>, IndexError> {
        let searcher = self.reader.searcher();
        let found = find_by_key(&searcher, self.fields, &key.to_string())?;
        Ok(found.into_iter().next().map(|stored| stored.paper))
    }

    /// Like [`PaperIndex::find`], with the work's id.
    pub fn find_with_id(&self, key: &DedupKey) -> Result<Option<(PaperId, Paper)>, IndexError> {
        let searcher = self.reader.searcher();
        let found = find_by_key(&searcher, self.fields, &key.to_string())?;
        Ok(found.into_iter().next().map(|stored| (stored.id, stored.paper)))
    }

    /// Changes with every commit a search can see: results cached under one generation stay
    /// valid while it lasts.
    pub fn generation(&self) -> u64 {
        self.reader.searcher().generation().generation_id()
    }

    /// How many works the last commit holds.
    pub fn paper_count(&self) -> Result<u64, IndexError> {
        Ok(self.reader.searcher().num_docs())
    }

    pub(crate) fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// The index's folder; `None` in RAM.
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref().map(PathBuf::as_path)
    }

    pub(crate) fn fields(&self) -> Fields {
        self.fields
    }

    fn with_index(index: Index, fields: Fields) -> Result<PaperIndex, IndexError> {
        index.tokenizers().register(ENGLISH_TOKENIZER, english_analyzer());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|source| IndexError::OpenReader { source })?;
        Ok(PaperIndex { index, reader, fields, writer_open: Arc::new(AtomicBool::new(false)), dir: None })
    }
}

impl std::fmt::Debug for PaperIndex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PaperIndex")
            .field("index", &self.index)
            .field("writer_open", &self.writer_open.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

/// The committed works whose keys include `key`, oldest first.
pub(crate) fn find_by_key(searcher: &Searcher, fields: Fields, key: &str) -> Result<Vec<StoredPaper>, IndexError> {
    let query = TermQuery::new(Term::from_field_text(fields.keys, key), IndexRecordOption::Basic);
    // A key names one work, or a handful whose ids contradict; the cap only bounds a damaged index.
    let collector = TopDocs::with_limit(64).order_by_u64_field(Fields::ID, Order::Asc);
    let addresses = searcher.search(&query, &collector).map_err(|source| IndexError::Lookup { source })?;
    addresses
        .into_iter()
        .map(|(_, address)| {
            let document: TantivyDocument = searcher.doc(address).map_err(|source| IndexError::Lookup { source })?;
            fields.stored_paper(&document)
        })
        .collect()
}

/// The version recorded at `path`, trimmed; `None` when there is no such file.
fn read_schema_version(path: &Path) -> Result<Option<String>, IndexError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text.trim().to_owned())),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IndexError::ReadSchemaVersion { path: path.to_owned(), source }),
    }
}

pub(crate) fn write_schema_version(path: &Path) -> Result<(), IndexError> {
    let write_error = |source| IndexError::WriteSchemaVersion { path: PathBuf::from(path), source };
    let temporary = path.with_extension("tmp");
    fs::write(&temporary, format!("{SCHEMA_VERSION}\n")).map_err(write_error)?;
    fs::rename(&temporary, path).map_err(write_error)
}
