//! Floods an anonymous caller or a signed-in user can send: password resets with made-up tokens,
//! sign-in storms from many addresses, immediate searches and digest re-sends. Each is limited,
//! costs no password hash unless it could succeed, and leaves real users served.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::common::{free_port, signup_body, Client, TestServer, PASSWORD};

fn reset_body(token: &str) -> Value {
    json!({ "token": token, "password": "New-secret-456!", "confirmPassword": "New-secret-456!" })
}

fn made_up_token(number: usize) -> String {
    format!("{number:064x}")
}

#[actix_web::test]
async fn a_reset_flood_from_one_address_is_limited_and_hashes_nothing() {
    let server = TestServer::start_with(|serve| serve.rate_limit_reset_password = Some("5/1h".into())).await;
    let client = server.client();
    let mut statuses = Vec::new();
    for number in 0..8 {
        let answer = client.post("/api/reset-password", reset_body(&made_up_token(number))).await;
        if answer.status == 429 {
            assert!(answer.header("retry-after").is_some_and(|seconds| seconds.parse::<u64>().is_ok()), "{:?}", answer.headers);
            assert!(answer.message().starts_with("Too many attempts"), "{}", answer.body);
        } else {
            assert_eq!(answer.body["code"], "invalid_token", "{}", answer.body);
        }
        statuses.push(answer.status);
    }
    assert_eq!(statuses, [400, 400, 400, 400, 400, 429, 429, 429]);
    assert_eq!(server.state.hasher.stats().completed, 0, "a made-up token cost a password hash");
}

#[actix_web::test]
async fn a_reset_flood_from_many_addresses_hashes_nothing_and_sign_in_still_answers() {
    let server = TestServer::start_with(|serve| {
        serve.trust_proxy = Some(true);
        serve.rate_limit_reset_password = Some("5/1h".into());
    })
    .await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let hashes_before = server.state.hasher.stats().completed;

    let flood = (0..200).map(|number| {
        let client = server.client();
        async move {
            let forwarded = format!("198.51.{}.{}", number / 250, number % 250);
            let body = reset_body(&made_up_token(number)).to_string();
            let headers = [("content-type", "application/json"), ("x-forwarded-for", forwarded.as_str())];
            client.post_raw("/api/reset-password", &headers, body).await.status
        }
    });
    let sign_in = async { server.client().post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await.status };
    let (statuses, sign_in_status) = futures_util::join!(join_all(flood), sign_in);
    assert!(statuses.iter().all(|status| *status == 400), "{statuses:?}");
    assert_eq!(sign_in_status, 200, "a real user's sign-in during the flood");
    let hashes = server.state.hasher.stats().completed - hashes_before;
    assert_eq!(hashes, 1, "only the real sign-in was hashed");
}

#[actix_web::test]
async fn a_sign_in_storm_runs_at_most_one_hash_per_worker_and_refuses_the_rest_with_503() {
    let server = TestServer::start_with(|serve| serve.trust_proxy = Some(true)).await;
    let workers = server.state.hasher.stats().workers;
    let storm = (0..96).map(|number| {
        let client = server.client();
        async move {
            let forwarded = format!("203.0.{}.{}", number / 250, number % 250);
            let body = json!({ "email": format!("nobody{number}@example.org"), "password": "Wrong-123" }).to_string();
            let headers = [("content-type", "application/json"), ("x-forwarded-for", forwarded.as_str())];
            client.post_raw("/api/auth/login", &headers, body).await
        }
    });
    let answers = join_all(storm).await;
    for answer in &answers {
        match answer.status {
            401 => assert_eq!(answer.message(), "Invalid email or password"),
            503 => {
                assert_eq!(answer.header("retry-after"), Some("1"));
                assert_eq!(answer.body["code"], "busy", "{}", answer.body);
            }
            other => panic!("unexpected {other}: {}", answer.body),
        }
    }
    let stats = server.state.hasher.stats();
    assert!(stats.peak_running <= workers, "{} hashes ran at once on {workers} workers", stats.peak_running);
    let refused = answers.iter().filter(|answer| answer.status == 503).count() as u64;
    assert_eq!(stats.refused_busy, refused);
    assert_eq!(stats.completed + refused, 96);
}

