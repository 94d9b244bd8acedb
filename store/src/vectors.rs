//! Papers' sentence-embedding vectors (`paper_vectors`): one per work of the paper index, keyed
//! by its id (u64 big-endian), with the model that made it (the weights' fingerprint) and the
//! hash of the text it was made from (`engine::embedding::text_hash`), so a vector of another
//! model or of an older text is known for stale.
//!
//! A vector is stored as its little-endian `f32` bytes in one CBOR byte string (384 floats take
//! 1,536 bytes, not CBOR's five bytes a float). Writes are not flushed: a vector lost in a crash
//! is made again.

use serde::{Deserialize, Serialize};

use crate::codec::{decode, encode};
use crate::{Papers, Result, StoreError};

/// A paper's vector, with what it was made by and from.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVector {
    /// The fingerprint of the model's weights (`embed::Embedder::fingerprint`).
    pub model: String,
    /// The hash of the exact text embedded.
    pub text_hash: u64,
    pub vector: Vec<f32>,
}

/// What a stored vector was made by and from, read without its vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorStamp {
    pub model: String,
    pub text_hash: u64,
}

/// A vector as the tree holds it.
#[derive(Serialize, Deserialize)]
struct VectorRecord {
    model: String,
    text_hash: u64,
    /// Little-endian `f32`s.
    #[serde(with = "crate::codec::byte_string")]
    vector: Vec<u8>,
}

/// The same record, decoded without its vector (CBOR skips the field).
#[derive(Deserialize)]
struct StampRecord {
    model: String,
    text_hash: u64,
}

impl Papers<'_> {
    /// Stores a batch of papers' vectors in one atomic write, replacing any they had.
    pub fn put_vectors(&self, vectors: &[(u64, StoredVector)]) -> Result<()> {
        let writer = self.store.writing()?;
        let mut batch = sled::Batch::default();
        for (id, stored) in vectors {
            let record = VectorRecord { model: stored.model.clone(), text_hash: stored.text_hash, vector: vector_bytes(&stored.vector) };
            batch.insert(&id.to_be_bytes(), encode("paper vector", &record)?);
        }
        writer.paper_vectors.apply_batch(batch)?;
        Ok(())
    }

    /// A paper's vector, whatever model made it.
    #[cfg(any(test, feature = "testsuite"))]
    pub fn vector(&self, id: u64) -> Result<Option<StoredVector>> {
        let Some(bytes) = self.store.trees().paper_vectors.get(id.to_be_bytes())? else {
            return Ok(None);
        };
        let record: VectorRecord = decode("paper vector", &bytes)?;
        Ok(Some(StoredVector { model: record.model, text_hash: record.text_hash, vector: vector_from_bytes(&record.vector)? }))
    }

    /// What a paper's vector was made by and from, without reading the vector itself.
    pub fn vector_stamp(&self, id: u64) -> Result<Option<VectorStamp>> {
        let Some(bytes) = self.store.trees().paper_vectors.get(id.to_be_bytes())? else {
            return Ok(None);
        };
        let stamp: StampRecord = decode("paper vector", &bytes)?;
        Ok(Some(VectorStamp { model: stamp.model, text_hash: stamp.text_hash }))
    }

    /// The vectors `model` made of the papers `ids`, in the order asked; papers without one, or
    /// with another model's, are left out.
    pub fn vectors_of_model(&self, ids: &[u64], model: &str) -> Result<Vec<(u64, Vec<f32>)>> {
        let mut found = Vec::with_capacity(ids.len());
        for &id in ids {
            let Some(bytes) = self.store.trees().paper_vectors.get(id.to_be_bytes())? else {
                continue;
            };
            let record: VectorRecord = decode("paper vector", &bytes)?;
            if record.model == model {
                found.push((id, vector_from_bytes(&record.vector)?));
            }
        }
        Ok(found)
    }

    /// How many vectors `model` made (a whole pass over the tree).
    #[cfg(any(test, feature = "testsuite"))]
    pub fn vector_count(&self, model: &str) -> Result<u64> {
        let mut count = 0;
        for value in self.store.trees().paper_vectors.iter().values() {
            let stamp: StampRecord = decode("paper vector", &value?)?;
            if stamp.model == model {
                count += 1;
            }
        }
        Ok(count)
    }

    /// The ids of every paper with a vector, ascending.
    pub fn vector_ids(&self) -> Result<Vec<u64>> {
        self.store.trees().paper_vectors.iter().keys().map(|key| paper_id_of(&key?)).collect()
    }

    /// Drops the vectors of `ids` (works gone from the index), in one atomic write.
    pub fn remove_vectors(&self, ids: &[u64]) -> Result<()> {
        let writer = self.store.writing()?;
        let mut batch = sled::Batch::default();
        for id in ids {
            batch.remove(&id.to_be_bytes());
        }
        writer.paper_vectors.apply_batch(batch)?;
        Ok(())
    }
}

fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|value| value.to_le_bytes()).collect()
}

fn vector_from_bytes(bytes: &[u8]) -> Result<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(StoreError::Corrupt("paper vector"));
    }
    Ok(bytes.chunks_exact(4).map(|float| f32::from_le_bytes([float[0], float[1], float[2], float[3]])).collect())
}

