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
pub mod feedback;
pub mod metrics;
pub mod seeded;

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context;
use engine::dedup::DedupKey;
use engine::digest::Candidate;
pub use engine::expansion::Rm3;
use engine::paper::{AbstractSection, Paper, Source};
use engine::ranking::{Corpus, Expanded, Found, Knobs};
pub use engine::scoring::Calibration;
use engine::scoring::{evidence, relevance_by, Evidence, PaperText};
use index::{PaperId, PaperIndex, PaperQuery};

pub use collection::{Collection, Format};
pub use metrics::{mean, measure, Measures};

/// How deep each ranking goes (trec_eval's usual depth).
pub const DEPTH: usize = 1_000;
pub(crate) const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

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
/// How many of the expanded search's best hits a digest scores (the recipe's, as the digester's).
pub const CANDIDATES: usize = engine::recipe::CANDIDATES;

/// Which ranking to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranking {
    /// The query as typed (`PaperIndex::rank`).
    Bm25,
    /// Expanded by RM3 (`PaperIndex::rank_expanded`).
    Bm25Rm3(Rm3),
    /// The lexical digest's (no embedding model): the expanded search's candidates by absolute
    /// relevance, cut at the floor.
    Digest(Rm3, Calibration),
    /// Every document by the cosine of its vector with the query's.
    Dense,
    /// Every document by `weight · cosine + (1 − weight) · strength` (the absolute evidence).
    Fused { weight: f64 },
    /// The semantic digest's (with a model): the best [`CANDIDATES`] of BM25 and of the cosine
    /// together, by absolute relevance (`engine::scoring`, similarity included), each key concept
    /// shown by evidence of its own (the second value: a concept's own cosine from which it is
    /// shown in meaning, `engine::concepts::MeaningCovers::SERVICE` as the service ranks; the third: the
    /// share of the rarest concept's idf from which a concept is key, `KEY_CONCEPT_SHARE`), cut at
    /// the floor; then every other document by the fused score.
    SemanticDigest(Calibration, engine::concepts::MeaningCovers, f64),
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
        // The weights' hash, and the word-piece limit when one was set below the model's.
        let fingerprint = embedder.fingerprint();
        let model = match fingerprint.split_once(':') {
            Some((weights, limit)) => format!("{}-{limit}", &weights[..16.min(weights.len())]),
            None => fingerprint[..16.min(fingerprint.len())].to_owned(),
        };
        // Keyed by the documents' text, so collections over one corpus (the trap collection
        // over SciFact's) share their vectors.
        let texts: Vec<String> = collection.documents.iter().map(|document| format!("{}. {}", document.title, document.text)).collect();
        let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
        for text in &texts {
            sha2::Digest::update(&mut hasher, text.as_bytes());
            sha2::Digest::update(&mut hasher, [0u8]);
        }
        let corpus = hex::encode(&sha2::Digest::finalize(hasher)[..8]);
        let cache = std::env::temp_dir().join("papertide-bench-vectors").join(format!("{corpus}-{}-{model}.json", collection.documents.len()));
        if let Ok(bytes) = std::fs::read(&cache) {
            if let Ok(vectors) = serde_json::from_slice::<Vec<Vec<f32>>>(&bytes) {
                return Ok(DocumentVectors { embedder, vectors, seconds: started.elapsed().as_secs_f64() });
            }
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_documents(&refs)?;
        if let Some(parent) = cache.parent() {
            let _ = std::fs::create_dir_all(parent);
            let _ = std::fs::write(&cache, serde_json::to_vec(&vectors)?);
        }
        Ok(DocumentVectors { embedder, vectors, seconds: started.elapsed().as_secs_f64() })
    }
}

/// One judged hit's evidence, for fitting the calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub evidence: Evidence,
    pub relevant: bool,
    /// Its query's position among the judged queries.
    pub query: usize,
    /// How many documents the query's judgments call relevant.
    pub judged_relevant: usize,
    /// Per own word of the topic: its idf and whether the document has it (to study concept
    /// rules).
    pub words: Vec<(f64, bool)>,
}

