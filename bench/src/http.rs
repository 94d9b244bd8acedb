//! The `http` scenario: the real `papertide` binary on a temporary data directory (mail to its
//! outbox, no harvest, no live search, no embedding model), driven over loopback by a load
//! generator of its own. Each connection is one HTTP/1.1 keep-alive connection of one signed-in
//! user that sends, one after the other until the time is up, the calls of a user on the
//! dashboard: `GET /api/auth/me`, the dashboard's three loads (search terms, digests,
//! preferences), `GET /` (the client's page), and writes (a term renamed, the weekly digest
//! turned off and on). An optional login storm adds connections that send wrong passwords to
//! one account as fast as they are answered.
//!
//! Setup is not timed: users sign up (the combined form), are verified through the link of the
//! mail in the outbox (which signs them in: the session cookie) and add a term through the
//! immediate search. The server is then stopped while each user is given a dashboard of real
//! size (`crate::dashboard`: the Pro plan, 5 terms, 4 weeks of weekly digests over generated
//! papers, 21 digests in all), and started again; the run begins once the mail those digests
//! queued has gone to the outbox. The bench's server raises the signup, immediate-search and login limits
//! (`PAPERTIDE_RATE_LIMIT_*`, see [`BENCH_RATE`]) so that setup and the storm are not refused;
//! the storm's attempts therefore all reach password hashing, its costliest path.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// The rate the bench's server allows for signups, immediate searches and sign-ins.
pub const BENCH_RATE: &str = "1000000/1h";
/// A request not answered within this long counts as an error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a worker waits for the server to accept one connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const PASSWORD: &str = "Bench-123-pass";
const STORM_PASSWORD: &str = "Wrong-123-pass";
const TERMS: [&str; 2] = ["CRISPR gene editing", "CRISPR base editing"];

/// What to run.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The `papertide` binary.
    pub server: PathBuf,
    pub seconds: u64,
    pub connections: usize,
    /// Distinct signed-in users; the connections share them round-robin.
    pub users: usize,
    /// Extra connections sending wrong passwords during the run.
    pub login_storm: usize,
    /// The load generator's threads.
    pub client_threads: usize,
    /// The calls of the mix, with their weights; empty: every call ([`Call::ALL`]).
    pub only: Vec<Call>,
    /// `wrk`, run after the bench's own load on `GET /api/auth/me` as long and with as many
    /// connections and threads, to check the generator against it (`crate::wrk`).
    pub wrk: Option<PathBuf>,
}

/// One call of the mix: its name in the figures, and how often it is sent (out of 100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Me,
    SearchTerms,
    Digests,
    Preferences,
    Index,
    EditTerm,
    SetPreferences,
}

impl Call {
    pub const ALL: [Call; 7] = [Call::Me, Call::SearchTerms, Call::Digests, Call::Preferences, Call::Index, Call::EditTerm, Call::SetPreferences];

    pub fn name(self) -> &'static str {
        match self {
            Call::Me => "me",
            Call::SearchTerms => "searchTerms",
            Call::Digests => "digests",
            Call::Preferences => "preferences",
            Call::Index => "index",
            Call::EditTerm => "editTerm",
            Call::SetPreferences => "setPreferences",
        }
    }

    /// Shares of the mix, out of 100: reads of the signed-in user and the dashboard dominate,
    /// as they do in a browser (every page asks `me`; the dashboard loads three lists).
    pub fn weight(self) -> u32 {
        match self {
            Call::Me => 30,
            Call::SearchTerms | Call::Digests | Call::Preferences => 15,
            Call::Index => 10,
            Call::EditTerm | Call::SetPreferences => 7,
        }
    }

    /// The call named `name` (as in the figures).
    pub fn named(name: &str) -> Option<Call> {
        Call::ALL.into_iter().find(|call| call.name() == name)
    }

    /// The call of the `draw`-th request (any number): the mix's weights, interleaved.
    pub fn of_draw(draw: u64) -> Call {
        Call::of_draw_among(draw, &Call::ALL)
    }

    /// The call of the `draw`-th request among `calls` (every call when empty), by their weights.
    pub fn of_draw_among(draw: u64, calls: &[Call]) -> Call {
        let calls = if calls.is_empty() { &Call::ALL[..] } else { calls };
        let total: u32 = calls.iter().map(|call| call.weight()).sum();
        // A fixed odd multiplier spreads consecutive draws over the whole mix.
        let mut slot = (draw.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32 % total;
        for &call in calls {
            if slot < call.weight() {
                return call;
            }
            slot -= call.weight();
        }
        calls[0]
    }
}

/// A signed-in user of the run.
#[derive(Debug, Clone)]
pub struct BenchUser {
    pub email: String,
    pub id: String,
    pub session_cookie: String,
    pub term_id: String,
}

