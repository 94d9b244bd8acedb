//! Login brute force (OWASP ASVS 2.2.1): guessing is limited per address and account, per
//! address, and per account across addresses, while the account's owner still signs in from
//! their own browser (device cookie) or from an address they are signed in from.

use serde_json::json;

use crate::common::{Answer, Client, TestServer, PASSWORD};

const OWNER: &str = "ada@example.org";
const WRONG: &str = "Wrong-123";

/// A server behind a (simulated) trusted proxy, so each request names its address in
/// `X-Forwarded-For`, with `account_rate` attempts per account.
async fn server_with(login_rate: &str, account_rate: &str) -> TestServer {
    let (login_rate, account_rate) = (login_rate.to_owned(), account_rate.to_owned());
    TestServer::start_with(move |serve| {
        serve.trust_proxy = Some(true);
        serve.rate_limit_login = Some(login_rate);
        serve.rate_limit_login_account = Some(account_rate);
    })
    .await
}

async fn login_from(client: &Client, address: &str, email: &str, password: &str) -> Answer {
    let body = json!({ "email": email, "password": password }).to_string();
    let headers = [("content-type", "application/json"), ("x-forwarded-for", address)];
    client.post_raw("/api/auth/login", &headers, body).await
}

fn assert_limited(answer: &Answer, context: &str) {
    assert_eq!(answer.status, 429, "{context}: {}", answer.body);
    assert_eq!(answer.body["code"], "rate_limited", "{context}");
    let retry_after: u64 = answer.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=3600).contains(&retry_after), "{context}: Retry-After {retry_after}");
}

/// Guesses `OWNER`'s password from `count` fresh addresses (203.0.113.x), one guess each.
async fn guess_from_many_addresses(server: &TestServer, email: &str, count: u8) -> Vec<u16> {
    let attacker = server.client();
    let mut statuses = Vec::new();
    for host in 1..=count {
        statuses.push(login_from(&attacker, &format!("203.0.113.{host}"), email, WRONG).await.status);
    }
    statuses
}

#[actix_web::test]
async fn one_address_hammering_one_account_gets_429_and_so_does_one_address_guessing_many() {
    let server = server_with("3/1h", "1000/1h").await;
    let attacker = server.client();
    for _ in 0..3 {
        assert_eq!(login_from(&attacker, "198.51.100.1", OWNER, WRONG).await.status, 401);
    }
    assert_limited(&login_from(&attacker, "198.51.100.1", OWNER, WRONG).await, "one address, one account");

    // Five times the login rate per address, whichever accounts it tries.
    let mut statuses = Vec::new();
    for index in 0..16 {
        statuses.push(login_from(&attacker, "198.51.100.2", &format!("user{index}@example.org"), WRONG).await.status);
    }
    assert_eq!(statuses[..15], [401; 15], "{statuses:?}");
    assert_limited(&login_from(&attacker, "198.51.100.2", "someone-else@example.org", WRONG).await, "one address, many accounts");
}

#[actix_web::test]
async fn many_addresses_guessing_one_account_are_limited_per_account_whether_or_not_it_exists() {
    let server = server_with("1000/1h", "5/1h").await;
    let owner = server.client();
    server.verified_user(&owner, OWNER).await;
    for email in [OWNER, "nobody@example.org"] {
        let statuses = guess_from_many_addresses(&server, email, 5).await;
        assert_eq!(statuses, [401; 5], "{email}");
        let stranger = server.client();
        let limited = login_from(&stranger, "192.0.2.77", email, PASSWORD).await;
        assert_limited(&limited, &format!("a sixth address guessing {email}"));
    }
    assert!(server.state.store.accounts().user_by_email(OWNER).expect("db").expect("user").is_active, "the account is not locked");
}

