//! `POST /api/auth/login`, `POST /api/auth/logout`, `GET /api/auth/me` and `GET /api/auth/user`.

use serde_json::json;

use crate::common::{TestServer, PASSWORD};

#[actix_web::test]
async fn login_needs_a_verified_email_and_says_so() {
    let server = TestServer::start().await;
    let client = server.client();
    server.sign_up(&client, "ada@example.org").await;
    let answer = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(answer.status, 403);
    assert_eq!(answer.body["requiresVerification"], true);
    assert!(answer.message().starts_with("Please verify your email address"), "{}", answer.body);
    assert!(answer.header("set-cookie").is_none());

    let wrong = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": "Wrong-123" })).await;
    assert_eq!((wrong.status, wrong.message()), (401, "Invalid email or password"), "an unverified account's state leaked");
}

#[actix_web::test]
async fn login_signs_in_and_logout_signs_out() {
    let server = TestServer::start().await;
    server.verified_user(&server.client(), "ada@example.org").await;
    let client = server.client();
    assert_eq!(client.get("/api/auth/me").await.status, 401);

    let answer = client.post("/api/auth/login", json!({ "email": " Ada@Example.org", "password": PASSWORD })).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["user"]["email"], "ada@example.org");
    let cookie = answer.header("set-cookie").expect("a session cookie").to_owned();
    assert!(cookie.starts_with("papertide_session="));
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(attribute), "{attribute} missing from {cookie}");
    }
    assert!(!cookie.contains("Secure"), "http public URL must not set Secure: {cookie}");

    let me = client.get("/api/auth/me").await;
    assert_eq!(me.body["user"]["email"], "ada@example.org");
    let user = client.get("/api/auth/user").await;
    assert_eq!(user.status, 200);
    assert_eq!(user.body["email"], "ada@example.org");
    assert_eq!(user.body["subscriptionTier"], "free");
    assert!(user.body.get("stripeCustomerId").is_none());
    let mut keys: Vec<&str> = user.body.as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort();
    let expected = [
        "createdAt",
        "email",
        "freeDigests",
        "id",
        "isActive",
        "isAdmin",
        "isEmailVerified",
        "isUnlimited",
        "lastDigestSentAt",
        "lastFreeSentAt",
        "pendingSearch",
        "planEnded",
        "researchField",
        "subscriptionTier",
    ];
    assert_eq!(keys, expected, "the user as the client sees it changed shape (and must never carry a hash or token)");

    let logout = client.post("/api/auth/logout", json!({})).await;
    assert_eq!(logout.status, 200);
    assert!(logout.header("set-cookie").is_some_and(|cookie| cookie.contains("Max-Age=0")));
    assert_eq!(client.get("/api/auth/me").await.status, 401);
    assert_eq!(client.get("/api/auth/user").await.status, 401);
    assert_eq!(server.client().post("/api/auth/logout", json!({})).await.status, 200, "anonymous logout is harmless");
}

#[actix_web::test]
async fn wrong_and_unknown_credentials_get_the_same_answer() {
    let server = TestServer::start().await;
    server.verified_user(&server.client(), "ada@example.org").await;
    let client = server.client();
    let wrong = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": "Wrong-123" })).await;
    let unknown = client.post("/api/auth/login", json!({ "email": "nobody@example.org", "password": PASSWORD })).await;
    assert_eq!((wrong.status, wrong.message()), (401, "Invalid email or password"));
    assert_eq!((unknown.status, unknown.message()), (401, "Invalid email or password"));
    assert_eq!(wrong.body, unknown.body);
}

#[actix_web::test]
async fn login_validation_uses_the_spec_messages() {
    let server = TestServer::start().await;
    let client = server.client();
    let bad_email = client.post("/api/auth/login", json!({ "email": "ada", "password": "x" })).await;
    assert_eq!((bad_email.status, bad_email.message()), (400, "Please enter a valid email address"));
    let no_password = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": "" })).await;
    assert_eq!((no_password.status, no_password.message()), (400, "Password is required"));
}

#[actix_web::test]
async fn a_deactivated_account_cannot_sign_in_and_loses_its_sessions() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, "ada@example.org").await;
    assert_eq!(client.get("/api/auth/me").await.status, 200);
    server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.is_active = false).expect("update");
    assert_eq!(client.get("/api/auth/me").await.status, 401);
    let answer = server.client().post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(answer.status, 403);
    assert_eq!(answer.body["code"], "account_deactivated");
}

