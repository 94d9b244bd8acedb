//! The journal of handed-over mail: closes the window in which a killed process would send a
//! mail again.
//!
//! sled keeps a write in its own memory until the next flush, so a mail removed from the queue
//! and then lost to a SIGKILL before the flush's fsync ended would be sent again at the next
//! start. An fsync takes milliseconds, as long as handing a mail to a local SMTP server, so a
//! process killed at a random moment of a busy mailer lands in that window often. And between
//! the moment an SMTP server accepts a mail and the moment the mailer hears of it, the process
//! can die too.
//!
//! So the mailer writes here, each time with one `write` to a file opened for appending (which,
//! once returned, is in the kernel's page cache and survives the process being killed):
//!
//! - [`Entry::HandingOver`] just before the message itself goes to the SMTP server, after the
//!   server took the envelope ([`Mail::mark_handing_over`](crate::Mail::mark_handing_over));
//! - [`Entry::NotHandedOver`] when that attempt failed, so the mail stays queued for its retry;
//! - [`Entry::Sent`] once the server (or the outbox) took it, just before the mail leaves the
//!   queue ([`Mail::mark_sent`](crate::Mail::mark_sent)).
//!
//! Opening the store reads the journal: a sent mail leaves the queue; a mail whose hand-over
//! was interrupted (neither sent nor failed) may or may not have reached the server, and is
//! never sent again: it moves to the dead mail with a reason saying so. A mail can therefore be
//! missed by a crash at that one moment (and is then kept, visible to the operator), but never
//! sent twice. The journal is then emptied, and every later flush empties it too when nothing
//! was appended meanwhile. A power cut can still lose an unflushed entry, as it could lose
//! sled's write: against that, the mailer's flush after each mail is what counts, as before.
//!
//! A record is 8 bytes, big-endian: the entry's kind in the top two bits (0: sent, so that a
//! journal written before the other kinds existed reads the same; 1: handing over; 2: not
//! handed over) and the mail's id in the other 62. A partial record at the end (a write the
//! kernel did not finish) is ignored: that entry was never made.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

const RECORD: usize = 8;
const KIND_SHIFT: u32 = 62;
const ID_MASK: u64 = (1 << KIND_SHIFT) - 1;

/// One record of the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The transport accepted the mail.
    Sent(u64),
    /// The message itself is going to the SMTP server now.
    HandingOver(u64),
    /// The attempt that was handing the mail over failed: it is still to be sent.
    NotHandedOver(u64),
}

impl Entry {
    fn to_record(self) -> std::io::Result<[u8; RECORD]> {
        let (kind, id) = match self {
            Entry::Sent(id) => (0, id),
            Entry::HandingOver(id) => (1, id),
            Entry::NotHandedOver(id) => (2, id),
        };
        if id > ID_MASK {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("mail id {id} does not fit a journal record")));
        }
        Ok(((kind << KIND_SHIFT) | id).to_be_bytes())
    }

    fn from_record(record: [u8; RECORD]) -> Option<Entry> {
        let value = u64::from_be_bytes(record);
        let id = value & ID_MASK;
        match value >> KIND_SHIFT {
            0 => Some(Entry::Sent(id)),
            1 => Some(Entry::HandingOver(id)),
            2 => Some(Entry::NotHandedOver(id)),
            _ => None,
        }
    }
}

/// What a journal says of the mails it names, read in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Replay {
    /// Accepted by the transport: they leave the queue.
    pub(crate) sent: Vec<u64>,
    /// Being handed over when the process stopped: never sent again.
    pub(crate) interrupted: Vec<u64>,
}