/// One query's measures.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    pub query: String,
    pub relevant: usize,
    pub measures: Measures,
    /// What a digest sends for it, best first (`engine::digest::score`'s best
    /// [`engine::digest::MAX_PAPERS`]; digest rankings only).
    pub sent: Vec<String>,
    /// Why each sent document matched (its reason line), in the same order.
    pub reasons: Vec<String>,
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
    let started = Instant::now();
    let indexed = IndexedCollection::of(collection)?;
    let IndexedCollection { index, papers, by_id, .. } = &indexed;
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
        Ranking::Digest(_, calibration) | Ranking::SemanticDigest(calibration, ..) => *calibration,
        Ranking::Dense | Ranking::Fused { .. } => Calibration::SEMANTIC,
        Ranking::Bm25 | Ranking::Bm25Rm3(_) => Calibration::LEXICAL,
    };
    let semantic = matches!(ranking, Ranking::Dense | Ranking::Fused { .. } | Ranking::SemanticDigest(..));
    let vectors = if semantic { Some(vectors.context("this ranking needs the documents' vectors")?) } else { None };
    for query in &collection.queries {
        let Some(relevant) = collection.judgments.get(&query.id) else {
            continue;
        };
        let wanted = PaperQuery::new(plain_words(&query.text), DEPTH);
        let (ranked, expansion) = match ranking {
            Ranking::Bm25Rm3(params) | Ranking::Digest(params, ..) => index.rank_expanded(&wanted, params)?,
            _ => (index.rank(&wanted)?, Vec::new()),
        };
        let positions: Vec<usize> = ranked.iter().filter_map(|(id, _)| by_id.get(id).copied()).collect();
        let scored_query = index.scored_query(&index.analyze(&wanted.text), &expansion);
        let query_vector = vectors.map(|vectors| vectors.embedder.embed_query(&query.text)).transpose()?;
        let words_of = |position: usize| -> Vec<(f64, bool)> {
            scored_query.own.iter().map(|word| (word.idf, texts[position].counts.contains_key(&word.word))).collect()
        };
        let evidence_of = |position: usize| {
            let lexical = evidence(&scored_query, &texts[position], &stats);
            match (&query_vector, vectors) {
                (Some(query), Some(vectors)) => lexical.with_similarity(Some(embed::cosine(query, &vectors.vectors[position]))),
                _ => lexical,
            }
        };
        let is_relevant = |position: usize| relevant.contains_key(&collection.documents[position].id);
        // Every document by the fused score (semantic rankings only).
        let fused = |weight: f64| -> Vec<(usize, f64)> {
            let mut fused: Vec<(usize, f64)> = (0..collection.documents.len())
                .map(|position| {
                    let evidence = evidence_of(position);
                    (position, weight * evidence.similarity.unwrap_or(0.0) + (1.0 - weight) * evidence.strength)
                })
                .collect();
            fused.sort_by(|a, b| b.1.total_cmp(&a.1));
            fused
        };
        let mut digest_evidence: Option<Vec<Evidence>> = None;
        let mut sent: Vec<String> = Vec::new();
        let mut reasons: Vec<String> = Vec::new();
        let (candidates, order): (Vec<usize>, Vec<usize>) = match ranking {
            Ranking::Bm25 | Ranking::Bm25Rm3(_) => (positions.iter().copied().take(CALIBRATION_DEPTH).collect(), positions),
            Ranking::Dense => {
                let by_cosine: Vec<usize> = fused(1.0).into_iter().map(|(position, _)| position).collect();
                (by_cosine.iter().copied().take(CALIBRATION_DEPTH).collect(), by_cosine)
            }
            Ranking::Fused { weight } => {
                let by_score: Vec<usize> = fused(*weight).into_iter().map(|(position, _)| position).collect();
                (by_score.iter().copied().take(CALIBRATION_DEPTH).collect(), by_score)
            }
            Ranking::Digest(..) | Ranking::SemanticDigest(..) => {
                let service = rank_as_the_service(collection, &indexed, vectors, ranking, &query.text, &positions, &fused)?;
                (sent, reasons, digest_evidence) = (service.sent, service.reasons, Some(service.evidence));
                (service.found, service.order)
            }
        };
        for (rank, &position) in candidates.iter().enumerate() {
            samples.push(Sample {
                evidence: digest_evidence.as_ref().and_then(|evidence| evidence.get(rank).copied()).unwrap_or_else(|| evidence_of(position)),
                relevant: is_relevant(position),
                query: per_query.len(),
                judged_relevant: relevant.len(),
                words: words_of(position),
            });
        }
        let ids: Vec<String> = order.iter().take(DEPTH).map(|&position| collection.documents[position].id.clone()).collect();
        per_query.push(QueryResult { query: query.id.clone(), relevant: relevant.len(), measures: measure(&ids, relevant), sent, reasons });
    }
    let search_seconds = started.elapsed().as_secs_f64();
    let all: Vec<Measures> = per_query.iter().map(|result| result.measures).collect();
    let predictions: Vec<(f64, bool)> = samples.iter().map(|sample| (relevance_by(&sample.evidence, &calibration), sample.relevant)).collect();
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

