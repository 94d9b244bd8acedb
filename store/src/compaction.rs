//! Compaction: the database copied into a fresh folder and swapped in while the service runs, so
//! that what was deleted is gone from the disk.
//!
//! sled never overwrites a record: a removal writes a new version of the record's page, and the
//! old versions stay in the segments of its `db` file until sled reuses those segments, which on
//! a quiet service may be never. Rewriting every record in place does not remove them either: the
//! segments it frees keep their bytes. So a deleted account's address and ids would stay readable
//! in the data directory. A compaction removes them:
//!
//! - The database's path (`DATA_DIR/db`) is a symbolic link to a generation beside it, `db.0`,
//!   `db.1`, …, and sled runs on the generation's folder itself. [`Store::open_compactable`]
//!   (the service) turns a database in a plain folder into generation 0 first.
//! - [`Store::compact`] copies the live records into the next generation as a backup copies
//!   them (see [`crate::backup`]: writes go on during the copy, and wait only while what they
//!   wrote meanwhile is copied again). Then, writes still waiting, it points the link at the new
//!   generation (a new link renamed over the old one, so the path always names one whole
//!   database) and swaps the new trees in: every later access reads and writes them.
//! - The old generation is removed once nothing reads it any more: sled lets go of its folder's
//!   lock when its last handle is gone.
//!
//! What a crash leaves (an unfinished copy, an old generation, a link not yet renamed) is put
//! right by the next open ([`settle_before_open`], [`settle_after_open`]).
//!
//! When: every account deletion leaves an [`Erasure`] mark in `meta` (no address in it, only
//! when and which mail). A compaction is due once the deletion's confirmation mail has left the
//! queue, or [`MAIL_WAIT`] after the deletion if it has not (and then once more when it leaves).

use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::codec::{decode, encode};
use crate::db::Trees;
use crate::error::StoreError;
use crate::{Result, Store};

/// How long a compaction waits for its confirmation mail to leave the queue before it compacts
/// anyway (it compacts again once the mail has gone).
pub const MAIL_WAIT: Duration = Duration::from_secs(10 * 60);

/// How long a compaction waits for the last reader of the old generation before it removes the
/// folder anyway (a reader still on it then fails).
const OLD_GENERATION_WAIT: Duration = Duration::from_secs(10 * 60);

/// The mark of deletions not yet erased from the disk, in `meta`.
pub(crate) const ERASURE_KEY: &[u8] = b"erasure_pending";

/// Deletions whose records may still be on the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Erasure {
    /// The latest deletion's end.
    pub since: DateTime<Utc>,
    /// The newest confirmation mail of those deletions (its queue id): its record holds the
    /// address until it leaves the queue.
    pub last_mail: Option<u64>,
    /// A compaction ran after `since` while that mail was still queued.
    pub compacted: bool,
}

impl Erasure {
    /// The mark after a deletion that ended at `now` and queued the confirmation `mail`, given
    /// the mark before it.
    pub(crate) fn after(previous: Option<Erasure>, now: DateTime<Utc>, mail: Option<u64>) -> Erasure {
        let last_mail = match (previous.and_then(|erasure| erasure.last_mail), mail) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Erasure { since: now, last_mail, compacted: false }
    }
}

/// What [`Store::compact`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// The generation folder the database runs in now.
    pub generation: PathBuf,
    /// Entries in every tree of the new generation.
    pub entries: u64,
    /// Keys written during the copy, copied again while writes waited.
    pub changed_during_copy: u64,
    /// Bytes on disk before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// How long writes waited at the end, in milliseconds.
    pub writes_waited_ms: u64,
    /// The old generation was removed (false: a reader held it past [`OLD_GENERATION_WAIT`]
    /// and its removal failed; the next start removes it).
    pub old_removed: bool,
}

/// The generation folder `n` of the database at `path` (`db` → `db.n`).
pub(crate) fn generation_dir(path: &Path, n: u64) -> PathBuf {
    path.with_file_name(generation_name(path, n))
}

fn generation_name(path: &Path, n: u64) -> String {
    format!("{}.{n}", base_name(path))
}

fn base_name(path: &Path) -> String {
    path.file_name().map_or_else(|| "db".to_owned(), |name| name.to_string_lossy().into_owned())
}

