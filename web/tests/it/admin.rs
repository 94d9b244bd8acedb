//! The operator console's API (`/api/admin/...`): who may call it (a verified operator, or the
//! local operator on the data directory's socket), what each route reads and changes, the
//! refusals that change nothing, and the command line's `users` commands reaching a running
//! `papertide serve` through its socket.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{Datelike, Utc};
use engine::paper::Source;
use engine::{Preferences, UserId};
use serde_json::{json, Value};
use store::{NewAccount, User};
use uuid::Uuid;

use crate::common::relay::{Relay, RelayMode};
use crate::common::replay::{ReplayServer, Reply};
use crate::common::{link_in, signup_body, token_of, Answer, Client, Maildev, TestServer, OPERATOR, PASSWORD};

/// A server with an operator (signed in, verified) and Bob (signed in, verified, no operator).
struct Console {
    server: TestServer,
    operator: Client,
    bob: Client,
    bob_id: String,
}

impl Console {
    async fn start() -> Console {
        Console::start_with(|_| {}).await
    }

    async fn start_with(configure: impl FnOnce(&mut web::config::ServeArgs)) -> Console {
        let server = TestServer::start_with(configure).await;
        let operator = server.operator().await;
        let bob = server.client();
        server.verified_user(&bob, "bob@example.org").await;
        let bob_id = user(&server, "bob@example.org").id.to_string();
        Console { server, operator, bob, bob_id }
    }
}

fn user(server: &TestServer, email: &str) -> User {
    server.state.store.accounts().user_by_email(email).expect("the database reads").expect("the account")
}

/// Accounts made in the store directly (no password hashing): `count` of them, unverified, free.
fn seed_accounts(server: &TestServer, prefix: &str, count: usize) {
    for number in 0..count {
        let user = User::new(UserId(Uuid::new_v4()), &format!("{prefix}{number:02}@lab.example.org"), "hash".into(), Utc::now());
        let account = NewAccount { user, preferences: Preferences::default(), verification: None, mail: None };
        server.state.store.accounts().create(account, Utc::now()).expect("an account");
    }
}

/// A request for each operator route, by its pattern; what an operator's call changes is
/// harmless (Bob stays free and no operator, no source is harvested, no mail exists).
fn request_for(path: &str, method: &str, bob_id: &str) -> (String, Option<Value>) {
    let path = path.replace("{user_id}", bob_id).replace("{source}", "pubmed").replace("{mail_id}", "12345");
    let body = match path.rsplit('/').next().unwrap_or_default() {
        "plan" => Some(json!({ "plan": "free" })),
        "operator" => Some(json!({ "operator": false })),
        "disabled" => Some(json!({ "disabled": false })),
        "backup" => Some(json!({ "dest": null })),
        _ if method == "POST" => Some(json!({})),
        _ => None,
    };
    (path, body)
}

fn admin_routes() -> Vec<(String, String)> {
    let table = web::app::api_route_table();
    let routes: Vec<(String, String)> = table
        .routes()
        .iter()
        .filter(|route| route.path.starts_with("/api/admin/"))
        .map(|route| (route.method.as_str().to_owned(), route.path.clone()))
        .collect();
    assert!(routes.len() >= 12, "the operator routes are registered: {routes:?}");
    routes
}

