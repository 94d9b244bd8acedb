//! Room on the data directory's disk. A store given a reserve refuses every write while the
//! disk holding its database has less than that free, with [`StoreError::DiskFull`], before
//! anything reaches sled.
//!
//! Why before: sled marks itself failed at the first write the disk refuses, and from then on
//! refuses every write until the database is opened again (a restart). Refusing early keeps the
//! database writable, so the service recovers on its own once space is freed. Reads go on.

use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::Result;

/// The free space a store keeps in reserve, and where it is measured.
#[derive(Debug, Clone, Default)]
pub struct DiskRoom {
    /// The database's folder; `None` for a temporary store, which never checks.
    path: Option<PathBuf>,
    reserve_bytes: u64,
}

/// The room on the disk now, for `/healthz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomStatus {
    /// Bytes an unprivileged writer may still use; `None` when it cannot be measured.
    pub available_bytes: Option<u64>,
    pub reserve_bytes: u64,
    /// Writes are accepted (always, with no reserve).
    pub writable: bool,
}

impl DiskRoom {
    /// Measures the disk of `path` and keeps `reserve_bytes` free (0: never refuses).
    pub fn new(path: &Path, reserve_bytes: u64) -> DiskRoom {
        DiskRoom { path: Some(path.to_owned()), reserve_bytes }
    }

    /// The room now. A disk that cannot be measured is taken as writable: the writes themselves
    /// then say what is wrong.
    pub fn status(&self) -> RoomStatus {
        let available_bytes = self.path.as_deref().and_then(|path| fs2::available_space(path).ok());
        let writable = self.reserve_bytes == 0 || available_bytes.is_none_or(|available| available >= self.reserve_bytes);
        RoomStatus { available_bytes, reserve_bytes: self.reserve_bytes, writable }
    }

    /// `Ok` when a write may go ahead; [`StoreError::DiskFull`] while the disk is under the
    /// reserve.
    pub fn ensure(&self) -> Result<()> {
        if self.reserve_bytes == 0 {
            return Ok(());
        }
        match self.status() {
            RoomStatus { writable: true, .. } => Ok(()),
            RoomStatus { available_bytes, reserve_bytes, .. } => {
                Err(StoreError::DiskFull { available_bytes: available_bytes.unwrap_or(0), reserve_bytes })
            }
        }
    }
}

/// Whether an I/O error says the disk (or the user's quota) is full.
pub fn is_disk_full_io(error: &std::io::Error) -> bool {
    matches!(error.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_reserve_never_refuses() {
        let folder = tempfile::tempdir().expect("folder");
        assert!(DiskRoom::new(folder.path(), 0).ensure().is_ok());
        assert!(DiskRoom::default().ensure().is_ok());
        assert!(DiskRoom::default().status().writable);
    }

    #[test]
    fn a_reserve_larger_than_the_disk_refuses_and_says_how_much_is_free() {
        let folder = tempfile::tempdir().expect("folder");
        let room = DiskRoom::new(folder.path(), u64::MAX);
        let status = room.status();
        assert!(!status.writable);
        assert!(status.available_bytes.is_some());
        match room.ensure() {
            Err(StoreError::DiskFull { available_bytes, reserve_bytes }) => {
                assert_eq!(Some(available_bytes), status.available_bytes);
                assert_eq!(reserve_bytes, u64::MAX);
            }
            other => panic!("expected DiskFull, got {other:?}"),
        }
    }

    #[test]
    fn a_small_reserve_lets_writes_through() {
        let folder = tempfile::tempdir().expect("folder");
        assert!(DiskRoom::new(folder.path(), 1).ensure().is_ok());
    }
}
