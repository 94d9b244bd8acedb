//! The `relevance` scenario: how well Papertide's ranking orders a test collection's documents
//! for its queries, against the collection's relevance judgments.
//!
//! Every document becomes a paper (title, and its text as the abstract) in an in-memory index,
//! each under a synthetic DOI of its own so that deduplication keeps them apart; every query is
//! searched as its plain words (as a user's topic is) for the best 1,000 documents, through the
//! production search (`index::PaperIndex::search`: BM25 over title and abstract, English
//! stopwords dropped and words stemmed; `rank`, which orders exactly as `search` does without
//! loading the papers), the production expanded search (`rank_expanded`, RM3), or the digest's
//! ranking: the expanded search's best [`CANDIDATES`] scored by `engine::scoring`'s absolute
//! relevance and ordered and cut by `engine::digest::score` (what a digest would send, best
//! first), then the rest of the expanded ranking. Only queries with judgments count; the
//! measures are in `metrics`. Every ranking also reports the calibration of the absolute
//! relevance over its best [`CALIBRATION_DEPTH`] hits, and keeps their evidence with the
//! judgment, to fit the calibration curve (`fit_calibration`).

pub mod collection;
pub mod metrics;

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context;
use engine::dedup::DedupKey;
use engine::digest::Candidate;
pub use engine::expansion::Rm3;
use engine::paper::{AbstractSection, Paper, Source};
pub use engine::scoring::Calibration;
use engine::scoring::{evidence, relevance, Evidence, MatchReason, PaperText};
use index::{PaperId, PaperIndex, PaperQuery};

pub use collection::{Collection, Format};
pub use metrics::{mean, measure, Measures};

/// How deep each ranking goes (trec_eval's usual depth).
pub const DEPTH: usize = 1_000;
const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

/// How well `engine::scoring::relevance` is calibrated: for the hits whose predicted relevance
/// falls in a bin, the share that the judgments call relevant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationBin {
    /// The bin's lower bound (bins are 0.1 wide).
    pub from: f64,
    pub hits: usize,
    /// Mean predicted relevance of the bin's hits.
    pub predicted: f64,
    /// Share of the bin's hits judged relevant.
    pub observed: f64,
}

/// How many of each query's best hits the calibration looks at.
pub const CALIBRATION_DEPTH: usize = 100;
/// How many of the expanded search's best hits a digest scores (as the digester does).
pub const CANDIDATES: usize = 100;

/// Which ranking to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranking {
    /// The query as typed (`PaperIndex::rank`).
    Bm25,
    /// Expanded by RM3 (`PaperIndex::rank_expanded`).
    Bm25Rm3(Rm3),
    /// The digest's: the expanded search's candidates by absolute relevance, cut at the floor.
    Digest(Rm3, Calibration),
    /// Every document by the cosine of its vector with the query's.
    Dense,
    /// The lexical ranking (plain, or expanded with RM3) and the dense one merged:
    /// `weight · cosine + (1 − weight) · BM25 / the query's best BM25`.
    Hybrid { rm3: Option<Rm3>, weight: f32 },
}

/// Every document's vector, made once per collection and model.
pub struct DocumentVectors<'a> {
    pub embedder: &'a embed::Embedder,
    pub vectors: Vec<Vec<f32>>,
    pub seconds: f64,
}

impl<'a> DocumentVectors<'a> {
    /// Embeds every document's title and text, or reads the vectors a run before made with the
    /// same model (kept in the system's temporary directory).
    pub fn of(collection: &Collection, embedder: &'a embed::Embedder) -> anyhow::Result<DocumentVectors<'a>> {
        let started = Instant::now();
        let cache = std::env::temp_dir()
            .join("papertide-bench-vectors")
            .join(format!("{}-{}-{}.json", collection.name, collection.documents.len(), &embedder.fingerprint()[..16]));
        if let Ok(bytes) = std::fs::read(&cache) {
            if let Ok(vectors) = serde_json::from_slice::<Vec<Vec<f32>>>(&bytes) {
                return Ok(DocumentVectors { embedder, vectors, seconds: started.elapsed().as_secs_f64() });
            }
        }
        let texts: Vec<String> = collection.documents.iter().map(|document| format!("{}. {}", document.title, document.text)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_documents(&refs)?;
        if let Some(parent) = cache.parent() {
            let _ = std::fs::create_dir_all(parent);
            let _ = std::fs::write(&cache, serde_json::to_vec(&vectors)?);
        }
        Ok(DocumentVectors { embedder, vectors, seconds: started.elapsed().as_secs_f64() })
    }

    /// Documents by cosine with `query`, best first, at most `depth`.
    fn ranked(&self, query: &str, depth: usize) -> anyhow::Result<Vec<(usize, f32)>> {
        let query = self.embedder.embed_query(query)?;
        let mut scored: Vec<(usize, f32)> = self.vectors.iter().enumerate().map(|(position, vector)| (position, embed::cosine(&query, vector))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(depth);
        Ok(scored)
    }
}

/// One judged hit's evidence, for fitting the calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub evidence: Evidence,
    pub relevant: bool,
}

/// One query's measures.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    pub query: String,
    pub relevant: usize,
    pub measures: Measures,
}

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub collection: String,
    pub documents: usize,
    /// Queries with judgments (the ones averaged).
    pub queries: usize,
    pub mean: Measures,
    pub per_query: Vec<QueryResult>,
    pub index_seconds: f64,
    pub search_seconds: f64,
    pub calibration: Vec<CalibrationBin>,
    /// The evidence of every query's best [`CALIBRATION_DEPTH`] hits, with their judgment.
    pub samples: Vec<Sample>,
}

