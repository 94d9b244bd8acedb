//! Opening the database, its trees, the schema version and forward migrations.

use std::path::Path;

use crate::decoded::Decoded;
use crate::error::StoreError;
use crate::mail_queue::MSG_HAND_OVER_INTERRUPTED;
use crate::room::{DiskRoom, RoomStatus};
use crate::sent_journal::SentJournal;
use crate::Result;

/// The schema this binary writes. Bump it and append a migration when a stored shape changes in
/// a way `#[serde(default)]` cannot absorb.
pub const SCHEMA_VERSION: u32 = 3;

const SCHEMA_VERSION_KEY: &[u8] = b"schema_version";

/// A forward migration from `from` to `from + 1`.
pub(crate) struct Migration {
    pub from: u32,
    pub apply: fn(&Store) -> Result<()>,
}

/// Migrations in order.
const MIGRATIONS: &[Migration] = &[
    // 2: each user's digest ledger and one record of sent papers per commit (`crate::ledger`),
    // built from their digests and their key-per-paper sent records.
    Migration { from: 1, apply: |store| store.digests().build_ledgers() },
    // 3: each digest names the term it was made for by id (`Digests::bind_digests_to_terms`).
    Migration { from: 2, apply: |store| store.digests().bind_digests_to_terms() },
];

/// Handle to the database; cheap to clone (clones share everything).
#[derive(Clone)]
pub struct Store {
    /// The database and its trees. Every access loads them anew: a compaction (see
    /// [`crate::compaction`]) swaps in a fresh copy while the service runs.
    pub(crate) trees: std::sync::Arc<arc_swap::ArcSwap<Trees>>,
    /// Held while a term is added: the plan-limit check reads, then writes.
    pub(crate) adding_terms: std::sync::Arc<std::sync::Mutex<()>>,
    /// The unsubscribe links' key once read from `meta`.
    pub(crate) unsubscribe_key: std::sync::Arc<std::sync::OnceLock<Vec<u8>>>,
    /// The free space every write needs first (none unless [`Store::with_disk_reserve`]).
    pub(crate) room: DiskRoom,
    /// The database's folder; `None` for a temporary store.
    pub(crate) path: Option<std::path::PathBuf>,
    /// The ids of mail handed over and not yet durably out of the queue (see
    /// [`crate::sent_journal`]); `None` for a temporary store.
    pub(crate) sent_journal: Option<std::sync::Arc<SentJournal>>,
    /// Signed-in users' sessions, accounts and ledgers, kept decoded (see [`crate::decoded`]).
    pub(crate) signed_in: std::sync::Arc<SignedInRecords>,
    /// Held shared by every write and exclusively by a backup (see [`crate::backup`]).
    pub(crate) gate: std::sync::Arc<crate::backup::WriteGate>,
    /// Held for the whole of a backup or a compaction: one copy at a time.
    pub(crate) copying: std::sync::Arc<parking_lot::Mutex<()>>,
}

