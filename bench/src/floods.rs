//! The `floods` scenario: the real `papertide` binary under the two floods a single client can
//! aim at it, measured from outside.
//!
//! - **Login flood**: sign-ins as fast as a few keep-alive connections send them, first with
//!   emails of tens of kilobytes (each a new string), then with distinct valid addresses. The
//!   figures: the answers (400, 429, …), the server's resident memory before, after and after a
//!   pause, and the rate limiter's size from `/metrics`.
//! - **Slow-body flood**: many connections from one address each send a sign-in's head and then
//!   trickle its body a byte at a time, reconnecting when closed, while a normal client at
//!   a loopback address in another /24 (127.200.0.2) asks for `/api/config` every quarter second. The
//!   figures: how the slow connections ended (408, 503, closed), the normal client's successes
//!   and latencies, and the server's memory at its peak and after the flood.
//!
//! - **Crowd floods**: many attacker addresses (127.x.y.z, spread over a given number of /24s)
//!   together open many connections, each either trickling a sign-in's body (`slow`) or sending
//!   nothing at all (`hold`), reconnecting a tenth of a second after the server closes or refuses
//!   one; meanwhile a normal client (127.200.0.2: a new connection, `GET /api/config`) and a
//!   signed-in one (127.201.0.2: a new connection, `GET /api/auth/me` with a real session, from a
//!   signup verified through the outbox) each ask every quarter second. The figures: each
//!   client's share of requests answered 200 within 1 s, and how the attackers' connections
//!   ended.
//!
//! The server can be started with a lower open-files limit (`--server-open-files`, through
//! util-linux's `prlimit`) so that a flood of a few thousand connections reaches it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use engine::sync::lock;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::http::Server;

/// What to flood with.
#[derive(Debug, Clone)]
pub struct FloodConfig {
    pub binary: PathBuf,
    /// Sign-ins in each of the login flood's two phases (0: no login flood).
    pub login_requests: usize,
    /// The length of each long email of the login flood's first phase.
    pub email_bytes: usize,
    /// Keep-alive connections sending the login flood.
    pub login_connections: usize,
    /// Slow connections held at once (0: no slow-body flood).
    pub slow_connections: usize,
    /// How long the slow-body flood lasts.
    pub slow_seconds: u64,
    /// How many times the slow-body flood runs, one after the other (memory that a flood leaves
    /// behind and the next one reuses does not grow from round to round).
    pub slow_rounds: usize,
    /// The server's open-files limit (none: inherited).
    pub server_open_files: Option<u64>,
    /// How long to wait after each flood before measuring memory again.
    pub settle_seconds: u64,
    /// The crowd floods, one after the other (none: no crowd flood).
    pub crowds: Vec<Crowd>,
    /// How long each crowd flood lasts.
    pub crowd_seconds: u64,
}

/// One crowd flood: `connections` held at once by `addresses` addresses in `networks` /24s.
#[derive(Debug, Clone, Copy)]
pub struct Crowd {
    pub addresses: usize,
    pub networks: usize,
    pub connections: usize,
    pub kind: CrowdKind,
}

/// What each of a crowd's connections does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrowdKind {
    /// A sign-in's head, then its body a byte every two seconds.
    SlowBody,
    /// Nothing: the connection is only held.
    Hold,
}

impl CrowdKind {
    pub fn name(self) -> &'static str {
        match self {
            CrowdKind::SlowBody => "slow",
            CrowdKind::Hold => "hold",
        }
    }
}

/// The server's resident memory now (`VmRSS`), in MiB.
fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}

pub fn run(config: &FloodConfig) -> anyhow::Result<Value> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().context("the flood's runtime")?;
    runtime.block_on(run_async(config))
}

