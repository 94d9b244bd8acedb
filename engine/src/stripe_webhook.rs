//! Stripe's webhook, everything done before an event is trusted: its signature
//! (`Stripe-Signature: t=TIMESTAMP,v1=HEX[,v1=HEX…]`), HMAC-SHA-256 of `TIMESTAMP.BODY` under the
//! endpoint's signing secret, compared in constant time, with the timestamp no more than five
//! minutes from now either way (replays of old deliveries fail); then the event's envelope and
//! what it is about. The caller passes `now`; what the event says is read again from Stripe.

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

/// How far a delivery's timestamp may be from now.
pub const TOLERANCE_SECS: i64 = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the Stripe-Signature header is missing")]
    Missing,
    #[error("the Stripe-Signature header is malformed")]
    Malformed,
    #[error("the webhook's timestamp is outside the five-minute tolerance")]
    Stale,
    #[error("no signature in the Stripe-Signature header matches")]
    Mismatch,
}

/// Checks `header` for `body` at `now` (Unix seconds).
pub fn verify(secret: &str, header: Option<&str>, body: &[u8], now: i64) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let Some((key, value)) = part.trim().split_once('=') else {
            continue;
        };
        match key {
            "t" => timestamp = Some(value.parse::<i64>().map_err(|_| SignatureError::Malformed)?),
            "v1" => signatures.push(hex::decode(value).map_err(|_| SignatureError::Malformed)?),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if (now - timestamp).abs() > TOLERANCE_SECS {
        return Err(SignatureError::Stale);
    }
    let signed = |key: &[u8]| {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    };
    // `verify_slice` compares in constant time.
    if signatures.iter().any(|signature| signed(secret.as_bytes()).verify_slice(signature).is_ok()) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// The parts of a webhook event billing reads; everything else is read again from Stripe.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub data: EventData,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EventData {
    pub object: serde_json::Value,
}

/// What an event is about, as far as plans go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A subscription, named by the event itself.
    Subscription(String),
    /// An invoice, whose subscription only Stripe knows (payment intents and charges).
    Invoice(String),
}

/// Reads a (verified) body as an event; `None` when it is not one.
pub fn parse_event(body: &[u8]) -> Option<Event> {
    serde_json::from_slice(body).ok()
}

/// The subscription or invoice `event` concerns, if it concerns one. An id may be given as a
/// string or as an expanded object with an `id`.
pub fn subject(event: &Event) -> Option<Subject> {
    let object = &event.data.object;
    let text = |key: &str| match &object[key] {
        serde_json::Value::String(id) => Some(id.clone()),
        serde_json::Value::Object(expanded) => expanded.get("id").and_then(|id| id.as_str()).map(str::to_owned),
        _ => None,
    };
    match object["object"].as_str().unwrap_or_default() {
        "subscription" => text("id").map(Subject::Subscription),
        "invoice" | "checkout.session" => text("subscription").map(Subject::Subscription),
        "payment_intent" | "charge" => text("invoice").map(Subject::Invoice),
        _ => None,
    }
}

/// The header Stripe would send for `body` at `timestamp`; for tests and tools.
pub fn sign(secret: &str, body: &[u8], timestamp: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={timestamp},v1={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_test";

    #[test]
    fn a_signed_body_passes_and_anything_changed_fails() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(SECRET, body, 1_700_000_000);
        assert_eq!(verify(SECRET, Some(&header), body, 1_700_000_100), Ok(()));
        assert_eq!(verify(SECRET, Some(&header), br#"{"id":"evt_2"}"#, 1_700_000_100), Err(SignatureError::Mismatch));
        assert_eq!(verify("whsec_other", Some(&header), body, 1_700_000_100), Err(SignatureError::Mismatch));
        assert_eq!(verify(SECRET, Some(&header), body, 1_700_000_000 + 300), Ok(()), "300 s is within the tolerance");
        assert_eq!(verify(SECRET, Some(&header), body, 1_700_000_000 - 300), Ok(()));
        assert_eq!(verify(SECRET, Some(&header), body, 1_700_000_000 + 301), Err(SignatureError::Stale));
        assert_eq!(verify(SECRET, Some(&header), body, 1_700_000_000 - 301), Err(SignatureError::Stale));
        assert_eq!(verify(SECRET, None, body, 1_700_000_000), Err(SignatureError::Missing));
        assert_eq!(verify(SECRET, Some("t=abc,v1=00"), body, 1_700_000_000), Err(SignatureError::Malformed));
        assert_eq!(verify(SECRET, Some("t=1700000000"), body, 1_700_000_000), Err(SignatureError::Malformed));
        let rolled = format!("t=1700000000,v1={},{}", "00".repeat(32), header.split(',').nth(1).unwrap_or_default());
        assert_eq!(verify(SECRET, Some(&rolled), body, 1_700_000_000), Ok(()), "any one v1 may match (secret rollover)");
    }

    #[test]
    fn an_event_is_about_the_subscription_it_names_or_its_invoice() {
        let subject_of = |object: &str| {
            let body = format!(r#"{{"id":"evt_1","type":"any","data":{{"object":{object}}}}}"#);
            parse_event(body.as_bytes()).and_then(|event| subject(&event))
        };
        let subscription = |id: &str| Some(Subject::Subscription(id.to_owned()));
        assert_eq!(subject_of(r#"{"object":"subscription","id":"sub_1"}"#), subscription("sub_1"));
        assert_eq!(subject_of(r#"{"object":"invoice","subscription":"sub_2"}"#), subscription("sub_2"));
        assert_eq!(subject_of(r#"{"object":"checkout.session","subscription":{"id":"sub_3"}}"#), subscription("sub_3"));
        assert_eq!(subject_of(r#"{"object":"charge","invoice":"in_1"}"#), Some(Subject::Invoice("in_1".to_owned())));
        assert_eq!(subject_of(r#"{"object":"customer","id":"cus_1"}"#), None);
        assert_eq!(subject_of(r#"{"object":"invoice","subscription":null}"#), None);
        assert_eq!(parse_event(b"{\"id\":\"evt_1\"}"), None, "an event has a type and data");
    }
}
