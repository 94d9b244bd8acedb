//! The `embed` scenario's service part: the real `papertide` binary with the embedding model,
//! its vectorizer working through papers waiting in the index, watched from outside through
//! `/healthz` (`embeddings.papersEmbedded`, `embeddings.papersWaiting`) and `/proc`.
//!
//! - **Backlog**: an index of N papers none of which has a vector (a lab importing its
//!   backlog). The vectorizer's rate is measured over a fixed stretch once its first batch is
//!   in (model load and the first batch excluded), with the server's memory meanwhile; the
//!   time to embed the whole backlog follows from the rate. Embedding 100,000 papers takes
//!   hours on 2 cores, so the stretch is a sample of the real pass, not the whole of it.
//! - **At rest**: a small index embedded to the end, then the server left idle; its resident
//!   memory then is what a lab's serving process holds between weeks.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use chrono::Utc;
use index::PaperIndex;
use serde_json::Value;

use crate::http::Server;

/// How long the server is left idle after its last paper is embedded before its memory is read.
const SETTLE: Duration = Duration::from_secs(15);
/// How often `/healthz` and `/proc` are read.
const POLL: Duration = Duration::from_millis(500);

/// The vectorizer working through a backlog.
#[derive(Debug, Clone, PartialEq)]
pub struct Backlog {
    pub papers: u64,
    /// From the server's start to its first batch stored (model load included).
    pub first_batch_seconds: f64,
    /// The stretch the rate is measured over, after the first batch.
    pub measured_seconds: f64,
    /// Papers embedded over that stretch.
    pub embedded: u64,
    /// Papers still waiting at its end.
    pub waiting: u64,
    /// The server's resident memory at the end of the stretch, and its peak.
    pub rss_mib: Option<f64>,
    pub peak_rss_mib: Option<f64>,
    /// The server's CPU seconds over the stretch (all its threads).
    pub cpu_seconds: Option<f64>,
}

impl Backlog {
    pub fn papers_per_second(&self) -> f64 {
        self.embedded as f64 / self.measured_seconds.max(f64::EPSILON)
    }

    /// Hours to embed the whole backlog at the measured rate (none when nothing was embedded
    /// over the stretch: the backlog was done with its first batch).
    pub fn hours_for_all(&self) -> Option<f64> {
        (self.embedded > 0).then(|| self.papers as f64 / self.papers_per_second() / 3600.0)
    }

    /// CPU seconds per 1,000 papers embedded.
    pub fn cpu_seconds_per_thousand(&self) -> Option<f64> {
        self.cpu_seconds.map(|cpu| cpu / self.embedded as f64 * 1000.0)
    }
}

/// The serving process between weeks: every paper embedded, nothing to do.
#[derive(Debug, Clone, PartialEq)]
pub struct AtRest {
    pub papers: u64,
    /// From the server's start to the last paper embedded.
    pub embedded_seconds: f64,
    /// Resident memory once idle for [`SETTLE`], and the peak before it.
    pub rss_mib: f64,
    pub peak_rss_mib: Option<f64>,
}

/// Builds an index of `papers` papers, starts `binary` on it with the model of `model_dir`, and
/// measures the vectorizer's rate over `seconds` once its first batch is stored.
pub fn backlog(binary: &Path, model_dir: &Path, runtime: Option<embed::RuntimeName>, papers: usize, seconds: u64) -> anyhow::Result<Backlog> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let paper_count = build_index(dir.path(), papers)?;
    let started = Instant::now();
    let server = start(binary, dir.path(), model_dir, runtime)?;
    let first = wait_for(&server, Duration::from_secs(600), |progress| progress.embedded > 0)?;
    let first_batch_seconds = started.elapsed().as_secs_f64();
    let cpu_before = process_cpu_seconds(server.pid());
    let from = Instant::now();
    let last = wait_for(&server, Duration::from_secs(seconds), |progress| progress.waiting == 0).or_else(|_| progress(server.address()))?;
    // A stretch shorter than a batch counts until the next batch is in, so the rate is one.
    let last = if last.embedded > first.embedded || last.waiting == 0 {
        last
    } else {
        wait_for(&server, Duration::from_secs(600), |progress| progress.embedded > first.embedded)?
    };
    let measured_seconds = from.elapsed().as_secs_f64();
    let cpu_seconds = process_cpu_seconds(server.pid()).zip(cpu_before).map(|(after, before)| after - before);
    let rss_mib = rss_mib(server.pid());
    Ok(Backlog {
        papers: paper_count,
        first_batch_seconds,
        measured_seconds,
        embedded: last.embedded.saturating_sub(first.embedded),
        waiting: last.waiting,
        rss_mib,
        peak_rss_mib: server.peak_rss_mib(),
        cpu_seconds,
    })
}

/// Builds an index of `papers` papers, starts `binary` on it with the model of `model_dir`,
/// waits until every paper has its vector, leaves it idle, and reads its memory.
pub fn at_rest(binary: &Path, model_dir: &Path, runtime: Option<embed::RuntimeName>, papers: usize) -> anyhow::Result<AtRest> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let paper_count = build_index(dir.path(), papers)?;
    let started = Instant::now();
    let mut server = start(binary, dir.path(), model_dir, runtime)?;
    // Papers at about 5 per second on 2 cores, plus the model's load.
    let limit = Duration::from_secs(120 + paper_count);
    wait_for(&server, limit, |progress| progress.embedded >= paper_count && progress.waiting == 0)?;
    let embedded_seconds = started.elapsed().as_secs_f64();
    std::thread::sleep(SETTLE);
    let rss_mib = rss_mib(server.pid()).context("the server's resident memory")?;
    let peak_rss_mib = server.peak_rss_mib();
    server.stop()?;
    Ok(AtRest { papers: paper_count, embedded_seconds, rss_mib, peak_rss_mib })
}

