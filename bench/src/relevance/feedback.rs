//! The `feedback` scenario: a researcher who rates what each digest shows, played with a test
//! collection's judgments.
//!
//! For every judged query (as a short topic by default), round 0 is the semantic digest's first
//! ten papers; in each later round the researcher has rated every paper shown so far (judged
//! relevant → "relevant", else "not relevant"), the term learns from the ratings
//! (`engine::feedback`), and the digest is ranked again. Each round is measured on the papers not
//! yet shown (the residual collection, so that showing a rated paper again earns nothing):
//! nDCG@10 and the precision of the set the digest would send, with the ratings and, on the same
//! residual papers, without them.

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Context;
use engine::dedup::DedupKey;
use engine::feedback::{Rocchio, TermFeedback};
use engine::paper::{AbstractSection, Paper, Source};
use engine::scoring::{evidence, relevance_by, Calibration, PaperText, MEANING_COVERS, SIMILARITY_WEIGHT};
use index::{PaperId, PaperIndex, PaperQuery};

use super::{measure, plain_words, Collection, DocumentVectors, CANDIDATES, DEPTH, WRITER_HEAP_BYTES};

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

/// Plays `rounds` rounds of ratings on `collection` (its queries as they are: pass the short
/// topics' collection for short topics).
pub fn evaluate_feedback(
    collection: &Collection,
    vectors: &DocumentVectors<'_>,
    rounds: usize,
    calibration: &Calibration,
    floor: f64,
    weights: &Rocchio,
) -> anyhow::Result<Vec<Round>> {
    let index = PaperIndex::create_in_ram().context("creating the index")?;
    let mut writer = index.writer(WRITER_HEAP_BYTES).context("index writer")?;
    let doi = |position: usize| format!("10.0000/feedback.{position}");
    let mut texts = Vec::with_capacity(collection.documents.len());
    for (position, document) in collection.documents.iter().enumerate() {
        let mut paper = Paper::new(Source::Pubmed, document.title.clone());
        paper.ids.doi = Some(doi(position));
        paper.abstract_sections = vec![AbstractSection { label: None, text: document.text.clone() }];
        let words = index.analyze(&format!("{} {}", paper.title, paper.abstract_text()));
        texts.push(PaperText::from_words(words.iter().map(String::as_str)));
        writer.upsert(paper)?;
    }
    writer.commit()?;
    let mut by_id: HashMap<PaperId, usize> = HashMap::new();
    for position in 0..collection.documents.len() {
        let (id, _) = index.find_with_id(&DedupKey::Doi(doi(position)))?.context("a document went missing from the index")?;
        by_id.insert(id, position);
    }
    let stats = index.collection_stats();
    let documents = &vectors.vectors;

    let mut per_round: Vec<Vec<Played>> = vec![Vec::new(); rounds + 1];
    for query in &collection.queries {
        let Some(judged) = collection.judgments.get(&query.id) else { continue };
        let wanted = PaperQuery::new(plain_words(&query.text), DEPTH);
        let bm25: Vec<usize> = index.rank(&wanted)?.iter().filter_map(|(id, _)| by_id.get(id).copied()).collect();
        let scored_query = index.scored_query(&index.analyze(&wanted.text), &[]);
        let topic = vectors.embedder.embed_query(&query.text)?;
        // The digest's ranking of the papers not shown, learning from `feedback`: the order, and
        // the sent set.
        let rank = |feedback: &TermFeedback, liked: &[usize], shown: &HashSet<usize>| -> (Vec<usize>, Vec<usize>) {
            let adjusted = feedback.adjusted_topic_with(&topic, weights);
            let mut by_cosine: Vec<(usize, f32)> = (0..documents.len())
                .filter(|position| !shown.contains(position))
                .map(|position| (position, feedback.similarity(&adjusted, &documents[position])))
                .collect();
            by_cosine.sort_by(|a, b| b.1.total_cmp(&a.1));
            let mut candidates: Vec<usize> = bm25.iter().copied().filter(|position| !shown.contains(position)).take(CANDIDATES).collect();
            for (position, _) in by_cosine.iter().take(CANDIDATES) {
                if !candidates.contains(position) {
                    candidates.push(*position);
                }
            }
            let cosine_of: HashMap<usize, f32> = by_cosine.iter().copied().collect();
            // The liked papers' words join the topic's.
            let liked_texts: Vec<&PaperText> = liked.iter().map(|&position| &texts[position]).collect();
            let own = index.analyze(&wanted.text);
            let idf_query =
                index.scored_query(&own, &liked_texts.iter().flat_map(|text| text.counts.keys().map(|word| (word.clone(), 1.0))).collect::<Vec<_>>());
            let idf: HashMap<&str, f64> = idf_query.searched.iter().map(|word| (word.word.as_str(), word.idf)).collect();
            let liked_words = engine::feedback::liked_words(&liked_texts, &own, |word| idf.get(word).copied().unwrap_or(0.0));
            let searched = engine::feedback::searched_words(&own, &liked_words);
            let rated_query = if searched.is_empty() { scored_query.clone() } else { index.scored_query(&own, &searched) };
            let evidence_of = |position: usize| evidence(&rated_query, &texts[position], &stats).with_similarity(cosine_of.get(&position).copied());
            let mut scored: Vec<(usize, f64, bool)> = candidates
                .iter()
                .map(|&position| {
                    let evidence = evidence_of(position);
                    let sendable = evidence.covers_key(MEANING_COVERS)
                        && !feedback.is_like_rejected(&documents[position], embed::cosine(&topic, &documents[position]));
                    (position, relevance_by(&evidence, calibration), sendable)
                })
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            let sent: Vec<usize> = scored
                .iter()
                .filter(|(_, relevance, sendable)| *sendable && *relevance >= floor)
                .take(SHOWN)
                .map(|(position, ..)| *position)
                .collect();
            let mut order: Vec<usize> = scored.iter().filter(|(_, _, sendable)| *sendable).map(|(position, ..)| *position).collect();
            let mut rest: Vec<(usize, f64)> = by_cosine
                .iter()
                .map(|&(position, cosine)| {
                    let strength = evidence(&rated_query, &texts[position], &stats).strength;
                    (position, SIMILARITY_WEIGHT * f64::from(cosine).max(0.0) + (1.0 - SIMILARITY_WEIGHT) * strength)
                })
                .collect();
            rest.sort_by(|a, b| b.1.total_cmp(&a.1));
            let chosen: HashSet<usize> = order.iter().copied().collect();
            order.extend(rest.into_iter().map(|(position, _)| position).filter(|position| !chosen.contains(position)));
            (order, sent)
        };
        let ids = |positions: &[usize]| -> Vec<String> {
            positions.iter().take(DEPTH).map(|&position| collection.documents[position].id.clone()).collect()
        };
        let relevant_of = |position: usize| judged.contains_key(&collection.documents[position].id);
        let mut shown: HashSet<usize> = HashSet::new();
        let mut feedback = TermFeedback::default();
        let mut liked: Vec<usize> = Vec::new();
        for round in per_round.iter_mut() {
            let residual: BTreeMap<String, u32> = judged
                .iter()
                .filter(|(id, _)| !shown.iter().any(|&position| &collection.documents[position].id == *id))
                .map(|(id, gain)| (id.clone(), *gain))
                .collect();
            let (order, sent) = rank(&feedback, &liked, &shown);
            if !residual.is_empty() {
                let (plain_order, plain_sent) = rank(&TermFeedback::default(), &[], &shown);
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
                let vector = documents[position].clone();
                if relevant_of(position) {
                    liked.push(position);
                    feedback.relevant.push(vector);
                } else {
                    feedback.rejected.push(vector);
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
