//! A consistent copy of the database while the service runs.
//!
//! sled has no snapshots, and reading tree after tree while requests write would catch a
//! transaction over several trees half done. So every write holds the store's [`WriteGate`]
//! shared for its whole duration ([`Store::writing`]), and [`Store::backup_to`] holds it
//! exclusively: no write is under way while it flushes and copies, and the copy is the database
//! as it was at one instant between two writes — what a crash at that instant would have left,
//! which the service already recovers from. Writes wait while the copy is made.
//!
//! The journal of handed-over mail (see [`crate::sent_journal`]) is copied beside the copy's
//! folder, so that the restored queue does not send again a mail the service had handed over.

use std::cell::Cell;
use std::path::Path;

use parking_lot::{RwLock, RwLockReadGuard};

use crate::error::StoreError;
use crate::sent_journal::SentJournal;
use crate::{Result, Store};

/// Entries written to the copy in one batch.
const COPY_BATCH_ENTRIES: usize = 10_000;

/// What [`Store::backup_to`] copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreCopy {
    /// Accounts in the copy.
    pub users: u64,
    /// Entries in every tree of the copy.
    pub entries: u64,
    /// Trees copied.
    pub trees: usize,
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
    /// holds the write gate until the answer is dropped. Every public method that writes calls
    /// it first and keeps the answer to its end.
    pub(crate) fn writing(&self) -> Result<Writing<'_>> {
        self.room.ensure()?;
        Ok(self.gate.hold())
    }

    /// Copies the database into `dest_db_dir` (a new sled folder; it must not hold a database)
    /// as it is at one instant, and the journal of handed-over mail beside it. Writes wait until
    /// the copy is flushed.
    pub fn backup_to(&self, dest_db_dir: &Path) -> Result<StoreCopy> {
        let _exclusive = self.gate.lock.write();
        self.flush()?;
        let copy = sled::Config::new().path(dest_db_dir).open().map_err(|source| StoreError::Open { path: dest_db_dir.to_owned(), source })?;
        let mut names = self.db.tree_names();
        names.sort();
        let mut entries = 0u64;
        for name in &names {
            let source_tree = self.db.open_tree(name)?;
            let copy_tree = copy.open_tree(name)?;
            let mut batch = sled::Batch::default();
            let mut in_batch = 0;
            for entry in source_tree.iter() {
                let (key, value) = entry?;
                batch.insert(key, value);
                in_batch += 1;
                entries += 1;
                if in_batch == COPY_BATCH_ENTRIES {
                    copy_tree.apply_batch(std::mem::take(&mut batch))?;
                    in_batch = 0;
                }
            }
            copy_tree.apply_batch(batch)?;
        }
        copy.flush()?;
        drop(copy);
        if let Some(journal) = &self.sent_journal {
            let journal_path = SentJournal::path_for(dest_db_dir);
            let journal_error = |source| StoreError::Journal { path: journal_path.clone(), source };
            let contents = journal.contents().map_err(journal_error)?;
            write_durably(&journal_path, &contents).map_err(journal_error)?;
        }
        Ok(StoreCopy { users: self.user_count() as u64, entries, trees: names.len() })
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
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

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
        let user = store.create_account(account, now)?;
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, format!("topic {thread} {n}"), Tier::Free, now);
        store.add_search_term(&term, Tier::Free, false)?;
        Ok(())
    }

    /// Every multi-tree invariant of the copy: each address names its account, the count is the
    /// accounts', each term of a user's list exists.
    fn check_invariants(copy: &Store) -> Result<()> {
        let users = copy.users()?;
        assert_eq!(copy.user_count(), users.len(), "the account count is the accounts'");
        assert_eq!(copy.users_by_email.len(), users.len(), "one address per account");
        for entry in copy.users_by_email.iter() {
            let (_, id) = entry?;
            assert!(copy.users.get(&id)?.is_some(), "an address without its account");
        }
        for entry in copy.search_terms_by_user.iter() {
            let (key, _) = entry?;
            assert!(copy.search_terms.get(&key[16..])?.is_some(), "a user's term without its record");
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
            while store.user_count() < (backup + 1) * 5 {
                std::thread::yield_now();
            }
            let dest = folder.path().join(format!("backup-{backup}"));
            let copied = store.backup_to(&dest)?;
            let copy = Store::open(&dest)?;
            assert_eq!(copy.user_count() as u64, copied.users);
            check_invariants(&copy)?;
            assert_eq!(copy.mail_queue_len(), copy.user_count(), "each signup's mail is there with its account");
            counts.push(copied.users);
        }
        stop.store(true, Ordering::SeqCst);
        for writer in writers {
            writer.join().expect("a writer panicked")?;
        }
        assert!(counts.windows(2).all(|pair| pair[0] <= pair[1]), "backups go forward: {counts:?}");
        Ok(())
    }

    #[test]
    fn the_journal_of_handed_over_mail_goes_with_the_copy() -> Result<()> {
        let folder = tempfile::tempdir().map_err(|source| StoreError::Journal { path: "tempdir".into(), source })?;
        let store = Store::open(&folder.path().join("db"))?;
        let id = store.enqueue_mail(&mail("a@example.org"), Utc::now())?;
        store.mark_mail_handing_over(id);
        let dest = folder.path().join("copy");
        store.backup_to(&dest)?;
        let copy = Store::open(&dest)?;
        assert_eq!(copy.mail_queue_len(), 0, "a mail being handed over is not sent again from the copy");
        assert_eq!(copy.dead_mail_len(), 1, "it is kept aside for the operator");
        Ok(())
    }
}
