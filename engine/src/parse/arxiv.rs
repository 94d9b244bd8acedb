//! Parser for arxiv responses (being written).
