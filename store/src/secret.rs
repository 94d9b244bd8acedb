//! Secrets (session cookies, verification and reset tokens) are handed to users once and stored
//! only as their SHA-256 hash, so a copy of the database signs nobody in.

use sha2::{Digest, Sha256};

/// The SHA-256 of a secret token; the only form in which a token reaches the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        <[u8; 32]>::try_from(bytes).ok().map(TokenHash)
    }

    /// Lower-case hex, as kept in the user record's token fields.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_distinct() {
        assert_eq!(TokenHash::of("a"), TokenHash::of("a"));
        assert_ne!(TokenHash::of("a"), TokenHash::of("b"));
        assert_eq!(TokenHash::of("abc").to_hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
