//! `POST /api/signup` (combined form) and `POST /api/auth/signup` (standalone form).

use serde_json::{json, Value};

use crate::common::{link_in, signup_body, TestServer, MSG_COMMON_PASSWORD, MSG_PASSWORD_IS_EMAIL, MSG_PASSWORD_SITE_NAME, PASSWORD};

#[actix_web::test]
async fn combined_signup_creates_an_unverified_account_and_mails_a_link() {
    let server = TestServer::start().await;
    let client = server.client();
    let answer = client.post("/api/signup", signup_body("  Ada@Example.org ", PASSWORD)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let user = &answer.body["user"];
    assert_eq!(user["email"], "ada@example.org");
    assert_eq!(user["subscriptionTier"], "free");
    assert_eq!(user["researchField"], "biology");
    assert_eq!(user["isEmailVerified"], false);
    assert_eq!(answer.body["requiresVerification"], true);
    let body_text = answer.body.to_string();
    assert!(!body_text.contains("argon2") && !body_text.contains("passwordHash"), "secrets leaked: {body_text}");

    let mails = server.wait_for_outbox(1).await;
    assert!(mails[0].contains("To: ada@example.org"));
    assert!(mails[0].contains("Subject: Verify your email for Papertide"));
    let link = link_in(&mails[0], "/verify-email?token=");
    assert!(link.starts_with(&format!("{}/verify-email?token=", server.base)), "{link}");

    assert_eq!(client.get("/api/auth/me").await.status, 401, "signup must not sign in before verification");
    let stored = server.state.store.accounts().user_by_email("ada@example.org").expect("readable").expect("stored");
    assert_eq!(stored.ip_address.as_deref(), Some("127.0.0.1"));
    let preferences = server.state.store.accounts().preferences(stored.id).expect("preferences");
    assert_eq!(preferences, engine::Preferences::default());
}

/// One row per rule of spec §5 (combined signup): the field to spoil, its bad value, the message.
#[actix_web::test]
async fn combined_signup_reports_every_rule_with_the_spec_message() {
    let server = TestServer::start().await;
    let client = server.client();
    let cases: &[(&str, Value, &str)] = &[
        ("email", json!("not-an-email"), "Please enter a valid email address"),
        ("email", json!(""), "Please enter a valid email address"),
        ("researchField", json!("astrology"), "Please select a valid research field"),
        ("password", json!("Sh0rt!"), "Password must be at least 8 characters long"),
        ("password", json!("password"), MSG_COMMON_PASSWORD),
        ("password", json!("12345678"), MSG_COMMON_PASSWORD),
        ("password", json!("Ada@Example.org"), MSG_PASSWORD_IS_EMAIL),
        ("password", json!("Papertide2026!"), MSG_PASSWORD_SITE_NAME),
        ("confirmPassword", json!("Secret-124"), "Passwords don't match"),
        ("agreeToTerms", json!(false), "You must agree to the Terms and Conditions"),
        ("agreeToPrivacy", json!(false), "You must agree to the Privacy Policy"),
    ];
    for (field, value, message) in cases {
        let mut body = signup_body("ada@example.org", PASSWORD);
        body[*field] = value.clone();
        if *field == "password" {
            body["confirmPassword"] = value.clone();
        }
        let answer = client.post("/api/signup", body).await;
        assert_eq!(answer.status, 400, "{field}={value}: {}", answer.body);
        assert_eq!(answer.message(), *message, "{field}={value}");
        assert_eq!(answer.body["code"], "validation_failed");
        let fields: Vec<&str> = answer.body["errors"].as_array().expect("errors").iter().filter_map(|e| e["field"].as_str()).collect();
        assert!(fields.contains(field), "{field} not among {fields:?}");
    }
    let mut missing = signup_body("ada@example.org", PASSWORD);
    missing.as_object_mut().expect("object").remove("agreeToPrivacy");
    assert_eq!(client.post("/api/signup", missing).await.message(), "You must agree to the Privacy Policy");
    assert_eq!(server.state.store.accounts().user_count(), 0, "a rejected signup wrote an account");
    assert_eq!(server.state.store.mail().queue_len(), 0);
}

#[actix_web::test]
async fn standalone_signup_uses_the_same_password_rule_and_its_own_research_field() {
    let server = TestServer::start().await;
    let client = server.client();
    let body = |password: &str, field: &str| json!({ "email": "ada@example.org", "password": password, "researchField": field });
    let cases = [
        (body("12345", "Neuroscience"), "Password must be at least 8 characters long"),
        (body("1234567", "Neuroscience"), "Password must be at least 8 characters long"),
        (body("12345678", "Neuroscience"), MSG_COMMON_PASSWORD),
        (body("Password", "Neuroscience"), MSG_COMMON_PASSWORD),
        (body("ada@example.org", "Neuroscience"), MSG_PASSWORD_IS_EMAIL),
        (body(PASSWORD, ""), "Please enter your research field"),
        (
            body(PASSWORD, "bio\u{200B}logy"),
            "Research field contains unsupported characters: use letters, digits and ordinary punctuation, without < or >",
        ),
        (json!({ "email": "ada@", "password": PASSWORD, "researchField": "x" }), "Please enter a valid email address"),
        (json!({ "email": "ada@example.org", "password": PASSWORD, "confirmPassword": "Secret-321", "researchField": "x" }), "Passwords don't match"),
    ];
    for (request, message) in cases {
        let answer = client.post("/api/auth/signup", request.clone()).await;
        assert_eq!((answer.status, answer.message()), (400, message), "{request}");
    }
    let answer = client.post("/api/auth/signup", body(PASSWORD, "Neuroscience")).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.body["user"]["researchField"], "Neuroscience");
    server.wait_for_outbox(1).await;
}

