//! `papertide-bench report --quick`: every scenario of the report run at tiny sizes, each in a
//! process of its own, and the report's directory checked: the plots are SVG with their series
//! and axis labels, `figures.json` holds one object per run, and `README.md` names the machine,
//! shows every plot and says what was skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bench::report::{plan, Sizes};
use serde_json::Value;

const BENCH: &str = env!("CARGO_BIN_EXE_papertide-bench");

/// Each plot and texts it must hold: its axis labels and a series' legend.
const PLOTS: [(&str, [&str; 3]); 5] = [
    ("digest-throughput.svg", ["users (log scale)", "users/s", "pass alone (digest time)"]),
    ("digest-memory.svg", ["users (log scale)", "peak RSS (MiB)", "peak RSS building the index"]),
    ("http-latency.svg", ["keep-alive connections (log scale)", "latency (ms, log scale)", "p99.9"]),
    ("http-throughput.svg", ["keep-alive connections (log scale)", "requests/s", "the whole dashboard mix"]),
    ("ingest-rate.svg", ["papers per index commit (log scale)", "papers/s", "ingest of a week"]),
];

#[test]
fn a_quick_report_writes_every_plot_the_figures_and_a_summary() -> anyhow::Result<()> {
    let out = tempfile::tempdir()?;
    let output = report(out.path(), &["--quick", "--server", &server_binary().display().to_string()])?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the report failed:\n{stderr}");
    let runs = plan(Sizes::Quick, &[], false, None);
    assert!(stderr.contains(&format!("report: {} ... (1 of {})", runs[0].command_line(), runs.len())), "progress on stderr:\n{stderr}");

    let figures: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("figures.json"))?)?;
    let figures = figures.as_array().expect("figures.json is an array");
    assert_eq!(figures.len(), runs.len(), "one object per run: {figures:?}");
    for (run, figures) in runs.iter().zip(figures) {
        assert_eq!(figures["scenario"], run.part.name(), "{}: {figures}", run.command_line());
        // Every run records what else used the cores, before it and while it ran.
        let load = &figures["load"];
        assert!(load["quiet"].is_boolean() && load["otherCoresBefore"].is_number() && load["otherCoresDuring"].is_number(), "{load}");
        assert_eq!(load["loadAverage"].as_array().map(Vec::len), Some(3), "{load}");
    }

    for (file, labels) in PLOTS {
        let svg = std::fs::read_to_string(out.path().join(file))?;
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{file} is an SVG document");
        assert!(svg.contains("<polyline") && svg.contains("<circle"), "{file} draws its series");
        for label in labels {
            assert!(svg.contains(label), "{file} shows {label:?}");
        }
    }

    let summary = std::fs::read_to_string(out.path().join("README.md"))?;
    let cores = std::thread::available_parallelism()?.get();
    assert!(summary.contains(&format!("| cores | {cores} |")), "the machine's cores in:\n{summary}");
    for (file, _) in PLOTS {
        assert!(summary.contains(&format!("]({file})")), "an image link to {file} in:\n{summary}");
    }
    assert!(summary.contains("**Quick sizes**"), "{summary}");
    assert!(summary.contains("| digest | 100,000 users in < 10 s of digest time | not measured: no run at 100,000 users |"), "{summary}");
    assert!(summary.contains("only quiet runs judge a target"), "{summary}");
    assert!(summary.contains("## embed: papers' vectors and a term's ranking"), "{summary}");
    assert!(summary.contains("| embed | ≥ 40 papers/s embedded | "), "{summary}");
    // The real binary's backlog and its memory at rest, each with its figures.
    assert!(summary.contains("| papers waiting | measured s | embedded | papers/s | hours for all |"), "{summary}");
    assert!(summary.contains("| 200 | "), "the backlog's papers: {summary}");
    assert!(summary.contains("| papers | resident at rest | peak while embedding |\n|---|---|---|\n| 8 | "), "{summary}");
    assert!(summary.contains("| embed | the serving process with the model < 500 MiB at rest | **"), "judged: {summary}");
    // wrk runs beside the bench's generator when it is installed (CI installs it).
    if bench::wrk::on_path().is_some() {
        assert!(summary.contains("wrk on `GET /api/auth/me` right after the 8-connection run"), "{summary}");
        assert!(summary.contains("of wrk's rate on the same run | **"), "judged either way: {summary}");
    } else {
        assert!(summary.contains("not measured: no `--only me` run with `--wrk`"), "{summary}");
    }
    Ok(())
}

