//! A replay server for the source clients: an actix-web server on a free loopback port that
//! answers from the recorded responses in `engine/fixtures/`, follows per-route scripts of
//! faults (statuses, `Retry-After`, hangs, garbage, cut bodies), and records every request with
//! the instant it arrived.
//!
//! A route is a path plus query (or form) parameters it must carry; the first registered route
//! that matches answers. Its script is played in order, and its last reply repeats. A request
//! no route matches gets a 418 naming it, so a test fails loudly rather than by a retry.

use std::collections::VecDeque;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use actix_web::dev::ServerHandle;
use actix_web::http::StatusCode;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use url::Url;

/// Answered by the server itself, not recorded: the server is up and its worker runs.
const READY_PATH: &str = "/__replay/ready";

/// One answer the server can give.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Wait this long before answering (a hung server).
    delay: Duration,
}

impl Reply {
    /// HTTP 200 with a recorded body, `engine/fixtures/<relative_path>`.
    pub fn fixture(relative_path: &str) -> Reply {
        let path = fixtures_dir().join(relative_path);
        let body = std::fs::read(&path).unwrap_or_else(|error| panic!("fixture {}: {error}", path.display()));
        let content_type = if relative_path.ends_with(".json") { "application/json" } else { "text/xml; charset=UTF-8" };
        Reply { status: 200, headers: vec![("Content-Type".into(), content_type.into())], body, delay: Duration::ZERO }
    }

    /// A status with an empty body.
    pub fn status(status: u16) -> Reply {
        Reply { status, headers: Vec::new(), body: Vec::new(), delay: Duration::ZERO }
    }

    /// A status with a text body.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply { body: body.as_bytes().to_vec(), ..Reply::status(status) }
    }

    pub fn with_status(self, status: u16) -> Reply {
        Reply { status, ..self }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The body with `from` replaced by `to` (once per occurrence). Panics when `from` is not in
    /// the body, so a changed fixture cannot silently void a test.
    pub fn replace(mut self, from: &str, to: &str) -> Reply {
        let text = String::from_utf8(self.body).expect("a text fixture");
        assert!(text.contains(from), "the body holds no {from:?}");
        self.body = text.replace(from, to).into_bytes();
        self
    }

    /// Only the first `fraction` of the body, sent as a complete answer of that length (a body
    /// cut short upstream, not a broken connection).
    pub fn truncated(mut self, fraction: f64) -> Reply {
        let keep = (self.body.len() as f64 * fraction) as usize;
        self.body.truncate(keep);
        self
    }

    /// Answers only after `delay`.
    pub fn delayed(self, delay: Duration) -> Reply {
        Reply { delay, ..self }
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Decoded query parameters, in order.
    pub query: Vec<(String, String)>,
    /// Decoded form parameters of a POST, in order.
    pub form: Vec<(String, String)>,
    pub arrived: Instant,
}

impl Recorded {
    /// The first value of a query or form parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().chain(&self.form).find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// The running server. Stops when dropped.
pub struct ReplayServer {
    base: Url,
    state: Arc<Mutex<State>>,
    handle: ServerHandle,
}

#[derive(Debug, Default)]
struct State {
    routes: Vec<Route>,
    log: Vec<Recorded>,
}

#[derive(Debug)]
struct Route {
    path: String,
    params: Vec<(String, String)>,
    script: VecDeque<Reply>,
}

/// Registers a route: see [`ReplayServer::on`].
pub struct RouteBuilder<'a> {
    server: &'a ReplayServer,
    path: String,
    params: Vec<(String, String)>,
}

impl RouteBuilder<'_> {
    /// The route only matches requests carrying this query or form parameter.
    pub fn param(mut self, name: &str, value: &str) -> Self {
        self.params.push((name.into(), value.into()));
        self
    }

    /// Always answers `reply`.
    pub fn reply(self, reply: Reply) {
        self.script(vec![reply]);
    }

    /// Answers the replies in order, repeating the last one.
    pub fn script(self, replies: Vec<Reply>) {
        assert!(!replies.is_empty(), "a script needs a reply");
        let route = Route { path: self.path, params: self.params, script: replies.into() };
        self.server.state().routes.push(route);
    }
}

