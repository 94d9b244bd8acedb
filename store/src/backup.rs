//! A consistent copy of the database while the service runs, without stalling it.
//!
//! sled has no snapshots, and reading tree after tree while requests write would catch a
//! transaction over several trees half done. So every write holds the store's [`WriteGate`]
//! shared for its whole duration ([`Store::writing`]), and [`Store::backup_to`] makes its copy in
//! three steps:
//!
//! 1. Holding the gate exclusively for an instant, it registers a subscriber
//!    ([`sled::Tree::watch_prefix`]) on every tree: no write is under way, so every write that
//!    follows is seen by a subscriber.
//! 2. Without the gate (writes go on), it copies every tree, while a thread drains the
//!    subscribers and records which keys changed in which tree. sled reserves a subscriber's slot
//!    before it writes a key and fills it once the write is linked in, plain writes, batches and
//!    the commit of a transaction alike (they all write through `Tree::insert_inner`), so a
//!    write has its event in the channel when it returns. The channel holds 1,024 events and
//!    blocks writers when full, hence the thread. Only the keys are kept, not the values: two
//!    writers' events on one key may arrive out of order.
//! 3. Holding the gate exclusively again, it copies the live value of every changed key (or
//!    removes it from the copy), copies whole the trees created since the first step, drops
//!    those dropped since, and reads the journal of handed-over mail; then it lets writes go on
//!    and flushes the copy.
//!
//! The copy is the database as it was at the instant of the third step — what a crash at that
//! instant would have left, which the service already recovers from. Writes wait only while the
//! keys written during the copy are copied again, a time that depends on how much was written
//! meanwhile, not on the size of the database; reads never take the gate.
//!
//! The journal of handed-over mail (see [`crate::sent_journal`]) is copied beside the copy's
//! folder, so that the restored queue does not send again a mail the service had handed over.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use parking_lot::{RwLock, RwLockReadGuard};

use crate::db::{ReadTree, Writer};
use crate::error::StoreError;
use crate::sent_journal::SentJournal;
use crate::{Result, Store};

/// Entries written to the copy in one batch.
const COPY_BATCH_ENTRIES: usize = 10_000;

/// How long the thread that drains the subscribers sleeps when no event woke it, at most.
const DRAIN_IDLE: Duration = Duration::from_millis(50);

/// What [`Store::backup_to`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreCopy {
    /// Accounts in the copy.
    pub users: u64,
    /// Entries in every tree of the copy.
    pub entries: u64,
    /// Trees copied.
    pub trees: usize,
    /// Keys written while the trees were copied, copied again while writes waited.
    pub changed_during_copy: u64,
}

/// Held shared by every write, exclusively by a backup.
#[derive(Debug, Default)]
pub(crate) struct WriteGate {
    lock: RwLock<()>,
}

thread_local! {
    /// How many holds of a gate this thread has now: a write that calls another write takes the
    /// gate again without waiting for a backup that waits for the first hold.
    static HOLDS: Cell<u32> = const { Cell::new(0) };
}

/// A shared hold of the gate; writes may go on while it lives.
pub(crate) struct Writing<'a> {
    _guard: RwLockReadGuard<'a, ()>,
}

impl WriteGate {
    /// A shared hold: waits while a backup holds the gate (or waits for it, so that a steady
    /// stream of writes cannot keep a backup waiting), except on a thread that holds the gate
    /// already, which gets through at once (it would otherwise wait for a backup that waits for
    /// it).
    pub(crate) fn hold(&self) -> Writing<'_> {
        let nested = HOLDS.with(|holds| holds.get() > 0);
        let guard = if nested { self.lock.read_recursive() } else { self.lock.read() };
        HOLDS.with(|holds| holds.set(holds.get() + 1));
        Writing { _guard: guard }
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        HOLDS.with(|holds| holds.set(holds.get().saturating_sub(1)));
    }
}