fn paper_id_of(key: &[u8]) -> Result<u64> {
    let bytes: [u8; 8] = key.try_into().map_err(|_| StoreError::Corrupt("paper vector key"))?;
    Ok(u64::from_be_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn stored(model: &str, text_hash: u64, vector: &[f32]) -> StoredVector {
        StoredVector { model: model.into(), text_hash, vector: vector.to_vec() }
    }

    #[test]
    fn vectors_round_trip_exactly_and_compactly() -> Result<()> {
        let store = Store::temporary()?;
        let awkward = [0.1, -0.0, f32::MIN_POSITIVE, f32::MAX, -1.5e-7, 1.0];
        store.papers().put_vectors(&[(7, stored("model-a", u64::MAX, &awkward)), (8, stored("model-a", 0, &[]))])?;
        let read = store.papers().vector(7)?.ok_or(StoreError::Corrupt("missing"))?;
        assert_eq!(read.model, "model-a");
        assert_eq!(read.text_hash, u64::MAX);
        let bits = |values: &[f32]| values.iter().map(|value| value.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&read.vector), bits(&awkward), "every bit kept, the sign of zero too");
        assert_eq!(store.papers().vector(8)?, Some(stored("model-a", 0, &[])));
        assert_eq!(store.papers().vector(9)?, None);
        assert_eq!(store.papers().vector_stamp(7)?, Some(VectorStamp { model: "model-a".into(), text_hash: u64::MAX }));
        assert_eq!(store.papers().vector_stamp(9)?, None);

        let dimensions = 384;
        store.papers().put_vectors(&[(10, stored(&"f".repeat(64), 1, &vec![0.25; dimensions]))])?;
        let size = store.trees().paper_vectors.get(10u64.to_be_bytes())?.map_or(0, |bytes| bytes.len());
        assert!((dimensions * 4..dimensions * 4 + 120).contains(&size), "{size} bytes for {dimensions} floats");
        Ok(())
    }

    #[test]
    fn a_put_replaces_and_vectors_are_read_per_model() -> Result<()> {
        let store = Store::temporary()?;
        store.papers().put_vectors(&[(1, stored("old", 1, &[1.0])), (2, stored("old", 2, &[2.0])), (3, stored("new", 3, &[3.0]))])?;
        assert_eq!((store.papers().vector_count("old")?, store.papers().vector_count("new")?), (2, 1));
        store.papers().put_vectors(&[(2, stored("new", 20, &[20.0]))])?;
        assert_eq!(store.papers().vector(2)?, Some(stored("new", 20, &[20.0])), "replaced");
        assert_eq!(store.papers().vectors_of_model(&[3, 1, 2, 99], "new")?, [(3, vec![3.0]), (2, vec![20.0])], "in the order asked");
        assert_eq!(store.papers().vectors_of_model(&[1, 2, 3], "old")?, [(1, vec![1.0])]);
        assert_eq!(store.papers().vectors_of_model(&[], "new")?, []);
        assert_eq!((store.papers().vector_count("old")?, store.papers().vector_count("new")?), (1, 2));
        Ok(())
    }

    #[test]
    fn ids_are_listed_in_order_and_removed_together() -> Result<()> {
        let store = Store::temporary()?;
        let ids = [300, 2, 70_000, 1 << 40];
        let batch: Vec<(u64, StoredVector)> = ids.iter().map(|&id| (id, stored("m", id, &[0.5]))).collect();
        store.papers().put_vectors(&batch)?;
        assert_eq!(store.papers().vector_ids()?, [2, 300, 70_000, 1 << 40], "big-endian keys sort by id");
        store.papers().remove_vectors(&[300, 1 << 40, 5])?;
        assert_eq!(store.papers().vector_ids()?, [2, 70_000]);
        assert_eq!(store.papers().vector(300)?, None);
        store.papers().remove_vectors(&[])?;
        assert_eq!(store.papers().vector_count("m")?, 2);
        Ok(())
    }

    #[test]
    fn vectors_survive_a_reopen() -> Result<()> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        {
            let store = Store::open(dir.path())?;
            store.papers().put_vectors(&[(4, stored("m", 9, &[0.5, -0.5]))])?;
            store.flush()?;
        }
        let store = Store::open(dir.path())?;
        assert_eq!(store.papers().vector(4)?, Some(stored("m", 9, &[0.5, -0.5])));
        Ok(())
    }

    #[test]
    fn damaged_records_are_errors_not_vectors() -> Result<()> {
        let store = Store::temporary()?;
        store.writing()?.paper_vectors.insert(1u64.to_be_bytes(), b"not cbor at all".as_slice())?;
        assert!(matches!(store.papers().vector(1), Err(StoreError::Decode { what: "paper vector", .. })));
        assert!(matches!(store.papers().vector_stamp(1), Err(StoreError::Decode { .. })));
        assert!(store.papers().vector_count("m").is_err());

        let truncated = VectorRecord { model: "m".into(), text_hash: 1, vector: vec![0, 0, 128, 63, 0, 0] };
        store.writing()?.paper_vectors.insert(2u64.to_be_bytes(), encode("paper vector", &truncated)?)?;
        assert!(matches!(store.papers().vector(2), Err(StoreError::Corrupt("paper vector"))), "six bytes are no whole floats");
        assert!(matches!(store.papers().vectors_of_model(&[2], "m"), Err(StoreError::Corrupt("paper vector"))));
        assert_eq!(store.papers().vector_stamp(2)?, Some(VectorStamp { model: "m".into(), text_hash: 1 }), "the stamp is still readable");

        store.writing()?.paper_vectors.insert(b"short".as_slice(), encode("paper vector", &truncated)?)?;
        assert!(matches!(store.papers().vector_ids(), Err(StoreError::Corrupt("paper vector key"))));
        Ok(())
    }
}
