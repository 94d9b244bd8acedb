//! The HTTP contract as types: every request a route reads and every answer it writes, one
//! module per route group. Domain and storage types never go on the wire: each is converted
//! into its counterpart here with `From`, so a change inside `engine` or `store` cannot change
//! an answer unnoticed. Every type derives `ts_rs::TS`; [`crate::contract`] turns them into the
//! client's TypeScript, and a test fails when the checked-in file differs.
//!
//! Field order is the order the answers have always had on the wire: alphabetical where the
//! answer was built as a JSON map, as declared where a struct was serialized.

pub mod admin;
pub mod auth;
pub mod backup;
pub mod billing;
pub mod common;
pub mod config;
pub mod digests;
pub mod ratings;
pub mod rights;
pub mod terms;
pub mod users;
pub mod workflows;

pub use common::*;
