//! Records of signed-in users kept decoded beside the bytes they were decoded from.
//!
//! Every signed-in request reads its session, its user and, for the account's view, the user's
//! ledger; decoding them (CBOR, dates from RFC 3339 text) was a large part of such a request's
//! own work. A [`Decoded`] cache maps a record's key to the bytes last read under it and the
//! value decoded from them. A read still reads the record from sled every time and reuses the
//! decoded value only when the bytes are the same, so the cache can never answer with a stale
//! record and needs no invalidation: a write anywhere, by any path, changes the bytes.
//!
//! The cache is bounded ([`CAPACITY`] entries); when it is full it is emptied and fills again
//! with whoever is signed in now.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;

use crate::codec::decode;
use crate::Result;

/// Entries a cache holds at most: about the users signed in at once on a busy node.
pub const CAPACITY: usize = 16_384;

/// A record's key → the bytes last read under it and their value.
type Entries<T> = HashMap<Box<[u8]>, (sled::IVec, Arc<T>)>;

/// One kind of record, by key (see the module docs).
pub(crate) struct Decoded<T> {
    what: &'static str,
    entries: Mutex<Entries<T>>,
}

impl<T: DeserializeOwned> Decoded<T> {
    pub(crate) fn new(what: &'static str) -> Decoded<T> {
        Decoded { what, entries: Mutex::new(HashMap::new()) }
    }

    /// The value of `bytes`, read under `key`: the one decoded before if the bytes are the same,
    /// else decoded now and kept.
    pub(crate) fn get(&self, key: &[u8], bytes: sled::IVec) -> Result<Arc<T>> {
        if let Some((seen, value)) = self.lock().get(key) {
            if *seen == bytes {
                return Ok(Arc::clone(value));
            }
        }
        let value = Arc::new(decode::<T>(self.what, &bytes)?);
        let mut entries = self.lock();
        if entries.len() >= CAPACITY && !entries.contains_key(key) {
            entries.clear();
        }
        entries.insert(key.into(), (bytes, Arc::clone(&value)));
        Ok(value)
    }

    /// Forgets the record under `key` (it was removed).
    pub(crate) fn forget(&self, key: &[u8]) {
        self.lock().remove(key);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<T>> {
        // A panic while the map was held leaves it whole (every change is one call), so a
        // poisoned lock is still a usable cache.
        engine::sync::lock(&self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encode;

    #[test]
    fn the_same_bytes_give_the_value_decoded_before_and_other_bytes_a_new_one() -> Result<()> {
        let cache = Decoded::<String>::new("text");
        let first = cache.get(b"k", encode("text", &"ada".to_owned())?.into())?;
        let again = cache.get(b"k", encode("text", &"ada".to_owned())?.into())?;
        assert!(Arc::ptr_eq(&first, &again), "unchanged bytes are not decoded again");
        let changed = cache.get(b"k", encode("text", &"bob".to_owned())?.into())?;
        assert_eq!(*changed, "bob", "changed bytes are decoded again, never answered from the cache");
        cache.forget(b"k");
        assert_eq!(cache.len(), 0);
        Ok(())
    }

    #[test]
    fn a_full_cache_starts_over_instead_of_growing() -> Result<()> {
        let cache = Decoded::<u32>::new("number");
        for number in 0..=CAPACITY as u32 {
            cache.get(&number.to_be_bytes(), encode("number", &number)?.into())?;
        }
        assert_eq!(cache.len(), 1, "the entry that found the cache full is the first of the new one");
        Ok(())
    }

    #[test]
    fn bytes_that_do_not_decode_are_an_error_and_are_not_kept() {
        let cache = Decoded::<String>::new("text");
        assert!(cache.get(b"k", sled::IVec::from(&[0xff_u8, 0x00][..])).is_err());
        assert_eq!(cache.len(), 0);
    }
}
