//! Integration tests of the web crate: the real application over HTTP on loopback, the real
//! binary for the CLI and crash tests, and maildev as a real SMTP peer.

mod abuse;
mod access;
mod architecture;
mod billing;
mod brute_force;
mod cli;
mod client;
mod common;
mod contract;
mod crash;
mod digests;
mod enumeration;
mod escaping;
mod faults;
mod first_week;
mod floods;
mod harvest;
mod headers;
mod health;
mod input_attacks;
mod live_search;
mod login;
mod papers;
mod password_reset;
mod payments;
mod ratings;
mod security;
mod signup;
mod smtp;
mod snapshots;
mod stripe_peer;
mod takeover;
mod terms;
mod users;
mod verification;
