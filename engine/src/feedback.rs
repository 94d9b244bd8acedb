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

impl Default for Rocchio {
    fn default() -> Rocchio {
        Rocchio::DEFAULT
    }
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

    /// The similarity of a paper with vector `paper` to a rated term whose adjusted vector is
    /// `adjusted` ([`TermFeedback::adjusted_topic`]): the cosine with it, and — once papers are
    /// liked — as much again from the paper's closeness to its nearest liked papers (the mean
    /// cosine with its [`NEAREST_LIKED`] closest), so a paper much like one the researcher wanted
    /// rises even where the topic's words and vector miss it.
    pub fn similarity(&self, adjusted: &[f32], paper: &[f32]) -> f32 {
        let to_topic = cosine(adjusted, paper);
        if self.relevant.is_empty() {
            return to_topic;
        }
        let mut nearest: Vec<f32> = self.relevant.iter().map(|liked| cosine(liked, paper)).collect();
        nearest.sort_by(|a, b| b.total_cmp(a));
        nearest.truncate(NEAREST_LIKED);
        let to_liked = nearest.iter().sum::<f32>() / nearest.len() as f32;
        LIKED_NEIGHBOURS_SHARE * to_liked + (1.0 - LIKED_NEIGHBOURS_SHARE) * to_topic
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

/// How many of the closest liked papers a paper's similarity reads.
pub const NEAREST_LIKED: usize = 3;
/// The share of a rated term's similarity that is the closeness to the liked papers.
pub const LIKED_NEIGHBOURS_SHARE: f32 = 0.5;

/// How many words of the papers rated relevant join a term's searched words.
pub const LIKED_WORDS: usize = 10;
/// The share of the searched words' weight that the liked papers' words take.
pub const LIKED_WORDS_SHARE: f32 = 0.5;

/// The words that the papers rated relevant have in common, with their weights (summing to 1):
/// each word's mean share of a liked paper's text times its idf, for words in at least two liked
/// papers (or the one, when only one is liked), the best [`LIKED_WORDS`]. Joined to the term's
/// own words, they let a rated term find and rank papers written like the ones its researcher
/// wants, whatever words the topic used (`liked` are the papers' analyzed words; `idf` reads a
/// word's idf in the index).
pub fn liked_words(liked: &[&crate::scoring::PaperText], own: &[String], idf: impl Fn(&str) -> f64) -> Vec<(String, f32)> {
    use std::collections::HashMap;
    if liked.is_empty() {
        return Vec::new();
    }
    let mut share: HashMap<&str, (f64, usize)> = HashMap::new();
    for text in liked {
        let length = f64::from(text.length.max(1));
        for (word, count) in &text.counts {
            let entry = share.entry(word.as_str()).or_insert((0.0, 0));
            entry.0 += f64::from(*count) / length;
            entry.1 += 1;
        }
    }
    let needed = if liked.len() == 1 { 1 } else { 2 };
    let mut scored: Vec<(&str, f64)> = share
        .into_iter()
        .filter(|(word, (_, papers))| *papers >= needed && !own.iter().any(|known| known == word) && word.chars().any(char::is_alphabetic))
        .map(|(word, (total, _))| (word, total / liked.len() as f64 * idf(word)))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    scored.truncate(LIKED_WORDS);
    let total: f64 = scored.iter().map(|(_, weight)| weight).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    scored.into_iter().map(|(word, weight)| (word.to_owned(), (weight / total) as f32)).collect()
}

/// The words a rated term is searched and scored with: its own words and the liked papers'
/// ([`liked_words`]), [`LIKED_WORDS_SHARE`] of the weight to the latter; the own words alone when
/// nothing is liked.
pub fn searched_words(own: &[String], liked: &[(String, f32)]) -> Vec<(String, f32)> {
    if liked.is_empty() || own.is_empty() {
        return Vec::new();
    }
    let each = (1.0 - LIKED_WORDS_SHARE) / own.len() as f32;
    let mut words: Vec<(String, f32)> = own.iter().map(|word| (word.clone(), each)).collect();
    words.extend(liked.iter().map(|(word, weight)| (word.clone(), weight * LIKED_WORDS_SHARE)));
    words
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
    fn liked_words_are_the_rare_words_the_liked_papers_share() {
        use crate::scoring::PaperText;
        let first = PaperText::from_words("mycobacterium isoniazid resist strain patient".split_whitespace());
        let second = PaperText::from_words("mycobacterium rifampicin resist patient cohort".split_whitespace());
        let idf = |word: &str| if word == "patient" { 0.5 } else { 4.0 };
        let words = liked_words(&[&first, &second], &["resist".to_owned()], idf);
        let names: Vec<&str> = words.iter().map(|(word, _)| word.as_str()).collect();
        assert_eq!(names, vec!["mycobacterium", "patient"], "shared by both, rarer first, the topic's own word left out");
        assert!((words.iter().map(|(_, weight)| weight).sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(liked_words(&[], &[], idf).is_empty());
        let searched = searched_words(&["resist".to_owned()], &words);
        assert_eq!(searched[0], ("resist".to_owned(), 0.5));
        assert!((searched.iter().map(|(_, weight)| weight).sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(searched_words(&["resist".to_owned()], &[]).is_empty());
    }

    #[test]
    fn exclusion_words_exclude_papers_that_have_them() {
        let feedback = TermFeedback { excluded_words: vec!["malaria".into()], ..TermFeedback::default() };
        assert!(feedback.is_excluded(["drug", "malaria", "resist"].into_iter()));
        assert!(!feedback.is_excluded(["drug", "tuberculosi"].into_iter()));
        assert!(!TermFeedback::default().is_excluded(["malaria"].into_iter()));
    }
}