fn build_index(dir: &Path, papers: usize) -> anyhow::Result<u64> {
    let index = PaperIndex::open_or_create(&dir.join("data").join("index")).context("the index")?;
    crate::digest::build_index(&index, papers, Utc::now().date_naive() - chrono::Duration::days(1))?;
    Ok(index.paper_count()?)
}

/// Starts the binary with the model of `model_dir` in `runtime` (the service's default when
/// none), with ONNX Runtime's library from the model's data directory, as a fetched service has it.
fn start(binary: &Path, dir: &Path, model_dir: &Path, runtime: Option<embed::RuntimeName>) -> anyhow::Result<Server> {
    let model = model_dir.to_str().context("the model's folder is not UTF-8")?;
    let library = embed::package::runtime_library_beside(model_dir).unwrap_or_default();
    let library = library.to_str().context("the runtime library's path is not UTF-8")?;
    let runtime = runtime.unwrap_or(embed::RuntimeName::DEFAULT).name();
    Server::start_with(
        binary,
        dir,
        &[("PAPERTIDE_EMBED_MODEL_DIR", model), ("PAPERTIDE_ONNXRUNTIME_LIBRARY", library), ("PAPERTIDE_EMBED_RUNTIME", runtime)],
        None,
    )
}

/// How far the vectorizer got, as `/healthz` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Progress {
    embedded: u64,
    waiting: u64,
}

/// Polls until `done` holds (answering that progress) or `limit` passes (an error).
fn wait_for(server: &Server, limit: Duration, done: impl Fn(Progress) -> bool) -> anyhow::Result<Progress> {
    let deadline = Instant::now() + limit;
    loop {
        // The server may answer 503 while an actor starts; its body still has the figures.
        if let Ok(now) = progress(server.address()) {
            if done(now) {
                return Ok(now);
            }
        }
        if Instant::now() >= deadline {
            bail!("the vectorizer did not get there within {} s", limit.as_secs());
        }
        std::thread::sleep(POLL);
    }
}

fn progress(address: SocketAddr) -> anyhow::Result<Progress> {
    let health = healthz(address)?;
    progress_of(&health).with_context(|| format!("/healthz has no embedding figures (no model loaded?): {health}"))
}

fn progress_of(health: &Value) -> Option<Progress> {
    let embeddings = &health["embeddings"];
    Some(Progress { embedded: embeddings["papersEmbedded"].as_u64()?, waiting: embeddings["papersWaiting"].as_u64()? })
}

/// `GET /healthz`'s JSON body.
fn healthz(address: SocketAddr) -> anyhow::Result<Value> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(1)).context("connecting to the server")?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).context("reading /healthz")?;
    body_of(&answer)
}

/// The JSON body of a whole `Connection: close` HTTP/1.1 answer with a length (not chunked).
fn body_of(answer: &[u8]) -> anyhow::Result<Value> {
    let split = answer.windows(4).position(|window| window == b"\r\n\r\n").context("an HTTP answer without a body")?;
    serde_json::from_slice(&answer[split + 4..]).context("the /healthz body is not JSON")
}

/// A process's resident memory (`VmRSS`), in MiB.
fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    crate::status_mib(&status, "VmRSS:")
}

/// A process's user and system CPU seconds (all its threads).
fn process_cpu_seconds(pid: u32) -> Option<f64> {
    crate::embedding::cpu_seconds_of_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_follows_the_head_and_the_figures_are_read_from_it() -> anyhow::Result<()> {
        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 70\r\n\r\n{\"embeddings\":{\"model\":\"m\",\"papersEmbedded\":64,\"papersWaiting\":936}}";
        let body = body_of(answer)?;
        assert_eq!(progress_of(&body), Some(Progress { embedded: 64, waiting: 936 }));
        assert_eq!(progress_of(&serde_json::json!({ "embeddings": { "model": null, "ranking": "lexical" } })), None);
        assert!(body_of(b"HTTP/1.1 200 OK\r\n").is_err());
        Ok(())
    }

    #[test]
    fn the_backlog_figures_follow_from_the_stretch() {
        let run = Backlog {
            papers: 100_000,
            first_batch_seconds: 9.0,
            measured_seconds: 100.0,
            embedded: 640,
            waiting: 99_296,
            rss_mib: None,
            peak_rss_mib: None,
            cpu_seconds: Some(192.0),
        };
        assert_eq!(run.papers_per_second(), 6.4);
        assert!(run.hours_for_all().is_some_and(|hours| (hours - 100_000.0 / 6.4 / 3600.0).abs() < 1e-9));
        assert_eq!(Backlog { embedded: 0, ..run.clone() }.hours_for_all(), None, "no rate, no estimate");
        assert_eq!(run.cpu_seconds_per_thousand(), Some(300.0));
    }
}
