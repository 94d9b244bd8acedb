//! The log: lines to stderr, and a line that cannot be written (the disk that holds the log file
//! is full, a closed pipe) is dropped and counted rather than allowed to fail the request that
//! logged it. `/metrics` shows the count.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use tracing_subscriber::fmt::MakeWriter;

static DROPPED_LINES: AtomicU64 = AtomicU64::new(0);

/// Log lines dropped since the start because they could not be written.
pub fn dropped_lines() -> u64 {
    DROPPED_LINES.load(Ordering::Relaxed)
}

/// Writes each log line to stderr; never fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct StderrOrDrop;

impl<'a> MakeWriter<'a> for StderrOrDrop {
    type Writer = LineWriter;

    fn make_writer(&'a self) -> LineWriter {
        LineWriter
    }
}

/// One line's writer (see [`StderrOrDrop`]).
#[derive(Debug)]
pub struct LineWriter;

impl Write for LineWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // A line is written whole or not at all; a failure is the line's loss, not the caller's.
        if std::io::stderr().lock().write_all(bytes).is_err() {
            DROPPED_LINES.fetch_add(1, Ordering::Relaxed);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().lock().flush();
        Ok(())
    }
}

/// Starts the log with `filter` (an `EnvFilter` directive; a bad one falls back to `info`).
pub fn init(filter: &str) {
    // tantivy reports every commit at info; keep it to warnings unless the filter names it.
    let filter = if filter.contains("tantivy") { filter.to_owned() } else { format!("{filter},tantivy=warn") };
    let filter = tracing_subscriber::EnvFilter::try_new(&filter).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tantivy=warn"));
    let is_terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(is_terminal)
        .with_writer(StderrOrDrop)
        // Its own complaint about a failed write would go to stderr too, and panic there.
        .log_internal_errors(false)
        .init();
}