#[actix_web::test]
async fn operator_routes_refuse_everyone_but_a_verified_operator() {
    let console = Console::start_with(|serve| serve.admin_emails = Some(vec![OPERATOR.into(), "pending@example.org".into()])).await;
    let server = &console.server;
    // An account granted the flag whose address is not verified (any more), signed in.
    let carol = server.client();
    server.verified_user(&carol, "carol@example.org").await;
    let carol_id = user(server, "carol@example.org").id;
    server.state.store.accounts().update_user(carol_id, |user| (user.is_admin, user.is_email_verified) = (true, false)).expect("updated");
    // An address the settings name, signed up but not verified: it cannot even sign in.
    let pending = server.client();
    server.sign_up(&pending, "pending@example.org").await;
    let anonymous = server.client();

    let routes = admin_routes();
    server.wait_for_empty_queue().await;
    let before = server.state.store.raw_entries().expect("the database reads");
    for (method, pattern) in &routes {
        let (path, body) = request_for(pattern, method, &console.bob_id);
        let answer = anonymous.send(method, &path, body.as_ref()).await;
        assert_eq!((answer.status, answer.body["code"].as_str()), (401, Some("unauthorized")), "{method} {path} anonymous: {}", answer.body);
        let answer = console.bob.send(method, &path, body.as_ref()).await;
        assert_eq!((answer.status, answer.body["code"].as_str()), (403, Some("operator_only")), "{method} {path} as Bob: {}", answer.body);
        assert_eq!(answer.message(), "This page is for the service's operators.");
        let answer = carol.send(method, &path, body.as_ref()).await;
        assert_eq!(answer.status, 403, "{method} {path} as an unverified account with the flag: {}", answer.body);
        let answer = pending.send(method, &path, body.as_ref()).await;
        assert!([401, 403].contains(&answer.status), "{method} {path} as an unverified admin address: {}", answer.body);
    }
    let after = server.state.store.raw_entries().expect("the database reads");
    assert!(before == after, "the refusals wrote nothing");

    for (method, pattern) in &routes {
        // The delete of an account (Bob's) would end the calls after it.
        if method == "DELETE" && pattern == "/api/admin/users/{user_id}" {
            continue;
        }
        let (path, body) = request_for(pattern, method, &console.bob_id);
        let answer = console.operator.send(method, &path, body.as_ref()).await;
        assert!(![401, 403].contains(&answer.status), "{method} {path} as the operator: {} {}", answer.status, answer.body);
        assert!(answer.status < 500 || answer.body["code"] == "billing_disabled", "{method} {path}: {} {}", answer.status, answer.body);
    }
}

#[actix_web::test]
async fn accounts_are_found_by_email_plan_and_verification_a_page_at_a_time() {
    let console = Console::start().await;
    let server = &console.server;
    seed_accounts(server, "lab", 55);
    server.state.store.billing().set_plan(user(server, "lab07@lab.example.org").id, engine::Tier::Pro).expect("a plan");
    let get = |path: &'static str| console.operator.get(path);

    let first = get("/api/admin/users").await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!((first.body["total"].as_u64(), first.body["page"].as_u64(), first.body["pageSize"].as_u64()), (Some(57), Some(1), Some(50)));
    let users = first.body["users"].as_array().expect("users");
    assert_eq!(users.len(), 50);
    assert_eq!(users[0]["email"], OPERATOR, "oldest first");
    assert_eq!(
        (users[0]["operator"].as_bool(), users[0]["operatorByEmail"].as_bool(), users[0]["operatorGranted"].as_bool()),
        (Some(true), Some(true), Some(false))
    );
    let second = get("/api/admin/users?page=2").await;
    assert_eq!(second.body["users"].as_array().map(Vec::len), Some(7));
    assert_eq!(get("/api/admin/users?page=3").await.body["users"].as_array().map(Vec::len), Some(0));

    let lab = get("/api/admin/users?q=LAB0").await;
    assert_eq!(lab.body["total"], 10, "part of the email, in any case");
    let pro = get("/api/admin/users?plan=pro").await;
    assert_eq!(pro.body["total"], 1);
    assert_eq!(pro.body["users"][0]["email"], "lab07@lab.example.org");
    assert_eq!(pro.body["users"][0]["plan"], "pro");
    let verified = get("/api/admin/users?verified=true").await;
    let emails: Vec<&str> = verified.body["users"].as_array().expect("users").iter().filter_map(|user| user["email"].as_str()).collect();
    assert_eq!(emails, [OPERATOR, "bob@example.org"]);
    assert_eq!(get("/api/admin/users?verified=false&q=lab").await.body["total"], 55);

    for bad in ["/api/admin/users?plan=gold", "/api/admin/users?page=0", "/api/admin/users?verified=maybe", "/api/admin/users?page=x"] {
        let answer = get(bad).await;
        assert_eq!(answer.status, 400, "{bad}: {}", answer.body);
        assert!(answer.message().len() > 3, "{bad}: {}", answer.body);
    }
}

