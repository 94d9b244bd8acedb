//! Ratings: what a researcher told a search term about one of its papers ("Relevant", "Not
//! relevant", "More like this"), the words a term excludes, and the signed rating links a digest
//! mail carries under each paper.
//!
//! A rating link's token is self-contained, so sending a digest writes nothing: it carries the
//! user, the digest, the paper's position in it, the verdict and an expiry, authenticated with
//! HMAC-SHA-256 under the installation's own key (callers pass the key and `now`). Anything
//! changed in a token (another digest, another paper, a later expiry) breaks its MAC.

use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use uuid::Uuid;

use crate::account::UserId;
use crate::search_term::TermId;

/// What a researcher says of a paper for one term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Relevant,
    NotRelevant,
    MoreLikeThis,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Relevant, Verdict::NotRelevant, Verdict::MoreLikeThis];

    /// The button's words: "Relevant", "Not relevant", "More like this".
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Relevant => "Relevant",
            Verdict::NotRelevant => "Not relevant",
            Verdict::MoreLikeThis => "More like this",
        }
    }

    fn code(self) -> u8 {
        match self {
            Verdict::Relevant => 1,
            Verdict::NotRelevant => 2,
            Verdict::MoreLikeThis => 3,
        }
    }

    fn from_code(code: u8) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|verdict| verdict.code() == code)
    }
}

/// One rating: a user's verdict on a paper for one of their terms. One per user, term and paper.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rating {
    pub term_id: TermId,
    /// The paper's first dedup key, as `DigestEntry::keys[0]` (`doi:10.1/x`, `pmid:123`).
    pub paper_key: String,
    pub title: String,
    pub verdict: Verdict,
    /// The digest it was rated from; `None` for a paper the term was seeded from.
    pub digest_id: Option<Uuid>,
    pub rated_at: DateTime<Utc>,
    /// A paper the researcher gave the term as one it should find more of (`crate::seed`),
    /// counted as rated relevant.
    #[serde(default)]
    pub seeded: bool,
}

impl Rating {
    /// A paper the term is seeded from (`crate::seed`): rated relevant, from no digest.
    pub fn seed(term_id: TermId, paper_key: String, title: String, now: DateTime<Utc>) -> Rating {
        Rating { term_id, paper_key, title, verdict: Verdict::Relevant, digest_id: None, rated_at: now, seeded: true }
    }
}

pub const MAX_EXCLUDE_WORDS: usize = 10;
pub const MIN_EXCLUDE_WORD_CHARS: usize = 2;
pub const MAX_EXCLUDE_WORD_CHARS: usize = 40;

pub const MSG_EXCLUDE_TOO_MANY: &str = "A search term can exclude at most 10 words";
pub const MSG_EXCLUDE_TOO_SHORT: &str = "Each excluded word must be at least 2 characters";
pub const MSG_EXCLUDE_TOO_LONG: &str = "Each excluded word must be at most 40 characters";
pub const MSG_EXCLUDE_UNSUPPORTED: &str = "Excluded words may only contain letters, digits and hyphens";

/// A term's exclusion words cleaned: each trimmed and lower-cased, empty ones and repeats
/// dropped (first kept), then checked: at most [`MAX_EXCLUDE_WORDS`], each 2 to 40 characters of
/// letters, digits and hyphens. The message of the first rule broken otherwise.
pub fn validate_exclude_words(words: &[String]) -> Result<Vec<String>, &'static str> {
    let mut cleaned: Vec<String> = Vec::new();
    for word in words {
        let word = word.trim().to_lowercase();
        if word.is_empty() || cleaned.contains(&word) {
            continue;
        }
        let length = word.chars().count();
        if length < MIN_EXCLUDE_WORD_CHARS {
            return Err(MSG_EXCLUDE_TOO_SHORT);
        }
        if length > MAX_EXCLUDE_WORD_CHARS {
            return Err(MSG_EXCLUDE_TOO_LONG);
        }
        if !word.chars().all(|character| character.is_alphanumeric() || character == '-') || word.chars().any(crate::validation::is_invisible) {
            return Err(MSG_EXCLUDE_UNSUPPORTED);
        }
        cleaned.push(word);
    }
    if cleaned.len() > MAX_EXCLUDE_WORDS {
        return Err(MSG_EXCLUDE_TOO_MANY);
    }
    Ok(cleaned)
}

