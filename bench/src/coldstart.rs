//! The `coldstart` scenario: how long the real `papertide` binary takes from its start to a
//! healthy `/healthz`, on a data directory of M papers (the `ingest` week, indexed as the
//! `digest` scenario indexes it) and N users with 3 terms each. The data directory is built once
//! (not timed); the binary is then started and stopped `runs` times. Before each start the
//! kernel's page cache is dropped when the process may (root on Linux), so the start reads its
//! files from the disk; the figures say whether it could.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use chrono::Utc;
use index::PaperIndex;
use store::Store;

use crate::http::Server;

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ColdStart {
    pub users: usize,
    pub papers: u64,
    /// Building the data directory (not part of a start).
    pub build_seconds: f64,
    /// Each start: from spawning the binary to `/healthz` answering 200, in seconds.
    pub starts: Vec<f64>,
    /// Whether the page cache was dropped before every start.
    pub page_cache_dropped: bool,
    /// The server's peak RSS at its last start, once healthy.
    pub peak_rss_mib: Option<f64>,
}

impl ColdStart {
    /// The median start, in seconds.
    pub fn median(&self) -> f64 {
        let mut sorted = self.starts.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
    }
}

/// Builds the data directory and times `runs` starts of `binary` on it.
pub fn run(binary: &Path, users: usize, papers: usize, runs: usize) -> anyhow::Result<ColdStart> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let data = dir.path().join("data");
    let started = Instant::now();
    let now = Utc::now();
    let paper_count = {
        let index = PaperIndex::open_or_create(&data.join("index")).context("the index")?;
        crate::digest::build_index(&index, papers, now.date_naive() - chrono::Duration::days(1))?;
        index.paper_count()?
    };
    {
        let store = Store::open(&data.join("db")).context("the database")?;
        crate::digest::create_users(&store, users, now)?;
        store.flush()?;
    }
    let build_seconds = started.elapsed().as_secs_f64();
    let mut starts = Vec::with_capacity(runs);
    let mut page_cache_dropped = true;
    let mut peak_rss_mib = None;
    let runner = tokio::runtime::Builder::new_current_thread().enable_all().build().context("a runtime")?;
    for _ in 0..runs.max(1) {
        page_cache_dropped &= drop_page_cache();
        let started = Instant::now();
        let mut server = Server::start(binary, dir.path())?;
        runner.block_on(server.wait_until_healthy())?;
        starts.push(started.elapsed().as_secs_f64());
        peak_rss_mib = server.peak_rss_mib();
        server.stop()?;
    }
    Ok(ColdStart { users, papers: paper_count, build_seconds, starts, page_cache_dropped, peak_rss_mib })
}

/// Writes dirty pages out and drops the kernel's page cache; false when the process may not.
fn drop_page_cache() -> bool {
    rustix::fs::sync();
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_start() {
        let run = ColdStart { users: 1, papers: 1, build_seconds: 0.0, starts: vec![0.9, 0.2, 0.4], page_cache_dropped: false, peak_rss_mib: None };
        assert_eq!(run.median(), 0.4);
    }
}
