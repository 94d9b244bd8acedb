//! Checking and restoring a backup folder, trusting nothing in it.
//!
//! A backup folder may have been handled by anyone between the backup and the restore, so a
//! restore takes from it only what a backup writes: the manifest (at most
//! [`MAX_MANIFEST_BYTES`], listing at most [`MAX_MANIFEST_FILES`] files), and the files it lists,
//! each under a name a backup gives ([`is_backup_file_name`]: sled's and tantivy's files, the
//! journal of handed-over mail). Each file is opened without following a symbolic link, on its
//! own name and on every folder of its path, and must be a regular file; it is read to the size
//! the manifest gives and no further (a file that holds more is refused), and hashed while it is
//! copied.
//!
//! The copy goes into a new folder beside the data directory's database, `DATA_DIR/.restore-<time>/`;
//! the database and the index are opened there and their counts compared with the manifest's, and
//! only then is the copy renamed into place (the former database and index moved aside first).
//! Any failure removes the new folder and leaves the data directory as it was.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use chrono::Utc;
use index::PaperIndex;
use rustix::fs::{FileType, Mode, OFlags};
use sha2::{Digest, Sha256};
use store::Store;

use super::{journal_path, Manifest, ManifestFile, RestoreReport, DATED_FOLDER_TIME, DB_DIR, FORMAT_VERSION, INDEX_DIR, MANIFEST_FILE};

/// The largest manifest a restore reads. One entry takes about 150 bytes.
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;
/// The most files a manifest may list. A backup holds sled's few files (`conf`, `db`, a snapshot
/// or two, one blob per value over 128 KiB) and tantivy's seven or eight per segment: tens to a
/// few hundred.
pub const MAX_MANIFEST_FILES: usize = 10_000;
/// The journal of handed-over mail, beside the database's folder.
const JOURNAL_FILE: &str = "db.mail-sent";
/// What the files of the index's folder other than segment files are called.
const INDEX_OWN_FILES: [&str; 3] = ["meta.json", ".managed.json", index::SCHEMA_VERSION_FILE];
/// The extensions of tantivy's segment files (`<segment id>.<extension>`; deletions are
/// `<segment id>.<opstamp>.del`).
const SEGMENT_EXTENSIONS: [&str; 7] = ["idx", "pos", "term", "store", "store.temp", "fast", "fieldnorm"];
/// Bytes read at a time.
const COPY_BUFFER_BYTES: usize = 1 << 16;

/// Reads the manifest of the backup at `src` and checks every file it lists (a regular file under
/// a name a backup writes, its size, then its SHA-256) and that this binary reads its format and
/// schema. Nothing is written.
pub fn verify(src: &Path) -> anyhow::Result<Manifest> {
    let backup = BackupFolder::open(src)?;
    let manifest = backup.manifest()?;
    for file in &manifest.files {
        backup.copy_checked(file, &mut std::io::sink())?;
    }
    Ok(manifest)
}

/// The manifest of the backup folder `src`, checked as a restore checks it (its size, its
/// entries' count and names, its format and schema), without its files.
pub(crate) fn read_manifest(src: &Path) -> anyhow::Result<Manifest> {
    BackupFolder::open(src)?.manifest()
}

/// Checks the backup at `src` and puts its database and index in place in `data_dir` (see the
/// module documentation).
///
/// Refused when a service runs on `data_dir` (its database is locked, or its socket answers),
/// and when `data_dir` holds a database or an index unless `force`: then they are moved into
/// `data_dir/before-restore-<time>/`, never deleted.
pub fn restore(src: &Path, data_dir: &Path, force: bool) -> anyhow::Result<RestoreReport> {
    let backup = BackupFolder::open(src)?;
    let manifest = backup.manifest()?;
    if super::service_is_running(data_dir)? {
        bail!("the service is running on {}: stop it before restoring (a restore replaces the database it has open)", data_dir.display());
    }
    let db_dir = data_dir.join(DB_DIR);
    let mut in_place = vec![db_dir.clone(), journal_path(&db_dir), crate::index_dir(data_dir)];
    // A database the service has compacted is a link to its generation folder beside it: they
    // move aside together.
    in_place.extend(store::compaction::generation_folders(&db_dir).with_context(|| format!("listing the generations of {}", db_dir.display()))?);
    let present: Vec<PathBuf> = in_place.iter().filter(|path| path.symlink_metadata().is_ok()).cloned().collect();
    if !present.is_empty() && !force {
        bail!(
            "{} already holds a database or an index; add --force to move them aside (into before-restore-<time>/) and restore",
            data_dir.display()
        );
    }
    let created_data_dir = !data_dir.try_exists().with_context(|| format!("looking for {}", data_dir.display()))?;
    crate::private::create_private_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
    let now = Utc::now().format(DATED_FOLDER_TIME);
    let staging = data_dir.join(format!(".restore-{now}-{}", std::process::id()));
    let checked = std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&staging)
        .with_context(|| format!("creating {}", staging.display()))
        .and_then(|()| copy_and_check(&backup, &manifest, &staging));
    let placed = checked.and_then(|bytes| {
        let aside = data_dir.join(format!("before-restore-{now}"));
        swap_in(&staging, data_dir, &present, &aside).map(|moved_aside| (bytes, moved_aside))
    });
    let _ = std::fs::remove_dir_all(&staging);
    match placed {
        Ok((bytes, moved_aside)) => Ok(RestoreReport { data_dir: data_dir.to_owned(), manifest, moved_aside, bytes }),
        Err(error) => {
            if created_data_dir {
                let _ = std::fs::remove_dir(data_dir);
            }
            Err(error)
        }
    }
}

