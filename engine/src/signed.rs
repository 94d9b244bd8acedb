//! Signed tokens: every link (or address) that carries its own authority instead of a stored
//! secret per link. A token is a claim's bytes and the first 128 bits of their HMAC-SHA-256 under
//! a key the caller passes, in lower-case hex, safe in any URL. The MAC covers the claim's kind
//! first, so a token signed for one kind never passes for another, and it is compared in constant
//! time before any of the claim is read.
//!
//! The kinds: a user's private feeds ([`FeedClaim`]: the user and the feeds' generation, so
//! renewing the feeds ends every address made before), the citations link of a digest mail
//! ([`CitationClaim`]), the rating links under each paper of a digest mail ([`RatingClaim`], which
//! also expires) and the unsubscribe link of every mail ([`UnsubscribeClaim`], which does not).
//! The first three are signed with the rating links' key, the last with the unsubscribe key (both
//! kept by the store). Tokens keep the shape they had before this module signed them all, so
//! links already sent in mail keep working.

use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::account::UserId;
use crate::rating::Verdict;

/// How much of the MAC a token carries: 128 bits.
const MAC_BYTES: usize = 16;

/// What a token stands for; its name is the MAC's domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClaimKind {
    Feed,
    Citation,
    Rating,
    Unsubscribe,
}

impl ClaimKind {
    fn domain(self) -> &'static str {
        match self {
            ClaimKind::Feed => "feed",
            ClaimKind::Citation => "digest-citations",
            ClaimKind::Rating => "rating-link",
            ClaimKind::Unsubscribe => "unsubscribe",
        }
    }
}

/// `payload` signed as a claim of `kind` under `key`.
fn sign(key: &[u8], kind: ClaimKind, payload: &[u8]) -> String {
    let mac = mac_of(key, kind, payload);
    format!("{}{}", hex::encode(payload), hex::encode(&mac[..MAC_BYTES]))
}

/// The payload of a token [`sign`] made for `kind` under `key`, when it is one.
fn verify(key: &[u8], kind: ClaimKind, token: &str) -> Option<Vec<u8>> {
    let bytes = hex::decode(token.trim()).ok()?;
    let payload_len = bytes.len().checked_sub(MAC_BYTES)?;
    let (payload, mac) = bytes.split_at(payload_len);
    let expected = mac_of(key, kind, payload);
    let same: bool = expected[..MAC_BYTES].ct_eq(mac).into();
    same.then(|| payload.to_vec())
}

fn mac_of(key: &[u8], kind: ClaimKind, payload: &[u8]) -> [u8; 32] {
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(kind.domain().as_bytes());
    mac.update(b":");
    mac.update(payload);
    mac.finalize().into_bytes().into()
}

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
        sign(key, ClaimKind::Feed, &payload)
    }

    pub fn verify(key: &[u8], token: &str) -> Option<FeedClaim> {
        let payload = verify(key, ClaimKind::Feed, token)?;
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
        sign(key, ClaimKind::Citation, &payload)
    }

    pub fn verify(key: &[u8], token: &str) -> Option<CitationClaim> {
        let payload = verify(key, ClaimKind::Citation, token)?;
        let user_id = UserId::from_slice(payload.get(..16)?)?;
        let digest_id = Uuid::from_slice(payload.get(16..32)?).ok()?;
        (payload.len() == 32).then_some(CitationClaim { user_id, digest_id })
    }
}

/// The user an unsubscribe link is for. Its token is the user's id (32 hex digits) and the MAC,
/// the same in every mail, so sending one writes nothing; it does not expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsubscribeClaim {
    pub user_id: UserId,
}

impl UnsubscribeClaim {
    pub fn sign(&self, key: &[u8]) -> String {
        sign(key, ClaimKind::Unsubscribe, self.user_id.as_bytes())
    }

    pub fn verify(key: &[u8], token: &str) -> Option<UnsubscribeClaim> {
        let payload = verify(key, ClaimKind::Unsubscribe, token)?;
        let user_id = UserId::from_slice(&payload)?;
        Some(UnsubscribeClaim { user_id })
    }
}

/// How long a rating link works after its mail was rendered.
pub const RATING_LINK_DAYS: i64 = 90;