#[test]
fn a_report_says_what_it_skipped_and_leaves_no_earlier_plot_of_it() -> anyhow::Result<()> {
    let out = tempfile::tempdir()?;
    std::fs::write(out.path().join("http-latency.svg"), "<svg>an earlier report's</svg>")?;
    std::fs::write(out.path().join("notes.txt"), "not the report's")?;
    let output = report(out.path(), &["--quick", "--skip", "digest,http", "--skip", "coldstart,embed"])?;
    assert!(output.status.success(), "the report failed:\n{}", String::from_utf8_lossy(&output.stderr));

    let summary = std::fs::read_to_string(out.path().join("README.md"))?;
    assert!(summary.contains("Skipped (`--skip digest,http,coldstart,embed`): digest, http, coldstart, embed."), "{summary}");
    assert!(summary.contains("Skipped (`--skip http`)."), "{summary}");
    assert!(summary.contains("not measured: coldstart skipped"), "{summary}");
    assert!(summary.contains("](ingest-rate.svg)"), "{summary}");
    let figures: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("figures.json"))?)?;
    assert_eq!(figures.as_array().map(Vec::len), Some(plan(Sizes::Quick, &[], false, None).iter().filter(|run| run.part.name() == "ingest").count()));
    assert!(out.path().join("ingest-rate.svg").is_file());
    for (file, _) in PLOTS.iter().filter(|(file, _)| !file.starts_with("ingest")) {
        assert!(!out.path().join(file).try_exists().expect("the report directory reads"), "{file} is not in a report that skipped its scenario");
    }
    assert!(out.path().join("notes.txt").is_file(), "only the report's own files are replaced");
    Ok(())
}

#[test]
fn a_failing_run_stops_the_report_and_is_named() -> anyhow::Result<()> {
    let out = tempfile::tempdir()?;
    let missing = out.path().join("no-such-papertide");
    let output = report(out.path(), &["--quick", "--skip", "digest,ingest,coldstart", "--server", &missing.display().to_string()])?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a run without its server fails the report:\n{stderr}");
    let first =
        &plan(Sizes::Quick, &[], false, None).into_iter().find(|run| run.part.name() == "http").expect("the quick report runs http").command_line();
    assert!(stderr.contains(&format!("the run `papertide-bench --json {first}` failed")), "the failed run named in:\n{stderr}");
    assert!(!out.path().join("README.md").try_exists().expect("the report directory reads"), "no summary of a failed report");
    Ok(())
}

fn report(out: &Path, args: &[&str]) -> std::io::Result<Output> {
    Command::new(BENCH).args(["report", "--out"]).arg(out).args(args).output()
}

/// The `papertide` binary beside the bench's, built first if it is not up to date (the bench's
/// own tests build only the bench's binaries), into the same target directory and profile.
fn server_binary() -> PathBuf {
    let bench = Path::new(BENCH);
    let profile_dir = bench.parent().expect("the bench's directory");
    let target_dir = profile_dir.parent().expect("the target directory");
    let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") | None => "dev",
        Some(name) => name,
    };
    let mut build = Command::new(env!("CARGO"));
    build
        .args(["build", "-p", "web", "--bin", "papertide", "--profile", profile, "--target-dir"])
        .arg(target_dir)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    // What cargo set for this test is not the build's: a build script that reads one (ring reads
    // CARGO_MANIFEST_DIR) would see it change and rebuild half the tree.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_for_tests = ["CARGO_MANIFEST_DIR", "CARGO_MANIFEST_PATH", "CARGO_CRATE_NAME", "CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"]
            .contains(&name.as_ref())
            || name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_");
        if set_for_tests {
            build.env_remove(name.as_ref());
        }
    }
    let output = build.output().expect("cargo runs");
    assert!(output.status.success(), "building papertide:\n{}", String::from_utf8_lossy(&output.stderr));
    let server = bench.with_file_name("papertide");
    assert!(server.is_file(), "{} was built", server.display());
    server
}