impl Store {
    /// Before a write: refuses it when the disk is under its reserve (see [`crate::room`]), else
    /// holds the write gate until the answer is dropped. The answer is the only way to the
    /// trees' writing methods (`writer.users.insert(..)`), so every write holds the gate.
    pub(crate) fn writing(&self) -> Result<Writer<'_>> {
        self.room.ensure()?;
        let hold = self.gate.hold();
        Ok(Writer::new(hold, self.trees()))
    }

    /// Copies the database into `dest_db_dir` (a new sled folder; it must not hold a database)
    /// as it is at one instant, and the journal of handed-over mail beside it. Writes go on
    /// during the copy and wait only while what they wrote meanwhile is copied again (see the
    /// module documentation).
    pub fn backup_to(&self, dest_db_dir: &Path) -> Result<StoreCopy> {
        self.backup_to_observed(dest_db_dir, |_| {})
    }

    /// [`Store::backup_to`], calling `at_the_instant` with the live store at the instant the
    /// copy is of, while writes wait: tests compare the copy with what it saw.
    pub(crate) fn backup_to_observed(&self, dest_db_dir: &Path, at_the_instant: impl FnOnce(&Store)) -> Result<StoreCopy> {
        let _copying = self.copying.lock();
        // Not needed for the copy (it reads the live trees); it keeps the journal short.
        self.flush()?;
        let copy = sled::Config::new().path(dest_db_dir).open().map_err(|source| StoreError::Open { path: dest_db_dir.to_owned(), source })?;
        let (copied, (users, journal)) = self.copy_live(&copy, |_| {
            at_the_instant(self);
            let journal = match &self.sent_journal {
                Some(journal) => {
                    let journal_path = SentJournal::path_for(dest_db_dir);
                    Some(journal.contents().map_err(|source| StoreError::Journal { path: journal_path, source })?)
                }
                None => None,
            };
            Ok((self.accounts().user_count() as u64, journal))
        })?;
        copy.flush()?;
        let trees = copy.tree_names().len();
        drop(copy);
        if let Some(contents) = journal {
            let journal_path = SentJournal::path_for(dest_db_dir);
            write_durably(&journal_path, &contents).map_err(|source| StoreError::Journal { path: journal_path.clone(), source })?;
        }
        Ok(StoreCopy { users, entries: copied.entries, trees, changed_during_copy: copied.changed_during_copy })
    }

    /// Copies every tree into `copy` (an empty database) while writes go on, then, holding the
    /// write gate, copies again what they changed meanwhile and calls `at_the_instant` before
    /// writes go on: the copy is then the database as it is at that instant (see the module
    /// documentation). Call it holding `self.copying`, so that no other copy or compaction runs.
    pub(crate) fn copy_live<R>(&self, copy: &sled::Db, at_the_instant: impl FnOnce(&Copied) -> Result<R>) -> Result<(Copied, R)> {
        let (watched, subscribers) = {
            let _exclusive = self.gate.lock.write();
            self.watch_every_tree()?
        };
        let drain = ChangedKeys::start(subscribers);
        let first_pass = watched.iter().map(|(name, tree)| copy_whole_tree(tree, &copy.open_tree(name)?)).sum::<Result<u64>>();
        let first_pass_entries = match first_pass {
            Ok(entries) => entries,
            Err(error) => {
                drain.finish();
                return Err(error);
            }
        };
        let _exclusive = self.gate.lock.write();
        let exclusive_since = std::time::Instant::now();
        let changed_keys = drain.finish();
        let changes = self.copy_changes(copy, &watched, &changed_keys)?;
        let copied =
            Copied { entries: first_pass_entries.saturating_add_signed(changes.entries_delta), changed_during_copy: changes.keys, exclusive_since };
        let answer = at_the_instant(&copied)?;
        Ok((copied, answer))
    }

    /// Every tree (name order) with a subscriber to all its changes; call it while no write is
    /// under way.
    #[allow(clippy::type_complexity)]
    fn watch_every_tree(&self) -> Result<(Vec<(sled::IVec, ReadTree)>, Vec<(sled::IVec, sled::Subscriber)>)> {
        let mut names = self.trees().tree_names();
        names.sort();
        let mut trees = Vec::with_capacity(names.len());
        let mut subscribers = Vec::with_capacity(names.len());
        for name in names {
            let tree = self.trees().open_tree(&name)?;
            subscribers.push((name.clone(), tree.watch_prefix(Vec::<u8>::new())));
            trees.push((name, tree));
        }
        Ok((trees, subscribers))
    }

    /// Brings `copy`, a copy of the `watched` trees made while writes went on, to the live
    /// database: the `changed` keys again, trees created since whole, trees dropped since gone.
    /// Call it while no write is under way.
    fn copy_changes(
        &self,
        copy: &sled::Db,
        watched: &[(sled::IVec, ReadTree)],
        changed: &BTreeMap<sled::IVec, BTreeSet<sled::IVec>>,
    ) -> Result<Changes> {
        let mut changes = Changes::default();
        let live_names: BTreeSet<sled::IVec> = self.trees().tree_names().into_iter().collect();
        for (name, tree) in watched {
            if !live_names.contains(name) {
                changes.entries_delta -= i64::try_from(copy.open_tree(name)?.len()).unwrap_or(i64::MAX);
                copy.drop_tree(name)?;
                continue;
            }
            let Some(keys) = changed.get(name) else {
                continue;
            };
            let copy_tree = copy.open_tree(name)?;
            let mut batch = sled::Batch::default();
            for key in keys {
                let was_there = copy_tree.contains_key(key)?;
                match tree.get(key)? {
                    Some(value) => {
                        batch.insert(key, value);
                        changes.entries_delta += i64::from(!was_there);
                    }
                    None => {
                        batch.remove(key);
                        changes.entries_delta -= i64::from(was_there);
                    }
                }
                changes.keys += 1;
            }
            copy_tree.apply_batch(batch)?;
        }
        let watched_names: BTreeSet<&sled::IVec> = watched.iter().map(|(name, _)| name).collect();
        for name in live_names.iter().filter(|name| !watched_names.contains(name)) {
            let copied = copy_whole_tree(&self.trees().open_tree(name)?, &copy.open_tree(name)?)?;
            changes.entries_delta += i64::try_from(copied).unwrap_or(i64::MAX);
        }
        Ok(changes)
    }
}