async fn run_async(config: &FloodConfig) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir().context("a temporary directory")?;
    // The floods meet the server's default limits, not the bench's generous ones.
    let defaults = [("PAPERTIDE_RATE_LIMIT_LOGIN", "10/15m"), ("PAPERTIDE_RATE_LIMIT_LOGIN_ACCOUNT", "50/1h"), ("PAPERTIDE_LOG", "warn")];
    let mut server = Server::start_with(&config.binary, dir.path(), &defaults, config.server_open_files)?;
    let pid = server.pid();
    let address = server.address();
    let mut figures = serde_json::Map::new();
    figures.insert("serverOpenFiles".into(), json!(config.server_open_files));
    figures.insert("startRssMib".into(), json!(rss_mib(pid)));
    if config.login_requests > 0 {
        figures.insert("login".into(), login_flood(config, address, pid).await?);
    }
    if config.slow_connections > 0 {
        let mut settled = Vec::new();
        for _ in 0..config.slow_rounds.max(1) {
            let round = slow_body_flood(config, address, pid).await?;
            settled.push(round["rssSettledMib"].clone());
            figures.insert("slowBody".into(), round);
        }
        figures.insert("slowBodyRoundsRssSettledMib".into(), json!(settled));
    }
    if !config.crowds.is_empty() {
        let session_cookie = signed_in_session(address, &dir.path().join("data").join("outbox")).await?;
        let mut runs = Vec::new();
        for crowd in &config.crowds {
            runs.push(crowd_flood(crowd, config.crowd_seconds, address, &session_cookie).await);
        }
        figures.insert("crowds".into(), json!(runs));
    }
    server.stop()?;
    Ok(Value::Object(figures))
}

/// Counts answers by status (`"400"`, `"429"`, …; `"error"` for a request that got none).
#[derive(Default)]
struct Statuses(std::collections::BTreeMap<String, u64>);

impl Statuses {
    fn add(&mut self, status: &str) {
        *self.0.entry(status.to_owned()).or_default() += 1;
    }

    fn merge(&mut self, other: Statuses) {
        for (status, count) in other.0 {
            *self.0.entry(status).or_default() += count;
        }
    }

    fn json(&self) -> Value {
        json!(self.0)
    }
}

async fn login_flood(config: &FloodConfig, address: SocketAddr, pid: u32) -> anyhow::Result<Value> {
    let before = rss_mib(pid);
    let long = "a".repeat(config.email_bytes);
    let started = Instant::now();
    let long_statuses =
        send_logins(address, config.login_connections, config.login_requests, move |index| format!("{long}{index}@example.org")).await;
    let long_secs = started.elapsed().as_secs_f64();
    let after_long = rss_mib(pid);
    let started = Instant::now();
    let valid_statuses = send_logins(address, config.login_connections, config.login_requests, |index| format!("flood{index}@example.org")).await;
    let valid_secs = started.elapsed().as_secs_f64();
    let after_valid = rss_mib(pid);
    let limiter_entries = metric(address, "papertide_rate_limiter_entries").await;
    tokio::time::sleep(Duration::from_secs(config.settle_seconds)).await;
    Ok(json!({
        "requests": config.login_requests,
        "emailBytes": config.email_bytes,
        "longEmails": { "statuses": long_statuses.json(), "seconds": round(long_secs), "rssAfterMib": after_long },
        "validEmails": { "statuses": valid_statuses.json(), "seconds": round(valid_secs), "rssAfterMib": after_valid },
        "rssBeforeMib": before,
        "rssSettledMib": rss_mib(pid),
        "limiterEntries": limiter_entries,
    }))
}

/// `total` sign-ins with wrong passwords over `connections` keep-alive connections, the email
/// of the n-th made by `email(n)`.
async fn send_logins(address: SocketAddr, connections: usize, total: usize, email: impl Fn(usize) -> String + Send + Sync + 'static) -> Statuses {
    let next = Arc::new(AtomicU64::new(0));
    let email = Arc::new(email);
    let mut tasks = Vec::new();
    for _ in 0..connections.max(1) {
        let (next, email) = (Arc::clone(&next), Arc::clone(&email));
        tasks.push(tokio::spawn(async move {
            let mut statuses = Statuses::default();
            let mut stream: Option<TcpStream> = None;
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed) as usize;
                if index >= total {
                    return statuses;
                }
                let body = json!({ "email": email(index), "password": "wrong-password" }).to_string();
                let request = format!(
                    "POST /api/auth/login HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if stream.is_none() {
                    stream = TcpStream::connect(address).await.ok();
                }
                let answer = match stream.as_mut() {
                    Some(connection) => exchange(connection, request.as_bytes()).await,
                    None => None,
                };
                match answer {
                    Some((status, keep)) => {
                        statuses.add(&status.to_string());
                        if !keep {
                            stream = None;
                        }
                    }
                    None => {
                        statuses.add("error");
                        stream = None;
                    }
                }
            }
        }));
    }
    let mut statuses = Statuses::default();
    for task in tasks {
        if let Ok(done) = task.await {
            statuses.merge(done);
        }
    }
    statuses
}

