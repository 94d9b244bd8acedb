//! Sign-in, sign-up and forgot-password give the same answer, in the same time, whether or not
//! the account exists: timed over many interleaved tries against the real server.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{signup_body, Answer, Client, TestServer, PASSWORD};

const TRIES: usize = 15;

/// The shortest time of `TRIES` calls of each of two requests, sent in turn, and the last answer
/// of each. The shortest is the time of the work itself: whatever else the machine does (other
/// tests, and the hashing threads' lower priority under load) only adds to a call's time, so a
/// median of a loaded machine can differ by tens of milliseconds between two equal paths, while
/// a path that skipped a hash would still be tens of milliseconds faster at its fastest.
async fn timed_pair(client: &Client, path: &str, first: impl Fn(usize) -> Value, second: impl Fn(usize) -> Value) -> [(Duration, Answer); 2] {
    let mut times = [Vec::new(), Vec::new()];
    let mut answers = [None, None];
    for attempt in 0..TRIES {
        for (which, body) in [first(attempt), second(attempt)].into_iter().enumerate() {
            let started = Instant::now();
            let answer = client.post(path, body).await;
            times[which].push(started.elapsed());
            answers[which] = Some(answer);
        }
    }
    let shortest = |times: &[Duration]| times.iter().min().copied().unwrap_or_default();
    let [first_answer, second_answer] = answers.map(|answer| answer.expect("an answer"));
    [(shortest(&times[0]), first_answer), (shortest(&times[1]), second_answer)]
}

/// The two times are within a few milliseconds or a quarter of each other: far closer than a
/// password hash (tens of milliseconds) that one path would do and the other not.
fn assert_same_time(what: &str, existing: Duration, missing: Duration) {
    let (slower, faster) = if existing > missing { (existing, missing) } else { (missing, existing) };
    let allowed = Duration::from_millis(8) + slower / 4;
    assert!(slower - faster <= allowed, "{what}: {existing:?} for an account, {missing:?} without one");
}

fn without_ids(mut body: Value) -> Value {
    if let Some(user) = body.get_mut("user").and_then(Value::as_object_mut) {
        for field in ["id", "createdAt", "updatedAt", "email"] {
            user.remove(field);
        }
    }
    body
}

#[actix_web::test]
async fn sign_in_sign_up_and_forgot_password_answer_alike_for_accounts_and_strangers() {
    let server = TestServer::start().await;
    server.verified_user(&server.client(), "ada@example.org").await;
    let client = server.client();

    let [(existing, known), (missing, unknown)] = timed_pair(
        &client,
        "/api/auth/login",
        |_| json!({ "email": "ada@example.org", "password": "Wrong-pass-1" }),
        |attempt| json!({ "email": format!("nobody{attempt}@example.org"), "password": "Wrong-pass-1" }),
    )
    .await;
    assert_eq!((known.status, known.body.clone()), (unknown.status, unknown.body.clone()), "sign-in");
    assert_same_time("sign-in", existing, missing);

    let [(existing, known), (missing, unknown)] = timed_pair(
        &client,
        "/api/signup",
        |_| signup_body("ada@example.org", PASSWORD),
        |attempt| signup_body(&format!("new{attempt}@example.org"), PASSWORD),
    )
    .await;
    assert_eq!((known.status, without_ids(known.body)), (unknown.status, without_ids(unknown.body)), "sign-up");
    assert_same_time("sign-up", existing, missing);

    let [(existing, known), (missing, unknown)] = timed_pair(
        &client,
        "/api/forgot-password",
        |_| json!({ "email": "ada@example.org" }),
        |attempt| json!({ "email": format!("stranger{attempt}@example.org") }),
    )
    .await;
    assert_eq!((known.status, known.body), (unknown.status, unknown.body), "forgot-password");
    assert_same_time("forgot-password", existing, missing);
}
