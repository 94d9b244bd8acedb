//! Mail through a real SMTP server (maildev on loopback): the user reads the verification mail,
//! follows its link and is signed in.

use serde_json::Value;

use crate::common::{link_in, token_of, Maildev, TestServer};

fn recipients(mail: &Value) -> Vec<String> {
    mail["to"].as_array().map_or(Vec::new(), |to| to.iter().filter_map(|r| r["address"].as_str().map(str::to_owned)).collect())
}

#[actix_web::test]
async fn the_verification_mail_arrives_by_smtp_and_its_link_signs_the_user_in() {
    let maildev = Maildev::start().await;
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(maildev.smtp_url())).await;
    let client = server.client();
    let answer = client.post("/api/signup", crate::common::signup_body("ada@example.org", crate::common::PASSWORD)).await;
    assert_eq!(answer.status, 201);

    let mails = maildev.wait_for_emails(1).await;
    let mail = &mails[0];
    assert_eq!(mail["subject"], "Verify your email for Papertide");
    assert_eq!(recipients(mail), vec!["ada@example.org"]);
    let text = mail["text"].as_str().expect("a plain-text part");
    let html = mail["html"].as_str().expect("an HTML part");
    let link = link_in(text, "/verify-email?token=");
    assert!(html.contains(&link), "the HTML part must carry the same link");
    assert!(mail["headers"]["message-id"].as_str().is_some_and(|id| id.contains("@127.0.0.1")), "{}", mail["headers"]);
    assert!(!server.outbox_dir().try_exists().expect("the data directory reads"), "with SMTP configured nothing goes to the outbox");

    let page = client.get(link.trim_start_matches(&server.base)).await;
    assert_eq!(page.status, 200);
    let verified = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    let me = client.get("/api/auth/me").await;
    assert_eq!(me.body["user"]["email"], "ada@example.org");

    let welcome = maildev.wait_for_emails(2).await;
    assert_eq!(welcome[1]["subject"], "Welcome to Papertide");
}

#[actix_web::test]
async fn smtp_credentials_from_the_url_are_used() {
    let maildev = Maildev::start_with(&["--incoming-user", "papertide", "--incoming-pass", "s3cret"]).await;
    let url = format!("smtp://papertide:s3cret@127.0.0.1:{}", maildev.smtp_port);
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(url)).await;
    server.sign_up_by_smtp(&server.client(), "ada@example.org").await;
    let mails = maildev.wait_for_emails(1).await;
    assert_eq!(recipients(&mails[0]), vec!["ada@example.org"]);
}

#[actix_web::test]
async fn wrong_smtp_credentials_keep_the_mail_queued_with_the_reason() {
    let maildev = Maildev::start_with(&["--incoming-user", "papertide", "--incoming-pass", "s3cret"]).await;
    let url = format!("smtp://papertide:wrong@127.0.0.1:{}", maildev.smtp_port);
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(url)).await;
    server.sign_up_by_smtp(&server.client(), "ada@example.org").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let queued = loop {
        let queued = server.state.store.mail().queued().expect("queue");
        if queued.first().is_some_and(|mail| mail.attempts > 0) {
            break queued;
        }
        assert!(std::time::Instant::now() < deadline, "the mailer never tried");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(queued.len(), 1, "a mail refused for a fixable reason must stay queued");
    assert!(queued[0].last_error.is_some());
    assert_eq!(server.state.store.mail().dead_len(), 0);
    assert!(maildev.emails().await.is_empty());
    // The mailer reports on the board after its drain, a moment after the attempt is stored.
    // Anyone sees when it failed; what the mail server said is for operators (it can name an address).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let health = server.client().get("/healthz").await;
        if health.body["actors"]["mailer"]["lastErrorAt"].is_string() {
            assert_eq!(health.body["actors"]["mailer"].get("lastError"), None, "{}", health.body);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the mailer's error never showed: {}", health.body);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

impl TestServer {
    /// Signs up when mail goes by SMTP (nothing to read from the outbox).
    async fn sign_up_by_smtp(&self, client: &crate::common::Client, email: &str) {
        let answer = client.post("/api/signup", crate::common::signup_body(email, crate::common::PASSWORD)).await;
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
}