#[actix_web::test]
async fn the_owner_still_signs_in_from_their_own_device_during_an_attack() {
    let server = server_with("3/1h", "5/1h").await;
    let owner = server.client();
    server.verified_user(&owner, OWNER).await; // signed in: the browser now has a device cookie
    assert_eq!(owner.post("/api/auth/logout", json!({})).await.status, 200);

    guess_from_many_addresses(&server, OWNER, 8).await;
    let stranger = server.client();
    assert_limited(&login_from(&stranger, "192.0.2.10", OWNER, PASSWORD).await, "the right password from an unknown browser");

    // From an address never seen, with the device cookie of a verified sign-in.
    let signed_in = login_from(&owner, "192.0.2.20", OWNER, PASSWORD).await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    assert_eq!(owner.get("/api/auth/me").await.body["user"]["email"], OWNER);
}

#[actix_web::test]
async fn the_owner_still_signs_in_from_an_address_they_are_signed_in_from() {
    let server = server_with("1000/1h", "5/1h").await;
    let laptop = server.client();
    server.verified_user(&laptop, OWNER).await; // a live session from 127.0.0.1

    guess_from_many_addresses(&server, OWNER, 8).await;
    let phone = server.client(); // another browser, no device cookie, at the same address
    let signed_in = phone.post("/api/auth/login", json!({ "email": OWNER, "password": PASSWORD })).await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    let elsewhere = server.client();
    assert_limited(&login_from(&elsewhere, "192.0.2.30", OWNER, PASSWORD).await, "an address without a session");
}

#[actix_web::test]
async fn a_device_cookie_has_its_own_limit_and_counts_only_for_its_own_account() {
    let server = server_with("3/1h", "5/1h").await;
    let owner = server.client();
    server.verified_user(&owner, OWNER).await;
    let bob = server.client();
    server.verified_user(&bob, "bob@example.org").await;
    assert_eq!(owner.post("/api/auth/logout", json!({})).await.status, 200);

    // A stolen device cookie guesses no faster than the login rate, from any address.
    for host in 1..=3 {
        assert_eq!(login_from(&owner, &format!("192.0.2.{host}"), OWNER, WRONG).await.status, 401);
    }
    assert_limited(&login_from(&owner, "192.0.2.4", OWNER, WRONG).await, "the device's own limit");

    // Bob's device cookie is no help against Ada's account-wide limit.
    guess_from_many_addresses(&server, OWNER, 8).await;
    assert_limited(&login_from(&bob, "192.0.2.40", OWNER, PASSWORD).await, "another account's device");
}

#[actix_web::test]
async fn a_forged_device_cookie_is_not_trusted() {
    let server = server_with("1000/1h", "5/1h").await;
    let owner = server.client();
    server.verified_user(&owner, OWNER).await;
    let user_id = server.state.store.accounts().user_by_email(OWNER).expect("db").expect("user").id;
    guess_from_many_addresses(&server, OWNER, 8).await;

    let issued = chrono::Utc::now().timestamp();
    let forged = format!("papertide_device={}.{issued}.{}", user_id.0.simple(), "00".repeat(32));
    let body = json!({ "email": OWNER, "password": PASSWORD }).to_string();
    let headers = [("content-type", "application/json"), ("x-forwarded-for", "192.0.2.50"), ("cookie", forged.as_str())];
    let forger = server.client();
    assert_limited(&forger.post_raw("/api/auth/login", &headers, body).await, "a forged device cookie");
}

#[actix_web::test]
async fn a_password_reset_voids_device_cookies() {
    let server = server_with("1000/1h", "5/1h").await;
    let owner = server.client();
    server.verified_user(&owner, OWNER).await;
    assert_eq!(owner.post("/api/auth/logout", json!({})).await.status, 200);
    // What a password reset does to the account's sessions and devices.
    server.state.store.accounts().update_user_by_email(OWNER, |user| user.session_epoch += 1).expect("stored");

    guess_from_many_addresses(&server, OWNER, 8).await;
    assert_limited(&login_from(&owner, "192.0.2.60", OWNER, PASSWORD).await, "a device cookie of an older epoch");
}
