//! The stored vectors nearest a query: the best `k` by cosine, kept in a bounded min-heap while
//! the vectors stream past, so a term is ranked against every paper without sorting them all.
//!
//! Guarantees: best first; of equal scores the vector that came first ranks first (the order is
//! that of a stable sort of every vector by descending cosine, cut at `k`); a vector whose
//! cosine is not a number is left out.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::cosine;

/// The `k` vectors with the highest cosine with `query`, best first, as (key, cosine).
/// Vectors are expected normalized and of the query's dimension (see [`cosine`]).
pub fn nearest<'a, K: Copy>(query: &[f32], vectors: impl IntoIterator<Item = (K, &'a [f32])>, k: usize) -> Vec<(K, f32)> {
    if k == 0 {
        return Vec::new();
    }
    let mut kept: BinaryHeap<Kept<K>> = BinaryHeap::with_capacity(k);
    for (arrival, (key, vector)) in vectors.into_iter().enumerate() {
        let score = cosine(query, vector);
        if score.is_nan() {
            continue;
        }
        if kept.len() < k {
            kept.push(Kept { score, arrival, key });
            continue;
        }
        // A later arrival displaces the worst kept only with a strictly higher score.
        if let Some(mut worst) = kept.peek_mut() {
            if score.total_cmp(&worst.score) == Ordering::Greater {
                *worst = Kept { score, arrival, key };
            }
        }
    }
    kept.into_sorted_vec().into_iter().map(|kept| (kept.key, kept.score)).collect()
}

/// A vector in the heap. Ordered from best to worst (higher score, then earlier arrival), so the
/// max-heap's top is the worst kept and a sorted vector is best first.
struct Kept<K> {
    score: f32,
    arrival: usize,
    key: K,
}

impl<K> Ord for Kept<K> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.total_cmp(&self.score).then(self.arrival.cmp(&other.arrival))
    }
}

impl<K> PartialOrd for Kept<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<K> PartialEq for Kept<K> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<K> Eq for Kept<K> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vector by descending cosine, ties in arrival order (a stable sort), cut at `k`.
    fn by_full_sort(query: &[f32], vectors: &[Vec<f32>], k: usize) -> Vec<(usize, f32)> {
        let mut scored: Vec<(usize, f32)> = vectors.iter().enumerate().map(|(key, vector)| (key, cosine(query, vector))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(k);
        scored
    }

    fn keyed(vectors: &[Vec<f32>]) -> impl Iterator<Item = (usize, &[f32])> {
        vectors.iter().map(Vec::as_slice).enumerate()
    }

    #[test]
    fn the_best_come_first_with_their_cosines() {
        let vectors = vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![0.6, 0.8], vec![-1.0, 0.0]];
        let found = nearest(&[1.0, 0.0], keyed(&vectors), 2);
        assert_eq!(found, vec![(1, 1.0), (2, 0.6)]);
    }

    #[test]
    fn ties_keep_the_order_the_vectors_came_in() {
        let vectors = vec![vec![0.5, 0.0], vec![1.0, 0.0], vec![0.5, 0.0], vec![1.0, 0.0], vec![0.5, 0.0]];
        let found = nearest(&[1.0, 0.0], keyed(&vectors), 4);
        assert_eq!(found, vec![(1, 1.0), (3, 1.0), (0, 0.5), (2, 0.5)]);
    }

    #[test]
    fn zero_wanted_is_empty_and_fewer_vectors_than_wanted_are_all_returned() {
        let vectors = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        assert!(nearest(&[1.0, 0.0], keyed(&vectors), 0).is_empty());
        assert_eq!(nearest(&[1.0, 0.0], keyed(&vectors), 10), vec![(0, 1.0), (1, 0.0)]);
        assert!(nearest(&[1.0, 0.0], keyed(&[]), 3).is_empty());
    }

    #[test]
    fn a_vector_whose_cosine_is_not_a_number_is_left_out() {
        let vectors = vec![vec![f32::NAN, 0.0], vec![0.0, 1.0]];
        assert_eq!(nearest(&[1.0, 0.0], keyed(&vectors), 2), vec![(1, 0.0)]);
    }

    #[test]
    fn agrees_with_a_stable_full_sort_on_many_vectors_with_repeated_scores() {
        // Deterministic vectors whose cosines repeat (few distinct values), so ties abound.
        let vectors: Vec<Vec<f32>> =
            (0..500u32).map(|index| vec![((index * 7919) % 13) as f32 / 13.0, ((index * 104_729) % 5) as f32 / 5.0, 0.25]).collect();
        let query = [0.6, 0.8, 0.0];
        for k in [1, 7, 100, 499, 500, 600] {
            assert_eq!(nearest(&query, keyed(&vectors), k), by_full_sort(&query, &vectors, k), "k = {k}");
        }
    }

    #[test]
    fn keys_may_be_any_copy_type() {
        let vectors = [("paper-a", vec![0.1_f32]), ("paper-b", vec![0.9])];
        let found = nearest(&[1.0], vectors.iter().map(|(key, vector)| (*key, vector.as_slice())), 1);
        assert_eq!(found, vec![("paper-b", 0.9)]);
    }
}
