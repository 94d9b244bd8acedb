//! Why a mail could not be handed over, and whether trying again can help.

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