/// What [`Store::copy_live`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Copied {
    /// Entries in every tree of the copy.
    pub entries: u64,
    /// Keys written while the trees were copied, copied again while writes waited.
    pub changed_during_copy: u64,
    /// When writes began to wait for the last step.
    pub exclusive_since: std::time::Instant,
}

/// What the last step of a backup changed in its copy.
#[derive(Debug, Default)]
struct Changes {
    /// Keys copied again.
    keys: u64,
    /// Entries added to the copy (negative: removed).
    entries_delta: i64,
}

/// Copies every entry of `source` into `copy`, in batches; returns how many.
fn copy_whole_tree(source: &ReadTree, copy: &sled::Tree) -> Result<u64> {
    let mut entries = 0u64;
    let mut batch = sled::Batch::default();
    let mut in_batch = 0;
    for entry in source.iter() {
        let (key, value) = entry?;
        batch.insert(key, value);
        in_batch += 1;
        entries += 1;
        if in_batch == COPY_BATCH_ENTRIES {
            copy.apply_batch(std::mem::take(&mut batch))?;
            in_batch = 0;
        }
    }
    copy.apply_batch(batch)?;
    Ok(entries)
}

/// A thread that drains subscribers while a copy is made, keeping the keys their events name.
struct ChangedKeys {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<BTreeMap<sled::IVec, BTreeSet<sled::IVec>>>,
}