#[actix_web::test]
async fn a_plan_set_by_an_operator_fits_the_terms_and_bad_input_changes_nothing() {
    let console = Console::start().await;
    let server = &console.server;
    let bob = user(server, "bob@example.org");
    let plan_of = || user(server, "bob@example.org").subscription_tier;

    let answer = console.operator.post(&format!("/api/admin/users/{}/plan", console.bob_id), json!({ "plan": "team" })).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!((answer.body["email"].as_str(), answer.body["plan"].as_str()), (Some("bob@example.org"), Some("team")));
    assert_eq!(plan_of(), engine::Tier::Team);
    let me = console.bob.get("/api/auth/me").await;
    assert_eq!(me.body["user"]["subscriptionTier"], "team", "the user sees the plan at once");

    server.wait_for_empty_queue().await;
    let before = server.state.store.raw_entries().expect("the database reads");
    let refusals = [
        (format!("/api/admin/users/{}/plan", bob.id), json!({ "plan": "gold" }), 400),
        (format!("/api/admin/users/{}/plan", bob.id), json!({ "tier": "pro" }), 400),
        ("/api/admin/users/not-a-uuid/plan".to_owned(), json!({ "plan": "pro" }), 400),
        (format!("/api/admin/users/{}/plan", Uuid::new_v4()), json!({ "plan": "pro" }), 404),
        (format!("/api/admin/users/{}/operator", Uuid::new_v4()), json!({ "operator": true }), 404),
        (format!("/api/admin/users/{}/disabled", bob.id), json!({ "disabled": "yes" }), 400),
        ("/api/admin/users/12/resend-verification".to_owned(), json!({}), 400),
    ];
    for (path, body, status) in refusals {
        let answer = console.operator.post(&path, body.clone()).await;
        assert_eq!(answer.status, status, "{path} {body}: {}", answer.body);
        assert!(answer.message().len() > 3, "{path}: a message: {}", answer.body);
    }
    for (path, status) in [("/api/admin/sources/gopher/harvest", 404), ("/api/admin/sources/arxiv/harvest", 404)] {
        let answer = console.operator.post(path, json!({})).await;
        assert_eq!((answer.status, answer.body["code"].as_str()), (status, Some("not_found")), "{path}: {}", answer.body);
    }
    let after = server.state.store.raw_entries().expect("the database reads");
    assert!(before == after, "the refusals wrote nothing");
    assert_eq!(plan_of(), engine::Tier::Team);
}

#[actix_web::test]
async fn operators_are_granted_and_removed_but_not_oneself_nor_one_the_settings_name_who_is_neither_disabled_nor_deleted() {
    let console = Console::start().await;
    let server = &console.server;
    let operator_id = user(server, OPERATOR).id;
    let operator_path = |id: &str| format!("/api/admin/users/{id}/operator");

    assert_eq!(console.bob.get("/api/admin/stats").await.status, 403);
    let granted = console.operator.post(&operator_path(&console.bob_id), json!({ "operator": true })).await;
    assert_eq!(granted.status, 200, "{}", granted.body);
    assert_eq!((granted.body["operator"].as_bool(), granted.body["operatorGranted"].as_bool()), (Some(true), Some(true)));
    assert_eq!(console.bob.get("/api/admin/stats").await.status, 200, "Bob is an operator now");

    let by_settings = console.bob.post(&operator_path(&operator_id.to_string()), json!({ "operator": false })).await;
    assert_eq!((by_settings.status, by_settings.body["code"].as_str()), (409, Some("operator_by_settings")), "{}", by_settings.body);
    let herself = console.operator.post(&operator_path(&operator_id.to_string()), json!({ "operator": false })).await;
    assert_eq!((herself.status, herself.body["code"].as_str()), (409, Some("cannot_demote_self")), "{}", herself.body);
    let himself = console.bob.post(&operator_path(&console.bob_id), json!({ "operator": false })).await;
    assert_eq!((himself.status, himself.body["code"].as_str()), (409, Some("cannot_demote_self")), "{}", himself.body);
    assert!(user(server, "bob@example.org").is_admin, "a refusal changes nothing");

    let disable = console.bob.post(&format!("/api/admin/users/{operator_id}/disabled"), json!({ "disabled": true })).await;
    assert_eq!((disable.status, disable.body["code"].as_str()), (409, Some("operator_by_settings")), "{}", disable.body);
    let delete = console.bob.delete(&format!("/api/admin/users/{operator_id}")).await;
    assert_eq!((delete.status, delete.body["code"].as_str()), (409, Some("operator_by_settings")), "{}", delete.body);
    let named = user(server, OPERATOR);
    assert!(named.is_active, "the operator the settings name is untouched");
    assert_eq!(console.operator.get("/api/admin/stats").await.status, 200, "and still signed in");

    let removed = console.operator.post(&operator_path(&console.bob_id), json!({ "operator": false })).await;
    assert_eq!((removed.status, removed.body["operator"].as_bool()), (200, Some(false)), "{}", removed.body);
    assert_eq!(console.bob.get("/api/admin/stats").await.status, 403, "Bob is no operator any more");
}

