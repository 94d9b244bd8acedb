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
//! [`DailyBackups`] makes one backup a day into `PAPERTIDE_BACKUP_DIR` and keeps the newest
//! `PAPERTIDE_BACKUP_KEEP` of the folders it made.

use std::io::Read;
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

/// The backup destination exists and holds something: a backup never writes over anything.
#[derive(Debug, thiserror::Error)]
#[error("{} exists and is not empty; a backup goes into a new or empty folder", .0.display())]
pub struct DestinationNotEmpty(pub PathBuf);

/// Backs the running `store` and the index up into `dest` (a new or empty folder), on tokio's
/// blocking threads; writes wait while the database is copied. See the module documentation.
pub async fn backup(store: Store, index: IndexSource, dest: PathBuf) -> anyhow::Result<BackupReport> {
    let started = Instant::now();
    let created_at = Utc::now();
    check_destination(&dest)?;
    std::fs::create_dir_all(&dest).with_context(|| format!("creating the backup folder {}", dest.display()))?;
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

/// Backs up the data directory of a stopped service into `dest`: opens its database (refused
/// while the service runs: [`store::StoreError::Locked`]) and its index, and copies them.
pub fn backup_stopped(data_dir: &Path, dest: &Path) -> anyhow::Result<BackupReport> {
    let started = Instant::now();
    let created_at = Utc::now();
    check_destination(dest)?;
    let store = Store::open(&data_dir.join(DB_DIR))?;
    let index = PaperIndex::open_or_create(&crate::index_dir(data_dir)).context("opening the paper index")?;
    std::fs::create_dir_all(dest).with_context(|| format!("creating the backup folder {}", dest.display()))?;
    let store_copy = store.backup_to(&dest.join(DB_DIR)).context("copying the database")?;
    let index_copy = index.copy_committed_to(&dest.join(INDEX_DIR)).context("copying the paper index")?;
    let schema_version = store.schema_version()?;
    write_manifest(dest, created_at, schema_version, store_copy.users, index_copy.papers, started.elapsed())
}

/// Checks the backup at `src` (its manifest, every file's size and SHA-256, a schema this binary
/// reads), copies its database and index into `data_dir`, and opens both to check they read.
///
/// Refused when a service runs on `data_dir` (its database is locked, or its socket answers),
/// and when `data_dir` holds a database or an index unless `force`: then they are moved into
/// `data_dir/before-restore-<time>/`, never deleted.
pub fn restore(src: &Path, data_dir: &Path, force: bool) -> anyhow::Result<RestoreReport> {
    let manifest = verify(src)?;
    let db_dir = data_dir.join(DB_DIR);
    if service_is_running(data_dir)? {
        bail!("the service is running on {}: stop it before restoring (a restore replaces the database it has open)", data_dir.display());
    }
    let journal = journal_path(&db_dir);
    let index_dir = crate::index_dir(data_dir);
    let present: Vec<&PathBuf> = [&db_dir, &journal, &index_dir].into_iter().filter(|path| path.try_exists().unwrap_or(true)).collect();
    let moved_aside = if present.is_empty() {
        None
    } else if !force {
        bail!(
            "{} already holds a database or an index; add --force to move them aside (into before-restore-<time>/) and restore",
            data_dir.display()
        );
    } else {
        let aside = data_dir.join(format!("before-restore-{}", Utc::now().format(DATED_FOLDER_TIME)));
        std::fs::create_dir_all(&aside).with_context(|| format!("creating {}", aside.display()))?;
        for path in present {
            let name = path.file_name().context("a path without a name")?;
            std::fs::rename(path, aside.join(name)).with_context(|| format!("moving {} aside", path.display()))?;
        }
        Some(aside)
    };
    std::fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
    let mut bytes = 0;
    for file in &manifest.files {
        let from = src.join(&file.path);
        let to = data_dir.join(&file.path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        bytes += std::fs::copy(&from, &to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    }
    let store = Store::open(&db_dir).context("opening the restored database")?;
    let users = store.user_count() as u64;
    store.flush()?;
    drop(store);
    let index = PaperIndex::open_or_create(&index_dir).context("opening the restored paper index")?;
    let papers = index.paper_count()?;
    if users != manifest.users || papers != manifest.papers {
        bail!(
            "the restored data does not match its manifest: {users} accounts and {papers} papers, the manifest says {} and {}",
            manifest.users,
            manifest.papers
        );
    }
    Ok(RestoreReport { data_dir: data_dir.to_owned(), manifest, moved_aside, bytes })
}

/// Reads the manifest of the backup at `src` and checks every file it lists (size, then
/// SHA-256) and that this binary reads its format and schema.
pub fn verify(src: &Path) -> anyhow::Result<Manifest> {
    let manifest_path = src.join(MANIFEST_FILE);
    let text = std::fs::read(&manifest_path).with_context(|| format!("reading {} (is this a papertide backup?)", manifest_path.display()))?;
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
    for file in &manifest.files {
        let relative = Path::new(&file.path);
        let is_inside = relative.components().all(|part| matches!(part, std::path::Component::Normal(_)));
        if !is_inside {
            bail!("the manifest names {}, outside the backup", file.path);
        }
        let path = src.join(relative);
        let (size_bytes, sha256) = hash_file(&path).with_context(|| format!("the backup's file {} is missing or unreadable", file.path))?;
        if size_bytes != file.size_bytes {
            bail!("the backup's file {} has {size_bytes} bytes, the manifest says {}: the backup is damaged", file.path, file.size_bytes);
        }
        if sha256 != file.sha256 {
            bail!("the backup's file {} does not have the SHA-256 the manifest gives: the backup is damaged", file.path);
        }
    }
    Ok(manifest)
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

/// The backups in `dir` the daily backups made (named by [`dated_folder_name`], with a manifest
/// that reads), oldest first.
pub fn dated_backups(dir: &Path) -> anyhow::Result<Vec<(DateTime<Utc>, PathBuf)>> {
    let mut found = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(error) => return Err(error).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(time) = name.strip_prefix(DATED_FOLDER_PREFIX) else { continue };
        let Ok(made_at) = chrono::NaiveDateTime::parse_from_str(time, DATED_FOLDER_TIME) else { continue };
        let manifest = std::fs::read(entry.path().join(MANIFEST_FILE)).ok().and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok());
        if manifest.is_some() {
            found.push((made_at.and_utc(), entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Deletes the daily backups in `dir` but the newest `keep`; answers the folders deleted.
/// Folders it did not make (another name, or no manifest that reads) are left alone.
pub fn prune_backups(dir: &Path, keep: usize) -> anyhow::Result<Vec<PathBuf>> {
    let backups = dated_backups(dir)?;
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
    let newest = dated_backups(&dir)?.last().map(|(made_at, _)| *made_at);
    if !daily_backup_due(newest, now) {
        return Ok(None);
    }
    let dest = dir.join(dated_folder_name(now));
    let report = backup(store, index, dest).await?;
    for deleted in prune_backups(&dir, keep)? {
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
    let mut file = std::fs::File::create(&manifest_path).with_context(|| format!("writing {}", manifest_path.display()))?;
    std::io::Write::write_all(&mut file, &text)?;
    file.sync_all()?;
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
        store.create_account(store::NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: None }, Utc::now())?;
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
        assert_eq!(Store::open(&fresh.join(DB_DIR))?.user_count(), 1);

        let again = restore(&backup_dir, &fresh, false).expect_err("a data directory with a database");
        assert!(again.to_string().contains("--force"), "{again}");
        let forced = restore(&backup_dir, &fresh, true)?;
        let aside = forced.moved_aside.expect("the former database moved aside");
        assert!(aside.join(DB_DIR).try_exists()? && aside.join(INDEX_DIR).try_exists()?, "kept, not deleted");
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

    #[test]
    fn retention_keeps_the_newest_and_leaves_other_folders_alone() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let (_, backup_dir) = backed_up(folder.path())?;
        let dir = folder.path().join("daily");
        std::fs::create_dir_all(&dir)?;
        let day = |n: u32| Utc.with_ymd_and_hms(2026, 11, n, 3, 0, 0).single().expect("a time");
        for n in 1..=5 {
            let dest = dir.join(dated_folder_name(day(n)));
            std::fs::create_dir_all(&dest)?;
            std::fs::copy(backup_dir.join(MANIFEST_FILE), dest.join(MANIFEST_FILE))?;
        }
        std::fs::create_dir_all(dir.join("papertide-2026-11-01T000000Z-mine"))?;
        std::fs::create_dir_all(dir.join(dated_folder_name(day(6))))?; // no manifest: not ours
        let deleted = prune_backups(&dir, 2)?;
        assert_eq!(deleted.len(), 3);
        let kept: Vec<PathBuf> = dated_backups(&dir)?.into_iter().map(|(_, path)| path).collect();
        assert_eq!(kept, vec![dir.join(dated_folder_name(day(4))), dir.join(dated_folder_name(day(5)))]);
        assert!(dir.join("papertide-2026-11-01T000000Z-mine").try_exists()? && dir.join(dated_folder_name(day(6))).try_exists()?);
        Ok(())
    }
}
