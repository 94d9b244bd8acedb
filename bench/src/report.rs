//! The `report` command: the `digest`, `http`, `ingest`, `coldstart` and `embed` scenarios run
//! at a few sizes, each run in a process of its own (`papertide-bench --json SCENARIO ...`, so that its
//! peak memory is its own), and a directory written from their figures: `figures.json` (every
//! run's JSON object as it printed it), plots of them as SVG (`plot`) and `README.md`, a summary
//! that sets the figures beside each scenario's targets (`summary`).
//!
//! A failing run stops the report; the figures of the runs before it are kept in
//! `figures.json`.

mod plot;
mod summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use crate::quiet::{self, Load};

/// The file names a report writes besides its plots.
pub const FIGURES_FILE: &str = "figures.json";
pub const SUMMARY_FILE: &str = "README.md";

/// A scenario the report runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Part {
    Digest,
    Http,
    Ingest,
    Coldstart,
    Embed,
}

impl Part {
    pub const ALL: [Part; 5] = [Part::Digest, Part::Http, Part::Ingest, Part::Coldstart, Part::Embed];

    /// The scenario's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Part::Digest => "digest",
            Part::Http => "http",
            Part::Ingest => "ingest",
            Part::Coldstart => "coldstart",
            Part::Embed => "embed",
        }
    }

    /// Whether the scenario starts the `papertide` binary.
    fn needs_server(self) -> bool {
        // The embed run's backlog and memory at rest are the real binary's.
        matches!(self, Part::Http | Part::Coldstart | Part::Embed)
    }
}

/// The sizes a report runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizes {
    /// The report proper, at the sizes the targets speak of (many minutes, release build).
    Full,
    /// Tiny sizes that check the report itself (well under a minute in a debug build); their
    /// figures say nothing about the targets.
    Quick,
}

/// What to run, and where to write the report.
#[derive(Debug, Clone)]
pub struct ReportConfig {
    /// The `papertide-bench` executable each run starts.
    pub bench: PathBuf,
    /// The report's directory (created if missing; the report's own files in it are replaced).
    pub out: PathBuf,
    pub sizes: Sizes,
    /// Scenarios not run.
    pub skip: Vec<Part>,
    /// The `papertide` binary of `http` and `coldstart` [default: the one beside the bench].
    pub server: Option<PathBuf>,
    /// Also the million-user weekly pass (`--full`: about 25 minutes more).
    pub million: bool,
    /// How long to wait before each run for other programs to leave the cores free; a run
    /// started on busy cores is marked busy and judges no target.
    pub wait_quiet: Duration,
    /// The `wrk` executable to compare the bench's own load generator with at the target's
    /// connections [default: `wrk` on the PATH, if any].
    pub wrk: Option<PathBuf>,
}

/// One run: a scenario and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub part: Part,
    pub args: Vec<String>,
}

impl Run {
    fn new(part: Part, args: &[&str]) -> Run {
        Run { part, args: args.iter().map(|arg| (*arg).to_owned()).collect() }
    }

    /// The run's command after `papertide-bench --json`, e.g. `digest --users 1000 --papers 35000`
    /// (without the `--server` that `http` and `coldstart` are given).
    pub fn command_line(&self) -> String {
        std::iter::once(self.part.name()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    }
}

/// A run and what it measured.
#[derive(Debug, Clone)]
pub struct Measured {
    pub run: Run,
    /// The figures as the run printed them.
    pub raw: Value,
    pub figures: Figures,
    /// The run's wall time, its setup included.
    pub wall_seconds: f64,
}

/// The figures of one run, as far as the report reads them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "scenario", rename_all = "lowercase")]
pub enum Figures {
    Digest(DigestFigures),
    Http(HttpFigures),
    Ingest(IngestFigures),
    Coldstart(ColdstartFigures),
    Embed(EmbedFigures),
}

impl Figures {
    /// What else used the cores before and during the run (`None`: not recorded).
    pub fn load(&self) -> Option<&Load> {
        match self {
            Figures::Digest(digest) => digest.load.as_ref(),
            Figures::Http(http) => http.load.as_ref(),
            Figures::Ingest(ingest) => ingest.load.as_ref(),
            Figures::Coldstart(coldstart) => coldstart.load.as_ref(),
            Figures::Embed(embed) => embed.load.as_ref(),
        }
    }