/// Sends one request and reads its answer: the status and whether the connection stays open.
async fn exchange(stream: &mut TcpStream, request: &[u8]) -> Option<(u16, bool)> {
    stream.write_all(request).await.ok()?;
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk)).await.ok()?.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
        let Some(head_end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
        let status: u16 = head.split_whitespace().nth(1)?.parse().ok()?;
        let length: usize =
            head.lines().find_map(|line| line.strip_prefix("content-length:")).and_then(|value| value.trim().parse().ok()).unwrap_or(0);
        if buffer.len() >= head_end + 4 + length {
            return Some((status, !head.contains("connection: close")));
        }
    }
}

/// The value of a gauge on `/metrics`.
async fn metric(address: SocketAddr, name: &str) -> Option<u64> {
    let mut stream = TcpStream::connect(address).await.ok()?;
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut text)).await.ok()?.ok()?;
    text.lines().find_map(|line| line.strip_prefix(&format!("{name} "))).and_then(|value| value.trim().parse().ok())
}

async fn slow_body_flood(config: &FloodConfig, address: SocketAddr, pid: u32) -> anyhow::Result<Value> {
    let before = rss_mib(pid);
    let deadline = Instant::now() + Duration::from_secs(config.slow_seconds);
    let ended = Arc::new(std::sync::Mutex::new(Statuses::default()));
    let held_longest_ms = Arc::new(AtomicU64::new(0));
    let mut attackers = Vec::new();
    for _ in 0..config.slow_connections {
        let (ended, held_longest_ms) = (Arc::clone(&ended), Arc::clone(&held_longest_ms));
        attackers.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let opened = Instant::now();
                let outcome = slow_connection(address, deadline).await;
                held_longest_ms.fetch_max(opened.elapsed().as_millis() as u64, Ordering::Relaxed);
                lock(&ended).add(&outcome);
                if outcome == "connect-failed" {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }));
    }
    // The normal client, at another address, and the memory sampled while the flood lasts.
    let mut normal = Vec::new();
    let mut peak = before.unwrap_or(0.0);
    while Instant::now() < deadline {
        let asked = Instant::now();
        let ok = normal_request(address).await;
        normal.push((ok, asked.elapsed()));
        peak = peak.max(rss_mib(pid).unwrap_or(0.0));
        tokio::time::sleep(Duration::from_millis(250).saturating_sub(asked.elapsed())).await;
    }
    let open_at_end = metric(address, "papertide_connections_open").await;
    for attacker in attackers {
        let _ = attacker.await;
    }
    let after = rss_mib(pid);
    tokio::time::sleep(Duration::from_secs(config.settle_seconds)).await;
    let settled = rss_mib(pid);
    let served = normal.iter().filter(|(ok, _)| *ok).count();
    let mut latencies: Vec<u128> = normal.iter().filter(|(ok, _)| *ok).map(|(_, took)| took.as_millis()).collect();
    latencies.sort_unstable();
    let quantile = |q: f64| latencies.get(((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied();
    let ended = std::mem::take(&mut *lock(&ended));
    Ok(json!({
        "connections": config.slow_connections,
        "seconds": config.slow_seconds,
        "slowEnded": ended.json(),
        "slowHeldLongestMs": held_longest_ms.load(Ordering::Relaxed),
        "normalRequests": normal.len(),
        "normalServed": served,
        "normalP50Ms": quantile(0.5),
        "normalMaxMs": latencies.last(),
        "openAtEnd": open_at_end,
        "rssBeforeMib": before,
        "rssPeakMib": peak,
        "rssAfterMib": after,
        "rssSettledMib": settled,
    }))
}

/// One slow connection: a sign-in's head, then its 60 KB body a byte every two seconds until the
/// server answers or closes, or the flood ends. Answers how it ended: the status, `closed`,
/// `flood-over` or `connect-failed`.
async fn slow_connection(address: SocketAddr, deadline: Instant) -> String {
    let Ok(Ok(stream)) = tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(address)).await else {
        return "connect-failed".to_owned();
    };
    hold(stream, address, CrowdKind::SlowBody, deadline).await
}

/// Holds an open connection until the server answers or closes it, or the flood ends: as a slow
/// sign-in (its head, then a byte of its 60 KB body every two seconds) or sending nothing.
/// Answers how it ended: the status, `closed` or `flood-over`.
async fn hold(mut stream: TcpStream, address: SocketAddr, kind: CrowdKind, deadline: Instant) -> String {
    let trickles = kind == CrowdKind::SlowBody;
    if trickles {
        let head = format!("POST /api/auth/login HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{{");
        if stream.write_all(head.as_bytes()).await.is_err() {
            return "closed".to_owned();
        }
    }
    let mut answer = [0u8; 64];
    loop {
        let now = Instant::now();
        if now >= deadline {
            return "flood-over".to_owned();
        }
        let wait = Duration::from_secs(2).min(deadline - now);
        match tokio::time::timeout(wait, stream.read(&mut answer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return "closed".to_owned(),
            Ok(Ok(read)) => {
                let text = String::from_utf8_lossy(&answer[..read]);
                return text.split_whitespace().nth(1).unwrap_or("closed").to_owned();
            }
            Err(_) => {
                if trickles && stream.write_all(b" ").await.is_err() {
                    return "closed".to_owned();
                }
            }
        }
    }
}

/// `GET /api/config` from the normal client's address (in a /24 of its own: the flooding
/// client's network is capped with it) on a new connection, answered 200 within 5 s.
async fn normal_request(address: SocketAddr) -> bool {
    let attempt = async {
        let socket = TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::from((NORMAL_CLIENT, 0))).ok()?;
        let mut stream = socket.connect(address).await.ok()?;
        let request = format!("GET /api/config HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        exchange(&mut stream, request.as_bytes()).await
    };
    matches!(tokio::time::timeout(Duration::from_secs(5), attempt).await, Ok(Some((200, _))))
}

/// The normal client's address, and the signed-in client's: each in a /24 of its own.
const NORMAL_CLIENT: [u8; 4] = [127, 200, 0, 2];
const SIGNED_IN_CLIENT: [u8; 4] = [127, 201, 0, 2];

/// The `index`-th of a crowd's addresses: spread round-robin over `networks` /24s
/// (127.20.0.0/24, 127.21.0.0/24, …).
pub fn crowd_address(index: usize, networks: usize) -> Ipv4Addr {
    let networks = networks.clamp(1, 100);
    let network = index % networks;
    let host = index / networks;
    Ipv4Addr::new(127, 20 + network as u8, (host / 250) as u8, 1 + (host % 250) as u8)
}

/// Signs a user up, verifies it with the link in the outbox and answers its session cookie.
async fn signed_in_session(address: SocketAddr, outbox: &std::path::Path) -> anyhow::Result<String> {
    let email = "signed-in@example.org";
    let body = json!({
        "email": email, "researchField": "biology", "password": "Bench-secret-123", "confirmPassword": "Bench-secret-123",
        "agreeToTerms": true, "agreeToPrivacy": true,
    })
    .to_string();
    let signup = format!(
        "POST /api/signup HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (head, _) = whole_answer(address, None, &signup).await.context("signing up")?;
    anyhow::ensure!(head.starts_with("HTTP/1.1 201"), "signing up: {head}");
    let started = Instant::now();
    let token = loop {
        if let Some(token) = crate::http::verification_tokens(outbox).remove(email) {
            break token;
        }
        anyhow::ensure!(started.elapsed() < Duration::from_secs(30), "no verification mail in the outbox");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let verify = format!("GET /api/verify-email?token={token} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let (head, _) = whole_answer(address, None, &verify).await.context("verifying")?;
    let cookie = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| name.eq_ignore_ascii_case("set-cookie"))
        .find_map(|(_, value)| value.trim().strip_prefix("papertide_session=").and_then(|rest| rest.split(';').next()))
        .context("no session cookie in the verification's answer")?;
    Ok(format!("papertide_session={cookie}"))
}

/// Sends `request` on a new connection (from `source`, if given) and reads the whole answer
/// until the server closes: its head and its body.
async fn whole_answer(address: SocketAddr, source: Option<[u8; 4]>, request: &str) -> anyhow::Result<(String, String)> {
    let socket = TcpSocket::new_v4()?;
    if let Some(source) = source {
        socket.bind(SocketAddr::from((source, 0)))?;
    }
    let mut stream = socket.connect(address).await?;
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await??;
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Ok((head.to_owned(), body.to_owned()))
}

/// One crowd flood while the normal and the signed-in clients ask every quarter second.
async fn crowd_flood(crowd: &Crowd, seconds: u64, address: SocketAddr, session_cookie: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let ended = Arc::new(std::sync::Mutex::new(Statuses::default()));
    let mut attackers = Vec::new();
    for index in 0..crowd.connections {
        let source = crowd_address(index % crowd.addresses.max(1), crowd.networks);
        let (ended, kind) = (Arc::clone(&ended), crowd.kind);
        attackers.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let outcome = crowd_connection(address, source, kind, deadline).await;
                lock(&ended).add(&outcome);
                if outcome != "flood-over" {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }));
    }
    let normal_request = format!("GET /api/config HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let signed_in_request = format!("GET /api/auth/me HTTP/1.1\r\nHost: {address}\r\nCookie: {session_cookie}\r\nConnection: close\r\n\r\n");
    // The two clients run on a thread and runtime of their own, as they would on machines of
    // their own: the attackers' thousands of tasks must not delay their clocks.
    let clients = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
        Some(runtime.block_on(async move {
            let normal = tokio::spawn(ask_every_quarter_second(address, NORMAL_CLIENT, normal_request, deadline));
            let signed_in = tokio::spawn(ask_every_quarter_second(address, SIGNED_IN_CLIENT, signed_in_request, deadline));
            (normal.await.unwrap_or_default(), signed_in.await.unwrap_or_default())
        }))
    });
    while !clients.is_finished() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (normal, signed_in) = clients.join().ok().flatten().unwrap_or_default();
    for attacker in attackers {
        let _ = attacker.await;
    }
    let ended = std::mem::take(&mut *lock(&ended));
    json!({
        "addresses": crowd.addresses,
        "networks": crowd.networks,
        "connections": crowd.connections,
        "kind": crowd.kind.name(),
        "seconds": seconds,
        "attackersEnded": ended.json(),
        "normal": normal.json(),
        "signedIn": signed_in.json(),
    })
}

/// A client's requests during a flood: how many, and how many were answered 200 within 1 s.
#[derive(Debug, Default, Clone)]
pub struct ClientTally {
    pub requests: usize,
    pub within_a_second: usize,
    pub statuses: std::collections::BTreeMap<String, u64>,
}

impl ClientTally {
    fn json(&self) -> Value {
        let share = if self.requests == 0 { 0.0 } else { self.within_a_second as f64 / self.requests as f64 };
        json!({ "requests": self.requests, "answeredWithin1s": self.within_a_second, "share": round(share), "statuses": self.statuses })
    }
}

/// `request` from `source` on a new connection every quarter second until `deadline`.
async fn ask_every_quarter_second(address: SocketAddr, source: [u8; 4], request: String, deadline: Instant) -> ClientTally {
    let mut tally = ClientTally::default();
    while Instant::now() < deadline {
        let asked = Instant::now();
        let attempt = async {
            let socket = TcpSocket::new_v4().ok()?;
            socket.bind(SocketAddr::from((source, 0))).ok()?;
            let mut stream = socket.connect(address).await.ok()?;
            exchange(&mut stream, request.as_bytes()).await
        };
        let status = match tokio::time::timeout(Duration::from_secs(5), attempt).await {
            Ok(Some((status, _))) => status.to_string(),
            Ok(None) => "error".to_owned(),
            Err(_) => "timeout".to_owned(),
        };
        tally.requests += 1;
        if status == "200" && asked.elapsed() <= Duration::from_secs(1) {
            tally.within_a_second += 1;
        }
        *tally.statuses.entry(status).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(250).saturating_sub(asked.elapsed())).await;
    }
    tally
}

/// One attacker connection from `source`: a slow sign-in or nothing, until the server answers or
/// closes, or the flood ends. Answers how it ended (as [`slow_connection`]).
async fn crowd_connection(address: SocketAddr, source: Ipv4Addr, kind: CrowdKind, deadline: Instant) -> String {
    let connected = async {
        let socket = TcpSocket::new_v4().ok()?;
        socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).ok()?;
        socket.connect(address).await.ok()
    };
    let Ok(Some(stream)) = tokio::time::timeout(Duration::from_secs(5), connected).await else {
        return "connect-failed".to_owned();
    };
    hold(stream, address, kind, deadline).await
}

fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