/// What a rating link stands for: the user, the digest, the paper's position in it, the verdict
/// and an expiry. Anything changed in a token (another digest, another paper, a later expiry)
/// breaks its MAC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingClaim {
    pub user_id: UserId,
    pub digest_id: Uuid,
    /// The paper's position in the digest, from 0.
    pub position: u16,
    pub verdict: Verdict,
    pub expires_at: DateTime<Utc>,
}

/// Why a rating token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingTokenError {
    /// Not a token of this installation, or altered.
    Invalid,
    /// Genuine, and past its expiry.
    Expired,
}

/// The rating claim's layout version, its first byte.
const RATING_VERSION: u8 = 1;
/// Version, user, digest, position, verdict, expiry (seconds).
const RATING_CLAIM_BYTES: usize = 1 + 16 + 16 + 2 + 1 + 8;

impl RatingClaim {
    /// A claim that expires [`RATING_LINK_DAYS`] after `now`.
    pub fn new(user_id: UserId, digest_id: Uuid, position: u16, verdict: Verdict, now: DateTime<Utc>) -> RatingClaim {
        let expires_at = now + Duration::days(RATING_LINK_DAYS);
        // Whole seconds, as the token keeps them.
        let expires_at = DateTime::from_timestamp(expires_at.timestamp(), 0).unwrap_or(expires_at);
        RatingClaim { user_id, digest_id, position, verdict, expires_at }
    }

    /// The claim's token (120 hex digits).
    pub fn sign(&self, key: &[u8]) -> String {
        sign(key, ClaimKind::Rating, &self.to_bytes())
    }

    /// The claim of a token [`RatingClaim::sign`] made under `key`, if it is one and has not
    /// expired at `now`.
    pub fn verify(key: &[u8], token: &str, now: DateTime<Utc>) -> Result<RatingClaim, RatingTokenError> {
        let payload = verify(key, ClaimKind::Rating, token).ok_or(RatingTokenError::Invalid)?;
        let claim = RatingClaim::from_bytes(&payload).ok_or(RatingTokenError::Invalid)?;
        if now >= claim.expires_at {
            return Err(RatingTokenError::Expired);
        }
        Ok(claim)
    }

    fn to_bytes(self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(RATING_CLAIM_BYTES);
        bytes.push(RATING_VERSION);
        bytes.extend_from_slice(self.user_id.as_bytes());
        bytes.extend_from_slice(self.digest_id.as_bytes());
        bytes.extend_from_slice(&self.position.to_be_bytes());
        bytes.push(self.verdict.code());
        bytes.extend_from_slice(&self.expires_at.timestamp().to_be_bytes());
        bytes
    }

