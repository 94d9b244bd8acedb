//! The report's summary (`README.md`): the machine, then per scenario a table of its figures at
//! each size, its plots, and its targets, each with a verdict: met or not met, by how much, or
//! not measured when no run was at the target's size. Only a quiet run judges a target (no other
//! program used the cores before or during it: `crate::quiet`); a busy run's figure is shown
//! unjudged, with what else ran.

use std::fmt::Write as _;

use super::{
    figures_of, AtRestFigures, BacklogFigures, ColdstartFigures, DigestFigures, EmbedFigures, Figures, HttpFigures, IngestFigures, Machine, Measured,
    Part, Sizes,
};
use crate::quiet::{Load, QUIET_CORES};

/// The weekly pass's targets: users, and the most seconds of digest time for them.
const DIGEST_TIME_TARGETS: [(usize, f64); 2] = [(1_000_000, 60.0), (100_000, 10.0)];
/// The weekly pass's peak RSS over the index's, in MiB (2 GiB).
const PASS_MEMORY_MIB: f64 = 2048.0;
/// The records of a week and the ingest rate asked for them, in papers per second.
const INGEST_WEEK_RECORDS: usize = 35_000;
const INGEST_PAPERS_PER_SECOND: f64 = 30_000.0;
/// `GET /api/auth/me` at this many connections: at least this many requests per second, with
/// a p99 under this many milliseconds.
const HTTP_CONNECTIONS: usize = 256;
const HTTP_REQUESTS_PER_SECOND: f64 = 50_000.0;
const HTTP_P99_MS: f64 = 10.0;
/// No errors at this many connections.
const HTTP_ERRORLESS_CONNECTIONS: usize = 1_000;
/// The bench's load generator, as a share of wrk's requests per second on the same run (%).
const GENERATOR_SHARE_OF_WRK: f64 = 100.0 * (1.0 - crate::wrk::GENERATOR_TOLERANCE);
/// Papers embedded per second (title and abstract), at least.
const EMBED_PAPERS_PER_SECOND: f64 = 40.0;
/// The serving process with the model, idle once every paper has its vector, under this (MiB).
const AT_REST_MIB: f64 = 500.0;
/// A cold start on this many users and papers, in at most this many seconds.
const COLDSTART_USERS: usize = 100_000;
const COLDSTART_PAPERS: u64 = 1_000_000;
const COLDSTART_SECONDS: f64 = 1.0;

/// What a target asks of a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Goal {
    /// Strictly less than the limit.
    Below(f64),
    /// The limit or less.
    AtMost(f64),
    /// The limit or more.
    AtLeast(f64),
}

/// A target's outcome, with the figure and its distance from the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Met(String),
    NotMet(String),
    /// No run measured the figure at the target's size: why.
    NotMeasured(String),
    /// The only runs at the target's size shared the cores with other programs: the figure and
    /// what else ran, judged neither way.
    Busy(String),
}

/// A run's figures that record the machine's load.
trait Loaded {
    fn load(&self) -> Option<&Load>;

    /// Whether no other program used the cores (a run that did not record it counts as quiet).
    fn is_quiet(&self) -> bool {
        self.load().is_none_or(|load| load.quiet)
    }
}

/// Each scenario's figures carry their `load`.
macro_rules! loaded {
    ($($figures:ty),*) => {
        $(impl Loaded for $figures {
            fn load(&self) -> Option<&Load> {
                self.load.as_ref()
            }
        })*
    };
}

loaded!(DigestFigures, IngestFigures, HttpFigures, EmbedFigures, ColdstartFigures);

/// The run that judges a target among `candidates`: the first quiet one, else the first.
fn quiet_first<'a, T: Loaded>(candidates: impl Iterator<Item = &'a T>) -> Option<&'a T> {
    let candidates: Vec<&T> = candidates.collect();
    candidates.iter().find(|run| run.is_quiet()).or_else(|| candidates.first()).copied()
}

/// `verdict` as judged on `run`: kept when the run was quiet, else its figure unjudged.
fn on_quiet(run: &impl Loaded, verdict: Verdict) -> Verdict {
    match (run.load().and_then(Load::why_busy), verdict) {
        (Some(why), Verdict::Met(detail) | Verdict::NotMet(detail)) => Verdict::Busy(format!("{detail}; {why}")),
        (_, verdict) => verdict,
    }
}

/// The table cell of a run's load: `quiet`, or `busy` and the cores others used.
fn load_cell(run: &impl Loaded) -> String {
    match run.load() {
        None => "—".to_owned(),
        Some(load) if load.quiet => "quiet".to_owned(),
        Some(load) => format!("busy ({} cores)", format_number(load.most_other_cores())),
    }
}

/// What the summary is made of.
pub(super) struct Inputs<'a> {
    pub machine: &'a Machine,
    pub sizes: Sizes,
    pub measured: &'a [Measured],
    pub skipped: &'a [Part],
    pub plots: &'a [String],
}

