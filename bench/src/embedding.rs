//! The `embed` scenario: what the sentence-embedding model costs on this machine. N papers'
//! title and abstract embedded at once (`embed::Embedder::embed_documents`, every core), then a
//! search term's two steps: its vector (`embed_query`) and its ranking against a week of stored
//! paper vectors (`embed::nearest`, the best [`RANKED`] of [`WEEK_PAPERS`]).
//!
//! The papers are the real ones of the recorded PubMed, arXiv and bioRxiv/medRxiv responses in
//! `engine/fixtures/` (those with an abstract, each once), taken in a real week's proportions
//! (75% PubMed, 15% arXiv, 10% bioRxiv/medRxiv) and repeated in turn when N is larger than
//! what was recorded: a text costs the same to embed whether or not it was seen before.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use engine::parse::parse_any;

use crate::{peak_rss_mib, reset_peak_rss};

/// The papers of a week, which the term is ranked against and the weekly cost is counted for.
pub const WEEK_PAPERS: usize = 35_000;
/// How many papers a term's ranking keeps (as the digest's candidates).
pub const RANKED: usize = 100;
/// Times each topic is embedded and ranked, for steadier percentiles.
const TERM_ROUNDS: usize = 3;

/// Search terms as users type them: single words, phrases and questions, across fields.
const TOPICS: &[&str] = &[
    "cancer",
    "CAR-T exhaustion",
    "tumor suppressor genes in colorectal cancer",
    "protein folding",
    "RNA interference",
    "gut microbiome and depression",
    "CRISPR off-target effects",
    "histone methylation",
    "single-cell RNA sequencing",
    "mass spectrometry proteomics",
    "deep learning for medical imaging",
    "graph neural networks",
    "quantum error correction",
    "galaxy formation",
    "dark matter halos",
    "epidemiology of long COVID",
    "mRNA vaccine efficacy in older adults",
    "immune checkpoint inhibitors",
    "stem cell niche",
    "antibiotic resistance",
    "genome-wide association study of type 2 diabetes",
    "Alzheimer's disease amyloid",
    "climate change and malaria transmission",
    "sepsis biomarkers",
    "opioid use disorder treatment",
    "heart failure with preserved ejection fraction",
    "large language models",
    "reinforcement learning from human feedback",
    "software testing",
    "formal verification of distributed systems",
    "superconductivity in twisted bilayer graphene",
    "topological insulators",
    "gravitational waves",
    "exoplanet atmospheres",
    "machine learning interatomic potentials",
    "how does sleep deprivation affect memory consolidation?",
    "air pollution and childhood asthma",
    "malaria",
    "telomere length and ageing",
    "Parkinson's disease alpha-synuclein",
    "breast cancer screening with mammography",
    "neural correlates of consciousness",
    "bacteriophage therapy",
    "HIV pre-exposure prophylaxis adherence",
    "zebrafish heart regeneration",
    "photosynthesis efficiency in crops",
    "randomized controlled trial of exercise in depression",
    "microplastics in drinking water",
    "protein structure prediction",
    "causal inference with observational data",
];