    fn from_bytes(payload: &[u8]) -> Option<RatingClaim> {
        if payload.len() != RATING_CLAIM_BYTES || payload[0] != RATING_VERSION {
            return None;
        }
        let user_id = UserId::from_slice(payload.get(1..17)?)?;
        let digest_id = Uuid::from_slice(payload.get(17..33)?).ok()?;
        let position = u16::from_be_bytes(payload.get(33..35)?.try_into().ok()?);
        let verdict = Verdict::from_code(*payload.get(35)?)?;
        let expires_secs = i64::from_be_bytes(payload.get(36..44)?.try_into().ok()?);
        let expires_at = DateTime::from_timestamp(expires_secs, 0)?;
        Some(RatingClaim { user_id, digest_id, position, verdict, expires_at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"an installation's key, 32 bytes!";

    fn now() -> DateTime<Utc> {
        "2026-11-22T10:00:00Z".parse().expect("a time")
    }

    fn rating_claim() -> RatingClaim {
        RatingClaim::new(UserId(Uuid::from_u128(7)), Uuid::from_u128(9), 3, Verdict::NotRelevant, now())
    }

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
    fn a_token_of_one_kind_never_passes_for_another() {
        let user_id = UserId(Uuid::from_u128(7));
        let citation = CitationClaim { user_id, digest_id: Uuid::from_u128(9) }.sign(KEY);
        assert!(CitationClaim::verify(KEY, &citation).is_some());
        assert_eq!(FeedClaim::verify(KEY, &citation), None);
        assert_eq!(UnsubscribeClaim::verify(KEY, &citation), None);
        let feed = FeedClaim { user_id, generation: 0 }.sign(KEY);
        assert_eq!(CitationClaim::verify(KEY, &feed), None);
        let unsubscribe = UnsubscribeClaim { user_id }.sign(KEY);
        assert_eq!(UnsubscribeClaim::verify(KEY, &unsubscribe), Some(UnsubscribeClaim { user_id }));
        assert_eq!(FeedClaim::verify(KEY, &unsubscribe), None);
        // The same bytes as a citation claim's, signed as a rating claim's kind, still fail.
        let rating = rating_claim().sign(KEY);
        assert_eq!(CitationClaim::verify(KEY, &rating), None);
        assert_eq!(RatingClaim::verify(KEY, &citation, now()), Err(RatingTokenError::Invalid));
    }

    #[test]
    fn tokens_already_sent_in_mail_keep_verifying() {
        let user_id = UserId(Uuid::from_u128(7));
        let digest_id = Uuid::from_u128(9);
        let sent = [
            "010000000000000000000000000000000700000000000000000000000000000009000302000000006b79642031f420f4515db9a4a7b7d2ca72560303",
            "00000000000000000000000000000007f16f9d378f42c9cbb7f240df6b9bb2d7",
            "000000000000000000000000000000070000000384be57366a9833c9924b4670485cc9d0",
            "0000000000000000000000000000000700000000000000000000000000000009c9d84746cd29da7c76b6211fcd5dbfa2",
        ];
        assert_eq!(RatingClaim::verify(KEY, sent[0], now()), Ok(rating_claim()));
        assert_eq!(UnsubscribeClaim::verify(KEY, sent[1]), Some(UnsubscribeClaim { user_id }));
        assert_eq!(FeedClaim::verify(KEY, sent[2]), Some(FeedClaim { user_id, generation: 3 }));
        assert_eq!(CitationClaim::verify(KEY, sent[3]), Some(CitationClaim { user_id, digest_id }));
        assert_eq!(rating_claim().sign(KEY), sent[0]);
        assert_eq!(UnsubscribeClaim { user_id }.sign(KEY), sent[1]);
    }

    #[test]
    fn another_generation_is_another_address() {
        let user_id = UserId(Uuid::from_u128(7));
        let old = FeedClaim { user_id, generation: 0 }.sign(KEY);
        let new = FeedClaim { user_id, generation: 1 }.sign(KEY);
        assert_ne!(old, new);
        assert_eq!(FeedClaim::verify(KEY, &old).map(|claim| claim.generation), Some(0));
    }

    #[test]
    fn a_rating_token_reads_back_its_claim_until_it_expires() {
        let token = rating_claim().sign(KEY);
        assert_eq!(token.len(), 2 * (RATING_CLAIM_BYTES + MAC_BYTES));
        assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_eq!(RatingClaim::verify(KEY, &token, now()), Ok(rating_claim()));
        assert_eq!(rating_claim().expires_at, now() + Duration::days(90));
        assert_eq!(RatingClaim::verify(KEY, &token, now() + Duration::days(90) - Duration::seconds(1)), Ok(rating_claim()));
        assert_eq!(RatingClaim::verify(KEY, &token, now() + Duration::days(90)), Err(RatingTokenError::Expired));
    }

    #[test]
    fn an_altered_rating_token_or_another_key_is_refused() {
        let claim = rating_claim;
        let token = claim().sign(KEY);
        assert_eq!(RatingClaim::verify(b"another installation's key......", &token, now()), Err(RatingTokenError::Invalid));
        for (name, altered) in [
            ("another digest", RatingClaim { digest_id: Uuid::from_u128(10), ..claim() }),
            ("another user", RatingClaim { user_id: UserId(Uuid::from_u128(8)), ..claim() }),
            ("another paper", RatingClaim { position: 4, ..claim() }),
            ("another verdict", RatingClaim { verdict: Verdict::Relevant, ..claim() }),
            ("a later expiry", RatingClaim { expires_at: claim().expires_at + Duration::days(400), ..claim() }),
        ] {
            // The claim's bytes changed, the MAC kept.
            let forged = format!("{}{}", hex::encode(altered.to_bytes()), &token[2 * RATING_CLAIM_BYTES..]);
            assert_eq!(RatingClaim::verify(KEY, &forged, now()), Err(RatingTokenError::Invalid), "{name}");
        }
        let mut flipped = token.clone().into_bytes();
        flipped[10] = if flipped[10] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).expect("ascii");
        for broken in ["", "abc", "zz", &token[..token.len() - 2], &format!("{token}00"), &flipped] {
            assert_eq!(RatingClaim::verify(KEY, broken, now()), Err(RatingTokenError::Invalid), "{broken:?}");
        }
    }
}
