//! The security headers, on the real server: a Content-Security-Policy and no framing on every
//! answer, `no-store` on personal data, HSTS only behind an https public URL.

use crate::common::{Client, TestServer};

#[actix_web::test]
async fn every_answer_forbids_framing_and_limits_what_pages_load() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, "ada@example.org").await;
    for path in ["/", "/dashboard", "/no-such-page", "/api/auth/me", "/api/no-such-route", "/healthz", "/metrics"] {
        let answer = client.get(path).await;
        let policy = answer.header("content-security-policy").unwrap_or_else(|| panic!("{path} has no policy"));
        assert!(policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
        assert!(policy.contains("script-src 'self';") || policy.contains("script-src 'self' "), "{path}: {policy}");
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"), "{path}");
        assert_eq!(answer.header("strict-transport-security"), None, "{path}: plain http gets no HSTS");
    }
}

#[actix_web::test]
async fn personal_answers_are_never_stored_and_pages_are_revalidated() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, "ada@example.org").await;
    let user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada");
    for path in ["/api/auth/me".to_owned(), format!("/api/users/{}/preferences", user.id), "/api/auth/user".to_owned(), "/healthz".to_owned()] {
        let answer = client.get(&path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("cache-control"), Some("no-store"), "{path}");
    }
    let refused = Client::new(&server.base).get("/api/auth/me").await;
    assert_eq!((refused.status, refused.header("cache-control")), (401, Some("no-store")));
    let page = client.get("/dashboard").await;
    assert_eq!(page.header("cache-control"), Some("no-cache"), "the page itself holds nothing personal");
}

#[actix_web::test]
async fn an_https_public_url_turns_hsts_on() {
    let server = TestServer::start_with(|serve| serve.public_url = Some("https://papertide.example".into())).await;
    let answer = server.client().get("/healthz").await;
    assert_eq!(answer.header("strict-transport-security"), Some("max-age=31536000"));
}