const PUBMED: &[&str] = &[
    include_str!("../../engine/fixtures/pubmed/efetch_batch_20_articles.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_batch_6_articles.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_2_articles_charref_affiliation_11748933_11700088.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_2_articles_one_without_abstract_12091962_9997.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_abstract_with_inline_markup_29186030.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_charref_inside_italic_title_37167981.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_collective_author_raw_utf8_29963580.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_collective_author_structured_abstract_38534005.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_reference_list_cites_preprint_dois_36156117.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_structured_abstract_21813367.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_structured_abstract_italic_in_title_27797938.xml"),
    include_str!("../../engine/fixtures/pubmed/efetch_vernacular_title_norwegian_structured_abstract_36987902.xml"),
];
const ARXIV: &[&str] = &[
    include_str!("../../engine/fixtures/arxiv/api_query_testing_start0_max100.xml"),
    include_str!("../../engine/fixtures/arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml"),
    include_str!("../../engine/fixtures/arxiv/api_legacy_2016_query_au_del_maestro.xml"),
    include_str!("../../engine/fixtures/arxiv/api_idlist_1605.08386_two_categories.xml"),
    include_str!("../../engine/fixtures/arxiv/api_idlist_1707.08567_many_authors.xml"),
    include_str!("../../engine/fixtures/arxiv/oaipmh_listrecords_arxiv_metadataprefix_3_records.xml"),
];
const PREPRINTS: &[&str] = &[
    include_str!("../../engine/fixtures/biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json"),
    include_str!("../../engine/fixtures/medrxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json"),
];

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedRun {
    pub papers: usize,
    /// Distinct recorded papers the texts were taken from.
    pub distinct_papers: usize,
    pub mean_text_chars: f64,
    pub dimensions: usize,
    /// The threads `embed_documents` ran on (one per core).
    pub threads: usize,
    pub load_seconds: f64,
    pub embed_seconds: f64,
    /// CPU time the process spent embedding the papers (every thread, user and system): on a
    /// machine shared with other work, wall time times threads overstates it.
    pub embed_cpu_seconds: Option<f64>,
    /// The process's peak memory right after the papers were embedded (model, texts, vectors).
    pub embed_peak_rss_mib: Option<f64>,
    /// Word pieces embedded of a text at most; the rest of a longer text is cut.
    pub truncated_tokens: usize,
    /// One search term's vector, milliseconds.
    pub term_embed_ms: Percentiles,
    /// One search term ranked against [`WEEK_PAPERS`] stored vectors, milliseconds.
    pub term_rank_ms: Percentiles,
}

impl EmbedRun {
    pub fn papers_per_second(&self) -> f64 {
        self.papers as f64 / self.embed_seconds
    }

    /// CPU minutes to embed a week's [`WEEK_PAPERS`] papers, every thread busy.
    pub fn weekly_cpu_minutes(&self) -> f64 {
        weekly_cpu_minutes(self.papers_per_second(), self.threads)
    }