    pub fn as_digest(&self) -> Option<&DigestFigures> {
        match self {
            Figures::Digest(digest) => Some(digest),
            _ => None,
        }
    }

    pub fn as_http(&self) -> Option<&HttpFigures> {
        match self {
            Figures::Http(http) => Some(http),
            _ => None,
        }
    }

    pub fn as_ingest(&self) -> Option<&IngestFigures> {
        match self {
            Figures::Ingest(ingest) => Some(ingest),
            _ => None,
        }
    }

    pub fn as_embed(&self) -> Option<&EmbedFigures> {
        match self {
            Figures::Embed(embed) => Some(embed),
            _ => None,
        }
    }

    pub fn as_coldstart(&self) -> Option<&ColdstartFigures> {
        match self {
            Figures::Coldstart(coldstart) => Some(coldstart),
            _ => None,
        }
    }
}

/// The `digest` scenario's figures (see `main.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestFigures {
    pub users: usize,
    pub papers_in_index: u64,
    pub digests: usize,
    pub digest_seconds: f64,
    pub render_seconds: f64,
    pub total_seconds: f64,
    pub users_per_second: f64,
    pub index_peak_rss_mib: Option<f64>,
    pub peak_rss_mib: Option<f64>,
    /// What else used the cores before and during the run.
    #[serde(default)]
    pub load: Option<Load>,
}

/// The `http` scenario's figures (see `http::run`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpFigures {
    pub seconds: f64,
    pub connections: usize,
    pub users: usize,
    /// The calls sent; empty: the whole mix.
    pub only: Vec<String>,
    pub requests: u64,
    pub requests_per_second: f64,
    pub errors: u64,
    /// Each call's latencies, by its name (`me`, `searchTerms`, ...).
    pub endpoints: BTreeMap<String, CallLatency>,
    /// The server's peak RSS.
    pub rss_mib: Option<f64>,
    /// wrk on `GET /api/auth/me` against the same server after the run (`--wrk`).
    #[serde(default)]
    pub wrk: Option<crate::wrk::WrkFigures>,
    /// The run's requests per second over wrk's (an `--only me` run with `--wrk`).
    #[serde(default)]
    pub generator_vs_wrk: Option<f64>,
    /// Each user's dashboard: search terms and digests.
    #[serde(default)]
    pub terms_per_user: Option<usize>,
    #[serde(default)]
    pub digests_per_user: Option<usize>,
    /// What else used the cores before and during the run.
    #[serde(default)]
    pub load: Option<Load>,
}

impl HttpFigures {
    /// Whether the run sent `GET /api/auth/me` alone.
    pub fn is_me_only(&self) -> bool {
        self.only.iter().all(|call| call == "me") && !self.only.is_empty()
    }
}

/// One call's figures in an `http` run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallLatency {
    pub requests: u64,
    pub requests_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub errors: u64,
}

/// The `ingest` scenario's figures (see `main.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestFigures {
    pub records: usize,
    pub papers_in_index: u64,
    pub input_bytes: u64,
    pub seconds: f64,
    pub parse_seconds: f64,
    pub upsert_seconds: f64,
    pub commit_seconds: f64,
    pub papers_per_second: f64,
    pub megabytes_per_second: f64,
    pub peak_rss_mib: Option<f64>,
    /// Papers per commit.
    pub batch: usize,
    pub commits: usize,
    /// What else used the cores before and during the run.
    #[serde(default)]
    pub load: Option<Load>,
}

/// The `coldstart` scenario's figures (see `main.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColdstartFigures {
    pub users: usize,
    pub papers_in_index: u64,
    pub build_seconds: f64,
    pub start_seconds: Vec<f64>,
    pub median_start_seconds: f64,
    pub page_cache_dropped: bool,
    pub peak_rss_mib: Option<f64>,
    /// What else used the cores before and during the run.
    #[serde(default)]
    pub load: Option<Load>,
}