#[actix_web::test]
async fn disabling_ends_the_users_sessions_and_sign_in_until_enabled() {
    let console = Console::start().await;
    let server = &console.server;
    let other_browser = server.client();
    let login = json!({ "email": "bob@example.org", "password": PASSWORD });
    assert_eq!(other_browser.post("/api/auth/login", login.clone()).await.status, 200);
    assert!(server.state.store.accounts().session_count(user(server, "bob@example.org").id) >= 2);

    let disabled_path = format!("/api/admin/users/{}/disabled", console.bob_id);
    let answer = console.operator.post(&disabled_path, json!({ "disabled": true })).await;
    assert_eq!((answer.status, answer.body["disabled"].as_bool()), (200, Some(true)), "{}", answer.body);
    assert_eq!(server.state.store.accounts().session_count(user(server, "bob@example.org").id), 0, "every session record is gone");
    for browser in [&console.bob, &other_browser] {
        assert_eq!(browser.get("/api/auth/me").await.status, 401, "signed out everywhere");
    }
    let refused = server.client().post("/api/auth/login", login.clone()).await;
    assert_eq!((refused.status, refused.body["code"].as_str()), (403, Some("account_deactivated")), "{}", refused.body);
    let stats = console.operator.get("/api/admin/stats").await;
    assert_eq!(stats.body["disabled"], 1, "{}", stats.body);

    let operator_id = user(server, OPERATOR).id;
    let herself = console.operator.post(&format!("/api/admin/users/{operator_id}/disabled"), json!({ "disabled": true })).await;
    assert_eq!((herself.status, herself.body["code"].as_str()), (409, Some("cannot_disable_self")), "{}", herself.body);
    assert!(user(server, OPERATOR).is_active);

    let enabled = console.operator.post(&disabled_path, json!({ "disabled": false })).await;
    assert_eq!((enabled.status, enabled.body["disabled"].as_bool()), (200, Some(false)), "{}", enabled.body);
    let again = server.client();
    assert_eq!(again.post("/api/auth/login", login).await.status, 200, "enabled: Bob signs in again");
    assert_eq!(again.get("/api/auth/me").await.status, 200);
}

#[actix_web::test]
async fn the_verification_mail_goes_again_past_the_owners_rate_limit() {
    let console = Console::start_with(|serve| {
        serve.rate_limit_resend = Some("1/1h".into());
        serve.rate_limit_recipient = Some("1/1h".into());
    })
    .await;
    let server = &console.server;
    let dan = server.client();
    let first_link = server.sign_up(&dan, "dan@example.org").await;
    let dan_id = user(server, "dan@example.org").id;
    let path = format!("/api/admin/users/{dan_id}/resend-verification");
    let mut links = vec![token_of(&first_link)];
    for round in 2..=3 {
        let answer = console.operator.post(&path, json!({})).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.message(), "A new verification link is on its way to dan@example.org.");
        let to_dan = || server.outbox().into_iter().filter(|mail| mail.contains("To: dan@example.org\r\n")).collect::<Vec<_>>();
        wait_for("the new mail to Dan is in the outbox", || to_dan().len() >= round).await;
        let mail = to_dan().pop().expect("a mail to Dan");
        links.push(token_of(&link_in(&mail, "/verify-email?token=")));
    }
    links.dedup();
    assert_eq!(links.len(), 3, "a new link each time");
    let verified = dan.get(&format!("/api/verify-email?token={}", links[2])).await;
    assert_eq!(verified.status, 200, "the newest link verifies: {}", verified.body);
    let again = console.operator.post(&path, json!({})).await;
    assert_eq!((again.status, again.body["code"].as_str()), (409, Some("already_verified")), "{}", again.body);
}

#[actix_web::test]
async fn stats_count_accounts_plans_terms_and_weeks() {
    let console = Console::start().await;
    let server = &console.server;
    seed_accounts(server, "seed", 3);
    server.state.store.billing().set_plan(user(server, "seed00@lab.example.org").id, engine::Tier::Team).expect("a plan");
    let added = console.bob.post("/api/immediate-search", json!({ "email": "bob@example.org", "searchTerm": "liver toxicity of phthalates" })).await;
    assert_eq!(added.status, 200, "{}", added.body);

    let stats = console.operator.get("/api/admin/stats").await;
    assert_eq!(stats.status, 200, "{}", stats.body);
    let body = &stats.body;
    let counts = ["users", "verified", "disabled", "free", "pro", "team", "operators", "activeTerms"].map(|field| body[field].as_u64());
    assert_eq!(counts, [5, 2, 0, 4, 0, 1, 1, 1].map(Some), "{body}");
    let signups = body["signupsByWeek"].as_array().expect("weeks");
    assert_eq!(signups.len(), 12);
    let this_week = Utc::now().date_naive().iso_week();
    let label = format!("{}-W{:02}", this_week.year(), this_week.week());
    assert_eq!(signups[11], json!({ "week": label, "count": 5 }), "{body}");
    assert_eq!(signups.iter().filter_map(|week| week["count"].as_u64()).sum::<u64>(), 5);
    let digests = body["digestsByWeek"].as_array().expect("weeks");
    assert_eq!(digests[11]["count"], body["digestsSent"], "every digest was sent this week: {body}");
}

