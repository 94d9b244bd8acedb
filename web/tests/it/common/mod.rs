//! The test server helper: the real application (`web::server::start`, so `create_app` and the
//! runtime's system: the actors and a sled database on disk) on a loopback port, and a
//! cookie-keeping HTTP client. The peers, the binary's launcher and the waits are the test kit's
//! (`testkit`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use actix_web::dev::ServerHandle;
use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use tempfile::TempDir;
use web::config::{resolve, CommonArgs, FileConfig, ServeArgs, SourceArgs};
use web::AppState;

use testkit::server::Binary;
use testkit::wait;
pub use testkit::{free_port, relay, replay, stripe, Maildev};

/// Passes the rule for new passwords: 8 characters or more, on no list of common passwords.
pub const PASSWORD: &str = "Secret-123";
/// The messages of the rule for new passwords that the length does not give.
pub const MSG_COMMON_PASSWORD: &str = "This password is on a list of common or leaked passwords that attackers try first; please choose another";
pub const MSG_PASSWORD_IS_EMAIL: &str =
    "This password is your email address or the name before its @, which attackers try first; please choose another";
pub const MSG_PASSWORD_SITE_NAME: &str = "This password is built on the name Papertide, which attackers try first; please choose another";
pub const GENEROUS_RATE: &str = "1000/1h";
/// The address every test server names as an operator (`admin_emails`).
pub const OPERATOR: &str = "operator@example.org";
/// A local address nothing listens on (the discard port), for the sources of servers that must
/// not reach one.
pub const NOWHERE: &str = "http://127.0.0.1:9";
/// How long the helpers wait for mail and queues, and how often they look.
const TEN_SECONDS: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);

pub struct TestServer {
    pub base: String,
    pub state: AppState,
    pub data_dir: TempDir,
    handle: ServerHandle,
    /// Stopped with the server, so no test's embedding outlives it.
    vectorizer_thread: Option<actors::VectorizerThread>,
}

impl TestServer {
    /// A server with the embedded defaults (mail to the outbox) and generous rate limits.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// A server whose options `configure` adjusts first.
    pub async fn start_with(configure: impl FnOnce(&mut ServeArgs)) -> TestServer {
        let data_dir = tempfile::tempdir().expect("temporary data directory");
        let port = free_port();
        let mut serve = ServeArgs {
            bind: Some(format!("127.0.0.1:{port}")),
            public_url: Some(format!("http://127.0.0.1:{port}")),
            rate_limit_login: Some(GENEROUS_RATE.into()),
            rate_limit_login_account: Some(GENEROUS_RATE.into()),
            rate_limit_signup: Some(GENEROUS_RATE.into()),
            rate_limit_forgot_password: Some(GENEROUS_RATE.into()),
            rate_limit_resend: Some(GENEROUS_RATE.into()),
            rate_limit_reset_password: Some(GENEROUS_RATE.into()),
            rate_limit_immediate_search: Some(GENEROUS_RATE.into()),
            rate_limit_resend_email: Some(GENEROUS_RATE.into()),
            rate_limit_recipient: Some(GENEROUS_RATE.into()),
            rate_limit_signup_global: Some(GENEROUS_RATE.into()),
            rate_limit_link_guesses: Some(GENEROUS_RATE.into()),
            // No test reaches the real sources; a test that harvests or searches live names its
            // replay server.
            harvest_sources: Some(vec!["none".into()]),
            live_search: Some(false),
            // Seed lookups too: a closed local port answers at once that nothing is there.
            sources: SourceArgs {
                pubmed_url: Some(format!("{NOWHERE}/entrez/eutils/")),
                arxiv_url: Some(format!("{NOWHERE}/api/query")),
                biorxiv_url: Some(format!("{NOWHERE}/")),
                ..SourceArgs::default()
            },
            admin_emails: Some(vec![OPERATOR.into()]),
            ..ServeArgs::default()
        };
        configure(&mut serve);
        let common = CommonArgs { config: None, data_dir: Some(data_dir.path().to_owned()) };
        let settings = resolve(FileConfig::default(), &common, &serve).expect("valid test settings");
        let started = web::server::start(settings, 1).expect("server starts");
        let handle = started.server.handle();
        actix_web::rt::spawn(started.server);
        TestServer {
            base: format!("http://{}", started.address),
            state: started.state,
            data_dir,
            handle,
            vectorizer_thread: started.system.vectorizer_thread,
        }
    }