#[actix_web::test]
async fn a_second_signup_of_the_same_email_answers_as_a_new_one_changes_nothing_and_tells_the_owner() {
    let server = TestServer::start().await;
    let client = server.client();
    let first = client.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await;
    assert_eq!(first.status, 201);
    server.wait_for_empty_queue().await;
    let again = client.post("/api/signup", signup_body(" ADA@example.ORG", "Other-Pass-9")).await;
    assert_eq!((again.status, again.message()), (first.status, first.message()), "{}", again.body);
    assert_eq!(again.body["user"]["email"], "ada@example.org");
    assert_ne!(again.body["user"]["id"], first.body["user"]["id"], "the answer names no real account");
    // The account still waits for its verification: its owner gets a new link, not a second account.
    server.wait_for_outbox(2).await;
    let relink = server.wait_for_mail_to("ada@example.org", "Verify your email").await;
    assert!(relink.contains("/verify-email?token="));
    assert_eq!(server.state.store.accounts().user_count(), 1);

    server.verified_user(&server.client(), "bob@example.org").await;
    server.wait_for_empty_queue().await;
    let before = server.outbox().len();
    let standalone = client.post("/api/auth/signup", json!({ "email": "bob@example.org", "password": "Other-Pass-9", "researchField": "x" })).await;
    assert_eq!(standalone.status, 201, "{}", standalone.body);
    let note = server.wait_for_mail_to("bob@example.org", "You already have a Papertide account").await;
    assert!(note.contains("/login"), "{note}");
    assert_eq!(server.outbox().len(), before + 1);
    assert_eq!(server.state.store.accounts().user_count(), 2);
    let signed_in = server.client().post("/api/auth/login", json!({ "email": "bob@example.org", "password": PASSWORD })).await;
    assert_eq!(signed_in.status, 200, "the owner's password is unchanged: {}", signed_in.body);
}

#[actix_web::test]
async fn concurrent_signups_of_one_email_make_one_account() {
    let server = TestServer::start().await;
    let clients: Vec<_> = (0..4).map(|_| server.client()).collect();
    let attempts = clients.iter().map(|client| client.post("/api/signup", signup_body("race@example.org", PASSWORD)));
    let answers = futures_util::future::join_all(attempts).await;
    let mut statuses: Vec<u16> = answers.iter().map(|answer| answer.status).collect();
    statuses.sort();
    assert_eq!(statuses, vec![201, 201, 201, 201], "every attempt answers alike");
    assert_eq!(server.state.store.accounts().user_count(), 1);
}

#[actix_web::test]
async fn malformed_bodies_get_clear_json_errors() {
    let server = TestServer::start().await;
    let client = server.client();
    let json_header = [("content-type", "application/json")];
    let broken = client.post_raw("/api/signup", &json_header, "{\"email\":".into()).await;
    assert_eq!(broken.status, 400);
    assert!(broken.message().starts_with("Invalid JSON body"), "{}", broken.body);

    let wrong_type = client.post_raw("/api/signup", &json_header, r#"{"agreeToTerms":"yes"}"#.into()).await;
    assert_eq!(wrong_type.status, 400);
    assert!(wrong_type.message().contains("agreeToTerms") || wrong_type.message().contains("boolean"), "{}", wrong_type.body);

    let no_type = client.post_raw("/api/signup", &[], "{}".into()).await;
    assert_eq!(no_type.status, 400);
    assert!(no_type.message().contains("Content-Type"), "{}", no_type.body);

    let huge = format!("{{\"email\":\"{}\"}}", "a".repeat(70 * 1024));
    let oversized = client.post_raw("/api/signup", &json_header, huge).await;
    assert_eq!(oversized.status, 413);
    assert_eq!(oversized.body["code"], "payload_too_large");
    assert_eq!(server.state.store.accounts().user_count(), 0);
}
