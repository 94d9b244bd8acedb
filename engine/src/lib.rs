//! Papertide's domain as plain code: accounts and plans, the spec's validation rules with their
//! exact messages, the rendering of every mail the service sends, and papers: the model, the
//! parsers of the four sources' responses, deduplication, and the text each is embedded from;
//! and the checks made on Stripe's webhook before one of its events is trusted; ratings of
//! papers and the signed rating links of the digest mail; the ranking recipe (`recipe`), the plan
//! transitions (`billing::transition`) and the free plan's allowance (`digest::allowance`); the
//! papers a term is seeded from (`seed`: pasted ids, BibTeX, RIS and PubMed exports), and a
//! digest's papers in other forms: citations for reference managers (`citation`: BibTeX, RIS,
//! HighWire tags, COinS), Atom feeds (`feed`) and lab-chat webhook messages with the checks on
//! their URLs (`channel`).
//!
//! Architecture invariant: `engine` does no I/O and never reads the clock or a random source;
//! callers pass `now`, ids and tokens in. It knows nothing of HTTP, sled or actors. (`sync` holds
//! the one poison-recovering lock helper every crate takes its locks with, `backoff` the one
//! retry backoff.)

pub mod account;
pub mod backoff;
pub mod billing;
pub mod channel;
pub mod citation;
pub mod concepts;
pub mod dedup;
pub mod digest;
pub mod digest_text;
pub mod embedding;
pub mod error;
pub mod expansion;
pub mod feed;
pub mod feedback;
pub mod harvest;
pub mod live_search;
pub mod llm;
pub mod mail;
pub mod paper;
pub mod parse;
pub mod plain_text;
pub mod ranking;
pub mod rating;
pub mod recipe;
pub mod scoring;
pub mod search_term;
pub mod seed;
pub mod signed;
pub mod stripe_webhook;
pub mod summary;
pub mod sync;
pub mod validation;
pub mod window;

pub use account::{DeliveryDay, Preferences, ResearchField, Tier, UserId};
pub use error::{FieldError, ValidationErrors};