/// Latencies in microseconds, and errors, of one call.
#[derive(Debug, Default, Clone)]
pub struct CallFigures {
    pub latencies_us: Vec<u32>,
    pub errors: u64,
}

/// The latency at quantile `q` (0–1) of sorted `latencies_us`, in milliseconds (nearest rank).
pub fn quantile_ms(sorted_us: &[u32], q: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted_us.len() as f64).ceil() as usize).clamp(1, sorted_us.len());
    f64::from(sorted_us[rank - 1]) / 1000.0
}

/// Runs the scenario and answers its figures.
pub fn run(config: &HttpConfig) -> anyhow::Result<Value> {
    let open_files = raise_open_files_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.client_threads.max(1))
        .enable_all()
        .build()
        .context("the load generator's runtime")?;
    let data_dir = tempfile::tempdir().context("temporary data directory")?;
    let setup_started = Instant::now();
    let (users, filled, setup_seconds) = {
        let mut server = Server::start(&config.server, data_dir.path())?;
        eprintln!("http: signing up and verifying {} users (not timed)", config.users.max(1));
        let users = runtime.block_on(set_up_users(server.address, server.data_dir(), config.users.max(1)));
        let stopped = server.stop();
        let users = users.map_err(|error| error.context(format!("the server's log ends:\n{}", server.log_tail())))?;
        stopped?;
        eprintln!("http: {} terms and {} weeks of digests for each user (not timed)", crate::dashboard::TERMS_PER_USER, crate::dashboard::WEEKS);
        let ids: Vec<String> = users.iter().map(|user| user.id.clone()).collect();
        let filled = crate::dashboard::fill(server.data_dir(), &ids).context("the users' dashboards")?;
        (users, filled, setup_started.elapsed().as_secs_f64())
    };
    let digests_per_user = filled.weekly_digests / users.len().max(1) + 1;
    let mut server = Server::start(&config.server, data_dir.path())?;
    let figures = runtime.block_on(async {
        server.wait_for_empty_queue().await?;
        let dashboard_bytes = check_dashboard(server.address, &users[0], digests_per_user).await?;
        let cookie = users[0].session_cookie.clone();
        let mut figures = drive(config, &server, users, setup_seconds).await?;
        figures["digestsAnswerBytes"] = json!(dashboard_bytes);
        if let Some(wrk) = &config.wrk {
            eprintln!("http: wrk on GET /api/auth/me, {} connections for {} s", config.connections, config.seconds);
            let measured = crate::wrk::run(wrk, server.address, &cookie, config.connections, config.seconds, config.client_threads)?;
            if config.only == [Call::Me] && measured.requests_per_second > 0.0 {
                figures["generatorVsWrk"] = json!(round(figures["requestsPerSecond"].as_f64().unwrap_or(0.0) / measured.requests_per_second));
            }
            figures["wrk"] = serde_json::to_value(measured)?;
        }
        Ok::<_, anyhow::Error>(figures)
    });
    let peak_rss_mib = server.peak_rss_mib();
    let stopped = server.stop();
    let mut figures = match figures {
        Ok(figures) => figures,
        Err(error) => {
            return Err(error.context(format!("the server's log ends:\n{}", server.log_tail())));
        }
    };
    stopped?;
    figures["rssMib"] = json!(peak_rss_mib);
    figures["openFilesLimit"] = json!(open_files);
    figures["termsPerUser"] = json!(crate::dashboard::TERMS_PER_USER);
    // The weekly digests and the immediate search's.
    figures["digestsPerUser"] = json!(digests_per_user);
    figures["papers"] = json!(filled.papers);
    Ok(figures)
}

