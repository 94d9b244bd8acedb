//! `GET /api/verify-email?token=` and `POST /api/auth/resend-verification`.

use chrono::{Duration, Utc};
use serde_json::json;
use store::{TokenHash, TokenPurpose};

use crate::common::{link_in, token_of, TestServer};

#[actix_web::test]
async fn the_mailed_link_verifies_signs_in_and_sends_the_welcome_mail() {
    let server = TestServer::start().await;
    let client = server.client();
    let link = server.sign_up(&client, "ada@example.org").await;

    let page = client.get(link.trim_start_matches(&server.base)).await;
    assert_eq!(page.status, 200, "the link's page must load");

    let answer = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["success"], true);
    assert_eq!(answer.body["user"]["email"], "ada@example.org");
    assert_eq!(answer.body["user"]["isEmailVerified"], true);

    let me = client.get("/api/auth/me").await;
    assert_eq!(me.status, 200);
    assert_eq!(me.body["user"]["email"], "ada@example.org");

    let mails = server.wait_for_outbox(2).await;
    assert!(mails[1].contains("Subject: Welcome to Papertide"), "{}", mails[1]);
}

#[actix_web::test]
async fn missing_wrong_reused_and_expired_tokens_fail() {
    let server = TestServer::start().await;
    let client = server.client();
    let missing = client.get("/api/verify-email").await;
    assert_eq!((missing.status, missing.message()), (400, "No verification token provided"));
    assert_eq!(missing.body["success"], false);
    let blank = client.get("/api/verify-email?token=%20").await;
    assert_eq!(blank.message(), "No verification token provided");

    let wrong = client.get("/api/verify-email?token=not-a-real-token").await;
    assert_eq!((wrong.status, wrong.message()), (400, "The verification link is invalid or has expired."));

    let link = server.sign_up(&client, "ada@example.org").await;
    let path = format!("/api/verify-email?token={}", token_of(&link));
    assert_eq!(client.get(&path).await.status, 200);
    let reused = client.get(&path).await;
    assert_eq!((reused.status, reused.message()), (400, "The verification link is invalid or has expired."));

    // A token whose 48 hours are over.
    server.sign_up(&client, "bob@example.org").await;
    let bob = server.state.store.accounts().user_by_email("bob@example.org").expect("readable").expect("bob");
    let expired = "expired-token-for-bob";
    let past = Utc::now() - Duration::minutes(1);
    let mail = engine::mail::verification_mail(&server.state.mail_context(), &bob.email, expired);
    server
        .state
        .store
        .accounts()
        .issue_token(bob.id, TokenPurpose::EmailVerification, TokenHash::of(expired), past, &mail, Utc::now())
        .expect("token");
    let late = server.client().get(&format!("/api/verify-email?token={expired}")).await;
    assert_eq!(late.status, 400);
    let bob = server.state.store.accounts().user_by_email("bob@example.org").expect("readable").expect("bob");
    assert!(!bob.is_email_verified);
}

#[actix_web::test]
async fn resending_replaces_the_link_and_answers_alike_for_everyone() {
    let server = TestServer::start().await;
    let client = server.client();
    let first_link = server.sign_up(&client, "ada@example.org").await;

    let answer = client.post("/api/auth/resend-verification", json!({ "email": "ADA@example.org" })).await;
    assert_eq!(answer.status, 200);
    let expected_message = answer.message().to_owned();
    let mails = server.wait_for_outbox(2).await;
    let second_link = link_in(&mails[1], "/verify-email?token=");
    assert_ne!(first_link, second_link);

    let unknown = client.post("/api/auth/resend-verification", json!({ "email": "nobody@example.org" })).await;
    assert_eq!((unknown.status, unknown.message()), (200, expected_message.as_str()));
    let invalid = client.post("/api/auth/resend-verification", json!({ "email": "nobody" })).await;
    assert_eq!((invalid.status, invalid.message()), (400, "Please enter a valid email address"));

    let old = client.get(&format!("/api/verify-email?token={}", token_of(&first_link))).await;
    assert_eq!(old.status, 400, "the replaced link still works");
    let new = client.get(&format!("/api/verify-email?token={}", token_of(&second_link))).await;
    assert_eq!(new.status, 200);

    let verified = client.post("/api/auth/resend-verification", json!({ "email": "ada@example.org" })).await;
    assert_eq!(verified.message(), expected_message);
    server.wait_for_empty_queue().await;
    let subjects: Vec<bool> = server.outbox().iter().map(|mail| mail.contains("Subject: Verify")).collect();
    assert_eq!(subjects, vec![true, true, false], "only the welcome mail may follow the two verification mails");
}
