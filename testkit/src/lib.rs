//! What the test suites and the bench share to run Papertide against real peers: maildev as the
//! SMTP server ([`maildev`]), localstripe as Stripe ([`stripe`]), the replay server of recorded
//! source answers ([`replay`]), a loopback relay that puts faults in front of a peer ([`relay`]),
//! the `papertide` binary's launcher ([`server`]) and the polling waits ([`wait`]).
//!
//! The npm and Python peers themselves are installed into `tools/` (the README's test command
//! does it); this crate starts them and reads them. It is used by tests and the bench only.

pub mod maildev;
pub mod relay;
pub mod replay;
pub mod server;
pub mod stripe;
pub mod wait;

pub use maildev::Maildev;

/// A TCP port nobody listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).map(|address| address.port()).expect("a free loopback port")
}
