//! Backups of a data directory and their restore.
//!
//! A backup folder holds `db/` (a copy of the database, see `store::backup`), `db.mail-sent`
//! (its journal of handed-over mail), `index/` (a copy of the paper index's last commit, see
//! `index::IndexCopy`) and `manifest.json`: the format, when and by which papertide it was made,
//! the database's schema version, how many accounts and papers it holds, and every file with its
//! size and SHA-256. The database is copied first and the index second: a harvest's cursor moves
//! on, and a digest is recorded, only after their papers are committed to the index, so the
//! index's copy holds every paper the database's copy refers to.
//!
//! Not copied: the embedding model (fetched again), the outbox (mail already handed over) and
//! the settings. Mail queued when the backup was made is in the copy, and goes out after a
//! restore.
//!
//! A backup is its owner's alone (folders 0700, files 0600, see [`crate::private`]), and never
//! goes inside the data directory. A restore trusts nothing in the backup folder (see
//! [`restore()`]).
//!
//! [`DailyBackups`] makes one backup a day into `PAPERTIDE_BACKUP_DIR` and keeps the newest
//! `PAPERTIDE_BACKUP_KEEP` of the folders it made: those whose manifest says they were made at
//! the time their name gives ([`dated_backups`]); any other folder there is left alone.

mod restore;

pub use restore::{is_backup_file_name, restore, verify, MAX_MANIFEST_BYTES, MAX_MANIFEST_FILES};

use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ::actors::{CopyIndex, Indexer, StatusBoard};
use actix::prelude::*;
use anyhow::{bail, Context as _};
use chrono::{DateTime, NaiveTime, Utc};
use index::{IndexCopy, PaperIndex};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store::Store;

/// The manifest's name in a backup folder.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The backup layout this binary writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The daily backup is made from this hour of the UTC day (a quiet hour, before the harvests
/// and the weekly digests of the default settings).
pub const DAILY_BACKUP_HOUR: u32 = 3;
/// The folders the daily backups are made in start with this, then the time made.
pub const DATED_FOLDER_PREFIX: &str = "papertide-";
const DATED_FOLDER_TIME: &str = "%Y-%m-%dT%H%M%SZ";
/// The board's name for the daily backups.
pub const ACTOR_NAME: &str = "backup";
/// Names a backup into the backup folder tries, a second apart, when the first is taken.
const MAX_NAME_TRIES: i64 = 60;
/// How often the daily backup looks whether one is due.
const DAILY_CHECK_INTERVAL: Duration = Duration::from_secs(300);

const DB_DIR: &str = "db";
const INDEX_DIR: &str = "index";

/// What a backup folder says of itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format_version: u32,
    pub created_at: DateTime<Utc>,
    pub papertide_version: String,
    /// The database's schema version (`store::SCHEMA_VERSION` of the binary that made it).
    pub schema_version: u32,
    pub users: u64,
    pub papers: u64,
    /// Every file of the backup but the manifest, by path relative to the folder.
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestFile {
    /// Relative to the backup folder, `/`-separated.
    pub path: String,
    pub size_bytes: u64,
    /// Lowercase hex.
    pub sha256: String,
}

/// What a backup copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupReport {
    pub path: PathBuf,
    pub created_at: DateTime<Utc>,
    pub schema_version: u32,
    /// The database's files (its journal included).
    pub store_bytes: u64,
    pub index_bytes: u64,
    /// Files written, the manifest included.
    pub files: usize,
    pub users: u64,
    pub papers: u64,
    pub took: Duration,
}

/// What a restore put in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub data_dir: PathBuf,
    pub manifest: Manifest,
    /// Where the data directory's former database and index were moved, if it had them.
    pub moved_aside: Option<PathBuf>,
    pub bytes: u64,
}

/// Where a backup takes the index from.
#[derive(Clone)]
pub enum IndexSource {
    /// The running service's index writer: it commits what it has pending and waits during the
    /// copy.
    Writer(Addr<Indexer>),
    /// An index nobody writes, or whose writer is elsewhere: its last commit.
    Index(PaperIndex),
}

/// Whether a backup may be written at `dest`: a folder that does not exist or is empty.
pub fn check_destination(dest: &Path) -> anyhow::Result<()> {
    let has_entries = std::fs::read_dir(dest).ok().and_then(|mut entries| entries.next()).is_some();
    if has_entries {
        bail!(DestinationNotEmpty(dest.to_owned()));
    }
    Ok(())
}

