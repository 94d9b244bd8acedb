//! A user's own data: the export (owner only, with their digests' papers and nothing of anyone
//! else) and the account deletion (password first, Stripe first, everything of the user gone,
//! one confirmation mail), and the operator's deletion of a user.

use std::time::Duration;

use serde_json::{json, Value};

use crate::access::digest_with_a_paper;
use crate::common::{link_in, signup_body, token_of, Client, Maildev, TestServer, PASSWORD};
use crate::payments::{Billing, CARD_OK};

const DELETED_SUBJECT: &str = "Your Papertide account has been deleted";

/// A verified, signed-in user with one term (named after them) and a digest of it with a paper.
async fn user_with_a_digest(server: &TestServer, email: &str, term: &str) -> (Client, store::User) {
    let client = server.client();
    server.verified_user(&client, email).await;
    let added = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": term })).await;
    assert!(added.status < 300, "{}", added.body);
    let user = server.state.store.accounts().user_by_email(email).expect("db").expect("the user");
    digest_with_a_paper(server, &user, term).await;
    (client, user)
}

/// [`user_with_a_digest`] on a server that mails through `maildev`.
async fn smtp_user_with_a_digest(server: &TestServer, maildev: &Maildev, email: &str, term: &str) -> (Client, store::User) {
    let client = server.client();
    let signed_up = client.post("/api/signup", signup_body(email, PASSWORD)).await;
    assert_eq!(signed_up.status, 201, "{}", signed_up.body);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let link = loop {
        let mails = maildev.emails().await;
        let verification = mails
            .iter()
            .find(|mail| mail["to"][0]["address"] == email && mail["subject"].as_str().is_some_and(|subject| subject.starts_with("Verify")));
        if let Some(mail) = verification {
            break link_in(mail["text"].as_str().expect("a plain-text part"), "/verify-email?token=");
        }
        assert!(std::time::Instant::now() < deadline, "no verification mail to {email}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let verified = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    let added = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": term })).await;
    assert!(added.status < 300, "{}", added.body);
    let user = server.state.store.accounts().user_by_email(email).expect("db").expect("the user");
    digest_with_a_paper(server, &user, term).await;
    (client, user)
}

/// Every stored entry once the mail queue has drained and nothing was written for 300 ms.
async fn settled_entries(server: &TestServer) -> Vec<store::RawEntry> {
    loop {
        server.wait_for_empty_queue().await;
        let first = server.state.store.raw_entries().expect("the database reads");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let second = server.state.store.raw_entries().expect("the database reads");
        if first == second {
            return second;
        }
    }
}

/// Whether any stored key or value holds the user's id (as bytes or text) or address.
fn entries_naming(entries: &[store::RawEntry], user: &store::User) -> Vec<String> {
    let needles =
        [user.id.as_bytes().to_vec(), user.id.to_string().into_bytes(), user.id.0.simple().to_string().into_bytes(), user.email.clone().into_bytes()];
    let holds = |bytes: &[u8]| needles.iter().any(|needle| bytes.windows(needle.len()).any(|window| window == needle.as_slice()));
    entries.iter().filter(|(_, key, value)| holds(key) || holds(value)).map(|(tree, ..)| tree.clone()).collect()
}