/// One target of a scenario and its verdict.
struct Checked {
    part: Part,
    target: String,
    verdict: Verdict,
}

impl Goal {
    fn is_met_by(self, measured: f64) -> bool {
        match self {
            Goal::Below(limit) => measured < limit,
            Goal::AtMost(limit) => measured <= limit,
            Goal::AtLeast(limit) => measured >= limit,
        }
    }
}

impl Verdict {
    /// The verdict as markdown: the outcome in bold, then the figure and its distance.
    pub fn markdown(&self) -> String {
        match self {
            Verdict::Met(detail) => format!("**met**: {detail}"),
            Verdict::NotMet(detail) => format!("**not met**: {detail}"),
            Verdict::NotMeasured(why) => format!("not measured: {why}"),
            Verdict::Busy(detail) => format!("not judged (busy run): {detail}"),
        }
    }

    /// The same verdict with `context` (e.g. the run's size) before its detail.
    fn at(self, context: &str) -> Verdict {
        match self {
            Verdict::Met(detail) => Verdict::Met(format!("{context}: {detail}")),
            Verdict::NotMet(detail) => Verdict::NotMet(format!("{context}: {detail}")),
            Verdict::Busy(detail) => Verdict::Busy(format!("{context}: {detail}")),
            not_measured => not_measured,
        }
    }
}

/// Judges `measured` (in `unit`) against `goal`, with its distance from the limit: "0.86 s,
/// 0.14 s under the limit", "52.3 s, 42.3 s over the limit (5.23×)", "5,170 papers/s, 24,830
/// papers/s short of the target (17.2% of it)".
pub fn judge(measured: f64, goal: Goal, unit: &str) -> Verdict {
    let with_unit = |value: f64| if unit.is_empty() { format_number(value) } else { format!("{} {unit}", format_number(value)) };
    let figure = with_unit(measured);
    let met = goal.is_met_by(measured);
    let detail = match goal {
        Goal::Below(limit) | Goal::AtMost(limit) if met => format!("{figure}, {} under the limit", with_unit(limit - measured)),
        Goal::Below(limit) | Goal::AtMost(limit) => {
            let ratio = if limit > 0.0 { format!(" ({}×)", format_number(measured / limit)) } else { String::new() };
            format!("{figure}, {} over the limit{ratio}", with_unit(measured - limit))
        }
        Goal::AtLeast(target) if met => format!("{figure}, {} above the target", with_unit(measured - target)),
        Goal::AtLeast(target) => {
            let share = if target > 0.0 { format!(" ({}% of it)", format_number(100.0 * measured / target)) } else { String::new() };
            format!("{figure}, {} short of the target{share}", with_unit(target - measured))
        }
    };
    if met {
        Verdict::Met(detail)
    } else {
        Verdict::NotMet(detail)
    }
}

/// A figure for people: thousands grouped with commas, integers without decimals, other values
/// to about three significant digits (no trailing zeros): 1,000,000; 389; 52.3; 2.31; 0.05.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let magnitude = value.abs();
    let decimals = match magnitude {
        _ if value.fract() == 0.0 || magnitude >= 100.0 => 0,
        _ if magnitude >= 10.0 => 1,
        _ if magnitude >= 0.1 => 2,
        _ => 3,
    };
    // Halves round away from zero (`format!` alone rounds them to even).
    let rounded = round_to(magnitude, decimals as i32);
    let text = format!("{rounded:.decimals$}");
    let (integer, fraction) = text.split_once('.').unwrap_or((text.as_str(), ""));
    let fraction = fraction.trim_end_matches('0');
    let mut grouped = String::new();
    for (position, digit) in integer.chars().enumerate() {
        if position > 0 && (integer.len() - position) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let is_zero = integer.chars().all(|digit| digit == '0') && fraction.is_empty();
    let sign = if value < 0.0 && !is_zero { "-" } else { "" };
    if fraction.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{fraction}")
    }
}

/// The summary's markdown.
pub(super) fn render(inputs: &Inputs) -> String {
    let checked = check_targets(inputs.measured, inputs.skipped);
    let mut text = String::new();
    render_head(&mut text, inputs);
    render_targets(&mut text, &checked);
    for part in [Part::Digest, Part::Ingest, Part::Embed, Part::Http, Part::Coldstart] {
        render_part(&mut text, inputs, part, &checked);
    }
    render_runs(&mut text, inputs);
    text
}

