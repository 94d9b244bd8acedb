//! Cross-site refusals, rate limits, and the answers for unknown paths.

use serde_json::json;

use crate::common::{signup_body, TestServer, PASSWORD};

#[actix_web::test]
async fn cross_site_state_changes_are_refused_and_write_nothing() {
    let server = TestServer::start().await;
    let client = server.client();
    let body = signup_body("ada@example.org", PASSWORD).to_string();
    let json_type = ("content-type", "application/json");
    for headers in [
        vec![json_type, ("origin", "https://evil.example")],
        vec![json_type, ("sec-fetch-site", "cross-site")],
        vec![json_type, ("sec-fetch-site", "same-site"), ("origin", "https://sub.127.0.0.1")],
    ] {
        let answer = client.post_raw("/api/signup", &headers, body.clone()).await;
        assert_eq!(answer.status, 403, "{headers:?}");
        assert_eq!(answer.body["code"], "cross_site_request");
    }
    assert_eq!(server.state.store.accounts().user_count(), 0);

    let own_origin = server.base.clone();
    let same = client.post_raw("/api/signup", &[json_type, ("origin", &own_origin), ("sec-fetch-site", "same-origin")], body).await;
    assert_eq!(same.status, 201, "{}", same.body);
}

/// Only the public URL's origin is ours: not another scheme on the same host and port, not a
/// name the request itself gives as its Host; a loopback public URL also takes its loopback
/// equivalents.
#[actix_web::test]
async fn only_the_public_urls_origin_may_change_state() {
    let server = TestServer::start().await;
    let client = server.client();
    let port = server.base.rsplit(':').next().expect("a port").to_owned();
    let json_type = ("content-type", "application/json");
    let https_origin = format!("https://127.0.0.1:{port}");
    let other_name = "http://papers.attacker.example".to_owned();
    for (origin, host) in [(https_origin.as_str(), None), (other_name.as_str(), Some("papers.attacker.example"))] {
        let mut headers = vec![json_type, ("origin", origin), ("sec-fetch-site", "same-origin")];
        if let Some(host) = host {
            headers.push(("host", host));
        }
        let answer = client.post_raw("/api/signup", &headers, signup_body("ada@example.org", PASSWORD).to_string()).await;
        assert_eq!(answer.status, 403, "{origin}: {}", answer.body);
    }
    assert_eq!(server.state.store.accounts().user_count(), 0);
    let loopback = format!("http://localhost:{port}");
    let answer = client.post_raw("/api/signup", &[json_type, ("origin", &loopback)], signup_body("ada@example.org", PASSWORD).to_string()).await;
    assert_eq!(answer.status, 201, "a loopback public URL's loopback equivalent: {}", answer.body);
}

#[actix_web::test]
async fn the_verification_call_refuses_cross_site_requests() {
    let server = TestServer::start().await;
    let client = server.client();
    let link = server.sign_up(&client, "ada@example.org").await;
    let path = format!("/api/verify-email?token={}", crate::common::token_of(&link));
    let refused = client.get_with(&path, &[("sec-fetch-site", "cross-site")]).await;
    assert_eq!(refused.status, 403);
    assert_eq!(client.get_with(&path, &[("sec-fetch-site", "same-origin")]).await.status, 200);
}

#[actix_web::test]
async fn login_attempts_are_rate_limited() {
    let server = TestServer::start_with(|serve| serve.rate_limit_login = Some("3/1h".into())).await;
    let client = server.client();
    let attempt = || client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": "Wrong-123" }));
    for _ in 0..3 {
        assert_eq!(attempt().await.status, 401);
    }
    let limited = attempt().await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.body["code"], "rate_limited");
    assert!(limited.message().starts_with("Too many attempts"), "{}", limited.body);
    let retry_after: u64 = limited.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!(retry_after > 3000 && retry_after <= 3600, "{retry_after}");
    let other_email = client.post("/api/auth/login", json!({ "email": "bob@example.org", "password": "Wrong-123" })).await;
    assert_eq!(other_email.status, 401, "another account is not limited by ada's attempts");
}

#[actix_web::test]
async fn signup_forgot_password_and_resend_are_rate_limited() {
    let server = TestServer::start_with(|serve| {
        serve.rate_limit_signup = Some("2/1h".into());
        serve.rate_limit_forgot_password = Some("2/1h".into());
        serve.rate_limit_resend = Some("2/1h".into());
    })
    .await;
    let client = server.client();
    assert_eq!(client.post("/api/signup", signup_body("a@example.org", PASSWORD)).await.status, 201);
    assert_eq!(client.post("/api/auth/signup", json!({ "email": "b@example.org", "password": PASSWORD, "researchField": "x" })).await.status, 201);
    let third = client.post("/api/signup", signup_body("c@example.org", PASSWORD)).await;
    assert_eq!(third.status, 429);
    assert_eq!(server.state.store.accounts().user_count(), 2);

    for path in ["/api/forgot-password", "/api/auth/resend-verification"] {
        for _ in 0..2 {
            assert_eq!(client.post(path, json!({ "email": "a@example.org" })).await.status, 200, "{path}");
        }
        assert_eq!(client.post(path, json!({ "email": "a@example.org" })).await.status, 429, "{path}");
    }
}

