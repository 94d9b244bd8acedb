//! What can go wrong in the store, by what was being done.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the database at {path} is in use by another papertide process; stop it first")]
    Locked { path: PathBuf },
    #[error("opening the database at {path}: {source}")]
    Open { path: PathBuf, source: sled::Error },
    #[error("the database has schema version {found}, newer than this binary's {supported}; use a newer papertide")]
    SchemaTooNew { found: u32, supported: u32 },
    #[error("the journal of handed-over mail at {path}: {source}")]
    Journal { path: PathBuf, source: std::io::Error },
    #[error("database: {0}")]
    Sled(#[from] sled::Error),
    #[error("encoding a {what}: {source}")]
    Encode { what: &'static str, source: serde_cbor::Error },
    #[error("decoding a stored {what}: {source}")]
    Decode { what: &'static str, source: serde_cbor::Error },
    #[error("an account with this email already exists")]
    DuplicateEmail,
    #[error("no account with that id or email")]
    UserNotFound,
    #[error("no such {0}")]
    NotFound(&'static str),
    #[error("the stored {0} is damaged")]
    Corrupt(&'static str),
    #[error("arranging the database's folders at {path}: {source}")]
    Layout { path: PathBuf, source: std::io::Error },
    #[error("the data directory's disk has {available_bytes} bytes free, under the {reserve_bytes} kept in reserve; nothing was written")]
    DiskFull { available_bytes: u64, reserve_bytes: u64 },
}

impl StoreError {
    /// The disk is full: under the store's reserve, or a write the disk itself refused. Either
    /// way nothing of the failed write was kept, and the same write can be tried again later.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::DiskFull { .. } => true,
            StoreError::Sled(sled::Error::Io(io)) | StoreError::Open { source: sled::Error::Io(io), .. } => crate::room::is_disk_full_io(io),
            _ => false,
        }
    }
}

impl From<sled::transaction::TransactionError<StoreError>> for StoreError {
    fn from(error: sled::transaction::TransactionError<StoreError>) -> Self {
        match error {
            sled::transaction::TransactionError::Abort(inner) => inner,
            sled::transaction::TransactionError::Storage(storage) => StoreError::Sled(storage),
        }
    }
}

/// Inside a transaction, our errors abort it.
pub(crate) fn abort(error: StoreError) -> sled::transaction::ConflictableTransactionError<StoreError> {
    sled::transaction::ConflictableTransactionError::Abort(error)
}
