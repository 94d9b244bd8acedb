//! Ranking measures, computed as trec_eval does: average precision over every relevant document
//! (a relevant document not retrieved counts as precision 0), precision at 10, recall at 100, and
//! nDCG at 10 with the judgment's gain, a log2 discount, and the ideal ranking of every judged
//! relevant document as the normaliser.

use std::collections::BTreeMap;

/// The measures of one ranking.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Measures {
    pub average_precision: f64,
    pub precision_at_10: f64,
    pub recall_at_100: f64,
    pub ndcg_at_10: f64,
}

/// Measures `ranking` (document ids, best first) against `relevant` (document id → gain > 0).
pub fn measure(ranking: &[String], relevant: &BTreeMap<String, u32>) -> Measures {
    if relevant.is_empty() {
        return Measures::default();
    }
    let total_relevant = relevant.len() as f64;
    let mut found = 0usize;
    let mut precision_sum = 0.0;
    for (rank, document) in ranking.iter().enumerate() {
        if relevant.contains_key(document) {
            found += 1;
            precision_sum += found as f64 / (rank + 1) as f64;
        }
    }
    let relevant_within = |depth: usize| ranking.iter().take(depth).filter(|document| relevant.contains_key(*document)).count() as f64;
    let discounted = |gains: &mut dyn Iterator<Item = u32>| -> f64 {
        gains.take(10).enumerate().map(|(rank, gain)| f64::from(gain) / ((rank + 2) as f64).log2()).sum()
    };
    let dcg = discounted(&mut ranking.iter().map(|document| relevant.get(document).copied().unwrap_or(0)));
    let mut ideal_gains: Vec<u32> = relevant.values().copied().collect();
    ideal_gains.sort_unstable_by(|a, b| b.cmp(a));
    let ideal = discounted(&mut ideal_gains.into_iter());
    Measures {
        average_precision: precision_sum / total_relevant,
        precision_at_10: relevant_within(10) / 10.0,
        recall_at_100: relevant_within(100) / total_relevant,
        ndcg_at_10: if ideal > 0.0 { dcg / ideal } else { 0.0 },
    }
}

/// The mean of each measure.
pub fn mean(all: &[Measures]) -> Measures {
    if all.is_empty() {
        return Measures::default();
    }
    let count = all.len() as f64;
    let sum = |value: fn(&Measures) -> f64| all.iter().map(value).sum::<f64>() / count;
    Measures {
        average_precision: sum(|m| m.average_precision),
        precision_at_10: sum(|m| m.precision_at_10),
        recall_at_100: sum(|m| m.recall_at_100),
        ndcg_at_10: sum(|m| m.ndcg_at_10),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|id| (*id).to_owned()).collect()
    }

    fn judged(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
        pairs.iter().map(|(id, gain)| ((*id).to_owned(), *gain)).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn average_precision_counts_missing_relevant_documents_as_zero() {
        // Relevant a (rank 1), c (rank 3); d never retrieved: (1/1 + 2/3 + 0) / 3.
        let measures = measure(&ids(&["a", "b", "c"]), &judged(&[("a", 1), ("c", 1), ("d", 1)]));
        assert!(close(measures.average_precision, (1.0 + 2.0 / 3.0) / 3.0));
        assert!(close(measures.precision_at_10, 0.2));
        assert!(close(measures.recall_at_100, 2.0 / 3.0));
    }

    #[test]
    fn ndcg_uses_gains_and_the_ideal_order_of_every_judged_document() {
        // Gains 1 at rank 1 and 3 at rank 2; ideal: 3 then 1.
        let measures = measure(&ids(&["x", "y"]), &judged(&[("x", 1), ("y", 3)]));
        let dcg = 1.0 + 3.0 / 3f64.log2();
        let ideal = 3.0 + 1.0 / 3f64.log2();
        assert!(close(measures.ndcg_at_10, dcg / ideal));
        let perfect = measure(&ids(&["y", "x"]), &judged(&[("x", 1), ("y", 3)]));
        assert!(close(perfect.ndcg_at_10, 1.0) && close(perfect.average_precision, 1.0));
        assert_eq!(measure(&ids(&["x"]), &BTreeMap::new()), Measures::default());
    }

    #[test]
    fn means_are_per_measure() {
        let a = Measures { average_precision: 1.0, precision_at_10: 0.5, recall_at_100: 1.0, ndcg_at_10: 0.0 };
        let b = Measures { average_precision: 0.0, precision_at_10: 0.1, recall_at_100: 0.5, ndcg_at_10: 1.0 };
        let both = mean(&[a, b]);
        assert!(close(both.average_precision, 0.5) && close(both.precision_at_10, 0.3) && close(both.ndcg_at_10, 0.5));
    }
}