/// Whether a backup may be written at `dest` for the data directory `data_dir`: not inside it
/// (where the data directory's readers would read it, and the next backup copy it).
pub fn check_outside_data_dir(dest: &Path, data_dir: &Path) -> anyhow::Result<()> {
    if config::paths::is_within(dest, data_dir).with_context(|| format!("resolving {}", dest.display()))? {
        bail!(DestinationInsideDataDir(dest.to_owned()));
    }
    Ok(())
}

/// The backup destination exists and holds something: a backup never writes over anything.
#[derive(Debug, thiserror::Error)]
#[error("{} exists and is not empty; a backup goes into a new or empty folder", .0.display())]
pub struct DestinationNotEmpty(pub PathBuf);

/// The backup destination is inside the data directory.
#[derive(Debug, thiserror::Error)]
#[error("{} is inside the data directory; a backup goes into a folder outside it", .0.display())]
pub struct DestinationInsideDataDir(pub PathBuf);

/// The backup folder could not be made (a parent that is a file, a folder not writable...).
#[derive(Debug, thiserror::Error)]
#[error("cannot create the backup folder {}: {source}", .path.display())]
pub struct DestinationNotCreated {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Backs the running `store` and the index up into `dest` (a new or empty folder), on tokio's
/// blocking threads; writes wait only while what they wrote during the copy is copied again
/// (`store::Store::backup_to`). See the module documentation.
pub async fn backup(store: Store, index: IndexSource, dest: PathBuf) -> anyhow::Result<BackupReport> {
    backup_made_at(store, index, dest, Utc::now()).await
}

/// Backs the running service up into a new folder of `dir` named for the time
/// ([`dated_folder_name`]): the backup folder of the settings, made owner-only if it is not
/// (see [`crate::private`]). The folder is claimed as it is made, so that two backups in the
/// same second (the daily one and an operator's) take two names, the second a second later; a
/// backup that fails removes its folder.
pub async fn backup_into(store: Store, index: IndexSource, dir: &Path, now: DateTime<Utc>) -> anyhow::Result<BackupReport> {
    crate::private::create_private_dir_all(dir).map_err(|source| DestinationNotCreated { path: dir.to_owned(), source })?;
    crate::private::repair_and_warn(dir, "the backup folder")?;
    let mut made_at = now;
    let dest = loop {
        let dest = dir.join(dated_folder_name(made_at));
        match std::fs::DirBuilder::new().mode(0o700).create(&dest) {
            Ok(()) => break dest,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && made_at < now + chrono::Duration::seconds(MAX_NAME_TRIES) => {
                made_at += chrono::Duration::seconds(1);
            }
            Err(source) => return Err(DestinationNotCreated { path: dest, source }.into()),
        }
    };
    let made = backup_made_at(store, index, dest.clone(), made_at).await;
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&dest);
    }
    made
}

/// [`backup`], saying in its manifest it was made at `created_at`.
async fn backup_made_at(store: Store, index: IndexSource, dest: PathBuf, created_at: DateTime<Utc>) -> anyhow::Result<BackupReport> {
    let started = Instant::now();
    check_destination(&dest)?;
    crate::private::create_private_dir_all(&dest).map_err(|source| DestinationNotCreated { path: dest.clone(), source })?;
    let db_dest = dest.join(DB_DIR);
    let store_for_copy = store.clone();
    let store_copy = blocking(move || store_for_copy.backup_to(&db_dest).context("copying the database")).await?;
    let index_dest = dest.join(INDEX_DIR);
    let index_copy: IndexCopy = match index {
        IndexSource::Writer(indexer) => {
            indexer.send(CopyIndex(index_dest)).await.context("the index writer is gone")?.context("copying the paper index")?
        }
        IndexSource::Index(index) => blocking(move || index.copy_committed_to(&index_dest).context("copying the paper index")).await?,
    };
    let schema_version = store.schema_version().context("reading the database's schema version")?;
    let manifest_dest = dest.clone();
    blocking(move || write_manifest(&manifest_dest, created_at, schema_version, store_copy.users, index_copy.papers, started.elapsed())).await
}

/// Backs up the data directory of a stopped service into `dest` (outside it): opens its database
/// (refused while the service runs: [`store::StoreError::Locked`]) and its index, and copies
/// them.
pub fn backup_stopped(data_dir: &Path, dest: &Path) -> anyhow::Result<BackupReport> {
    let started = Instant::now();
    let created_at = Utc::now();
    check_outside_data_dir(dest, data_dir)?;
    check_destination(dest)?;
    let store = Store::open(&data_dir.join(DB_DIR))?;
    let index = PaperIndex::open_or_create(&crate::index_dir(data_dir)).context("opening the paper index")?;
    crate::private::create_private_dir_all(dest).map_err(|source| DestinationNotCreated { path: dest.to_owned(), source })?;
    let store_copy = store.backup_to(&dest.join(DB_DIR)).context("copying the database")?;
    let index_copy = index.copy_committed_to(&dest.join(INDEX_DIR)).context("copying the paper index")?;
    let schema_version = store.schema_version()?;
    write_manifest(dest, created_at, schema_version, store_copy.users, index_copy.papers, started.elapsed())
}

