//! `wrk` beside the bench's own load generator: the `http` scenario's `--wrk PATH` runs it
//! against the same server for as long and with as many connections, on `GET /api/auth/me`
//! with one signed-in user's cookie, so that the generator's figures can be checked against a
//! known tool on the same run (the generator should stay within [`GENERATOR_TOLERANCE`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

/// How far the bench's requests per second may fall from wrk's on the same run.
pub const GENERATOR_TOLERANCE: f64 = 0.25;

/// What wrk measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WrkFigures {
    pub threads: usize,
    pub connections: usize,
    pub seconds: f64,
    pub requests: u64,
    pub requests_per_second: f64,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Answers other than 2xx or 3xx, and socket errors.
    pub errors: u64,
}

/// Runs wrk on `GET /api/auth/me` of `address` with `cookie`.
pub fn run(wrk: &Path, address: SocketAddr, cookie: &str, connections: usize, seconds: u64, threads: usize) -> anyhow::Result<WrkFigures> {
    let output = Command::new(wrk)
        .arg(format!("-t{}", threads.max(1)))
        .arg(format!("-c{}", connections.max(threads.max(1))))
        .arg(format!("-d{seconds}s"))
        .arg("--latency")
        .arg("-H")
        .arg(format!("Cookie: {cookie}"))
        .arg(format!("http://{address}/api/auth/me"))
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("starting {}", wrk.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!("{} failed ({}): {}{}", wrk.display(), output.status, text, String::from_utf8_lossy(&output.stderr));
    }
    parse(&text, threads.max(1), connections).with_context(|| format!("reading wrk's output:\n{text}"))
}

/// `wrk` on the PATH, if any.
pub fn on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("wrk")).find(|candidate| candidate.is_file())
}

/// Reads wrk's report (`--latency`).
pub fn parse(text: &str, threads: usize, connections: usize) -> anyhow::Result<WrkFigures> {
    let mut figures = WrkFigures { threads, connections, seconds: 0.0, requests: 0, requests_per_second: 0.0, p50_ms: None, p99_ms: None, errors: 0 };
    let mut saw_rate = false;
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Requests/sec:", rate] => {
                figures.requests_per_second = rate.parse().context("requests per second")?;
                saw_rate = true;
            }
            ["50%", latency] => figures.p50_ms = Some(milliseconds(latency)?),
            ["99%", latency] => figures.p99_ms = Some(milliseconds(latency)?),
            [requests, "requests", "in", elapsed, ..] => {
                figures.requests = requests.parse().context("requests")?;
                figures.seconds = seconds(elapsed.trim_end_matches(','))?;
            }
            ["Non-2xx", "or", "3xx", "responses:", count] => figures.errors += count.parse::<u64>().context("non-2xx answers")?,
            ["Socket", "errors:", rest @ ..] => {
                // connect 0, read 0, write 0, timeout 0
                for pair in rest.chunks(2) {
                    if let [_, count] = pair {
                        figures.errors += count.trim_end_matches(',').parse::<u64>().context("socket errors")?;
                    }
                }
            }
            _ => {}
        }
    }
    if !saw_rate {
        bail!("no Requests/sec line");
    }
    Ok(figures)
}

/// A wrk duration (`812.00us`, `3.52ms`, `1.20s`, `1.00m`) in milliseconds.
fn milliseconds(text: &str) -> anyhow::Result<f64> {
    let (number, scale) = if let Some(number) = text.strip_suffix("us") {
        (number, 0.001)
    } else if let Some(number) = text.strip_suffix("ms") {
        (number, 1.0)
    } else if let Some(number) = text.strip_suffix('s') {
        (number, 1000.0)
    } else if let Some(number) = text.strip_suffix('m') {
        (number, 60_000.0)
    } else {
        bail!("a duration without a unit: {text}")
    };
    Ok(number.parse::<f64>().with_context(|| format!("a duration: {text}"))? * scale)
}

fn seconds(text: &str) -> anyhow::Result<f64> {
    Ok(milliseconds(text)? / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "Running 15s test @ http://127.0.0.1:41234/api/auth/me
  1 threads and 256 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.52ms    1.02ms  20.00ms   80.00%
    Req/Sec    72.00k     5.00k   80.00k    70.00%
  Latency Distribution
     50%  812.00us
     75%    3.90ms
     90%    4.50ms
     99%    1.20s
  1080000 requests in 15.00s, 450.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 5
Requests/sec:  72000.00
Transfer/sec:     30.00MB
";

    #[test]
    fn wrk_reports_are_read_with_their_units_and_errors() -> anyhow::Result<()> {
        let figures = parse(REPORT, 1, 256)?;
        assert_eq!(figures.requests, 1_080_000);
        assert_eq!(figures.seconds, 15.0);
        assert_eq!(figures.requests_per_second, 72_000.0);
        assert_eq!(figures.p50_ms, Some(0.812));
        assert_eq!(figures.p99_ms, Some(1200.0));
        assert_eq!(figures.errors, 10);
        assert!(parse("no report here", 1, 1).is_err());
        assert!(milliseconds("12").is_err());
        Ok(())
    }
}