#[actix_web::test]
async fn the_owner_exports_their_data_and_nothing_of_another_user() {
    let server = TestServer::start().await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada@example.org", "kidney organoid maturation").await;
    let (bob, bob_user) = user_with_a_digest(&server, "bob@example.org", "coral reef bleaching").await;
    server.state.store.billing().set_plan(ada_user.id, engine::Tier::Pro).expect("a plan change");

    let export = ada.get(&format!("/api/users/{}/export", ada_user.id)).await;
    assert_eq!(export.status, 200, "{}", export.body);
    let disposition = export.header("content-disposition").expect("an attachment");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(disposition, format!("attachment; filename=\"papertide-data-{today}.json\""));
    let body = &export.body;
    assert_eq!(body["account"]["email"], "ada@example.org");
    assert_eq!(body["account"]["plan"], "pro");
    assert_eq!(body["account"]["verified"], true);
    assert_eq!(body["searchTerms"][0]["term"], "kidney organoid maturation");
    assert!(body["searchTerms"][0]["status"].is_string() && body["searchTerms"][0]["createdAt"].is_string());
    let digests = body["digests"].as_array().expect("digests");
    let with_paper = digests.iter().find(|digest| !digest["papers"].as_array().expect("papers").is_empty()).expect("a digest with papers");
    assert_eq!(with_paper["papers"][0]["title"], "Kidney organoids mature");
    assert_eq!(with_paper["papers"][0]["authors"], "A. Author");
    assert_eq!(with_paper["papers"][0]["source"], "pubmed");
    let newest_sent = digests.iter().filter_map(|digest| digest["sentAt"].as_str()).max().expect("a digest's time");
    assert_eq!(body["account"]["lastDigestAt"], newest_sent, "the export says when the last digest went out");
    assert_eq!(body["planHistory"], json!([{ "at": body["planHistory"][0]["at"], "from": "free", "to": "pro", "reason": "operator" }]));
    assert!(body["planHistoryNote"].as_str().is_some_and(|note| note.contains("before")));
    assert!(body["preferences"]["deliveryDay"].is_string());

    let text = body.to_string();
    for foreign in ["bob@example.org", "coral reef", &bob_user.id.to_string()] {
        assert!(!text.contains(foreign), "ada's export shows {foreign}: {text}");
    }
    let stored = server.state.store.accounts().user(ada_user.id).expect("db").expect("ada");
    for secret in ["password", "$argon2", "Token", "session", "epoch"] {
        assert!(!text.contains(secret), "the export holds {secret}: {text}");
    }
    assert!(!text.contains(&stored.password_hash));

    let by_email = ada.get("/api/users/ADA@example.org/export").await;
    assert_eq!(by_email.status, 200, "the owner by email: {}", by_email.body);
    assert_eq!(by_email.body["account"]["id"], body["account"]["id"]);

    let other = bob.get(&format!("/api/users/{}/export", ada_user.id)).await;
    assert_eq!((other.status, other.body["code"].as_str()), (404, Some("not_found")), "{}", other.body);
    let other_by_email = bob.get("/api/users/ada@example.org/export").await;
    assert_eq!(other_by_email.status, 404);
    let anonymous = server.client().get(&format!("/api/users/{}/export", ada_user.id)).await;
    assert_eq!((anonymous.status, anonymous.body["code"].as_str()), (401, Some("unauthorized")));

    // A heavy read: a few an hour per user (two were made above).
    let mut statuses = Vec::new();
    for _ in 0..9 {
        statuses.push(ada.get(&format!("/api/users/{}/export", ada_user.id)).await.status);
    }
    assert_eq!(statuses, [vec![200; 8], vec![429]].concat());
    assert_eq!(bob.get(&format!("/api/users/{}/export", bob_user.id)).await.status, 200, "counted per user");
}

#[actix_web::test]
async fn a_wrong_password_deletes_nothing() {
    let server = TestServer::start().await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada@example.org", "kidney organoid maturation").await;
    let before = settled_entries(&server).await;
    let refused = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": "Not-the-password-1" })).await;
    assert_eq!((refused.status, refused.body["code"].as_str()), (403, Some("wrong_password")), "{}", refused.body);
    assert_eq!(refused.message(), "That password is not right.");
    assert_eq!(settled_entries(&server).await, before, "a refused deletion wrote nothing");
    assert_eq!(ada.get("/api/auth/me").await.status, 200, "still signed in");

    let not_a_body = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({})).await;
    assert_eq!(not_a_body.status, 400, "{}", not_a_body.body);
    let (bob, _) = user_with_a_digest(&server, "bob@example.org", "coral reef bleaching").await;
    let before = settled_entries(&server).await;
    let not_theirs = bob.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(not_theirs.status, 404, "{}", not_theirs.body);
    let anonymous = server.client().post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(settled_entries(&server).await, before, "refusals wrote nothing");
}