/// The `embed` scenario's figures (see `main.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbedFigures {
    /// What ran the model (`onnx-int8`, `onnx-fp32`, `candle`); none in reports from before
    /// there was a choice (candle).
    #[serde(default)]
    pub runtime: Option<String>,
    pub papers: usize,
    pub papers_per_second: f64,
    /// CPU time of the embedding, every thread.
    #[serde(default)]
    pub embed_cpu_seconds: Option<f64>,
    pub term_embed_ms_p50: f64,
    pub term_rank_ms_p50: f64,
    pub peak_rss_mib: Option<f64>,
    /// The real binary's vectorizer on a backlog (`--backlog`).
    #[serde(default)]
    pub backlog: Option<BacklogFigures>,
    /// The real binary with the model, idle once every paper has its vector (`--rest-papers`).
    #[serde(default)]
    pub at_rest: Option<AtRestFigures>,
    /// What else used the cores before and during the run.
    #[serde(default)]
    pub load: Option<Load>,
}

/// The `embed` scenario's `backlog` figures (see `serving.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BacklogFigures {
    pub papers: u64,
    pub measured_seconds: f64,
    pub embedded: u64,
    pub papers_per_second: f64,
    pub hours_for_all: Option<f64>,
    pub cpu_seconds_per_thousand: Option<f64>,
    pub peak_rss_mib: Option<f64>,
}

/// The `embed` scenario's `atRest` figures (see `serving.rs`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AtRestFigures {
    pub papers: u64,
    pub rss_mib: f64,
    pub peak_rss_mib: Option<f64>,
}

/// The machine a report ran on.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub cores: usize,
    pub cpu: Option<String>,
    /// `MemTotal` of `/proc/meminfo`.
    pub memory_kib: Option<u64>,
    /// The distribution's name (`PRETTY_NAME` of `/etc/os-release`), else the OS family.
    pub os: String,
    /// The kernel's release (`/proc/sys/kernel/osrelease`).
    pub kernel: Option<String>,
    /// The git commit of the working directory, with `(modified)` when it has uncommitted changes.
    pub commit: Option<String>,
    /// The bench's build profile: `release` or `debug`.
    pub build: &'static str,
    pub date: DateTime<Utc>,
}

/// What a report wrote.
#[derive(Debug, Clone)]
pub struct Report {
    pub dir: PathBuf,
    pub measured: Vec<Measured>,
    pub skipped: Vec<Part>,
    /// The plots' file names.
    pub plots: Vec<String>,
}

/// The runs of a report at `sizes` (with the million-user pass when `million`), less the
/// scenarios in `skip`, in the order they run. The `--only me` run at the target's connections
/// also runs `wrk` when `wrk` is given.
pub fn plan(sizes: Sizes, skip: &[Part], million: bool, wrk: Option<&Path>) -> Vec<Run> {
    let mut runs = match sizes {
        Sizes::Full => vec![
            Run::new(Part::Digest, &["--users", "1000", "--papers", "35000"]),
            Run::new(Part::Digest, &["--users", "10000", "--papers", "35000"]),
            Run::new(Part::Digest, &["--users", "100000", "--papers", "35000"]),
            Run::new(Part::Ingest, &["--records", "35000", "--batch", "1000"]),
            Run::new(Part::Ingest, &["--records", "35000", "--batch", "5000"]),
            Run::new(Part::Ingest, &["--records", "35000", "--batch", "35000"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "16", "--seconds", "15"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "64", "--seconds", "15"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "256", "--seconds", "15"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "1000", "--seconds", "15"]),
            Run::new(Part::Http, &["--connections", "256", "--seconds", "15"]),
            Run::new(Part::Coldstart, &["--users", "100000", "--papers", "1000000", "--runs", "3"]),
            Run::new(Part::Embed, &["--papers", "2000", "--backlog", "100000", "--backlog-seconds", "120", "--rest-papers", "300"]),
        ],
        Sizes::Quick => vec![
            Run::new(Part::Digest, &["--users", "10", "--papers", "1000"]),
            Run::new(Part::Digest, &["--users", "30", "--papers", "1000"]),
            Run::new(Part::Ingest, &["--records", "500", "--batch", "100"]),
            Run::new(Part::Ingest, &["--records", "500", "--batch", "500"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "4", "--seconds", "2"]),
            Run::new(Part::Http, &["--only", "me", "--connections", "8", "--seconds", "2"]),
            Run::new(Part::Http, &["--connections", "8", "--seconds", "2"]),
            Run::new(Part::Coldstart, &["--users", "50", "--papers", "1000", "--runs", "1"]),
            Run::new(Part::Embed, &["--papers", "4", "--backlog", "200", "--backlog-seconds", "3", "--rest-papers", "8"]),
        ],
    };
    if million {
        let at = runs.iter().rposition(|run| run.part == Part::Digest).map_or(0, |last| last + 1);
        let (users, papers) = match sizes {
            Sizes::Full => ("1000000", "1000000"),
            Sizes::Quick => ("100", "1000"),
        };
        runs.insert(at, Run::new(Part::Digest, &["--users", users, "--papers", papers]));
    }
    if let Some(wrk) = wrk {
        let connections = match sizes {
            Sizes::Full => "256",
            Sizes::Quick => "8",
        };
        let target: Vec<String> = ["--only", "me", "--connections", connections].map(String::from).into();
        if let Some(run) = runs.iter_mut().find(|run| run.part == Part::Http && run.args.starts_with(&target)) {
            run.args.extend(["--wrk".to_owned(), wrk.display().to_string()]);
        }
    }
    runs.into_iter().filter(|run| !skip.contains(&run.part)).collect()
}

