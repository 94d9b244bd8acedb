//! Stripe's webhook, everything the server does before it trusts an event: the
//! `Stripe-Signature` header checked against the body, then the body read as an event and what it
//! is about. The input is the header and the body, split at the first newline. Any bytes: no
//! panic; a body signed with the secret passes, and with any other secret or changed it fails.
#![no_main]

use libfuzzer_sys::fuzz_target;

use engine::stripe_webhook::{parse_event, sign, subject, verify, SignatureError, TOLERANCE_SECS};

const SECRET: &str = "whsec_fuzz";
const NOW: i64 = 1_700_000_000;

fuzz_target!(|data: &[u8]| {
    let (header_bytes, body) = match data.iter().position(|&byte| byte == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let header = String::from_utf8_lossy(header_bytes);
    if verify(SECRET, Some(&header), body, NOW).is_ok() {
        // Only a forged signature could get here without the secret.
        assert!(header.contains("v1="), "accepted without a signature: {header:?}");
    }
    if let Some(event) = parse_event(body) {
        let _ = subject(&event);
    }

    // What Stripe would send for this body passes; a tampered body, another secret or an old
    // timestamp does not.
    let timestamp = NOW - (body.len() as i64 % (TOLERANCE_SECS + 1));
    let signed = sign(SECRET, body, timestamp);
    assert_eq!(verify(SECRET, Some(&signed), body, NOW), Ok(()));
    assert_eq!(verify("whsec_other", Some(&signed), body, NOW), Err(SignatureError::Mismatch));
    let mut tampered = body.to_vec();
    tampered.push(b' ');
    assert_eq!(verify(SECRET, Some(&signed), &tampered, NOW), Err(SignatureError::Mismatch));
    assert_eq!(verify(SECRET, Some(&signed), body, timestamp + TOLERANCE_SECS + 1), Err(SignatureError::Stale));
});
