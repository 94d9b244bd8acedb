//! Credentials belong to whoever controls the mailbox: an address signed up before its owner
//! does gives the first signer nothing, walked end to end against the real binary; and the
//! binary keeps serving when its log cannot be written.

use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::{link_in, signup_body, token_of, BinaryServer};

const VICTIM: &str = "victim@example.org";
const ATTACKER_PASSWORD: &str = "Mallory-owns-this-1";
const VICTIM_PASSWORD: &str = "Victims-own-secret-2";
const VERIFY_SUBJECT: &str = "Verify your email for Papertide";

fn field_names(value: &Value) -> Vec<String> {
    let mut names: Vec<String> = value.as_object().map(|fields| fields.keys().cloned().collect()).unwrap_or_default();
    names.sort();
    names
}

/// The attack as it was found: an attacker signs the victim's address up with the attacker's
/// password; the victim signs up later, gets the same answer and a verification mail, and
/// clicks it. The victim's password must be the one that works, and the attacker's refused.
#[actix_web::test]
async fn an_address_signed_up_before_its_owner_gives_the_first_signer_no_way_in() {
    let server = BinaryServer::start(&[("PAPERTIDE_LOG", "warn")], Stdio::null()).await;
    let attacker = server.client();
    let first = attacker.post("/api/signup", signup_body(VICTIM, ATTACKER_PASSWORD)).await;
    let victim = server.client();
    let second = victim.post("/api/signup", signup_body(VICTIM, VICTIM_PASSWORD)).await;
    assert_eq!((first.status, second.status), (201, 201), "{} {}", first.body, second.body);
    assert_eq!(first.body["message"], second.body["message"], "the answers say the same");
    assert_eq!(field_names(&first.body["user"]), field_names(&second.body["user"]), "and have the same shape");

    let mails = server.wait_for_mails(2, VICTIM, VERIFY_SUBJECT).await;
    let (attackers_link, victims_link) = (link_in(&mails[0], "/verify-email?token="), link_in(&mails[1], "/verify-email?token="));
    let stale = victim.get(&format!("/api/verify-email?token={}", token_of(&attackers_link))).await;
    assert_eq!(stale.status, 400, "the link of the earlier signup is void: {}", stale.body);
    let verified = victim.get(&format!("/api/verify-email?token={}", token_of(&victims_link))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);

    let attempt = attacker.post("/api/auth/login", json!({ "email": VICTIM, "password": ATTACKER_PASSWORD })).await;
    assert_eq!(attempt.status, 401, "the attacker's password is refused: {}", attempt.body);
    assert_eq!(attacker.get("/api/auth/me").await.status, 401, "and the attacker holds no session");
    let owner = server.client().post("/api/auth/login", json!({ "email": VICTIM, "password": VICTIM_PASSWORD })).await;
    assert_eq!(owner.status, 200, "the victim's own password signs in: {}", owner.body);
}

/// An operator's address (`PAPERTIDE_ADMIN_EMAILS`) signed up by someone else before its owner
/// gives no operator rights: they come with verification, and the owner's signup replaces the
/// trap's password.
#[actix_web::test]
async fn an_operator_address_signed_up_first_by_someone_else_gives_no_rights() {
    let boss = "boss@example.org";
    let server = BinaryServer::start(&[("PAPERTIDE_LOG", "warn"), ("PAPERTIDE_ADMIN_EMAILS", boss)], Stdio::null()).await;
    let attacker = server.client();
    let trap = attacker.post("/api/signup", signup_body(boss, ATTACKER_PASSWORD)).await;
    assert_eq!((trap.status, &trap.body["user"]["isAdmin"]), (201, &json!(false)), "unverified, no rights: {}", trap.body);
    let refused = attacker.post("/api/auth/login", json!({ "email": boss, "password": ATTACKER_PASSWORD })).await;
    assert_eq!(refused.status, 403, "an unverified account does not sign in: {}", refused.body);

    let owner = server.client();
    assert_eq!(owner.post("/api/signup", signup_body(boss, VICTIM_PASSWORD)).await.status, 201);
    let mails = server.wait_for_mails(2, boss, VERIFY_SUBJECT).await;
    let link = link_in(mails.last().expect("the owner's mail"), "/verify-email?token=");
    assert_eq!(owner.get(&format!("/api/verify-email?token={}", token_of(&link))).await.status, 200);
    assert_eq!(owner.get("/api/auth/me").await.body["user"]["isAdmin"], true, "the verified owner is an operator");
    let attempt = attacker.post("/api/auth/login", json!({ "email": boss, "password": ATTACKER_PASSWORD })).await;
    assert_eq!(attempt.status, 401, "{}", attempt.body);
}

/// With its log on a full disk (`/dev/full` refuses every write), the binary still answers every
/// request, and counts the lines it dropped.
#[actix_web::test]
async fn a_log_that_cannot_be_written_takes_nothing_down() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let server = BinaryServer::start(&[("PAPERTIDE_LOG", "debug"), ("PAPERTIDE_RATE_LIMIT_SIGNUP", "100/1h")], Stdio::from(full)).await;
    let client = server.client();
    for index in 0..20 {
        let answer = client.post("/api/signup", signup_body(&format!("user{index}@example.org"), VICTIM_PASSWORD)).await;
        assert_eq!(answer.status, 201, "signup {index}: {}", answer.body);
        let refused = client.post("/api/auth/login", json!({ "email": format!("user{index}@example.org"), "password": "wrong-one-here" })).await;
        assert_eq!(refused.status, 401, "login {index}: {}", refused.body);
    }
    assert_eq!(client.get("/healthz").await.status, 200);
    let metrics = client.get("/metrics").await;
    let dropped: u64 = metrics
        .body
        .as_str()
        .and_then(|text| text.lines().find_map(|line| line.strip_prefix("papertide_log_lines_dropped_total ")))
        .and_then(|value| value.trim().parse().ok())
        .expect("the dropped lines' count");
    assert!(dropped > 0, "the lines the log could not take are counted");
}