fn render_head(text: &mut String, inputs: &Inputs) {
    let machine = inputs.machine;
    let _ = writeln!(text, "# Papertide benchmark report\n");
    let _ = writeln!(text, "Written by `papertide-bench report` on {}.", machine.date.format("%Y-%m-%d %H:%M UTC"));
    if inputs.sizes == Sizes::Quick {
        let _ = writeln!(
            text,
            "\n**Quick sizes** (`--quick`): these runs check the report itself. Their figures say nothing about the targets, \
             which are set at other sizes."
        );
    }
    if !inputs.skipped.is_empty() {
        let names: Vec<&str> = inputs.skipped.iter().map(|part| part.name()).collect();
        let _ = writeln!(text, "\nSkipped (`--skip {}`): {}.", names.join(","), names.join(", "));
    }
    let memory =
        machine.memory_kib.map_or_else(|| "unknown".to_owned(), |kib| format!("{} GiB", format_number(round_to(kib as f64 / 1024.0 / 1024.0, 1))));
    let kernel = machine.kernel.as_deref().map_or_else(String::new, |kernel| format!(", kernel {kernel}"));
    let _ = writeln!(text, "\n## Machine\n\n| | |\n|---|---|");
    let _ = writeln!(text, "| cores | {} |", machine.cores);
    let _ = writeln!(text, "| CPU | {} |", machine.cpu.as_deref().unwrap_or("unknown"));
    let _ = writeln!(text, "| memory | {memory} |");
    let _ = writeln!(text, "| OS | {}{kernel} |", machine.os);
    let _ = writeln!(text, "| build | {} |", machine.build);
    let _ = writeln!(text, "| commit | {} |", machine.commit.as_deref().unwrap_or("unknown (not a git checkout)"));
    let _ = writeln!(text, "| date | {} |", machine.date.format("%Y-%m-%d %H:%M:%S UTC"));
    let _ = writeln!(
        text,
        "\nEach run records what else used the cores: for a second before it starts and over the whole run, the CPU time of \
         every other program. A run is **quiet** when they used at most {} of a core both times; only quiet runs judge a \
         target. A **busy** run's figures are shown, marked, and judge nothing.",
        format_number(QUIET_CORES)
    );
}

fn render_targets(text: &mut String, checked: &[Checked]) {
    let _ = writeln!(text, "\n## Targets\n\n| scenario | target | verdict |\n|---|---|---|");
    for check in checked {
        let _ = writeln!(text, "| {} | {} | {} |", check.part.name(), check.target, check.verdict.markdown());
    }
}

fn render_part(text: &mut String, inputs: &Inputs, part: Part, checked: &[Checked]) {
    let heading = match part {
        Part::Digest => "digest: the weekly pass",
        Part::Ingest => "ingest: a week of new records",
        Part::Http => "http: the real binary under load",
        Part::Coldstart => "coldstart: start to a healthy /healthz",
        Part::Embed => "embed: papers' vectors and a term's ranking",
    };
    let _ = writeln!(text, "\n## {heading}\n");
    if inputs.skipped.contains(&part) {
        let _ = writeln!(text, "Skipped (`--skip {}`).", part.name());
        return;
    }
    match part {
        Part::Digest => digest_table(text, &figures_of(inputs.measured, Figures::as_digest)),
        Part::Ingest => ingest_table(text, &figures_of(inputs.measured, Figures::as_ingest)),
        Part::Http => http_tables(text, &figures_of(inputs.measured, Figures::as_http)),
        Part::Coldstart => coldstart_table(text, &figures_of(inputs.measured, Figures::as_coldstart)),
        Part::Embed => embed_table(text, &figures_of(inputs.measured, Figures::as_embed)),
    }
    let prefix = format!("{}-", part.name());
    for plot in inputs.plots.iter().filter(|plot| plot.starts_with(&prefix)) {
        let _ = writeln!(text, "\n![{}]({plot})", plot.trim_end_matches(".svg").replace('-', " "));
    }
    let _ = writeln!(text);
    for check in checked.iter().filter(|check| check.part == part) {
        let _ = writeln!(text, "- Target: {} — {}", check.target, check.verdict.markdown());
    }
}

fn digest_table(text: &mut String, runs: &[&DigestFigures]) {
    let _ = writeln!(text, "The pass (`digestSeconds`) builds, stores and queues every user's digests; rendering their mails is timed apart.\n");
    let _ = writeln!(
        text,
        "| users | papers | digests | pass s | render s | total s | users/s | users/s of the pass | index build peak RSS | pass peak RSS | cores |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|---|---|---|");
    for run in runs {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            format_number(run.users as f64),
            format_number(run.papers_in_index as f64),
            format_number(run.digests as f64),
            format_number(run.digest_seconds),
            format_number(run.render_seconds),
            format_number(run.total_seconds),
            format_number(run.users_per_second),
            format_number(run.users as f64 / run.digest_seconds.max(f64::MIN_POSITIVE)),
            mib(run.index_peak_rss_mib),
            mib(run.peak_rss_mib),
            load_cell(*run),
        );
    }
}

fn ingest_table(text: &mut String, runs: &[&IngestFigures]) {
    let _ = writeln!(text, "Parse, deduplicate and index a generated week; the writer commits after every `batch` papers.\n");
    let _ = writeln!(text, "| records | batch | commits | papers/s | MB/s | parse s | upsert s | commit s | total s | peak RSS | cores |");
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|---|---|---|");
    for run in runs {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            format_number(run.records as f64),
            format_number(run.batch as f64),
            format_number(run.commits as f64),
            format_number(run.papers_per_second),
            format_number(run.megabytes_per_second),
            format_number(run.parse_seconds),
            format_number(run.upsert_seconds),
            format_number(run.commit_seconds),
            format_number(run.seconds),
            mib(run.peak_rss_mib),
            load_cell(*run),
        );
    }
}