/// A handle on each tree of the database: writable (`sled::Tree`) in the hands of a
/// [`Writer`], read-only ([`ReadTree`]) for everyone else.
pub(crate) struct TreeSet<T> {
    pub meta: T,
    /// user id (16 bytes) → `User`
    pub users: T,
    /// normalized email → user id
    pub users_by_email: T,
    /// user id → `Preferences`
    pub preferences: T,
    /// session token hash (32 bytes) → `Session`
    pub sessions: T,
    /// user id ++ session token hash → ()
    pub sessions_by_user: T,
    /// one-time token hash → `TokenRecord`
    pub tokens: T,
    /// mail id (u64 big-endian, so FIFO) → `QueuedMail`
    pub mail_queue: T,
    /// mails that failed for good, kept for the operator
    pub mail_dead: T,
    /// source name (`pubmed`, …) → `HarvestState`
    pub harvest: T,
    /// term id (16 bytes) → `SearchTerm`
    pub search_terms: T,
    /// user id ++ term id → ()
    pub search_terms_by_user: T,
    /// user id ++ sent-at (µs, big-endian) ++ digest id → the digest, its papers by content key
    pub digests: T,
    /// content key (16 bytes of the SHA-256 of the entry) → `DigestEntry`, shared by digests
    pub digest_entries: T,
    /// model name ++ 0 ++ paper dedup key → the model's summary of the paper, for every user
    pub paper_summaries: T,
    /// schema 1: user id ++ a paper's first dedup key → sent-at (s); emptied by the migration
    /// to schema 2
    pub sent_papers_v1: T,
    /// user id → `Ledger`: what the weekly and free-plan rules know of the user's digests
    pub digest_ledgers: T,
    /// user id ++ ledger version (big-endian) → fingerprints (u64 little-endian) of the papers
    /// that commit sent
    pub sent_paper_sets: T,
    /// content key (16 bytes of the SHA-256) → a digest's text (AI summary, "searched as")
    pub digest_texts: T,
    /// unsubscribe token hash → user id
    pub unsubscribe_tokens: T,
    /// user id ++ notice name → sent-at (s): one-time notices
    pub notices: T,
    /// Stripe subscription id → `SubscriptionTracking`
    pub subscription_tracking: T,
    /// Stripe event id → applied-at (s): webhook events already applied
    pub stripe_events: T,
    /// Stripe customer id → user id
    pub stripe_customers: T,
    /// paper index id (u64 big-endian) → the paper's embedding vector, its model and text hash
    pub paper_vectors: T,
    /// user id ++ term id ++ a paper's first dedup key → `Rating`
    pub ratings: T,
    /// user id ++ changed-at (µs, big-endian) → `PlanRecord`: each change of the user's plan
    pub plan_history: T,
    /// user id → `Deletion`: an account deletion begun and not finished yet (see
    /// [`crate::rights`])
    pub account_deletions: T,
    /// user id ++ term id → `LabChannel`: the term's lab channel
    pub channels: T,
    /// user id ++ digest id → `ChannelPost`: a digest waiting to be posted to its channel
    pub channel_posts: T,
}

impl TreeSet<sled::Tree> {
    /// Opens every tree of `db`.
    fn open(db: &sled::Db) -> Result<TreeSet<sled::Tree>> {
        Ok(TreeSet {
            meta: db.open_tree("meta")?,
            users: db.open_tree("users")?,
            users_by_email: db.open_tree("users_by_email")?,
            preferences: db.open_tree("user_preferences")?,
            sessions: db.open_tree("sessions")?,
            sessions_by_user: db.open_tree("sessions_by_user")?,
            tokens: db.open_tree("tokens")?,
            mail_queue: db.open_tree("mail_queue")?,
            mail_dead: db.open_tree("mail_dead")?,
            harvest: db.open_tree("harvest_state")?,
            search_terms: db.open_tree("search_terms")?,
            search_terms_by_user: db.open_tree("search_terms_by_user")?,
            digests: db.open_tree("email_digests")?,
            digest_entries: db.open_tree("digest_entries")?,
            paper_summaries: db.open_tree("paper_summaries")?,
            sent_papers_v1: db.open_tree("sent_papers")?,
            digest_ledgers: db.open_tree("digest_ledgers")?,
            sent_paper_sets: db.open_tree("sent_paper_sets")?,
            digest_texts: db.open_tree("digest_texts")?,
            unsubscribe_tokens: db.open_tree("unsubscribe_tokens")?,
            notices: db.open_tree("notices")?,
            subscription_tracking: db.open_tree("subscription_tracking")?,
            stripe_events: db.open_tree("stripe_events")?,
            stripe_customers: db.open_tree("stripe_customers")?,
            paper_vectors: db.open_tree("paper_vectors")?,
            ratings: db.open_tree("ratings")?,
            plan_history: db.open_tree("plan_history")?,
            account_deletions: db.open_tree("account_deletions")?,
            channels: db.open_tree("lab_channels")?,
            channel_posts: db.open_tree("channel_posts")?,
        })
    }
}

impl<T> TreeSet<T> {
    fn map<U>(&self, to: impl Fn(&T) -> U) -> TreeSet<U> {
        TreeSet {
            meta: to(&self.meta),
            users: to(&self.users),
            users_by_email: to(&self.users_by_email),
            preferences: to(&self.preferences),
            sessions: to(&self.sessions),
            sessions_by_user: to(&self.sessions_by_user),
            tokens: to(&self.tokens),
            mail_queue: to(&self.mail_queue),
            mail_dead: to(&self.mail_dead),
            harvest: to(&self.harvest),
            search_terms: to(&self.search_terms),
            search_terms_by_user: to(&self.search_terms_by_user),
            digests: to(&self.digests),
            digest_entries: to(&self.digest_entries),
            paper_summaries: to(&self.paper_summaries),
            sent_papers_v1: to(&self.sent_papers_v1),
            digest_ledgers: to(&self.digest_ledgers),
            sent_paper_sets: to(&self.sent_paper_sets),
            digest_texts: to(&self.digest_texts),
            unsubscribe_tokens: to(&self.unsubscribe_tokens),
            notices: to(&self.notices),
            subscription_tracking: to(&self.subscription_tracking),
            stripe_events: to(&self.stripe_events),
            stripe_customers: to(&self.stripe_customers),
            paper_vectors: to(&self.paper_vectors),
            ratings: to(&self.ratings),
            plan_history: to(&self.plan_history),
            account_deletions: to(&self.account_deletions),
            channels: to(&self.channels),
            channel_posts: to(&self.channel_posts),
        }
    }
}

