//! Seeds: the papers a researcher already knows, given when a term is made or later, that the
//! term takes for papers rated relevant from its first digest on.
//!
//! A researcher pastes identifiers, one per line (DOIs, PMIDs, arXiv ids, or their links), and/or
//! uploads a BibTeX or RIS export; [`parse_seeds`] reads them into [`SeedId`]s, each with where it
//! was given, or says what is wrong with each line that cannot be read. Looking the papers up
//! (the index first, then their source) is the caller's.

use serde::{Deserialize, Serialize};

use crate::dedup::DedupKey;

/// One paper identifier a seed names, normalized as the index keys papers: DOIs lower-case
/// without resolver prefix, arXiv ids without `arXiv:` and without version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeedId {
    Doi(String),
    Pmid(String),
    Arxiv(String),
}

impl SeedId {
    /// The index's key for this identifier.
    pub fn key(&self) -> DedupKey {
        match self {
            SeedId::Doi(doi) => DedupKey::Doi(doi.clone()),
            SeedId::Pmid(pmid) => DedupKey::Pmid(pmid.clone()),
            SeedId::Arxiv(arxiv) => DedupKey::Arxiv(arxiv.clone()),
        }
    }
}
