//! Whole answer bodies pinned: every API route's successful answer and its typical refusals,
//! status and body, compared with the snapshots checked in under `snapshots/` (insta). Ids,
//! tokens, secrets, times and ports are redacted, so a snapshot is the same on every run and
//! machine. A route the router registers without a snapshot here fails
//! [`every_route_and_every_error_code_has_a_snapshot`], and so does an error code of `web/src`
//! that no snapshot shows.
//!
//! A changed body fails its test with the difference; after checking that the change is meant,
//! run the tests again with `INSTA_UPDATE=always` (or rename the `.snap.new` files insta writes
//! beside the old ones) and commit the new snapshots.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{link_in, signup_body, standalone_signup_body, token_of, Answer, Client, TestServer, PASSWORD};
use crate::payments::{event, Billing, CARD_OK, WEBHOOK_SECRET};

/// Every API route and the name of the snapshot of its successful answer.
const ROUTES: &[(&str, &str, &str)] = &[
    ("GET", "/api/config", "config_ok"),
    ("GET", "/api/contract", "contract_ok"),
    ("GET", "/api/contract.ts", "contract_ts_ok"),
    ("GET", "/api/openapi.json", "openapi_ok"),
    ("GET", "/api/auth/me", "auth_me_ok"),
    ("GET", "/api/auth/user", "auth_user_ok"),
    ("POST", "/api/auth/login", "auth_login_ok"),
    ("POST", "/api/auth/signup", "auth_signup_ok"),
    ("POST", "/api/auth/logout", "auth_logout_ok"),
    ("POST", "/api/auth/resend-verification", "auth_resend_verification_ok"),
    ("POST", "/api/signup", "signup_ok"),
    ("POST", "/api/forgot-password", "forgot_password_ok"),
    ("POST", "/api/reset-password", "reset_password_ok"),
    ("GET", "/api/verify-email", "verify_email_ok"),
    ("GET", "/api/users/{user_id}/preferences", "preferences_get_ok"),
    ("PATCH", "/api/users/{user_id}/preferences", "preferences_patch_ok"),
    ("GET", "/api/users/{user_email}", "user_by_email_ok"),
    ("GET", "/api/users/{user_id}/search-terms", "search_terms_ok"),
    ("PATCH", "/api/search-terms/{term_id}", "search_term_patch_ok"),
    ("DELETE", "/api/search-terms/{term_id}", "search_term_delete_ok"),
    ("GET", "/api/search-terms/{term_id}/ratings", "ratings_get_ok"),
    ("PUT", "/api/search-terms/{term_id}/ratings", "ratings_put_ok"),
    ("DELETE", "/api/search-terms/{term_id}/ratings", "ratings_delete_ok"),
    ("GET", "/api/ratings/link", "rating_link_get_ok"),
    ("POST", "/api/ratings/link", "rating_link_post_ok"),
    ("POST", "/api/immediate-search", "immediate_search_ok"),
    ("POST", "/api/resend-email", "resend_email_ok"),
    ("POST", "/api/test-email", "test_email_ok"),
    ("POST", "/api/trigger-digest", "trigger_digest_ok"),
    ("GET", "/api/users/{user_id}/digests", "digests_ok"),
    ("GET", "/api/unsubscribe/{token}", "unsubscribe_get_ok"),
    ("POST", "/api/unsubscribe/{token}", "unsubscribe_post_ok"),
    ("POST", "/api/create-subscription", "create_subscription_ok"),
    ("POST", "/api/create-checkout-session", "create_checkout_session_ok"),
    ("GET", "/api/session-status", "session_status_ok"),
    ("GET", "/api/subscriptions/{subscription_id}/status", "subscription_status_ok"),
    ("GET", "/api/debug-webhook-status", "debug_webhook_status_ok"),
    ("POST", "/api/fix-subscription", "fix_subscription_ok"),
    ("POST", "/api/stripe/webhook", "stripe_webhook_ok"),
    ("POST", "/api/cancel-subscription", "cancel_subscription_ok"),
    ("GET", "/api/users/{user_id}/export", "export_ok"),
    ("POST", "/api/users/{user_id}/delete", "delete_account_ok"),
    ("DELETE", "/api/admin/users/{user_id}", "admin_delete_user_ok"),
    ("GET", "/api/admin/stats", "admin_stats_ok"),
    ("GET", "/api/admin/users", "admin_users_ok"),
    ("POST", "/api/admin/users/{user_id}/plan", "admin_user_plan_ok"),
    ("POST", "/api/admin/users/{user_id}/operator", "admin_user_operator_ok"),
    ("POST", "/api/admin/users/{user_id}/disabled", "admin_user_disabled_ok"),
    ("POST", "/api/admin/users/{user_id}/resend-verification", "admin_user_resend_verification_ok"),
    ("GET", "/api/admin/sources", "admin_sources_ok"),
    ("POST", "/api/admin/sources/{source}/harvest", "admin_source_harvest_ok"),
    ("GET", "/api/admin/mail", "admin_mail_ok"),
    ("POST", "/api/admin/mail/dead/{mail_id}/retry", "admin_mail_retry_ok"),
    ("DELETE", "/api/admin/mail/dead/{mail_id}", "admin_mail_drop_ok"),
    ("GET", "/api/admin/billing", "admin_billing_ok"),
    ("POST", "/api/admin/users/{user_id}/repair-subscription", "admin_repair_subscription_ok"),
    ("POST", "/api/admin/backup", "admin_backup_ok"),
    ("POST", "/api/search-terms/{term_id}/seeds", "seeds_post_ok"),
    ("GET", "/api/feeds", "feeds_get_ok"),
    ("POST", "/api/feeds/renew", "feeds_renew_ok"),
    ("GET", "/api/papers/citation", "paper_citation_ok"),
    ("GET", "/api/digests/{digest_id}/citations", "digest_citations_ok"),
    ("GET", "/api/search-terms/{term_id}/citations", "term_citations_ok"),
    ("GET", "/api/citations/link", "citation_link_ok"),
    ("GET", "/api/search-terms/{term_id}/channel", "channel_get_ok"),
    ("PUT", "/api/search-terms/{term_id}/channel", "channel_put_ok"),
    ("DELETE", "/api/search-terms/{term_id}/channel", "channel_delete_ok"),
    ("POST", "/api/search-terms/{term_id}/channel/test", "channel_test_ok"),
    ("GET", "/api/admin/channels", "admin_channels_ok"),
];

