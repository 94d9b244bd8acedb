//! The `coldstart` scenario: how long the real `papertide` binary takes from its start to a
//! healthy `/healthz`, on a data directory of M papers (the `ingest` week, indexed as the
//! `digest` scenario indexes it) and N users with 3 terms each. The data directory is built once
//! (not timed); the binary is then started and stopped `runs` times. Before each start the
//! kernel's page cache is dropped when the process may (root on Linux), so the start reads its
//! files from the disk; the figures say whether it could.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

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
    for _ in 0..runs.max(1) {
        page_cache_dropped &= drop_page_cache();
        let started = Instant::now();
        let mut server = Server::start(binary, dir.path())?;
        wait_until_healthy(server.address())?;
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

/// Polls `GET /healthz` until it answers 200 (at most a minute).
fn wait_until_healthy(address: SocketAddr) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if health_status(address).is_some_and(|status| status == 200) {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "/healthz did not answer 200 within a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The status of one `GET /healthz`, if the server answered.
fn health_status(address: SocketAddr) -> Option<u16> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_millis(500)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    status_of(&head)
}

/// The status code of an HTTP/1.x status line's first 12 bytes ("HTTP/1.1 200").
fn status_of(head: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(head).ok()?;
    text.strip_prefix("HTTP/1.")?.get(2..5)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_is_read_from_the_status_line() {
        assert_eq!(status_of(b"HTTP/1.1 200"), Some(200));
        assert_eq!(status_of(b"HTTP/1.0 503"), Some(503));
        assert_eq!(status_of(b"SSH-2.0-Open"), None);
    }

    #[test]
    fn the_median_is_the_middle_start() {
        let run = ColdStart { users: 1, papers: 1, build_seconds: 0.0, starts: vec![0.9, 0.2, 0.4], page_cache_dropped: false, peak_rss_mib: None };
        assert_eq!(run.median(), 0.4);
    }
}
