//! Parser for biorxiv responses (being written).