/// Whether a service holds `data_dir`: its database is locked by a process, or its local socket
/// takes a connection.
pub fn service_is_running(data_dir: &Path) -> anyhow::Result<bool> {
    if store::database_is_locked(&data_dir.join(DB_DIR)).context("checking the database's lock")? {
        return Ok(true);
    }
    Ok(std::os::unix::net::UnixStream::connect(data_dir.join("papertide.sock")).is_ok())
}

/// The name of a daily backup's folder made at `at`.
pub fn dated_folder_name(at: DateTime<Utc>) -> String {
    format!("{DATED_FOLDER_PREFIX}{}", at.format(DATED_FOLDER_TIME))
}

/// The backups in `dir` the service made, made by `now`, oldest first: folders (not links) named
/// by [`dated_folder_name`] whose manifest reads and says it was made at the time of the name. A
/// folder named like a backup that holds no such manifest is not one (it is never deleted), nor
/// one named for a time to come (it never passes for today's backup).
pub fn dated_backups(dir: &Path, now: DateTime<Utc>) -> anyhow::Result<Vec<(DateTime<Utc>, PathBuf)>> {
    let mut found = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(error) => return Err(error).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(time) = name.strip_prefix(DATED_FOLDER_PREFIX) else { continue };
        let Ok(made_at) = chrono::NaiveDateTime::parse_from_str(time, DATED_FOLDER_TIME).map(|time| time.and_utc()) else { continue };
        if made_at > now {
            continue;
        }
        let says_made_then = restore::read_manifest(&entry.path()).is_ok_and(|manifest| dated_folder_name(manifest.created_at) == name);
        if says_made_then {
            found.push((made_at, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Deletes the backups in `dir` the service made (see [`dated_backups`]) but the newest `keep`;
/// answers the folders deleted. Other folders are left alone.
pub fn prune_backups(dir: &Path, keep: usize, now: DateTime<Utc>) -> anyhow::Result<Vec<PathBuf>> {
    let backups = dated_backups(dir, now)?;
    let excess = backups.len().saturating_sub(keep);
    let mut deleted = Vec::new();
    for (_, path) in backups.into_iter().take(excess) {
        std::fs::remove_dir_all(&path).with_context(|| format!("deleting the old backup {}", path.display()))?;
        deleted.push(path);
    }
    Ok(deleted)
}

/// Whether the daily backup is due at `now`, given when the newest one was made: from
/// [`DAILY_BACKUP_HOUR`] each day, once.
pub fn daily_backup_due(newest: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    let Some(today_at) = NaiveTime::from_hms_opt(DAILY_BACKUP_HOUR, 0, 0).map(|time| now.date_naive().and_time(time).and_utc()) else {
        return false;
    };
    let last_slot = if now >= today_at { today_at } else { today_at - chrono::Duration::days(1) };
    newest.is_none_or(|made_at| made_at < last_slot)
}

/// Makes the daily backup into `dir` when it is due, then prunes; answers the backup made.
pub async fn run_daily_backup(
    store: Store,
    index: IndexSource,
    dir: PathBuf,
    keep: usize,
    now: DateTime<Utc>,
) -> anyhow::Result<Option<BackupReport>> {
    let newest = dated_backups(&dir, now)?.last().map(|(made_at, _)| *made_at);
    if !daily_backup_due(newest, now) {
        return Ok(None);
    }
    let report = backup_into(store, index, &dir, now).await?;
    for deleted in prune_backups(&dir, keep, now)? {
        tracing::info!(path = %deleted.display(), "old daily backup deleted");
    }
    Ok(Some(report))
}

/// Makes the daily backups: looks every few minutes whether one is due (see
/// [`daily_backup_due`]); a failure is logged and shown on the status board as `backup`, and
/// tried again at the next look.
pub struct DailyBackups {
    store: Store,
    index: IndexSource,
    dir: PathBuf,
    keep: usize,
    board: StatusBoard,
    running: bool,
}

/// Look whether the daily backup is due, and make it.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct BackUpIfDue;

impl DailyBackups {
    pub fn new(store: Store, index: IndexSource, dir: PathBuf, keep: usize, board: StatusBoard) -> DailyBackups {
        DailyBackups { store, index, dir, keep, board, running: false }
    }

    pub fn start_supervised(self) -> Addr<DailyBackups> {
        Supervisor::start(move |_| self)
    }
}

impl Actor for DailyBackups {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.board.register(ACTOR_NAME);
        ctx.notify(BackUpIfDue);
        ctx.run_interval(DAILY_CHECK_INTERVAL, |_, ctx| ctx.notify(BackUpIfDue));
    }
}

impl Supervised for DailyBackups {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.running = false;
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<BackUpIfDue> for DailyBackups {
    type Result = ();

    fn handle(&mut self, _: BackUpIfDue, ctx: &mut Self::Context) {
        if self.running {
            return;
        }
        self.running = true;
        let (store, index, dir, keep, board) = (self.store.clone(), self.index.clone(), self.dir.clone(), self.keep, self.board.clone());
        let run = async move {
            board.set_busy(ACTOR_NAME, true);
            let outcome = run_daily_backup(store, index, dir, keep, Utc::now()).await;
            board.set_busy(ACTOR_NAME, false);
            match outcome {
                Ok(Some(report)) => {
                    tracing::info!(path = %report.path.display(), users = report.users, papers = report.papers, bytes = report.store_bytes + report.index_bytes, "daily backup made");
                    board.record_success(ACTOR_NAME, 1, Utc::now());
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::error!(error = format!("{error:#}"), "the daily backup failed");
                    board.record_failure(ACTOR_NAME, format!("{error:#}"), Utc::now());
                }
            }
        };
        ctx.spawn(run.into_actor(self).map(|(), actor, _| actor.running = false));
    }
}

/// Writes `dest/manifest.json` for the files under `dest` and answers the backup's report.
fn write_manifest(
    dest: &Path,
    created_at: DateTime<Utc>,
    schema_version: u32,
    users: u64,
    papers: u64,
    took_so_far: Duration,
) -> anyhow::Result<BackupReport> {
    let started = Instant::now();
    let mut files = Vec::new();
    let mut store_bytes = 0;
    let mut index_bytes = 0;
    for path in files_under(dest)? {
        let relative = path.strip_prefix(dest)?.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        if relative == MANIFEST_FILE {
            continue;
        }
        let (size_bytes, sha256) = hash_file(&path).with_context(|| format!("reading {}", path.display()))?;
        if relative.starts_with("index/") {
            index_bytes += size_bytes;
        } else {
            store_bytes += size_bytes;
        }
        files.push(ManifestFile { path: relative, size_bytes, sha256 });
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        created_at,
        papertide_version: env!("CARGO_PKG_VERSION").to_owned(),
        schema_version,
        users,
        papers,
        files,
    };
    let manifest_path = dest.join(MANIFEST_FILE);
    let text = serde_json::to_vec_pretty(&manifest)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&manifest_path)
        .with_context(|| format!("writing {}", manifest_path.display()))?;
    std::io::Write::write_all(&mut file, &text)?;
    file.sync_all()?;
    // Whatever made the copies' files (the binary's umask makes them owner-only already).
    crate::private::repair_modes(dest)?;
    std::fs::File::open(dest).and_then(|folder| folder.sync_all())?;
    Ok(BackupReport {
        path: dest.to_owned(),
        created_at,
        schema_version,
        store_bytes,
        index_bytes,
        files: manifest.files.len() + 1,
        users,
        papers,
        took: took_so_far + started.elapsed(),
    })
}

/// Every file under `dir`, in name order.
fn files_under(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).with_context(|| format!("listing {}", folder.display()))? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                folders.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    Ok(files)
}

/// A file's size and SHA-256 (lowercase hex).
fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        size += read as u64;
    }
    let hex = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    Ok((size, hex))
}

