//! The `relevance` scenario: how well Papertide's ranking orders a test collection's documents
//! for its queries, against the collection's relevance judgments.
//!
//! Every document becomes a paper (title, and its text as the abstract) in an in-memory index,
//! each under a synthetic DOI of its own so that deduplication keeps them apart; every query is
//! searched as its plain words (as a user's topic is) for the best 1,000 documents, through the
//! production search (`index::PaperIndex::search`: BM25 over title and abstract, English
//! stopwords dropped and words stemmed; `rank`, which orders exactly as `search` does without
//! loading the papers), or the production expanded search (`rank_expanded`, RM3). Only queries
//! with judgments count; the measures are in `metrics`.

pub mod collection;
pub mod metrics;

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context;
use engine::dedup::DedupKey;
pub use engine::expansion::Rm3;
use engine::paper::{AbstractSection, Paper, Source};
use engine::scoring::{relevance, Calibration};
use index::{PaperIndex, PaperQuery};

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
const CALIBRATION_DEPTH: usize = 100;

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
}

/// Indexes `collection` and ranks it for every judged query, with the query as typed (`None`) or
/// expanded by RM3 with `expansion`.
pub fn evaluate(collection: &Collection, expansion: Option<&Rm3>) -> anyhow::Result<Evaluation> {
    let index = PaperIndex::create_in_ram().context("creating the index")?;
    let started = Instant::now();
    let mut writer = index.writer(WRITER_HEAP_BYTES).context("index writer")?;
    let doi = |position: usize| format!("10.0000/relevance.{position}");
    for (position, document) in collection.documents.iter().enumerate() {
        let mut paper = Paper::new(Source::Pubmed, document.title.clone());
        paper.ids.doi = Some(doi(position));
        paper.abstract_sections = vec![AbstractSection { label: None, text: document.text.clone() }];
        writer.upsert(paper)?;
    }
    writer.commit()?;
    let mut by_id = HashMap::new();
    for (position, document) in collection.documents.iter().enumerate() {
        let (id, _) = index.find_with_id(&DedupKey::Doi(doi(position)))?.context("a document went missing from the index")?;
        by_id.insert(id, document.id.clone());
    }
    let index_seconds = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut per_query = Vec::new();
    let mut predictions: Vec<(f64, bool)> = Vec::new();
    for query in &collection.queries {
        let Some(relevant) = collection.judgments.get(&query.id) else {
            continue;
        };
        let wanted = PaperQuery::new(plain_words(&query.text), DEPTH);
        let ranked = match expansion {
            None => index.rank(&wanted)?,
            Some(params) => index.rank_expanded(&wanted, params)?.0,
        };
        let best = ranked.first().map_or(0.0, |(_, score)| *score);
        for (id, score) in ranked.iter().take(CALIBRATION_DEPTH) {
            let judged = by_id.get(id).is_some_and(|document| relevant.contains_key(document));
            predictions.push((relevance(*score, best, &Calibration::default()), judged));
        }
        let ranking: Vec<String> = ranked.iter().filter_map(|(id, _)| by_id.get(id).cloned()).collect();
        per_query.push(QueryResult { query: query.id.clone(), relevant: relevant.len(), measures: measure(&ranking, relevant) });
    }
    let search_seconds = started.elapsed().as_secs_f64();
    let all: Vec<Measures> = per_query.iter().map(|result| result.measures).collect();
    Ok(Evaluation {
        collection: collection.name.clone(),
        documents: collection.documents.len(),
        queries: per_query.len(),
        mean: mean(&all),
        per_query,
        index_seconds,
        search_seconds,
        calibration: calibration_bins(&predictions),
    })
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
