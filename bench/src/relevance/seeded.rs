//! The `seeded` scenario: a researcher who seeds each topic with papers they know, played with a
//! test collection's judgments.
//!
//! For every judged query with more relevant papers than seeds, the seeds are its first
//! `seeds` judged-relevant papers in the collection's order (a fixed, reproducible choice). The
//! first digest is ranked by the service's own ranking (`engine::ranking::rank`, then
//! `engine::ranking::rerank` with the seeds as the digester reads them: ratings "relevant" marked
//! seeded, whose papers are never sent), ordered and cut by `engine::digest::score`, and measured
//! on the other judged papers (the seeds are known, so finding them earns nothing): nDCG@10 and
//! the precision of the set the digest sends, with the seeds and, on the same papers, without.

use std::collections::{BTreeMap, HashSet};

use engine::ranking::{rank, rerank, Knobs, Rated};
use engine::scoring::{Calibration, PaperText, TaughtBy};

use super::feedback::digest_of;
use super::{measure, Collection, DocumentVectors, IndexedCollection, DEPTH};

/// The first digest's figures over the queries that had enough relevant papers to seed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Seeded {
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub ndcg_at_10_without: f64,
    pub sent_precision: f64,
    pub sent_precision_without: f64,
    pub sent: usize,
    pub sent_without: usize,
}

/// Plays the seeded first digest on `collection` (its queries as they are).
pub fn evaluate_seeded(collection: &Collection, vectors: &DocumentVectors<'_>, seeds: usize, calibration: &Calibration) -> anyhow::Result<Seeded> {
    let indexed = IndexedCollection::of(collection)?;
    let corpus = indexed.corpus(Some(vectors));
    let knobs = Knobs { calibration: Some(*calibration), ..Knobs::default() };
    let today = chrono::Utc::now().date_naive();
    let position_of_id: BTreeMap<&str, usize> =
        collection.documents.iter().enumerate().map(|(position, document)| (document.id.as_str(), position)).collect();
    let mut figures = Seeded::default();
    let (mut ndcg, mut ndcg_without) = (0.0, 0.0);
    let (mut relevant_sent, mut relevant_sent_without) = (0, 0);
    for query in &collection.queries {
        let Some(judged) = collection.judgments.get(&query.id) else { continue };
        let mut relevant: Vec<usize> =
            judged.iter().filter(|(_, gain)| **gain > 0).filter_map(|(id, _)| position_of_id.get(id.as_str()).copied()).collect();
        relevant.sort_unstable();
        if relevant.len() <= seeds {
            continue;
        }
        let seeded: HashSet<usize> = relevant.iter().take(seeds).copied().collect();
        // The seeds as `actors::Digester::rated` reads a term's seeded ratings.
        let mut rated = Rated { taught_by: TaughtBy::Seeds, ..Rated::default() };
        for &position in &seeded {
            let paper = &indexed.papers[position];
            let words = indexed.index.analyze(&format!("{} {}", paper.title, paper.abstract_text()));
            rated.liked_texts.push(PaperText::from_words(words.iter().map(String::as_str)));
            rated.feedback.relevant.push(vectors.vectors[position].clone());
            rated.known.extend(engine::dedup::dedup_keys(paper).iter().map(ToString::to_string));
        }
        let ranking = rank(&corpus, &query.text, &[], &knobs)?;
        // Without seeds nothing is known: the seeds may be sent, but earn nothing.
        let (plain_order, plain_sent) = digest_of(&indexed, &ranking.candidates, &HashSet::new(), today);
        let (order, sent) = digest_of(&indexed, &rerank(&corpus, &ranking, &rated), &seeded, today);
        let residual: BTreeMap<String, u32> = judged
            .iter()
            .filter(|(id, _)| position_of_id.get(id.as_str()).is_none_or(|position| !seeded.contains(position)))
            .map(|(id, gain)| (id.clone(), *gain))
            .collect();
        let ids = |positions: &[usize]| -> Vec<String> {
            positions
                .iter()
                .filter(|position| !seeded.contains(position))
                .take(DEPTH)
                .map(|&position| collection.documents[position].id.clone())
                .collect()
        };
        let is_relevant =
            |position: &usize| !seeded.contains(position) && residual.get(&collection.documents[*position].id).is_some_and(|gain| *gain > 0);
        figures.queries += 1;
        ndcg += measure(&ids(&order), &residual).ndcg_at_10;
        ndcg_without += measure(&ids(&plain_order), &residual).ndcg_at_10;
        figures.sent += sent.len();
        relevant_sent += sent.iter().filter(|position| is_relevant(position)).count();
        figures.sent_without += plain_sent.len();
        relevant_sent_without += plain_sent.iter().filter(|position| is_relevant(position)).count();
    }
    let queries = figures.queries.max(1) as f64;
    figures.ndcg_at_10 = ndcg / queries;
    figures.ndcg_at_10_without = ndcg_without / queries;
    figures.sent_precision = if figures.sent > 0 { relevant_sent as f64 / figures.sent as f64 } else { 0.0 };
    figures.sent_precision_without = if figures.sent_without > 0 { relevant_sent_without as f64 / figures.sent_without as f64 } else { 0.0 };
    Ok(figures)
}