#[actix_web::test]
async fn the_local_socket_serves_the_operator_routes_to_the_local_operator_only() {
    let console = Console::start().await;
    let data_dir = console.server.data_dir.path().to_owned();
    let socket = web::local::socket_path(&data_dir);
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&socket).expect("the socket").permissions());
    assert_eq!(mode & 0o777, 0o600, "the service user's only");

    let stats = local(&data_dir, "GET", "/api/admin/stats", None).await.expect("the service answers");
    assert_eq!((stats.0, stats.1["users"].as_u64()), (200, Some(2)), "{}", stats.1);
    let health = local(&data_dir, "GET", "/healthz", None).await.expect("the service answers");
    assert_eq!(health.0, 200);
    let not_there = local(&data_dir, "GET", "/api/auth/me", None).await.expect("the service answers");
    assert_eq!((not_there.0, not_there.1["code"].as_str()), (404, Some("not_found")), "only the operator routes: {}", not_there.1);
    // No session, no Origin: the local operator, who has no account to protect from itself.
    let operator_id = user(&console.server, OPERATOR).id;
    let body = json!({ "disabled": true });
    let disabled = local(&data_dir, "POST", &format!("/api/admin/users/{}/disabled", console.bob_id), Some(body)).await.expect("answered");
    assert_eq!((disabled.0, disabled.1["disabled"].as_bool()), (200, Some(true)), "{}", disabled.1);
    let demote = local(&data_dir, "POST", &format!("/api/admin/users/{operator_id}/operator"), Some(json!({ "operator": false }))).await;
    let demote = demote.expect("answered");
    assert_eq!((demote.0, demote.1["code"].as_str()), (409, Some("operator_by_settings")), "{}", demote.1);
    let bad = local(&data_dir, "POST", "/api/admin/users/x/plan", Some(json!({ "plan": "pro" }))).await.expect("answered");
    assert_eq!((bad.0, bad.1["code"].as_str()), (400, Some("bad_request")), "{}", bad.1);
}

/// `web::local::request`: the answer's status and JSON body.
async fn local(data_dir: &Path, method: &'static str, path: &str, body: Option<Value>) -> Option<(u16, Value)> {
    let answer = web::local::request(data_dir, method, path, body.as_ref()).await.expect("no error")?;
    Some((answer.status, answer.read().expect("a JSON answer")))
}

fn smtp_address(maildev: &Maildev) -> SocketAddr {
    format!("127.0.0.1:{}", maildev.smtp_port).parse().expect("an address")
}