/// What the service's own ranking (`engine::ranking::rank`) makes of one query over the
/// collection: the papers it found (positions), the whole order for the deep measures, the ids and
/// reason lines a digest sends, and the evidence of each paper found.
struct ServiceRanked {
    found: Vec<usize>,
    order: Vec<usize>,
    sent: Vec<String>,
    reasons: Vec<String>,
    evidence: Vec<Evidence>,
}

/// Ranks `query` as the service does (`ranking` is a digest ranking); `positions` is the
/// expanded search by words and `fused` orders every document by the fused score.
fn rank_as_the_service(
    collection: &Collection,
    indexed: &IndexedCollection,
    vectors: Option<&DocumentVectors<'_>>,
    ranking: &Ranking,
    query: &str,
    positions: &[usize],
    fused: &dyn Fn(f64) -> Vec<(usize, f64)>,
) -> anyhow::Result<ServiceRanked> {
    let (by_id, papers) = (&indexed.by_id, &indexed.papers);
    let calibration = match ranking {
        Ranking::Digest(_, calibration) | Ranking::SemanticDigest(calibration, ..) => *calibration,
        _ => anyhow::bail!("not a digest ranking"),
    };
    // The service's ranking itself (`engine::ranking::rank`), over the collection.
    let corpus = indexed.corpus(vectors);
    let mut knobs = Knobs { calibration: Some(calibration), ..Knobs::default() };
    match ranking {
        Ranking::Digest(params, _) => knobs.rm3 = *params,
        Ranking::SemanticDigest(_, concept_meaning, key_share) => (knobs.concept_meaning, knobs.key_share) = (*concept_meaning, *key_share),
        _ => {}
    }
    let ranked = engine::ranking::rank(&corpus, query, &[], &knobs)?;
    let found: Vec<usize> = ranked.ids.iter().filter_map(|id| by_id.get(id).copied()).collect();
    // After the sent set, for the deep measures only: the rest of the expanded search
    // (by words), or every document by the fused score (with a model).
    let rest: Vec<usize> = if ranked.topic.is_some() {
        fused(engine::scoring::SIMILARITY_WEIGHT).into_iter().map(|(position, _)| position).collect()
    } else {
        positions.to_vec()
    };
    let (order, chosen) = digest_order(&ranked.candidates, &found, &rest, papers);
    let sent: Vec<String> = chosen.iter().take(engine::digest::MAX_PAPERS).map(|&position| collection.documents[position].id.clone()).collect();
    let reasons: Vec<String> = chosen
        .iter()
        .take(engine::digest::MAX_PAPERS)
        .map(|&position| {
            let at = found.iter().position(|&found| found == position);
            at.map(|at| ranked.candidates[at].reason.describe()).unwrap_or_default()
        })
        .collect();
    Ok(ServiceRanked { found, order, sent, reasons, evidence: ranked.evidence })
}

/// The digest's order: the `candidates` (found at `positions`) as `engine::digest::score` orders
/// and cuts them (what a digest sends, best first), then the rest of `rest` in its order. Answers
/// the whole order and the part the digest sends.
fn digest_order(candidates: &[Candidate], positions: &[usize], rest: &[usize], papers: &[Paper]) -> (Vec<usize>, Vec<usize>) {
    let today = chrono::Utc::now().date_naive();
    let position_of_key: HashMap<String, usize> =
        positions.iter().filter_map(|&position| papers[position].ids.doi.clone().map(|doi| (format!("doi:{doi}"), position))).collect();
    let mut order: Vec<usize> = engine::digest::score(candidates, today)
        .iter()
        .filter_map(|entry| entry.keys.iter().find_map(|key| position_of_key.get(key).copied()))
        .collect();
    let sent = order.clone();
    let chosen: std::collections::HashSet<usize> = order.iter().copied().collect();
    order.extend(rest.iter().filter(|position| !chosen.contains(position)));
    (order, sent)
}

/// A collection in an in-memory index: every document a paper (title, and its text as the
/// abstract) under a synthetic DOI of its own, so that deduplication keeps them apart.
pub(crate) struct IndexedCollection {
    pub index: PaperIndex,
    /// The papers, by the documents' positions.
    pub papers: Vec<Paper>,
    /// Each document's id in the index, by position, and back.
    pub ids: Vec<PaperId>,
    pub by_id: HashMap<PaperId, usize>,
}