fn http_tables(text: &mut String, runs: &[&HttpFigures]) {
    let _ = writeln!(text, "Signed-in keep-alive connections over loopback; the load generator shares the machine with the server.\n");
    let _ = writeln!(
        text,
        "| calls | connections | seconds | requests/s | errors | `me` p50 ms | `me` p99 ms | `me` p99.9 ms | `me` max ms | server peak RSS | cores |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|---|---|---|");
    for run in runs {
        let calls = if run.only.is_empty() { "the whole mix".to_owned() } else { run.only.join(", ") };
        let me = run.endpoints.get("me");
        let latency = |pick: fn(&super::CallLatency) -> f64| me.map_or_else(|| "—".to_owned(), |me| format_number(pick(me)));
        let _ = writeln!(
            text,
            "| {calls} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            format_number(run.connections as f64),
            format_number(run.seconds),
            format_number(run.requests_per_second),
            format_number(run.errors as f64),
            latency(|me| me.p50_ms),
            latency(|me| me.p99_ms),
            latency(|me| me.p999_ms),
            latency(|me| me.max_ms),
            mib(run.rss_mib),
            load_cell(*run),
        );
    }
    for run in runs {
        let Some(wrk) = &run.wrk else { continue };
        let optional = |value: Option<f64>| value.map_or_else(|| "—".to_owned(), format_number);
        let _ = writeln!(
            text,
            "\nwrk on `GET /api/auth/me` right after the {}-connection run, against the same server ({} thread(s), {} connections, {} s): \
             {} requests/s, p50 {} ms, p99 {} ms, {} errors; the bench's generator made {}% of wrk's rate.",
            format_number(run.connections as f64),
            wrk.threads,
            format_number(wrk.connections as f64),
            format_number(wrk.seconds),
            format_number(wrk.requests_per_second),
            optional(wrk.p50_ms),
            optional(wrk.p99_ms),
            format_number(wrk.errors as f64),
            optional(run.generator_vs_wrk.map(|ratio| 100.0 * ratio)),
        );
    }
    for run in runs.iter().filter(|run| run.only.is_empty() || run.only.len() > 1) {
        let dashboard = match (run.terms_per_user, run.digests_per_user) {
            (Some(terms), Some(digests)) => format!(", each user's dashboard {terms} search terms and {digests} digests"),
            _ => String::new(),
        };
        let _ = writeln!(text, "\nEach call of the mix at {} connections{dashboard}:\n", format_number(run.connections as f64));
        let _ = writeln!(text, "| call | requests/s | p50 ms | p99 ms | p99.9 ms | max ms | errors |\n|---|---|---|---|---|---|---|");
        for (call, latency) in run.endpoints.iter().filter(|(_, latency)| latency.requests > 0) {
            let _ = writeln!(
                text,
                "| {call} | {} | {} | {} | {} | {} | {} |",
                format_number(latency.requests_per_second),
                format_number(latency.p50_ms),
                format_number(latency.p99_ms),
                format_number(latency.p999_ms),
                format_number(latency.max_ms),
                format_number(latency.errors as f64),
            );
        }
    }
}

fn embed_table(text: &mut String, runs: &[&EmbedFigures]) {
    let _ = writeln!(
        text,
        "Papers' title and abstract embedded by the sentence-embedding model, then search terms embedded and ranked against a week of vectors.\n"
    );
    let _ = writeln!(text, "| runtime | papers | papers/s | CPU s per 1,000 papers | term vector p50 ms | term ranking p50 ms | peak RSS | cores |");
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|");
    for run in runs {
        let cpu = run.embed_cpu_seconds.map_or_else(|| "—".to_owned(), |cpu| format_number(cpu * 1000.0 / run.papers.max(1) as f64));
        let _ = writeln!(
            text,
            "| {} | {} | {} | {cpu} | {} | {} | {} | {} |",
            run.runtime.as_deref().unwrap_or("candle"),
            format_number(run.papers as f64),
            format_number(run.papers_per_second),
            format_number(run.term_embed_ms_p50),
            format_number(run.term_rank_ms_p50),
            mib(run.peak_rss_mib),
            load_cell(*run),
        );
    }
    let backlogs: Vec<(&BacklogFigures, &EmbedFigures)> = runs.iter().filter_map(|run| Some((run.backlog.as_ref()?, *run))).collect();
    if !backlogs.is_empty() {
        let _ = writeln!(
            text,
            "\nThe real binary with the model on an index of papers none of which has a vector yet (a lab's backlog): its vectorizer's rate over a stretch after its first batch, and the time the whole backlog takes at that rate.\n"
        );
        let _ = writeln!(
            text,
            "| papers waiting | measured s | embedded | papers/s | hours for all | CPU s per 1,000 papers | server peak RSS | cores |"
        );
        let _ = writeln!(text, "|---|---|---|---|---|---|---|---|");
        for (backlog, run) in backlogs {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                format_number(backlog.papers as f64),
                format_number(backlog.measured_seconds),
                format_number(backlog.embedded as f64),
                format_number(backlog.papers_per_second),
                backlog.hours_for_all.map_or_else(|| "—".to_owned(), format_number),
                backlog.cpu_seconds_per_thousand.map_or_else(|| "—".to_owned(), format_number),
                mib(backlog.peak_rss_mib),
                load_cell(run),
            );
        }
    }
    let rests: Vec<&AtRestFigures> = runs.iter().filter_map(|run| run.at_rest.as_ref()).collect();
    if !rests.is_empty() {
        let _ = writeln!(text, "\nThe real binary with the model, left idle once every paper of its index has its vector.\n");
        let _ = writeln!(text, "| papers | resident at rest | peak while embedding |\n|---|---|---|");
        for rest in rests {
            let _ = writeln!(text, "| {} | {} | {} |", format_number(rest.papers as f64), mib(Some(rest.rss_mib)), mib(rest.peak_rss_mib));
        }
    }
}

