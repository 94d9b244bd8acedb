//! Why a mail could not be handed over (and whether trying again can help), and why a digest
//! could not be built.

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// Worth retrying later: connection refused, timeout, 4xx answer, disk full.
    #[error("temporary mail failure: {0}")]
    Transient(String),
    /// Will never work: invalid address, 5xx rejection of the message.
    #[error("permanent mail failure: {0}")]
    Permanent(String),
}

impl MailError {
    pub fn is_permanent(&self) -> bool {
        matches!(self, MailError::Permanent(_))
    }
}

/// Why a digest could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    #[error("searching the paper index: {0}")]
    Index(#[from] index::IndexError),
    #[error("the database: {0}")]
    Store(#[from] store::StoreError),
    #[error("the digest of a queued mail, or its user, is gone")]
    Missing,
    #[error("{0}")]
    Stopped(String),
    #[error("embedding the topic: {0}")]
    Embedding(#[from] embed::EmbedError),
    #[error("the user's digests kept changing while this one was chosen ({0} tries)")]
    Busy(usize),
}