#[actix_web::test]
async fn deleting_an_account_removes_everything_and_mails_one_confirmation() {
    let maildev = Maildev::start().await;
    let server = TestServer::start_with(|serve| serve.smtp_url = Some(maildev.smtp_url())).await;
    let (ada, ada_user) = smtp_user_with_a_digest(&server, &maildev, "ada@example.org", "kidney organoid maturation").await;
    let (bob, bob_user) = smtp_user_with_a_digest(&server, &maildev, "bob@example.org", "coral reef bleaching").await;
    server.wait_for_empty_queue().await;
    let store = &server.state.store;
    // Mail to ada waiting for a later attempt, and mail that failed for good.
    let mail = |subject: &str| engine::mail::RenderedMail {
        to: "ada@example.org".into(),
        subject: subject.into(),
        html: String::new(),
        text: "text".into(),
        action_url: None,
        list_unsubscribe: None,
    };
    let now = chrono::Utc::now();
    let waiting = store.mail().enqueue(&mail("Waiting"), now + chrono::Duration::days(1)).expect("queued");
    store.mail().mark_failed(waiting, "try later", now + chrono::Duration::days(1)).expect("deferred");
    let dead = store.mail().enqueue(&mail("Bounced"), now + chrono::Duration::days(1)).expect("queued");
    store.mail().move_to_dead(dead, "rejected for good").expect("dead");
    let bob_before = store.accounts().user_data(bob_user.id).expect("db");
    let mails_before = maildev.emails().await.len();

    let deleted = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert_eq!(deleted.body, json!({ "message": "Your account has been deleted." }));
    let cookie = deleted.header("set-cookie").expect("the session cookie is cleared");
    assert!(cookie.contains("Max-Age=0"), "{cookie}");

    let mails = maildev.wait_for_emails(mails_before + 1).await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let mails = if maildev.emails().await.len() > mails.len() { maildev.emails().await } else { mails };
    let new: Vec<&Value> = mails[mails_before..].iter().collect();
    assert_eq!(new.len(), 1, "exactly one mail after the deletion: {new:?}");
    assert_eq!(new[0]["subject"], DELETED_SUBJECT);
    assert_eq!(new[0]["to"][0]["address"], "ada@example.org");
    assert!(!new[0]["text"].as_str().unwrap_or_default().contains("http"), "no link in the confirmation");

    server.wait_for_empty_queue().await;
    let entries = store.raw_entries().expect("db");
    assert_eq!(entries_naming(&entries, &ada_user), Vec::<String>::new(), "no record of ada is left");
    assert!(store.mail().dead().expect("db").iter().all(|dead| dead.mail.to != "ada@example.org"));
    assert_eq!(store.accounts().user_data(bob_user.id).expect("db"), bob_before, "bob's records are untouched");
    assert_eq!(bob.get("/api/auth/me").await.status, 200);

    assert_eq!(ada.get("/api/auth/me").await.status, 401, "the session is gone");
    let login = server.client().post("/api/auth/login", json!({ "email": "ada@example.org", "password": PASSWORD })).await;
    assert_eq!(login.status, 401, "{}", login.body);
    let again = server.client().post("/api/signup", signup_body("ada@example.org", PASSWORD)).await;
    assert_eq!(again.status, 201, "{}", again.body);
    let new_ada = store.accounts().user_by_email("ada@example.org").expect("db").expect("a new account");
    assert_ne!(new_ada.id, ada_user.id);
    assert!(store.digests().of_user(new_ada.id).expect("db").is_empty() && store.terms().of_user(new_ada.id).expect("db").is_empty());
}

#[actix_web::test]
async fn the_outbox_keeps_no_mail_of_a_deleted_account_but_its_confirmation() {
    let server = TestServer::start().await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada@example.org", "kidney organoid maturation").await;
    let (_bob, _) = user_with_a_digest(&server, "bob@example.org", "coral reef bleaching").await;
    server.wait_for_empty_queue().await;
    let to_ada = |mails: &[String]| mails.iter().filter(|mail| mail.contains("To: ada@example.org\r\n")).count();
    assert!(to_ada(&server.outbox()) >= 2, "ada was mailed before");
    let bob_mails = server.outbox().len() - to_ada(&server.outbox());

    let deleted = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let confirmation = server.wait_for_mail_to("ada@example.org", DELETED_SUBJECT).await;
    assert!(confirmation.contains(DELETED_SUBJECT));
    let outbox = server.outbox();
    assert_eq!(to_ada(&outbox), 1, "only the confirmation is left to ada");
    assert_eq!(outbox.len() - 1, bob_mails, "bob's mail stays");
}