fn coldstart_table(text: &mut String, runs: &[&ColdstartFigures]) {
    let _ =
        writeln!(text, "The data directory is built first (not timed); each start is timed from spawning the binary to `/healthz` answering 200.\n");
    let _ = writeln!(
        text,
        "| users | papers | starts s | median s | page cache dropped | server peak RSS | build s | cores |\n|---|---|---|---|---|---|---|---|"
    );
    for run in runs {
        let starts: Vec<String> = run.start_seconds.iter().map(|seconds| format_number(*seconds)).collect();
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            format_number(run.users as f64),
            format_number(run.papers_in_index as f64),
            starts.join(", "),
            format_number(run.median_start_seconds),
            if run.page_cache_dropped { "yes" } else { "no" },
            mib(run.peak_rss_mib),
            format_number(run.build_seconds),
            load_cell(*run),
        );
    }
}

fn render_runs(text: &mut String, inputs: &Inputs) {
    let _ = writeln!(text, "\n## Runs\n\nEach in a process of its own, in this order; the raw figures are in `figures.json`.\n");
    for (number, measured) in inputs.measured.iter().enumerate() {
        let command = measured.run.command_line();
        let load = match measured.figures.load() {
            None => String::new(),
            Some(load) => match load.why_busy() {
                Some(why) => format!(", **busy**: {why}"),
                None => format!(", quiet (others {} cores)", format_number(load.most_other_cores())),
            },
        };
        let _ = writeln!(text, "{}. `papertide-bench --json {command}`: {} s{load}", number + 1, format_number(measured.wall_seconds));
    }
}

/// Every target, judged on the runs at its size.
fn check_targets(measured: &[Measured], skipped: &[Part]) -> Vec<Checked> {
    let mut checked = digest_targets(&figures_of(measured, Figures::as_digest), skipped);
    checked.push(ingest_target(&figures_of(measured, Figures::as_ingest), skipped));
    checked.extend(http_targets(&figures_of(measured, Figures::as_http), skipped));
    checked.push(coldstart_target(&figures_of(measured, Figures::as_coldstart), skipped));
    checked.push(embed_target(&figures_of(measured, Figures::as_embed), skipped));
    checked.push(at_rest_target(&figures_of(measured, Figures::as_embed), skipped));
    checked
}

fn digest_targets(runs: &[&DigestFigures], skipped: &[Part]) -> Vec<Checked> {
    let mut checked = Vec::new();
    for (users, seconds) in DIGEST_TIME_TARGETS {
        let verdict = match quiet_first(runs.iter().copied().filter(|run| run.users == users)) {
            Some(run) => on_quiet(run, judge(run.digest_seconds, Goal::Below(seconds), "s")),
            None => not_measured(skipped, Part::Digest, &format!("no run at {} users", format_number(users as f64))),
        };
        let target = format!("{} users in < {} s of digest time", format_number(users as f64), format_number(seconds));
        checked.push(Checked { part: Part::Digest, target, verdict });
    }
    // Memory does not depend on other programs: the largest run judges it, busy or not.
    let largest = runs.iter().max_by_key(|run| run.users);
    let verdict = match largest.and_then(|run| Some((run, run.peak_rss_mib?))) {
        Some((run, peak)) => {
            let over_index = (peak - run.index_peak_rss_mib.unwrap_or(0.0)).max(0.0);
            let context = format!("at {} users, the pass's peak less the index build's", format_number(run.users as f64));
            judge(over_index, Goal::Below(PASS_MEMORY_MIB), "MiB").at(&context)
        }
        None => not_measured(skipped, Part::Digest, "no digest run with its peak RSS"),
    };
    checked.push(Checked { part: Part::Digest, target: "peak RSS of the pass < 2 GiB over the index".into(), verdict });
    checked
}