/// The link written beside `path` before it is renamed over it.
fn link_in_making(path: &Path) -> PathBuf {
    path.with_file_name(format!("{}.link", base_name(path)))
}

/// The generation number a sibling's name stands for (`db.7` → 7).
fn generation_of(path: &Path, name: &str) -> Option<u64> {
    let digits = name.strip_prefix(&base_name(path))?.strip_prefix('.')?;
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The generation folders beside the database at `path` (`db.0`, `db.1`, …): what moves with
/// it when it moves.
pub fn generation_folders(path: &Path) -> io::Result<Vec<PathBuf>> {
    Ok(generations(path)?.into_iter().map(|n| generation_dir(path, n)).collect())
}

/// The generations beside `path`, by number.
fn generations(path: &Path) -> io::Result<Vec<u64>> {
    let Some(parent) = path.parent() else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    let entries = match std::fs::read_dir(parent) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(found),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        if let Some(n) = generation_of(path, &entry.file_name().to_string_lossy()) {
            if entry.file_type()?.is_dir() {
                found.push(n);
            }
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The generation `path` links to; `None` when it is a plain folder or absent.
pub(crate) fn live_generation(path: &Path) -> io::Result<Option<u64>> {
    match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(path)?;
            let name = target.to_string_lossy();
            match generation_of(path, &name).filter(|_| target.components().count() == 1) {
                Some(n) => Ok(Some(n)),
                None => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} links to {}, which is not one of its generations ({})", path.display(), name, generation_name(path, 0)),
                )),
            }
        }
        Ok(_) => Ok(None),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Points `path` at generation `n`: a new link beside it, renamed over it. An error means the
/// path still names what it named before; once renamed, a failure to make the rename durable is
/// only logged (a crash then may leave the old link, and the next open the old generation).
fn point_link(path: &Path, n: u64) -> io::Result<()> {
    let making = link_in_making(path);
    match std::fs::remove_file(&making) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    symlink(generation_name(path, n), &making)?;
    std::fs::rename(&making, path)?;
    if let Err(error) = sync_parent(path) {
        tracing::warn!(%error, path = %path.display(), "making the database's new link durable");
    }
    Ok(())
}

fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => std::fs::File::open(parent)?.sync_all(),
        _ => Ok(()),
    }
}

/// Before the database at `path` is opened: finishes the switch to a new generation a crash
/// interrupted, and when `compactable`, turns a database in a plain folder into generation 0 (a
/// folder another process has open is left alone: opening it then says it is in use). Answers
/// the folder sled opens.
pub(crate) fn settle_before_open(path: &Path, compactable: bool) -> io::Result<PathBuf> {
    if matches!(path.symlink_metadata(), Err(error) if error.kind() == io::ErrorKind::NotFound) {
        let making = link_in_making(path);
        if making.symlink_metadata().is_ok() {
            // The crash came between the new link and its rename.
            std::fs::rename(&making, path)?;
            sync_parent(path)?;
        } else if let Some(&newest) = generations(path)?.last() {
            // The crash came between moving a plain folder to generation 0 and linking it.
            point_link(path, newest)?;
        }
    }
    if let Some(n) = live_generation(path)? {
        return Ok(generation_dir(path, n));
    }
    let absent = matches!(path.symlink_metadata(), Err(error) if error.kind() == io::ErrorKind::NotFound);
    if compactable && absent {
        let first = generation_dir(path, 0);
        std::fs::create_dir_all(&first)?;
        point_link(path, 0)?;
        return Ok(first);
    }
    let is_folder = path.symlink_metadata().is_ok_and(|meta| meta.is_dir());
    if compactable && is_folder && !crate::backup::database_is_locked(path)? {
        let first = generation_dir(path, 0);
        if first.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(&first)?;
        }
        std::fs::rename(path, &first)?;
        point_link(path, 0)?;
        tracing::info!(database = %path.display(), generation = %first.display(), "the database now lives in generations, so that deletions can be erased from the disk");
        return Ok(first);
    }
    Ok(path.to_owned())
}

