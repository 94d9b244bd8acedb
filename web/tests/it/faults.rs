//! Faults of the machine and of the peers, against the real binary and real peers: the data
//! directory's disk full (a size-limited tmpfs mounted for the test, filled by a real file), the
//! SMTP server down then back (maildev behind a loopback relay that can refuse), Stripe down or
//! hung during a checkout (localstripe behind the same relay), and the LLM down during the
//! weekly pass.
//!
//! Mounting needs root, as the test command runs in CI; without it the disk tests fail saying so.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use engine::Tier;
use serde_json::json;
use testkit::server::Binary;
use testkit::wait;

use crate::common::relay::{Relay, RelayMode};
use crate::common::stripe::LocalStripe;
use crate::common::{decode_quoted_printable, free_port, link_in, signup_body, token_of, Answer, Client, Maildev, TestServer, PASSWORD};

/// A tmpfs of a few MiB mounted on a fresh folder: a real disk that really fills. Unmounted
/// when dropped.
struct SmallDisk {
    folder: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(size_mib: u64) -> SmallDisk {
        let folder = tempfile::tempdir().expect("a mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size_mib}m,mode=0700"), "papertide-test", &folder.path().display().to_string()])
            .output()
            .expect("mount runs");
        assert!(
            mounted.status.success(),
            "the disk-full tests mount a {size_mib} MiB tmpfs, which needs root (the test command runs as root in CI): {}",
            String::from_utf8_lossy(&mounted.stderr)
        );
        SmallDisk { folder }
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Writes a file until the disk refuses another byte; returns it, to remove later.
    fn fill(&self) -> PathBuf {
        let filler = self.path().join("filler");
        let mut file = std::fs::File::create(&filler).expect("the filler file");
        for chunk_bytes in [1 << 20, 4096, 1] {
            let chunk = vec![0u8; chunk_bytes];
            loop {
                match file.write_all(&chunk) {
                    Ok(()) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::StorageFull => break,
                    Err(error) => panic!("filling the disk: {error}"),
                }
            }
        }
        let _ = file.sync_all();
        let free = fs2::available_space(self.path()).expect("free space");
        assert_eq!(free, 0, "the disk is full");
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").args(["-l", &self.path().display().to_string()]).status();
    }
}

/// `papertide serve` on `data_dir` and `port`, with mail to the outbox and `env` besides.
fn serve(data_dir: &Path, port: u16, env: &[(&str, &str)]) -> Child {
    Binary::new(env!("CARGO_BIN_EXE_papertide"), data_dir, port)
        .env("PAPERTIDE_LOG", "warn")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .env("PAPERTIDE_RATE_LIMIT_LOGIN", "1000/1h")
        .env("PAPERTIDE_RATE_LIMIT_SIGNUP", "1000/1h")
        .envs(env.iter().copied())
        .spawn_serve(&["--public-url", &format!("http://127.0.0.1:{port}")])
        .expect("the papertide binary starts")
}

/// Waits until `/healthz` answers at all, and returns its answer.
async fn wait_until_up(client: &Client) -> Answer {
    let up = wait::until_async(Duration::from_secs(30), Duration::from_millis(50), || async {
        testkit::server::is_listening(client.base()).await.then_some(())
    });
    assert!(up.await.is_some(), "the server did not start");
    client.get("/healthz").await
}

/// Stops the service with SIGTERM and expects a clean exit.
fn stop(mut service: Child) {
    let terminated = Command::new("kill").args(["-TERM", &service.id().to_string()]).status().expect("kill runs");
    assert!(terminated.success());
    let status = service.wait().expect("exits");
    assert!(status.success(), "papertide exited with {status}");
}

/// Runs `papertide ARGS` on `data_dir` to completion.
fn papertide(data_dir: &Path, args: &[&str]) -> Output {
    crate::common::papertide(data_dir, args)
}

fn fixture(relative: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/fixtures").join(relative).display().to_string()
}