impl IndexedCollection {
    pub fn of(collection: &Collection) -> anyhow::Result<IndexedCollection> {
        let index = PaperIndex::create_in_ram().context("creating the index")?;
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
        let mut ids: Vec<PaperId> = Vec::with_capacity(collection.documents.len());
        for position in 0..collection.documents.len() {
            let (id, _) = index.find_with_id(&DedupKey::Doi(doi(position)))?.context("a document went missing from the index")?;
            by_id.insert(id, position);
            ids.push(id);
        }
        Ok(IndexedCollection { index, papers, ids, by_id })
    }

    /// The collection as the service's ranking reads an index window, with the documents'
    /// `vectors` when there is a model.
    pub fn corpus<'a>(&'a self, vectors: Option<&'a DocumentVectors<'a>>) -> CollectionCorpus<'a> {
        CollectionCorpus { index: &self.index, vectors, ids: &self.ids, by_id: &self.by_id }
    }

    /// The position of the document `paper` is.
    pub fn position_of(&self, paper: &Paper) -> Option<usize> {
        paper.ids.doi.as_deref()?.strip_prefix("10.0000/relevance.")?.parse().ok()
    }

    /// The position of the document a digest entry's dedup key names.
    pub fn position_of_key(&self, key: &str) -> Option<usize> {
        key.strip_prefix("doi:10.0000/relevance.")?.parse().ok()
    }
}

/// A collection as the service's ranking reads a window of the index (`engine::ranking::Corpus`):
/// every document is in it.
pub(crate) struct CollectionCorpus<'a> {
    index: &'a PaperIndex,
    vectors: Option<&'a DocumentVectors<'a>>,
    /// Each document's id in the index, by position, and back.
    ids: &'a [PaperId],
    by_id: &'a HashMap<PaperId, usize>,
}

fn found(hits: Vec<index::Hit>) -> Vec<Found<PaperId>> {
    hits.into_iter().map(|hit| Found { id: hit.id, paper: hit.paper, score: hit.score }).collect()
}

impl Corpus for CollectionCorpus<'_> {
    type Id = PaperId;
    type Error = anyhow::Error;

    fn search(&self, text: &str, limit: usize) -> anyhow::Result<Vec<Found<PaperId>>> {
        Ok(found(self.index.search(&PaperQuery::new(text, limit))?))
    }

    fn search_expanded(&self, text: &str, limit: usize, rm3: &Rm3) -> anyhow::Result<Expanded<PaperId>> {
        let (hits, expansion) = self.index.search_expanded(&PaperQuery::new(text, limit), rm3)?;
        Ok((found(hits), expansion))
    }

    fn topic_vector(&self, text: &str) -> anyhow::Result<Option<Vec<f32>>> {
        Ok(self.vectors.map(|vectors| vectors.embedder.embed_query(text)).transpose()?)
    }

    fn nearest(&self, topic: &[f32], limit: usize) -> Vec<PaperId> {
        let Some(vectors) = self.vectors else { return Vec::new() };
        let mut by_cosine: Vec<(usize, f32)> =
            vectors.vectors.iter().enumerate().map(|(position, vector)| (position, embed::cosine(topic, vector))).collect();
        by_cosine.sort_by(|a, b| b.1.total_cmp(&a.1));
        by_cosine.into_iter().take(limit).map(|(position, _)| self.ids[position]).collect()
    }

    fn vector(&self, id: PaperId) -> Option<&[f32]> {
        let vectors = self.vectors?;
        self.by_id.get(&id).map(|&position| vectors.vectors[position].as_slice())
    }

    fn cosine(&self, a: &[f32], b: &[f32]) -> f32 {
        embed::cosine(a, b)
    }

    fn papers(&self, ids: &[PaperId]) -> anyhow::Result<Vec<(PaperId, Paper)>> {
        Ok(self.index.papers_by_id(ids)?)
    }

    fn analyze(&self, text: &str) -> Vec<(String, String)> {
        self.index.analyze_with_surface(text)
    }

    fn scored_query(&self, own: &[String], searched: &[(String, f32)]) -> engine::scoring::ScoredQuery {
        self.index.scored_query(own, searched)
    }

    fn stats(&self) -> engine::scoring::CollectionStats {
        self.index.collection_stats()
    }
}

