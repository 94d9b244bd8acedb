//! Hostile input on every input of every API route: each JSON field of each body, each path and
//! query parameter, and the headers, get injection strings (SQL, NoSQL, path traversal,
//! template), HTML and script, control characters and NUL, bidirectional overrides, overlong
//! text, wrong types, missing and extra fields, non-UTF-8 bytes and 10 MB bodies. The routes come
//! from the router's own table (`web::app::api_route_table`), and `INPUTS` below must name every
//! one of them, so a new route cannot be left out.
//!
//! The rule every answer is held to: never a 5xx; a refusal is a 4xx with a JSON `message` and
//! leaves the database byte for byte as it was; an acceptance never stores markup or control
//! characters. One server (with billing on, against localstripe, so the billing handlers are
//! reached past their "billing off" answer) serves every case, signed in as a real user and
//! also anonymously.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Map, Value};

use crate::common::stripe::LocalStripe;
use crate::common::{TestServer, GENEROUS_RATE, PASSWORD};

const EMAIL: &str = "ada@example.org";

/// What a JSON field holds, which decides the value a valid request sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Email,
    Password,
    Text,
    Flag,
}

/// What one API route reads from a request besides its path: its JSON body's fields (with the
/// valid value each takes) and its query parameters.
struct RouteInputs {
    method: &'static str,
    path: &'static str,
    fields: &'static [(&'static str, Kind)],
    query: &'static [&'static str],
}

const fn route(method: &'static str, path: &'static str, fields: &'static [(&'static str, Kind)], query: &'static [&'static str]) -> RouteInputs {
    RouteInputs { method, path, fields, query }
}

use Kind::{Email, Flag, Password, Text};