impl Replay {
    fn of(entries: impl IntoIterator<Item = Entry>) -> Replay {
        let mut sent = Vec::new();
        let mut handing_over: Vec<u64> = Vec::new();
        for entry in entries {
            match entry {
                Entry::Sent(id) => {
                    handing_over.retain(|other| *other != id);
                    sent.push(id);
                }
                Entry::HandingOver(id) => handing_over.push(id),
                Entry::NotHandedOver(id) => handing_over.retain(|other| *other != id),
            }
        }
        sent.sort_unstable();
        sent.dedup();
        handing_over.retain(|id| sent.binary_search(id).is_err());
        Replay { sent, interrupted: handing_over }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sent.is_empty() && self.interrupted.is_empty()
    }
}

#[derive(Debug)]
pub(crate) struct SentJournal {
    path: PathBuf,
    held: Mutex<Held>,
}

/// The journal's file and what was written to it, under its lock.
#[derive(Debug)]
pub(crate) struct Held {
    file: File,
    /// Entries appended since the journal was opened; never goes down, so a flush that read it
    /// before it began knows whether anything was appended since.
    appended: u64,
    /// The file's length.
    len: u64,
    /// The mails being handed over now (at most one: the mailer sends one at a time).
    handing_over: Vec<u64>,
}

impl SentJournal {
    /// Opens (or creates) the journal at `path`, answering it and what its entries say.
    pub(crate) fn open(path: &Path) -> std::io::Result<(SentJournal, Replay)> {
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let entries = bytes.chunks_exact(RECORD).filter_map(|record| Entry::from_record(record.try_into().ok()?));
        let replay = Replay::of(entries);
        let held = Held { file, appended: 0, len: bytes.len() as u64, handing_over: Vec::new() };
        Ok((SentJournal { path: path.to_owned(), held: Mutex::new(held) }, replay))
    }

    /// The journal's path for the database at `db_path`: beside it, named after it.
    pub(crate) fn path_for(db_path: &Path) -> PathBuf {
        let mut name = db_path.file_name().map(|name| name.to_os_string()).unwrap_or_else(|| "db".into());
        name.push(".mail-sent");
        db_path.with_file_name(name)
    }

