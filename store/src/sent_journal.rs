//! The journal of handed-over mail: closes the window in which a killed process would send a
//! mail again.
//!
//! sled keeps a write in its own memory until the next flush, so a mail removed from the queue
//! and then lost to a SIGKILL before the flush's fsync ended would be sent again at the next
//! start. An fsync takes milliseconds, as long as handing a mail to a local SMTP server, so a
//! process killed at a random moment of a busy mailer lands in that window often.
//!
//! [`Store::mark_mail_sent`](crate::Store::mark_mail_sent) therefore first appends the mail's id
//! (8 bytes, one `write` to a file opened for appending) to this journal beside the database. A
//! `write` that returned is in the kernel's page cache and survives the process being killed,
//! so the window shrinks to the microseconds between the SMTP server's acceptance and that
//! call. Opening the store takes every journalled mail out of the queue, flushes, and empties
//! the journal; every later flush empties it too when nothing was appended meanwhile. A power
//! cut can still lose an unflushed entry, as it could lose sled's write: against that, the
//! mailer's flush after each mail is what counts, as before.
//!
//! A record is the id in big-endian order; a partial record at the end (a write the kernel did
//! not finish) is ignored: that mail's id was never journalled.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

const RECORD: usize = 8;

#[derive(Debug)]
pub(crate) struct SentJournal {
    path: PathBuf,
    /// The open file and the bytes written to it since it was last emptied.
    file: Mutex<(File, u64)>,
}

impl SentJournal {
    /// Opens (or creates) the journal at `path`, answering it and the ids it holds.
    pub(crate) fn open(path: &Path) -> std::io::Result<(SentJournal, Vec<u64>)> {
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let ids = bytes.chunks_exact(RECORD).map(|record| u64::from_be_bytes(record.try_into().expect("8 bytes"))).collect();
        let journal = SentJournal { path: path.to_owned(), file: Mutex::new((file, bytes.len() as u64)) };
        Ok((journal, ids))
    }

    /// The journal's path for the database at `db_path`: beside it, named after it.
    pub(crate) fn path_for(db_path: &Path) -> PathBuf {
        let mut name = db_path.file_name().map(|name| name.to_os_string()).unwrap_or_else(|| "db".into());
        name.push(".mail-sent");
        db_path.with_file_name(name)
    }

    /// Holds the journal: appends and the removal they stand for happen under it, so a flush
    /// that reads [`SentJournal::written`] under it covers every journalled removal.
    pub(crate) fn lock(&self) -> MutexGuard<'_, (File, u64)> {
        self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends `id` in one `write`.
    pub(crate) fn append(held: &mut MutexGuard<'_, (File, u64)>, id: u64) -> std::io::Result<()> {
        let (file, written) = &mut **held;
        file.write_all(&id.to_be_bytes())?;
        *written += RECORD as u64;
        Ok(())
    }

    /// The bytes written since the journal was last emptied.
    pub(crate) fn written(&self) -> u64 {
        self.lock().1
    }

    /// Empties the journal if nothing was appended since it held `written` bytes (every entry
    /// up to then being durable in the database).
    pub(crate) fn empty_if_unchanged(&self, written: u64) -> std::io::Result<()> {
        let mut held = self.lock();
        if held.1 != written || written == 0 {
            return Ok(());
        }
        held.0.set_len(0)?;
        held.1 = 0;
        Ok(())
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_survive_a_reopen_and_a_partial_record_is_ignored() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = SentJournal::path_for(&dir.path().join("db"));
        assert_eq!(path, dir.path().join("db.mail-sent"));
        let (journal, ids) = SentJournal::open(&path)?;
        assert!(ids.is_empty());
        SentJournal::append(&mut journal.lock(), 7)?;
        SentJournal::append(&mut journal.lock(), 1 << 40)?;
        drop(journal);
        OpenOptions::new().append(true).open(&path)?.write_all(&[0, 0, 1])?;
        let (journal, ids) = SentJournal::open(&path)?;
        assert_eq!(ids, [7, 1 << 40]);
        assert_eq!(journal.written(), 19);
        Ok(())
    }

    #[test]
    fn it_is_emptied_only_when_nothing_was_appended_since() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (journal, _) = SentJournal::open(&dir.path().join("db.mail-sent"))?;
        SentJournal::append(&mut journal.lock(), 1)?;
        let before_flush = journal.written();
        SentJournal::append(&mut journal.lock(), 2)?;
        journal.empty_if_unchanged(before_flush)?;
        assert_eq!(SentJournal::open(journal.path())?.1, [1, 2], "an entry appended during the flush is kept");
        journal.empty_if_unchanged(journal.written())?;
        assert!(SentJournal::open(journal.path())?.1.is_empty());
        Ok(())
    }
}