/// Once the database at `path` is open (this process holds its lock): removes what a crash left
/// beside it (an unfinished copy, an old generation, a link not renamed).
pub(crate) fn settle_after_open(path: &Path) -> io::Result<()> {
    let live = live_generation(path)?;
    for n in generations(path)? {
        if Some(n) != live {
            let dir = generation_dir(path, n);
            tracing::info!(folder = %dir.display(), "removing a database generation left by an interrupted compaction");
            std::fs::remove_dir_all(dir)?;
        }
    }
    match std::fs::remove_file(link_in_making(path)) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

fn layout_error(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Layout { path: path.to_owned(), source }
}

impl Store {
    /// The deletions not yet erased from the disk.
    pub(crate) fn erasure(&self) -> Result<Option<Erasure>> {
        match self.trees().meta.get(ERASURE_KEY)? {
            Some(bytes) => Ok(Some(decode("erasure mark", &bytes)?)),
            None => Ok(None),
        }
    }

    /// Whether the mail `last_mail` (and every mail queued before it) has left the queue.
    fn mail_gone(&self, last_mail: Option<u64>) -> Result<bool> {
        match last_mail {
            Some(id) => Ok(self.trees().mail_queue.range(..=id.to_be_bytes()).next().transpose()?.is_none()),
            None => Ok(true),
        }
    }

    /// Whether a compaction is due at `now` to erase deleted accounts from the disk (see the
    /// module documentation). Never for a temporary store.
    pub fn compaction_due(&self, now: DateTime<Utc>) -> Result<bool> {
        if self.path.is_none() {
            return Ok(false);
        }
        let Some(erasure) = self.erasure()? else { return Ok(false) };
        let mail_gone = self.mail_gone(erasure.last_mail)?;
        let waited = now.signed_duration_since(erasure.since).to_std().is_ok_and(|waited| waited >= MAIL_WAIT);
        Ok(if erasure.compacted { mail_gone } else { mail_gone || waited })
    }

    /// Copies the database into its next generation and swaps it in while the service runs
    /// (see the module documentation), then removes the old generation once nothing reads it.
    /// Answers `None` for a temporary store. Refused, changing nothing, for a database in a plain
    /// folder (open it with [`Store::open_compactable`]) and when the disk has no room for a
    /// second copy beside its reserve.
    pub fn compact(&self) -> Result<Option<Compaction>> {
        let Some(path) = self.path.clone() else { return Ok(None) };
        let copying = self.copying.lock();
        let Some(live) = live_generation(&path).map_err(layout_error(&path))? else {
            return Err(StoreError::Layout {
                path,
                source: io::Error::new(
                    io::ErrorKind::Unsupported,
                    "the database is in a plain folder; the service makes it compactable when it starts",
                ),
            });
        };
        let bytes_before = self.size_on_disk_bytes()?;
        let room = self.room.status();
        if let Some(available) = room.available_bytes {
            if available < bytes_before.saturating_add(room.reserve_bytes) {
                return Err(StoreError::DiskFull { available_bytes: available, reserve_bytes: bytes_before.saturating_add(room.reserve_bytes) });
            }
        }
        let next = generation_dir(&path, live + 1);
        if next.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(&next).map_err(layout_error(&next))?;
        }
        let copied = self.copy_into_generation(&path, live + 1, &next);
        let (copied, old, writes_waited_ms) = match copied {
            Ok(done) => done,
            Err(error) => {
                let _ = std::fs::remove_dir_all(&next);
                return Err(error);
            }
        };
        drop(copying);
        let bytes_after = self.size_on_disk_bytes()?;
        let old_dir = generation_dir(&path, live);
        let old_removed = remove_when_unused(old, &old_dir);
        tracing::info!(
            generation = %next.display(),
            entries = copied.entries,
            bytes_before,
            bytes_after,
            writes_waited_ms,
            "database compacted: deleted records are gone from the disk"
        );
        Ok(Some(Compaction {
            generation: next,
            entries: copied.entries,
            changed_during_copy: copied.changed_during_copy,
            bytes_before,
            bytes_after,
            writes_waited_ms,
            old_removed,
        }))
    }

    /// The copy and the swap of [`Store::compact`]; answers what was copied, the old trees and
    /// how long writes waited.
    fn copy_into_generation(&self, path: &Path, n: u64, folder: &Path) -> Result<(crate::backup::Copied, Arc<Trees>, u64)> {
        // Not needed for the copy; it keeps the wait at the end short.
        self.flush()?;
        let copy = crate::db::open_sled(folder)?;
        let (copied, (old, waited)) = self.copy_live(&copy, |copied| {
            // The mark of the deletions this copy erases goes; one whose mail is still queued
            // stays, marked compacted, for the compaction after that mail.
            if let Some(erasure) = self.erasure()? {
                let meta = copy.open_tree("meta")?;
                if self.mail_gone(erasure.last_mail)? {
                    meta.remove(ERASURE_KEY)?;
                } else {
                    meta.insert(ERASURE_KEY, encode("erasure mark", &Erasure { compacted: true, ..erasure })?)?;
                }
            }
            copy.flush()?;
            let trees = Trees::open(copy.clone())?;
            point_link(path, n).map_err(layout_error(path))?;
            let old = self.trees.swap(Arc::new(trees));
            Ok((old, u64::try_from(copied.exclusive_since.elapsed().as_millis()).unwrap_or(u64::MAX)))
        })?;
        Ok((copied, old, waited))
    }
}