/// Every API route and its inputs. `the_input_table_names_every_api_route` keeps it complete.
const INPUTS: &[RouteInputs] = &[
    route("GET", "/api/config", &[], &[]),
    route("GET", "/api/contract", &[], &[]),
    route("GET", "/api/contract.ts", &[], &[]),
    route("GET", "/api/openapi.json", &[], &[]),
    route("GET", "/api/auth/me", &[], &[]),
    route("GET", "/api/auth/user", &[], &[]),
    route("POST", "/api/auth/login", &[("email", Email), ("password", Password)], &[]),
    route(
        "POST",
        "/api/auth/signup",
        &[("email", Email), ("password", Password), ("confirmPassword", Password), ("researchField", Text), ("pendingSearch", Text)],
        &[],
    ),
    route("POST", "/api/auth/logout", &[], &[]),
    route("POST", "/api/auth/resend-verification", &[("email", Email)], &[]),
    route(
        "POST",
        "/api/signup",
        &[
            ("email", Email),
            ("researchField", Text),
            ("password", Password),
            ("confirmPassword", Password),
            ("agreeToTerms", Flag),
            ("agreeToPrivacy", Flag),
            ("pendingSearch", Text),
        ],
        &[],
    ),
    route("POST", "/api/forgot-password", &[("email", Email)], &[]),
    route("POST", "/api/reset-password", &[("token", Text), ("password", Password), ("confirmPassword", Password)], &[]),
    route("GET", "/api/verify-email", &[], &["token"]),
    route("GET", "/api/users/{user_id}/preferences", &[], &[]),
    route(
        "PATCH",
        "/api/users/{user_id}/preferences",
        &[
            ("includePubmed", Flag),
            ("includeArxiv", Flag),
            ("includeBiorxiv", Flag),
            ("weeklyDigest", Flag),
            ("dailyHighlights", Flag),
            ("deliveryDay", Text),
        ],
        &[],
    ),
    route("GET", "/api/users/{user_email}", &[], &[]),
    route("GET", "/api/users/{user_id}/search-terms", &[], &[]),
    route("PATCH", "/api/search-terms/{term_id}", &[("term", Text)], &[]),
    route("DELETE", "/api/search-terms/{term_id}", &[], &[]),
    route("GET", "/api/search-terms/{term_id}/ratings", &[], &[]),
    route("PUT", "/api/search-terms/{term_id}/ratings", &[("digestId", Text), ("paperKey", Text), ("verdict", Text)], &[]),
    route("DELETE", "/api/search-terms/{term_id}/ratings", &[], &["paperKey"]),
    route("POST", "/api/search-terms/{term_id}/seeds", &[("ids", Text), ("file", Text)], &[]),
    route("GET", "/api/feeds", &[], &[]),
    route("POST", "/api/feeds/renew", &[], &[]),
    route("GET", "/api/papers/citation", &[], &["key", "format"]),
    route("GET", "/api/digests/{digest_id}/citations", &[], &["format"]),
    route("GET", "/api/search-terms/{term_id}/citations", &[], &["format"]),
    route("GET", "/api/citations/link", &[], &["token", "format"]),
    route("GET", "/api/search-terms/{term_id}/channel", &[], &[]),
    route("PUT", "/api/search-terms/{term_id}/channel", &[("url", Text)], &[]),
    route("DELETE", "/api/search-terms/{term_id}/channel", &[], &[]),
    route("POST", "/api/search-terms/{term_id}/channel/test", &[], &[]),
    route("GET", "/api/admin/channels", &[], &[]),
    route("GET", "/api/ratings/link", &[], &["token"]),
    route("POST", "/api/ratings/link", &[("token", Text)], &[]),
    route("POST", "/api/immediate-search", &[("email", Email), ("searchTerm", Text)], &[]),
    route("POST", "/api/resend-email", &[("searchTerm", Text)], &[]),
    route("POST", "/api/test-email", &[("email", Email), ("type", Text)], &[]),
    route("POST", "/api/trigger-digest", &[], &[]),
    route("GET", "/api/users/{user_id}/digests", &[], &[]),
    route("GET", "/api/unsubscribe/{token}", &[], &[]),
    route("POST", "/api/unsubscribe/{token}", &[], &[]),
    route("POST", "/api/cancel-subscription", &[], &[]),
    route("POST", "/api/create-subscription", &[("tier", Text), ("setupIntentId", Text)], &[]),
    route("POST", "/api/create-checkout-session", &[("tier", Text)], &[]),
    route("GET", "/api/session-status", &[], &["session_id"]),
    route("GET", "/api/subscriptions/{subscription_id}/status", &[], &[]),
    route("GET", "/api/debug-webhook-status", &[], &[]),
    route("POST", "/api/fix-subscription", &[], &[]),
    route("POST", "/api/stripe/webhook", &[], &[]),
    route("GET", "/api/users/{user_id}/export", &[], &[]),
    route("POST", "/api/users/{user_id}/delete", &[("password", Password)], &[]),
    // The operator routes: the attacker is no operator, so each is refused before its input is
    // used (admin.rs sends an operator's bad input).
    route("DELETE", "/api/admin/users/{user_id}", &[], &[]),
    route("GET", "/api/admin/stats", &[], &[]),
    route("GET", "/api/admin/users", &[], &["q", "plan", "verified", "page"]),
    route("POST", "/api/admin/users/{user_id}/plan", &[("plan", Text)], &[]),
    route("POST", "/api/admin/users/{user_id}/operator", &[("operator", Flag)], &[]),
    route("POST", "/api/admin/users/{user_id}/disabled", &[("disabled", Flag)], &[]),
    route("POST", "/api/admin/users/{user_id}/resend-verification", &[], &[]),
    route("POST", "/api/admin/users/{user_id}/repair-subscription", &[], &[]),
    route("GET", "/api/admin/sources", &[], &[]),
    route("POST", "/api/admin/sources/{source}/harvest", &[], &[]),
    route("GET", "/api/admin/mail", &[], &[]),
    route("POST", "/api/admin/mail/dead/{mail_id}/retry", &[], &[]),
    route("DELETE", "/api/admin/mail/dead/{mail_id}", &[], &[]),
    route("GET", "/api/admin/billing", &[], &[]),
    route("POST", "/api/admin/backup", &[("dest", Text)], &[]),
];

/// How a hostile value may be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Text that is inert once stored as text (SQL, NoSQL, traversal, template): it may be
    /// accepted where free text is, and must then be kept as plain data.
    Inert,
    /// Markup, control characters, overlong text: refused, or (passwords, an ignored topic)
    /// accepted without being stored.
    NeverStored,
    /// Not a string where one is wanted: always refused.
    WrongType,
}

