//! `papertide-bench SCENARIO [options] [--json]`: Papertide's benchmark harness. With `--json`
//! the last line printed is one JSON object of the scenario's figures.
//!
//! Scenarios:
//! - `ingest`: parse + deduplicate + index a realistic week of new records (see `workload`).
//! - `digest`: every user's weekly digests, N users x 3 terms over M papers (see `digest`).
//! - `relevance`: MAP, nDCG@10, P@10 and recall@100 of the production ranking on a test
//!   collection (see `relevance`).

use bench::relevance::{self, Collection, Format};
use bench::{peak_rss_mib, workload};

use std::num::NonZeroUsize;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use engine::parse::parse_any;
use index::PaperIndex;
use serde_json::json;

#[derive(Debug, Parser)]
#[command(name = "papertide-bench", about = "Measure Papertide's pipeline on realistic workloads.")]
struct Cli {
    #[command(subcommand)]
    scenario: Scenario,
    /// Print the figures as one JSON object on the last line.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Scenario {
    /// Parse, deduplicate and index a week of new records.
    Ingest {
        /// Records in the week (a real week is about 35,000).
        #[arg(long, default_value_t = 35_000)]
        records: usize,
        /// Index writer memory budget in MiB, shared by its threads.
        #[arg(long, default_value_t = 256)]
        writer_heap_mib: usize,
        /// Index writer threads (the machine's cores by default).
        #[arg(long)]
        writer_threads: Option<NonZeroUsize>,
    },
    /// Build every user's weekly digests: N users x 3 terms over an index of M papers.
    Digest {
        #[arg(long, default_value_t = 1_000)]
        users: usize,
        #[arg(long, default_value_t = 35_000)]
        papers: usize,
    },
    /// Rank a test collection (SMART or BEIR layout) and measure it against its judgments.
    Relevance {
        /// The collection's directory, e.g. bench/collections/med.
        #[arg(long)]
        collection: std::path::PathBuf,
        /// The layout [default: BEIR if corpus.jsonl is there, else SMART].
        #[arg(long, value_enum)]
        format: Option<Format>,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let figures = match cli.scenario {
        Scenario::Ingest { records, writer_heap_mib, writer_threads } => {
            let threads = writer_threads.unwrap_or_else(cores);
            ingest(records, writer_heap_mib, threads)?
        }
        Scenario::Relevance { collection, format } => relevance_figures(&collection, format)?,
        Scenario::Digest { users, papers } => {
            let run = bench::digest::run(users, papers)?;
            json!({
                "scenario": "digest",
                "users": run.users,
                "papersInIndex": run.papers,
                "digests": run.digests,
                "papersSent": run.papers_sent,
                "workers": run.workers,
                "indexSeconds": round(run.index_seconds),
                "digestSeconds": round(run.digest_seconds),
                "renderSeconds": round(run.render_seconds),
                "totalSeconds": round(run.digest_seconds + run.render_seconds),
                "usersPerSecond": round(run.users as f64 / (run.digest_seconds + run.render_seconds)),
                "indexPeakRssMib": run.index_peak_rss_mib,
                "peakRssMib": peak_rss_mib(),
                "target": "100,000 users over 1,000,000 papers in < 60 s",
            })
        }
    };
    let machine = machine();
    let mut report = figures;
    report["machine"] = machine;
    if cli.json {
        #[allow(clippy::print_stdout)]
        {
            println!("{report}");
        }
    } else {
        #[allow(clippy::print_stdout)]
        {
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
    }
    Ok(())
}

fn ingest(records: usize, writer_heap_mib: usize, writer_threads: NonZeroUsize) -> anyhow::Result<serde_json::Value> {
    let week = workload::build_week(records);
    let dir = tempfile::tempdir().context("temporary index directory")?;
    let index = PaperIndex::open_or_create(dir.path()).context("creating the index")?;
    let mut writer = index.writer_with_threads(writer_heap_mib * 1024 * 1024, writer_threads).context("index writer")?;

    let started = Instant::now();
    let mut parsed_records = 0usize;
    let mut rejected = 0usize;
    let mut parse_secs = 0.0;
    let mut upsert_secs = 0.0;
    for body in &week.bodies {
        let parse_started = Instant::now();
        let (_, parsed) = parse_any(body);
        parse_secs += parse_started.elapsed().as_secs_f64();
        parsed_records += parsed.items.len();
        rejected += parsed.warnings.len();
        let upsert_started = Instant::now();
        for paper in parsed.items {
            writer.upsert(paper)?;
        }
        upsert_secs += upsert_started.elapsed().as_secs_f64();
    }
    let commit_started = Instant::now();
    writer.commit()?;
    let commit_secs = commit_started.elapsed().as_secs_f64();
    let elapsed_secs = started.elapsed().as_secs_f64();
    let papers_in_index = index.paper_count()?;

    Ok(json!({
        "scenario": "ingest",
        "records": week.records,
        "parsedRecords": parsed_records,
        "rejectedRecords": rejected,
        "papersInIndex": papers_in_index,
        "inputBytes": week.bytes,
        "seconds": round(elapsed_secs),
        "parseSeconds": round(parse_secs),
        "upsertSeconds": round(upsert_secs),
        "commitSeconds": round(commit_secs),
        "papersPerSecond": round(parsed_records as f64 / elapsed_secs),
        "megabytesPerSecond": round(week.bytes as f64 / 1_000_000.0 / elapsed_secs),
        "peakRssMib": peak_rss_mib(),
        "writerThreads": writer_threads.get(),
        "targetPapersPerSecond": 10_000,
    }))
}

fn relevance_figures(dir: &std::path::Path, format: Option<Format>) -> anyhow::Result<serde_json::Value> {
    let collection = Collection::load(dir, format)?;
    let plain = relevance::evaluate(&collection, None)?;
    let expanded = relevance::evaluate(&collection, Some(&relevance::Rm3::default()))?;
    let run = |evaluation: &relevance::Evaluation| {
        let mean = evaluation.mean;
        let per_query: serde_json::Map<String, serde_json::Value> =
            evaluation.per_query.iter().map(|result| (result.query.clone(), json!(round4(result.measures.average_precision)))).collect();
        json!({
            "map": round4(mean.average_precision),
            "ndcgAt10": round4(mean.ndcg_at_10),
            "precisionAt10": round4(mean.precision_at_10),
            "recallAt100": round4(mean.recall_at_100),
            "searchSeconds": round(evaluation.search_seconds),
            "calibration": evaluation.calibration.iter().map(|bin| json!({
                "from": bin.from, "hits": bin.hits, "predicted": round4(bin.predicted), "observed": round4(bin.observed),
            })).collect::<Vec<_>>(),
            "averagePrecisionPerQuery": per_query,
        })
    };
    let improved = plain
        .per_query
        .iter()
        .zip(&expanded.per_query)
        .filter(|(before, after)| after.measures.average_precision > before.measures.average_precision)
        .count();
    Ok(json!({
        "scenario": "relevance",
        "collection": plain.collection,
        "documents": plain.documents,
        "queries": plain.queries,
        "indexSeconds": round(plain.index_seconds),
        "bm25": run(&plain),
        "bm25Rm3": run(&expanded),
        "queriesImprovedByExpansion": improved,
    }))
}

fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn round4(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

fn cores() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

fn machine() -> serde_json::Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|info| {
        info.lines().find(|line| line.starts_with("model name")).map(|line| line.split(':').nth(1).unwrap_or("").trim().to_owned())
    });
    json!({
        "cores": cores().get(),
        "cpu": cpu,
        "os": std::env::consts::OS,
    })
}