fn ingest_target(runs: &[&IngestFigures], skipped: &[Part]) -> Checked {
    let week = quiet_first(runs.iter().copied().filter(|run| run.records >= INGEST_WEEK_RECORDS && run.batch >= run.records));
    let verdict = match week {
        Some(run) => on_quiet(run, judge(run.papers_per_second, Goal::AtLeast(INGEST_PAPERS_PER_SECOND), "papers/s")),
        None => not_measured(skipped, Part::Ingest, "no run of a whole week (35,000 records) in one commit"),
    };
    let target =
        format!("≥ {} papers/s over a week of {} records", format_number(INGEST_PAPERS_PER_SECOND), format_number(INGEST_WEEK_RECORDS as f64));
    Checked { part: Part::Ingest, target, verdict }
}

fn http_targets(runs: &[&HttpFigures], skipped: &[Part]) -> Vec<Checked> {
    let me_at_target = quiet_first(runs.iter().copied().filter(|run| run.is_me_only() && run.connections == HTTP_CONNECTIONS));
    let missing = || not_measured(skipped, Part::Http, &format!("no `--only me` run at {HTTP_CONNECTIONS} connections"));
    let rate =
        me_at_target.map_or_else(missing, |run| on_quiet(run, judge(run.requests_per_second, Goal::AtLeast(HTTP_REQUESTS_PER_SECOND), "requests/s")));
    let p99 = me_at_target.and_then(|run| Some((run, run.endpoints.get("me")?.p99_ms)));
    let p99 = p99.map_or_else(missing, |(run, p99)| on_quiet(run, judge(p99, Goal::Below(HTTP_P99_MS), "ms")));
    let compared = quiet_first(runs.iter().copied().filter(|run| run.is_me_only() && run.generator_vs_wrk.is_some()));
    let generator = match compared.and_then(|run| Some((run, run.generator_vs_wrk?))) {
        // Both tools ran on the same busy or quiet machine, one after the other: the ratio
        // holds either way.
        Some((run, ratio)) => {
            let context = format!("at {} connections", format_number(run.connections as f64));
            judge(100.0 * ratio, Goal::AtLeast(GENERATOR_SHARE_OF_WRK), "% of wrk's rate").at(&context)
        }
        None => not_measured(skipped, Part::Http, "no `--only me` run with `--wrk` (wrk not installed?)"),
    };
    // Errors are errors on a busy machine too.
    let errorless = runs.iter().filter(|run| run.connections == HTTP_ERRORLESS_CONNECTIONS).max_by_key(|run| run.errors);
    let errors = match errorless {
        Some(run) => judge(run.errors as f64, Goal::AtMost(0.0), "errors"),
        None => not_measured(skipped, Part::Http, &format!("no run at {} connections", format_number(HTTP_ERRORLESS_CONNECTIONS as f64))),
    };
    vec![
        Checked {
            part: Part::Http,
            target: format!("`GET /api/auth/me` ≥ {} requests/s at {HTTP_CONNECTIONS} connections", format_number(HTTP_REQUESTS_PER_SECOND)),
            verdict: rate,
        },
        Checked { part: Part::Http, target: format!("`GET /api/auth/me` p99 < {HTTP_P99_MS} ms at {HTTP_CONNECTIONS} connections"), verdict: p99 },
        Checked {
            part: Part::Http,
            target: format!("0 errors at {} connections", format_number(HTTP_ERRORLESS_CONNECTIONS as f64)),
            verdict: errors,
        },
        Checked {
            part: Part::Http,
            target: format!("the bench's load generator makes ≥ {}% of wrk's rate on the same run", format_number(GENERATOR_SHARE_OF_WRK)),
            verdict: generator,
        },
    ]
}

fn coldstart_target(runs: &[&ColdstartFigures], skipped: &[Part]) -> Checked {
    let at_size = quiet_first(runs.iter().copied().filter(|run| run.users >= COLDSTART_USERS && run.papers_in_index >= COLDSTART_PAPERS));
    let verdict = match at_size {
        Some(run) => on_quiet(run, judge(run.median_start_seconds, Goal::Below(COLDSTART_SECONDS), "s")).at("median start"),
        None => not_measured(skipped, Part::Coldstart, "no run at 100,000 users and 1,000,000 papers"),
    };
    Checked { part: Part::Coldstart, target: "< 1 s to a healthy `/healthz` with 100,000 users and 1,000,000 papers".into(), verdict }
}

fn embed_target(runs: &[&EmbedFigures], skipped: &[Part]) -> Checked {
    // The largest run: the rate of a few papers is mostly the model's start.
    let largest = runs.iter().map(|run| run.papers).max();
    let verdict = match quiet_first(runs.iter().copied().filter(|run| Some(run.papers) == largest)) {
        Some(run) => on_quiet(run, judge(run.papers_per_second, Goal::AtLeast(EMBED_PAPERS_PER_SECOND), "papers/s")),
        None => not_measured(skipped, Part::Embed, "no embed run"),
    };
    Checked { part: Part::Embed, target: format!("≥ {} papers/s embedded", format_number(EMBED_PAPERS_PER_SECOND)), verdict }
}