    /// A server that embeds papers with the real model (all-MiniLM-L6-v2 from
    /// `PAPERTIDE_TEST_EMBED_MODEL_DIR`).
    pub async fn start_with_embedding_model() -> TestServer {
        let model_dir = std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model");
        // ONNX Runtime's library, where `papertide model fetch` put it beside the model: the
        // server runs the model as a fetched service does.
        let library = embed::package::runtime_library_beside(Path::new(&model_dir));
        TestServer::start_with(|serve| {
            serve.embed_model_dir = Some(PathBuf::from(&model_dir));
            serve.onnxruntime_library = library;
        })
        .await
    }

    pub fn client(&self) -> Client {
        Client::new(&self.base)
    }

    pub fn outbox_dir(&self) -> PathBuf {
        self.data_dir.path().join("outbox")
    }

    /// The outbox mails so far, oldest first, decoded to text.
    pub fn outbox(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.outbox_dir()) else {
            return Vec::new();
        };
        let mut names: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|extension| extension == "eml"))
            .collect();
        names.sort();
        names.iter().map(|path| decode_quoted_printable(&std::fs::read_to_string(path).expect("readable mail"))).collect()
    }

    /// Waits (at most 10 s) until the outbox holds `count` mails, and returns them.
    pub async fn wait_for_outbox(&self, count: usize) -> Vec<String> {
        let mut found = 0;
        let mails = wait::until(TEN_SECONDS, POLL, || {
            let mails = self.outbox();
            found = mails.len();
            (mails.len() >= count).then_some(mails)
        });
        mails.await.unwrap_or_else(|| panic!("expected {count} mails in the outbox, found {found}"))
    }

    /// Waits until the mail queue is empty (everything handed over).
    pub async fn wait_for_empty_queue(&self) {
        let drained = wait::until(TEN_SECONDS, POLL, || (self.state.store.mail().queue_len() == 0).then_some(())).await;
        assert!(drained.is_some(), "the mail queue did not drain");
    }

    /// Waits until the mailer's status reports at least `count` mails handed over (the status is
    /// written after each drain, a moment after the queue empties).
    pub async fn wait_for_mailer_processed(&self, count: u64) {
        let mut processed = 0;
        let reached = wait::until(TEN_SECONDS, POLL, || {
            processed = self.state.board.get("mailer").map_or(0, |status| status.processed_total);
            (processed >= count).then_some(())
        });
        assert!(reached.await.is_some(), "the mailer reported {processed} of {count} mails");
    }

    /// Signs up with the combined form and returns the verification link that was mailed.
    pub async fn sign_up(&self, client: &Client, email: &str) -> String {
        let answer = client.post("/api/signup", signup_body(email, PASSWORD)).await;
        assert_eq!(answer.status, 201, "signup failed: {}", answer.body);
        let verification = self.wait_for_mail_to(email, "Verify your email").await;
        link_in(&verification, "/verify-email?token=")
    }

    /// Waits (at most 10 s) for the newest outbox mail to `to` whose subject starts with
    /// `subject`, and returns it.
    pub async fn wait_for_mail_to(&self, to: &str, subject: &str) -> String {
        let (to_line, subject_line) = (format!("To: {to}\r\n"), format!("Subject: {subject}"));
        // A long subject is folded onto more lines: read unfolded (RFC 5322 §2.2.3).
        let found = wait::until(TEN_SECONDS, POLL, || {
            self.outbox().into_iter().rev().find(|mail| mail.contains(&to_line) && mail.replace("\r\n ", " ").contains(&subject_line))
        });
        found.await.unwrap_or_else(|| panic!("no mail {subject:?} to {to} in the outbox"))
    }

    /// Indexes the recorded PubMed batches (26 papers on phthalate toxicology and the liver) as
    /// if they had entered PubMed today; answers how many.
    pub async fn index_recorded_papers(&self) -> usize {
        const BATCH_20: &str = include_str!("../../../../engine/fixtures/pubmed/efetch_batch_20_articles.xml");
        const BATCH_6: &str = include_str!("../../../../engine/fixtures/pubmed/efetch_batch_6_articles.xml");
        let today = chrono::Utc::now().date_naive();
        let mut papers: Vec<engine::paper::Paper> = Vec::new();
        for batch in [BATCH_20, BATCH_6] {
            papers.extend(engine::parse::pubmed::parse_efetch(batch).items);
        }
        for paper in &mut papers {
            paper.entered = Some(today);
        }
        let count = papers.len();
        self.state.indexer.send(actors::Ingest(papers)).await.expect("indexer alive").expect("indexed");
        count
    }

    /// The newest digest of `email`, from the store.
    pub fn latest_digest_of(&self, email: &str) -> engine::digest::Digest {
        let user = self.state.store.accounts().user_by_email(email).expect("db").expect("user");
        self.state.store.digests().of_user(user.id).expect("db").into_iter().next().expect("a digest")
    }

    /// Records, as if mailed at `at`, copies of `template` (a digest with papers) for `email`
    /// until the user's free digests are used.
    pub fn use_up_free_digests(&self, email: &str, template: &engine::digest::Digest, at: chrono::DateTime<chrono::Utc>) {
        let store = &self.state.store;
        let user = store.accounts().user_by_email(email).expect("db").expect("user");
        assert!(!template.papers_data.is_empty(), "a digest with papers counts against the allowance");
        while store.digests().digest_history(&user).expect("db").free_with_papers < engine::digest::FREE_DIGESTS {
            let digest = engine::digest::Digest { id: uuid::Uuid::new_v4(), user_id: user.id, sent_at: at, ..template.clone() };
            let mail = store::DigestMail { to: user.email.clone(), subject: digest.subject.clone(), list_unsubscribe: None };
            store.record_digest(&digest, &mail, chrono::Utc::now()).expect("recorded");
        }
    }

    /// A browser signed in as the operator ([`OPERATOR`]).
    pub async fn operator(&self) -> Client {
        let client = self.client();
        self.verified_user(&client, OPERATOR).await;
        client
    }

    /// Signs up, verifies through the mailed link, and leaves `client` signed in.
    pub async fn verified_user(&self, client: &Client, email: &str) {
        let link = self.sign_up(client, email).await;
        let answer = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
        assert_eq!(answer.status, 200, "verification failed: {}", answer.body);
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
        if let Some(vectorizer_thread) = &self.vectorizer_thread {
            vectorizer_thread.stop();
        }
    }
}