/// Runs the report's runs one after the other and writes its directory.
pub fn run(config: &ReportConfig) -> anyhow::Result<Report> {
    let runs = plan(config.sizes, &config.skip, config.million, config.wrk.as_deref());
    if runs.iter().any(|run| run.part == Part::Embed) {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let given = std::env::var_os("PAPERTIDE_EMBED_MODEL_DIR").map(PathBuf::from);
        crate::embedding::find_model_dir(given.as_deref(), &crate::embedding::default_model_dirs(home.as_deref()))
            .context("the embed scenario needs the embedding model (or skip it: --skip embed)")?;
    }
    let server = if runs.iter().any(|run| run.part.needs_server()) {
        let server = crate::http::find_server_binary(config.server.as_deref())
            .context("the http, coldstart and embed scenarios start the papertide binary (or skip them: --skip http,coldstart,embed)")?;
        Some(server)
    } else {
        None
    };
    std::fs::create_dir_all(&config.out).with_context(|| format!("creating {}", config.out.display()))?;
    remove_previous_report(&config.out)?;
    let machine = Machine::read();

    let mut measured = Vec::with_capacity(runs.len());
    for (number, run) in runs.iter().enumerate() {
        if !config.wait_quiet.is_zero() {
            let others = quiet::wait_for_quiet(config.wait_quiet);
            if others > quiet::QUIET_CORES {
                eprintln!(
                    "report: other programs still use {others:.2} cores after {} s of waiting; the run goes on, marked busy",
                    config.wait_quiet.as_secs()
                );
            }
        }
        eprintln!("report: {} ... ({} of {})", run.command_line(), number + 1, runs.len());
        let started = Instant::now();
        let raw = measure(&config.bench, run, server.as_deref()).with_context(|| {
            let kept =
                if measured.is_empty() { String::new() } else { format!("; the runs before it are in {}", config.out.join(FIGURES_FILE).display()) };
            format!("the report stopped at run {} of {}{kept}", number + 1, runs.len())
        })?;
        let wall_seconds = started.elapsed().as_secs_f64();
        let figures: Figures = serde_json::from_value(raw.clone()).with_context(|| format!("reading the figures of `{}`", run.command_line()))?;
        measured.push(Measured { run: run.clone(), raw, figures, wall_seconds });
        write_figures(&config.out, &measured)?;
    }

    let mut plots = Vec::new();
    for chart in plot::charts(&measured) {
        plot::draw(&chart, &config.out.join(chart.file))?;
        plots.push(chart.file.to_owned());
    }
    let skipped: Vec<Part> = Part::ALL.into_iter().filter(|part| config.skip.contains(part)).collect();
    let summary = summary::render(&summary::Inputs { machine: &machine, sizes: config.sizes, measured: &measured, skipped: &skipped, plots: &plots });
    let summary_path = config.out.join(SUMMARY_FILE);
    std::fs::write(&summary_path, summary).with_context(|| format!("writing {}", summary_path.display()))?;
    Ok(Report { dir: config.out.clone(), measured, skipped, plots })
}