#[actix_web::test]
async fn each_session_sees_only_its_own_user() {
    let server = TestServer::start().await;
    let (ada, bob) = (server.client(), server.client());
    server.verified_user(&ada, "ada@example.org").await;
    server.verified_user(&bob, "bob@example.org").await;
    assert_eq!(ada.get("/api/auth/me").await.body["user"]["email"], "ada@example.org");
    assert_eq!(bob.get("/api/auth/me").await.body["user"]["email"], "bob@example.org");
    let forged = server.client().get_with("/api/auth/me", &[("cookie", "papertide_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")]).await;
    assert_eq!((forged.status, forged.message()), (401, "Not authenticated"));
}

#[actix_web::test]
async fn an_https_public_url_makes_the_cookie_secure() {
    let server = TestServer::start_with(|serve| serve.public_url = Some("https://papers.example.org".into())).await;
    let client = server.client();
    server.sign_up(&client, "ada@example.org").await;
    let mails = server.wait_for_outbox(1).await;
    let link = crate::common::link_in(&mails[0], "/verify-email?token=");
    assert!(link.starts_with("https://papers.example.org/verify-email?token="), "{link}");
    let answer = client.get(&format!("/api/verify-email?token={}", crate::common::token_of(&link))).await;
    let cookie = answer.header("set-cookie").expect("cookie");
    assert!(cookie.contains("Secure"), "{cookie}");
}

/// The cookies' names on a server whose public URL has `scheme`, from a verification link.
async fn cookies_after_verification(public_url: &str) -> (TestServer, Vec<String>) {
    let public_url = public_url.to_owned();
    let server = TestServer::start_with(move |serve| serve.public_url = Some(public_url)).await;
    let client = server.client();
    server.sign_up(&client, "ada@example.org").await;
    let mails = server.wait_for_outbox(1).await;
    let link = crate::common::link_in(&mails[0], "/verify-email?token=");
    let answer = client.get(&format!("/api/verify-email?token={}", crate::common::token_of(&link))).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let cookies = answer.headers.get_all("set-cookie").iter().filter_map(|value| value.to_str().ok()).map(str::to_owned).collect();
    (server, cookies)
}

fn value_of<'a>(cookies: &'a [String], name: &str) -> &'a str {
    let cookie = cookies.iter().find(|cookie| cookie.starts_with(&format!("{name}="))).unwrap_or_else(|| panic!("no {name} in {cookies:?}"));
    cookie[name.len() + 1..].split(';').next().unwrap_or_default()
}

#[actix_web::test]
async fn on_https_the_cookies_carry_the_host_prefix_and_only_that_name_is_read() {
    let (server, cookies) = cookies_after_verification("https://papers.example.org").await;
    for name in ["__Host-papertide_session", "__Host-papertide_device"] {
        let cookie = cookies.iter().find(|cookie| cookie.starts_with(&format!("{name}="))).unwrap_or_else(|| panic!("no {name} in {cookies:?}"));
        for attribute in ["Secure", "Path=/;", "HttpOnly"] {
            assert!(format!("{cookie};").contains(attribute), "{attribute} missing from {cookie}");
        }
        assert!(!cookie.to_ascii_lowercase().contains("domain="), "{cookie}");
    }
    let session = value_of(&cookies, "__Host-papertide_session");
    let client = server.client();
    let prefixed = client.get_with("/api/auth/me", &[("cookie", &format!("__Host-papertide_session={session}"))]).await;
    assert_eq!(prefixed.status, 200, "{}", prefixed.body);
    let plain = client.get_with("/api/auth/me", &[("cookie", &format!("papertide_session={session}"))]).await;
    assert_eq!(plain.status, 401, "the http name is not read on https");
}

#[actix_web::test]
async fn on_http_the_cookies_keep_their_names_and_the_prefixed_one_is_not_read() {
    let (server, cookies) = cookies_after_verification("http://papers.example.org").await;
    assert!(cookies.iter().all(|cookie| !cookie.starts_with("__Host-")), "{cookies:?}");
    let device = cookies.iter().find(|cookie| cookie.starts_with("papertide_device=")).expect("a device cookie");
    assert!(device.contains("Path=/api/auth/login"), "{device}");
    let session = value_of(&cookies, "papertide_session");
    let client = server.client();
    assert_eq!(client.get_with("/api/auth/me", &[("cookie", &format!("papertide_session={session}"))]).await.status, 200);
    let prefixed = client.get_with("/api/auth/me", &[("cookie", &format!("__Host-papertide_session={session}"))]).await;
    assert_eq!(prefixed.status, 401, "the https name is not read on http");
}
