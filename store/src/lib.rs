//! Papertide's database: one sled tree per entity plus secondary-index trees, values in CBOR.
//!
//! Guarantees: every multi-tree invariant (one account per normalized email, a user's current
//! token, the mail a signup queues) is written in one sled transaction, so a crash leaves either
//! all of it or none. Secrets are never stored: sessions and one-time tokens are kept by their
//! SHA-256 hash. Writers that must survive a crash call [`Store::flush`] before they answer.
//!
//! Architecture invariant: `store` knows nothing of HTTP or actors, and only `codec` touches
//! serde_cbor.

pub mod backup;
pub mod billing;
pub mod channels;
mod codec;
pub mod compaction;
mod db;
mod decoded;
pub mod digests;
mod error;
pub mod harvest;
pub mod ledger;
pub mod mail_queue;
pub mod pending;
pub mod plan_history;
pub mod preferences;
pub mod ratings;
pub mod rights;
pub mod room;
pub mod search_terms;
pub mod secret;
mod sent_journal;
pub mod sessions;
#[cfg(any(test, feature = "testsuite"))]
pub mod testsuite;
pub mod tokens;
pub mod users;
pub mod vectors;
mod views;

pub use backup::{database_is_locked, StoreCopy};
pub use channels::{ChannelPost, LabChannel, PostOutcome, MSG_POST_INTERRUPTED};
pub use compaction::Compaction;
pub use db::{RawEntry, Store, SCHEMA_VERSION};
pub use digests::{DigestStats, EntryKey, NewDigest, TextKey, UPGRADE_INVITE};
pub use error::StoreError;
pub use ledger::{paper_fingerprint, Commit, Ledger, SentPapers, UserDigests};
pub use mail_queue::{DigestMailRef, QueuedMail, MSG_HAND_OVER_INTERRUPTED};
pub use pending::{PendingSignup, SignupRestart, VERIFICATION_WINDOW_HOURS};
pub use plan_history::{PlanReason, PlanRecord};
pub use rights::UserData;
pub use room::{DiskRoom, RoomStatus};
pub use secret::TokenHash;
pub use sessions::Session;
#[cfg(any(test, feature = "testsuite"))]
pub use testsuite::DigestMail;
pub use tokens::TokenPurpose;
pub use users::PendingSeed;
pub use users::{NewAccount, User};
pub use vectors::{StoredVector, VectorStamp};
pub use views::{Accounts, Billing, Channels, Digests, Mail, Papers, Ratings, Terms};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