/// Waits (at most 20 s) until `condition` holds of the store.
async fn wait_for(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn dead_mail_is_sent_again_and_delivered_or_dropped() {
    let maildev = Maildev::start().await;
    // The SMTP server is away from the start (a connection opened before would stay open).
    let relay = Relay::start(smtp_address(&maildev), RelayMode::Drop);
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(format!("smtp://127.0.0.1:{}", relay.port()))).await;
    let store = &server.state.store;
    // The operator's verification link cannot go: the account is verified in the store.
    let operator = server.client();
    answer_ok(&operator.post("/api/signup", signup_body(OPERATOR, PASSWORD)).await);
    store.accounts().update_user(user(&server, OPERATOR).id, |user| user.is_email_verified = true).expect("verified");
    answer_ok(&operator.post("/api/auth/login", json!({ "email": OPERATOR, "password": PASSWORD })).await);

    // Two sign-ups' mails are tried, kept, and then given up.
    for email in ["erin@example.org", "fay@example.org"] {
        assert_eq!(server.client().post("/api/signup", signup_body(email, PASSWORD)).await.status, 201);
    }
    wait_for("the mails were tried", || store.mail().queued().is_ok_and(|queued| queued.len() == 3 && queued.iter().all(|mail| mail.attempts >= 1)))
        .await;
    for queued in store.mail().queued().expect("the queue") {
        if queued.mail.to != OPERATOR {
            store.mail().move_to_dead(queued.id, "550 mailbox unavailable").expect("given up");
        }
    }
    let mail = operator.get("/api/admin/mail").await;
    assert_eq!(mail.status, 200, "{}", mail.body);
    assert_eq!((mail.body["transport"].as_str(), mail.body["smtp"]["state"].as_str()), (Some("smtp"), Some("failing")), "{}", mail.body);
    assert!(mail.body["smtp"]["lastError"].is_string(), "{}", mail.body);
    assert_eq!(mail.body["queued"], 1, "the operator's mail waits for its next attempt");
    let dead = mail.body["dead"].as_array().expect("dead mail").clone();
    assert_eq!(dead.len(), 2, "{}", mail.body);
    let id_to = |to: &str| dead.iter().find(|mail| mail["to"] == to).and_then(|mail| mail["id"].as_str()).expect("listed").to_owned();
    let (erin, fay) = (id_to("erin@example.org"), id_to("fay@example.org"));
    assert_eq!(dead[0]["error"], "550 mailbox unavailable");
    assert_eq!(dead[0]["subject"], "Verify your email for Papertide");

    // Back: Erin's mail is sent again and arrives; Fay's is dropped.
    relay.set(RelayMode::Forward);
    let retried = operator.post(&format!("/api/admin/mail/dead/{erin}/retry"), json!({})).await;
    assert_eq!(retried.status, 200, "{}", retried.body);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !maildev.emails().await.iter().any(|mail| mail["to"][0]["address"] == "erin@example.org") {
        assert!(Instant::now() < deadline, "Erin's mail never arrived");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    wait_for("Erin's mail left the queue", || store.mail().queued().is_ok_and(|queued| queued.iter().all(|mail| mail.mail.to == OPERATOR))).await;
    let dropped = operator.delete(&format!("/api/admin/mail/dead/{fay}")).await;
    assert_eq!(dropped.status, 200, "{}", dropped.body);
    assert_eq!(store.mail().dead_len(), 0);

    for (method, path, status) in [
        ("POST", format!("/api/admin/mail/dead/{erin}/retry"), 404),
        ("DELETE", format!("/api/admin/mail/dead/{fay}"), 404),
        ("POST", "/api/admin/mail/dead/erin/retry".to_owned(), 400),
        ("DELETE", "/api/admin/mail/dead/-1".to_owned(), 400),
    ] {
        let answer = operator.send(method, &path, Some(&json!({})).filter(|_| method == "POST")).await;
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.body);
    }
    let mail = operator.get("/api/admin/mail").await;
    assert_eq!((mail.body["smtp"]["state"].as_str(), mail.body["dead"].as_array().map(Vec::len)), (Some("ok"), Some(0)), "{}", mail.body);
    actix_web::rt::time::sleep(Duration::from_millis(500)).await;
    let fay_mails = maildev.emails().await.iter().filter(|mail| mail["to"][0]["address"] == "fay@example.org").count();
    assert_eq!(fay_mails, 0, "a dropped mail never goes");
}

const BIORXIV_PAGE: &str = "biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";

