//! Signed links that need no stored secret per link: a purpose, a payload and the first 128 bits
//! of their HMAC-SHA-256 under the installation's key (the rating links' key, `crate::rating`),
//! in lower-case hex, safe in any URL. A link signed for one purpose never passes for another.
//!
//! Two kinds of link use it: a user's private feeds ([`FeedClaim`]: the user and the feeds'
//! generation, so renewing the feeds ends every address made before), and the citations link
//! of a digest mail ([`CitationClaim`]: the user and the digest).

use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

use crate::account::UserId;

/// How much of the MAC a link carries: 128 bits.
const MAC_BYTES: usize = 16;

/// `payload` signed for `purpose` under `key`.
pub fn sign(key: &[u8], purpose: &str, payload: &[u8]) -> String {
    let mac = mac_of(key, purpose, payload);
    format!("{}{}", hex::encode(payload), hex::encode(&mac[..MAC_BYTES]))
}

/// The payload of a token [`sign`] made for `purpose` under `key`, when it is one; the MAC is
/// compared in constant time before the payload is read.
pub fn verify(key: &[u8], purpose: &str, token: &str) -> Option<Vec<u8>> {
    let bytes = hex::decode(token.trim()).ok()?;
    let payload_len = bytes.len().checked_sub(MAC_BYTES)?;
    let (payload, mac) = bytes.split_at(payload_len);
    let expected = mac_of(key, purpose, payload);
    let same = expected[..MAC_BYTES].iter().zip(mac).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    same.then(|| payload.to_vec())
}

fn mac_of(key: &[u8], purpose: &str, payload: &[u8]) -> [u8; 32] {
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(purpose.as_bytes());
    mac.update(b":");
    mac.update(payload);
    mac.finalize().into_bytes().into()
}

const FEED_PURPOSE: &str = "feed";
const CITATION_PURPOSE: &str = "digest-citations";

/// Who a feed address is for, and which generation of the user's feed addresses it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedClaim {
    pub user_id: UserId,
    pub generation: u32,
}

impl FeedClaim {
    pub fn sign(&self, key: &[u8]) -> String {
        let mut payload = self.user_id.as_bytes().to_vec();
        payload.extend_from_slice(&self.generation.to_be_bytes());
        sign(key, FEED_PURPOSE, &payload)
    }

    pub fn verify(key: &[u8], token: &str) -> Option<FeedClaim> {
        let payload = verify(key, FEED_PURPOSE, token)?;
        let user_id = UserId::from_slice(payload.get(..16)?)?;
        let generation = u32::from_be_bytes(payload.get(16..20)?.try_into().ok()?);
        (payload.len() == 20).then_some(FeedClaim { user_id, generation })
    }
}

/// The citations of one digest of one user, from the link in the digest's mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CitationClaim {
    pub user_id: UserId,
    pub digest_id: Uuid,
}

impl CitationClaim {
    pub fn sign(&self, key: &[u8]) -> String {
        let payload = [self.user_id.as_bytes().as_slice(), self.digest_id.as_bytes().as_slice()].concat();
        sign(key, CITATION_PURPOSE, &payload)
    }

    pub fn verify(key: &[u8], token: &str) -> Option<CitationClaim> {
        let payload = verify(key, CITATION_PURPOSE, token)?;
        let user_id = UserId::from_slice(payload.get(..16)?)?;
        let digest_id = Uuid::from_slice(payload.get(16..32)?).ok()?;
        (payload.len() == 32).then_some(CitationClaim { user_id, digest_id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"an installation's key, 32 bytes!";

    #[test]
    fn a_feed_claim_round_trips_and_a_changed_byte_breaks_it() {
        let claim = FeedClaim { user_id: UserId(Uuid::from_u128(7)), generation: 3 };
        let token = claim.sign(KEY);
        assert_eq!(FeedClaim::verify(KEY, &token), Some(claim));
        let mut changed = token.clone().into_bytes();
        changed[35] = if changed[35] == b'0' { b'1' } else { b'0' };
        assert_eq!(FeedClaim::verify(KEY, &String::from_utf8(changed).expect("hex")), None);
        assert_eq!(FeedClaim::verify(b"another key", &token), None);
        assert_eq!(FeedClaim::verify(KEY, "not hex"), None);
        assert_eq!(FeedClaim::verify(KEY, ""), None);
    }

    #[test]
    fn a_token_of_one_purpose_never_passes_for_another() {
        let user_id = UserId(Uuid::from_u128(7));
        let citation = CitationClaim { user_id, digest_id: Uuid::from_u128(9) }.sign(KEY);
        assert!(CitationClaim::verify(KEY, &citation).is_some());
        assert_eq!(FeedClaim::verify(KEY, &citation), None);
        let feed = FeedClaim { user_id, generation: 0 }.sign(KEY);
        assert_eq!(CitationClaim::verify(KEY, &feed), None);
    }

    #[test]
    fn another_generation_is_another_address() {
        let user_id = UserId(Uuid::from_u128(7));
        let old = FeedClaim { user_id, generation: 0 }.sign(KEY);
        let new = FeedClaim { user_id, generation: 1 }.sign(KEY);
        assert_ne!(old, new);
        assert_eq!(FeedClaim::verify(KEY, &old).map(|claim| claim.generation), Some(0));
    }
}