/// Wakes the draining thread when a subscriber has an event.
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl ChangedKeys {
    /// Starts draining `subscribers` (each with its tree's name) on a thread of its own.
    fn start(subscribers: Vec<(sled::IVec, sled::Subscriber)>) -> ChangedKeys {
        let stop = Arc::new(AtomicBool::new(false));
        let stop_seen = Arc::clone(&stop);
        let thread = std::thread::spawn(move || drain_until_stopped(subscribers, &stop_seen));
        ChangedKeys { stop, thread }
    }

    /// The keys changed since the subscribers were registered, by tree. Call it while no write
    /// is under way: every write has its event filled then, and the last round takes them all.
    fn finish(self) -> BTreeMap<sled::IVec, BTreeSet<sled::IVec>> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
        match self.thread.join() {
            Ok(changed) => changed,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Takes every event the subscribers have, sleeping until one wakes it, until `stop` is set;
/// then takes what is left once more.
fn drain_until_stopped(mut subscribers: Vec<(sled::IVec, sled::Subscriber)>, stop: &AtomicBool) -> BTreeMap<sled::IVec, BTreeSet<sled::IVec>> {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut changed: BTreeMap<sled::IVec, BTreeSet<sled::IVec>> = BTreeMap::new();
    loop {
        let last_round = stop.load(Ordering::SeqCst);
        for (name, subscriber) in &mut subscribers {
            // Ready(None): the database is closing; nothing more will come.
            while let Poll::Ready(Some(event)) = Pin::new(&mut *subscriber).poll(&mut context) {
                changed.entry(name.clone()).or_default().insert(event.key().clone());
            }
        }
        if last_round {
            return changed;
        }
        std::thread::park_timeout(DRAIN_IDLE);
    }
}

/// Whether a process holds the database in `db_dir` open now (sled locks its `db` file); a
/// folder without a database is not held.
pub fn database_is_locked(db_dir: &Path) -> std::io::Result<bool> {
    use fs2::FileExt;
    let file = match std::fs::OpenOptions::new().read(true).write(true).open(db_dir.join("db")) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    };
    match file.try_lock_exclusive() {
        Ok(()) => {
            FileExt::unlock(&file)?;
            Ok(false)
        }
        Err(_) => Ok(true),
    }
}

fn write_durably(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::create(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use engine::mail::RenderedMail;
    use engine::search_term::{SearchTerm, TermId};
    use engine::{Tier, UserId};
    use uuid::Uuid;

    use super::*;
    use crate::{NewAccount, User};

    fn mail(to: &str) -> RenderedMail {
        RenderedMail { to: to.into(), subject: "Welcome".into(), html: String::new(), text: String::new(), action_url: None, list_unsubscribe: None }
    }

    /// A signup (its account and its mail in one transaction), then a term.
    fn sign_up(store: &Store, thread: usize, n: usize) -> Result<()> {
        let email = format!("user{thread}-{n}@example.org");
        let now = Utc::now();
        let user = User::new(UserId(Uuid::new_v4()), &email, String::new(), now);
        let account = NewAccount { user, preferences: engine::Preferences::default(), verification: None, mail: Some(mail(&email)) };
        let user = store.accounts().create(account, now)?;
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, format!("topic {thread} {n}"), Tier::Free, now);
        store.terms().add(&term, Tier::Free, false)?;
        Ok(())
    }

    /// Every multi-tree invariant of the copy: each address names its account, the count is the
    /// accounts', each term of a user's list exists.
    fn check_invariants(copy: &Store) -> Result<()> {
        let users = copy.accounts().users()?;
        assert_eq!(copy.accounts().user_count(), users.len(), "the account count is the accounts'");
        assert_eq!(copy.trees().users_by_email.len(), users.len(), "one address per account");
        for entry in copy.trees().users_by_email.iter() {
            let (_, id) = entry?;
            assert!(copy.trees().users.get(&id)?.is_some(), "an address without its account");
        }
        for entry in copy.trees().search_terms_by_user.iter() {
            let (key, _) = entry?;
            assert!(copy.trees().search_terms.get(&key[16..])?.is_some(), "a user's term without its record");
        }
        Ok(())
    }

    #[test]
    fn backups_taken_during_writes_open_and_hold_every_invariant() -> Result<()> {
        let folder = tempfile::tempdir().map_err(|source| StoreError::Journal { path: "tempdir".into(), source })?;
        let store = Store::open(&folder.path().join("db"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..3)
            .map(|thread| {
                let (store, stop) = (store.clone(), Arc::clone(&stop));
                std::thread::spawn(move || -> Result<usize> {
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) {
                        sign_up(&store, thread, n)?;
                        n += 1;
                    }
                    Ok(n)
                })
            })
            .collect();
        let mut counts = Vec::new();
        for backup in 0..6 {
            while store.accounts().user_count() < (backup + 1) * 5 {
                std::thread::yield_now();
            }
            let dest = folder.path().join(format!("backup-{backup}"));
            let copied = store.backup_to(&dest)?;
            let copy = Store::open(&dest)?;
            assert_eq!(copy.accounts().user_count() as u64, copied.users);
            check_invariants(&copy)?;
            assert_eq!(copy.mail().queue_len(), copy.accounts().user_count(), "each signup's mail is there with its account");
            counts.push(copied.users);
        }
        stop.store(true, Ordering::SeqCst);
        for writer in writers {
            writer.join().expect("a writer panicked")?;
        }
        assert!(counts.windows(2).all(|pair| pair[0] <= pair[1]), "backups go forward: {counts:?}");
        Ok(())
    }

    /// Every entry of a sled database as (tree, key, value), trees in name order, like
    /// [`Store::raw_entries`].
    fn entries_of(db: &sled::Db) -> Result<Vec<crate::RawEntry>> {
        let mut names = db.tree_names();
        names.sort();
        let mut entries = Vec::new();
        for name in names {
            let tree_name = String::from_utf8_lossy(&name).into_owned();
            for entry in db.open_tree(&name)?.iter() {
                let (key, value) = entry?;
                entries.push((tree_name.clone(), key.to_vec(), value.to_vec()));
            }
        }
        Ok(entries)
    }

    /// `count` entries of `value_bytes` each in the tree `name`, written before any backup.
    fn fill(store: &Store, name: &str, count: u32, value_bytes: usize) -> Result<()> {
        let writing = store.writing()?;
        let tree = writing.db().open_tree(name)?;
        let mut batch = sled::Batch::default();
        for n in 0..count {
            batch.insert(&n.to_be_bytes(), vec![(n % 251) as u8; value_bytes]);
        }
        tree.apply_batch(batch)?;
        Ok(())
    }

    /// One of four kinds of write, each through the gate as the store's writes are: a plain
    /// insert on a key other writers write too, a remove, a transaction over two trees, a batch;
    /// every 50th write also adds a tree.
    fn write_something(store: &Store, writer: u32, n: u32) -> Result<()> {
        use sled::Transactional;
        let writing = store.writing()?;
        let shared_key = (n % 64).to_be_bytes();
        let value = format!("{writer}-{n}").into_bytes();
        match n % 4 {
            0 => {
                writing.db().open_tree("plain")?.insert(shared_key, value.as_slice())?;
            }
            1 => {
                writing.db().open_tree("plain")?.remove(shared_key)?;
                writing.db().open_tree("filler")?.remove((n * 7 + writer).to_be_bytes())?;
            }
            2 => {
                let (left, right) = (writing.db().open_tree("left")?, writing.db().open_tree("right")?);
                let _: std::result::Result<(), sled::transaction::TransactionError<()>> = (&left, &right).transaction(|(left, right)| {
                    left.insert(&shared_key, value.as_slice())?;
                    right.insert(&shared_key, value.as_slice())?;
                    Ok(())
                });
            }
            _ => {
                let mut batch = sled::Batch::default();
                batch.insert(&shared_key, value.as_slice());
                batch.remove(&((n + 1) % 64).to_be_bytes());
                writing.db().open_tree("batched")?.apply_batch(batch)?;
            }
        }
        if n % 50 == 49 {
            writing.db().open_tree(format!("created-{writer}-{n}"))?.insert(b"k", value.as_slice())?;
        }
        Ok(())
    }

    #[test]
    fn a_copy_made_while_writers_write_equals_the_database_at_the_instant_writes_waited() -> Result<()> {
        let folder = tempfile::tempdir().map_err(|source| StoreError::Journal { path: "tempdir".into(), source })?;
        let store = Store::open(&folder.path().join("db"))?;
        fill(&store, "filler", 20_000, 64)?;
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..3)
            .map(|writer| {
                let (store, stop) = (store.clone(), Arc::clone(&stop));
                std::thread::spawn(move || -> Result<u32> {
                    let mut n = 0;
                    while !stop.load(Ordering::SeqCst) {
                        write_something(&store, writer, n)?;
                        sign_up(&store, writer as usize, n as usize)?;
                        n += 1;
                    }
                    Ok(n)
                })
            })
            .collect();
        for backup in 0..3 {
            while store.accounts().user_count() < (backup + 1) * 20 {
                std::thread::yield_now();
            }
            let dest = folder.path().join(format!("backup-{backup}"));
            let mut live = None;
            let copied = store.backup_to_observed(&dest, |store| live = Some(store.raw_entries()))?;
            let live = live.expect("the copy's instant was observed")?;
            assert!(copied.changed_during_copy > 0, "writes went on during the copy");
            let copy = sled::Config::new().path(&dest).open()?;
            let copied_entries = entries_of(&copy)?;
            assert!(copied_entries == live, "backup {backup}: the copy differs from the database at its instant");
            assert_eq!(copied.entries, live.len() as u64, "the entries are counted");
        }
        stop.store(true, Ordering::SeqCst);
        for writer in writers {
            writer.join().expect("a writer panicked")?;
        }
        Ok(())
    }

    #[test]
    fn writes_during_a_backup_wait_far_less_than_the_copy_takes() -> Result<()> {
        let folder = tempfile::tempdir().map_err(|source| StoreError::Journal { path: "tempdir".into(), source })?;
        let store = Store::open(&folder.path().join("db"))?;
        fill(&store, "filler", 150_000, 100)?;
        let key = b"reader's key";
        store.writing()?.meta.insert(key, b"value")?;
        let stop = Arc::new(AtomicBool::new(false));
        let writes = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let writer = {
            let (store, stop, writes) = (store.clone(), Arc::clone(&stop), Arc::clone(&writes));
            std::thread::spawn(move || -> Result<(Duration, Duration)> {
                let (mut longest_write, mut longest_read) = (Duration::ZERO, Duration::ZERO);
                let mut n = 0u32;
                while !stop.load(Ordering::SeqCst) {
                    let started = std::time::Instant::now();
                    write_something(&store, 0, n)?;
                    longest_write = longest_write.max(started.elapsed());
                    let started = std::time::Instant::now();
                    assert!(store.trees().meta.get(key)?.is_some());
                    longest_read = longest_read.max(started.elapsed());
                    writes.fetch_add(1, Ordering::SeqCst);
                    n += 1;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Ok((longest_write, longest_read))
            })
        };
        while writes.load(Ordering::SeqCst) < 20 {
            std::thread::yield_now();
        }
        let writes_before = writes.load(Ordering::SeqCst);
        let started = std::time::Instant::now();
        let copied = store.backup_to(&folder.path().join("copy"))?;
        let backup_took = started.elapsed();
        let writes_during = writes.load(Ordering::SeqCst) - writes_before;
        stop.store(true, Ordering::SeqCst);
        let (longest_write, longest_read) = writer.join().expect("the writer panicked")?;
        assert!(copied.entries > 145_000, "the store was copied: {copied:?}");
        assert!(longest_write * 4 < backup_took, "the longest write waited {longest_write:?}, the backup took {backup_took:?}");
        assert!(longest_read * 4 < backup_took, "the longest read waited {longest_read:?}, the backup took {backup_took:?}");
        assert!(writes_during > 10, "writes went on during the backup: {writes_during} in {backup_took:?}");
        Ok(())
    }

    #[test]
    fn the_journal_of_handed_over_mail_goes_with_the_copy() -> Result<()> {
        let folder = tempfile::tempdir().map_err(|source| StoreError::Journal { path: "tempdir".into(), source })?;
        let store = Store::open(&folder.path().join("db"))?;
        let id = store.mail().enqueue(&mail("a@example.org"), Utc::now())?;
        store.mail().mark_handing_over(id);
        let dest = folder.path().join("copy");
        store.backup_to(&dest)?;
        let copy = Store::open(&dest)?;
        assert_eq!(copy.mail().queue_len(), 0, "a mail being handed over is not sent again from the copy");
        assert_eq!(copy.mail().dead_len(), 1, "it is kept aside for the operator");
        Ok(())
    }
}