/// Runs the real binary on `data_dir` with `args`, to completion.
pub fn papertide(data_dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_papertide"))
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .args(["--data-dir", &data_dir.display().to_string()])
        .args(args)
        .output()
        .expect("the papertide binary runs")
}

pub fn signup_body(email: &str, password: &str) -> Value {
    json!({
        "email": email,
        "researchField": "biology",
        "password": password,
        "confirmPassword": password,
        "agreeToTerms": true,
        "agreeToPrivacy": true,
    })
}

/// The standalone sign-up form's body (`POST /api/auth/signup`), which has no consent boxes.
pub fn standalone_signup_body(email: &str, password: &str) -> Value {
    json!({ "email": email, "researchField": "biology", "password": password, "confirmPassword": password })
}

/// An HTTP client with its own cookie jar: one browser.
pub struct Client {
    http: reqwest::Client,
    base: String,
}

/// A response: status, JSON body (or `Value::String` of the text), headers.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub headers: HeaderMap,
}

impl Answer {
    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

impl Client {
    pub fn new(base: &str) -> Client {
        // Idle connections are dropped before the server's keep-alive (5 s) ends them, so a request
        // after a long pause never goes out on a connection the server is closing.
        let http = reqwest::Client::builder().cookie_store(true).pool_idle_timeout(Duration::from_secs(2)).build().expect("http client");
        Client { http, base: base.to_owned() }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub async fn get(&self, path: &str) -> Answer {
        Self::answer(self.http.get(format!("{}{path}", self.base)).send().await).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        Self::answer(self.http.post(format!("{}{path}", self.base)).json(&body).send().await).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Answer {
        Self::answer(self.http.patch(format!("{}{path}", self.base)).json(&body).send().await).await
    }

    pub async fn delete(&self, path: &str) -> Answer {
        Self::answer(self.http.delete(format!("{}{path}", self.base)).send().await).await
    }

    /// Any method, with a JSON body or none.
    pub async fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Answer {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(body);
        }
        Self::answer(request.send().await).await
    }

    /// A POST with extra headers (origin checks) and a raw body.
    pub async fn post_raw(&self, path: &str, headers: &[(&str, &str)], body: String) -> Answer {
        let mut request = self.http.post(format!("{}{path}", self.base)).body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Self::answer(request.send().await).await
    }

    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = self.http.get(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Self::answer(request.send().await).await
    }

    async fn answer(response: reqwest::Result<reqwest::Response>) -> Answer {
        let response = response.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer { status, body, headers }
    }
}

/// The first link in `text` that contains `marker`.
pub fn link_in(text: &str, marker: &str) -> String {
    let at = text.find(marker).unwrap_or_else(|| panic!("no {marker} link in mail:\n{text}"));
    let start = text[..at].rfind("http").expect("link starts with http");
    let end = text[at..].find(|c: char| c.is_whitespace() || c == '"' || c == '<').map_or(text.len(), |offset| at + offset);
    text[start..end].to_owned()
}

pub fn token_of(link: &str) -> String {
    link.split("token=").nth(1).expect("link carries a token").to_owned()
}

/// Enough of RFC 2045 quoted-printable to read our own mails: soft breaks and `=XX` escapes.
pub fn decode_quoted_printable(raw: &str) -> String {
    let joined = raw.replace("=\r\n", "").replace("=\n", "");
    String::from_utf8_lossy(&engine::mail::decode_hex_escapes(&joined, b'=')).into_owned()
}

/// The real `papertide` binary serving on a loopback port of its own, with mail to its outbox;
/// killed when dropped.
pub struct BinaryServer {
    pub base: String,
    pub data_dir: TempDir,
    child: std::process::Child,
}

impl BinaryServer {
    /// Starts the binary with the embedded defaults but `env`, its log going to `stderr`, and
    /// waits until `/healthz` answers.
    pub async fn start(env: &[(&str, &str)], stderr: std::process::Stdio) -> BinaryServer {
        let data_dir = tempfile::tempdir().expect("temporary data directory");
        let port = free_port();
        let binary = Binary::isolated(env!("CARGO_BIN_EXE_papertide"), data_dir.path(), port)
            .env("PAPERTIDE_BIND", format!("127.0.0.1:{port}"))
            .envs(env.iter().copied());
        let mut command = binary.command(&["serve"]).expect("the command");
        let child = command.stderr(stderr).spawn().expect("papertide starts");
        let server = BinaryServer { base: binary.base_url(), data_dir, child };
        let listening = wait::until_async(Duration::from_secs(30), Duration::from_millis(50), || async {
            testkit::server::is_listening(&server.base).await.then_some(())
        });
        assert!(listening.await.is_some(), "nothing listens on {port}");
        server
    }