/// The files under `dir` (recursively, regular files only) that hold any of `needles`.
fn files_holding(dir: &std::path::Path, needles: &[Vec<u8>]) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a readable folder").flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            found.extend(files_holding(&entry.path(), needles));
        } else if kind.is_file() {
            // A file sled or the mailer removes while it is read is no longer there to hold anything.
            let Ok(bytes) = std::fs::read(entry.path()) else { continue };
            if needles.iter().any(|needle| bytes.windows(needle.len()).any(|window| window == needle.as_slice())) {
                found.push(entry.path());
            }
        }
    }
    found
}

#[actix_web::test]
async fn a_deleted_account_is_gone_from_every_file_of_the_data_directory_within_a_minute() {
    let server = TestServer::start().await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada.lovelace@example.org", "kidney organoid maturation").await;
    let (bob, bob_user) = user_with_a_digest(&server, "bob@example.org", "coral reef bleaching").await;
    server.wait_for_empty_queue().await;
    let store = &server.state.store;
    let term = store.terms().of_user(ada_user.id).expect("db").pop().expect("ada's term");
    let digest = store.digests().of_user(ada_user.id).expect("db").pop().expect("ada's digest");
    let traces: Vec<Vec<u8>> = [
        ada_user.email.as_bytes().to_vec(),
        ada_user.id.as_bytes().to_vec(),
        ada_user.id.to_string().into_bytes(),
        term.id.0.as_bytes().to_vec(),
        term.id.0.to_string().into_bytes(),
        digest.id.as_bytes().to_vec(),
        term.term.as_bytes().to_vec(),
    ]
    .into();
    store.flush().expect("flushed");
    let data_dir = server.data_dir.path();
    let before = files_holding(data_dir, &traces);
    assert!(
        before.iter().any(|path| path.components().any(|part| part.as_os_str().to_string_lossy().starts_with("db"))),
        "the database files name ada before: {before:?}"
    );

    let deleted = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    server.wait_for_mail_to(&ada_user.email, DELETED_SUBJECT).await;
    // Left: the confirmation, delivered to the outbox (the mailbox of a service without SMTP).
    let is_confirmation = |path: &std::path::PathBuf| std::fs::read_to_string(path).is_ok_and(|mail| mail.contains(DELETED_SUBJECT));
    let mut left = Vec::new();
    let erased = testkit::wait::until(Duration::from_secs(60), Duration::from_millis(250), || {
        left = files_holding(data_dir, &traces).into_iter().filter(|path| !is_confirmation(path)).collect();
        left.is_empty().then_some(())
    });
    assert!(erased.await.is_some(), "files still naming ada a minute after the deletion: {left:?}");
    let link = std::fs::read_link(data_dir.join("db")).expect("the database is a link to its generation");
    assert_ne!(link, std::path::PathBuf::from("db.0"), "a compaction ran");

    // The service goes on on the compacted database: bob reads and writes, and ada's address is free.
    assert!(!files_holding(data_dir, &[bob_user.email.as_bytes().to_vec()]).is_empty(), "bob is kept");
    assert_eq!(bob.get("/api/auth/me").await.status, 200);
    let bob_term = store.terms().of_user(bob_user.id).expect("db").pop().expect("bob's term");
    let renamed = bob.patch(&format!("/api/search-terms/{}", bob_term.id), json!({ "term": "sea urchin larvae" })).await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(store.terms().of_user(bob_user.id).expect("db").pop().map(|term| term.term), Some("sea urchin larvae".to_owned()));
    let again = server.client().post("/api/signup", signup_body("ada.lovelace@example.org", PASSWORD)).await;
    assert_eq!(again.status, 201, "{}", again.body);
}

#[actix_web::test]
async fn a_paid_user_s_deletion_cancels_their_subscription_at_stripe() {
    let billing = Billing::start().await;
    let ada = billing.user("ada@example.org", 1).await;
    let paid = billing.pay(&ada, "pro", CARD_OK).await;
    assert_eq!(paid.status, 200, "{}", paid.body);
    billing.wait_for_tier("ada@example.org", engine::Tier::Pro).await;
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    let user = billing.user_record("ada@example.org");

    let export = ada.get(&format!("/api/users/{}/export", user.id)).await;
    assert_eq!(export.body["subscriptions"][0]["subscriptionId"], subscription_id.as_str());
    assert_eq!(export.body["planHistory"][0]["reason"], "stripe");

    let deleted = ada.post(&format!("/api/users/{}/delete", user.id), json!({ "password": PASSWORD })).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let at_stripe = billing.stripe.get(&format!("/v1/subscriptions/{subscription_id}")).await;
    assert_eq!(at_stripe["status"], "canceled", "{at_stripe}");
    // Stripe's webhooks about the canceled subscription find no user and make none.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    billing.server.wait_for_empty_queue().await;
    let entries = billing.server.state.store.raw_entries().expect("db");
    assert_eq!(entries_naming(&entries, &user), Vec::<String>::new(), "no record of ada is left");
    assert!(billing.server.state.store.accounts().user_by_email("ada@example.org").expect("db").is_none());
}