/// Waits for the newest outbox mail to `to` with `subject` and returns it decoded.
async fn outbox_mail(data_dir: &Path, to: &str, subject: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(data_dir.join("outbox"))
            .map(|entries| entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect())
            .unwrap_or_default();
        paths.sort();
        let found = paths
            .iter()
            .rev()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .map(|raw| decode_quoted_printable(&raw))
            .find(|mail| mail.contains(&format!("To: {to}\r\n")) && mail.contains(&format!("Subject: {subject}")));
        if let Some(mail) = found {
            return mail;
        }
        assert!(Instant::now() < deadline, "no mail {subject:?} to {to} in the outbox");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Signs `email` up and verifies it through the mailed link, leaving `client` signed in.
async fn verified_user(client: &Client, data_dir: &Path, email: &str) {
    let answer = client.post("/api/signup", signup_body(email, PASSWORD)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let mail = outbox_mail(data_dir, email, "Verify your email").await;
    let link = link_in(&mail, "/verify-email?token=");
    let verified = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
}

fn assert_disk_full(answer: &Answer, what: &str) {
    assert_eq!(answer.status, 503, "{what}: {}", answer.body);
    assert_eq!(answer.body["code"], "disk_full", "{what}: {}", answer.body);
    assert!(answer.message().contains("disk is full") && answer.message().contains("Nothing was changed"), "{what}: {}", answer.body);
}

async fn login(client: &Client, email: &str) -> Answer {
    client.post("/api/auth/login", json!({ "email": email, "password": PASSWORD })).await
}

#[actix_web::test]
async fn a_full_disk_refuses_writes_clearly_keeps_reads_and_the_service_recovers_when_space_returns() {
    let disk = SmallDisk::mount(48);
    let data_dir = disk.path().join("data");
    let imported = papertide(&data_dir, &["import", &fixture("pubmed/efetch_batch_20_articles.xml")]);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let port = free_port();
    let client = Client::new(&format!("http://127.0.0.1:{port}"));
    let service = serve(&data_dir, port, &[("PAPERTIDE_MIN_FREE_DISK_MB", "8")]);
    let health = wait_until_up(&client).await;
    assert_eq!(health.status, 200, "{}", health.body);
    assert_eq!(health.body["disk"]["writable"], true, "{}", health.body);
    assert_eq!(health.body["disk"]["reserveBytes"], 8 << 20, "{}", health.body);

    // Ada's account, term and preferences, written before the disk fills.
    verified_user(&client, &data_dir, "ada@example.org").await;
    let me = client.get("/api/auth/me").await.body;
    let ada_id = me["user"]["id"].as_str().expect("an id").to_owned();
    let searched = client.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "phthalate liver" })).await;
    assert_eq!(searched.status, 200, "{}", searched.body);
    let terms = client.get(&format!("/api/users/{ada_id}/search-terms")).await.body;
    let term_id = terms[0]["id"].as_str().expect("the term's id").to_owned();
    let preferences = format!("/api/users/{ada_id}/preferences");
    assert_eq!(client.patch(&preferences, json!({ "weeklyDigest": false })).await.status, 200);

    let filler = disk.fill();
    let health = client.get("/healthz").await;
    assert_eq!(health.status, 503, "{}", health.body);
    assert_eq!(health.body["status"], "disk_full", "{}", health.body);
    assert_eq!((health.body["disk"]["writable"].as_bool(), health.body["disk"]["availableBytes"].as_u64()), (Some(false), Some(0)));
    let metrics = client.get("/metrics").await;
    assert!(metrics.body.as_str().is_some_and(|text| text.contains("papertide_disk_writable 0\n")), "{}", metrics.body);

    // Every write is refused clearly, and reads go on.
    let bob = Client::new(client.base());
    assert_disk_full(&bob.post("/api/signup", signup_body("bob@example.org", PASSWORD)).await, "a signup");
    assert_disk_full(&client.patch(&format!("/api/search-terms/{term_id}"), json!({ "term": "prime editing" })).await, "a rename");
    assert_disk_full(&client.patch(&preferences, json!({ "weeklyDigest": true })).await, "a preference");
    let searched = client.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "liver toxicity" })).await;
    assert_disk_full(&searched, "an immediate search");
    assert_disk_full(&login(&Client::new(client.base()), "ada@example.org").await, "a sign-in (it writes a session)");
    assert_eq!(client.get("/api/auth/me").await.body["user"]["email"], "ada@example.org");
    let terms = client.get(&format!("/api/users/{ada_id}/search-terms")).await;
    assert_eq!(terms.status, 200, "{}", terms.body);
    assert_eq!(terms.body.as_array().map(Vec::len), Some(1), "{}", terms.body);
    assert_eq!(terms.body[0]["term"], "phthalate liver", "{}", terms.body);
    assert_eq!(client.get(&preferences).await.body["weeklyDigest"], false);

    // Space returns: the same writes go through, without a restart.
    std::fs::remove_file(&filler).expect("the filler goes");
    let health = client.get("/healthz").await;
    assert_eq!((health.status, health.body["status"].as_str()), (200, Some("ok")), "{}", health.body);
    assert_eq!(bob.post("/api/signup", signup_body("bob@example.org", PASSWORD)).await.status, 201);
    let renamed = client.patch(&format!("/api/search-terms/{term_id}"), json!({ "term": "prime editing" })).await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(login(&Client::new(client.base()), "ada@example.org").await.status, 200);
    outbox_mail(&data_dir, "bob@example.org", "Verify your email").await;
    stop(service);

    // An import on the full disk fails saying the disk is full (a regression: it said only that a
    // writer thread failed), and leaves the index as it was.
    let filler = disk.fill();
    let refused = papertide(&data_dir, &["import", &fixture("arxiv/api_query_testing_start0_max100.xml")]);
    assert!(!refused.status.success(), "an import on a full disk succeeded");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("is full (0 bytes free): nothing of this import was committed"), "{stderr}");
    std::fs::remove_file(&filler).expect("the filler goes");
    let imported = papertide(&data_dir, &["import", &fixture("arxiv/api_query_testing_start0_max100.xml")]);
    let stdout = String::from_utf8_lossy(&imported.stdout);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    assert!(stdout.trim_end().ends_with("120 papers in the index"), "{stdout}");

    // After a restart everything written before, during and after the fault is there.
    let service = serve(&data_dir, port, &[("PAPERTIDE_MIN_FREE_DISK_MB", "8")]);
    let health = wait_until_up(&client).await;
    assert_eq!(health.status, 200, "{}", health.body);
    assert_eq!(health.body["index"]["papers"], 120, "{}", health.body);
    let ada = Client::new(client.base());
    assert_eq!(login(&ada, "ada@example.org").await.status, 200);
    let terms = ada.get(&format!("/api/users/{ada_id}/search-terms")).await.body;
    assert_eq!(terms[0]["term"], "prime editing", "{terms}");
    assert_eq!(ada.get(&preferences).await.body["weeklyDigest"], false);
    let bob_login = login(&Client::new(client.base()), "bob@example.org").await;
    assert_eq!(bob_login.status, 403, "Bob's account, made once space returned, waits for its verification: {}", bob_login.body);
    let digests = ada.get(&format!("/api/users/{ada_id}/digests")).await;
    assert_eq!(digests.body.as_array().map(Vec::len), Some(1), "{}", digests.body);
    stop(service);
}