/// Fits [`Calibration`] by logistic regression (Newton's method) of "judged relevant" on the
/// score of `collections`' samples (`Evidence::score`: the lexical or the semantic one, as the
/// samples carry a similarity or not), each collection weighing the same however many samples it
/// has.
pub fn fit_calibration(collections: &[&[Sample]]) -> Calibration {
    let mut rows: Vec<(Evidence, f64, f64)> = Vec::new();
    for samples in collections.iter().filter(|samples| !samples.is_empty()) {
        let weight = 1.0 / samples.len() as f64;
        rows.extend(samples.iter().map(|sample| (sample.evidence, f64::from(u8::from(sample.relevant)), weight)));
    }
    let fitted = logistic_fit(&rows, |evidence| vec![evidence.score(), 1.0]);
    Calibration { slope: fitted[0], intercept: fitted[1] }
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

/// The expected calibration error of `bins`: the mean distance between predicted and observed
/// relevance, each bin weighing by its hits.
pub fn calibration_error(bins: &[CalibrationBin]) -> f64 {
    let hits: usize = bins.iter().map(|bin| bin.hits).sum();
    if hits == 0 {
        return 0.0;
    }
    bins.iter().map(|bin| bin.hits as f64 * (bin.predicted - bin.observed).abs()).sum::<f64>() / hits as f64
}

/// What a digest would send for each query, read from the samples of a digest ranking: the
/// candidates that cover the topic's key concepts with a relevance of at least `floor`, best
/// first, at most `engine::digest::MAX_PAPERS`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SentSet {
    pub floor: f64,
    /// Papers sent, all queries together.
    pub sent: usize,
    /// Of them, judged relevant.
    pub relevant: usize,
    /// relevant / sent (0 when nothing is sent).
    pub precision: f64,
    /// The mean over queries of relevant sent / min(judged relevant, MAX_PAPERS).
    pub recall: f64,
    /// Queries whose digest would be empty, over all.
    pub empty: f64,
    pub queries: usize,
}

/// The [`SentSet`] at `floor` of `samples` (one digest ranking's).
pub fn sent_set(samples: &[Sample], floor: f64, calibration: &Calibration) -> SentSet {
    let mut by_query: HashMap<usize, Vec<(f64, bool, usize)>> = HashMap::new();
    for sample in samples {
        // A paper without the topic's key concepts is never sent, whatever its relevance.
        let relevance = if sample.evidence.covers_key() { relevance_by(&sample.evidence, calibration) } else { -1.0 };
        by_query.entry(sample.query).or_default().push((relevance, sample.relevant, sample.judged_relevant));
    }
    let queries = by_query.len();
    let (mut sent, mut relevant, mut recall, mut empty) = (0, 0, 0.0, 0);
    for hits in by_query.values_mut() {
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        let chosen: Vec<&(f64, bool, usize)> = hits.iter().filter(|(relevance, ..)| *relevance >= floor).take(engine::digest::MAX_PAPERS).collect();
        let found = chosen.iter().filter(|(_, judged, _)| *judged).count();
        sent += chosen.len();
        relevant += found;
        empty += usize::from(chosen.is_empty());
        let possible = hits.first().map_or(0, |(_, _, judged)| *judged).min(engine::digest::MAX_PAPERS);
        recall += if possible > 0 { found as f64 / possible as f64 } else { 0.0 };
    }
    SentSet {
        floor,
        sent,
        relevant,
        precision: if sent > 0 { relevant as f64 / sent as f64 } else { 0.0 },
        recall: if queries > 0 { recall / queries as f64 } else { 0.0 },
        empty: if queries > 0 { empty as f64 / queries as f64 } else { 0.0 },
        queries,
    }
}

/// The query's words, without anything the query syntax would read as an operator.
pub(crate) fn plain_words(text: &str) -> String {
    text.split(|character: char| !character.is_alphanumeric()).filter(|word| !word.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_known_curve() {
        // Labels drawn deterministically from a known curve: slope 6, intercept -3.
        let known = Calibration { slope: 6.0, intercept: -3.0 };
        for similarity in [None, Some(0.5)] {
            let mut samples = Vec::new();
            for step in 0..=100 {
                let evidence = Evidence { coverage: 0.5, strength: f64::from(step) / 100.0, similarity, ..Evidence::default() };
                let p = relevance_by(&evidence, &known);
                for draw in 0..50 {
                    samples.push(Sample { evidence, relevant: f64::from(draw) / 50.0 < p, query: 0, judged_relevant: 1, words: Vec::new() });
                }
            }
            let fitted = fit_calibration(&[&samples]);
            assert!((fitted.slope - 6.0).abs() < 0.3 && (fitted.intercept + 3.0).abs() < 0.3, "{similarity:?}: {fitted:?}");
        }
    }
}
