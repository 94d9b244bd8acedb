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
    assert_eq!(server.state.store.user_count(), 0);

    let own_origin = server.base.clone();
    let same = client.post_raw("/api/signup", &[json_type, ("origin", &own_origin), ("sec-fetch-site", "same-origin")], body).await;
    assert_eq!(same.status, 201, "{}", same.body);
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
    assert_eq!(client.post("/api/auth/signup", json!({ "email": "b@example.org", "password": "12345678", "researchField": "x" })).await.status, 201);
    let third = client.post("/api/signup", signup_body("c@example.org", PASSWORD)).await;
    assert_eq!(third.status, 429);
    assert_eq!(server.state.store.user_count(), 2);

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
    assert_eq!(wrong_method.status, 404);
    let page = client.get("/reset-password?token=abc").await;
    assert_eq!(page.status, 200);
    assert!(page.body.as_str().is_some_and(|html| html.contains("<title>Papertide")));
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
}