/// The hostile JSON values every field gets.
fn hostile_values() -> Vec<(Value, Class)> {
    let inert = [
        "' OR '1'='1' --",
        "1; DROP TABLE users",
        "admin'/*",
        "{\"$gt\": \"\"}",
        "$where: sleep(1000)",
        "../../../../etc/passwd",
        "..\\..\\windows\\win.ini",
        "{{7*7}}",
        "${7*7}",
        "<%= 7*7 %>",
        "ａｄａ＠ｅｘａｍｐｌｅ．ｏｒｇ",
        // Inert as text; only a link made of it would run (escaping.rs checks links).
        "javascript:alert(1)",
    ];
    let never_stored = [
        "<script>alert(1)</script>".to_owned(),
        "\"><img src=x onerror=alert(1)>".to_owned(),
        "topic\r\nX-Injected: yes".to_owned(),
        "nul\u{0}byte".to_owned(),
        "line\r\nBcc: victim@example.org".to_owned(),
        "escape\u{1b}[31m".to_owned(),
        "bidi \u{202e}gnp.exe".to_owned(),
        "x".repeat(10 * 1024),
    ];
    let wrong_types = [json!(42), json!(-1.5), json!(true), json!([]), json!(["a"]), json!({}), json!({ "$gt": "" })];
    let mut values: Vec<(Value, Class)> = inert.iter().map(|text| (json!(text), Class::Inert)).collect();
    values.extend(never_stored.into_iter().map(|text| (json!(text), Class::NeverStored)));
    values.extend(wrong_types.into_iter().map(|value| (value, Class::WrongType)));
    values
}

/// The hostile values a path segment or query parameter gets, percent-encoded as sent.
fn hostile_segments() -> Vec<String> {
    let mut texts: Vec<String> = [
        "' OR '1'='1",
        "../../../../etc/passwd",
        "..",
        "{{7*7}}",
        "<script>alert(1)</script>",
        "nul\u{0}byte",
        "line\r\nInjected: yes",
        "\u{202e}",
        "00000000-0000-0000-0000-000000000000",
        "cs_test_../../v1/customers",
        "seti_x?expand[]=customer",
        "sub_1/../../customers",
    ]
    .iter()
    .map(|text| encode(text))
    .collect();
    texts.push("x".repeat(10 * 1024));
    // Percent-encoded bytes that are not UTF-8, an encoded NUL and an overlong encoding of '/'.
    texts.extend(["%FF%FE", "%C0%AF", "%00", "%ED%A0%80", "%"].map(str::to_owned));
    texts
}

/// Percent-encodes every byte but ASCII letters and digits.
fn encode(text: &str) -> String {
    text.bytes().map(|byte| if byte.is_ascii_alphanumeric() { (byte as char).to_string() } else { format!("%{byte:02X}") }).collect()
}

/// The signed-in user's own records, which valid requests name.
struct Own {
    user_id: String,
    term_id: String,
    unsubscribe_token: String,
    subscription_id: String,
}

/// The valid body of `route` for case number `case` (a fresh address for each signup).
fn valid_body(route: &RouteInputs, case: usize) -> Value {
    let fresh = format!("case{case}@example.org");
    match route.path {
        "/api/auth/login" => json!({ "email": EMAIL, "password": "Not-the-password-1" }),
        "/api/auth/signup" => json!({ "email": fresh, "password": PASSWORD, "confirmPassword": PASSWORD, "researchField": "biology" }),
        "/api/signup" => crate::common::signup_body(&fresh, PASSWORD),
        // No account has this address: a mail of a link is issued after the answer, and would
        // race with the next case's snapshot.
        "/api/auth/resend-verification" | "/api/forgot-password" => json!({ "email": "nobody@example.org" }),
        "/api/reset-password" => json!({ "token": "no-such-token", "password": PASSWORD, "confirmPassword": PASSWORD }),
        "/api/users/{user_id}/preferences" => json!({ "weeklyDigest": true }),
        // A wrong password: the account must outlive the run.
        "/api/users/{user_id}/delete" => json!({ "password": "Not-the-password-1" }),
        "/api/search-terms/{term_id}" => json!({ "term": "topic alpha" }),
        "/api/search-terms/{term_id}/ratings" => {
            json!({ "digestId": "00000000-0000-0000-0000-000000000001", "paperKey": "doi:10.1/x", "verdict": "relevant" })
        }
        "/api/ratings/link" => json!({ "token": "no-such-token" }),
        "/api/search-terms/{term_id}/seeds" => json!({ "ids": "not an identifier" }),
        "/api/search-terms/{term_id}/channel" => json!({ "url": "https://hooks.example.org/services/x" }),
        "/api/immediate-search" => json!({ "email": EMAIL, "searchTerm": "topic alpha" }),
        "/api/resend-email" => json!({ "searchTerm": "topic alpha" }),
        "/api/test-email" => json!({ "email": EMAIL, "type": "welcome" }),
        "/api/create-subscription" => json!({ "tier": "pro", "setupIntentId": "seti_unknown" }),
        "/api/create-checkout-session" => json!({ "tier": "pro" }),
        _ => json!({}),
    }
}