impl ReplayServer {
    /// Starts a server on a free loopback port, inside the running actix system.
    pub async fn start() -> ReplayServer {
        let state = Arc::new(Mutex::new(State::default()));
        let shared = web::Data::from(Arc::clone(&state));
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let address = listener.local_addr().expect("the bound address");
        // One worker: handlers are async (a hung reply sleeps without blocking others), and a
        // single worker is ready once it has answered the readiness probe below.
        let server = HttpServer::new(move || {
            App::new().app_data(shared.clone()).route(READY_PATH, web::get().to(HttpResponse::NoContent)).default_service(web::to(answer))
        })
        .workers(1)
        .disable_signals()
        .shutdown_timeout(0)
        .listen(listener)
        .expect("listening")
        .run();
        let handle = server.handle();
        actix_rt::spawn(server);
        let base = Url::parse(&format!("http://{address}/")).expect("base URL");
        // The worker starts on its own thread; until it runs, the first request would wait in
        // the accept queue and arrive late, which would distort the timing of the first request.
        let probe = reqwest::get(base.join(READY_PATH.trim_start_matches('/')).expect("probe URL")).await.expect("the replay server starts");
        assert!(probe.status().is_success(), "readiness probe answered {}", probe.status());
        ReplayServer { base, state, handle }
    }

    /// `http://127.0.0.1:<port>/<path>`.
    pub fn url(&self, path: &str) -> Url {
        self.base.join(path.trim_start_matches('/')).expect("a URL on the server")
    }

    /// Starts registering a route for `path` (e.g. `/entrez/eutils/esearch.fcgi`).
    pub fn on(&self, path: &str) -> RouteBuilder<'_> {
        RouteBuilder { server: self, path: path.into(), params: Vec::new() }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state().log.clone()
    }

    /// The requests to one path, in arrival order.
    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.state().log.iter().filter(|request| request.path == path).cloned().collect()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        engine::sync::lock(&self.state)
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        // `stop` sends the command at once; its future only waits for completion.
        drop(self.handle.stop(false));
    }
}

/// How much closer than the client's pacing interval two arrivals may be. The pacer spaces the
/// instants at which it lets requests start (checked exactly, on a paused clock, in the
/// `pacing` unit tests); between that instant and the arrival here lie the client's connection
/// setup and any descheduling of the test threads, which on a loaded machine shift one arrival
/// by up to ~10 ms against the next. Unpaced requests arrive within a few milliseconds of each
/// other, so the check still tells pacing from none.
pub const ARRIVAL_SLACK: Duration = Duration::from_millis(25);

/// Asserts that no two of `requests` arrived closer than `interval` (less [`ARRIVAL_SLACK`]).
pub fn assert_paced(requests: &[Recorded], interval: Duration) {
    for gap in arrival_gaps(requests) {
        assert!(gap + ARRIVAL_SLACK >= interval, "two requests arrived {gap:?} apart; the pace is {interval:?}");
    }
}

/// The gaps between consecutive arrivals, in order.
pub fn arrival_gaps(requests: &[Recorded]) -> Vec<Duration> {
    let mut arrivals: Vec<Instant> = requests.iter().map(|request| request.arrived).collect();
    arrivals.sort();
    arrivals.windows(2).map(|pair| pair[1] - pair[0]).collect()
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/fixtures")
}

async fn answer(request: HttpRequest, body: web::Bytes, state: web::Data<Mutex<State>>) -> HttpResponse {
    let arrived = Instant::now();
    let decode = |text: &[u8]| -> Vec<(String, String)> { url::form_urlencoded::parse(text).into_owned().collect() };
    let is_form = request
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
    let recorded = Recorded {
        method: request.method().to_string(),
        path: request.path().to_owned(),
        query: decode(request.query_string().as_bytes()),
        form: if is_form { decode(&body) } else { Vec::new() },
        arrived,
    };
    let reply = {
        let mut state = engine::sync::lock(&state);
        let reply = next_reply(&mut state.routes, &recorded);
        state.log.push(recorded.clone());
        reply
    };
    let Some(reply) = reply else {
        let message = format!("replay server: no route for {} {} {:?}", recorded.method, recorded.path, recorded.query);
        return HttpResponse::build(StatusCode::IM_A_TEAPOT).body(message);
    };
    if !reply.delay.is_zero() {
        actix_rt::time::sleep(reply.delay).await;
    }
    let mut response = HttpResponse::build(StatusCode::from_u16(reply.status).expect("a valid status"));
    for (name, value) in &reply.headers {
        response.insert_header((name.as_str(), value.as_str()));
    }
    response.body(reply.body)
}

/// The reply of the first route matching the request, advancing its script.
fn next_reply(routes: &mut [Route], request: &Recorded) -> Option<Reply> {
    let route = routes
        .iter_mut()
        .find(|route| route.path == request.path && route.params.iter().all(|(name, value)| request.param(name) == Some(value.as_str())))?;
    if route.script.len() > 1 {
        route.script.pop_front()
    } else {
        route.script.front().cloned()
    }
}
