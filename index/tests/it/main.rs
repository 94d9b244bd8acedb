//! Integration tests of the paper index: in-RAM indexes (and a temporary directory where the disk
//! matters), papers built by hand.

mod backup;
mod common;
mod dedup;
mod expand;
mod properties;
mod search;
mod storage;
mod threads;
mod works;