fn address_of(url: &str) -> std::net::SocketAddr {
    let url = url::Url::parse(url).expect("a URL");
    let port = url.port_or_known_default().expect("a port");
    std::net::SocketAddr::from(([127, 0, 0, 1], port))
}

#[actix_web::test]
async fn mail_waits_while_the_smtp_server_is_down_and_each_goes_out_once_when_it_is_back() {
    let maildev = Maildev::start().await;
    let relay = Relay::start(address_of(&maildev.smtp_url()), RelayMode::Drop);
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(format!("smtp://127.0.0.1:{}", relay.port()))).await;
    let emails = ["ada@example.org", "bob@example.org", "carol@example.org"];
    for email in emails {
        assert_eq!(server.client().post("/api/signup", signup_body(email, PASSWORD)).await.status, 201);
    }

    // Every mail was tried, kept and deferred; none was given up.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.state.store.mail().queued().expect("queue").iter().all(|mail| mail.attempts >= 1) {
        assert!(Instant::now() < deadline, "the mailer never tried");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.state.store.mail().queue_len(), 3);
    assert_eq!(server.state.store.mail().dead_len(), 0);
    assert!(maildev.emails().await.is_empty());

    // Back: each mail arrives at its retry, once.
    relay.set(RelayMode::Forward);
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.state.store.mail().queue_len() > 0 {
        assert!(Instant::now() < deadline, "the deferred mail was not sent once the server was back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Two more polls of the mailer: nothing goes again.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let mails = maildev.emails().await;
    let mut recipients: Vec<String> = mails.iter().filter_map(|mail| mail["to"][0]["address"].as_str().map(str::to_owned)).collect();
    recipients.sort();
    assert_eq!(recipients, ["ada@example.org", "bob@example.org", "carol@example.org"], "each mail once: {mails:?}");
    let mut message_ids: Vec<&str> = mails.iter().filter_map(|mail| mail["headers"]["message-id"].as_str()).collect();
    message_ids.sort();
    message_ids.dedup();
    assert_eq!(message_ids.len(), 3, "three distinct Message-IDs");
    assert_eq!(server.state.store.mail().dead_len(), 0);
}

const WEBHOOK_SECRET: &str = "whsec_papertide_test";

/// A server with billing on, its Stripe reached through `relay`.
async fn billing_through(stripe: &LocalStripe, relay: &Relay) -> TestServer {
    let api_url = format!("http://127.0.0.1:{}", relay.port());
    TestServer::start_with(|serve| {
        serve.stripe = web::config::StripeArgs {
            stripe_secret_key: Some(stripe.secret_key().to_owned()),
            stripe_publishable_key: Some(stripe.publishable_key().to_owned()),
            stripe_webhook_secret: Some(WEBHOOK_SECRET.to_owned()),
            stripe_api_url: Some(api_url),
            stripe_js_url: Some(stripe.js_url()),
            stripe_price_pro: Some(stripe.plan_pro().to_owned()),
            stripe_price_team: Some(stripe.plan_team().to_owned()),
        };
    })
    .await
}

fn assert_payment_unavailable(answer: &Answer, what: &str) {
    assert_eq!((answer.status, answer.body["code"].as_str()), (503, Some("payment_service_unavailable")), "{what}: {}", answer.body);
    assert!(answer.message().contains("Nothing was charged"), "{what}: {}", answer.body);
}

#[actix_web::test]
async fn stripe_down_or_hung_during_a_checkout_gives_a_clear_message_and_leaves_nothing_half_done() {
    let stripe = LocalStripe::start().await;
    let relay = Relay::start(address_of(&stripe.api_url()), RelayMode::Drop);
    let server = billing_through(&stripe, &relay).await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let ada_record = || server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada");

    // Down before anything: no customer is recorded.
    assert_payment_unavailable(&ada.post("/api/create-subscription", json!({ "tier": "pro" })).await, "step 1");
    assert_payment_unavailable(&ada.post("/api/create-checkout-session", json!({ "tier": "pro" })).await, "checkout");
    assert_eq!(ada_record().stripe_customer_id, None);

    // Up for the card setup, down for the subscription: the plan stays, nothing is tracked.
    relay.set(RelayMode::Forward);
    let setup = ada.post("/api/create-subscription", json!({ "tier": "pro" })).await;
    assert_eq!((setup.status, setup.body["step"].as_str()), (200, Some("setup")), "{}", setup.body);
    let secret = setup.body["clientSecret"].as_str().expect("a SetupIntent secret").to_owned();
    stripe.confirm_setup_intent(&secret, "4242424242424242").await.expect("the card is set up");
    let setup_intent_id = secret.split("_secret_").next().unwrap_or_default().to_owned();
    relay.set(RelayMode::Drop);
    let step_two = json!({ "tier": "pro", "setupIntentId": setup_intent_id });
    assert_payment_unavailable(&ada.post("/api/create-subscription", step_two.clone()).await, "step 2");
    let user = ada_record();
    assert_eq!((user.subscription_tier, user.stripe_subscription_id.as_deref()), (Tier::Free, None));
    assert!(server.state.store.billing().subscription_trackings(user.id).expect("db").is_empty());
    let customer = user.stripe_customer_id.clone().expect("the customer made in step 1");
    let subscriptions = stripe.get(&format!("/v1/subscriptions?customer={customer}")).await;
    assert_eq!(subscriptions["data"].as_array().map(Vec::len), Some(0), "no subscription at Stripe: {subscriptions}");

    // A Stripe that accepts the connection and never answers is given up on with the same message.
    relay.set(RelayMode::Hang);
    assert_payment_unavailable(&ada.post("/api/create-subscription", step_two.clone()).await, "step 2, hung");
    assert_eq!(ada_record().subscription_tier, Tier::Free);

    // Back: the same step goes through.
    relay.set(RelayMode::Forward);
    let paid = ada.post("/api/create-subscription", step_two).await;
    assert_eq!((paid.status, paid.body["step"].as_str()), (200, Some("subscription")), "{}", paid.body);
    assert_eq!(ada_record().subscription_tier, Tier::Pro);
}

#[actix_web::test]
async fn with_the_llm_hung_weekly_digests_still_go_out_summarized_locally() {
    use chrono::{Duration as Days, TimeZone, Utc};

    let hung = Relay::start(address_of("http://127.0.0.1:9"), RelayMode::Hang);
    let url = format!("http://127.0.0.1:{}/v1", hung.port());
    let server = TestServer::start_with(|serve| {
        serve.llm.llm_url = Some(url);
        serve.llm.llm_model = Some("standard-model".into());
        serve.llm.llm_timeout_secs = Some(1);
    })
    .await;
    server.index_recorded_papers().await;
    let today = Utc::now().date_naive() + Days::days(7);
    let emails = ["ada@example.org", "bob@example.org", "carol@example.org"];
    for email in emails {
        let client = server.client();
        server.verified_user(&client, email).await;
        server.state.store.accounts().update_user_by_email(email, |user| user.subscription_tier = Tier::Pro).expect("pro");
        let id = client.get("/api/auth/me").await.body["user"]["id"].as_str().expect("an id").to_owned();
        let day = engine::digest::weekday_of(today).as_str();
        assert_eq!(client.patch(&format!("/api/users/{id}/preferences"), json!({ "deliveryDay": day })).await.status, 200);
        let searched = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": "cancer cells" })).await;
        assert_eq!(searched.status, 200, "{}", searched.body);
    }

    let late_today = Utc.from_utc_datetime(&today.and_hms_opt(23, 0, 0).expect("a time"));
    let served = actors::scheduler::serve_due_users(&server.state.store, &server.state.users, late_today, 8).await.expect("a pass");
    assert_eq!(served, 3, "every weekly digest went out");
    for email in emails {
        let digest = server.latest_digest_of(email);
        assert_eq!(digest.digest_type, engine::digest::DigestKind::Weekly, "{email}");
        let immediate = server
            .state
            .store
            .digests()
            .of_user(digest.user_id)
            .expect("db")
            .into_iter()
            .find(|digest| digest.digest_type == engine::digest::DigestKind::Immediate);
        let immediate = immediate.expect("the immediate digest");
        assert!(!immediate.papers_data.is_empty(), "{email}: the immediate digest had papers");
        assert!(!immediate.ai_summary.is_empty() && !immediate.ai_summary.contains("standard-model"), "{email}: {}", immediate.ai_summary);
    }
    server.wait_for_empty_queue().await;
    let health = server.client().get("/healthz").await.body;
    assert_eq!(health["llm"]["fallingBack"], true, "{health}");
    assert!(health["llm"]["skipped"].as_u64().is_some_and(|skipped| skipped >= 1), "the breaker spared the other calls a timeout each: {health}");
}