/// Error codes no request here can bring about, whose bodies are therefore not pinned: `busy`
/// (the hashing pool at capacity; `abuse` brings it about), `too_many_connections` and
/// `body_timeout` (a connection flood, a body that never arrives; `floods`), `http_error`
/// (actix's own refusals that come without a body, which `json_error_bodies` rewrites) and the
/// trigger's `free_digests_used` (only a plan that ends while the trigger runs: the trigger is
/// refused to plans with a digest allowance before it starts). `disk_full`, `internal` and
/// `email_taken` (a sign-up racing another for one address) are pinned from the constructors
/// the handlers call.
const FAULT_CODES: &[&str] = &["busy", "too_many_connections", "body_timeout", "http_error", "free_digests_used"];

/// The routes anyone may call (what they do depends on what the request says or on a secret it
/// carries); every other route wants a signed-in user.
const PUBLIC_OR_SECRET: &[&str] = &[
    "/api/config",
    "/api/contract",
    "/api/contract.ts",
    "/api/openapi.json",
    "/api/auth/login",
    "/api/auth/signup",
    "/api/auth/logout",
    "/api/auth/resend-verification",
    "/api/signup",
    "/api/citations/link",
    "/api/forgot-password",
    "/api/reset-password",
    "/api/verify-email",
    "/api/ratings/link",
    "/api/unsubscribe/{token}",
    "/api/stripe/webhook",
];

/// Turns an answer into its snapshot: status and body, with every run-dependent value replaced
/// by a name in brackets.
struct Redactor {
    /// Known values (ids, tokens, addresses with ports) and their names; the longest is
    /// replaced first.
    known: Vec<(String, String)>,
}

impl Redactor {
    fn new(server: &TestServer) -> Redactor {
        let mut redactor = Redactor { known: Vec::new() };
        redactor.learn(&server.base, "base");
        redactor
    }

    fn learn(&mut self, value: &str, name: &str) {
        if !value.is_empty() && !self.known.iter().any(|(known, _)| known == value) {
            self.known.push((value.to_owned(), format!("[{name}]")));
            self.known.sort_by_key(|(known, _)| std::cmp::Reverse(known.len()));
        }
    }

    fn answer(&self, answer: &Answer) -> Value {
        json!({ "status": answer.status, "body": self.value(&answer.body) })
    }

    fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => Value::Array(items.iter().map(|item| self.value(item)).collect()),
            Value::Object(fields) => Value::Object(fields.iter().map(|(key, field)| (key.clone(), self.field(key, field))).collect()),
            other => other.clone(),
        }
    }

    /// Numbers that are times (Stripe's seconds since 1970) are redacted by their field's name.
    fn field(&self, key: &str, value: &Value) -> Value {
        let is_epoch = matches!(key, "created" | "current_period_end" | "current_period_start" | "currentPeriodEnd");
        if is_epoch && value.is_number() {
            return json!("[epoch]");
        }
        // An error code is never run-dependent (`card_declined` is no Stripe card id).
        if key == "code" {
            return value.clone();
        }
        self.value(value)
    }

    fn text(&self, text: &str) -> String {
        let mut redacted = text.to_owned();
        for (known, name) in &self.known {
            redacted = redacted.replace(known.as_str(), name);
        }
        if is_timestamp(&redacted) {
            return "[timestamp]".into();
        }
        if is_date(&redacted) {
            return "[date]".into();
        }
        if is_uuid(&redacted) {
            return "[uuid]".into();
        }
        if let Some(kind) = stripe_id_kind(&redacted) {
            return format!("[stripe {kind}]");
        }
        redacted
    }
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10 && bytes[4] == b'-' && bytes[7] == b'-' && text.chars().filter(char::is_ascii_digit).count() == 8
}

fn is_timestamp(text: &str) -> bool {
    text.len() >= 20 && is_date(&text[..10]) && text.as_bytes()[10] == b'T'
}

fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(at, byte)| if [8, 13, 18, 23].contains(&at) { *byte == b'-' } else { byte.is_ascii_hexdigit() })
}

/// `sub_1Abc…` is a Stripe subscription id; its kind is the prefix (and `secret` for a client
/// secret `seti_…_secret_…`).
fn stripe_id_kind(text: &str) -> Option<String> {
    const PREFIXES: &[&str] = &["cus", "sub", "seti", "pi", "cs_test", "cs", "in", "evt", "pm", "si", "ii", "price", "prod", "plan", "ch"];
    let (prefix, rest) = PREFIXES.iter().find_map(|prefix| text.strip_prefix(&format!("{prefix}_")).map(|rest| (*prefix, rest)))?;
    // Stripe's (and localstripe's) ids are long and random: some upper case or a digit.
    let looks_generated = rest.len() >= 10 && rest.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase());
    if !looks_generated || !rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(if rest.contains("_secret_") { format!("{prefix} secret") } else { prefix.to_owned() })
}

/// Pins `answer` as the snapshot `name`.
fn check(redactor: &Redactor, name: &str, answer: &Answer) {
    insta::assert_json_snapshot!(name, redactor.answer(answer));
}

/// The body and status of an `ApiError` as the server answers it.
async fn error_answer(error: web::error::ApiError) -> Answer {
    let response = actix_web::ResponseError::error_response(&error);
    let status = response.status().as_u16();
    let headers = reqwest::header::HeaderMap::new();
    let bytes = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer { status, body, headers }
}

/// Ada's records, as the routes name them.
struct Ada {
    client: Client,
    id: String,
    term_id: String,
}

async fn ada_with_a_term(server: &TestServer, redactor: &mut Redactor) -> Ada {
    let client = server.client();
    server.verified_user(&client, "ada@example.org").await;
    let searched = client.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "kidney organoid maturation" })).await;
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("Ada");
    let term_id = searched.body["termId"].as_str().expect("a term id").to_owned();
    redactor.learn(&user.id.to_string(), "ada_id");
    redactor.learn(&term_id, "term_id");
    redactor.learn(searched.body["digestId"].as_str().unwrap_or_default(), "first_digest_id");
    check(redactor, "immediate_search_ok", &searched);
    Ada { client, id: user.id.to_string(), term_id }
}

