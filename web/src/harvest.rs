//! Harvesting from the binary: `papertide harvest`, one run in the foreground with a progress
//! display, through the same source clients as the service's harvesters (the runtime's
//! [`runtime::sources`], re-exported here).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Mutex;

use actors::{harvest_days, Indexer, RunProgress, StatusBoard};
use anyhow::{bail, Context};
use chrono::{NaiveDate, Utc};
use engine::paper::Source;
use index::PaperIndex;
use store::Store;

use crate::config::SourceSettings;
use crate::papers::index_dir;

pub use runtime::sources::{start_harvesters, SourceClients, WRITER_HEAP_BYTES};

/// What `papertide harvest` was asked to do.
#[derive(Debug, Clone)]
pub struct HarvestRequest {
    pub sources: Vec<Source>,
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    /// How far back a source that never ran starts, when `since` is not given.
    pub lookback_days: u32,
}

/// `papertide harvest`: every requested source at once, each day by day, then a summary line
/// per source. Fails (after every source has run) if any source failed.
pub async fn harvest(data_dir: &Path, settings: &SourceSettings, request: &HarvestRequest, out: &mut impl Write) -> anyhow::Result<()> {
    let today = Utc::now().date_naive();
    if let Some(until) = request.until.filter(|until| *until > today) {
        bail!("--until {until} is in the future (today is {today}, UTC)");
    }
    if let (Some(since), Some(until)) = (request.since, request.until) {
        if since > until {
            bail!("--since {since} comes after --until {until}");
        }
    }
    std::fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
    let store = Store::open(&data_dir.join("db")).context("opening the database (is papertide serve running? stop it first)")?;
    let index = PaperIndex::open_or_create(&index_dir(data_dir)).context("opening the paper index")?;
    // Take the writer here, so that an index in use fails at once with a clear reason.
    drop(index.writer(WRITER_HEAP_BYTES).context("taking the index writer (is papertide serve running?)")?);
    let (indexer, arbiter) = Indexer::new(index.clone(), WRITER_HEAP_BYTES, StatusBoard::default()).start_in_own_thread();

    let display = ProgressDisplay::new(std::io::stderr().is_terminal());
    let runs = SourceClients::new(settings)?.paper_sources(&request.sources).into_iter().map(|source| {
        let (store, indexer, display) = (store.clone(), indexer.clone(), &display);
        async move {
            let name = source.source();
            let state = store.papers().harvest_state(name)?;
            let (due_from, due_to) = state.days_due(today, request.lookback_days);
            let window = (request.since.unwrap_or(due_from), request.until.unwrap_or(due_to));
            if window.0 > window.1 {
                bail!("--since {} comes after today", window.0);
            }
            display.start(name, window);
            let outcome = harvest_days(source.as_ref(), window, today, &store, &indexer, &|update| display.update(update)).await;
            Ok::<_, anyhow::Error>((name, window, outcome))
        }
    });
    let results = futures_util::future::join_all(runs).await;
    display.finish();
    arbiter.stop();

    let mut failed = Vec::new();
    for result in results {
        let (name, (from, to), outcome) = result?;
        match outcome {
            Ok(report) => writeln!(
                out,
                "{name} {from}..{to}: {} records, {} added, {} merged, {} already present, {} rejected",
                report.received, report.counts.added, report.counts.merged, report.counts.unchanged, report.rejected
            )?,
            Err(error) => {
                writeln!(out, "{name} {from}..{to}: failed: {error}")?;
                failed.push(name.as_str());
            }
        }
    }
    writeln!(out, "{} papers in the index", index.paper_count()?)?;
    if !failed.is_empty() {
        bail!("the harvest failed for {}; the days before the failure are kept", failed.join(", "));
    }
    Ok(())
}

/// The live progress of `papertide harvest` on stderr: on a terminal one line redrawn with
/// every source's position; otherwise a line per finished day.
struct ProgressDisplay {
    redraw: bool,
    lines: Mutex<BTreeMap<Source, String>>,
}

impl ProgressDisplay {
    fn new(redraw: bool) -> ProgressDisplay {
        ProgressDisplay { redraw, lines: Mutex::new(BTreeMap::new()) }
    }

    fn start(&self, source: Source, (from, to): (NaiveDate, NaiveDate)) {
        self.set(source, format!("{source} starting"), Some(format!("{source} {from}..{to}: starting")));
    }

    fn update(&self, update: RunProgress) {
        match update {
            RunProgress::Page { source, day_number, days, page, .. } => {
                let expected = if page.records_expected > 0 { format!("/{}", page.records_expected) } else { String::new() };
                self.set(source, format!("{source} day {day_number}/{days} {}{expected}", page.records_received), None);
            }
            RunProgress::DayDone { source, day_number, days, report } => {
                let line = format!(
                    "{source} {} (day {day_number}/{days}) done: {} records, {} added, {} merged",
                    report.day, report.received, report.added, report.merged
                );
                self.set(source, format!("{source} day {day_number}/{days} done"), Some(line));
            }
        }
    }

    /// Records a source's `compact` state (the redrawn line) and prints `line` when not
    /// redrawing.
    fn set(&self, source: Source, compact: String, line: Option<String>) {
        let mut lines = engine::sync::lock(&self.lines);
        let mut stderr = std::io::stderr().lock();
        if let Some(line) = line.filter(|_| !self.redraw) {
            let _ = writeln!(stderr, "{line}");
        }
        lines.insert(source, compact);
        if self.redraw {
            let joined: Vec<&str> = lines.values().map(String::as_str).collect();
            let _ = write!(stderr, "\r\x1b[K{}", joined.join(" | "));
            let _ = stderr.flush();
        }
    }

    fn finish(&self) {
        if self.redraw {
            let _ = writeln!(std::io::stderr());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_configured_source_defaults_are_the_clients_defaults() {
        assert_eq!(crate::config::DEFAULT_PUBMED_URL, actors::sources::pubmed::DEFAULT_BASE_URL);
        assert_eq!(crate::config::DEFAULT_ARXIV_URL, actors::sources::arxiv::DEFAULT_BASE_URL);
        assert_eq!(crate::config::DEFAULT_BIORXIV_URL, actors::sources::biorxiv::DEFAULT_BASE_URL);
    }
}