/// Whether `path` (relative to a backup folder, `/`-separated) is a name a backup writes:
/// sled's files in `db/` (`conf`, `db`, `snap.<hex>`, `blobs/<number>`), the journal
/// `db.mail-sent`, and in `index/` tantivy's segment files, `meta.json`, `.managed.json` and the
/// index's schema version file.
pub fn is_backup_file_name(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        [JOURNAL_FILE] => true,
        [DB_DIR, "conf" | "db"] => true,
        [DB_DIR, name] => is_sled_snapshot(name),
        [DB_DIR, "blobs", name] => is_number(name),
        [INDEX_DIR, name] => INDEX_OWN_FILES.contains(name) || is_segment_file(name),
        _ => false,
    }
}

/// A backup folder opened once: every file is opened relative to it.
struct BackupFolder {
    path: PathBuf,
    folder: OwnedFd,
}

impl BackupFolder {
    fn open(src: &Path) -> anyhow::Result<BackupFolder> {
        let folder = rustix::fs::open(src, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .with_context(|| format!("opening the backup folder {} (is this a papertide backup?)", src.display()))?;
        Ok(BackupFolder { path: src.to_owned(), folder })
    }

    /// The manifest, bounded in size and in entries, naming only files a backup writes, in a
    /// format and schema this binary reads.
    fn manifest(&self) -> anyhow::Result<Manifest> {
        let manifest_path = self.path.join(MANIFEST_FILE);
        let file = self.open_regular(MANIFEST_FILE).with_context(|| format!("reading {} (is this a papertide backup?)", manifest_path.display()))?;
        let mut text = Vec::new();
        file.take(MAX_MANIFEST_BYTES + 1).read_to_end(&mut text).with_context(|| format!("reading {}", manifest_path.display()))?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            bail!("{} is larger than {MAX_MANIFEST_BYTES} bytes, more than any backup's manifest: refused", manifest_path.display());
        }
        let manifest: Manifest = serde_json::from_slice(&text).with_context(|| format!("{} is not a backup manifest", manifest_path.display()))?;
        if manifest.format_version != FORMAT_VERSION {
            bail!("the backup's format is version {}; this papertide reads version {FORMAT_VERSION}", manifest.format_version);
        }
        if manifest.schema_version > store::SCHEMA_VERSION {
            bail!(
                "the backup's database has schema version {}, newer than this papertide's {} (made by papertide {}): restore it with that version or newer",
                manifest.schema_version,
                store::SCHEMA_VERSION,
                manifest.papertide_version
            );
        }
        if manifest.files.len() > MAX_MANIFEST_FILES {
            bail!("the manifest lists {} files, more than the {MAX_MANIFEST_FILES} a backup holds: refused", manifest.files.len());
        }
        let mut seen = BTreeSet::new();
        for file in &manifest.files {
            if !is_backup_file_name(&file.path) {
                bail!(
                    "the manifest names {:?}, which is not a file a backup writes (only db/, db.mail-sent and index/ are restored): refused",
                    file.path
                );
            }
            if !seen.insert(file.path.as_str()) {
                bail!("the manifest names {} twice: refused", file.path);
            }
        }
        Ok(manifest)
    }