#[actix_web::test]
async fn immediate_searches_and_resends_are_limited_per_user() {
    let server = TestServer::start_with(|serve| {
        serve.rate_limit_immediate_search = Some("2/1h".into());
        serve.rate_limit_resend_email = Some("2/1h".into());
    })
    .await;
    let (ada, bob) = (server.client(), server.client());
    server.verified_user(&ada, "ada@example.org").await;
    server.verified_user(&bob, "bob@example.org").await;
    let search = |email: &str| json!({ "email": email, "searchTerm": "malaria vaccine" });

    // The same topic again is refused (she follows it), and counts all the same.
    for expected in [200, 409] {
        assert_eq!(ada.post("/api/immediate-search", search("ada@example.org")).await.status, expected);
    }
    let digests_before = server.state.store.digests().of_user(user_id(&server, "ada@example.org")).expect("digests").len();
    let limited = ada.post("/api/immediate-search", search("ada@example.org")).await;
    assert_eq!(limited.status, 429, "{}", limited.body);
    assert!(limited.header("retry-after").is_some());
    let digests_after = server.state.store.digests().of_user(user_id(&server, "ada@example.org")).expect("digests").len();
    assert_eq!(digests_after, digests_before, "a limited search built a digest");
    assert_eq!(bob.post("/api/immediate-search", search("bob@example.org")).await.status, 200, "bob has his own allowance");

    server.wait_for_empty_queue().await;
    let mails_before = server.outbox().len();
    for _ in 0..2 {
        let resent = ada.post("/api/resend-email", json!({ "searchTerm": "malaria vaccine" })).await;
        assert_eq!(resent.status, 200, "{}", resent.body);
    }
    let limited = ada.post("/api/resend-email", json!({ "searchTerm": "malaria vaccine" })).await;
    assert_eq!(limited.status, 429, "{}", limited.body);
    server.wait_for_empty_queue().await;
    assert_eq!(server.outbox().len(), mails_before + 2, "exactly two re-sent mails");
}

fn user_id(server: &TestServer, email: &str) -> engine::UserId {
    server.state.store.accounts().user_by_email(email).expect("store").expect("user").id
}

#[actix_web::test]
async fn the_research_field_refuses_control_bidi_and_markup_and_writes_nothing() {
    let server = TestServer::start().await;
    let client = server.client();
    for field in ["bio\u{0}logy", "biology\r\nBcc: victim@example.org", "ygoloib\u{202E}", "<img src=x onerror=alert(1)>"] {
        let body = json!({ "email": "ada@example.org", "password": PASSWORD, "researchField": field });
        let answer = client.post("/api/auth/signup", body).await;
        assert_eq!(answer.status, 400, "{field:?}: {}", answer.body);
        assert_eq!(answer.body["errors"][0]["field"], "researchField", "{}", answer.body);
        assert!(answer.message().starts_with("Research field contains unsupported characters"), "{}", answer.body);
    }
    assert_eq!(server.state.store.accounts().user_count(), 0);
    let plain = json!({ "email": "ada@example.org", "password": PASSWORD, "researchField": "Cell & molecular biology" });
    assert_eq!(client.post("/api/auth/signup", plain).await.status, 201);
}

/// The real binary's resident memory, in KiB.
fn resident_kib(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).expect("the server's /proc status");
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).expect("a number of KiB")
}

#[actix_web::test]
async fn memory_stays_bounded_under_a_hashing_flood() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let port = free_port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_papertide"))
        .args(["--data-dir", &data_dir.path().display().to_string(), "serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("PAPERTIDE_LOG", "warn")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .env("PAPERTIDE_TRUST_PROXY", "true")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the papertide binary starts");
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !reqwest::get(format!("{base}/healthz")).await.is_ok_and(|response| response.status().is_success()) {
        assert!(Instant::now() < deadline, "the server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let client = Client::new(&base);
    assert_eq!(client.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await.status, 201);
    let baseline_kib = resident_kib(&server);
    let metrics = client.get("/metrics").await.body.as_str().map(str::to_owned).unwrap_or_default();
    let workers: u64 = metrics
        .lines()
        .find_map(|line| line.strip_prefix("papertide_password_hash_workers "))
        .and_then(|count| count.parse().ok())
        .expect("the hashing threads in /metrics");

    // 32 connections, each signing in again and again as a new address (every attempt hashes).
    let flood_until = Instant::now() + Duration::from_secs(4);
    let connections = (0..32).map(|connection| {
        let base = base.clone();
        async move {
            let http = reqwest::Client::new();
            let mut attempt = 0;
            while Instant::now() < flood_until {
                let body = json!({ "email": "ada@example.org", "password": "Wrong-password-1" });
                let forwarded = format!("192.0.2.{connection}, 10.{}.{}.{}", attempt / 65536 % 256, attempt / 256 % 256, attempt % 256);
                let _ = http.post(format!("{base}/api/auth/login")).header("x-forwarded-for", forwarded).json(&body).send().await;
                attempt += 1;
            }
        }
    });
    join_all(connections).await;
    let after_kib = resident_kib(&server);
    let health = client.get("/healthz").await;
    server.kill().expect("SIGKILL");
    let _ = server.wait();
    assert_eq!(health.status, 200);
    // Each hashing thread holds 19 MiB; allow for them and 64 MiB of the flood's buffers, far
    // below what a hash per request held (gigabytes with 32 connections).
    let grown_mib = after_kib.saturating_sub(baseline_kib) / 1024;
    let allowed_mib = workers * 19 + 64;
    assert!(grown_mib < allowed_mib, "resident memory grew by {grown_mib} MiB ({baseline_kib} to {after_kib} KiB), over {allowed_mib}");
}
