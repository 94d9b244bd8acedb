//! Parsers for what the four sources answer. Each takes the raw body and returns the records it
//! could read plus a warning for each it could not; a bad record never sinks its batch.

pub mod arxiv;
pub mod biorxiv;
pub mod pubmed;
