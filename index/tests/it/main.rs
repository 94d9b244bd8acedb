//! Index tests (being written).