fn at_rest_target(runs: &[&EmbedFigures], skipped: &[Part]) -> Checked {
    // Memory does not depend on other programs: the largest run judges it, busy or not.
    let verdict = match runs.iter().filter_map(|run| run.at_rest.as_ref()).max_by_key(|rest| rest.papers) {
        Some(rest) => judge(rest.rss_mib, Goal::Below(AT_REST_MIB), "MiB").at(&format!("{} papers embedded", format_number(rest.papers as f64))),
        None => not_measured(skipped, Part::Embed, "no embed run with `--rest-papers`"),
    };
    Checked { part: Part::Embed, target: format!("the serving process with the model < {} MiB at rest", format_number(AT_REST_MIB)), verdict }
}

fn not_measured(skipped: &[Part], part: Part, why: &str) -> Verdict {
    if skipped.contains(&part) {
        Verdict::NotMeasured(format!("{} skipped", part.name()))
    } else {
        Verdict::NotMeasured(why.to_owned())
    }
}

fn mib(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |mib| format!("{} MiB", format_number(mib)))
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Run;

    #[test]
    fn numbers_are_grouped_and_rounded_for_people() {
        for (value, expected) in [
            (1_000_000.0, "1,000,000"),
            (35_000.0, "35,000"),
            (999.0, "999"),
            (266.5, "267"),
            (52.26, "52.3"),
            (2.31, "2.31"),
            (2.3, "2.3"),
            (0.05, "0.05"),
            (0.0, "0"),
            (-1234.5, "-1,235"),
            (-0.0001, "0"),
            (99.96, "100"),
            (12_345.678, "12,346"),
        ] {
            assert_eq!(format_number(value), expected, "{value}");
        }
    }

    #[test]
    fn verdicts_state_the_distance_from_the_limit() {
        assert_eq!(judge(0.86, Goal::Below(1.0), "s"), Verdict::Met("0.86 s, 0.14 s under the limit".into()));
        assert_eq!(judge(52.26, Goal::Below(10.0), "s"), Verdict::NotMet("52.3 s, 42.3 s over the limit (5.23×)".into()));
        assert_eq!(judge(10.0, Goal::Below(10.0), "s"), Verdict::NotMet("10 s, 0 s over the limit (1×)".into()));
        assert_eq!(judge(0.0, Goal::AtMost(0.0), "errors"), Verdict::Met("0 errors, 0 errors under the limit".into()));
        assert_eq!(judge(3.0, Goal::AtMost(0.0), "errors"), Verdict::NotMet("3 errors, 3 errors over the limit".into()));
        assert_eq!(
            judge(5_170.0, Goal::AtLeast(30_000.0), "papers/s"),
            Verdict::NotMet("5,170 papers/s, 24,830 papers/s short of the target (17.2% of it)".into())
        );
        assert_eq!(
            judge(60_000.0, Goal::AtLeast(50_000.0), "requests/s"),
            Verdict::Met("60,000 requests/s, 10,000 requests/s above the target".into())
        );
        assert_eq!(Verdict::Met("x".into()).markdown(), "**met**: x");
        assert_eq!(Verdict::NotMet("x".into()).at("median start").markdown(), "**not met**: median start: x");
        assert_eq!(Verdict::NotMeasured("no run".into()).at("ignored").markdown(), "not measured: no run");
    }

    fn digest(users: usize, digest_seconds: f64, peak: f64, index_peak: f64) -> Measured {
        let figures = DigestFigures {
            users,
            papers_in_index: 35_000,
            digests: users * 3,
            digest_seconds,
            render_seconds: 1.0,
            total_seconds: digest_seconds + 1.0,
            users_per_second: users as f64 / (digest_seconds + 1.0),
            index_peak_rss_mib: Some(index_peak),
            peak_rss_mib: Some(peak),
            load: None,
        };
        Measured {
            run: Run::new(Part::Digest, &["--users", &users.to_string()]),
            raw: serde_json::json!({}),
            figures: Figures::Digest(figures),
            wall_seconds: 1.0,
        }
    }

    #[test]
    fn targets_are_judged_at_their_sizes_only() {
        let measured = [digest(10_000, 7.0, 500.0, 400.0), digest(100_000, 52.26, 2_900.0, 400.0)];
        let checked = check_targets(&measured, &[Part::Coldstart]);
        let verdict = |target: &str| checked.iter().find(|check| check.target.starts_with(target)).map(|check| check.verdict.clone());
        assert_eq!(verdict("1,000,000 users"), Some(Verdict::NotMeasured("no run at 1,000,000 users".into())));
        assert_eq!(verdict("100,000 users"), Some(Verdict::NotMet("52.3 s, 42.3 s over the limit (5.23×)".into())));
        assert_eq!(
            verdict("peak RSS"),
            Some(Verdict::NotMet("at 100,000 users, the pass's peak less the index build's: 2,500 MiB, 452 MiB over the limit (1.22×)".into()))
        );
        assert_eq!(verdict("≥ 30,000 papers/s"), Some(Verdict::NotMeasured("no run of a whole week (35,000 records) in one commit".into())));
        assert_eq!(verdict("< 1 s"), Some(Verdict::NotMeasured("coldstart skipped".into())));
        assert_eq!(checked.len(), 11);
    }

    fn load(quiet: bool) -> Load {
        Load {
            load_average: [0.1, 0.1, 0.1],
            cores: 2,
            other_cores_before: if quiet { 0.02 } else { 0.9 },
            busy_before: if quiet { Vec::new() } else { vec![crate::quiet::BusyProcess { pid: 7, name: "rustc".into(), cores: 0.88 }] },
            other_cores_during: Some(0.03),
            steal_cores_during: Some(0.0),
            quiet,
        }
    }

    fn with_load(mut measured: Measured, quiet: bool) -> Measured {
        if let Figures::Digest(digest) = &mut measured.figures {
            digest.load = Some(load(quiet));
        }
        measured
    }

    #[test]
    fn only_quiet_runs_judge_a_target() {
        // A busy run alone: its figure is shown, judged neither way, with what else ran.
        let busy = [with_load(digest(100_000, 8.0, 900.0, 400.0), false)];
        let checked = check_targets(&busy, &[]);
        let verdict = checked.iter().find(|check| check.target.starts_with("100,000 users")).map(|check| check.verdict.clone());
        assert_eq!(
            verdict,
            Some(Verdict::Busy("8 s, 2 s under the limit; other processes used 0.90 of 2 cores before it started (rustc 0.88)".into()))
        );
        assert!(verdict.is_some_and(|verdict| verdict.markdown().starts_with("not judged (busy run)")));
        // Memory is judged on the largest run, busy or not.
        assert!(checked.iter().any(|check| check.target.starts_with("peak RSS") && matches!(check.verdict, Verdict::Met(_))));
        // A quiet run beside the busy one judges, whichever came first.
        let both = [with_load(digest(100_000, 8.0, 900.0, 400.0), false), with_load(digest(100_000, 12.0, 900.0, 400.0), true)];
        let checked = check_targets(&both, &[]);
        let verdict = checked.iter().find(|check| check.target.starts_with("100,000 users")).map(|check| check.verdict.clone());
        assert_eq!(verdict, Some(Verdict::NotMet("12 s, 2 s over the limit (1.2×)".into())));
        let machine = Machine {
            cores: 2,
            cpu: None,
            memory_kib: None,
            os: "Linux".into(),
            kernel: None,
            commit: None,
            build: "release",
            date: chrono::DateTime::from_timestamp(1_795_000_000, 0).unwrap_or_default(),
        };
        let text = render(&Inputs { machine: &machine, sizes: Sizes::Full, measured: &both, skipped: &[], plots: &[] });
        assert!(text.contains("| 900 MiB | busy (0.9 cores) |"), "{text}");
        assert!(text.contains("| 900 MiB | quiet |"), "{text}");
        assert!(text.contains(": 1 s, **busy**: other processes used 0.90 of 2 cores before it started (rustc 0.88)"), "{text}");
        assert!(text.contains(": 1 s, quiet (others 0.03 cores)"), "{text}");
    }

    #[test]
    fn the_summary_names_the_machine_skips_and_plots() {
        let machine = Machine {
            cores: 2,
            cpu: Some("AMD EPYC".into()),
            memory_kib: Some(24_578_424),
            os: "Debian GNU/Linux 12 (bookworm)".into(),
            kernel: Some("6.1.0".into()),
            commit: Some("04270f0abcde".into()),
            build: "release",
            date: chrono::DateTime::from_timestamp(1_795_000_000, 0).unwrap_or_default(),
        };
        let measured = [digest(1_000, 2.0, 300.0, 250.0)];
        let plots = ["digest-throughput.svg".to_owned(), "digest-memory.svg".to_owned()];
        let skipped = [Part::Http, Part::Coldstart];
        let text = render(&Inputs { machine: &machine, sizes: Sizes::Quick, measured: &measured, skipped: &skipped, plots: &plots });
        for expected in [
            "| cores | 2 |",
            "| CPU | AMD EPYC |",
            "| memory | 23.4 GiB |",
            "Debian GNU/Linux 12 (bookworm), kernel 6.1.0",
            "04270f0abcde",
            "**Quick sizes**",
            "Skipped (`--skip http,coldstart`): http, coldstart.",
            "Skipped (`--skip coldstart`).",
            "![digest throughput](digest-throughput.svg)",
            "![digest memory](digest-memory.svg)",
            "| 1,000 | 35,000 | 3,000 | 2 | 1 | 3 | 333 | 500 | 250 MiB | 300 MiB | — |",
            "1. `papertide-bench --json digest --users 1000`: 1 s",
        ] {
            assert!(text.contains(expected), "{expected:?} in:\n{text}");
        }
    }
}