#[actix_web::test]
async fn account_routes_answer_as_pinned() {
    let server = TestServer::start().await;
    let mut redactor = Redactor::new(&server);
    let anonymous = server.client();
    check(&redactor, "config_ok", &anonymous.get("/api/config").await);

    // The contract, as anyone may read it; the TypeScript is the checked-in file (pinned there).
    check(&redactor, "contract_ok", &anonymous.get("/api/contract").await);
    let mut typescript = anonymous.get("/api/contract.ts").await;
    let checked_in = include_str!("../../client/src/api/contract.ts");
    assert_eq!(typescript.body, Value::String(checked_in.to_owned()), "/api/contract.ts serves the checked-in TypeScript");
    typescript.body = Value::String("[web/client/src/api/contract.ts, as checked in]".to_owned());
    check(&redactor, "contract_ts_ok", &typescript);
    let mut openapi = anonymous.get("/api/openapi.json").await;
    assert_eq!(openapi.body["openapi"], "3.1.0", "/api/openapi.json is an OpenAPI 3.1 document");
    openapi.body = Value::String("[the OpenAPI document, checked by contract::the_openapi_document_*]".to_owned());
    check(&redactor, "openapi_ok", &openapi);

    // Sign-up, both forms, and their refusals.
    let erin = server.client();
    let signed_up = erin.post("/api/signup", signup_body("erin@example.org", PASSWORD)).await;
    redactor.learn(signed_up.body["user"]["id"].as_str().unwrap_or_default(), "erin_id");
    check(&redactor, "signup_ok", &signed_up);
    check(&redactor, "auth_signup_ok", &server.client().post("/api/auth/signup", standalone_signup_body("frank@example.org", PASSWORD)).await);
    // An address already signed up gets the same answer (and its owner a mail): no enumeration.
    check(&redactor, "signup_existing_address", &server.client().post("/api/signup", signup_body("erin@example.org", PASSWORD)).await);
    check(&redactor, "signup_invalid", &server.client().post("/api/signup", signup_body("not-an-address", "short")).await);
    check(&redactor, "signup_broken_json", &server.client().post_raw("/api/signup", &[("Content-Type", "application/json")], "{".into()).await);
    let huge = json!({ "email": "x".repeat(70 * 1024) }).to_string();
    check(&redactor, "signup_too_large", &server.client().post_raw("/api/signup", &[("Content-Type", "application/json")], huge).await);
    check(
        &redactor,
        "signup_cross_site",
        &server.client().post_raw("/api/signup", &[("Content-Type", "application/json"), ("Origin", "https://elsewhere.example")], "{}".into()).await,
    );

    // Sign-in before verification, verification, sign-in.
    let unverified = server.client().post("/api/auth/login", json!({ "email": "erin@example.org", "password": PASSWORD })).await;
    check(&redactor, "auth_login_not_verified", &unverified);
    check(&redactor, "auth_resend_verification_ok", &anonymous.post("/api/auth/resend-verification", json!({ "email": "frank@example.org" })).await);
    let verification = server.wait_for_mail_to("erin@example.org", "Verify your email").await;
    let token = token_of(&link_in(&verification, "/verify-email?token="));
    redactor.learn(&token, "verification_token");
    check(&redactor, "verify_email_no_token", &anonymous.get("/api/verify-email").await);
    check(&redactor, "verify_email_invalid", &anonymous.get(&format!("/api/verify-email?token={}", "A".repeat(43))).await);
    let verified = erin.get(&format!("/api/verify-email?token={token}")).await;
    check(&redactor, "verify_email_ok", &verified);
    let login = server.client().post("/api/auth/login", json!({ "email": "erin@example.org", "password": PASSWORD })).await;
    check(&redactor, "auth_login_ok", &login);
    check(
        &redactor,
        "auth_login_wrong_password",
        &anonymous.post("/api/auth/login", json!({ "email": "erin@example.org", "password": "Wrong-123" })).await,
    );
    check(&redactor, "auth_login_not_an_object", &anonymous.post("/api/auth/login", json!("erin")).await);
    check(&redactor, "auth_me_ok", &erin.get("/api/auth/me").await);
    check(&redactor, "auth_user_ok", &erin.get("/api/auth/user").await);
    check(&redactor, "auth_me_anonymous", &anonymous.get("/api/auth/me").await);
    check(&redactor, "billing_disabled", &erin.post("/api/create-subscription", json!({ "tier": "pro" })).await);

    // A deactivated account.
    server.client().post("/api/signup", signup_body("gus@example.org", PASSWORD)).await;
    server.state.store.accounts().update_user_by_email("gus@example.org", |user| user.is_active = false).expect("deactivated");
    check(&redactor, "auth_login_deactivated", &anonymous.post("/api/auth/login", json!({ "email": "gus@example.org", "password": PASSWORD })).await);

    // A password reset.
    check(&redactor, "forgot_password_ok", &anonymous.post("/api/forgot-password", json!({ "email": "erin@example.org" })).await);
    let reset_mail = server.wait_for_mail_to("erin@example.org", "Reset").await;
    let reset_token = token_of(&link_in(&reset_mail, "token="));
    let reset = |token: &str| json!({ "token": token, "password": "Another-456", "confirmPassword": "Another-456" });
    check(&redactor, "reset_password_invalid", &anonymous.post("/api/reset-password", reset(&"A".repeat(43))).await);
    check(&redactor, "reset_password_ok", &anonymous.post("/api/reset-password", reset(&reset_token)).await);

    check(&redactor, "auth_logout_ok", &login_client(&server, "erin@example.org", "Another-456").await.post("/api/auth/logout", json!({})).await);

    // Paths and methods no route takes, and a server without billing.
    check(&redactor, "unknown_path", &anonymous.get("/api/no-such-thing").await);
    check(&redactor, "method_not_allowed", &anonymous.send("PUT", "/api/config", None).await);
}

async fn login_client(server: &TestServer, email: &str, password: &str) -> Client {
    let client = server.client();
    let answer = client.post("/api/auth/login", json!({ "email": email, "password": password })).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    client
}

