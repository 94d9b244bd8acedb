//! What a term learns from its researcher's ratings.
//!
//! A rating says of one paper of a term's digest "relevant", "not relevant" or "more like this"
//! (`crate::rating`). The term learns in two ways, both on the papers' vectors (the embedding
//! model's), so they need a model:
//! - **Rocchio**: the topic's vector moves towards the papers rated relevant and away from the
//!   rejected ones, `q' = α·q + β·mean(relevant) − γ·mean(rejected)` (normalized); the paper's
//!   similarity to the term is read against `q'`, so papers like the liked ones rise and papers
//!   like the rejected ones fall, through the same calibrated curve as any similarity.
//! - **Neighbours**: a paper much closer to a rejected paper than to the topic and to every liked
//!   one is taken for more of what was rejected and is not sent (the chloroquine-resistance paper
//!   that shares "drug resistance" with a tuberculosis topic, once one like it was rejected).
//!
//! "More like this" counts as a relevant rating twice. Exclusion words are simpler: a paper with
//! one of the term's exclusion words (as the index analyzes them) is never sent.
//!
//! The weights were chosen with `papertide-bench feedback` on the short topics of MED, Cranfield
//! and SciFact (`bench/README.md`, "feedback").

/// Rocchio's weights: of the topic's own vector, of the mean of the papers rated relevant, and
/// of the mean of those rated not relevant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rocchio {
    pub alpha: f32,
    pub beta: f32,
    pub gamma: f32,
}

impl Rocchio {
    pub const DEFAULT: Rocchio = Rocchio { alpha: 1.0, beta: 0.75, gamma: 0.25 };
}
/// A paper whose cosine with a rejected paper exceeds its cosine with every liked paper and with
/// the topic by this much is more of what was rejected.
pub const REJECTED_NEIGHBOUR_MARGIN: f32 = 0.25;
/// ... and only when it is at least this close to the rejected paper.
pub const REJECTED_NEIGHBOUR_COSINE: f32 = 0.8;

/// A term's ratings, as the ranking reads them: the vectors of the papers rated either way
/// (papers without a vector yet are left out) and the exclusion words, analyzed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermFeedback {
    /// Rated relevant, "more like this" twice.
    pub relevant: Vec<Vec<f32>>,
    pub rejected: Vec<Vec<f32>>,
    /// The term's exclusion words as the index analyzes them.
    pub excluded_words: Vec<String>,
}

impl TermFeedback {
    /// Whether there is anything to learn from.
    pub fn is_empty(&self) -> bool {
        self.relevant.is_empty() && self.rejected.is_empty() && self.excluded_words.is_empty()
    }

    /// Whether the ratings move the topic's vector.
    pub fn has_ratings(&self) -> bool {
        !self.relevant.is_empty() || !self.rejected.is_empty()
    }

    /// The topic's vector moved by the ratings (Rocchio), unit length; the topic itself when
    /// there are none.
    pub fn adjusted_topic(&self, topic: &[f32]) -> Vec<f32> {
        self.adjusted_topic_with(topic, &Rocchio::DEFAULT)
    }

    /// [`TermFeedback::adjusted_topic`] with other weights (for measuring them).
    pub fn adjusted_topic_with(&self, topic: &[f32], weights: &Rocchio) -> Vec<f32> {
        if !self.has_ratings() {
            return topic.to_vec();
        }
        let mut adjusted: Vec<f32> = topic.iter().map(|value| weights.alpha * value).collect();
        add_mean(&mut adjusted, &self.relevant, weights.beta);
        add_mean(&mut adjusted, &self.rejected, -weights.gamma);
        normalize(&mut adjusted);
        adjusted
    }

