//! What a paper's sentence embedding is made of, and when it must be made again.
//!
//! A paper is embedded from one text, [`embedding_text`]; its vector is kept with the model that
//! made it and the [`text_hash`] of that text, and [`needs_embedding`] says when it is stale: no
//! vector, a vector of another model, or of a text the paper no longer has (a merge with a later
//! record changed its title or abstract).

use sha2::{Digest, Sha256};

use crate::paper::Paper;

/// The text a paper is embedded from: its title, ". ", then its abstract as
/// [`Paper::abstract_text`] gives it (section labels included). A paper without an abstract is
/// its title and the separator.
///
/// The model reads at most `embed::MAX_TOKENS` word pieces of it (256 for all-MiniLM-L6-v2) and
/// drops the rest, so the vector stands for the title and the start of the abstract; the whole
/// text is kept here all the same, so that its hash changes with any change of the abstract.
pub fn embedding_text(paper: &Paper) -> String {
    format!("{}. {}", paper.title, paper.abstract_text())
}

/// A stable hash of a text to embed: the first 8 bytes of its UTF-8 SHA-256, big-endian. The
/// same text gives the same hash in every version and on every machine, so a stored vector can
/// be checked against its paper's current text.
pub fn text_hash(text: &str) -> u64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// Whether a paper must be embedded (again): it has no stored vector, or `stored` — the model
/// and text hash its vector was made with — names another model than `model` or another text
/// than the one of hash `text_hash`.
pub fn needs_embedding(stored: Option<(&str, u64)>, model: &str, text_hash: u64) -> bool {
    match stored {
        Some((stored_model, stored_hash)) => stored_model != model || stored_hash != text_hash,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::{AbstractSection, Source};

    fn paper(title: &str, sections: &[(Option<&str>, &str)]) -> Paper {
        let mut paper = Paper::new(Source::Pubmed, title);
        paper.abstract_sections =
            sections.iter().map(|(label, text)| AbstractSection { label: label.map(str::to_owned), text: (*text).to_owned() }).collect();
        paper
    }

    #[test]
    fn the_text_is_the_title_then_the_abstract_with_its_labels() {
        let structured = paper("Statins and liver injury", &[(Some("BACKGROUND"), "Statins are common."), (Some("RESULTS"), "Injury was rare.")]);
        assert_eq!(embedding_text(&structured), "Statins and liver injury. BACKGROUND: Statins are common.\n\nRESULTS: Injury was rare.");
        assert_eq!(embedding_text(&paper("A title alone", &[])), "A title alone. ");
    }

    #[test]
    fn the_hash_is_stable_and_follows_the_text() {
        // The first 8 bytes of SHA-256("abc"), ba7816bf8f01cfea…: a hash that never changes.
        assert_eq!(text_hash("abc"), 0xba78_16bf_8f01_cfea);
        let text = embedding_text(&paper("Statins and liver injury", &[(None, "Injury was rare.")]));
        assert_eq!(text_hash(&text), text_hash(&text.clone()));
        assert_ne!(text_hash(&text), text_hash(&format!("{text} ")), "any change of the text changes the hash");
    }

    #[test]
    fn a_vector_is_stale_without_one_or_of_another_model_or_text() {
        assert!(needs_embedding(None, "model-a", 7));
        assert!(!needs_embedding(Some(("model-a", 7)), "model-a", 7));
        assert!(needs_embedding(Some(("model-b", 7)), "model-a", 7), "the model changed");
        assert!(needs_embedding(Some(("model-a", 8)), "model-a", 7), "the text changed");
    }
}