/// The open database and its trees. Reading needs nothing (`store.trees().users.get(..)`: the
/// trees read-only); writing needs a [`Writer`], which only [`Store::writing`] hands out, holding
/// the backup's write gate (see [`crate::backup`]) — so no write can forget the gate.
pub(crate) struct Trees {
    db: sled::Db,
    writable: TreeSet<sled::Tree>,
    readable: TreeSet<ReadTree>,
}

impl Trees {
    /// Opens every tree of `db`.
    pub fn open(db: sled::Db) -> Result<Trees> {
        let writable = TreeSet::open(&db)?;
        let readable = writable.map(|tree| ReadTree(tree.clone()));
        Ok(Trees { db, writable, readable })
    }

    /// Writes everything to disk; returns once it is durable.
    pub fn flush(&self) -> Result<()> {
        self.db.flush()?;
        Ok(())
    }

    /// The names of every tree the database holds, its own default tree included.
    pub fn tree_names(&self) -> Vec<sled::IVec> {
        self.db.tree_names()
    }

    /// The tree named `name`, read-only (made, empty, when there is none).
    pub fn open_tree(&self, name: impl AsRef<[u8]>) -> Result<ReadTree> {
        Ok(ReadTree(self.db.open_tree(name)?))
    }

    /// A fresh id, never answered before (sled's monotonic counter).
    pub fn generate_id(&self) -> Result<u64> {
        Ok(self.db.generate_id()?)
    }

    /// Approximate bytes on disk.
    pub fn size_on_disk(&self) -> Result<u64> {
        Ok(self.db.size_on_disk()?)
    }
}

impl std::ops::Deref for Trees {
    type Target = TreeSet<ReadTree>;

    fn deref(&self) -> &TreeSet<ReadTree> {
        &self.readable
    }
}

/// A tree that can only be read: what [`Store::trees`] hands out.
#[derive(Clone)]
pub(crate) struct ReadTree(sled::Tree);

impl ReadTree {
    pub fn get(&self, key: impl AsRef<[u8]>) -> sled::Result<Option<sled::IVec>> {
        self.0.get(key)
    }

    pub fn contains_key(&self, key: impl AsRef<[u8]>) -> sled::Result<bool> {
        self.0.contains_key(key)
    }

    pub fn iter(&self) -> sled::Iter {
        self.0.iter()
    }

    pub fn scan_prefix(&self, prefix: impl AsRef<[u8]>) -> sled::Iter {
        self.0.scan_prefix(prefix)
    }

    pub fn range<K: AsRef<[u8]>, R: std::ops::RangeBounds<K>>(&self, range: R) -> sled::Iter {
        self.0.range(range)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn watch_prefix(&self, prefix: impl AsRef<[u8]>) -> sled::Subscriber {
        self.0.watch_prefix(prefix)
    }
}

/// The trees, writable, for as long as the write gate is held (see [`Store::writing`]).
pub(crate) struct Writer<'a> {
    _hold: crate::backup::Writing<'a>,
    trees: arc_swap::Guard<std::sync::Arc<Trees>>,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(hold: crate::backup::Writing<'a>, trees: arc_swap::Guard<std::sync::Arc<Trees>>) -> Writer<'a> {
        Writer { _hold: hold, trees }
    }

    /// The database itself, writable: for tests' writes to trees of their own.
    #[cfg(test)]
    pub fn db(&self) -> &sled::Db {
        &self.trees.db
    }

    /// The same trees, read-only.
    pub fn read(&self) -> &Trees {
        &self.trees
    }
}

impl std::ops::Deref for Writer<'_> {
    type Target = TreeSet<sled::Tree>;

    fn deref(&self) -> &TreeSet<sled::Tree> {
        &self.trees.writable
    }
}