/// `route`'s path with the user's own records in its parameters.
fn own_path(route: &RouteInputs, own: &Own) -> String {
    route
        .path
        .replace("{user_id}", &own.user_id)
        .replace("{user_email}", EMAIL)
        .replace("{term_id}", &own.term_id)
        .replace("{token}", &own.unsubscribe_token)
        .replace("{subscription_id}", &own.subscription_id)
        .replace("{source}", "pubmed")
        .replace("{mail_id}", "1")
        .replace("{digest_id}", "00000000-0000-0000-0000-000000000001")
}

/// The names of `route`'s path parameters.
fn path_parameters(route: &RouteInputs) -> Vec<&'static str> {
    route.path.split('/').filter_map(|segment| segment.strip_prefix('{').and_then(|rest| rest.strip_suffix('}'))).collect()
}

/// One browser (its own cookie jar) sending raw requests.
struct Attacker {
    http: reqwest::Client,
    base: String,
}

/// What came back: the status and the body, parsed as JSON when it is JSON.
struct Reply {
    status: u16,
    body: Value,
}

impl Attacker {
    fn new(base: &str) -> Attacker {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .pool_idle_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(60))
            .build()
            .expect("http client");
        Attacker { http, base: base.to_owned() }
    }

    async fn send(&self, method: &str, path: &str, headers: &[(&str, &[u8])], body: Option<Vec<u8>>) -> Reply {
        let method = Method::from_bytes(method.as_bytes()).expect("a method");
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body);
        }
        for (name, value) in headers {
            request = request.header(*name, reqwest::header::HeaderValue::from_bytes(value).expect("a header value"));
        }
        let response = request.send().await.unwrap_or_else(|error| panic!("{path}: no answer: {error}"));
        let status = response.status().as_u16();
        let text = response.text().await.unwrap_or_default();
        Reply { status, body: serde_json::from_str(&text).unwrap_or(Value::String(text)) }
    }
}

/// The checks every answer gets, with a snapshot of the database taken before the request.
struct Judge<'a> {
    server: &'a TestServer,
}

impl Judge<'_> {
    /// Every entry of the database, once the mail queue is drained (the mailer is the only
    /// writer that runs on its own).
    async fn snapshot(&self) -> Vec<store::RawEntry> {
        self.server.wait_for_empty_queue().await;
        self.server.state.store.raw_entries().expect("readable database")
    }

    /// `reply` to the request `what`: no 5xx; a 4xx with a message and nothing written.
    fn check(&self, what: &str, reply: &Reply, before: &[store::RawEntry]) {
        assert!(reply.status < 500, "{what}: answered {} {}", reply.status, reply.body);
        if reply.status >= 400 {
            let message = reply.body["message"].as_str().unwrap_or_default();
            assert!(!message.is_empty(), "{what}: a {} without a JSON message: {}", reply.status, reply.body);
            let after = self.server.state.store.raw_entries().expect("readable database");
            if after != before {
                let changed: Vec<&str> = after.iter().filter(|entry| !before.contains(entry)).map(|(tree, ..)| tree.as_str()).collect();
                let removed: Vec<&str> = before.iter().filter(|entry| !after.contains(entry)).map(|(tree, ..)| tree.as_str()).collect();
                panic!("{what}: refused with {} but the database changed (written {changed:?}, removed {removed:?})", reply.status);
            }
        }
    }

    /// An accepted request stored none of `text`'s bytes when `text` must never be stored.
    fn check_not_stored(&self, what: &str, text: &str) {
        let needle = text.as_bytes();
        let stored = self.server.state.store.raw_entries().expect("readable database");
        let found = stored.iter().find(|(_, key, value)| contains(key, needle) || contains(value, needle));
        assert!(found.is_none(), "{what}: accepted, and {text:?} was stored in {:?}", found.map(|(tree, ..)| tree));
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|window| window == needle)
}