#[actix_web::test]
async fn term_digest_and_rating_routes_answer_as_pinned() {
    let server = TestServer::start().await;
    let mut redactor = Redactor::new(&server);
    let ada = ada_with_a_term(&server, &mut redactor).await;
    let client = &ada.client;
    let anonymous = server.client();
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("Ada");

    // Every route of a signed-in user, called by nobody signed in.
    let mut refusals = serde_json::Map::new();
    for route in web::app::api_route_table().routes() {
        if PUBLIC_OR_SECRET.contains(&route.path.as_str()) {
            continue;
        }
        let path = route
            .path
            .replace("{user_id}", &ada.id)
            .replace("{user_email}", "ada@example.org")
            .replace("{term_id}", &ada.term_id)
            .replace("{subscription_id}", "sub_snapshot");
        let body = (route.method != actix_web::http::Method::GET).then(|| json!({}));
        let answer = anonymous.send(route.method.as_str(), &path, body.as_ref()).await;
        refusals.insert(format!("{} {}", route.method, route.path), redactor.answer(&answer));
    }
    insta::assert_json_snapshot!("every_signed_in_route_anonymous", Value::Object(refusals));

    // The user and her preferences.
    check(&redactor, "user_by_email_ok", &client.get("/api/users/ada@example.org").await);
    check(&redactor, "user_by_email_other", &client.get("/api/users/bob@example.org").await);
    let preferences = format!("/api/users/{}/preferences", ada.id);
    check(&redactor, "preferences_get_ok", &client.get(&preferences).await);
    check(&redactor, "preferences_get_anonymous", &anonymous.get(&preferences).await);
    check(&redactor, "preferences_patch_ok", &client.patch(&preferences, json!({ "weeklyDigest": false })).await);
    check(&redactor, "preferences_patch_free_plan", &client.patch(&preferences, json!({ "deliveryDay": "friday" })).await);
    check(&redactor, "preferences_patch_bad_day", &client.patch(&preferences, json!({ "deliveryDay": "someday" })).await);

    // Terms.
    let terms = format!("/api/users/{}/search-terms", ada.id);
    check(&redactor, "search_terms_ok", &client.get(&terms).await);
    let search = |term: &str| json!({ "email": "ada@example.org", "searchTerm": term });
    check(&redactor, "immediate_search_followed", &client.post("/api/immediate-search", search("Kidney  organoid maturation")).await);
    check(&redactor, "immediate_search_invalid", &client.post("/api/immediate-search", search("")).await);
    check(
        &redactor,
        "immediate_search_other_account",
        &client.post("/api/immediate-search", json!({ "email": "bob@example.org", "searchTerm": "liver" })).await,
    );
    check(&redactor, "immediate_search_over_limit", &client.post("/api/immediate-search", search("liver toxicity of phthalates")).await);
    check(&redactor, "immediate_search_anonymous", &anonymous.post("/api/immediate-search", search("liver")).await);

    // Digests: one with a paper, rated in the dashboard and through a mailed link.
    let digest = crate::access::digest_with_a_paper(&server, &user, "kidney organoid maturation").await;
    redactor.learn(&digest.id.to_string(), "digest_id");
    check(&redactor, "digests_ok", &client.get(&format!("/api/users/{}/digests", ada.id)).await);
    let ratings = format!("/api/search-terms/{}/ratings", ada.term_id);
    let rate = |paper_key: &str| json!({ "digestId": digest.id, "paperKey": paper_key, "verdict": "notRelevant" });
    check(&redactor, "ratings_put_ok", &client.send("PUT", &ratings, Some(&rate("pmid:31415"))).await);
    check(&redactor, "ratings_put_not_in_digest", &client.send("PUT", &ratings, Some(&rate("pmid:1"))).await);
    check(&redactor, "ratings_get_ok", &client.get(&ratings).await);
    check(&redactor, "ratings_delete_ok", &client.delete(&format!("{ratings}?paperKey=pmid:31415")).await);
    check(&redactor, "ratings_delete_no_rating", &client.delete(&format!("{ratings}?paperKey=pmid:31415")).await);
    check(&redactor, "ratings_delete_no_key", &client.delete(&ratings).await);
    let rating_key = server.state.store.ratings().link_key().expect("db");
    let link = |digest_id: uuid::Uuid, at: chrono::DateTime<chrono::Utc>| {
        engine::signed::RatingClaim::new(user.id, digest_id, 0, engine::rating::Verdict::Relevant, at).sign(&rating_key)
    };
    let token = link(digest.id, chrono::Utc::now());
    redactor.learn(&token, "rating_token");
    check(&redactor, "rating_link_get_ok", &anonymous.get(&format!("/api/ratings/link?token={token}")).await);
    check(&redactor, "rating_link_post_ok", &anonymous.post("/api/ratings/link", json!({ "token": token })).await);
    check(&redactor, "rating_link_invalid", &anonymous.post("/api/ratings/link", json!({ "token": "A".repeat(43) })).await);
    let old = link(digest.id, chrono::Utc::now() - chrono::Duration::days(400));
    check(&redactor, "rating_link_expired", &anonymous.post("/api/ratings/link", json!({ "token": old })).await);
    let gone = link(uuid::Uuid::new_v4(), chrono::Utc::now());
    check(&redactor, "rating_link_digest_gone", &anonymous.post("/api/ratings/link", json!({ "token": gone })).await);

    // Seeds, feeds, citations and the lab channel.
    server.index_recorded_papers().await;
    let seeds = format!("/api/search-terms/{}/seeds", ada.term_id);
    check(&redactor, "seeds_post_ok", &client.post(&seeds, json!({ "ids": "6677511" })).await);
    check(&redactor, "seeds_post_bad_lines", &client.post(&seeds, json!({ "ids": "6677511\nnot an id", "file": "plain text" })).await);
    check(&redactor, "seeds_post_nothing", &client.post(&seeds, json!({ "ids": " " })).await);
    let feeds = client.get("/api/feeds").await;
    let feed_token = |answer: &Answer| {
        answer.body["digestsUrl"]
            .as_str()
            .and_then(|url| url.split("/feeds/").nth(1))
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_owned()
    };
    redactor.learn(&feed_token(&feeds), "feed_token");
    check(&redactor, "feeds_get_ok", &feeds);
    let renewed = client.post("/api/feeds/renew", json!({})).await;
    redactor.learn(&feed_token(&renewed), "renewed_feed_token");
    check(&redactor, "feeds_renew_ok", &renewed);
    let paper_citation = "/api/papers/citation?key=pmid:31415&format=bibtex";
    check(&redactor, "paper_citation_ok", &client.get(paper_citation).await);
    check(&redactor, "paper_citation_not_in_digests", &client.get("/api/papers/citation?key=pmid:1").await);
    check(&redactor, "digest_citations_ok", &client.get(&format!("/api/digests/{}/citations?format=ris", digest.id)).await);
    check(&redactor, "digest_citations_bad_format", &client.get(&format!("/api/digests/{}/citations?format=word", digest.id)).await);
    check(&redactor, "term_citations_ok", &client.get(&format!("/api/search-terms/{}/citations", ada.term_id)).await);
    let citation_token = engine::signed::CitationClaim { user_id: user.id, digest_id: digest.id }.sign(&rating_key);
    redactor.learn(&citation_token, "citation_token");
    check(&redactor, "citation_link_ok", &anonymous.get(&format!("/api/citations/link?token={citation_token}")).await);
    check(&redactor, "citation_link_invalid", &anonymous.get(&format!("/api/citations/link?token={}", "A".repeat(43))).await);
    let channel = format!("/api/search-terms/{}/channel", ada.term_id);
    let hook = json!({ "url": "https://hooks.example.org/services/T000/B000/secret" });
    check(&redactor, "channel_put_team_only", &client.send("PUT", &channel, Some(&hook)).await);
    check(&redactor, "channel_test_team_only", &client.post(&format!("{channel}/test"), json!({})).await);
    server.state.store.accounts().update_user(user.id, |stored| stored.subscription_tier = engine::Tier::Team).expect("the Team plan");
    check(&redactor, "channel_put_private_address", &client.send("PUT", &channel, Some(&json!({ "url": "https://10.0.0.8/hook" }))).await);
    check(&redactor, "channel_put_ok", &client.send("PUT", &channel, Some(&hook)).await);
    check(&redactor, "channel_get_ok", &client.get(&channel).await);
    let operator = server.operator().await;
    check(&redactor, "admin_channels_ok", &operator.get("/api/admin/channels").await);
    check(&redactor, "channel_delete_ok", &client.delete(&channel).await);
    check(&redactor, "channel_delete_none", &client.delete(&channel).await);
    server.state.store.accounts().update_user(user.id, |stored| stored.subscription_tier = engine::Tier::Free).expect("back on the free plan");

    // Mail: a resend, a test mail, a triggered digest.
    let resend = |term: &str| json!({ "searchTerm": term });
    check(&redactor, "resend_email_ok", &client.post("/api/resend-email", resend("kidney organoid maturation")).await);
    check(&redactor, "resend_email_no_digest", &client.post("/api/resend-email", resend("liver")).await);
    let test_mail = |email: &str, kind: &str| json!({ "email": email, "type": kind });
    check(&redactor, "test_email_ok", &client.post("/api/test-email", test_mail("ada@example.org", "welcome")).await);
    check(&redactor, "test_email_other_address", &client.post("/api/test-email", test_mail("bob@example.org", "welcome")).await);
    check(&redactor, "test_email_bad_type", &client.post("/api/test-email", test_mail("ada@example.org", "weekly")).await);
    check(&redactor, "test_email_no_email", &client.post("/api/test-email", test_mail("", "welcome")).await);
    check(&redactor, "trigger_digest_free_plan", &client.post("/api/trigger-digest", json!({})).await);
    server.state.store.accounts().update_user(user.id, |stored| stored.subscription_tier = engine::Tier::Pro).expect("a paid plan");
    check(&redactor, "trigger_digest_ok", &client.post("/api/trigger-digest", json!({})).await);

    // Renaming and deleting the term; the rating link of its digest then names a term gone.
    let term = format!("/api/search-terms/{}", ada.term_id);
    check(&redactor, "search_term_patch_ok", &client.patch(&term, json!({ "term": "kidney organoid growth" })).await);
    check(&redactor, "search_term_patch_nothing", &client.patch(&term, json!({})).await);
    check(
        &redactor,
        "search_term_patch_unknown",
        &client.patch(&format!("/api/search-terms/{}", uuid::Uuid::new_v4()), json!({ "term": "x y" })).await,
    );
    check(&redactor, "search_term_delete_ok", &client.delete(&term).await);
    check(&redactor, "rating_link_term_gone", &anonymous.post("/api/ratings/link", json!({ "token": token })).await);

    // Unsubscribing.
    let unsubscribe = server.state.store.digests().unsubscribe_token(user.id).expect("db");
    redactor.learn(&unsubscribe, "unsubscribe_token");
    check(&redactor, "unsubscribe_get_ok", &anonymous.get(&format!("/api/unsubscribe/{unsubscribe}")).await);
    check(&redactor, "unsubscribe_post_ok", &anonymous.post(&format!("/api/unsubscribe/{unsubscribe}"), json!({})).await);
    check(&redactor, "unsubscribe_invalid", &anonymous.get(&format!("/api/unsubscribe/{}", "A".repeat(43))).await);
}