#[actix_web::test]
async fn harvest_now_runs_the_sources_harvester_and_moves_its_cursor() {
    let peer = ReplayServer::start().await;
    let today = Utc::now().date_naive();
    for back in 0..=8 {
        let day = today - chrono::Duration::days(back);
        let page = Reply::fixture(BIORXIV_PAGE).replace("\"total\": \"873\"", "\"total\": \"10\"");
        peer.on(&format!("/details/biorxiv/{day}/{day}/0/json")).reply(page);
    }
    let console = Console::start_with(|serve| {
        serve.sources.biorxiv_url = Some(peer.url("/").to_string());
        serve.harvest_sources = Some(vec!["biorxiv".into()]);
        serve.harvest_lookback_days = Some(2);
    })
    .await;
    let store = &console.server.state.store;
    // The first run starts with the service.
    wait_for("the first harvest ended", || store.papers().harvest_state(Source::Biorxiv).is_ok_and(|state| state.last_success_at.is_some())).await;
    wait_for("the harvester is idle", || console.server.state.board.get("harvester-biorxiv").is_some_and(|status| !status.busy)).await;
    let sources = console.operator.get("/api/admin/sources").await;
    assert_eq!(sources.status, 200, "{}", sources.body);
    let biorxiv =
        sources.body["sources"].as_array().and_then(|all| all.iter().find(|source| source["source"] == "biorxiv")).expect("bioRxiv").clone();
    assert_eq!((biorxiv["enabled"].as_bool(), biorxiv["running"].as_bool()), (Some(true), Some(false)), "{biorxiv}");
    assert!(biorxiv["lastSuccessAt"].is_string() && biorxiv["nextRunAt"].is_string(), "{biorxiv}");
    let arxiv = sources.body["sources"].as_array().and_then(|all| all.iter().find(|source| source["source"] == "arxiv")).expect("arXiv").clone();
    assert_eq!((arxiv["enabled"].as_bool(), &arxiv["nextRunAt"]), (Some(false), &Value::Null), "{arxiv}");
    assert_eq!(sources.body["index"]["bySource"]["biorxiv"], 10, "{}", sources.body);
    assert_eq!(sources.body["index"]["papers"], 10, "{}", sources.body);
    assert_eq!(sources.body["index"]["vectors"]["model"], Value::Null, "no model: lexical ranking");

    // As if the service had been down for some days: the cursor is further back.
    let behind = today - chrono::Duration::days(6);
    let mut state = store.papers().harvest_state(Source::Biorxiv).expect("the state");
    state.cursor = Some(behind);
    store.papers().put_harvest_state(Source::Biorxiv, &state).expect("stored");
    let started = console.operator.post("/api/admin/sources/biorxiv/harvest", json!({})).await;
    assert_eq!(started.status, 202, "{}", started.body);
    assert!(started.message().contains("started"), "{}", started.body);
    let caught_up = today - chrono::Duration::days(2);
    wait_for("the cursor moved", || store.papers().harvest_state(Source::Biorxiv).is_ok_and(|state| state.cursor == Some(caught_up))).await;
    for back in 1..=5 {
        let day = today - chrono::Duration::days(back);
        assert!(!peer.requests_to(&format!("/details/biorxiv/{day}/{day}/0/json")).is_empty(), "{day} was fetched");
    }
}

/// `papertide serve` as the real binary on `data_dir`, healthy; its stderr discarded.
async fn serve(data_dir: &Path) -> (std::process::Child, Client) {
    let port = crate::common::free_port();
    let binary = binary(data_dir, port);
    let mut child = binary.spawn_serve(&[]).expect("papertide starts");
    testkit::server::wait_until_healthy(&mut child, &binary.base_url(), Duration::from_secs(30)).await.expect("the service starts");
    (child, Client::new(&binary.base_url()))
}

fn binary(data_dir: &Path, port: u16) -> testkit::server::Binary {
    testkit::server::Binary::isolated(env!("CARGO_BIN_EXE_papertide"), data_dir, port).log(testkit::server::Log::Discard)
}

/// `papertide ARGS` on `data_dir` to its end, on a blocking thread; its status and stdout.
async fn cli(data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let (data_dir, args): (std::path::PathBuf, Vec<String>) = (data_dir.to_owned(), args.iter().map(|arg| (*arg).to_owned()).collect());
    let output = actix_web::rt::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::common::papertide(&data_dir, &args)
    })
    .await
    .expect("the command finishes");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

fn answer_ok(answer: &Answer) {
    assert!((200..300).contains(&answer.status), "{} {}", answer.status, answer.body);
}

