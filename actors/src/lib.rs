//! Papertide's runtime: actix actors that own long-lived resources and periodic work.
//!
//! ```mermaid
//! flowchart LR
//!     web[web handlers] -- "DrainQueue (try_send, mailbox 16)" --> mailer[Mailer]
//!     web -- "enqueue in the same sled transaction as the change" --> queue[(sled mail_queue)]
//!     mailer -- "reads due mail, removes it once handed over" --> queue
//!     mailer -- "SMTP (lettre) or .eml file" --> out((recipient / outbox))
//!     timer[interval 5 s] -. DrainQueue .-> mailer
//!     hourly[interval 1 h] -. PurgeExpired .-> janitor[Janitor]
//!     janitor -- "drops expired sessions and tokens" --> db[(sled)]
//!     mailer & janitor -- status --> board[StatusBoard] --> health["/healthz, /metrics"]
//!     slot[daily slot / backoff] -. run .-> harvester["Harvester ×4 (one per source)"]
//!     harvester -- "fetch one day (paced, retried)" --> src((PubMed, arXiv, bioRxiv, medRxiv))
//!     harvester -- "Ingest(≤ 5,000 papers), awaited" --> indexer["Indexer (own thread)"]
//!     indexer -- "upsert + commit" --> tantivy[(paper index)]
//!     harvester -- "HarvestState after every day" --> harvest_state[(sled harvest_state)]
//!     harvester & indexer -- status --> board
//!     check[interval 10 s] -. "CheckIndex (no outside sender)" .-> vectorizer["Vectorizer (own thread)"]
//!     vectorizer -- "new commits: works newest first, papers by id" --> tantivy
//!     vectorizer -- "EmbedNextBatch to itself: ≤ 32 papers a step" --> model((embedding model, every core))
//!     vectorizer -- "vectors, one batch a write" --> paper_vectors[(sled paper_vectors)]
//!     vectorizer -- status --> board
//!     sched[Scheduler, every 5 min] -- "due users, batches of 256, one thread per core" --> weekly[weekly pass]
//!     weekly -- "choose from the shared rankings" --> digester
//!     weekly -- "one commit_digests transaction per batch" --> db
//!     web -- "Immediate(user, term)" --> users
//!     users -- "blocking pool, ≤ one per core" --> digester[Digester] -- "digest + sent papers + mail ref, one transaction" --> db
//!     digester -- "search, once per term a day" --> tantivy
//!     users -- "immediate, index thin on the term: LiveSearch, once per term and source a day, ≤ 20 s" --> src
//!     users -- "Ingest(live papers), awaited before the digest" --> indexer
//!     seeds[SeedLookup] -- "ids not in the index: PubMed, arXiv, bioRxiv/medRxiv, Crossref, ≤ 30 s" --> src
//!     seeds -- "Ingest(seed papers), awaited before the answer" --> indexer
//! ```
//!
//! Supervision policy: every actor runs under an actix `Supervisor`; an actor that reaches a
//! state it cannot continue from stops itself, and the supervisor restarts it, counting the
//! restart on the [`StatusBoard`]. Handlers never panic on bad data: they record the error and
//! go on. Business rules live in `engine`; actors decode messages, call `engine` and `store`,
//! and report.
//!
//! Architecture invariant: exactly one actor (the [`Mailer`]) owns the mail transport; mail is
//! sent only from the durable queue, never directly from a request.
//!
//! Architecture invariant: exactly one actor (the [`Indexer`]) writes the paper index; a
//! harvest run is a task of its own, so an error or panic in one source's run ends that run
//! only. Live search (`live`) and seed lookups (`seeds`) hand their papers to the same indexer.
//!
//! Architecture invariant: exactly one actor (the [`Vectorizer`]) writes paper vectors, each
//! paper embedded once per model and text, on a thread of its own, one batch per message.

pub mod channels;
pub mod digester;
mod error;
pub mod harvester;
pub mod indexer;
pub mod janitor;
pub mod live;
pub mod llm;
pub mod mailer;
pub mod scheduler;
pub mod seeds;
pub mod semantic;
pub mod smtp;
pub mod sources;
pub mod status;
pub mod users;
pub mod vectorizer;
pub mod weekly;

pub use channels::{ChannelConfig, ChannelPoster, PostDue};
pub use digester::{Chosen, DigestOutcome, DigestRenderer, Digester, RatedTerm, Reader};
pub use error::{DigestError, MailError};
pub use harvester::{harvest_days, HarvestNow, HarvestSchedule, Harvester, PaperSource, PreprintServer, RunProgress, RunReport};
pub use indexer::{index_papers, CopyIndex, Indexer, IndexerError, Ingest, IngestCounts};
pub use janitor::{Janitor, PurgeExpired};
pub use live::{LiveQuery, LiveReport, LiveSearch};
pub use llm::{Llm, LlmConfig, LlmError, LlmStats, ModelClass};
pub use mailer::{DrainQueue, MailTransport, Mailer, MailerConfig};
pub use scheduler::{RunDue, ScheduleConfig, Scheduler};
pub use seeds::{SeedFound, SeedLookup, SeedOutcome};
pub use status::{ActorStatus, StatusBoard};
pub use users::UserActors;
pub use vectorizer::{CheckIndex, DocumentEmbedder, Vectorizer, VectorizerConfig, VectorizerError, VectorizerThread};
pub use weekly::WeeklyError;