#[actix_web::test]
async fn the_backup_route_answers_as_pinned() {
    let backups = tempfile::tempdir().expect("a backup folder");
    let server = TestServer::start_with(|serve| serve.backup_dir = Some(backups.path().to_owned())).await;
    let mut redactor = Redactor::new(&server);
    redactor.learn(&backups.path().display().to_string(), "backups");
    let operator = server.operator().await;
    let mut made = operator.post("/api/admin/backup", json!({})).await;
    assert_eq!(made.status, 200, "{}", made.body);
    // Sizes, file counts, durations and the dated folder depend on the run; `backup` checks
    // what they say.
    let path = made.body["path"].as_str().unwrap_or_default().to_owned();
    assert!(path.starts_with(&backups.path().join("papertide-").display().to_string()), "{path}");
    made.body["path"] = json!("[backups]/papertide-[time]");
    for figure in ["storeBytes", "indexBytes", "files", "tookMs"] {
        assert!(made.body[figure].is_number(), "{figure}: {}", made.body);
        made.body[figure] = json!(format!("[{figure}]"));
    }
    check(&redactor, "admin_backup_ok", &made);
    let dest = backups.path().join("today").display().to_string();
    check(&redactor, "admin_backup_dest_named", &operator.post("/api/admin/backup", json!({ "dest": dest })).await);
    // The local operator (the command line, on the data directory's socket) names its folder.
    let local = actix_web::test::init_service(web::app::create_local_app(server.state.clone())).await;
    let local_backup = |dest: &str| actix_web::test::TestRequest::post().uri("/api/admin/backup").set_json(json!({ "dest": dest })).to_request();
    assert_eq!(actix_web::test::call_service(&local, local_backup(&dest)).await.status(), 200);
    let again = actix_web::test::call_service(&local, local_backup(&dest)).await;
    check(&redactor, "admin_backup_dest_not_empty", &local_answer(again).await);
    check(&redactor, "admin_backup_relative_dest", &local_answer(actix_web::test::call_service(&local, local_backup("backups/today")).await).await);
    let unset = TestServer::start().await;
    check(&redactor, "admin_backup_dir_unset", &unset.operator().await.post("/api/admin/backup", json!({ "dest": null })).await);
}

/// The status and JSON body of an answer of the local app.
async fn local_answer(response: actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>) -> Answer {
    let status = response.status().as_u16();
    let bytes = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer { status, body, headers: reqwest::header::HeaderMap::new() }
}

