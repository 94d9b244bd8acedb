//! The one place values become bytes: CBOR through serde_cbor. Records evolve by adding fields
//! with `#[serde(default)]`; renames and removals need a migration in `db`.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{abort, StoreError};

pub(crate) fn encode<T: Serialize>(what: &'static str, value: &T) -> Result<Vec<u8>, StoreError> {
    serde_cbor::to_vec(value).map_err(|source| StoreError::Encode { what, source })
}

/// [`encode`] in CBOR's packed form: fields and variants by position instead of by name, about
/// half the bytes for small records. Read back by [`decode`] like any other; a packed type
/// may only ever gain fields at its end.
pub(crate) fn encode_packed<T: Serialize>(what: &'static str, value: &T) -> Result<Vec<u8>, StoreError> {
    serde_cbor::ser::to_vec_packed(value).map_err(|source| StoreError::Encode { what, source })
}

pub(crate) fn decode<T: DeserializeOwned>(what: &'static str, bytes: &[u8]) -> Result<T, StoreError> {
    serde_cbor::from_slice(bytes).map_err(|source| StoreError::Decode { what, source })
}

type TxError = sled::transaction::ConflictableTransactionError<StoreError>;

/// [`encode`] inside a transaction, where failures abort it.
pub(crate) fn tx_encode<T: Serialize>(what: &'static str, value: &T) -> Result<Vec<u8>, TxError> {
    encode(what, value).map_err(abort)
}

/// [`encode_packed`] inside a transaction, where failures abort it.
pub(crate) fn tx_encode_packed<T: Serialize>(what: &'static str, value: &T) -> Result<Vec<u8>, TxError> {
    encode_packed(what, value).map_err(abort)
}

/// [`decode`] inside a transaction, where failures abort it.
pub(crate) fn tx_decode<T: DeserializeOwned>(what: &'static str, bytes: &[u8]) -> Result<T, TxError> {
    decode(what, bytes).map_err(abort)
}

/// A byte string as CBOR bytes rather than an array of numbers.
pub(crate) mod byte_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        serde_cbor::Value::deserialize(deserializer).and_then(|value| match value {
            serde_cbor::Value::Bytes(bytes) => Ok(bytes),
            _ => Err(serde::de::Error::custom("expected a byte string")),
        })
    }
}