/// The records every signed-in request reads, kept decoded beside their bytes.
pub(crate) struct SignedInRecords {
    pub sessions: Decoded<crate::Session>,
    pub users: Decoded<crate::User>,
    pub ledgers: Decoded<crate::Ledger>,
}

impl Default for SignedInRecords {
    fn default() -> SignedInRecords {
        SignedInRecords { sessions: Decoded::new("session"), users: Decoded::new("user"), ledgers: Decoded::new("digest ledger") }
    }
}

/// One stored entry: its tree's name, its key and its value.
pub type RawEntry = (String, Vec<u8>, Vec<u8>);

/// Opens the sled database in `folder` as the service runs it: high-throughput mode, flushed on
/// its own every 2 s (see [`Store::open`]).
pub(crate) fn open_sled(folder: &Path) -> Result<sled::Db> {
    sled::Config::new()
        .path(folder)
        .mode(sled::Mode::HighThroughput)
        .flush_every_ms(Some(2000))
        .open()
        .map_err(|source| StoreError::Open { path: folder.to_owned(), source })
}

/// How long [`Store::open`] waits for a database another process is letting go of.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl Store {
    /// The database and its trees as they are now. Keep the answer only for the length of one
    /// step: a write holds it under [`Store::writing`], which a compaction waits for before it
    /// swaps the database.
    pub(crate) fn trees(&self) -> arc_swap::Guard<std::sync::Arc<Trees>> {
        self.trees.load()
    }

    /// Opens (or creates) the database in `path`, migrating it to [`SCHEMA_VERSION`].
    ///
    /// sled runs in its high-throughput mode and flushes on its own every 2 s (its default is
    /// 0.5 s): every request that changes something flushes before it answers, the mailer
    /// flushes before it sends and the weekly pass when it ends, so the background flush only
    /// bounds what a crash can lose of work nobody was told about yet; each fsync it saves is
    /// time for the weekly pass.
    ///
    /// A database another process holds is [`StoreError::Locked`] — after a short wait
    /// ([`LOCK_WAIT`]): a process that just closed it (a command run right after another, or the
    /// service just stopped) lets go once sled's flusher thread has ended.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, false)
    }

    /// [`Store::open`] for the service: a database in a plain folder becomes the first
    /// generation of a compactable one first (see [`crate::compaction`]), and what an interrupted
    /// compaction left beside it is removed.
    pub fn open_compactable(path: &Path) -> Result<Store> {
        Store::open_with(path, true)
    }

    fn open_with(path: &Path, compactable: bool) -> Result<Store> {
        let layout_error = |source| StoreError::Layout { path: path.to_owned(), source };
        let folder = crate::compaction::settle_before_open(path, compactable).map_err(layout_error)?;
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        let db = loop {
            match open_sled(&folder) {
                Ok(db) => break db,
                Err(StoreError::Open { source, .. }) if source.to_string().contains("could not acquire lock") => {
                    if std::time::Instant::now() >= deadline {
                        return Err(StoreError::Locked { path: path.to_owned() });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(error) => return Err(error),
            }
        };
        crate::compaction::settle_after_open(path).map_err(layout_error)?;
        let store = Store::from_db(db, MIGRATIONS)?;
        let journal_path = SentJournal::path_for(path);
        let journal_error = |source| StoreError::Journal { path: journal_path.clone(), source };
        let (journal, replay) = SentJournal::open(&journal_path).map_err(journal_error)?;
        // Mail handed over before a crash that sled had not made durable yet leaves the queue
        // now, instead of going out again; mail whose hand-over the crash interrupted is kept
        // aside, never sent again.
        if !replay.is_empty() {
            for id in &replay.sent {
                store.writing()?.mail_queue.remove(id.to_be_bytes())?;
            }
            for id in &replay.interrupted {
                store.mail().move_to_dead(*id, MSG_HAND_OVER_INTERRUPTED)?;
                tracing::warn!(mail_id = id, "{MSG_HAND_OVER_INTERRUPTED}");
            }
            store.trees().flush()?;
            journal.empty_if_unchanged(journal.appended()).map_err(journal_error)?;
            tracing::info!(
                sent = replay.sent.len(),
                interrupted = replay.interrupted.len(),
                "the journal of handed-over mail was applied to the queue"
            );
        }
        Ok(Store { path: Some(path.to_owned()), sent_journal: Some(std::sync::Arc::new(journal)), ..store })
    }

    /// The same store, refusing every write with [`StoreError::DiskFull`] while the disk of its
    /// folder has less than `reserve_bytes` free (see [`crate::room`]); 0 never refuses.
    pub fn with_disk_reserve(self, reserve_bytes: u64) -> Store {
        let room = match &self.path {
            Some(path) => DiskRoom::new(path, reserve_bytes),
            None => DiskRoom::default(),
        };
        Store { room, ..self }
    }

    /// The room on the database's disk now.
    pub fn disk_room(&self) -> RoomStatus {
        self.room.status()
    }

    /// What the store uses to check the room before a write; shared with the index's writer,
    /// whose files sit on the same disk.
    pub fn room(&self) -> &DiskRoom {
        &self.room
    }

    /// A database that lives in a temporary directory and is gone when dropped; for tests.
    pub fn temporary() -> Result<Store> {
        let db = sled::Config::new().temporary(true).open()?;
        Store::from_db(db, MIGRATIONS)
    }

    fn from_db(db: sled::Db, migrations: &[Migration]) -> Result<Store> {
        let store = Store {
            trees: std::sync::Arc::new(arc_swap::ArcSwap::from_pointee(Trees::open(db)?)),
            adding_terms: std::sync::Arc::default(),
            unsubscribe_key: std::sync::Arc::default(),
            room: DiskRoom::default(),
            path: None,
            sent_journal: None,
            signed_in: Default::default(),
            gate: std::sync::Arc::default(),
            copying: std::sync::Arc::default(),
        };
        store.migrate(SCHEMA_VERSION, migrations)?;
        store.accounts().count_users_once()?;
        Ok(store)
    }

    /// A secret of this database named `name` (32 random bytes), made on first use.
    pub(crate) fn secret_key(&self, name: &[u8]) -> Result<Vec<u8>> {
        if let Some(key) = self.trees().meta.get(name)? {
            return Ok(key.to_vec());
        }
        let writer = self.writing()?;
        let mut fresh = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut fresh);
        // Two first uses at once keep whichever key was stored first.
        let _ = writer.meta.compare_and_swap(name, None as Option<&[u8]>, Some(fresh.as_slice()))?;
        writer.meta.flush()?;
        Ok(writer.meta.get(name)?.map(|key| key.to_vec()).unwrap_or_else(|| fresh.to_vec()))
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&self) -> Result<u32> {
        let stored = self.trees().meta.get(SCHEMA_VERSION_KEY)?;
        Ok(stored.and_then(|bytes| <[u8; 4]>::try_from(bytes.as_ref()).ok()).map_or(0, u32::from_be_bytes))
    }

    pub(crate) fn set_schema_version(&self, version: u32) -> Result<()> {
        self.writing()?.meta.insert(SCHEMA_VERSION_KEY, &version.to_be_bytes())?;
        Ok(())
    }

    /// Brings the database to `target`: a new database is stamped, an older one is migrated step
    /// by step (each step flushed), a newer one is refused untouched.
    pub(crate) fn migrate(&self, target: u32, migrations: &[Migration]) -> Result<()> {
        let is_new = self.trees().users.is_empty() && self.trees().meta.get(SCHEMA_VERSION_KEY)?.is_none();
        if is_new {
            self.set_schema_version(target)?;
            self.trees().flush()?;
            return Ok(());
        }
        let mut version = self.schema_version()?;
        if version > target {
            return Err(StoreError::SchemaTooNew { found: version, supported: target });
        }
        while version < target {
            if let Some(migration) = migrations.iter().find(|migration| migration.from == version) {
                tracing::info!(from = version, to = version + 1, "migrating database");
                (migration.apply)(self)?;
            }
            version += 1;
            self.set_schema_version(version)?;
            self.trees().flush()?;
        }
        Ok(())
    }

    /// Every stored entry as (tree name, key, value), trees in name order: what checks that a
    /// refused request changed nothing compare before and after.
    #[cfg(any(test, feature = "testsuite"))]
    pub fn raw_entries(&self) -> Result<Vec<RawEntry>> {
        let mut names = self.trees().tree_names();
        names.sort();
        let mut entries = Vec::new();
        for name in names {
            let tree = self.trees().open_tree(&name)?;
            let tree_name = String::from_utf8_lossy(&name).into_owned();
            for entry in tree.iter() {
                let (key, value) = entry?;
                entries.push((tree_name.clone(), key.to_vec(), value.to_vec()));
            }
        }
        Ok(entries)
    }

    /// Writes everything to disk; returns once it is durable.
    pub fn flush(&self) -> Result<()> {
        let journalled = self.journalled_entries();
        self.trees().flush()?;
        self.empty_sent_journal(journalled);
        Ok(())
    }

    /// [`Store::flush`] for async callers, on tokio's blocking threads (call it from a tokio
    /// runtime).
    ///
    /// Not sled's own `flush_async`: in sled 0.34 several of them at once can deadlock (every
    /// thread of sled's pool waits in `make_stable` for a write only a pool thread would do;
    /// sled issues 1241 and 1308, fixed on its main branch but never released). Requests that
    /// flush before they answer then never answered, and the service could not stop.
    pub async fn flush_async(&self) -> Result<()> {
        let store = self.clone();
        match tokio::task::spawn_blocking(move || store.flush()).await {
            Ok(flushed) => flushed,
            Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
            Err(_) => Err(StoreError::Sled(sled::Error::ReportableBug("the flush was cancelled".into()))),
        }
    }

    fn journalled_entries(&self) -> u64 {
        self.sent_journal.as_ref().map_or(0, |journal| journal.appended())
    }

    /// After a flush: the journal's first `journalled` entries are durable in the database. A
    /// journal that cannot be emptied only stays longer.
    fn empty_sent_journal(&self, journalled: u64) {
        if let Some(journal) = &self.sent_journal {
            if let Err(error) = journal.empty_if_unchanged(journalled) {
                tracing::warn!(%error, path = %journal.path().display(), "emptying the journal of handed-over mail");
            }
        }
    }

    /// Approximate bytes on disk, for `/metrics`.
    pub fn size_on_disk_bytes(&self) -> Result<u64> {
        self.trees().size_on_disk()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_marker(store: &Store) -> Result<()> {
        store.writing()?.meta.insert(b"migrated_from_1", b"yes")?;
        Ok(())
    }

    #[test]
    fn raw_entries_list_every_tree_s_entries_in_name_order() -> Result<()> {
        let store = Store::temporary()?;
        let empty = store.raw_entries()?;
        store.writing()?.users.insert(b"k", b"v")?;
        store.writing()?.preferences.insert(b"k", b"w")?;
        let written: Vec<RawEntry> = store.raw_entries()?.into_iter().filter(|entry| !empty.contains(entry)).collect();
        let expected = |tree: &str, value: &[u8]| (tree.to_owned(), b"k".to_vec(), value.to_vec());
        assert_eq!(written, vec![expected("user_preferences", b"w"), expected("users", b"v")]);
        Ok(())
    }

    #[test]
    fn a_database_made_before_accounts_were_counted_counts_them_once() -> Result<()> {
        let store = Store::temporary()?;
        store.writing()?.users.insert(b"a", b"1")?;
        store.writing()?.users.insert(b"b", b"2")?;
        store.writing()?.meta.remove(b"user_count")?;
        store.accounts().count_users_once()?;
        assert_eq!(store.accounts().user_count(), 2);
        store.writing()?.users.insert(b"c", b"3")?;
        store.accounts().count_users_once()?;
        assert_eq!(store.accounts().user_count(), 2, "counted once, then kept by each signup");
        Ok(())
    }

    #[test]
    fn a_new_database_is_stamped_with_the_current_version() -> Result<()> {
        let store = Store::temporary()?;
        assert_eq!(store.schema_version()?, SCHEMA_VERSION);
        Ok(())
    }

    #[test]
    fn older_databases_run_each_migration_once() -> Result<()> {
        let store = Store::temporary()?;
        let migrations = [Migration { from: SCHEMA_VERSION, apply: add_marker }];
        store.migrate(SCHEMA_VERSION + 1, &migrations)?;
        assert_eq!(store.schema_version()?, SCHEMA_VERSION + 1);
        assert!(store.trees().meta.get(b"migrated_from_1")?.is_some());
        store.writing()?.meta.remove(b"migrated_from_1")?;
        store.migrate(SCHEMA_VERSION + 1, &migrations)?;
        assert!(store.trees().meta.get(b"migrated_from_1")?.is_none(), "migration ran twice");
        Ok(())
    }

    #[test]
    fn newer_databases_are_refused() -> Result<()> {
        let store = Store::temporary()?;
        store.set_schema_version(SCHEMA_VERSION + 1)?;
        let refused = store.migrate(SCHEMA_VERSION, MIGRATIONS);
        assert!(matches!(refused, Err(StoreError::SchemaTooNew { .. })));
        Ok(())
    }
}