/// The server, a verified free user with two terms, a Stripe customer and an unlimited term
/// allowance, signed in on the returned attacker.
async fn scene() -> (LocalStripe, TestServer, Attacker, Own) {
    let stripe = LocalStripe::start().await;
    let server = TestServer::start_with(|serve| {
        serve.rate_limit_test_email = Some(GENEROUS_RATE.into());
        serve.rate_limit_login = Some("100000/1h".into());
        serve.rate_limit_signup = Some("100000/1h".into());
        serve.rate_limit_reset_password = Some("100000/1h".into());
        serve.rate_limit_forgot_password = Some("100000/1h".into());
        serve.rate_limit_resend = Some("100000/1h".into());
        serve.stripe = crate::payments::stripe_args(&stripe);
    })
    .await;
    server.verified_user(&server.client(), EMAIL).await;
    let store = &server.state.store;
    let user = store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    store.accounts().update_user(user.id, |stored| stored.is_unlimited = true).expect("unlimited terms");
    let attacker = Attacker::new(&server.base);
    let login = json!({ "email": EMAIL, "password": PASSWORD }).to_string().into_bytes();
    assert_eq!(attacker.send("POST", "/api/auth/login", &[], Some(login)).await.status, 200);
    for topic in ["topic alpha", "topic beta"] {
        let body = json!({ "email": EMAIL, "searchTerm": topic }).to_string().into_bytes();
        let added = attacker.send("POST", "/api/immediate-search", &[], Some(body)).await;
        assert_eq!(added.status, 200, "{}", added.body);
    }
    // The first step of a plan change makes the Stripe customer, so later refusals write nothing.
    let setup = attacker.send("POST", "/api/create-subscription", &[], Some(br#"{"tier":"pro"}"#.to_vec())).await;
    assert_eq!(setup.status, 200, "{}", setup.body);
    let term_id = store.terms().of_user(user.id).expect("db")[0].id.to_string();
    let own = Own {
        user_id: user.id.to_string(),
        term_id,
        unsubscribe_token: store.digests().unsubscribe_token(user.id).expect("token"),
        subscription_id: "sub_unknown".to_owned(),
    };
    (stripe, server, attacker, own)
}

#[actix_web::test]
async fn the_input_table_names_every_api_route() {
    let table = web::app::api_route_table();
    let registered: Vec<(String, String)> = table.routes().iter().map(|route| (route.method.to_string(), route.path.clone())).collect();
    let listed: Vec<(String, String)> = INPUTS.iter().map(|route| (route.method.to_owned(), route.path.to_owned())).collect();
    for route in &registered {
        assert!(listed.contains(route), "{route:?} is a route of the API: add its inputs to INPUTS");
    }
    for route in &listed {
        assert!(registered.contains(route), "{route:?} is in INPUTS but is no route of the API");
    }
}

#[actix_web::test]
async fn hostile_input_in_every_field_parameter_and_header_is_refused_cleanly_and_writes_nothing() {
    let (_stripe, server, attacker, own) = scene().await;
    let judge = Judge { server: &server };
    let values = hostile_values();
    let mut case = 0;

    // Every JSON field: each hostile value, the field missing, and null.
    for route in INPUTS {
        let path = own_path(route, &own);
        for (field, kind) in route.fields {
            let mut variants: Vec<(Option<Value>, Class)> = values.iter().map(|(value, class)| (Some(value.clone()), *class)).collect();
            variants.push((None, Class::Inert));
            variants.push((Some(Value::Null), Class::Inert));
            for (value, class) in variants {
                case += 1;
                let mut body = valid_body(route, case);
                let object = body.as_object_mut().expect("an object body");
                match &value {
                    Some(value) => object.insert((*field).to_owned(), value.clone()),
                    None => object.remove(*field),
                };
                let what = format!("{} {} {field}={}", route.method, route.path, value.as_ref().map_or("(missing)".into(), short));
                let before = judge.snapshot().await;
                let reply = attacker.send(route.method, &path, &[], Some(body.to_string().into_bytes())).await;
                judge.check(&what, &reply, &before);
                let is_wrong_type = match (kind, &value) {
                    (Flag, Some(value)) => !(value.is_boolean() || value.is_null()),
                    _ => class == Class::WrongType,
                };
                if is_wrong_type {
                    assert!((400..500).contains(&reply.status), "{what}: a wrong type was accepted: {} {}", reply.status, reply.body);
                }
                if reply.status < 400 && class == Class::NeverStored {
                    judge.check_not_stored(&what, value.as_ref().and_then(Value::as_str).unwrap_or_default());
                }
            }
        }
    }

    // Every body route: bodies that are not JSON objects at all.
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    let raw_bodies: Vec<(&str, Vec<u8>)> = vec![
        ("non-UTF-8 bytes", b"{\"email\":\"\xff\xfe@example.org\",\"term\":\"\xc0\xaf\"}".to_vec()),
        ("a lone surrogate", br#"{"email":"\ud800@example.org","searchTerm":"\udfff"}"#.to_vec()),
        ("nesting 5,000 deep", deep.into_bytes()),
        ("a duplicated key", br#"{"email":"ada@example.org","email":"bob@example.org","tier":"pro","tier":"team"}"#.to_vec()),
        ("a huge number", br#"{"email":1e999,"includePubmed":1e999}"#.to_vec()),
        ("a bare string", br#""<script>""#.to_vec()),
        ("truncated", br#"{"email":"#.to_vec()),
    ];
    for route in INPUTS.iter().filter(|route| !route.fields.is_empty()) {
        let path = own_path(route, &own);
        for (name, body) in &raw_bodies {
            let what = format!("{} {} with {name}", route.method, route.path);
            let before = judge.snapshot().await;
            let reply = attacker.send(route.method, &path, &[], Some(body.clone())).await;
            judge.check(&what, &reply, &before);
            assert!((400..500).contains(&reply.status), "{what}: accepted: {} {}", reply.status, reply.body);
        }
    }

    // Every path parameter and query parameter.
    for route in INPUTS {
        for parameter in path_parameters(route) {
            for segment in hostile_segments() {
                let path = own_path(route, &own).replace(&own_value(&own, parameter), &segment);
                let path = if parameter == "user_email" { route.path.replace("{user_email}", &segment) } else { path };
                let what = format!("{} {path}", route.method);
                let body = (route.method != "GET").then(|| valid_body(route, 0).to_string().into_bytes());
                let before = judge.snapshot().await;
                let reply = attacker.send(route.method, &path, &[], body).await;
                judge.check(&what, &reply, &before);
                assert!((400..500).contains(&reply.status), "{what}: accepted: {} {}", reply.status, reply.body);
            }
        }
        for parameter in route.query {
            for segment in hostile_segments() {
                let path = format!("{}?{parameter}={segment}", route.path);
                let what = format!("{} {}", route.method, short(&json!(path)));
                let before = judge.snapshot().await;
                let reply = attacker.send(route.method, &path, &[], None).await;
                judge.check(&what, &reply, &before);
                assert!((400..500).contains(&reply.status), "{what}: accepted: {} {}", reply.status, reply.body);
            }
        }
    }

    // Hostile headers on every route, signed in: the answer is never a 5xx, and a refusal writes
    // nothing. (The session cookie is sent by the attacker's jar beside the forged ones.)
    let header_cases: Vec<(&str, Vec<u8>)> = vec![
        ("x-forwarded-for", b"' OR 1=1 --, <script>, \xff\xfe".to_vec()),
        ("x-forwarded-for", "9".repeat(8 * 1024).into_bytes()),
        ("user-agent", b"\xff\xfe\x80 {{7*7}} ${jndi:ldap://127.0.0.1/x}".to_vec()),
        ("accept-language", b"../../../../etc/passwd\xc0\xaf".to_vec()),
        ("stripe-signature", b"t=1,v1=' OR 1=1 --,v1=\xff".to_vec()),
        ("content-type", b"application/json; charset=utf-16".to_vec()),
        ("origin", b"null".to_vec()),
    ];
    for route in INPUTS.iter().filter(|route| !matches!(route.path, "/api/auth/logout" | "/api/trigger-digest" | "/api/cancel-subscription")) {
        let path = own_path(route, &own);
        for (name, value) in &header_cases {
            let what = format!("{} {} with {name}: {}", route.method, route.path, String::from_utf8_lossy(&value[..value.len().min(40)]));
            let body = (route.method != "GET").then(|| valid_body(route, 0).to_string().into_bytes());
            let before = judge.snapshot().await;
            let reply = attacker.send(route.method, &path, &[(name, value)], body).await;
            judge.check(&what, &reply, &before);
        }
    }
    // The account is still the user's, signed in and on its plan: nothing above escalated.
    let user = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    assert!(!user.is_admin && user.subscription_tier == engine::Tier::Free, "{user:?}");
    assert_eq!(attacker.send("GET", "/api/auth/me", &[], None).await.status, 200);
}

#[actix_web::test]
async fn forged_session_cookies_and_anonymous_hostile_calls_are_refused_and_write_nothing() {
    let server = TestServer::start().await;
    let judge = Judge { server: &server };
    server.verified_user(&server.client(), EMAIL).await;
    let user = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    let own = Own {
        user_id: user.id.to_string(),
        term_id: "00000000-0000-0000-0000-000000000000".into(),
        unsubscribe_token: "x".into(),
        subscription_id: "sub_x".into(),
    };
    let anonymous = Attacker::new(&server.base);
    let cookies: Vec<Vec<u8>> = vec![
        b"papertide_session=".to_vec(),
        b"papertide_session=' OR '1'='1".to_vec(),
        b"papertide_session=../../../../etc/passwd".to_vec(),
        format!("papertide_session={}", "A".repeat(8 * 1024)).into_bytes(),
        b"papertide_session=\xff\xfe\x80".to_vec(),
        b"papertide_session=a; papertide_session=b; papertide_session={{7*7}}".to_vec(),
    ];
    let public = [
        "/api/config",
        "/api/contract",
        "/api/contract.ts",
        "/api/openapi.json",
        "/api/auth/login",
        "/api/auth/signup",
        "/api/signup",
        "/api/auth/logout",
        "/api/forgot-password",
    ];
    // With billing off (this server's default) the webhook answers 501 before reading anything;
    // the billing-on server above takes it through its signature check.
    for route in INPUTS.iter().filter(|route| route.path != "/api/stripe/webhook") {
        let path = own_path(route, &own);
        let mut body = valid_body(route, 0);
        if let Some(object) = body.as_object_mut() {
            for (field, _) in route.fields {
                object.insert((*field).to_owned(), json!("<script>alert(1)</script>"));
            }
        }
        for cookie in &cookies {
            let what = format!("{} {} with cookie {}", route.method, route.path, String::from_utf8_lossy(&cookie[..cookie.len().min(40)]));
            let before = judge.snapshot().await;
            let sent = (route.method != "GET").then(|| body.to_string().into_bytes());
            let reply = anonymous.send(route.method, &path, &[("cookie", cookie)], sent).await;
            judge.check(&what, &reply, &before);
            if !public.contains(&route.path) {
                assert!((400..500).contains(&reply.status), "{what}: {} {}", reply.status, reply.body);
            }
        }
    }
}

#[actix_web::test]
async fn bodies_of_10_kb_and_10_mb_get_clear_answers() {
    let server = TestServer::start().await;
    let judge = Judge { server: &server };
    server.verified_user(&server.client(), EMAIL).await;
    let attacker = Attacker::new(&server.base);
    let login = json!({ "email": EMAIL, "password": PASSWORD }).to_string().into_bytes();
    assert_eq!(attacker.send("POST", "/api/auth/login", &[], Some(login)).await.status, 200);
    let user_id = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user").id.to_string();
    let own = Own { user_id, term_id: "x".into(), unsubscribe_token: "x".into(), subscription_id: "x".into() };
    let ten_kb = json!({ "email": "nobody@example.org", "padding": "p".repeat(10 * 1024) }).to_string().into_bytes();
    let ten_mb = format!("{{\"email\":\"{}\"}}", "m".repeat(10 * 1024 * 1024)).into_bytes();
    for route in INPUTS.iter().filter(|route| !route.fields.is_empty()) {
        let path = own_path(route, &own);
        let before = judge.snapshot().await;
        let reply = attacker.send(route.method, &path, &[], Some(ten_kb.clone())).await;
        judge.check(&format!("{} {} with 10 KB", route.method, route.path), &reply, &before);
        let before = judge.snapshot().await;
        let reply = attacker.send(route.method, &path, &[], Some(ten_mb.clone())).await;
        let what = format!("{} {} with 10 MB", route.method, route.path);
        judge.check(&what, &reply, &before);
        // An operator route turns a non-operator away before it reads the body.
        let expected = if route.path.starts_with("/api/admin/") { (403, Some("operator_only")) } else { (413, Some("payload_too_large")) };
        assert_eq!((reply.status, reply.body["code"].as_str()), expected, "{what}: {}", reply.body);
    }
    let webhook = attacker.send("POST", "/api/stripe/webhook", &[("stripe-signature", b"t=1,v1=00")], Some(ten_mb)).await;
    assert!((400..500).contains(&webhook.status), "the webhook with 10 MB: {} {}", webhook.status, webhook.body);
}

/// Emails are ASCII: letters are compared without case and the address is trimmed, so
/// `ADA@Example.ORG ` is Ada's account; any other character (fullwidth letters, a combining
/// accent, the Kelvin sign that lower-cases to `k`, a zero-width space) makes the address
/// invalid everywhere, never another spelling of an account.
#[actix_web::test]
async fn emails_differing_in_case_are_one_account_and_unicode_lookalikes_are_refused() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, "kate@example.org").await;
    for same in ["KATE@example.org", " Kate@Example.ORG "] {
        // Answered as a new account would be (so the form tells nobody who has one); Kate is mailed.
        let signup = client.post("/api/signup", crate::common::signup_body(same, PASSWORD)).await;
        assert_eq!(signup.status, 201, "{same}: {}", signup.body);
        assert_eq!(server.state.store.accounts().user_count(), 1, "{same} is Kate's account");
        let login = server.client().post("/api/auth/login", json!({ "email": same, "password": PASSWORD })).await;
        assert_eq!(login.status, 200, "{same}: {}", login.body);
        assert_eq!(client.get(&format!("/api/users/{}", encode(same.trim()))).await.status, 200, "{same}");
    }
    let lookalikes = [
        "ｋａｔｅ@example.org",
        "\u{212a}ate@example.org",
        "kate@exam\u{0440}le.org",
        "ka\u{0301}te@example.org",
        "k\u{e1}te@example.org",
        "kate\u{200b}@example.org",
        "KAT\u{0130}@example.org",
        "kate@example.org\u{0}",
    ];
    for email in lookalikes {
        let signup = server.client().post("/api/signup", crate::common::signup_body(email, PASSWORD)).await;
        assert_eq!((signup.status, signup.message()), (400, "Please enter a valid email address"), "{email:?}: {}", signup.body);
        let login = server.client().post("/api/auth/login", json!({ "email": email, "password": PASSWORD })).await;
        assert_eq!(login.status, 400, "{email:?}: {}", login.body);
        assert_eq!(client.get(&format!("/api/users/{}", encode(email))).await.status, 404, "{email:?}");
        let test_mail = client.post("/api/test-email", json!({ "email": email, "type": "welcome" })).await;
        assert_eq!(test_mail.status, 400, "{email:?}: {}", test_mail.body);
        let search = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": "topic alpha" })).await;
        assert_eq!(search.status, 403, "{email:?}: {}", search.body);
    }
    assert_eq!(server.state.store.accounts().user_count(), 1);
}

/// Extra fields naming what only the server sets (plan, operator, verification) are refused, and
/// nothing is written.
#[actix_web::test]
async fn extra_fields_cannot_set_plan_operator_or_verification() {
    let server = TestServer::start().await;
    let client = server.client();
    let extra = json!({
        "isAdmin": true, "is_admin": true, "subscriptionTier": "team", "tier": "team", "isUnlimited": true,
        "isEmailVerified": true, "isActive": true, "id": "00000000-0000-0000-0000-000000000000", "role": "admin",
    });
    let mut body = crate::common::signup_body("eve@example.org", PASSWORD);
    body.as_object_mut().expect("object").extend(extra.as_object().expect("object").clone());
    let refused = client.post("/api/signup", body).await;
    assert_eq!((refused.status, refused.body["code"].as_str()), (400, Some("validation_failed")), "{}", refused.body);
    assert!(server.state.store.accounts().user_by_email("eve@example.org").expect("db").is_none(), "no account is made");

    server.verified_user(&client, EMAIL).await;
    let user = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    let mut change: Map<String, Value> = extra.as_object().expect("object").clone();
    change.insert("weeklyDigest".into(), json!(false));
    let refused = client.patch(&format!("/api/users/{}/preferences", user.id), Value::Object(change)).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    let after = server.state.store.accounts().user_by_email(EMAIL).expect("db").expect("user");
    assert!(!after.is_admin && after.subscription_tier == engine::Tier::Free && !after.is_unlimited);
    assert!(server.state.store.accounts().preferences(user.id).expect("db").weekly_digest);
}

fn own_value(own: &Own, parameter: &str) -> String {
    match parameter {
        "user_id" => own.user_id.clone(),
        "term_id" => own.term_id.clone(),
        "token" => own.unsubscribe_token.clone(),
        "subscription_id" => own.subscription_id.clone(),
        _ => EMAIL.to_owned(),
    }
}

/// A value as a failure message shows it: at most 60 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}