    /// CPU minutes to embed a week's papers, from the CPU time the papers took.
    pub fn weekly_cpu_minutes_by_cpu_time(&self) -> Option<f64> {
        self.embed_cpu_seconds.map(|seconds| WEEK_PAPERS as f64 * seconds / self.papers as f64 / 60.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    pub p50: f64,
    pub p99: f64,
}

/// The model folder: the one given (by `--model` or its environment variable), else the first
/// of `candidates` (see [`default_model_dirs`]) that exists; an error says how to fetch it when
/// there is none.
pub fn find_model_dir(given: Option<&Path>, candidates: &[PathBuf]) -> anyhow::Result<PathBuf> {
    let fetch = "fetch it with `papertide model fetch` (it unpacks into DATA_DIR/models/all-minilm-l6-v2)";
    if let Some(dir) = given {
        if !dir.is_dir() {
            bail!("no embedding model in {}: {fetch}, or name the folder with --model DIR", dir.display());
        }
        return Ok(dir.to_owned());
    }
    if let Some(dir) = candidates.iter().find(|dir| dir.is_dir()) {
        return Ok(dir.clone());
    }
    let looked: Vec<String> = candidates.iter().map(|dir| dir.display().to_string()).collect();
    bail!("no embedding model found (looked in {}): {fetch}, or name the folder with --model DIR", looked.join(" and "))
}

/// Where the model is looked for when no folder is named: the data directory's default place
/// (`papertide-data/models/all-minilm-l6-v2`), then the user's cache.
pub fn default_model_dirs(home: Option<&Path>) -> Vec<PathBuf> {
    let name = embed::package::DEFAULT_MODEL_NAME;
    let mut dirs = vec![Path::new("papertide-data").join("models").join(name)];
    if let Some(home) = home {
        dirs.push(home.join(".cache").join("papertide").join("data").join("models").join(name));
    }
    dirs
}

/// Loads the model in `model_dir` as the service does (`runtime::model`): in `runtime` (the
/// service's default when `None`), with ONNX Runtime's library from the model's data directory.
pub fn load(model_dir: &Path, max_tokens: Option<usize>, runtime: Option<embed::RuntimeName>) -> anyhow::Result<embed::Embedder> {
    let runtime = runtime.unwrap_or(embed::RuntimeName::DEFAULT);
    let library = embed::package::runtime_library_beside(model_dir).unwrap_or_default();
    if runtime != embed::RuntimeName::Candle && !library.is_file() {
        bail!(
            "the {runtime} runtime needs ONNX Runtime's library at {}: fetch it with `papertide --data-dir DATA_DIR model fetch`, or pass --runtime candle",
            library.display()
        );
    }
    let options = embed::LoadOptions { limit: max_tokens, runtime: runtime.with_library(&library) };
    embed::Embedder::load_with(model_dir, &options).with_context(|| format!("loading the embedding model in {} ({runtime})", model_dir.display()))
}

/// Embeds `papers` paper texts with the model in `model_dir` (cut at `max_tokens` word pieces,
/// else the model's own limit) in `runtime`, then times a term's vector and its ranking against
/// a week of stored vectors.
pub fn run(model_dir: &Path, papers: usize, max_tokens: Option<usize>, runtime: Option<embed::RuntimeName>) -> anyhow::Result<EmbedRun> {
    if papers == 0 {
        bail!("--papers must be at least 1");
    }
    let load_started = Instant::now();
    let embedder = load(model_dir, max_tokens, runtime)?;
    let load_seconds = load_started.elapsed().as_secs_f64();

    let recorded = recorded_paper_texts();
    let texts = week_texts(&recorded, papers);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    reset_peak_rss();
    let cpu_before = process_cpu_seconds();
    let embed_started = Instant::now();
    let vectors = embedder.embed_documents(&refs).context("embedding the papers")?;
    let embed_seconds = embed_started.elapsed().as_secs_f64();
    let embed_cpu_seconds = process_cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    let embed_peak_rss_mib = peak_rss_mib();

    let week = stored_week(&vectors, WEEK_PAPERS);
    let dimensions = embedder.dimensions();
    // A first call allocates the model's buffers; a running service has made it long before.
    embedder.embed_query(TOPICS[0]).context("embedding a term")?;
    let mut embed_ms = Vec::new();
    let mut rank_ms = Vec::new();
    for _ in 0..TERM_ROUNDS {
        for topic in TOPICS {
            let started = Instant::now();
            let query = embedder.embed_query(topic).context("embedding a term")?;
            embed_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            let started = Instant::now();
            let best = embed::nearest(&query, week.chunks_exact(dimensions).enumerate(), RANKED);
            rank_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(best);
        }
    }

    Ok(EmbedRun {
        papers,
        distinct_papers: recorded.pubmed.len() + recorded.arxiv.len() + recorded.preprints.len(),
        mean_text_chars: texts.iter().map(|text| text.chars().count()).sum::<usize>() as f64 / texts.len() as f64,
        dimensions,
        threads: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        load_seconds,
        embed_seconds,
        embed_cpu_seconds,
        embed_peak_rss_mib,
        truncated_tokens: embedder.max_tokens(),
        term_embed_ms: percentiles(&mut embed_ms),
        term_rank_ms: percentiles(&mut rank_ms),
    })
}

/// CPU minutes for a week's papers at `papers_per_second` on `threads` busy threads.
pub fn weekly_cpu_minutes(papers_per_second: f64, threads: usize) -> f64 {
    WEEK_PAPERS as f64 / papers_per_second * threads as f64 / 60.0
}

/// The recorded papers' texts ("title. abstract"), by source, each paper once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedTexts {
    pub pubmed: Vec<String>,
    pub arxiv: Vec<String>,
    pub preprints: Vec<String>,
}

pub fn recorded_paper_texts() -> RecordedTexts {
    let mut seen = HashSet::new();
    let mut texts_of = |bodies: &[&str]| -> Vec<String> {
        let mut texts = Vec::new();
        for body in bodies {
            let (_, parsed) = parse_any(body);
            for paper in parsed.items {
                let abstract_text = paper.abstract_text();
                if abstract_text.trim().is_empty() || !seen.insert(paper.title.to_lowercase()) {
                    continue;
                }
                texts.push(format!("{}. {abstract_text}", paper.title));
            }
        }
        texts
    };
    let pubmed = texts_of(PUBMED);
    let arxiv = texts_of(ARXIV);
    let preprints = texts_of(PREPRINTS);
    RecordedTexts { pubmed, arxiv, preprints }
}

/// `count` texts in a week's proportions: of every 20, 15 PubMed, 3 arXiv and 2 preprints,
/// each source's papers in turn.
pub fn week_texts(recorded: &RecordedTexts, count: usize) -> Vec<String> {
    let mut next = [0usize; 3];
    (0..count)
        .map(|position| {
            let source = match position % 20 {
                0..=14 => 0,
                15..=17 => 1,
                _ => 2,
            };
            let pools = [&recorded.pubmed, &recorded.arxiv, &recorded.preprints];
            // A source with nothing recorded lends its turn to the next one that has papers.
            let source = (0..3).map(|step| (source + step) % 3).find(|&source| !pools[source].is_empty()).unwrap_or(source);
            let pool = pools[source];
            let text = pool.get(next[source] % pool.len().max(1)).cloned().unwrap_or_default();
            next[source] += 1;
            text
        })
        .collect()
}

/// `count` stored vectors made from the embedded ones: each embedded vector in turn, nudged by a
/// small deterministic noise and normalized again, so that the copies are distinct papers to the
/// ranking (no ties) while keeping the embedded vectors' distribution. One flat buffer.
fn stored_week(vectors: &[Vec<f32>], count: usize) -> Vec<f32> {
    let mut noise = 0x9e37_79b9_7f4a_7c15_u64;
    let mut week = Vec::with_capacity(count * vectors.first().map_or(0, Vec::len));
    for position in 0..count {
        let Some(vector) = vectors.get(position % vectors.len().max(1)) else { break };
        let nudged: Vec<f32> = vector
            .iter()
            .map(|value| {
                // xorshift64: a fixed sequence, the same every run.
                noise ^= noise << 13;
                noise ^= noise >> 7;
                noise ^= noise << 17;
                let unit = (noise >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                value + 0.02 * unit
            })
            .collect();
        let norm = nudged.iter().map(|value| value * value).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
        week.extend(nudged.iter().map(|value| value / norm));
    }
    week
}

/// The CPU time the process has used so far, user and system, in seconds (Linux).
fn process_cpu_seconds() -> Option<f64> {
    cpu_seconds_of_stat(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// `utime + stime` of a `/proc/PID/stat` line, counted in the kernel's fixed 100 ticks a second
/// (`USER_HZ`). The command name, in parentheses, may hold spaces and parentheses itself.
pub(crate) fn cpu_seconds_of_stat(stat: &str) -> Option<f64> {
    crate::quiet::cpu_ticks_of_stat(stat).map(|ticks| ticks as f64 / 100.0)
}

/// Median and 99th percentile (nearest rank) of the samples.
fn percentiles(samples: &mut [f64]) -> Percentiles {
    samples.sort_by(f64::total_cmp);
    let at = |share: f64| -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let rank = (share * samples.len() as f64).ceil() as usize;
        samples[rank.clamp(1, samples.len()) - 1]
    };
    Percentiles { p50: at(0.5), p99: at(0.99) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_papers_give_real_distinct_texts_with_abstracts_in_every_source() {
        let recorded = recorded_paper_texts();
        assert!(recorded.pubmed.len() >= 25, "PubMed: {}", recorded.pubmed.len());
        assert!(recorded.arxiv.len() >= 100, "arXiv: {}", recorded.arxiv.len());
        assert!(recorded.preprints.len() >= 15, "preprints: {}", recorded.preprints.len());
        let every: Vec<&String> = recorded.pubmed.iter().chain(&recorded.arxiv).chain(&recorded.preprints).collect();
        assert!(every.iter().all(|text| text.len() > 200), "a title and an abstract each");
        assert_eq!(every.iter().collect::<HashSet<_>>().len(), every.len(), "each paper once");
    }

    #[test]
    fn a_week_takes_a_real_weeks_proportions_and_repeats_each_source_in_turn() {
        let recorded = RecordedTexts {
            pubmed: vec!["p1".into(), "p2".into()],
            arxiv: vec!["a1".into()],
            preprints: vec!["b1".into(), "b2".into(), "b3".into()],
        };
        let week = week_texts(&recorded, 40);
        let count = |prefix: &str| week.iter().filter(|text| text.starts_with(prefix)).count();
        assert_eq!((count("p"), count("a"), count("b")), (30, 6, 4));
        assert_eq!(&week[..3], ["p1", "p2", "p1"]);
        assert_eq!(&week[18..20], ["b1", "b2"]);
        let only_pubmed = RecordedTexts { pubmed: vec!["p1".into()], arxiv: Vec::new(), preprints: Vec::new() };
        assert!(week_texts(&only_pubmed, 20).iter().all(|text| text == "p1"), "an empty source lends its turn");
    }

    #[test]
    fn stored_copies_are_normalized_and_near_but_not_equal_to_their_original() {
        let vectors = vec![vec![1.0, 0.0, 0.0], vec![0.0, 0.6, 0.8]];
        let week = stored_week(&vectors, 5);
        let copies: Vec<&[f32]> = week.chunks_exact(3).collect();
        assert_eq!(copies.len(), 5);
        for (position, copy) in copies.iter().enumerate() {
            let norm: f32 = copy.iter().map(|value| value * value).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "normalized: {norm}");
            let similarity = embed::cosine(copy, &vectors[position % 2]);
            assert!(similarity > 0.99 && similarity < 1.0, "near its original: {similarity}");
        }
        assert_ne!(copies[0], copies[2], "copies of one vector differ");
    }

    #[test]
    fn cpu_time_is_user_and_system_ticks_of_the_stat_line() {
        let stat = "4242 (papertide (x) 2) R 1 4242 4242 0 -1 4194304 1500 0 0 0 12345 678 0 0 20 0 3 0 99 1000 200";
        assert_eq!(cpu_seconds_of_stat(stat), Some(130.23));
        assert_eq!(cpu_seconds_of_stat("4242 (short) R 1"), None);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentiles(&mut samples), Percentiles { p50: 50.0, p99: 99.0 });
        assert_eq!(percentiles(&mut [7.0]), Percentiles { p50: 7.0, p99: 7.0 });
    }

    #[test]
    fn the_weekly_cost_is_a_weeks_papers_at_the_measured_rate_on_every_thread() {
        assert!((weekly_cpu_minutes(10.0, 2) - 35_000.0 / 10.0 * 2.0 / 60.0).abs() < 1e-9);
    }

    #[test]
    fn a_named_model_folder_must_exist_and_the_error_says_how_to_fetch_one() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let missing = find_model_dir(Some(&dir.path().join("nowhere")), &[]).expect_err("no such folder");
        assert!(format!("{missing:#}").contains("papertide model fetch"), "{missing:#}");

        let (data, cache) = (dir.path().join("data/models/all-minilm-l6-v2"), dir.path().join("cache/models/all-minilm-l6-v2"));
        let candidates = [data.clone(), cache.clone()];
        let none = find_model_dir(None, &candidates).expect_err("nothing fetched");
        let message = format!("{none:#}");
        assert!(message.contains("papertide model fetch") && message.contains(&cache.display().to_string()), "{message}");

        std::fs::create_dir_all(&cache)?;
        assert_eq!(find_model_dir(None, &candidates)?, cache);
        std::fs::create_dir_all(&data)?;
        assert_eq!(find_model_dir(None, &candidates)?, data, "the data directory comes first");
        assert_eq!(find_model_dir(Some(&cache), &candidates)?, cache, "a folder named wins");
        Ok(())
    }

    #[test]
    fn the_default_places_are_the_data_directory_then_the_users_cache() {
        let dirs = default_model_dirs(Some(Path::new("/home/reader")));
        assert_eq!(
            dirs,
            [PathBuf::from("papertide-data/models/all-minilm-l6-v2"), PathBuf::from("/home/reader/.cache/papertide/data/models/all-minilm-l6-v2")]
        );
        assert_eq!(default_model_dirs(None).len(), 1);
    }
}
