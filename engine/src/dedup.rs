//! Deduplication of papers (being written).
