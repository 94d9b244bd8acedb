//! The paper index (being written).
