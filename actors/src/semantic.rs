//! The semantic half of a term's ranking: the topic's vector, and the vectors of the papers in
//! a digest's window (made in the background by the [`crate::Vectorizer`] and kept in the
//! store), so the digester can find the papers closest in meaning to the topic and read each
//! candidate's similarity.
//!
//! Both are cached: a topic is embedded once (per model) however many users follow it, and a
//! window's vectors are read from the store once per index generation — again, at most every
//! [`REREAD_MISSING`], while some of its papers still wait for their vector.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use embed::Embedder;
use engine::paper::Source;
use engine::sync::lock;
use index::{PaperId, PaperIndex};
use store::Store;

use crate::error::DigestError;

/// A window whose papers are not all embedded yet is read again from the store at most this often.
pub const REREAD_MISSING: Duration = Duration::from_secs(30);
/// Topic vectors kept in memory; past it the cache starts afresh.
const TERMS_CACHED: usize = 100_000;

/// The embedding model and the caches of its vectors. Cheap to clone; clones share the caches.
#[derive(Clone)]
pub struct Semantic {
    embedder: Arc<Embedder>,
    store: Store,
    index: PaperIndex,
    terms: Arc<Mutex<HashMap<String, Arc<[f32]>>>>,
    windows: Arc<Mutex<HashMap<WindowKey, Arc<WindowVectors>>>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct WindowKey {
    since: NaiveDate,
    until: NaiveDate,
    sources: Vec<Source>,
    generation: u64,
}

/// The vectors of a window's papers, as far as they are made.
pub struct WindowVectors {
    vectors: HashMap<PaperId, Vec<f32>>,
    /// Papers of the window without a vector of this model yet.
    missing: Vec<PaperId>,
    read_at: Instant,
}

impl WindowVectors {
    /// The `k` papers closest to `query`, best first.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<(PaperId, f32)> {
        embed::nearest(query, self.vectors.iter().map(|(id, vector)| (*id, vector.as_slice())), k)
    }

    /// The vector of `id`, if it is made.
    pub fn vector(&self, id: PaperId) -> Option<&[f32]> {
        self.vectors.get(&id).map(Vec::as_slice)
    }

    /// How many of the window's papers have their vector.
    pub fn embedded(&self) -> usize {
        self.vectors.len()
    }
}

impl Semantic {
    pub fn new(embedder: Arc<Embedder>, store: Store, index: PaperIndex) -> Semantic {
        Semantic { embedder, store, index, terms: Arc::default(), windows: Arc::default() }
    }

    /// The model's fingerprint (the SHA-256 of its weights).
    pub fn fingerprint(&self) -> &str {
        self.embedder.fingerprint()
    }

    /// The vector of `term` (trimmed and lower-cased first: the same topic, one vector).
    pub fn term_vector(&self, term: &str) -> Result<Arc<[f32]>, DigestError> {
        let key = term.trim().to_lowercase();
        if let Some(vector) = lock(&self.terms).get(&key) {
            return Ok(Arc::clone(vector));
        }
        let vector: Arc<[f32]> = self.embedder.embed_query(&key).map_err(DigestError::Embedding)?.into();
        let mut terms = lock(&self.terms);
        if terms.len() >= TERMS_CACHED {
            terms.clear();
        }
        terms.insert(key, Arc::clone(&vector));
        Ok(vector)
    }

    /// The vectors of the papers that entered `sources` from `since` to `until` (inclusive).
    pub fn window(&self, since: NaiveDate, until: NaiveDate, sources: &[Source]) -> Result<Arc<WindowVectors>, DigestError> {
        let key = WindowKey { since, until, sources: sources.to_vec(), generation: self.index.generation() };
        let cached = lock(&self.windows).get(&key).cloned();
        let window = match cached {
            Some(window) if window.missing.is_empty() || window.read_at.elapsed() < REREAD_MISSING => return Ok(window),
            Some(window) => self.read_missing(&window)?,
            None => {
                let ids = self.index.ids_in_window(Some(since), Some(until), sources)?;
                self.read(&ids, HashMap::new())?
            }
        };
        let window = Arc::new(window);
        let mut windows = lock(&self.windows);
        // Windows of older index generations are never asked for again.
        windows.retain(|cached, _| cached.generation == key.generation);
        windows.insert(key, Arc::clone(&window));
        Ok(window)
    }

    /// `window` with the vectors made since it was read.
    fn read_missing(&self, window: &WindowVectors) -> Result<WindowVectors, DigestError> {
        self.read(&window.missing, window.vectors.clone())
    }

    /// Reads the vectors of `ids` into `vectors`.
    fn read(&self, ids: &[PaperId], mut vectors: HashMap<PaperId, Vec<f32>>) -> Result<WindowVectors, DigestError> {
        let raw: Vec<u64> = ids.iter().map(|id| id.get()).collect();
        for (id, vector) in self.store.papers().vectors_of_model(&raw, self.fingerprint())? {
            vectors.insert(PaperId::new(id), vector);
        }
        let missing = ids.iter().copied().filter(|id| !vectors.contains_key(id)).collect();
        Ok(WindowVectors { vectors, missing, read_at: Instant::now() })
    }
}