#[actix_web::test]
async fn limits_and_plan_refusals_answer_as_pinned() {
    let server = TestServer::start_with(|serve| {
        serve.rate_limit_login = Some("1/1h".into());
        serve.metrics_token = Some("metrics-secret".into());
    })
    .await;
    let redactor = Redactor::new(&server);
    let anonymous = server.client();
    let login = json!({ "email": "nobody@example.org", "password": PASSWORD });
    anonymous.post("/api/auth/login", login.clone()).await;
    check(&redactor, "rate_limited", &anonymous.post("/api/auth/login", login).await);
    check(&redactor, "metrics_token_required", &anonymous.get("/metrics").await);

    // A free plan's digests used up: a paid trigger is refused, then (back on free) the terms
    // are saved without a digest.
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("Ada");
    let template = crate::access::digest_with_a_paper(&server, &user, "kidney organoid maturation").await;
    server.use_up_free_digests("ada@example.org", &template, chrono::Utc::now());
    let searched = ada.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "kidney organoid maturation" })).await;
    let mut redactor = redactor;
    redactor.learn(searched.body["termId"].as_str().unwrap_or_default(), "term_id");
    check(&redactor, "immediate_search_free_digests_used", &searched);

    // The team plan's term limit, reached through the store.
    server.state.store.accounts().update_user(user.id, |stored| stored.subscription_tier = engine::Tier::Team).expect("a team plan");
    let mut count = 0;
    loop {
        let term = engine::search_term::SearchTerm::new(
            engine::search_term::TermId(uuid::Uuid::new_v4()),
            user.id,
            format!("topic number {count}"),
            engine::Tier::Team,
            chrono::Utc::now(),
        );
        match server.state.store.terms().add(&term, engine::Tier::Team, false).expect("db") {
            store::search_terms::Added::Added(_) => count += 1,
            _ => break,
        }
    }
    let over = ada.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "one topic too many" })).await;
    check(&redactor, "immediate_search_team_limit", &over);
}

#[actix_web::test]
async fn billing_routes_answer_as_pinned() {
    let billing = Billing::start().await;
    let server = &billing.server;
    let mut redactor = Redactor::new(server);
    redactor.learn(&billing.stripe.api_url(), "stripe");
    let ada = billing.user("ada@example.org", 1).await;
    let user = billing.user_record("ada@example.org");
    redactor.learn(&user.id.to_string(), "ada_id");

    check(&redactor, "create_subscription_bad_tier", &ada.post("/api/create-subscription", json!({ "tier": "gold" })).await);
    let checkout = ada.post("/api/create-checkout-session", json!({ "tier": "pro" })).await;
    check(&redactor, "create_checkout_session_ok", &checkout);
    let session_id = checkout.body["clientSecret"].as_str().unwrap_or_default().split("_secret_").next().unwrap_or_default().to_owned();
    check(&redactor, "session_status_ok", &ada.get(&format!("/api/session-status?session_id={session_id}")).await);
    check(&redactor, "session_status_no_id", &ada.get("/api/session-status").await);
    check(&redactor, "session_status_unknown", &ada.get("/api/session-status?session_id=cs_test_nothing").await);

    let setup = ada.post("/api/create-subscription", json!({ "tier": "pro" })).await;
    check(&redactor, "create_subscription_ok", &setup);
    let declined = billing.pay(&ada, "pro", "4000000000000341").await;
    check(&redactor, "create_subscription_declined", &declined);
    let paid = billing.pay(&ada, "pro", CARD_OK).await;
    check(&redactor, "create_subscription_paid", &paid);
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    billing.wait_for_tier("ada@example.org", engine::Tier::Pro).await;
    // localstripe delivers its own webhooks for the payment about two seconds later.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    check(&redactor, "subscription_status_ok", &ada.get(&format!("/api/subscriptions/{subscription_id}/status")).await);
    check(&redactor, "subscription_status_unknown", &ada.get("/api/subscriptions/sub_nothing/status").await);
    check(&redactor, "create_subscription_already_active", &ada.post("/api/create-subscription", json!({ "tier": "pro" })).await);
    check(&redactor, "create_checkout_session_paid_plan", &ada.post("/api/create-checkout-session", json!({ "tier": "team" })).await);
    check(&redactor, "create_checkout_session_already_active", &ada.post("/api/create-checkout-session", json!({ "tier": "pro" })).await);
    check(&redactor, "debug_webhook_status_ok", &ada.get("/api/debug-webhook-status").await);
    check(&redactor, "fix_subscription_ok", &ada.post("/api/fix-subscription", json!({})).await);
    let operator = server.operator().await;
    let repair = format!("/api/admin/users/{}/repair-subscription", user.id);
    check(&redactor, "admin_repair_subscription_ok", &operator.post(&repair, json!({})).await);

    let object = json!({ "id": subscription_id, "object": "subscription" });
    let updated = event("evt_snapshot_1", "customer.subscription.updated", object);
    check(&redactor, "stripe_webhook_ok", &billing.webhook(&updated, chrono::Utc::now().timestamp(), WEBHOOK_SECRET).await);
    check(&redactor, "stripe_webhook_bad_signature", &billing.webhook(&updated, chrono::Utc::now().timestamp(), "whsec_wrong").await);

    let team = billing.pay(&ada, "team", CARD_OK).await;
    assert_eq!(team.status, 200, "{}", team.body);
    billing.wait_for_tier("ada@example.org", engine::Tier::Team).await;
    check(&redactor, "create_subscription_downgrade", &ada.post("/api/create-subscription", json!({ "tier": "pro" })).await);
    let second = ada.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "second topic here" })).await;
    assert!(second.status < 300, "{}", second.body);
    check(&redactor, "cancel_subscription_too_many_terms", &ada.post("/api/cancel-subscription", json!({})).await);
    let terms = server.state.store.terms().of_user(user.id).expect("db");
    assert_eq!(ada.delete(&format!("/api/search-terms/{}", terms[1].id.0)).await.status, 200);
    check(&redactor, "cancel_subscription_ok", &ada.post("/api/cancel-subscription", json!({})).await);
    check(&redactor, "cancel_subscription_nothing", &ada.post("/api/cancel-subscription", json!({})).await);
}

/// The counts by week name the weeks of the run's date: pinned as weeks before this one.
fn weeks_redacted(mut answer: Answer) -> Answer {
    for series in ["signupsByWeek", "digestsByWeek"] {
        if let Some(weeks) = answer.body[series].as_array_mut() {
            let count = weeks.len();
            for (at, week) in weeks.iter_mut().enumerate() {
                week["week"] = json!(format!("[this week - {}]", count - 1 - at));
            }
        }
    }
    answer
}

