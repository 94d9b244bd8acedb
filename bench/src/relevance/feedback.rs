//! The `feedback` scenario: a researcher who rates what each digest shows, played with a test
//! collection's judgments.
//!
//! For every judged query (as a short topic by default), round 0 is the semantic digest's first
//! ten papers; in each later round the researcher has rated every paper shown so far (judged
//! relevant → "relevant", else "not relevant"), the term learns from the ratings, and the digest
//! is ranked again — by the service's own ranking: `engine::ranking::rank` over the collection,
//! then `engine::ranking::rerank` with the ratings, ordered and cut by `engine::digest::score`,
//! the papers already shown left out as a digest leaves out what it sent before. Each round is measured on the papers not
//! yet shown (the residual collection, so that showing a rated paper again earns nothing):
//! nDCG@10 and the precision of the set the digest would send, with the ratings and, on the same
//! residual papers, without them.

use std::collections::{BTreeMap, HashSet};

use engine::digest::Candidate;
use engine::feedback::Rocchio;
use engine::ranking::{rank, rerank, Knobs, Rated};
use engine::scoring::{Calibration, PaperText};

use super::{measure, Collection, DocumentVectors, IndexedCollection, DEPTH};

/// Papers shown per round.
pub const SHOWN: usize = 10;

/// One round's means over the queries that still have a relevant paper not shown.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Round {
    pub round: usize,
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub ndcg_at_10_without: f64,
    /// Precision of the sent set (papers sent, all queries together), with and without ratings.
    pub sent_precision: f64,
    pub sent_precision_without: f64,
    pub sent: usize,
    pub sent_without: usize,
}

/// One query's round: nDCG@10 with and without the ratings, and (papers sent, of them relevant)
/// with and without.
type Played = (f64, f64, (usize, usize), (usize, usize));

/// A digest of the papers not shown yet, from `candidates`: what it sends (best first, at most
/// [`SHOWN`]), and the order measured (the sent papers, then the other candidates by relevance).
pub(super) fn digest_of(
    indexed: &IndexedCollection,
    candidates: &[Candidate],
    shown: &HashSet<usize>,
    today: chrono::NaiveDate,
) -> (Vec<usize>, Vec<usize>) {
    let sent: Vec<usize> = engine::digest::score(candidates, today)
        .iter()
        .filter_map(|entry| entry.keys.iter().find_map(|key| indexed.position_of_key(key)))
        .filter(|position| !shown.contains(position))
        .take(SHOWN)
        .collect();
    let mut rest: Vec<(usize, f64)> = candidates
        .iter()
        .filter_map(|candidate| indexed.position_of(&candidate.paper).map(|position| (position, candidate.relevance)))
        .filter(|(position, _)| !shown.contains(position) && !sent.contains(position))
        .collect();
    rest.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut order = sent.clone();
    order.extend(rest.into_iter().map(|(position, _)| position));
    (order, sent)
}

/// Plays `rounds` rounds of ratings on `collection` (its queries as they are: pass the short
/// topics' collection for short topics), the ratings moving the topic by `weights`.
pub fn evaluate_feedback(
    collection: &Collection,
    vectors: &DocumentVectors<'_>,
    rounds: usize,
    calibration: &Calibration,
    weights: &Rocchio,
) -> anyhow::Result<Vec<Round>> {
    let indexed = IndexedCollection::of(collection)?;
    let corpus = indexed.corpus(Some(vectors));
    let texts: Vec<PaperText> = indexed
        .papers
        .iter()
        .map(|paper| {
            let words = indexed.index.analyze(&format!("{} {}", paper.title, paper.abstract_text()));
            PaperText::from_words(words.iter().map(String::as_str))
        })
        .collect();
    let knobs = Knobs { calibration: Some(*calibration), ..Knobs::default() };
    let today = chrono::Utc::now().date_naive();

    let mut per_round: Vec<Vec<Played>> = vec![Vec::new(); rounds + 1];
    for query in &collection.queries {
        let Some(judged) = collection.judgments.get(&query.id) else { continue };
        let ranking = rank(&corpus, &query.text, &[], &knobs)?;
        let digest = |candidates: &[Candidate], shown: &HashSet<usize>| digest_of(&indexed, candidates, shown, today);
        let ids = |positions: &[usize]| -> Vec<String> {
            positions.iter().take(DEPTH).map(|&position| collection.documents[position].id.clone()).collect()
        };
        let relevant_of = |position: usize| judged.contains_key(&collection.documents[position].id);
        let mut shown: HashSet<usize> = HashSet::new();
        let mut rated = Rated { rocchio: *weights, ..Rated::default() };
        for round in per_round.iter_mut() {
            let residual: BTreeMap<String, u32> = judged
                .iter()
                .filter(|(id, _)| !shown.iter().any(|&position| &collection.documents[position].id == *id))
                .map(|(id, gain)| (id.clone(), *gain))
                .collect();
            let (plain_order, plain_sent) = digest(&ranking.candidates, &shown);
            let (order, sent) = if rated.feedback.has_ratings() {
                digest(&rerank(&corpus, &ranking, &rated), &shown)
            } else {
                (plain_order.clone(), plain_sent.clone())
            };
            if !residual.is_empty() {
                let count = |sent: &[usize]| (sent.len(), sent.iter().filter(|&&position| relevant_of(position)).count());
                round.push((
                    measure(&ids(&order), &residual).ndcg_at_10,
                    measure(&ids(&plain_order), &residual).ndcg_at_10,
                    count(&sent),
                    count(&plain_sent),
                ));
            }
            // The researcher rates the ten shown.
            for &position in order.iter().take(SHOWN) {
                shown.insert(position);
                let vector = vectors.vectors[position].clone();
                if relevant_of(position) {
                    rated.liked_texts.push(texts[position].clone());
                    rated.feedback.relevant.push(vector);
                } else {
                    rated.feedback.rejected.push(vector);
                }
            }
        }
    }
    Ok(per_round
        .iter()
        .enumerate()
        .map(|(round, results)| {
            let queries = results.len().max(1) as f64;
            let (sent, relevant): (usize, usize) = results.iter().fold((0, 0), |(s, r), (_, _, (sent, relevant), _)| (s + sent, r + relevant));
            let (sent_without, relevant_without): (usize, usize) =
                results.iter().fold((0, 0), |(s, r), (_, _, _, (sent, relevant))| (s + sent, r + relevant));
            Round {
                round,
                queries: results.len(),
                ndcg_at_10: results.iter().map(|result| result.0).sum::<f64>() / queries,
                ndcg_at_10_without: results.iter().map(|result| result.1).sum::<f64>() / queries,
                sent_precision: if sent > 0 { relevant as f64 / sent as f64 } else { 0.0 },
                sent_precision_without: if sent_without > 0 { relevant_without as f64 / sent_without as f64 } else { 0.0 },
                sent,
                sent_without,
            }
        })
        .collect())
}