#[actix_web::test]
async fn stripe_unreachable_deletes_nothing() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("an address").port();
    drop(closed);
    let server = TestServer::start_with(|serve| {
        serve.stripe = web::config::StripeArgs {
            stripe_secret_key: Some("sk_test_unreachable".into()),
            stripe_publishable_key: Some("pk_test_unreachable".into()),
            stripe_webhook_secret: Some("whsec_unreachable".into()),
            stripe_api_url: Some(format!("http://127.0.0.1:{port}")),
            stripe_js_url: Some(format!("http://127.0.0.1:{port}/js")),
            stripe_price_pro: Some("price_pro".into()),
            stripe_price_team: Some("price_team".into()),
        };
    })
    .await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada@example.org", "kidney organoid maturation").await;
    server
        .state
        .store
        .accounts()
        .update_user(ada_user.id, |user| {
            user.subscription_tier = engine::Tier::Pro;
            user.stripe_subscription_id = Some("sub_unreachable1".into());
        })
        .expect("a paid plan");
    let before = settled_entries(&server).await;
    let refused = ada.post(&format!("/api/users/{}/delete", ada_user.id), json!({ "password": PASSWORD })).await;
    assert_eq!((refused.status, refused.body["code"].as_str()), (503, Some("payment_service_unavailable")), "{}", refused.body);
    assert!(refused.message().contains("Nothing was deleted"), "{}", refused.body);
    assert_eq!(settled_entries(&server).await, before, "nothing was deleted");
}

#[actix_web::test]
async fn an_operator_deletes_a_user_but_not_themselves() {
    let server = TestServer::start().await;
    let operator = server.operator().await;
    let (ada, ada_user) = user_with_a_digest(&server, "ada@example.org", "kidney organoid maturation").await;
    let (bob, bob_user) = user_with_a_digest(&server, "bob@example.org", "coral reef bleaching").await;
    let operator_user = server.state.store.accounts().user_by_email(crate::common::OPERATOR).expect("db").expect("the operator");

    let before = settled_entries(&server).await;
    let not_an_operator = ada.delete(&format!("/api/admin/users/{}", bob_user.id)).await;
    assert_eq!((not_an_operator.status, not_an_operator.body["code"].as_str()), (403, Some("operator_only")), "{}", not_an_operator.body);
    let anonymous = server.client().delete(&format!("/api/admin/users/{}", bob_user.id)).await;
    assert_eq!(anonymous.status, 401);
    let own = operator.delete(&format!("/api/admin/users/{}", operator_user.id)).await;
    assert_eq!((own.status, own.body["code"].as_str()), (409, Some("cannot_delete_self")), "{}", own.body);
    let unknown = operator.delete(&format!("/api/admin/users/{}", uuid::Uuid::new_v4())).await;
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    let not_an_id = operator.delete("/api/admin/users/ada@example.org").await;
    assert_eq!(not_an_id.status, 404, "{}", not_an_id.body);
    assert_eq!(settled_entries(&server).await, before, "refusals wrote nothing");

    let deleted = operator.delete(&format!("/api/admin/users/{}", ada_user.id)).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert!(deleted.message().contains("ada@example.org"), "{}", deleted.body);
    server.wait_for_mail_to("ada@example.org", DELETED_SUBJECT).await;
    assert_eq!(ada.get("/api/auth/me").await.status, 401);
    assert!(server.state.store.accounts().user(ada_user.id).expect("db").is_none());
    assert_eq!(bob.get("/api/auth/me").await.status, 200, "others stay");
    assert_eq!(operator.get("/api/auth/me").await.status, 200);
}