#[actix_web::test]
async fn operator_routes_answer_as_pinned() {
    let server = TestServer::start().await;
    let mut redactor = Redactor::new(&server);
    let operator = server.operator().await;
    let bob = server.client();
    server.verified_user(&bob, "bob@example.org").await;
    let dan = server.client();
    server.sign_up(&dan, "dan@example.org").await;
    let id_of = |email: &str| server.state.store.accounts().user_by_email(email).expect("db").expect("a user").id.to_string();
    let (operator_id, bob_id, dan_id) = (id_of(crate::common::OPERATOR), id_of("bob@example.org"), id_of("dan@example.org"));
    redactor.learn(&operator_id, "operator_id");
    redactor.learn(&bob_id, "bob_id");
    redactor.learn(&dan_id, "dan_id");
    server.wait_for_empty_queue().await;

    check(&redactor, "admin_not_an_operator", &bob.get("/api/admin/stats").await);
    check(&redactor, "admin_anonymous", &server.client().get("/api/admin/stats").await);
    check(&redactor, "admin_stats_ok", &weeks_redacted(operator.get("/api/admin/stats").await));
    check(&redactor, "admin_users_ok", &operator.get("/api/admin/users?q=EXAMPLE.org").await);
    check(&redactor, "admin_users_bad_plan", &operator.get("/api/admin/users?plan=gold").await);

    let user_path = |id: &str, what: &str| format!("/api/admin/users/{id}/{what}");
    check(&redactor, "admin_user_plan_ok", &operator.post(&user_path(&bob_id, "plan"), json!({ "plan": "pro" })).await);
    check(&redactor, "admin_user_plan_unknown", &operator.post(&user_path(&bob_id, "plan"), json!({ "plan": "gold" })).await);
    check(&redactor, "admin_user_bad_id", &operator.post(&user_path("42", "plan"), json!({ "plan": "pro" })).await);
    let nobody = uuid::Uuid::new_v4().to_string();
    redactor.learn(&nobody, "nobody_id");
    check(&redactor, "admin_user_unknown", &operator.post(&user_path(&nobody, "plan"), json!({ "plan": "pro" })).await);
    check(&redactor, "admin_user_operator_ok", &operator.post(&user_path(&bob_id, "operator"), json!({ "operator": true })).await);
    check(&redactor, "admin_user_operator_self", &operator.post(&user_path(&operator_id, "operator"), json!({ "operator": false })).await);
    check(&redactor, "admin_user_operator_by_settings", &bob.post(&user_path(&operator_id, "operator"), json!({ "operator": false })).await);
    check(&redactor, "admin_user_disabled_ok", &operator.post(&user_path(&bob_id, "disabled"), json!({ "disabled": true })).await);
    check(&redactor, "admin_user_disabled_self", &operator.post(&user_path(&operator_id, "disabled"), json!({ "disabled": true })).await);
    check(&redactor, "admin_user_resend_verification_ok", &operator.post(&user_path(&dan_id, "resend-verification"), json!({})).await);
    check(&redactor, "admin_user_resend_verification_verified", &operator.post(&user_path(&bob_id, "resend-verification"), json!({})).await);

    // Mail given up: one sent again, one dropped.
    server.wait_for_empty_queue().await;
    let store = &server.state.store;
    let mut dead = Vec::new();
    for to in ["erin@example.org", "fay@example.org"] {
        let mail = engine::mail::RenderedMail {
            to: to.into(),
            subject: "A note".into(),
            html: "<p>A note</p>".into(),
            text: "A note".into(),
            action_url: None,
            list_unsubscribe: None,
        };
        let id = store.mail().enqueue(&mail, chrono::Utc::now()).expect("queued");
        store.mail().move_to_dead(id, "550 mailbox unavailable").expect("given up");
        dead.push(id);
    }
    // The ids are small numbers: named here rather than learnt (they would be found in times).
    let mut mail = operator.get("/api/admin/mail").await;
    for entry in mail.body["dead"].as_array_mut().into_iter().flatten() {
        entry["id"] = json!("[mail id]");
    }
    check(&redactor, "admin_mail_ok", &mail);
    check(&redactor, "admin_mail_retry_ok", &operator.post(&format!("/api/admin/mail/dead/{}/retry", dead[0]), json!({})).await);
    check(&redactor, "admin_mail_drop_ok", &operator.delete(&format!("/api/admin/mail/dead/{}", dead[1])).await);
    check(&redactor, "admin_mail_unknown", &operator.delete(&format!("/api/admin/mail/dead/{}", dead[1])).await);

    check(&redactor, "admin_billing_ok", &operator.get("/api/admin/billing").await);
    check(&redactor, "admin_repair_billing_off", &operator.post(&user_path(&bob_id, "repair-subscription"), json!({})).await);
    check(&redactor, "admin_source_not_harvested", &operator.post("/api/admin/sources/pubmed/harvest", json!({})).await);
}