    /// Whether a paper with vector `paper` (whose cosine with the topic is `topic_cosine`) is
    /// more of what was rejected (see the module docs).
    pub fn is_like_rejected(&self, paper: &[f32], topic_cosine: f32) -> bool {
        let closest = |vectors: &[Vec<f32>]| vectors.iter().map(|vector| cosine(paper, vector)).fold(f32::MIN, f32::max);
        if self.rejected.is_empty() {
            return false;
        }
        let rejected = closest(&self.rejected);
        let liked = if self.relevant.is_empty() { f32::MIN } else { closest(&self.relevant) };
        rejected >= REJECTED_NEIGHBOUR_COSINE && rejected - liked.max(topic_cosine) >= REJECTED_NEIGHBOUR_MARGIN
    }

    /// Whether `words` (a paper's analyzed words) hold one of the exclusion words.
    pub fn is_excluded<'a>(&self, mut words: impl Iterator<Item = &'a str>) -> bool {
        !self.excluded_words.is_empty() && words.any(|word| self.excluded_words.iter().any(|excluded| excluded == word))
    }
}

fn add_mean(into: &mut [f32], vectors: &[Vec<f32>], weight: f32) {
    if vectors.is_empty() {
        return;
    }
    let share = weight / vectors.len() as f32;
    for vector in vectors {
        for (value, add) in into.iter_mut().zip(vector) {
            *value += share * add;
        }
    }
}

fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
    if norm > f32::EPSILON {
        vector.iter_mut().for_each(|value| *value /= norm);
    }
}

/// The cosine of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norms = a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|y| y * y).sum::<f32>().sqrt();
    if norms > f32::EPSILON {
        dot / norms
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(values: &[f32]) -> Vec<f32> {
        let mut vector = values.to_vec();
        normalize(&mut vector);
        vector
    }

    #[test]
    fn ratings_move_the_topic_towards_liked_papers_and_away_from_rejected_ones() {
        let topic = unit(&[1.0, 1.0, 0.0]);
        let liked = unit(&[1.0, 0.0, 0.0]);
        let rejected = unit(&[0.0, 1.0, 0.0]);
        let feedback = TermFeedback { relevant: vec![liked.clone()], rejected: vec![rejected.clone()], excluded_words: Vec::new() };
        let adjusted = feedback.adjusted_topic(&topic);
        assert!(cosine(&adjusted, &liked) > cosine(&topic, &liked));
        assert!(cosine(&adjusted, &rejected) < cosine(&topic, &rejected));
        assert!((adjusted.iter().map(|value| value * value).sum::<f32>() - 1.0).abs() < 1e-5, "unit length");
        assert_eq!(TermFeedback::default().adjusted_topic(&topic), topic, "no ratings, no change");
    }

    #[test]
    fn a_paper_close_to_a_rejected_one_and_far_from_the_liked_ones_is_like_rejected() {
        let rejected = unit(&[0.0, 1.0, 0.0]);
        let liked = unit(&[1.0, 0.0, 0.0]);
        let feedback = TermFeedback { relevant: vec![liked], rejected: vec![rejected], excluded_words: Vec::new() };
        assert!(feedback.is_like_rejected(&unit(&[0.1, 1.0, 0.05]), 0.4));
        assert!(!feedback.is_like_rejected(&unit(&[1.0, 0.1, 0.0]), 0.4), "close to a liked paper");
        assert!(!feedback.is_like_rejected(&unit(&[0.1, 1.0, 0.05]), 0.9), "closer still to the topic");
        assert!(!TermFeedback::default().is_like_rejected(&unit(&[0.0, 1.0, 0.0]), 0.0), "nothing rejected");
    }

    #[test]
    fn exclusion_words_exclude_papers_that_have_them() {
        let feedback = TermFeedback { excluded_words: vec!["malaria".into()], ..TermFeedback::default() };
        assert!(feedback.is_excluded(["drug", "malaria", "resist"].into_iter()));
        assert!(!feedback.is_excluded(["drug", "tuberculosi"].into_iter()));
        assert!(!TermFeedback::default().is_excluded(["malaria"].into_iter()));
    }
}