    /// Holds the journal: appends and the removal they stand for happen under it, so a flush
    /// that reads [`SentJournal::appended`] under it covers every journalled removal.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Held> {
        engine::sync::lock(&self.held)
    }

    /// Appends `entry` in one `write`.
    pub(crate) fn append(held: &mut MutexGuard<'_, Held>, entry: Entry) -> std::io::Result<()> {
        held.file.write_all(&entry.to_record()?)?;
        held.appended += 1;
        held.len += RECORD as u64;
        match entry {
            Entry::HandingOver(id) => held.handing_over.push(id),
            Entry::Sent(id) | Entry::NotHandedOver(id) => held.handing_over.retain(|other| *other != id),
        }
        Ok(())
    }

    /// How many entries were appended since the journal was opened.
    pub(crate) fn appended(&self) -> u64 {
        self.lock().appended
    }

    /// Empties the journal if nothing was appended since [`SentJournal::appended`] answered
    /// `appended` (every entry up to then being durable in the database), and no mail is being
    /// handed over now: that entry must outlive any flush until its outcome is journalled (the
    /// mailer flushes then, and the journal is emptied at that flush).
    pub(crate) fn empty_if_unchanged(&self, appended: u64) -> std::io::Result<()> {
        let mut held = self.lock();
        if held.appended != appended || held.len == 0 || !held.handing_over.is_empty() {
            return Ok(());
        }
        held.file.set_len(0)?;
        held.len = 0;
        Ok(())
    }

    /// The journal file's length, in bytes.
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.lock().len
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The journal's entries as they are on disk now (under its lock: no entry half-written).
    pub(crate) fn contents(&self) -> std::io::Result<Vec<u8>> {
        let _held = self.lock();
        std::fs::read(&self.path)
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
        let (journal, replay) = SentJournal::open(&path)?;
        assert!(replay.is_empty());
        SentJournal::append(&mut journal.lock(), Entry::Sent(1 << 40))?;
        SentJournal::append(&mut journal.lock(), Entry::Sent(7))?;
        drop(journal);
        OpenOptions::new().append(true).open(&path)?.write_all(&[0, 0, 1])?;
        let (journal, replay) = SentJournal::open(&path)?;
        assert_eq!(replay, Replay { sent: vec![7, 1 << 40], interrupted: vec![] });
        assert_eq!(journal.len(), 19);
        Ok(())
    }

    #[test]
    fn a_hand_over_neither_sent_nor_failed_was_interrupted() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("db.mail-sent");
        let (journal, _) = SentJournal::open(&path)?;
        for entry in [
            // Handed over and accepted.
            Entry::HandingOver(1),
            Entry::Sent(1),
            // Failed, retried, then accepted.
            Entry::HandingOver(2),
            Entry::NotHandedOver(2),
            Entry::HandingOver(2),
            Entry::Sent(2),
            // Failed, and still queued for its retry.
            Entry::HandingOver(3),
            Entry::NotHandedOver(3),
            // Written to the outbox (no hand-over).
            Entry::Sent(4),
            // The process died while this one went to the server.
            Entry::HandingOver(5),
        ] {
            SentJournal::append(&mut journal.lock(), entry)?;
        }
        let (_, replay) = SentJournal::open(&path)?;
        assert_eq!(replay, Replay { sent: vec![1, 2, 4], interrupted: vec![5] });
        Ok(())
    }

    #[test]
    fn records_keep_their_kind_and_a_journal_of_bare_ids_reads_as_sent() -> std::io::Result<()> {
        for entry in [Entry::Sent(0), Entry::HandingOver(ID_MASK), Entry::NotHandedOver(12_345)] {
            assert_eq!(Entry::from_record(entry.to_record()?), Some(entry));
        }
        assert_eq!(Entry::from_record(99u64.to_be_bytes()), Some(Entry::Sent(99)));
        assert_eq!(Entry::from_record(u64::MAX.to_be_bytes()), None, "an unknown kind is skipped");
        assert!(Entry::Sent(ID_MASK + 1).to_record().is_err());
        Ok(())
    }

    #[test]
    fn it_is_emptied_only_when_nothing_was_appended_since() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (journal, _) = SentJournal::open(&dir.path().join("db.mail-sent"))?;
        SentJournal::append(&mut journal.lock(), Entry::Sent(1))?;
        let before_flush = journal.appended();
        SentJournal::append(&mut journal.lock(), Entry::Sent(2))?;
        journal.empty_if_unchanged(before_flush)?;
        assert_eq!(SentJournal::open(journal.path())?.1.sent, [1, 2], "an entry appended during the flush is kept");
        journal.empty_if_unchanged(journal.appended())?;
        assert!(SentJournal::open(journal.path())?.1.is_empty());

        // A flush that began before another one emptied the journal and more was appended: the
        // count it read is not the journal's any more, even with as many entries in the file.
        SentJournal::append(&mut journal.lock(), Entry::Sent(3))?;
        let slow_flush = journal.appended();
        journal.empty_if_unchanged(journal.appended())?;
        SentJournal::append(&mut journal.lock(), Entry::Sent(4))?;
        journal.empty_if_unchanged(slow_flush)?;
        assert_eq!(SentJournal::open(journal.path())?.1.sent, [4]);
        Ok(())
    }

    #[test]
    fn a_hand_over_in_progress_outlives_every_flush_until_its_outcome() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let (journal, _) = SentJournal::open(&dir.path().join("db.mail-sent"))?;
        SentJournal::append(&mut journal.lock(), Entry::Sent(1))?;
        SentJournal::append(&mut journal.lock(), Entry::HandingOver(2))?;
        journal.empty_if_unchanged(journal.appended())?;
        assert_eq!(SentJournal::open(journal.path())?.1.interrupted, [2], "another request's flush kept the hand-over");
        SentJournal::append(&mut journal.lock(), Entry::Sent(2))?;
        journal.empty_if_unchanged(journal.appended())?;
        assert!(SentJournal::open(journal.path())?.1.is_empty());
        Ok(())
    }
}
