//! A copy of the index's last commit, made while the index is in use.
//!
//! A commit's files never change once written; what can happen during a copy is that a commit,
//! or a merge tantivy finishes on its own threads, writes a new `meta.json` and deletes the
//! files no commit lists any more. So the copy reads `meta.json`, opens every file the commit
//! lists (an open file stays readable after it is deleted), and reads `meta.json` again: if it
//! changed meanwhile and a file was missing, it starts over. The copy gets that `meta.json`, the
//! files, the schema version file and a `.managed.json` naming the files, so that tantivy
//! deletes them once later merges leave them out. [`crate::PaperWriter::copy_committed_to`]
//! commits what is pending first, and no commit of its own can come during the copy.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use std::fs::File;

use tantivy::Index;

use crate::error::IndexError;
use crate::paper_index::write_schema_version;
use crate::{PaperIndex, SCHEMA_VERSION_FILE};

const META_FILE: &str = "meta.json";
const MANAGED_FILE: &str = ".managed.json";
/// Attempts before a copy gives up on an index whose commits keep deleting its files.
const ATTEMPTS: usize = 20;

/// What a copy of the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexCopy {
    /// Papers (works) in the copied commit.
    pub papers: u64,
    /// Files written, `meta.json` and the schema version file included.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
}

impl PaperIndex {
    /// Copies the index's last commit into `dest` (created; it must hold no index). Made while
    /// the index is written, it copies the last commit made before it; the writer's own
    /// [`crate::PaperWriter::copy_committed_to`] also covers what it has pending.
    pub fn copy_committed_to(&self, dest: &Path) -> Result<IndexCopy, IndexError> {
        copy_committed(self.index(), self.dir(), dest)
    }
}

/// See the module documentation.
/// `dir` is the index's folder: the copy reads the files themselves, as they are on disk (tantivy's
/// own reads leave their footers out). An index in RAM has none and is not copied.
pub(crate) fn copy_committed(index: &Index, dir: Option<&Path>, dest: &Path) -> Result<IndexCopy, IndexError> {
    let Some(dir) = dir else {
        return Err(IndexError::CopyRead { reason: "an index in memory has no files to copy".into() });
    };
    for _ in 0..ATTEMPTS {
        let meta_before = read_meta(dir)?;
        let metas = index.load_metas().map_err(|source| IndexError::ReadCommitRecord { source })?;
        let mut opened: BTreeMap<PathBuf, File> = BTreeMap::new();
        let mut papers = 0u64;
        for segment in &metas.segments {
            papers += u64::from(segment.num_docs());
            for file in segment.list_files() {
                match File::open(dir.join(&file)) {
                    Ok(opened_file) => {
                        opened.insert(file, opened_file);
                    }
                    // A segment without deletions lists a deletion file it does not have.
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                    Err(error) => return Err(IndexError::CopyRead { reason: format!("{}: {error}", file.display()) }),
                }
            }
        }
        let meta_after = read_meta(dir)?;
        // A file deleted by a commit or merge that came meanwhile was skipped above as if it
        // never existed: such a copy is not taken.
        if meta_after != meta_before {
            continue;
        }
        return write_copy(dest, &meta_before, opened, papers);
    }
    Err(IndexError::CopyRead { reason: format!("the index changed under each of {ATTEMPTS} attempts to copy it") })
}

fn read_meta(dir: &Path) -> Result<Vec<u8>, IndexError> {
    std::fs::read(dir.join(META_FILE)).map_err(|error| IndexError::CopyRead { reason: format!("{META_FILE}: {error}") })
}

fn write_copy(dest: &Path, meta: &[u8], opened: BTreeMap<PathBuf, File>, papers: u64) -> Result<IndexCopy, IndexError> {
    let write_error = |path: &Path| {
        let path = path.to_owned();
        move |source| IndexError::CopyWrite { path, source }
    };
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dest).map_err(write_error(dest))?;
    let mut bytes = 0u64;
    let managed: Vec<PathBuf> = opened.keys().cloned().collect();
    let files = opened.len() + 3;
    for (file, mut source) in opened {
        let target = dest.join(&file);
        let mut copy = private_file(&target).map_err(write_error(&target))?;
        bytes += std::io::copy(&mut source, &mut copy).map_err(write_error(&target))?;
        copy.sync_all().map_err(write_error(&target))?;
    }
    let managed_json = serde_json::to_vec(&managed).map_err(|source| IndexError::CopyRead { reason: source.to_string() })?;
    let managed_path = dest.join(MANAGED_FILE);
    write_synced(&managed_path, &managed_json).map_err(write_error(&managed_path))?;
    let meta_path = dest.join(META_FILE);
    write_synced(&meta_path, meta).map_err(write_error(&meta_path))?;
    write_schema_version(&dest.join(SCHEMA_VERSION_FILE))?;
    std::fs::File::open(dest).and_then(|folder| folder.sync_all()).map_err(write_error(dest))?;
    Ok(IndexCopy { papers, files, bytes: bytes + (managed_json.len() + meta.len()) as u64 })
}

fn write_synced(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = private_file(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// A new file (or one emptied) that only its owner reads and writes, as every file of a backup.
fn private_file(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)
}