#[actix_web::test]
async fn unknown_api_paths_are_json_404_and_other_paths_are_pages() {
    let server = TestServer::start().await;
    let client = server.client();
    let missing = client.get("/api/does-not-exist").await;
    assert_eq!((missing.status, missing.message()), (404, "Not found"));
    let wrong_method = client.post("/api/auth/me", json!({})).await;
    assert_eq!((wrong_method.status, wrong_method.header("allow")), (405, Some("GET")), "{}", wrong_method.body);
    let page = client.get("/reset-password?token=abc").await;
    assert_eq!(page.status, 200);
    assert!(page.body.as_str().is_some_and(|html| html.contains("<title>Papertide")));
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
}

#[actix_web::test]
async fn every_api_route_answers_other_methods_with_405_and_allow() {
    let server = TestServer::start().await;
    let http = reqwest::Client::new();
    let table = web::app::api_route_table();
    assert!(table.routes().len() >= 30, "the table lists every route: {}", table.routes().len());
    for route in table.routes() {
        let path = route.path.replace("{user_id}", "x").replace("{user_email}", "x").replace("{term_id}", "x");
        let path = path.replace("{token}", "x").replace("{subscription_id}", "x");
        let allowed = table.methods_for(&path);
        let expected_allow = allowed.iter().map(|method| method.as_str()).collect::<Vec<_>>().join(", ");
        for method in ["PUT", "OPTIONS", "BREW"] {
            if allowed.iter().any(|known| known.as_str() == method) {
                continue;
            }
            let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
            let response = http.request(method.clone(), format!("{}{path}", server.base)).send().await.expect("an answer");
            assert_eq!(response.status().as_u16(), 405, "{method} {path}");
            let allow = response.headers().get("allow").and_then(|value| value.to_str().ok()).map(str::to_owned);
            assert_eq!(allow.as_deref(), Some(expected_allow.as_str()), "{method} {path}");
            let body: serde_json::Value = response.json().await.expect("a JSON body");
            assert!(body["message"].as_str().is_some_and(|message| message.contains(&expected_allow)), "{body}");
        }
    }
}

#[actix_web::test]
async fn malformed_requests_get_json_messages_without_our_type_names() {
    let server = TestServer::start().await;
    let client = server.client();
    let json_type = ("content-type", "application/json");
    for (path, body) in [
        ("/api/auth/login", "\"x\""),
        ("/api/auth/login", "null"),
        ("/api/signup", "[true]"),
        ("/api/reset-password", "{\"token\": 5}"),
        ("/api/forgot-password", "{"),
        ("/api/auth/signup", "{\"email\": \"\\ud800\"}"),
    ] {
        let answer = client.post_raw(path, &[json_type], body.to_owned()).await;
        assert_eq!(answer.status, 400, "{path} {body}: {}", answer.body);
        let message = answer.message();
        assert!(message.starts_with("Invalid JSON body"), "{path} {body}: {}", answer.body);
        for internal in ["struct", "Form", "enum ", "::"] {
            assert!(!message.contains(internal), "{path} {body}: {message}");
        }
    }
    let duplicate = client.get("/api/verify-email?token=a&token=b").await;
    assert_eq!(duplicate.status, 400);
    assert!(duplicate.message().starts_with("Invalid query string"), "{}", duplicate.body);
    assert!(!duplicate.message().contains("deserialize"), "{}", duplicate.body);
    let huge = client.post_raw("/api/auth/login", &[json_type], format!("{{\"email\": \"{}\"}}", "a".repeat(200_000))).await;
    assert_eq!((huge.status, huge.body["code"].as_str()), (413, Some("payload_too_large")), "{}", huge.body);
    let not_json = client.post_raw("/api/auth/login", &[("content-type", "text/plain"), ("sec-fetch-site", "same-origin")], "email=a".into()).await;
    assert_eq!(not_json.status, 400);
    assert!(not_json.message().contains("JSON"), "{}", not_json.body);
    // Without either browser header, a body an HTML form on any site could send is refused.
    let form = client.post_raw("/api/auth/login", &[("content-type", "text/plain")], "email=a".into()).await;
    assert_eq!((form.status, form.body["code"].as_str()), (403, Some("cross_site_request")), "{}", form.body);
}
