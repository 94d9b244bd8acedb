//! `POST /api/forgot-password` and `POST /api/reset-password`.

use chrono::{Duration, Utc};
use serde_json::json;
use store::{TokenHash, TokenPurpose};

use crate::common::{link_in, token_of, TestServer, MSG_COMMON_PASSWORD, MSG_PASSWORD_IS_EMAIL, PASSWORD};

const NEW_PASSWORD: &str = "Brand-New-456";

fn reset_body(token: &str, password: &str, confirm: &str) -> serde_json::Value {
    json!({ "token": token, "password": password, "confirmPassword": confirm })
}

#[actix_web::test]
async fn forgot_password_answers_alike_and_mails_only_real_accounts() {
    let server = TestServer::start().await;
    server.verified_user(&server.client(), "ada@example.org").await;
    server.wait_for_outbox(2).await;
    let client = server.client();
    let known = client.post("/api/forgot-password", json!({ "email": "ada@example.org" })).await;
    let unknown = client.post("/api/forgot-password", json!({ "email": "nobody@example.org" })).await;
    assert_eq!(known.status, 200);
    assert_eq!(known.body, unknown.body, "the answer reveals whether an account exists");
    let mails = server.wait_for_outbox(3).await;
    server.wait_for_empty_queue().await;
    assert_eq!(server.outbox().len(), 3, "mail went to an unknown address");
    assert!(mails[2].contains("Subject: Reset your Papertide password"));
    assert!(mails[2].contains("To: ada@example.org"));

    let invalid = client.post("/api/forgot-password", json!({ "email": "ada@" })).await;
    assert_eq!((invalid.status, invalid.message()), (400, "Please enter a valid email address"));
}

#[actix_web::test]
async fn a_reset_works_once_replaces_the_password_and_ends_every_session() {
    let server = TestServer::start().await;
    let (laptop, phone) = (server.client(), server.client());
    server.verified_user(&laptop, "ada@example.org").await;
    let login = phone.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(login.status, 200);

    assert_eq!(laptop.post("/api/forgot-password", json!({ "email": "ada@example.org" })).await.status, 200);
    let mails = server.wait_for_outbox(3).await;
    let link = link_in(&mails[2], "/reset-password?token=");
    let token = token_of(&link);

    // The reset form has no address: the server checks the new password against the account's.
    let own_address = server.client().post("/api/reset-password", reset_body(&token, "Ada@Example.org", "Ada@Example.org")).await;
    assert_eq!((own_address.status, own_address.message()), (400, MSG_PASSWORD_IS_EMAIL), "{}", own_address.body);
    assert_eq!(own_address.body["errors"][0]["field"], "password");
    assert_eq!(laptop.get("/api/auth/me").await.status, 200, "a refused new password used the link or ended a session");

    let reset = server.client().post("/api/reset-password", reset_body(&token, NEW_PASSWORD, NEW_PASSWORD)).await;
    assert_eq!(reset.status, 200, "{}", reset.body);
    assert_eq!(laptop.get("/api/auth/me").await.status, 401, "the laptop session survived the reset");
    assert_eq!(phone.get("/api/auth/me").await.status, 401, "the phone session survived the reset");

    let client = server.client();
    let old = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(old.status, 401, "the old password still works");
    let new = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": NEW_PASSWORD })).await;
    assert_eq!(new.status, 200);

    let reused = server.client().post("/api/reset-password", reset_body(&token, "Another-789!", "Another-789!")).await;
    assert_eq!((reused.status, reused.message()), (400, "This password reset link is invalid or expired."));
    assert_eq!(client.get("/api/auth/me").await.status, 200, "a failed reset signed the user out");
}

#[actix_web::test]
async fn a_reset_leaves_other_users_signed_in() {
    let server = TestServer::start().await;
    let (ada, bob) = (server.client(), server.client());
    server.verified_user(&ada, "ada@example.org").await;
    server.verified_user(&bob, "bob@example.org").await;
    ada.post("/api/forgot-password", json!({ "email": "ada@example.org" })).await;
    let mails = server.wait_for_outbox(5).await;
    let token = token_of(&link_in(&mails[4], "/reset-password?token="));
    assert_eq!(ada.post("/api/reset-password", reset_body(&token, NEW_PASSWORD, NEW_PASSWORD)).await.status, 200);
    assert_eq!(bob.get("/api/auth/me").await.status, 200);
}

#[actix_web::test]
async fn reset_validation_and_bad_tokens() {
    let server = TestServer::start().await;
    let client = server.client();
    let cases = [
        (reset_body("", NEW_PASSWORD, NEW_PASSWORD), "Reset token is required"),
        (reset_body("t", "short1!", "short1!"), "Password must be at least 8 characters long"),
        (reset_body("t", "iloveyou", "iloveyou"), MSG_COMMON_PASSWORD),
        (reset_body("t", " QWERTYUIOP ", " QWERTYUIOP "), MSG_COMMON_PASSWORD),
        (reset_body("t", NEW_PASSWORD, "Different-456"), "Passwords do not match"),
    ];
    for (body, message) in cases {
        let answer = client.post("/api/reset-password", body.clone()).await;
        assert_eq!((answer.status, answer.message()), (400, message), "{body}");
    }
    let unknown = client.post("/api/reset-password", reset_body("no-such-token", NEW_PASSWORD, NEW_PASSWORD)).await;
    assert_eq!((unknown.status, unknown.message()), (400, "This password reset link is invalid or expired."));

    // A reset token past its hour.
    server.verified_user(&server.client(), "ada@example.org").await;
    let ada = server.state.store.accounts().user_by_email("ada@example.org").expect("readable").expect("ada");
    let expired = "expired-reset-token";
    let mail = engine::mail::password_reset_mail(&server.state.mail_context(), &ada.email, expired);
    let past = Utc::now() - Duration::seconds(1);
    server.state.store.accounts().issue_token(ada.id, TokenPurpose::PasswordReset, TokenHash::of(expired), past, &mail, Utc::now()).expect("token");
    let late = client.post("/api/reset-password", reset_body(expired, NEW_PASSWORD, NEW_PASSWORD)).await;
    assert_eq!(late.status, 400);
    let login = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(login.status, 200, "an expired reset changed the password");
}

#[actix_web::test]
async fn a_verification_token_cannot_reset_a_password() {
    let server = TestServer::start().await;
    let client = server.client();
    let link = server.sign_up(&client, "ada@example.org").await;
    let answer = client.post("/api/reset-password", reset_body(&token_of(&link), NEW_PASSWORD, NEW_PASSWORD)).await;
    assert_eq!(answer.status, 400);
    let verified = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(verified.status, 200, "a token shown to the wrong endpoint must still do its own job");
}