/// Waits until nothing holds the old generation's trees or files (at most
/// [`OLD_GENERATION_WAIT`]), then removes its folder; answers whether it was removed.
fn remove_when_unused(old: Arc<Trees>, folder: &Path) -> bool {
    let deadline = Instant::now() + OLD_GENERATION_WAIT;
    while Arc::strong_count(&old) > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(old);
    while crate::backup::database_is_locked(folder).unwrap_or(false) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if Instant::now() >= deadline {
        tracing::warn!(folder = %folder.display(), "the old database generation was still in use after 10 minutes; removing it anyway");
    }
    match std::fs::remove_dir_all(folder) {
        Ok(()) => true,
        Err(error) => {
            tracing::error!(%error, folder = %folder.display(), "removing the old database generation; the next start removes it");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use chrono::Duration as Span;
    use engine::mail::RenderedMail;
    use engine::search_term::{SearchTerm, TermId};
    use engine::{Tier, UserId};
    use uuid::Uuid;

    use super::*;
    use crate::secret::TokenHash;
    use crate::{NewAccount, Session, User};

    fn mail(to: &str, subject: &str) -> RenderedMail {
        RenderedMail {
            to: to.into(),
            subject: subject.into(),
            html: String::new(),
            text: format!("Hello {to}"),
            action_url: None,
            list_unsubscribe: None,
        }
    }

    fn io(source: io::Error) -> StoreError {
        StoreError::Layout { path: "test".into(), source }
    }

    /// An account with a term, a session and its welcome mail sent; answers it and its term.
    fn account(store: &Store, email: &str) -> Result<(User, TermId)> {
        let now = Utc::now();
        let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), now);
        let user = store
            .accounts()
            .create(NewAccount { user, preferences: Default::default(), verification: None, mail: Some(mail(email, "Welcome")) }, now)?;
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, format!("proteomics of {email}"), Tier::Free, now);
        store.terms().add(&term, Tier::Free, false)?;
        let session = Session { user_id: user.id, epoch: 0, created_at: now, expires_at: now + Span::days(7), ip_address: Some("10.1.2.3".into()) };
        store.accounts().create_session(TokenHash::of(&format!("session {email}")), &session)?;
        send_every_mail(store)?;
        Ok((user, term.id))
    }

    /// What the mailer does for every queued mail.
    fn send_every_mail(store: &Store) -> Result<()> {
        for queued in store.mail().queued()? {
            store.mail().mark_sent(queued.id)?;
        }
        store.flush()
    }

    /// How many times any file under `dir` holds any of `needles`.
    fn occurrences(dir: &Path, needles: &[Vec<u8>]) -> io::Result<usize> {
        let mut found = 0;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                found += occurrences(&entry.path(), needles)?;
            } else if kind.is_file() {
                let bytes = std::fs::read(entry.path())?;
                for needle in needles {
                    found += bytes.windows(needle.len()).filter(|window| window == needle).count();
                }
            }
        }
        Ok(found)
    }

    /// The address and the ids of an account, as bytes and as text.
    fn traces(user: &User, term: TermId) -> Vec<Vec<u8>> {
        vec![
            user.email.as_bytes().to_vec(),
            user.id.as_bytes().to_vec(),
            user.id.to_string().into_bytes(),
            term.0.as_bytes().to_vec(),
            term.0.to_string().into_bytes(),
        ]
    }

    #[test]
    fn a_deleted_account_is_in_the_files_until_a_compaction_and_nowhere_after_it() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        let store = Store::open_compactable(&path)?;
        let (kept, kept_term) = account(&store, "kept@example.org")?;
        let (gone, gone_term) = account(&store, "ada.lovelace@example.org")?;
        assert!(!store.compaction_due(Utc::now())?, "nothing deleted yet");

        store.accounts().delete_account(gone.id, |user| mail(&user.email, "Your account is deleted"))?;
        store.accounts().close_account_deletion(gone.id)?;
        store.flush()?;
        let gone_traces = traces(&gone, gone_term);
        assert!(occurrences(dir.path(), &gone_traces).map_err(io)? > 0, "deleted records stay in sled's files");
        assert!(!store.compaction_due(Utc::now())?, "the confirmation mail is still queued");
        assert!(store.compaction_due(Utc::now() + Span::minutes(11))?, "compacted anyway once the mail has waited long enough");
        send_every_mail(&store)?;
        assert!(store.compaction_due(Utc::now())?, "due once the confirmation has left the queue");

        let done = store.compact()?.expect("a store with a folder compacts");
        assert!(done.old_removed);
        assert_eq!(done.generation, generation_dir(&path, 1));
        assert_eq!(std::fs::read_link(&path).map_err(io)?, PathBuf::from("db.1"));
        assert_eq!(occurrences(dir.path(), &gone_traces).map_err(io)?, 0, "the deleted account is gone from every file");
        assert!(occurrences(dir.path(), &traces(&kept, kept_term)).map_err(io)? > 0, "the other account is kept");
        assert!(!store.compaction_due(Utc::now())?, "the mark went with the compaction");

        // The store goes on, reads and writes, in the new generation, and opens again.
        assert_eq!(store.accounts().user_by_email("kept@example.org")?.map(|user| user.id), Some(kept.id));
        assert!(store.accounts().user(gone.id)?.is_none());
        account(&store, "later@example.org")?;
        drop(store);
        let reopened = Store::open_compactable(&path)?;
        assert_eq!(reopened.accounts().user_count(), 2);
        assert_eq!(reopened.terms().of_user(kept.id)?.len(), 1);
        assert!(reopened.accounts().user_by_email("later@example.org")?.is_some());
        Ok(())
    }

    #[test]
    fn a_compaction_with_the_confirmation_still_queued_runs_again_once_it_leaves() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let store = Store::open_compactable(&dir.path().join("db"))?;
        let (gone, term) = account(&store, "grace@example.org")?;
        store.accounts().delete_account(gone.id, |user| mail(&user.email, "Your account is deleted"))?;
        store.accounts().close_account_deletion(gone.id)?;
        store.compact()?;
        assert_eq!(store.mail().queue_len(), 1, "the confirmation is still queued");
        assert!(occurrences(dir.path(), &[gone.email.as_bytes().to_vec()]).map_err(io)? > 0, "the queued mail names the address");
        assert!(!store.compaction_due(Utc::now() + Span::hours(1))?, "not again while the mail waits");
        send_every_mail(&store)?;
        assert!(store.compaction_due(Utc::now())?);
        store.compact()?;
        assert_eq!(occurrences(dir.path(), &traces(&gone, term)).map_err(io)?, 0);
        assert!(!store.compaction_due(Utc::now())?);
        Ok(())
    }

    #[test]
    fn writes_made_during_a_compaction_are_kept() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        let store = Store::open_compactable(&path)?;
        for n in 0..300 {
            account(&store, &format!("before{n}@example.org"))?;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..2)
            .map(|thread| {
                let (store, stop) = (store.clone(), Arc::clone(&stop));
                std::thread::spawn(move || -> Result<usize> {
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) || n < 20 {
                        account(&store, &format!("during{thread}-{n}@example.org"))?;
                        n += 1;
                    }
                    Ok(n)
                })
            })
            .collect();
        let first = store.compact()?.expect("compacted");
        let second = store.compact()?.expect("compacted");
        stop.store(true, Ordering::SeqCst);
        let written: usize = writers.into_iter().map(|writer| writer.join().expect("a writer panicked")).sum::<Result<usize>>()?;
        assert!(first.entries > 0 && second.generation == generation_dir(&path, 2));
        assert_eq!(store.accounts().user_count(), 300 + written);
        assert_eq!(store.accounts().users()?.len(), 300 + written);
        drop(store);
        let reopened = Store::open_compactable(&path)?;
        assert_eq!(reopened.accounts().users()?.len(), 300 + written, "every write kept across the swaps and a reopen");
        assert_eq!(generations(&path).map_err(io)?, vec![2], "only the live generation is left");
        Ok(())
    }

    #[test]
    fn a_plain_folder_is_compactable_only_once_the_service_opens_it() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        let store = Store::open(&path)?;
        account(&store, "plain@example.org")?;
        assert!(matches!(store.compact(), Err(StoreError::Layout { .. })), "a plain folder is refused");
        assert!(path.symlink_metadata().map_err(io)?.is_dir(), "and left as it was");
        drop(store);
        let store = Store::open_compactable(&path)?;
        assert_eq!(std::fs::read_link(&path).map_err(io)?, PathBuf::from("db.0"));
        assert!(store.accounts().user_by_email("plain@example.org")?.is_some());
        assert!(store.compact()?.is_some());
        assert!(Store::temporary()?.compact()?.is_none(), "a temporary store has nothing on disk to compact");
        Ok(())
    }

    #[test]
    fn what_an_interrupted_compaction_left_is_put_right_when_the_database_opens() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        {
            let store = Store::open_compactable(&path)?;
            account(&store, "survivor@example.org")?;
            store.compact()?;
        }
        let survives = |path: &Path| -> Result<()> {
            let store = Store::open_compactable(path)?;
            assert!(store.accounts().user_by_email("survivor@example.org")?.is_some());
            assert_eq!(generations(path).map_err(io)?, vec![1]);
            assert!(link_in_making(path).symlink_metadata().is_err());
            Ok(())
        };
        // A copy cut short: the next generation half made.
        std::fs::create_dir(generation_dir(&path, 2)).map_err(io)?;
        std::fs::write(generation_dir(&path, 2).join("db"), b"half a copy").map_err(io)?;
        survives(&path)?;
        // A crash between the new link and its rename.
        std::fs::remove_file(&path).map_err(io)?;
        symlink("db.1", link_in_making(&path)).map_err(io)?;
        survives(&path)?;
        // A link made and never renamed, beside the live one.
        symlink("db.7", link_in_making(&path)).map_err(io)?;
        survives(&path)?;
        // A crash between moving a plain folder to generation 0 and linking it.
        std::fs::remove_file(&path).map_err(io)?;
        survives(&path)?;
        Ok(())
    }

    #[test]
    fn a_link_to_anything_but_a_generation_is_refused() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        std::fs::create_dir(dir.path().join("elsewhere")).map_err(io)?;
        symlink("elsewhere", &path).map_err(io)?;
        assert!(matches!(Store::open(&path), Err(StoreError::Layout { .. })));
        std::fs::remove_file(&path).map_err(io)?;
        symlink("/tmp/db.1", &path).map_err(io)?;
        assert!(matches!(Store::open(&path), Err(StoreError::Layout { .. })));
        Ok(())
    }

    #[test]
    fn a_reader_on_the_old_generation_keeps_it_until_it_is_done() -> Result<()> {
        let dir = tempfile::tempdir().map_err(io)?;
        let path = dir.path().join("db");
        let store = Store::open_compactable(&path)?;
        account(&store, "reader@example.org")?;
        let held = store.trees.load_full();
        let compacting = {
            let store = store.clone();
            std::thread::spawn(move || store.compact())
        };
        // The swap happens while the reader holds the old trees; the old folder waits for it.
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::fs::read_link(&path).ok() != Some(PathBuf::from("db.1")) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(generation_dir(&path, 0).try_exists().map_err(io)?, "the old generation stays while read");
        assert_eq!(held.users.len(), 1, "the reader still reads it");
        drop(held);
        let done = compacting.join().expect("the compaction panicked")?.expect("compacted");
        assert!(done.old_removed);
        assert!(!generation_dir(&path, 0).try_exists().map_err(io)?);
        Ok(())
    }
}