/// Indexes `collection` and ranks it for every judged query, with the query as typed (`None`) or
/// expanded by RM3 with `expansion`.
pub fn evaluate(collection: &Collection, expansion: Option<&Rm3>) -> anyhow::Result<Evaluation> {
    match expansion {
        None => evaluate_ranking(collection, &Ranking::Bm25),
        Some(params) => evaluate_ranking(collection, &Ranking::Bm25Rm3(*params)),
    }
}

/// Indexes `collection` and ranks it with `ranking` for every judged query.
pub fn evaluate_ranking(collection: &Collection, ranking: &Ranking) -> anyhow::Result<Evaluation> {
    evaluate_ranking_with(collection, ranking, None)
}

/// [`evaluate_ranking`] with the documents' vectors, for the dense and hybrid rankings.
pub fn evaluate_ranking_with(collection: &Collection, ranking: &Ranking, vectors: Option<&DocumentVectors<'_>>) -> anyhow::Result<Evaluation> {
    let index = PaperIndex::create_in_ram().context("creating the index")?;
    let started = Instant::now();
    let mut writer = index.writer(WRITER_HEAP_BYTES).context("index writer")?;
    let doi = |position: usize| format!("10.0000/relevance.{position}");
    let mut papers = Vec::with_capacity(collection.documents.len());
    for (position, document) in collection.documents.iter().enumerate() {
        let mut paper = Paper::new(Source::Pubmed, document.title.clone());
        paper.ids.doi = Some(doi(position));
        paper.abstract_sections = vec![AbstractSection { label: None, text: document.text.clone() }];
        writer.upsert(paper.clone())?;
        papers.push(paper);
    }
    writer.commit()?;
    let mut by_id: HashMap<PaperId, usize> = HashMap::new();
    for position in 0..collection.documents.len() {
        let (id, _) = index.find_with_id(&DedupKey::Doi(doi(position)))?.context("a document went missing from the index")?;
        by_id.insert(id, position);
    }
    let texts: Vec<PaperText> = papers
        .iter()
        .map(|paper| {
            let words = index.analyze(&format!("{} {}", paper.title, paper.abstract_text()));
            PaperText::from_words(words.iter().map(String::as_str))
        })
        .collect();
    let stats = index.collection_stats();
    let index_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut per_query = Vec::new();
    let mut samples: Vec<Sample> = Vec::new();
    let calibration = match ranking {
        Ranking::Digest(_, calibration) => *calibration,
        _ => Calibration::default(),
    };
    for query in &collection.queries {
        let Some(relevant) = collection.judgments.get(&query.id) else {
            continue;
        };
        let wanted = PaperQuery::new(plain_words(&query.text), DEPTH);
        let (ranked, expansion) = match ranking {
            Ranking::Bm25 | Ranking::Dense | Ranking::Hybrid { rm3: None, .. } => (index.rank(&wanted)?, Vec::new()),
            Ranking::Bm25Rm3(params) | Ranking::Digest(params, _) | Ranking::Hybrid { rm3: Some(params), .. } => index.rank_expanded(&wanted, params)?,
        };
        let positions: Vec<usize> = ranked.iter().filter_map(|(id, _)| by_id.get(id).copied()).collect();
        let scores: Vec<f32> = ranked.iter().filter(|(id, _)| by_id.contains_key(id)).map(|(_, score)| *score).collect();
        let scored_query = index.scored_query(&index.analyze(&wanted.text), &expansion);
        let evidence_of = |position: usize| evidence(&scored_query, &texts[position], &stats);
        let is_relevant = |position: usize| relevant.contains_key(&collection.documents[position].id);
        for &position in positions.iter().take(CALIBRATION_DEPTH) {
            samples.push(Sample { evidence: evidence_of(position), relevant: is_relevant(position) });
        }
        let order = match ranking {
            Ranking::Digest(..) => digest_order(&positions, &scores, &papers, |position| relevance(&evidence_of(position), &calibration)),
            Ranking::Dense => {
                let vectors = vectors.context("the dense ranking needs the documents' vectors")?;
                vectors.ranked(&query.text, DEPTH)?.into_iter().map(|(position, _)| position).collect()
            }
            Ranking::Hybrid { weight, .. } => {
                let vectors = vectors.context("the hybrid ranking needs the documents' vectors")?;
                hybrid_order(&positions, &scores, &vectors.ranked(&query.text, collection.documents.len())?, *weight)
            }
            _ => positions,
        };
        let ids: Vec<String> = order.iter().map(|&position| collection.documents[position].id.clone()).collect();
        per_query.push(QueryResult { query: query.id.clone(), relevant: relevant.len(), measures: measure(&ids, relevant) });
    }
    let search_seconds = started.elapsed().as_secs_f64();
    let all: Vec<Measures> = per_query.iter().map(|result| result.measures).collect();
    let predictions: Vec<(f64, bool)> = samples.iter().map(|sample| (relevance(&sample.evidence, &calibration), sample.relevant)).collect();
    Ok(Evaluation {
        collection: collection.name.clone(),
        documents: collection.documents.len(),
        queries: per_query.len(),
        mean: mean(&all),
        per_query,
        index_seconds,
        search_seconds,
        calibration: calibration_bins(&predictions),
        samples,
    })
}