impl Machine {
    /// This machine, now.
    pub fn read() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|info| cpu_model(&info));
        let memory_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| mem_total_kib(&info));
        let os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|release| pretty_name(&release))
            .unwrap_or_else(|| std::env::consts::OS.to_owned());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|release| release.trim().to_owned());
        Machine {
            cores: std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            cpu,
            memory_kib,
            os,
            kernel,
            commit: git_commit(),
            build: if cfg!(debug_assertions) { "debug" } else { "release" },
            date: Utc::now(),
        }
    }
}

/// The figures of the runs of one scenario, e.g. every digest run's with `Figures::as_digest`.
fn figures_of<'a, T>(measured: &'a [Measured], pick: fn(&'a Figures) -> Option<&'a T>) -> Vec<&'a T> {
    measured.iter().filter_map(|measured| pick(&measured.figures)).collect()
}

/// Runs `run` in a process of its own (with `--server` when it starts the papertide binary) and
/// answers the JSON object of its last line of output; its standard error goes through.
fn measure(bench: &Path, run: &Run, server: Option<&Path>) -> anyhow::Result<Value> {
    let command_line = run.command_line();
    let mut command = Command::new(bench);
    command.arg("--json").arg(run.part.name()).args(&run.args);
    if let Some(server) = server.filter(|_| run.part.needs_server()) {
        command.arg("--server").arg(server);
    }
    let output = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting `{} --json {command_line}`", bench.display()))?;
    if !output.status.success() {
        bail!("the run `papertide-bench --json {command_line}` failed ({})", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last_line = stdout.lines().rev().find(|line| !line.trim().is_empty()).with_context(|| format!("the run `{command_line}` printed nothing"))?;
    let figures: Value = serde_json::from_str(last_line).with_context(|| format!("the last line of `{command_line}` is not JSON: {last_line}"))?;
    anyhow::ensure!(figures.is_object(), "the last line of `{command_line}` is not a JSON object: {last_line}");
    Ok(figures)
}

/// Removes the files an earlier report left in `dir` (only the report's own names), so that a
/// scenario skipped now leaves no stale plot behind.
fn remove_previous_report(dir: &Path) -> anyhow::Result<()> {
    let names = [FIGURES_FILE, SUMMARY_FILE].into_iter().chain(plot::FILES);
    for name in names {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(error).with_context(|| format!("removing the earlier {}", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

fn write_figures(dir: &Path, measured: &[Measured]) -> anyhow::Result<()> {
    let raw: Vec<&Value> = measured.iter().map(|measured| &measured.raw).collect();
    let path = dir.join(FIGURES_FILE);
    let text = serde_json::to_string_pretty(&raw).context("the figures as JSON")?;
    std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

/// The first `model name` of a `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    let line = cpuinfo.lines().find(|line| line.starts_with("model name"))?;
    let model = line.split_once(':')?.1.trim();
    (!model.is_empty()).then(|| model.to_owned())
}

/// `MemTotal` of a `/proc/meminfo` text, in KiB.
fn mem_total_kib(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `PRETTY_NAME` of an `/etc/os-release` text.
fn pretty_name(os_release: &str) -> Option<String> {
    let value = os_release.lines().find_map(|line| line.strip_prefix("PRETTY_NAME="))?;
    let name = value.trim().trim_matches('"');
    (!name.is_empty()).then(|| name.to_owned())
}

/// The working directory's git commit (short), `None` outside a repository or without git.
fn git_commit() -> Option<String> {
    let git = |args: &[&str]| {
        let output = Command::new("git").args(args).stderr(Stdio::null()).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let modified = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|status| !status.is_empty());
    Some(if modified { format!("{commit} (modified)") } else { commit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_report_runs_the_targets_sizes_and_skips_what_it_is_told() {
        let full = plan(Sizes::Full, &[], false, None);
        let commands: Vec<String> = full.iter().map(Run::command_line).collect();
        assert!(commands.contains(&"digest --users 100000 --papers 35000".to_owned()), "{commands:?}");
        assert!(commands.contains(&"http --only me --connections 256 --seconds 15".to_owned()), "{commands:?}");
        assert!(commands.contains(&"http --only me --connections 1000 --seconds 15".to_owned()), "{commands:?}");
        assert!(commands.contains(&"ingest --records 35000 --batch 35000".to_owned()), "{commands:?}");
        assert!(commands.contains(&"coldstart --users 100000 --papers 1000000 --runs 3".to_owned()), "{commands:?}");
        let without = plan(Sizes::Full, &[Part::Coldstart, Part::Http], false, None);
        assert!(without.iter().all(|run| matches!(run.part, Part::Digest | Part::Ingest | Part::Embed)));
        assert_eq!(without.len(), 7);
        for part in Part::ALL {
            assert!(plan(Sizes::Quick, &[], false, None).iter().any(|run| run.part == part), "quick runs {}", part.name());
        }
    }

    #[test]
    fn the_full_report_adds_the_million_user_pass_and_wrk_beside_the_target_run() {
        let wrk = Path::new("/usr/bin/wrk");
        let runs = plan(Sizes::Full, &[], true, Some(wrk));
        let commands: Vec<String> = runs.iter().map(Run::command_line).collect();
        let million = commands.iter().position(|command| command == "digest --users 1000000 --papers 1000000");
        let last_digest = commands.iter().rposition(|command| command.starts_with("digest"));
        assert!(million.is_some() && million == last_digest, "the million-user pass runs after the other digest runs: {commands:?}");
        let with_wrk: Vec<&String> = commands.iter().filter(|command| command.contains("--wrk")).collect();
        assert_eq!(with_wrk, ["http --only me --connections 256 --seconds 15 --wrk /usr/bin/wrk"]);
        assert_eq!(plan(Sizes::Full, &[], false, None).len() + 1, runs.len());
        assert!(plan(Sizes::Full, &[Part::Digest], true, None).iter().all(|run| run.part != Part::Digest));
    }

    #[test]
    fn figures_are_read_by_their_scenario() -> anyhow::Result<()> {
        let raw = serde_json::json!({
            "scenario": "ingest", "records": 500, "parsedRecords": 500, "papersInIndex": 500, "inputBytes": 3558473,
            "seconds": 1.12, "parseSeconds": 0.35, "upsertSeconds": 0.37, "commitSeconds": 0.4, "papersPerSecond": 444.46,
            "megabytesPerSecond": 3.16, "peakRssMib": 77.55, "writerThreads": 2, "batch": 100, "commits": 5,
            "machine": { "cores": 2 },
        });
        let Figures::Ingest(ingest) = serde_json::from_value(raw)? else { panic!("an ingest run") };
        assert_eq!((ingest.batch, ingest.commits, ingest.peak_rss_mib), (100, 5, Some(77.55)));
        let http = serde_json::json!({
            "scenario": "http", "seconds": 2.0, "connections": 4, "users": 4, "only": ["me"], "requests": 10, "requestsPerSecond": 5.0,
            "errors": 0, "rssMib": null,
            "endpoints": { "me": { "requests": 10, "requestsPerSecond": 5.0, "p50Ms": 1.0, "p99Ms": 2.0, "p999Ms": 3.0, "maxMs": 4.0, "errors": 0 } },
        });
        let Figures::Http(http) = serde_json::from_value(http)? else { panic!("an http run") };
        assert!(http.is_me_only());
        assert_eq!(http.endpoints["me"].p999_ms, 3.0);
        Ok(())
    }

    #[test]
    fn the_machine_is_read_from_procfs_texts() {
        assert_eq!(cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags: x\n"), Some("AMD EPYC 7B13".into()));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
        assert_eq!(mem_total_kib("MemTotal:       24578424 kB\nMemFree: 1 kB\n"), Some(24_578_424));
        assert_eq!(pretty_name("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"), Some("Debian GNU/Linux 12 (bookworm)".into()));
        assert_eq!(pretty_name("NAME=x\n"), None);
    }
}