/// How long a rating link works after its mail was rendered.
pub const RATING_LINK_DAYS: i64 = 90;

/// What a rating link stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingClaim {
    pub user_id: UserId,
    pub digest_id: Uuid,
    /// The paper's position in the digest, from 0.
    pub position: u16,
    pub verdict: Verdict,
    pub expires_at: DateTime<Utc>,
}

impl RatingClaim {
    /// A claim that expires [`RATING_LINK_DAYS`] after `now`.
    pub fn new(user_id: UserId, digest_id: Uuid, position: u16, verdict: Verdict, now: DateTime<Utc>) -> RatingClaim {
        let expires_at = now + Duration::days(RATING_LINK_DAYS);
        // Whole seconds, as the token keeps them.
        let expires_at = DateTime::from_timestamp(expires_at.timestamp(), 0).unwrap_or(expires_at);
        RatingClaim { user_id, digest_id, position, verdict, expires_at }
    }
}

/// Why a rating token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingTokenError {
    /// Not a token of this installation, or altered.
    Invalid,
    /// Genuine, and past its expiry.
    Expired,
}

const TOKEN_VERSION: u8 = 1;
/// Version, user, digest, position, verdict, expiry (seconds).
const CLAIM_BYTES: usize = 1 + 16 + 16 + 2 + 1 + 8;
/// How much of the MAC a token carries: 128 bits.
const MAC_BYTES: usize = 16;

/// The token of `claim`: its bytes and the first 128 bits of their HMAC-SHA-256 under `key`,
/// in lower-case hex (120 characters, safe in any URL).
pub fn sign_rating_token(key: &[u8], claim: &RatingClaim) -> String {
    let payload = claim_bytes(claim);
    let mac = mac_of(key, &payload);
    format!("{}{}", hex::encode(payload), hex::encode(&mac[..MAC_BYTES]))
}

/// The claim of a token made by [`sign_rating_token`] under `key`, if it is one and has not
/// expired at `now`. The MAC is checked before anything else is read, in constant time.
pub fn verify_rating_token(key: &[u8], token: &str, now: DateTime<Utc>) -> Result<RatingClaim, RatingTokenError> {
    let bytes = hex::decode(token.trim()).map_err(|_| RatingTokenError::Invalid)?;
    if bytes.len() != CLAIM_BYTES + MAC_BYTES {
        return Err(RatingTokenError::Invalid);
    }
    let (payload, mac) = bytes.split_at(CLAIM_BYTES);
    let expected = mac_of(key, payload);
    let same = expected[..MAC_BYTES].iter().zip(mac).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if !same || payload[0] != TOKEN_VERSION {
        return Err(RatingTokenError::Invalid);
    }
    let claim = parse_claim(payload).ok_or(RatingTokenError::Invalid)?;
    if now >= claim.expires_at {
        return Err(RatingTokenError::Expired);
    }
    Ok(claim)
}

fn claim_bytes(claim: &RatingClaim) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(CLAIM_BYTES);
    bytes.push(TOKEN_VERSION);
    bytes.extend_from_slice(claim.user_id.as_bytes());
    bytes.extend_from_slice(claim.digest_id.as_bytes());
    bytes.extend_from_slice(&claim.position.to_be_bytes());
    bytes.push(claim.verdict.code());
    bytes.extend_from_slice(&claim.expires_at.timestamp().to_be_bytes());
    bytes
}

fn parse_claim(payload: &[u8]) -> Option<RatingClaim> {
    let user_id = UserId::from_slice(payload.get(1..17)?)?;
    let digest_id = Uuid::from_slice(payload.get(17..33)?).ok()?;
    let position = u16::from_be_bytes(payload.get(33..35)?.try_into().ok()?);
    let verdict = Verdict::from_code(*payload.get(35)?)?;
    let expires_secs = i64::from_be_bytes(payload.get(36..44)?.try_into().ok()?);
    let expires_at = DateTime::from_timestamp(expires_secs, 0)?;
    Some(RatingClaim { user_id, digest_id, position, verdict, expires_at })
}