    /// Copies the backup's `file` into `to`, reading no more than its stated size, and checks
    /// its size and SHA-256; answers the bytes copied.
    fn copy_checked(&self, file: &ManifestFile, to: &mut impl Write) -> anyhow::Result<u64> {
        let source = self.open_regular(&file.path).with_context(|| format!("the backup's file {} is missing or unreadable", file.path))?;
        let mut bounded = source.take(file.size_bytes.saturating_add(1));
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; COPY_BUFFER_BYTES];
        let mut size_bytes = 0u64;
        loop {
            let read = bounded.read(&mut buffer).with_context(|| format!("reading the backup's file {}", file.path))?;
            if read == 0 {
                break;
            }
            size_bytes += read as u64;
            if size_bytes > file.size_bytes {
                bail!("the backup's file {} holds more than the {} bytes the manifest says: refused", file.path, file.size_bytes);
            }
            hasher.update(&buffer[..read]);
            to.write_all(&buffer[..read]).with_context(|| format!("writing the copy of {}", file.path))?;
        }
        if size_bytes != file.size_bytes {
            bail!("the backup's file {} has {size_bytes} bytes, the manifest says {}: the backup is damaged", file.path, file.size_bytes);
        }
        let sha256: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
        if sha256 != file.sha256 {
            bail!("the backup's file {} does not have the SHA-256 the manifest gives: the backup is damaged", file.path);
        }
        Ok(size_bytes)
    }

    /// Opens `relative` (`/`-separated, under the folder) without following a symbolic link at
    /// any step, and only when it is a regular file (a device or a pipe is not even read: it is
    /// opened without blocking, then looked at).
    fn open_regular(&self, relative: &str) -> anyhow::Result<File> {
        let parts: Vec<&str> = relative.split('/').collect();
        let Some((name, folders)) = parts.split_last() else { bail!("an empty name") };
        let mut folder: Option<OwnedFd> = None;
        for part in folders {
            let parent = folder.as_ref().unwrap_or(&self.folder);
            let opened = rustix::fs::openat(parent, *part, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
                .with_context(|| format!("{part}/ is missing, or not a folder (a symbolic link is not followed)"))?;
            folder = Some(opened);
        }
        let parent = folder.as_ref().unwrap_or(&self.folder);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let opened = rustix::fs::openat(parent, *name, flags, Mode::empty())
            .with_context(|| format!("{relative} is missing or not a regular file (a symbolic link is not followed)"))?;
        let kind = FileType::from_raw_mode(rustix::fs::fstat(&opened)?.st_mode);
        if kind != FileType::RegularFile {
            bail!("{relative} is not a regular file ({kind:?}): refused");
        }
        Ok(File::from(opened))
    }
}

/// Copies every file of the manifest into `staging` and checks it there: the database and the
/// index open, and hold the counts the manifest gives. Answers the bytes copied.
fn copy_and_check(backup: &BackupFolder, manifest: &Manifest, staging: &Path) -> anyhow::Result<u64> {
    let mut bytes = 0;
    for file in &manifest.files {
        let to = staging.join(&file.path);
        if let Some(parent) = to.parent() {
            crate::private::create_private_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut copy =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&to).with_context(|| format!("creating {}", to.display()))?;
        bytes += backup.copy_checked(file, &mut copy)?;
        copy.sync_all().with_context(|| format!("writing {}", to.display()))?;
    }
    let db_dir = staging.join(DB_DIR);
    let store = Store::open(&db_dir).context("opening the restored database")?;
    let users = store.accounts().user_count() as u64;
    store.flush()?;
    drop(store);
    let index = PaperIndex::open_or_create(&crate::index_dir(staging)).context("opening the restored paper index")?;
    let papers = index.paper_count()?;
    drop(index);
    if users != manifest.users || papers != manifest.papers {
        bail!(
            "the restored data does not match its manifest: {users} accounts and {papers} papers, the manifest says {} and {}; nothing was changed",
            manifest.users,
            manifest.papers
        );
    }
    Ok(bytes)
}

/// Moves `present` (the data directory's database, journal and index) into `aside`, then the
/// checked copy's into their place; undoes what it did when a step fails. Answers `aside` when
/// something was moved there.
fn swap_in(staging: &Path, data_dir: &Path, present: &[PathBuf], aside: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mut done: Vec<(PathBuf, PathBuf)> = Vec::new();
    let outcome = (|| -> anyhow::Result<()> {
        if !present.is_empty() {
            std::fs::DirBuilder::new().mode(0o700).create(aside).with_context(|| format!("creating {}", aside.display()))?;
        }
        for path in present {
            let name = path.file_name().context("a path without a name")?;
            let to = aside.join(name);
            std::fs::rename(path, &to).with_context(|| format!("moving {} aside", path.display()))?;
            done.push((path.clone(), to));
        }
        for name in [DB_DIR, JOURNAL_FILE, INDEX_DIR] {
            let from = staging.join(name);
            if from.symlink_metadata().is_err() {
                continue;
            }
            let to = data_dir.join(name);
            std::fs::rename(&from, &to).with_context(|| format!("moving the restored {name} into {}", data_dir.display()))?;
            done.push((from, to));
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => Ok((!present.is_empty()).then(|| aside.to_owned())),
        Err(error) => {
            for (from, to) in done.iter().rev() {
                if let Err(undo) = std::fs::rename(to, from) {
                    tracing::error!(from = %to.display(), to = %from.display(), error = %undo, "a failed restore could not move a folder back");
                }
            }
            let _ = std::fs::remove_dir(aside);
            Err(error)
        }
    }
}

fn is_sled_snapshot(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("snap.") else { return false };
    let lsn = rest.strip_suffix(".generating").unwrap_or(rest);
    !lsn.is_empty() && lsn.chars().all(|c| c.is_ascii_hexdigit())
}

fn is_number(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_digit())
}

/// `<32 hex digits>.<extension>`, or `<32 hex digits>.<opstamp>.del`.
fn is_segment_file(name: &str) -> bool {
    let Some((id, extension)) = name.split_once('.') else { return false };
    let is_id = id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit());
    let is_deletes = extension.strip_suffix(".del").is_some_and(is_number);
    is_id && (SEGMENT_EXTENSIONS.contains(&extension) || is_deletes)
}