/// Lexical and dense merged: every document of either list, by `weight · cosine + (1 − weight) ·
/// BM25 / best BM25` (a document the lexical search missed has BM25 0).
fn hybrid_order(positions: &[usize], scores: &[f32], dense: &[(usize, f32)], weight: f32) -> Vec<usize> {
    let best = scores.iter().copied().fold(0.0f32, f32::max).max(f32::EPSILON);
    let lexical: HashMap<usize, f32> = positions.iter().zip(scores).map(|(&position, &score)| (position, score / best)).collect();
    let mut fused: Vec<(usize, f32)> =
        dense.iter().map(|&(position, cosine)| (position, weight * cosine + (1.0 - weight) * lexical.get(&position).copied().unwrap_or(0.0))).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    fused.truncate(DEPTH);
    fused.into_iter().map(|(position, _)| position).collect()
}

/// The digest's order of an expanded ranking (`positions`, best first): its best [`CANDIDATES`]
/// as `engine::digest::score` orders and cuts them, then the rest in the search's order.
fn digest_order(positions: &[usize], scores: &[f32], papers: &[Paper], relevance_of: impl Fn(usize) -> f64) -> Vec<usize> {
    let window = positions.len().min(CANDIDATES);
    let candidates: Vec<Candidate> = positions[..window]
        .iter()
        .zip(scores)
        .map(|(&position, &score)| Candidate {
            paper: papers[position].clone(),
            score,
            relevance: relevance_of(position),
            reason: MatchReason::default(),
        })
        .collect();
    let today = chrono::Utc::now().date_naive();
    let position_of_key: HashMap<String, usize> =
        positions[..window].iter().filter_map(|&position| papers[position].ids.doi.clone().map(|doi| (format!("doi:{doi}"), position))).collect();
    let mut order: Vec<usize> =
        engine::digest::score(&candidates, today).iter().filter_map(|entry| entry.keys.iter().find_map(|key| position_of_key.get(key).copied())).collect();
    let chosen: std::collections::HashSet<usize> = order.iter().copied().collect();
    order.extend(positions.iter().filter(|position| !chosen.contains(position)));
    order
}

/// Fits [`Calibration`] by logistic regression (Newton's method) of "judged relevant" on the
/// evidence of `collections`' samples, each collection weighing the same however many samples
/// it has. Coverage may only raise relevance: if the free fit gives it a negative weight (long
/// queries cover less of themselves and have many relevant papers, a collection's habit rather
/// than evidence), it is fitted again without coverage.
pub fn fit_calibration(collections: &[&[Sample]]) -> Calibration {
    let mut rows: Vec<(Evidence, f64, f64)> = Vec::new();
    for samples in collections.iter().filter(|samples| !samples.is_empty()) {
        let weight = 1.0 / samples.len() as f64;
        rows.extend(samples.iter().map(|sample| (sample.evidence, f64::from(u8::from(sample.relevant)), weight)));
    }
    let with_coverage = logistic_fit(&rows, |evidence| vec![evidence.strength, evidence.coverage, 1.0]);
    if with_coverage[1] >= 0.0 {
        return Calibration { strength_weight: with_coverage[0], coverage_weight: with_coverage[1], intercept: with_coverage[2] };
    }
    let strength_only = logistic_fit(&rows, |evidence| vec![evidence.strength, 1.0]);
    Calibration { strength_weight: strength_only[0], coverage_weight: 0.0, intercept: strength_only[1] }
}

