//! Parser for pubmed responses (being written).