    pub fn client(&self) -> Client {
        Client::new(&self.base)
    }

    /// Waits (at most 10 s) until the outbox holds `count` mails to `to` with `subject`, and
    /// returns them oldest first.
    pub async fn wait_for_mails(&self, count: usize, to: &str, subject: &str) -> Vec<String> {
        let (to_line, subject_line) = (format!("To: {to}\r\n"), format!("Subject: {subject}"));
        let mut found = 0;
        let mails = wait::until(TEN_SECONDS, POLL, || {
            let mut names: Vec<PathBuf> = std::fs::read_dir(self.data_dir.path().join("outbox"))
                .map(|entries| entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect())
                .unwrap_or_default();
            // Whole mails only: one being written is a hidden `.partial` file until it is renamed.
            names.retain(|path| path.extension().is_some_and(|extension| extension == "eml"));
            // `STAMP-ID.eml`: in the order they were queued, the id compared as a number.
            names.sort_by_key(|path| {
                let name = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
                let (stamp, id) = name.rsplit_once('-').unwrap_or((name.as_str(), ""));
                (stamp.to_owned(), id.parse::<u64>().unwrap_or(0))
            });
            let mails: Vec<String> = names
                .iter()
                .filter_map(|path| std::fs::read_to_string(path).ok())
                .map(|raw| decode_quoted_printable(&raw))
                .filter(|mail| mail.contains(&to_line) && mail.contains(&subject_line))
                .collect();
            found = mails.len();
            (mails.len() >= count).then_some(mails)
        });
        mails.await.unwrap_or_else(|| panic!("expected {count} mails {subject:?} to {to}, found {found}"))
    }
}

impl Drop for BinaryServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
