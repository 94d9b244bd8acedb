//! The real binary, killed and restarted: nothing acknowledged is lost, no mail goes twice.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::json;
use testkit::server::{self, Binary};
use testkit::wait;

use crate::common::{free_port, link_in, signup_body, token_of, Client, Maildev, PASSWORD};

/// How long a start may take before the test fails.
const START_LIMIT: Duration = Duration::from_secs(30);

fn spawn_server(data_dir: &Path, port: u16, smtp_url: &str) -> Child {
    Binary::new(env!("CARGO_BIN_EXE_papertide"), data_dir, port)
        .env("PAPERTIDE_LOG", "warn")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .spawn_serve(&["--public-url", &format!("http://127.0.0.1:{port}"), "--smtp-url", smtp_url])
        .expect("the papertide binary starts")
}

async fn wait_for_empty_queue(client: &Client) {
    let drained = wait::until_async(Duration::from_secs(20), Duration::from_millis(50), || async {
        (client.get("/healthz").await.body["mail"]["queued"] == 0).then_some(())
    });
    assert!(drained.await.is_some(), "the mail queue did not drain after restart");
}

#[actix_web::test]
async fn a_sigkilled_server_keeps_the_account_and_sends_its_mail_once_after_restart() {
    let maildev = Maildev::start().await;
    let data_dir = tempfile::tempdir().expect("data directory");
    let port = free_port();
    let unreachable_smtp = format!("smtp://127.0.0.1:{}", free_port());
    let client = Client::new(&format!("http://127.0.0.1:{port}"));

    let mut first = spawn_server(data_dir.path(), port, &unreachable_smtp);
    server::wait_until_healthy(&mut first, client.base(), START_LIMIT).await.expect("the server becomes healthy");
    let answer = client.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await;
    assert_eq!(answer.status, 201);
    first.kill().expect("SIGKILL");
    first.wait().expect("reaped");

    let mut second = spawn_server(data_dir.path(), port, &maildev.smtp_url());
    server::wait_until_healthy(&mut second, client.base(), START_LIMIT).await.expect("the server becomes healthy");
    let mails = maildev.wait_for_emails(1).await;
    wait_for_empty_queue(&client).await;
    assert_eq!(maildev.emails().await.len(), 1, "the queued mail was sent twice");

    let login = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(login.status, 403, "the account or its password was lost: {}", login.body);
    let link = link_in(mails[0]["text"].as_str().expect("text"), "/verify-email?token=");
    let verified = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    assert_eq!(client.get("/api/auth/me").await.body["user"]["email"], "ada@example.org");
    maildev.wait_for_emails(2).await;
    second.kill().expect("stop");
    second.wait().expect("reaped");
}

#[actix_web::test]
async fn sigterm_stops_gracefully_and_flushes() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let port = free_port();
    let client = Client::new(&format!("http://127.0.0.1:{port}"));
    let outbox_url = ""; // empty: no SMTP, mail goes to the outbox
    let mut server = spawn_server(data_dir.path(), port, outbox_url);
    server::wait_until_healthy(&mut server, client.base(), START_LIMIT).await.expect("the server becomes healthy");
    assert_eq!(client.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await.status, 201);
    let terminated = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().expect("kill runs");
    assert!(terminated.success());
    let status = server.wait().expect("exits");
    assert!(status.success(), "papertide exited with {status}");

    let store = store::Store::open(&data_dir.path().join("db")).expect("the database reopens");
    assert!(store.accounts().user_by_email("ada@example.org").expect("readable").is_some());
    let outbox: Vec<_> = std::fs::read_dir(data_dir.path().join("outbox")).expect("outbox").collect();
    assert_eq!(outbox.len(), 1);
}

/// The crash loop of `papertide-bench crash` with a few kills (the long run is in the bench
/// harness, with its figures in bench/README.md). The seed is printed; a failure names it and
/// keeps the data directory, and `papertide-bench crash --seed S --kills N` repeats the run.
#[actix_web::test]
async fn a_few_sigkills_during_harvest_weekly_pass_mail_and_webhooks_lose_nothing_and_repeat_no_mail() {
    let seed = std::env::var("PAPERTIDE_TEST_CRASH_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64));
    let config = bench::crash::CrashConfig { binary: env!("CARGO_BIN_EXE_papertide").into(), kills: 4, seed, users: 4 };
    let mut progress = |line: &str| eprintln!("{line}");
    let report = bench::crash::run(&config, &mut progress).await.unwrap_or_else(|error| panic!("{error:#}"));
    assert_eq!(report.kills, 4, "{report:?}");
    assert_eq!(
        report.restarts,
        report.kills_by_point.iter().filter(|(point, _)| !matches!(point.as_str(), "harvest" | "weekly")).map(|(_, count)| count).sum::<usize>() + 1
    );
    assert_eq!(report.mails_repeated, 0, "{report:?}");
    assert!(report.users > 0 && report.mails_delivered > 0 && report.checks_passed > 0, "{report:?}");
}