fn journal_path(db_dir: &Path) -> PathBuf {
    let mut name = db_dir.file_name().map(|name| name.to_os_string()).unwrap_or_default();
    name.push(".mail-sent");
    db_dir.with_file_name(name)
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> anyhow::Result<T> + Send + 'static) -> anyhow::Result<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(outcome) => outcome,
        Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
        Err(_) => bail!("the backup was cancelled"),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).map(|time| time.with_timezone(&Utc)).expect("an RFC 3339 time")
    }

    /// A data directory with one account and one paper, and its backup made stopped.
    fn backed_up(folder: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
        let data_dir = folder.join("data");
        let store = Store::open(&data_dir.join(DB_DIR))?;
        let user = store::User::new(engine::UserId(uuid::Uuid::new_v4()), "ada@example.org", String::new(), Utc::now());
        store
            .accounts()
            .create(store::NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: None }, Utc::now())?;
        store.flush()?;
        drop(store);
        let index = PaperIndex::open_or_create(&crate::index_dir(&data_dir))?;
        let mut writer = index.writer(index::MIN_WRITER_HEAP_BYTES)?;
        writer.upsert(engine::paper::Paper::new(engine::paper::Source::Pubmed, "Malaria vaccines"))?;
        writer.commit()?;
        drop((writer, index));
        let backup_dir = folder.join("backup");
        let report = backup_stopped(&data_dir, &backup_dir)?;
        assert_eq!((report.users, report.papers), (1, 1));
        Ok((data_dir, backup_dir))
    }

    #[test]
    fn a_backup_restores_into_a_new_folder_and_refuses_to_write_over_anything() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (data_dir, backup_dir) = backed_up(folder.path())?;
        let refused = backup_stopped(&data_dir, &backup_dir).expect_err("a backup folder that is not empty");
        assert!(refused.to_string().contains("not empty"), "{refused}");

        let fresh = folder.path().join("fresh");
        let restored = restore(&backup_dir, &fresh, false)?;
        assert_eq!((restored.manifest.users, restored.manifest.papers, restored.moved_aside), (1, 1, None));
        assert_eq!(Store::open(&fresh.join(DB_DIR))?.accounts().user_count(), 1);

        let again = restore(&backup_dir, &fresh, false).expect_err("a data directory with a database");
        assert!(again.to_string().contains("--force"), "{again}");
        let forced = restore(&backup_dir, &fresh, true)?;
        let aside = forced.moved_aside.expect("the former database moved aside");
        assert!(aside.join(DB_DIR).try_exists()? && aside.join(INDEX_DIR).try_exists()?, "kept, not deleted");
        Ok(())
    }

    #[test]
    fn a_forced_restore_moves_a_compacted_database_aside_with_its_generation() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let live = folder.path().join("live");
        {
            let store = Store::open_compactable(&live.join(DB_DIR))?;
            let user = store::User::new(engine::UserId(uuid::Uuid::new_v4()), "grace@example.org", String::new(), Utc::now());
            store
                .accounts()
                .create(store::NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: None }, Utc::now())?;
            store.compact()?;
        }
        assert!(live.join(DB_DIR).symlink_metadata()?.file_type().is_symlink());
        let forced = restore(&backup_dir, &live, true)?;
        let aside = forced.moved_aside.expect("the former database moved aside");
        assert_eq!(
            Store::open(&aside.join(DB_DIR))?.accounts().user_by_email("grace@example.org")?.map(|user| user.email),
            Some("grace@example.org".into()),
            "the link still leads to its generation"
        );
        assert!(live.join(DB_DIR).symlink_metadata()?.is_dir(), "the restored database is a plain folder");
        assert!(store::compaction::generation_folders(&live.join(DB_DIR))?.is_empty(), "no generation left beside it");
        assert!(Store::open_compactable(&live.join(DB_DIR))?.accounts().user_by_email("ada@example.org")?.is_some());
        Ok(())
    }

    #[test]
    fn a_damaged_backup_is_refused_naming_the_file() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let manifest = verify(&backup_dir)?;
        let victim = manifest.files.iter().find(|file| file.path.starts_with("index/") && file.size_bytes > 0).expect("an index file");
        let path = backup_dir.join(&victim.path);
        let mut bytes = std::fs::read(&path)?;
        bytes[0] ^= 0xff;
        std::fs::write(&path, bytes)?;
        let refused = restore(&backup_dir, &folder.path().join("fresh"), false).expect_err("a damaged file");
        assert!(refused.to_string().contains(&victim.path) && refused.to_string().contains("SHA-256"), "{refused}");
        assert!(!folder.path().join("fresh").try_exists()?, "nothing was restored");
        Ok(())
    }

    #[test]
    fn a_running_service_s_database_is_refused() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let live = folder.path().join("live");
        let _open = Store::open(&live.join(DB_DIR))?;
        let refused = restore(&backup_dir, &live, true).expect_err("a live data directory");
        assert!(refused.to_string().contains("the service is running"), "{refused}");
        Ok(())
    }

    #[test]
    fn the_daily_backup_is_due_once_a_day_from_its_hour() {
        assert!(daily_backup_due(None, at("2026-11-28T01:00:00Z")), "no backup yet");
        assert!(!daily_backup_due(Some(at("2026-11-27T03:00:05Z")), at("2026-11-28T02:59:00Z")));
        assert!(daily_backup_due(Some(at("2026-11-27T03:00:05Z")), at("2026-11-28T03:00:00Z")));
        assert!(!daily_backup_due(Some(at("2026-11-28T03:00:05Z")), at("2026-11-28T23:00:00Z")));
        assert!(!daily_backup_due(Some(at("2026-11-28T01:00:00Z")), at("2026-11-28T02:00:00Z")), "made after yesterday's hour");
    }

    /// A copy of `backup_dir`'s manifest with `change` made to it, written into `dest` (made).
    fn planted_manifest(backup_dir: &Path, dest: &Path, change: impl FnOnce(&mut Manifest)) -> anyhow::Result<()> {
        let mut manifest = verify(backup_dir)?;
        change(&mut manifest);
        std::fs::create_dir_all(dest)?;
        std::fs::write(dest.join(MANIFEST_FILE), serde_json::to_vec(&manifest)?)?;
        Ok(())
    }

    /// The manifest's entry of the file at `path`, as a backup would list `bytes` there.
    fn entry(path: &str, bytes: &[u8]) -> ManifestFile {
        let sha256 = Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect();
        ManifestFile { path: path.to_owned(), size_bytes: bytes.len() as u64, sha256 }
    }

    /// Every file under `dir` with its bytes (and every folder), to show nothing changed.
    fn tree(dir: &Path) -> anyhow::Result<Vec<(PathBuf, Option<Vec<u8>>)>> {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_owned()];
        while let Some(path) = pending.pop() {
            if path.symlink_metadata()?.is_dir() {
                for entry in std::fs::read_dir(&path)? {
                    pending.push(entry?.path());
                }
                found.push((path, None));
            } else {
                found.push((path.clone(), Some(std::fs::read(&path)?)));
            }
        }
        found.sort();
        Ok(found)
    }

    /// Runs `work` on a thread and answers its outcome, or fails the test after `limit`.
    fn within<T: Send + 'static>(limit: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || sender.send(work()));
        receiver.recv_timeout(limit).unwrap_or_else(|_| panic!("not done within {limit:?}"))
    }

    /// Found probing restore: a symbolic link in the backup folder (to a file, or as a folder on
    /// a file's path) had the file outside the backup copied into the data directory.
    #[test]
    fn a_symbolic_link_in_the_backup_is_refused_and_nothing_outside_is_copied() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let secret = folder.path().join("secret");
        std::fs::write(&secret, "another user's file")?;
        let linked_file = folder.path().join("linked-file");
        planted_manifest(&backup_dir, &linked_file, |manifest| manifest.files.push(entry("db/blobs/7", b"another user's file")))?;
        std::fs::create_dir_all(linked_file.join("db/blobs"))?;
        std::os::unix::fs::symlink(&secret, linked_file.join("db/blobs/7"))?;

        let outside_index = folder.path().join("outside-index");
        std::fs::create_dir_all(&outside_index)?;
        std::fs::write(outside_index.join("meta.json"), "another user's file")?;
        let linked_folder = folder.path().join("linked-folder");
        planted_manifest(&backup_dir, &linked_folder, |manifest| manifest.files = vec![entry("index/meta.json", b"another user's file")])?;
        std::os::unix::fs::symlink(&outside_index, linked_folder.join(INDEX_DIR))?;

        for planted in [linked_file, linked_folder] {
            let data_dir = folder.path().join("restored");
            let refused = restore(&planted, &data_dir, false).expect_err("a symbolic link");
            assert!(format!("{refused:#}").contains("symbolic link"), "{refused:#}");
            assert!(!data_dir.try_exists()?, "nothing restored from {}", planted.display());
        }
        Ok(())
    }

    /// Found probing restore: a `/dev/zero` entry (a link to it) was read for ever; a pipe would
    /// wait for a writer for ever.
    #[test]
    fn a_device_or_a_pipe_in_the_backup_is_refused_at_once() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let with_pipe = folder.path().join("with-pipe");
        planted_manifest(&backup_dir, &with_pipe, |manifest| manifest.files = vec![entry("db/conf", b"segment_size: 524288")])?;
        std::fs::create_dir_all(with_pipe.join(DB_DIR))?;
        let db_folder = std::fs::File::open(with_pipe.join(DB_DIR))?;
        rustix::fs::mkfifoat(&db_folder, "conf", rustix::fs::Mode::from_raw_mode(0o600))?;
        let with_device = folder.path().join("with-device");
        planted_manifest(&backup_dir, &with_device, |manifest| manifest.files = vec![entry("db/conf", b"segment_size: 524288")])?;
        std::fs::create_dir_all(with_device.join(DB_DIR))?;
        std::os::unix::fs::symlink("/dev/zero", with_device.join("db/conf"))?;

        for planted in [with_pipe, with_device] {
            let data_dir = folder.path().join("restored");
            let target = data_dir.clone();
            let refused = within(Duration::from_secs(10), move || restore(&planted, &target, false)).expect_err("not a regular file");
            assert!(format!("{refused:#}").contains("not a regular file"), "{refused:#}");
            assert!(!data_dir.try_exists()?);
        }
        Ok(())
    }

    /// Found probing restore: a manifest naming an outbox mail or a model file had them written
    /// into the data directory.
    #[test]
    fn a_manifest_naming_a_file_no_backup_writes_is_refused() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        for name in
            ["outbox/20261128T000000Z-000001.eml", "models/all-minilm-l6-v2/model.safetensors", "db/../outbox/x.eml", "settings.toml", "db/blobs/x"]
        {
            let planted = folder.path().join("planted");
            let bytes = b"To: victim@example.org";
            planted_manifest(&backup_dir, &planted, |manifest| manifest.files.push(entry(name, bytes)))?;
            let data_dir = folder.path().join("restored");
            let refused = restore(&planted, &data_dir, false).expect_err(name);
            assert!(refused.to_string().contains("not a file a backup writes"), "{name}: {refused}");
            assert!(!data_dir.try_exists()?);
            std::fs::remove_dir_all(&planted)?;
        }
        for name in ["db/conf", "db/db", "db/snap.0000000000001A2B", "db/blobs/1234", "db.mail-sent", "index/meta.json", "index/.managed.json"] {
            assert!(is_backup_file_name(name), "{name}");
        }
        for name in ["index/0123456789abcdef0123456789abcdef.idx", "index/0123456789abcdef0123456789abcdef.12.del", "index/papertide-index-version"] {
            assert!(is_backup_file_name(name), "{name}");
        }
        Ok(())
    }

    /// Found probing restore: a file was read to its end whatever the manifest said (a file that
    /// grows, a huge one); it is read to its stated size and refused past it.
    #[test]
    fn a_file_larger_than_the_manifest_says_is_refused_without_reading_it_all() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let manifest = verify(&backup_dir)?;
        let conf = manifest.files.iter().find(|file| file.path == "db/conf").expect("sled's conf");
        // A terabyte, sparse: reading it through would take hours.
        std::fs::OpenOptions::new().write(true).open(backup_dir.join("db/conf"))?.set_len(1 << 40)?;
        let data_dir = folder.path().join("restored");
        let target = data_dir.clone();
        let refused = within(Duration::from_secs(10), move || restore(&backup_dir, &target, false)).expect_err("a file larger than stated");
        assert!(refused.to_string().contains(&format!("holds more than the {} bytes", conf.size_bytes)), "{refused}");
        assert!(!data_dir.try_exists()?);
        Ok(())
    }

    /// Found probing restore: a manifest of 200,000 entries took 93 s before anything was said.
    #[test]
    fn a_manifest_of_200_000_entries_is_refused_in_well_under_a_second() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let conf = verify(&backup_dir)?.files.into_iter().find(|file| file.path == "db/conf").expect("sled's conf");
        let huge = folder.path().join("huge");
        planted_manifest(&backup_dir, &huge, |manifest| manifest.files = vec![conf; 200_000])?;
        std::fs::create_dir_all(huge.join(DB_DIR))?;
        std::fs::copy(backup_dir.join("db/conf"), huge.join("db/conf"))?;
        let started = Instant::now();
        let refused = restore(&huge, &folder.path().join("restored"), false).expect_err("a manifest too long");
        assert!(started.elapsed() < Duration::from_millis(500), "took {:?}", started.elapsed());
        assert!(refused.to_string().contains("larger than") || refused.to_string().contains("more than the"), "{refused}");

        let listed = folder.path().join("listed");
        planted_manifest(&backup_dir, &listed, |manifest| {
            manifest.files = (0..MAX_MANIFEST_FILES + 1).map(|n| entry(&format!("db/blobs/{n}"), b"")).collect()
        })?;
        let refused = restore(&listed, &folder.path().join("restored"), false).expect_err("too many entries");
        assert!(refused.to_string().contains(&format!("more than the {MAX_MANIFEST_FILES}")), "{refused}");
        Ok(())
    }

    /// Found probing restore: a backup whose counts did not match its manifest was refused after
    /// its database had replaced the data directory's.
    #[test]
    fn a_failed_check_leaves_the_data_directory_exactly_as_it_was() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (data_dir, backup_dir) = backed_up(folder.path())?;
        let wrong = folder.path().join("wrong-count");
        planted_manifest(&backup_dir, &wrong, |manifest| manifest.users = 5)?;
        for file in verify(&backup_dir)?.files {
            let to = wrong.join(&file.path);
            std::fs::create_dir_all(to.parent().expect("a parent"))?;
            std::fs::copy(backup_dir.join(&file.path), to)?;
        }
        let before = tree(&data_dir)?;
        let refused = restore(&wrong, &data_dir, true).expect_err("the counts do not match");
        assert!(refused.to_string().contains("does not match its manifest"), "{refused}");
        assert!(tree(&data_dir)? == before, "the data directory changed");
        assert_eq!(Store::open(&data_dir.join(DB_DIR))?.accounts().user_count(), 1);
        Ok(())
    }

    #[test]
    fn retention_keeps_the_newest_and_leaves_other_folders_alone() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let dir = folder.path().join("daily");
        std::fs::create_dir_all(&dir)?;
        let day = |n: u32| Utc.with_ymd_and_hms(2026, 11, n, 3, 0, 0).single().expect("a time");
        let now = day(7);
        for n in 1..=5 {
            planted_manifest(&backup_dir, &dir.join(dated_folder_name(day(n))), |manifest| manifest.created_at = day(n))?;
        }
        std::fs::create_dir_all(dir.join("papertide-2026-11-01T000000Z-mine"))?;
        std::fs::create_dir_all(dir.join(dated_folder_name(day(6))))?; // no manifest: not ours
                                                                       // A manifest copied from another backup: not made at the time of its name.
        planted_manifest(&backup_dir, &dir.join(dated_folder_name(day(2) + chrono::Duration::hours(1))), |manifest| manifest.created_at = day(5))?;
        let deleted = prune_backups(&dir, 2, now)?;
        assert_eq!(deleted.len(), 3);
        let kept: Vec<PathBuf> = dated_backups(&dir, now)?.into_iter().map(|(_, path)| path).collect();
        assert_eq!(kept, vec![dir.join(dated_folder_name(day(4))), dir.join(dated_folder_name(day(5)))]);
        assert!(dir.join("papertide-2026-11-01T000000Z-mine").try_exists()? && dir.join(dated_folder_name(day(6))).try_exists()?);
        assert!(dir.join(dated_folder_name(day(2) + chrono::Duration::hours(1))).try_exists()?);
        Ok(())
    }

    /// Two backups into the backup folder in the same second (the daily one and an operator's)
    /// take two names, and both count as the service's.
    #[tokio::test]
    async fn two_backups_in_the_same_second_take_two_names() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (data_dir, _) = backed_up(folder.path())?;
        let store = Store::open(&data_dir.join(DB_DIR))?;
        let index = IndexSource::Index(PaperIndex::open_or_create(&crate::index_dir(&data_dir))?);
        let dir = folder.path().join("daily");
        let now = at("2026-11-28T03:00:00Z");
        let first = backup_into(store.clone(), index.clone(), &dir, now).await?;
        let second = backup_into(store, index, &dir, now).await?;
        assert_eq!((first.created_at, second.created_at), (now, now + chrono::Duration::seconds(1)));
        let made: Vec<PathBuf> = dated_backups(&dir, now + chrono::Duration::seconds(1))?.into_iter().map(|(_, path)| path).collect();
        assert_eq!(made, vec![first.path, second.path]);
        Ok(())
    }

    /// Found probing the backup API: a folder named like a backup of a day to come was taken for
    /// the newest backup, and no daily backup was made again; nor may it be deleted.
    #[test]
    fn a_folder_named_for_a_day_to_come_neither_stops_the_daily_backups_nor_is_deleted() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let dir = folder.path().join("daily");
        let now = at("2026-11-28T04:00:00Z");
        let future = at("2099-01-01T03:00:00Z");
        planted_manifest(&backup_dir, &dir.join(dated_folder_name(future)), |manifest| manifest.created_at = future)?;
        let newest = dated_backups(&dir, now)?.last().map(|(made_at, _)| *made_at);
        assert!(daily_backup_due(newest, now), "no backup of today: {newest:?}");
        assert!(prune_backups(&dir, 1, now)?.is_empty());
        assert!(dir.join(dated_folder_name(future)).try_exists()?);
        Ok(())
    }
}