/// Weighted logistic regression of the labels of `rows` on `features`.
fn logistic_fit(rows: &[(Evidence, f64, f64)], features: impl Fn(&Evidence) -> Vec<f64>) -> Vec<f64> {
    let width = rows.first().map_or(0, |(evidence, _, _)| features(evidence).len());
    let mut beta = vec![0.0_f64; width];
    for _ in 0..50 {
        let mut gradient = vec![0.0_f64; width];
        let mut hessian = vec![vec![0.0_f64; width]; width];
        for (evidence, label, weight) in rows {
            let x = features(evidence);
            let logit: f64 = x.iter().zip(&beta).map(|(value, coefficient)| value * coefficient).sum();
            let p = 1.0 / (1.0 + (-logit).exp());
            for i in 0..width {
                gradient[i] += weight * (label - p) * x[i];
                for j in 0..width {
                    hessian[i][j] += weight * p * (1.0 - p) * x[i] * x[j];
                }
            }
        }
        // A touch of ridge keeps the system solvable when a feature barely varies.
        for (i, row) in hessian.iter_mut().enumerate() {
            row[i] += 1e-6;
        }
        let Some(step) = solve(hessian, gradient) else { break };
        beta.iter_mut().zip(&step).for_each(|(coefficient, change)| *coefficient += change);
        if step.iter().all(|change| change.abs() < 1e-9) {
            break;
        }
    }
    beta
}

/// Solves `a · x = b` (Gaussian elimination with partial pivoting).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for column in 0..n {
        let pivot = (column..n).max_by(|&x, &y| a[x][column].abs().total_cmp(&a[y][column].abs()))?;
        if a[pivot][column].abs() < 1e-12 {
            return None;
        }
        a.swap(column, pivot);
        b.swap(column, pivot);
        let (upper, lower) = a.split_at_mut(column + 1);
        let pivot_row = &upper[column];
        for (offset, row) in lower.iter_mut().enumerate() {
            let factor = row[column] / pivot_row[column];
            row.iter_mut().zip(pivot_row).skip(column).for_each(|(value, pivot_value)| *value -= factor * pivot_value);
            b[column + 1 + offset] -= factor * b[column];
        }
    }
    let mut x = vec![0.0_f64; n];
    for row in (0..n).rev() {
        let known: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - known) / a[row][row];
    }
    Some(x)
}

fn calibration_bins(predictions: &[(f64, bool)]) -> Vec<CalibrationBin> {
    (0..10)
        .filter_map(|bin| {
            let from = f64::from(bin) / 10.0;
            let inside: Vec<&(f64, bool)> =
                predictions.iter().filter(|(predicted, _)| *predicted >= from && (*predicted < from + 0.1 || bin == 9)).collect();
            if inside.is_empty() {
                return None;
            }
            let hits = inside.len();
            let predicted = inside.iter().map(|(predicted, _)| predicted).sum::<f64>() / hits as f64;
            let observed = inside.iter().filter(|(_, judged)| *judged).count() as f64 / hits as f64;
            Some(CalibrationBin { from, hits, predicted, observed })
        })
        .collect()
}

/// The query's words, without anything the query syntax would read as an operator.
fn plain_words(text: &str) -> String {
    text.split(|character: char| !character.is_alphanumeric()).filter(|word| !word.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_known_curve_and_keeps_coverage_from_lowering_relevance() {
        // Labels drawn deterministically from a known curve: strength weight 6, intercept -3.
        let known = Calibration { strength_weight: 6.0, coverage_weight: 0.0, intercept: -3.0 };
        let mut samples = Vec::new();
        for step in 0..=100 {
            let strength = f64::from(step) / 100.0;
            let p = relevance(&Evidence { coverage: 0.5, strength }, &known);
            for draw in 0..50 {
                samples.push(Sample { evidence: Evidence { coverage: 0.5, strength }, relevant: f64::from(draw) / 50.0 < p });
            }
        }
        let fitted = fit_calibration(&[&samples]);
        assert!((fitted.strength_weight - 6.0).abs() < 0.3, "{fitted:?}");
        assert!((fitted.intercept + fitted.coverage_weight * 0.5 + 3.0).abs() < 0.3, "{fitted:?}");
        assert!(fitted.coverage_weight >= 0.0, "{fitted:?}");
    }
}