/// The timed run: `users` signed in, their dashboards filled, the server started again on them.
async fn drive(config: &HttpConfig, server: &Server, users: Vec<BenchUser>, setup_seconds: f64) -> anyhow::Result<Value> {
    let address = server.address;
    eprintln!("http: set up in {setup_seconds:.1} s; {} connections for {} s", config.connections + config.login_storm, config.seconds);

    let workers = config.connections + config.login_storm;
    let ready = Arc::new(Barrier::new(workers + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let users = Arc::new(users);
    let mut tasks = Vec::with_capacity(config.connections);
    for worker in 0..config.connections {
        let (ready, stop, users, only) = (ready.clone(), stop.clone(), users.clone(), config.only.clone());
        tasks.push(tokio::spawn(async move { user_worker(address, worker, &users, &only, ready, stop).await }));
    }
    let mut storm_tasks = Vec::with_capacity(config.login_storm);
    let storm_email = users[0].email.clone();
    for _ in 0..config.login_storm {
        let (ready, stop, email) = (ready.clone(), stop.clone(), storm_email.clone());
        storm_tasks.push(tokio::spawn(async move { storm_worker(address, email, ready, stop).await }));
    }
    // Every worker meets the barrier after at most five connect attempts of CONNECT_TIMEOUT
    // each (with their back-off); a run that still waits has a worker that died.
    let all_connected = CONNECT_TIMEOUT * 5 + Duration::from_secs(5);
    if tokio::time::timeout(all_connected, ready.wait()).await.is_err() {
        stop.store(true, Ordering::SeqCst);
        bail!("the load workers were not all connected within {} s", all_connected.as_secs());
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(config.seconds)).await;
    stop.store(true, Ordering::SeqCst);

    let mut per_call: Vec<CallFigures> = vec![CallFigures::default(); Call::ALL.len()];
    let mut connect_errors = 0u64;
    let mut reconnects = 0u64;
    let mut error_samples: Vec<String> = Vec::new();
    for task in tasks {
        let outcome = task.await.context("a load worker panicked")?;
        connect_errors += outcome.connect_errors;
        reconnects += outcome.reconnects;
        for (figures, mut theirs) in per_call.iter_mut().zip(outcome.calls) {
            figures.latencies_us.append(&mut theirs.latencies_us);
            figures.errors += theirs.errors;
        }
        for sample in outcome.error_samples {
            if error_samples.len() < 10 && !error_samples.contains(&sample) {
                error_samples.push(sample);
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut storm = StormOutcome::default();
    for task in storm_tasks {
        storm.merge(task.await.context("a storm worker panicked")?);
    }

    let mut endpoints = serde_json::Map::new();
    let (mut requests, mut errors) = (0u64, connect_errors);
    for (call, figures) in Call::ALL.iter().zip(per_call.iter_mut()) {
        figures.latencies_us.sort_unstable();
        let answered = figures.latencies_us.len() as u64;
        requests += answered + figures.errors;
        errors += figures.errors;
        endpoints.insert(call.name().to_owned(), latency_figures(&figures.latencies_us, figures.errors, elapsed));
    }
    let mut figures = json!({
        "scenario": "http",
        "seconds": round(elapsed),
        "connections": config.connections,
        "users": users.len(),
        "clientThreads": config.client_threads,
        "only": config.only.iter().map(|call| call.name()).collect::<Vec<_>>(),
        "setupSeconds": round(setup_seconds),
        "requests": requests,
        "requestsPerSecond": round(requests as f64 / elapsed),
        "errors": errors,
        "connectErrors": connect_errors,
        "reconnects": reconnects,
        "errorSamples": error_samples,
        "endpoints": endpoints,
        "requestTimeoutSeconds": REQUEST_TIMEOUT.as_secs(),
    });
    if config.login_storm > 0 {
        storm.latencies_us.sort_unstable();
        let mut storm_figures = latency_figures(&storm.latencies_us, storm.errors, elapsed);
        storm_figures["connections"] = json!(config.login_storm);
        storm_figures["statuses"] = json!(storm.statuses);
        figures["loginStorm"] = storm_figures;
    }
    Ok(figures)
}

fn latency_figures(sorted_us: &[u32], errors: u64, elapsed_secs: f64) -> Value {
    json!({
        "requests": sorted_us.len() as u64 + errors,
        "requestsPerSecond": round(sorted_us.len() as f64 / elapsed_secs),
        "p50Ms": round(quantile_ms(sorted_us, 0.5)),
        "p99Ms": round(quantile_ms(sorted_us, 0.99)),
        "p999Ms": round(quantile_ms(sorted_us, 0.999)),
        "maxMs": round(sorted_us.last().map_or(0.0, |max| f64::from(*max) / 1000.0)),
        "errors": errors,
    })
}

#[derive(Debug, Default)]
struct WorkerOutcome {
    calls: Vec<CallFigures>,
    connect_errors: u64,
    reconnects: u64,
    error_samples: Vec<String>,
}

/// One connection of one user: connects (before the clock starts), then sends the mix until
/// told to stop. A connection the server closed while idle is opened again (counted in
/// `reconnects`); any other failure, an unexpected status or a timeout is an error of its call.
async fn user_worker(
    address: SocketAddr,
    worker: usize,
    users: &[BenchUser],
    only: &[Call],
    ready: Arc<Barrier>,
    stop: Arc<AtomicBool>,
) -> WorkerOutcome {
    let user = &users[worker % users.len()];
    let mut outcome = WorkerOutcome { calls: vec![CallFigures::default(); Call::ALL.len()], ..WorkerOutcome::default() };
    let mut connection = connect_with_retries(address, worker, &mut outcome).await;
    ready.wait().await;
    let mut draw = worker as u64 * 7919;
    let mut toggle = false;
    while !stop.load(Ordering::Relaxed) {
        let sender = match connection.as_mut() {
            Some(sender) if !sender.is_closed() => sender,
            _ => {
                outcome.reconnects += 1;
                connection = connect_with_retries(address, worker, &mut outcome).await;
                continue;
            }
        };
        draw += 1;
        toggle = !toggle;
        let call = Call::of_draw_among(draw, only);
        let request = user_request(call, user, toggle, address);
        let started = Instant::now();
        let answer = tokio::time::timeout(REQUEST_TIMEOUT, send(sender, request)).await;
        let elapsed_us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        let figures = &mut outcome.calls[call as usize];
        match answer {
            Ok(Ok((StatusCode::OK, _))) => figures.latencies_us.push(elapsed_us),
            Ok(Ok((status, body))) => {
                figures.errors += 1;
                outcome.error_samples.push(format!("{}: {status} {}", call.name(), String::from_utf8_lossy(&body[..body.len().min(200)])));
            }
            Ok(Err(error)) => {
                figures.errors += 1;
                outcome.error_samples.push(format!("{}: {error}", call.name()));
                connection = None;
            }
            Err(_) => {
                figures.errors += 1;
                outcome.error_samples.push(format!("{}: no answer within {} s", call.name(), REQUEST_TIMEOUT.as_secs()));
                connection = None;
            }
        }
        outcome.error_samples.truncate(10);
    }
    outcome
}

async fn connect_with_retries(address: SocketAddr, worker: usize, outcome: &mut WorkerOutcome) -> Option<SendRequest<Full<Bytes>>> {
    for attempt in 0..5u32 {
        match connect_as(address, worker).await {
            Ok(sender) => return Some(sender),
            Err(error) => {
                outcome.connect_errors += 1;
                outcome.error_samples.push(format!("connect: {error:#}"));
                tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
            }
        }
    }
    None
}

fn user_request(call: Call, user: &BenchUser, toggle: bool, address: SocketAddr) -> Request<Full<Bytes>> {
    let users_path = |rest: &str| format!("/api/users/{}/{rest}", user.id);
    let (method, path, body) = match call {
        Call::Me => (Method::GET, "/api/auth/me".to_owned(), None),
        Call::SearchTerms => (Method::GET, users_path("search-terms"), None),
        Call::Digests => (Method::GET, users_path("digests"), None),
        Call::Preferences => (Method::GET, users_path("preferences"), None),
        Call::Index => (Method::GET, "/".to_owned(), None),
        Call::EditTerm => {
            let term = TERMS[usize::from(toggle)];
            (Method::PATCH, format!("/api/search-terms/{}", user.term_id), Some(json!({ "term": term })))
        }
        Call::SetPreferences => (Method::PATCH, users_path("preferences"), Some(json!({ "weeklyDigest": toggle }))),
    };
    build_request(method, &path, address, Some(&user.session_cookie), body)
}

#[derive(Debug, Default)]
struct StormOutcome {
    latencies_us: Vec<u32>,
    errors: u64,
    statuses: BTreeMap<String, u64>,
}

impl StormOutcome {
    fn merge(&mut self, mut other: StormOutcome) {
        self.latencies_us.append(&mut other.latencies_us);
        self.errors += other.errors;
        for (status, count) in other.statuses {
            *self.statuses.entry(status).or_default() += count;
        }
    }
}

/// A guesser: wrong passwords for `email`, one after the other. Its answers (401, 429, 503) are
/// what a guesser should get; only transport failures and other statuses are its errors.
async fn storm_worker(address: SocketAddr, email: String, ready: Arc<Barrier>, stop: Arc<AtomicBool>) -> StormOutcome {
    let mut outcome = StormOutcome::default();
    let mut connection = connect(address).await.ok();
    ready.wait().await;
    let body = json!({ "email": email, "password": STORM_PASSWORD });
    while !stop.load(Ordering::Relaxed) {
        let sender = match connection.as_mut() {
            Some(sender) if !sender.is_closed() => sender,
            _ => {
                connection = connect(address).await.ok();
                if connection.is_none() {
                    outcome.errors += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                continue;
            }
        };
        let request = build_request(Method::POST, "/api/auth/login", address, None, Some(body.clone()));
        let started = Instant::now();
        match tokio::time::timeout(REQUEST_TIMEOUT, send(sender, request)).await {
            Ok(Ok((status, _))) => {
                *outcome.statuses.entry(status.as_u16().to_string()).or_default() += 1;
                let is_expected = matches!(status.as_u16(), 401 | 429 | 503);
                if is_expected {
                    outcome.latencies_us.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
                } else {
                    outcome.errors += 1;
                }
            }
            _ => {
                outcome.errors += 1;
                connection = None;
            }
        }
    }
    outcome
}

/// Signs `count` users up, verifies each through its mailed link and adds a term for each,
/// eight at a time.
async fn set_up_users(address: SocketAddr, data_dir: &Path, count: usize) -> anyhow::Result<Vec<BenchUser>> {
    const IN_FLIGHT: usize = 8;
    let emails: Vec<String> = (0..count).map(|index| format!("bench{index}@example.org")).collect();
    for chunk in emails.chunks(IN_FLIGHT) {
        let signups = chunk.iter().map(|email| {
            let email = email.clone();
            tokio::spawn(async move {
                let body = json!({
                    "email": email, "researchField": "biology", "password": PASSWORD, "confirmPassword": PASSWORD,
                    "agreeToTerms": true, "agreeToPrivacy": true,
                });
                let (status, answer) = one_request(address, Method::POST, "/api/signup", None, Some(body)).await?;
                if status != StatusCode::CREATED {
                    bail!("signup of {email}: {status} {}", String::from_utf8_lossy(&answer));
                }
                Ok(())
            })
        });
        for signup in futures_join(signups).await {
            signup.context("a signup task")??;
        }
    }
    let tokens = wait_for_verification_tokens(&data_dir.join("outbox"), &emails).await?;
    let mut users = Vec::with_capacity(count);
    for chunk in emails.chunks(IN_FLIGHT) {
        let verifications = chunk.iter().map(|email| {
            let (email, token) = (email.clone(), tokens.get(email).cloned().unwrap_or_default());
            tokio::spawn(async move { sign_in_by_link(address, email, token).await })
        });
        for user in futures_join(verifications).await {
            users.push(user.context("a verification task")??);
        }
    }
    Ok(users)
}

async fn futures_join<T>(tasks: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<Result<T, tokio::task::JoinError>> {
    let mut results = Vec::new();
    for task in tasks.collect::<Vec<_>>() {
        results.push(task.await);
    }
    results
}

/// Checks that `user`'s dashboard holds what the setup gave it, as the server answers it: the
/// plan's terms, and `digests` digests of which some have papers. Answers the size of the
/// digests' answer.
async fn check_dashboard(address: SocketAddr, user: &BenchUser, digests: usize) -> anyhow::Result<usize> {
    let path = |rest: &str| format!("/api/users/{}/{rest}", user.id);
    let (status, body) = one_request(address, Method::GET, &path("search-terms"), Some(&user.session_cookie), None).await?;
    let terms: Value = serde_json::from_slice(&body).with_context(|| format!("the search terms' answer ({status})"))?;
    let listed = terms.as_array().map_or(0, Vec::len);
    if listed != crate::dashboard::TERMS_PER_USER {
        bail!("{} has {listed} search terms after setup, not {}", user.email, crate::dashboard::TERMS_PER_USER);
    }
    let (status, body) = one_request(address, Method::GET, &path("digests"), Some(&user.session_cookie), None).await?;
    let answer: Value = serde_json::from_slice(&body).with_context(|| format!("the digests' answer ({status})"))?;
    let listed = answer.as_array().map_or(&[][..], Vec::as_slice);
    let with_papers = listed.iter().filter(|digest| digest["papersData"].as_array().is_some_and(|papers| !papers.is_empty())).count();
    if listed.len() != digests || with_papers == 0 {
        bail!("{} has {} digests after setup ({with_papers} with papers), not {digests}", user.email, listed.len());
    }
    Ok(body.len())
}

/// Verifies `email` with its token (which signs in), then adds its term.
async fn sign_in_by_link(address: SocketAddr, email: String, token: String) -> anyhow::Result<BenchUser> {
    let mut sender = connect(address).await?;
    let path = format!("/api/verify-email?token={token}");
    let response = sender.send_request(build_request(Method::GET, &path, address, None, None)).await.context("verifying")?;
    let status = response.status();
    let session_cookie = response
        .headers()
        .get_all(hyper::header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find_map(|value| value.strip_prefix("papertide_session=").and_then(|rest| rest.split(';').next()))
        .map(|value| format!("papertide_session={value}"));
    let body = response.into_body().collect().await.context("reading the verification answer")?.to_bytes();
    let (StatusCode::OK, Some(session_cookie)) = (status, session_cookie) else {
        bail!("verifying {email}: {status} {}", String::from_utf8_lossy(&body));
    };
    let verified: Value = serde_json::from_slice(&body).context("the verification answer")?;
    let id = verified["user"]["id"].as_str().context("the verified user's id")?.to_owned();
    let search = json!({ "email": email, "searchTerm": TERMS[0] });
    let (status, body) =
        send(&mut sender, build_request(Method::POST, "/api/immediate-search", address, Some(&session_cookie), Some(search))).await?;
    if status != StatusCode::OK {
        bail!("adding a term for {email}: {status} {}", String::from_utf8_lossy(&body));
    }
    let added: Value = serde_json::from_slice(&body).context("the immediate search's answer")?;
    let term_id = added["termId"].as_str().context("the term's id")?.to_owned();
    Ok(BenchUser { email, id, session_cookie, term_id })
}

/// Waits (at most a minute) until the outbox holds a verification mail for every email, and
/// answers each one's token.
async fn wait_for_verification_tokens(outbox: &Path, emails: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let tokens = verification_tokens(outbox);
        if emails.iter().all(|email| tokens.contains_key(email)) {
            return Ok(tokens);
        }
        if Instant::now() > deadline {
            bail!("only {} of {} verification mails reached the outbox", tokens.len(), emails.len());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Recipient → verification token, from the outbox's mails.
pub fn verification_tokens(outbox: &Path) -> BTreeMap<String, String> {
    let mut tokens = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(outbox) else {
        return tokens;
    };
    for entry in entries.flatten() {
        let Ok(raw) = std::fs::read_to_string(entry.path()) else { continue };
        let mail = decode_quoted_printable(&raw);
        let recipient = mail.lines().find_map(|line| line.strip_prefix("To: ")).map(str::trim);
        let token = mail
            .split("/verify-email?token=")
            .nth(1)
            .map(|rest| rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect::<String>());
        if let (Some(recipient), Some(token)) = (recipient, token) {
            tokens.insert(recipient.to_owned(), token);
        }
    }
    tokens
}

/// Quoted-printable text as the mailer writes it: soft line breaks joined, `=XX` decoded.
pub fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex_pair = bytes.get(at + 1..at + 3).and_then(|pair| std::str::from_utf8(pair).ok()).and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[at], hex_pair) {
            (b'=', Some(byte)) => {
                decoded.push(byte);
                at += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

/// Connections that share one client address. The server holds at most 256 connections of one
/// address (`web::connections`), and the load is many users: on loopback, worker `n` connects
/// from 127.0.0.(2 + n / this), as users behind a few shared addresses would.
const CONNECTIONS_PER_CLIENT_ADDRESS: usize = 100;

/// The source address worker `worker` connects to `server` from: one of loopback's many when the
/// server is on loopback (IPv4), else the system's choice.
fn client_address(server: SocketAddr, worker: usize) -> Option<std::net::Ipv4Addr> {
    let SocketAddr::V4(server) = server else { return None };
    if !server.ip().is_loopback() {
        return None;
    }
    let index = u32::try_from(2 + worker / CONNECTIONS_PER_CLIENT_ADDRESS).ok()?;
    (index < 1 << 24).then(|| std::net::Ipv4Addr::from(0x7f00_0000 | index))
}

/// A connection of the system's choosing (setup, guessers).
async fn connect(address: SocketAddr) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    handshake(TcpStream::connect(address)).await
}

/// A connection of user worker `worker`, from its client address ([`client_address`]).
async fn connect_as(address: SocketAddr, worker: usize) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    let Some(source) = client_address(address, worker) else { return connect(address).await };
    handshake(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(SocketAddr::from((source, 0)))?;
        socket.connect(address).await
    })
    .await
}

async fn handshake(connecting: impl std::future::Future<Output = std::io::Result<TcpStream>>) -> anyhow::Result<SendRequest<Full<Bytes>>> {
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await
        .map_err(|_| anyhow::anyhow!("no connection within {} s", CONNECT_TIMEOUT.as_secs()))?
        .context("connecting")?;
    stream.set_nodelay(true).context("TCP_NODELAY")?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.context("HTTP/1 handshake")?;
    tokio::spawn(async move {
        // Ends when the connection does; its error shows up as the next request's.
        let _ = connection.await;
    });
    Ok(sender)
}

async fn send(sender: &mut SendRequest<Full<Bytes>>, request: Request<Full<Bytes>>) -> anyhow::Result<(StatusCode, Bytes)> {
    sender.ready().await.context("connection not ready")?;
    let response = sender.send_request(request).await.context("sending")?;
    let status = response.status();
    let body = response.into_body().collect().await.context("reading the body")?.to_bytes();
    Ok((status, body))
}

/// One request on a connection of its own (setup).
async fn one_request(
    address: SocketAddr,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    body: Option<Value>,
) -> anyhow::Result<(StatusCode, Bytes)> {
    let mut sender = connect(address).await?;
    send(&mut sender, build_request(method, path, address, cookie, body)).await
}

fn build_request(method: Method, path: &str, address: SocketAddr, cookie: Option<&str>, body: Option<Value>) -> Request<Full<Bytes>> {
    let mut builder = Request::builder().method(method).uri(path).header(hyper::header::HOST, address.to_string());
    if let Some(cookie) = cookie {
        builder = builder.header(hyper::header::COOKIE, cookie);
    }
    let bytes = match body {
        Some(body) => {
            builder = builder.header(hyper::header::CONTENT_TYPE, "application/json");
            Bytes::from(body.to_string())
        }
        None => Bytes::new(),
    };
    // Every part is valid by construction (a path we made, known header names).
    builder.body(Full::new(bytes)).unwrap_or_else(|_| Request::new(Full::new(Bytes::new())))
}

/// The `papertide` binary, started on a data directory of its own (`data/` inside the run's
/// directory).
pub(crate) struct Server {
    child: Child,
    address: SocketAddr,
    data_dir: PathBuf,
    log: PathBuf,
}

impl Server {
    pub(crate) fn start(binary: &Path, data_dir: &Path) -> anyhow::Result<Server> {
        Server::start_with(binary, data_dir, &[], None)
    }

    /// [`Server::start`] with settings of `env` over the bench's, and, given `open_files`, that
    /// open-files limit (through util-linux's `prlimit`).
    pub(crate) fn start_with(binary: &Path, data_dir: &Path, env: &[(&str, &str)], open_files: Option<u64>) -> anyhow::Result<Server> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).context("a free port")?.port();
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let log = data_dir.join("server.log");
        // Appended to: a server started again on the same directory keeps the earlier log.
        let log_file = std::fs::OpenOptions::new().create(true).append(true).open(&log).context("the server's log file")?;
        let mut command = match open_files {
            Some(limit) => {
                let mut command = Command::new("prlimit");
                command.arg(format!("--nofile={limit}:{limit}")).arg(binary);
                command
            }
            None => Command::new(binary),
        };
        let child = command
            .arg("serve")
            .env("PAPERTIDE_DATA_DIR", data_dir.join("data"))
            .env("PAPERTIDE_BIND", address.to_string())
            .env("PAPERTIDE_PUBLIC_URL", format!("http://{address}"))
            .env("PAPERTIDE_HARVEST_SOURCES", "none")
            .env("PAPERTIDE_LIVE_SEARCH", "false")
            .env("PAPERTIDE_LOG", "info")
            .env("PAPERTIDE_RATE_LIMIT_SIGNUP", BENCH_RATE)
            .env("PAPERTIDE_RATE_LIMIT_IMMEDIATE_SEARCH", BENCH_RATE)
            .env("PAPERTIDE_RATE_LIMIT_LOGIN", BENCH_RATE)
            .env("PAPERTIDE_RATE_LIMIT_LOGIN_ACCOUNT", BENCH_RATE)
            .env_remove("PAPERTIDE_CONFIG")
            .env_remove("PAPERTIDE_SMTP_URL")
            .env_remove("PAPERTIDE_EMBED_MODEL_DIR")
            .env_remove("PAPERTIDE_LLM_URL")
            .env_remove("PAPERTIDE_STRIPE_SECRET_KEY")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().context("the server's log file")?)
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let mut server = Server { child, address, data_dir: data_dir.join("data"), log };
        server.wait_until_ready()?;
        Ok(server)
    }

    fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    fn wait_until_ready(&mut self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().context("the server process")? {
                bail!("the server exited at start ({status}):\n{}", self.log_tail());
            }
            if std::net::TcpStream::connect_timeout(&self.address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the server did not listen within a minute:\n{}", self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `/healthz` answers 200 (at most a minute: a server that will not start).
    pub(crate) async fn wait_until_healthy(&mut self) -> anyhow::Result<Duration> {
        let base = format!("http://{}", self.address);
        testkit::server::wait_until_healthy(&mut self.child, &base, Duration::from_secs(60)).await
    }

    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }

    /// The server's process id (prlimit runs it in its own process: `exec`, same id).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits (at most two minutes) until the server's mail queue is empty (`/healthz`), so the
    /// mail a setup queued is not sent during the timed run.
    async fn wait_for_empty_queue(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let (status, body) = one_request(self.address, Method::GET, "/healthz", None, None).await?;
            let health: Value = serde_json::from_slice(&body).context("the health answer")?;
            let queued = health["mail"]["queued"].as_u64();
            if status == StatusCode::OK && queued == Some(0) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("the server's mail queue still held {queued:?} mails after two minutes");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The server's peak resident memory (`VmHWM`), in MiB.
    pub(crate) fn peak_rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        crate::vm_hwm_mib(&status)
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// SIGTERM, then waits (at most 20 s) for a clean stop.
    pub(crate) fn stop(&mut self) -> anyhow::Result<()> {
        let pid = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).unwrap_or(i32::MAX)).context("the server's pid")?;
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).context("stopping the server")?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().context("the server process")? {
                if !status.success() {
                    bail!("the server stopped with {status}:\n{}", self.log_tail());
                }
                return Ok(());
            }
            if Instant::now() > deadline {
                self.child.kill().context("killing the server")?;
                bail!("the server did not stop within 20 s of SIGTERM; its log ends:\n{}", self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Raises this process's soft limit on open files to its hard limit (each connection is a
/// file, and the server, started from here, inherits the limit); answers the limit in force.
pub fn raise_open_files_limit() -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if let (Some(current), Some(maximum)) = (limit.current, limit.maximum) {
        if current < maximum {
            let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(maximum), maximum: Some(maximum) });
        }
    }
    getrlimit(Resource::Nofile).current
}

/// The `papertide` binary: `explicit`, else the one beside this program (both are built into
/// the same `target/` directory).
pub fn find_server_binary(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = explicit {
        return Ok(path.to_owned());
    }
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("papertide")));
    match beside {
        Some(path) if path.is_file() => Ok(path),
        _ => bail!("no papertide binary beside papertide-bench: build it with `cargo build --release -p web --bin papertide`, or pass --server PATH"),
    }
}

fn round(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_workers_spread_over_loopback_client_addresses_and_elsewhere_leave_it_to_the_system() {
        let server = SocketAddr::from(([127, 0, 0, 1], 8080));
        let from = |worker| client_address(server, worker);
        assert_eq!(from(0), Some(std::net::Ipv4Addr::new(127, 0, 0, 2)));
        assert_eq!(from(CONNECTIONS_PER_CLIENT_ADDRESS - 1), from(0), "a hundred workers share an address");
        assert_eq!(from(CONNECTIONS_PER_CLIENT_ADDRESS), Some(std::net::Ipv4Addr::new(127, 0, 0, 3)));
        assert_eq!(from(999), Some(std::net::Ipv4Addr::new(127, 0, 0, 11)), "1,000 connections come from 10 addresses");
        assert_eq!(from(256 * CONNECTIONS_PER_CLIENT_ADDRESS), Some(std::net::Ipv4Addr::new(127, 0, 1, 2)));
        assert_eq!(client_address(SocketAddr::from(([10, 0, 0, 5], 8080)), 7), None);
        assert_eq!(client_address("[::1]:8080".parse().expect("an address"), 7), None);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let sorted: Vec<u32> = (1..=1000).map(|ms| ms * 1000).collect();
        assert_eq!(quantile_ms(&sorted, 0.5), 500.0);
        assert_eq!(quantile_ms(&sorted, 0.99), 990.0);
        assert_eq!(quantile_ms(&sorted, 0.999), 999.0);
        assert_eq!(quantile_ms(&sorted, 1.0), 1000.0);
        assert_eq!(quantile_ms(&[], 0.99), 0.0);
        assert_eq!(quantile_ms(&[2500], 0.999), 2.5);
    }

    #[test]
    fn the_mix_follows_its_weights() {
        let mut counts = [0u32; Call::ALL.len()];
        for draw in 0..100_000 {
            counts[Call::of_draw(draw) as usize] += 1;
        }
        for call in Call::ALL {
            let share = f64::from(counts[call as usize]) / 1000.0;
            assert!((share - f64::from(call.weight())).abs() < 1.0, "{}: {share}% for a weight of {}", call.name(), call.weight());
        }
    }

    #[test]
    fn a_mix_of_some_calls_sends_only_those_by_their_weights() {
        let only = [Call::Me, Call::Index];
        let mut counts = [0u32; Call::ALL.len()];
        for draw in 0..40_000 {
            counts[Call::of_draw_among(draw, &only) as usize] += 1;
        }
        assert_eq!(counts.iter().sum::<u32>(), counts[Call::Me as usize] + counts[Call::Index as usize]);
        let me_share = f64::from(counts[Call::Me as usize]) / 40_000.0;
        assert!((me_share - 0.75).abs() < 0.01, "me is 30 of 40: {me_share}");
        assert!((0..100).all(|draw| Call::of_draw_among(draw, &[Call::Me]) == Call::Me));
        assert_eq!(Call::named("searchTerms"), Some(Call::SearchTerms));
        assert_eq!(Call::named("nothing"), None);
    }

    #[test]
    fn verification_tokens_are_read_from_quoted_printable_mail() {
        let outbox = tempfile::tempdir().expect("dir");
        let mail = "To: bench0@example.org\r\nSubject: Verify your email\r\n\r\nOpen http://127.0.0.1:1/verify-email?token=3DabcDEF_12-=\r\nxyz to verify.\r\n";
        std::fs::write(outbox.path().join("a.eml"), mail).expect("written");
        std::fs::write(outbox.path().join("b.eml"), "To: other@example.org\r\n\r\nno link here").expect("written");
        let tokens = verification_tokens(outbox.path());
        assert_eq!(tokens.len(), 1);
        assert_eq!(tokens["bench0@example.org"], "abcDEF_12-xyz");
    }
}