fn mac_of(key: &[u8], payload: &[u8]) -> [u8; 32] {
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"rating-link:");
    mac.update(payload);
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"an installation's key, 32 bytes!";

    fn now() -> DateTime<Utc> {
        "2026-11-22T10:00:00Z".parse().expect("a time")
    }

    fn claim() -> RatingClaim {
        RatingClaim::new(UserId(Uuid::from_u128(7)), Uuid::from_u128(9), 3, Verdict::NotRelevant, now())
    }

    #[test]
    fn verdicts_are_camel_case_on_the_wire() {
        let json: Vec<String> = Verdict::ALL.iter().map(|verdict| serde_json::to_string(verdict).expect("json")).collect();
        assert_eq!(json, ["\"relevant\"", "\"notRelevant\"", "\"moreLikeThis\""]);
        assert_eq!(serde_json::from_str::<Verdict>("\"moreLikeThis\"").expect("read"), Verdict::MoreLikeThis);
    }

    #[test]
    fn a_token_reads_back_its_claim_until_it_expires() {
        let token = sign_rating_token(KEY, &claim());
        assert_eq!(token.len(), 2 * (CLAIM_BYTES + MAC_BYTES));
        assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_eq!(verify_rating_token(KEY, &token, now()), Ok(claim()));
        assert_eq!(claim().expires_at, now() + Duration::days(90));
        assert_eq!(verify_rating_token(KEY, &token, now() + Duration::days(90) - Duration::seconds(1)), Ok(claim()));
        assert_eq!(verify_rating_token(KEY, &token, now() + Duration::days(90)), Err(RatingTokenError::Expired));
    }

    #[test]
    fn an_altered_token_or_another_key_is_refused() {
        let token = sign_rating_token(KEY, &claim());
        assert_eq!(verify_rating_token(b"another installation's key......", &token, now()), Err(RatingTokenError::Invalid));
        for (name, altered) in [
            ("another digest", RatingClaim { digest_id: Uuid::from_u128(10), ..claim() }),
            ("another user", RatingClaim { user_id: UserId(Uuid::from_u128(8)), ..claim() }),
            ("another paper", RatingClaim { position: 4, ..claim() }),
            ("another verdict", RatingClaim { verdict: Verdict::Relevant, ..claim() }),
            ("a later expiry", RatingClaim { expires_at: claim().expires_at + Duration::days(400), ..claim() }),
        ] {
            // The claim's bytes changed, the MAC kept.
            let forged = format!("{}{}", hex::encode(claim_bytes(&altered)), &token[2 * CLAIM_BYTES..]);
            assert_eq!(verify_rating_token(KEY, &forged, now()), Err(RatingTokenError::Invalid), "{name}");
        }
        let mut flipped = token.clone().into_bytes();
        flipped[10] = if flipped[10] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).expect("ascii");
        for broken in ["", "abc", "zz", &token[..token.len() - 2], &format!("{token}00"), &flipped] {
            assert_eq!(verify_rating_token(KEY, broken, now()), Err(RatingTokenError::Invalid), "{broken:?}");
        }
    }

    #[test]
    fn exclusion_words_are_cleaned_then_checked() {
        let words = |list: &[&str]| list.iter().map(|word| word.to_string()).collect::<Vec<_>>();
        assert_eq!(
            validate_exclude_words(&words(&["  Mouse ", "mouse", "", "in-vitro", "Zebrafish", "p53"])),
            Ok(words(&["mouse", "in-vitro", "zebrafish", "p53"]))
        );
        assert_eq!(validate_exclude_words(&[]), Ok(Vec::new()));
        assert_eq!(validate_exclude_words(&words(&["x"])), Err(MSG_EXCLUDE_TOO_SHORT));
        assert_eq!(validate_exclude_words(&words(&[&"a".repeat(41)])), Err(MSG_EXCLUDE_TOO_LONG));
        assert_eq!(validate_exclude_words(&words(&[&"é".repeat(40)])), Ok(words(&[&"é".repeat(40)])), "characters, not bytes");
        for bad in ["two words", "semi;colon", "<b>", "under_score", "zero\u{200B}width"] {
            assert_eq!(validate_exclude_words(&words(&[bad])), Err(MSG_EXCLUDE_UNSUPPORTED), "{bad:?}");
        }
        let eleven: Vec<String> = (0..11).map(|index| format!("word{index}")).collect();
        assert_eq!(validate_exclude_words(&eleven), Err(MSG_EXCLUDE_TOO_MANY));
        let ten_with_repeats: Vec<String> = (0..11).map(|index| format!("word{}", index.min(9))).collect();
        assert_eq!(validate_exclude_words(&ten_with_repeats).map(|cleaned| cleaned.len()), Ok(10), "repeats do not count");
    }
}
