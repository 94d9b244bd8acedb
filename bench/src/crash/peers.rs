//! The test peers the crash scenario runs against, shared with the integration tests: maildev
//! (SMTP, read through its REST API), localstripe (Stripe) and the replay server of recorded
//! source responses. They live in `tools/testing/` and are included here by path.

#[path = "../../../tools/testing/maildev.rs"]
pub mod maildev;
#[path = "../../../tools/testing/replay.rs"]
#[allow(dead_code)]
pub mod replay;
#[path = "../../../tools/testing/stripe.rs"]
pub mod stripe;
