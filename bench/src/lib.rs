//! Papertide's benchmark harness as a library, so that its scenarios are tested: the `ingest`
//! workload, the `relevance` evaluation and the `digest` run. The `papertide-bench` binary (`main.rs`) runs them.

pub mod digest;
pub mod relevance;
pub mod workload;