#[actix_web::test]
async fn users_commands_work_on_a_running_service_through_its_socket_and_on_a_stopped_one() {
    let data_dir = tempfile::tempdir().expect("a data directory");
    let (mut service, ada) = serve(data_dir.path()).await;
    let socket = web::local::socket_path(data_dir.path());
    assert!(socket.try_exists().expect("looked"), "serve made its socket");
    answer_ok(&ada.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await);

    let (ok, out, err) = cli(data_dir.path(), &["users", "set-tier", "ADA@example.org", "pro"]).await;
    assert!(ok, "set-tier on the running service: {err}");
    assert_eq!(out.trim(), "ada@example.org is now on the pro plan");
    let (ok, out, err) = cli(data_dir.path(), &["users", "grant-admin", "ada@example.org"]).await;
    assert!(ok, "grant-admin on the running service: {err}");
    assert_eq!(out.trim(), "ada@example.org is now an operator");
    let (ok, out, _) = cli(data_dir.path(), &["users", "list"]).await;
    assert!(ok);
    let row = out.lines().find(|line| line.starts_with("ada@example.org")).expect("Ada listed");
    let columns: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&columns[1..5], ["pro", "no", "yes", "yes"], "{out}");
    assert!(out.trim_end().ends_with("1 account(s)"), "{out}");
    let (ok, _, err) = cli(data_dir.path(), &["users", "grant-admin", "nobody@example.org"]).await;
    assert!(!ok && err.contains("no account with email nobody@example.org"), "{err}");
    let (ok, _, err) = cli(data_dir.path(), &["users", "set-tier", "ada@example.org", "gold"]).await;
    assert!(!ok && err.contains("free, pro, team"), "{err}");

    // The running service made the changes: Ada, verified, is on pro and an operator.
    let outbox = data_dir.path().join("outbox");
    let mail = wait_for_file_containing(&outbox, "To: ada@example.org").await;
    let token = token_of(&link_in(&crate::common::decode_quoted_printable(&mail), "/verify-email?token="));
    answer_ok(&ada.get(&format!("/api/verify-email?token={token}")).await);
    let me = ada.get("/api/auth/me").await;
    assert_eq!((me.body["user"]["subscriptionTier"].as_str(), me.body["user"]["isAdmin"].as_bool()), (Some("pro"), Some(true)), "{}", me.body);
    answer_ok(&ada.get("/api/admin/stats").await);

    // Killed: its socket stays behind, and the commands open the database themselves.
    testkit::server::kill(&mut service).expect("killed");
    assert!(socket.try_exists().expect("looked"), "a killed service leaves its socket");
    let (ok, out, err) = cli(data_dir.path(), &["users", "set-tier", "ada@example.org", "team"]).await;
    assert!(ok, "set-tier on a stopped service: {err}");
    assert_eq!(out.trim(), "ada@example.org is now on the team plan");
    let (ok, out, err) = cli(data_dir.path(), &["users", "revoke-admin", "ada@example.org"]).await;
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "ada@example.org is no longer an operator");
    let (ok, out, err) = cli(data_dir.path(), &["users", "grant-admin", "ada@example.org"]).await;
    assert!(ok, "grant-admin on a stopped service: {err}");
    assert_eq!(out.trim(), "ada@example.org is now an operator");

    // Started again over the stale socket, and stopped as a service manager stops it.
    let (mut service, ada) = serve(data_dir.path()).await;
    let login = ada.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    answer_ok(&login);
    assert_eq!(ada.get("/api/auth/me").await.body["user"]["subscriptionTier"], "team");
    let (ok, out, err) = cli(data_dir.path(), &["users", "disable", "ada@example.org"]).await;
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "ada@example.org is now disabled: signed out everywhere, and cannot sign in");
    assert_eq!(ada.get("/api/auth/me").await.status, 401, "signed out at once");
    let (ok, _, err) = cli(data_dir.path(), &["users", "enable", "ada@example.org"]).await;
    assert!(ok, "{err}");
    let status = testkit::server::terminate(&mut service).expect("stopped");
    assert!(status.success(), "{status}");
    assert!(!socket.try_exists().expect("looked"), "a service that stops removes its socket");
}

/// Waits (at most 10 s) for a file in `dir` whose text contains `text`; answers its text.
async fn wait_for_file_containing(dir: &Path, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|extension| extension == "eml"))
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .find(|mail| mail.contains(text));
        if let Some(mail) = found {
            return mail;
        }
        assert!(Instant::now() < deadline, "no mail containing {text:?} in {}", dir.display());
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn the_index_shows_its_papers_by_source_and_the_models_vectors() {
    let server = TestServer::start_with_embedding_model().await;
    let operator = server.operator().await;
    let recorded = server.index_recorded_papers().await as u64;
    let deadline = Instant::now() + Duration::from_secs(120);
    let index = loop {
        let sources = operator.get("/api/admin/sources").await;
        assert_eq!(sources.status, 200, "{}", sources.body);
        let index = sources.body["index"].clone();
        if index["vectors"]["embedded"] == recorded && index["vectors"]["waiting"] == 0 {
            break index;
        }
        assert!(Instant::now() < deadline, "the recorded papers were not embedded: {index}");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(index["vectors"]["model"], "all-minilm-l6-v2");
    assert_eq!(index["papers"], recorded);
    assert_eq!(index["bySource"], json!({ "pubmed": recorded, "arxiv": 0, "biorxiv": 0, "medrxiv": 0 }));
    let sources = operator.get("/api/admin/sources").await;
    let pubmed = sources.body["sources"].as_array().and_then(|all| all.iter().find(|source| source["source"] == "pubmed")).expect("PubMed").clone();
    assert_eq!(pubmed["papersDatedLast7Days"], recorded, "the papers entered PubMed today: {pubmed}");
    assert_eq!(pubmed["enabled"], false, "not harvested here");
}
