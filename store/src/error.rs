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
    #[error("the stored {0} is damaged")]
    Corrupt(&'static str),
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
