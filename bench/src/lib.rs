//! Papertide's benchmark harness as a library, so that its scenarios are tested: the `ingest`
//! workload and the `relevance` evaluation. The `papertide-bench` binary (`main.rs`) runs them.

pub mod relevance;
pub mod workload;