#[actix_web::test]
async fn source_routes_answer_as_pinned() {
    use crate::common::replay::{ReplayServer, Reply};
    const BIORXIV_PAGE: &str = "biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";
    let peer = ReplayServer::start().await;
    let today = chrono::Utc::now().date_naive();
    for back in 0..=1 {
        let day = today - chrono::Duration::days(back);
        // Slow enough that the first run is still going when the operator asks for another.
        let page = Reply::fixture(BIORXIV_PAGE).replace("\"total\": \"873\"", "\"total\": \"10\"").delayed(Duration::from_secs(3));
        peer.on(&format!("/details/biorxiv/{day}/{day}/0/json")).reply(page);
    }
    let server = TestServer::start_with(|serve| {
        serve.sources.biorxiv_url = Some(peer.url("/").to_string());
        serve.harvest_sources = Some(vec!["biorxiv".into()]);
        serve.harvest_lookback_days = Some(2);
    })
    .await;
    let redactor = Redactor::new(&server);
    let operator = server.operator().await;
    let is_busy = || server.state.board.get("harvester-biorxiv").is_some_and(|status| status.busy);
    let harvested = || server.state.store.papers().harvest_state(engine::paper::Source::Biorxiv).is_ok_and(|state| state.last_success_at.is_some());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !is_busy() && !harvested() {
        assert!(std::time::Instant::now() < deadline, "the first harvest never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    check(&redactor, "admin_source_harvest_running", &operator.post("/api/admin/sources/biorxiv/harvest", json!({})).await);
    while is_busy() || !harvested() {
        assert!(std::time::Instant::now() < deadline, "the first harvest never ended");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    check(&redactor, "admin_sources_ok", &operator.get("/api/admin/sources").await);
    check(&redactor, "admin_source_harvest_ok", &operator.post("/api/admin/sources/biorxiv/harvest", json!({})).await);
}

#[actix_web::test]
async fn a_payment_service_that_does_not_answer_is_pinned() {
    let dead = format!("http://127.0.0.1:{}", crate::common::free_port());
    let server = TestServer::start_with(|serve| {
        serve.stripe = web::config::StripeArgs {
            stripe_secret_key: Some("sk_test_nothing".into()),
            stripe_publishable_key: Some("pk_test_nothing".into()),
            stripe_webhook_secret: Some(WEBHOOK_SECRET.into()),
            stripe_api_url: Some(dead.clone()),
            stripe_js_url: Some(format!("{dead}/v3")),
            stripe_price_pro: Some("price_pro".into()),
            stripe_price_team: Some("price_team".into()),
        };
    })
    .await;
    let redactor = Redactor::new(&server);
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    check(&redactor, "payment_service_unavailable", &ada.post("/api/create-subscription", json!({ "tier": "pro" })).await);
}

#[actix_web::test]
async fn export_and_deletion_answer_as_pinned() {
    let server = TestServer::start().await;
    let mut redactor = Redactor::new(&server);
    let ada = ada_with_a_term(&server, &mut redactor).await;
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("Ada");
    let digest = crate::access::digest_with_a_paper(&server, &user, "kidney organoid maturation").await;
    redactor.learn(&digest.id.to_string(), "digest_id");
    server.state.store.billing().set_plan(user.id, engine::Tier::Pro).expect("a plan change");
    let mut export = ada.client.get(&format!("/api/users/{}/export", ada.id)).await;
    // The immediate search's own digest (if any) depends on the run: only the recorded one is pinned.
    if let Some(digests) = export.body["digests"].as_array_mut() {
        digests.retain(|kept| kept["id"] == digest.id.to_string());
    }
    check(&redactor, "export_ok", &export);

    let operator = server.operator().await;
    let operator_id = server.state.store.accounts().user_by_email(crate::common::OPERATOR).expect("db").expect("the operator").id.to_string();
    redactor.learn(&operator_id, "operator_id");
    check(&redactor, "admin_delete_user_not_an_operator", &ada.client.delete(&format!("/api/admin/users/{operator_id}")).await);
    check(&redactor, "admin_delete_user_self", &operator.delete(&format!("/api/admin/users/{operator_id}")).await);
    let bob = server.client();
    server.verified_user(&bob, "bob@example.org").await;
    let bob_id = server.state.store.accounts().user_by_email("bob@example.org").expect("db").expect("Bob").id.to_string();
    check(&redactor, "admin_delete_user_ok", &operator.delete(&format!("/api/admin/users/{bob_id}")).await);

    let wrong = ada.client.post(&format!("/api/users/{}/delete", ada.id), json!({ "password": "Not-the-password-1" })).await;
    check(&redactor, "delete_account_wrong_password", &wrong);
    check(&redactor, "delete_account_ok", &ada.client.post(&format!("/api/users/{}/delete", ada.id), json!({ "password": PASSWORD })).await);
}

/// The answers of faults a test cannot cause without breaking the machine, from the constructors
/// the handlers call.
#[actix_web::test]
async fn fault_answers_are_pinned() {
    use web::error::ApiError;
    let redactor = Redactor { known: Vec::new() };
    check(&redactor, "fault_disk_full", &error_answer(ApiError::disk_full("no space left on device")).await);
    check(&redactor, "fault_internal", &error_answer(ApiError::internal("a cause that stays in the log")).await);
    check(&redactor, "fault_email_taken", &error_answer(ApiError::from(store::StoreError::DuplicateEmail)).await);
    // A lab channel's test message the webhook refused (a webhook that refuses is not run here).
    let refused = ApiError::new(web::error::ErrorCode::WebhookFailed, "The webhook answered 404 Not Found: no_service");
    check(&redactor, "fault_webhook_failed", &error_answer(refused).await);
    check(&redactor, "fault_rate_limited_long", &error_answer(ApiError::too_many_requests(600)).await);
}

#[test]
fn every_route_and_every_error_code_has_a_snapshot() {
    let snapshots_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots");
    let snapshot = |name: &str| std::fs::read_to_string(snapshots_dir.join(format!("it__snapshots__{name}.snap"))).ok();
    let table = web::app::api_route_table();
    for route in table.routes() {
        let entry = ROUTES.iter().find(|(method, path, _)| *method == route.method.as_str() && *path == route.path);
        let Some((_, _, name)) = entry else {
            panic!("{} {} has no snapshot: add it to ROUTES and to a test here", route.method, route.path);
        };
        let text = snapshot(name).unwrap_or_else(|| panic!("{} {}: the snapshot {name} is missing", route.method, route.path));
        assert!(text.contains("\"status\": 2"), "{} {}: the snapshot {name} is not a success", route.method, route.path);
    }
    assert_eq!(ROUTES.len(), table.routes().len(), "every route in ROUTES is one the router has");

    let mut shown: BTreeSet<String> = BTreeSet::new();
    for entry in std::fs::read_dir(&snapshots_dir).expect("the snapshots directory") {
        let path = entry.expect("a snapshot").path();
        // The contract lists every code; it shows none of them answered.
        if path.file_name().is_some_and(|name| name == "it__snapshots__contract_ok.snap") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a readable snapshot");
        for line in text.lines().filter_map(|line| line.trim().strip_prefix("\"code\": \"")) {
            shown.insert(line.trim_end_matches([',', '"']).to_owned());
        }
    }
    for code in error_codes() {
        assert!(shown.contains(&code) || FAULT_CODES.contains(&code.as_str()), "the error code {code} has no snapshot");
    }
    for code in FAULT_CODES {
        assert!(error_codes().contains(*code), "{code} is no longer an error code of the API");
    }
}

/// Every error code the API can answer: the contract's list.
fn error_codes() -> BTreeSet<String> {
    web::error::ErrorCode::ALL.iter().map(|code| code.as_str().to_owned()).collect()
}

#[actix_web::test]
async fn a_lab_channels_test_message_answers_as_pinned() {
    // The webhook is a local receiver: the operator allows private addresses.
    let server = TestServer::start_with(|serve| serve.channels_allow_private = Some(true)).await;
    let mut redactor = Redactor::new(&server);
    let ada = ada_with_a_term(&server, &mut redactor).await;
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("Ada");
    server.state.store.accounts().update_user(user.id, |stored| stored.subscription_tier = engine::Tier::Team).expect("the Team plan");
    let hook = crate::workflows::receiver().await;
    redactor.learn(&hook.url, "webhook_url");
    let channel = format!("/api/search-terms/{}/channel", ada.term_id);
    assert_eq!(ada.client.send("PUT", &channel, Some(&json!({ "url": hook.url }))).await.status, 200);
    check(&redactor, "channel_test_ok", &ada.client.post(&format!("{channel}/test"), json!({})).await);
    assert_eq!(hook.bodies.lock().expect("lock").len(), 1, "the test message was posted");
}
