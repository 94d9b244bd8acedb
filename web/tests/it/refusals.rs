//! The refusals actix-http writes before the service sees a request (a head too large, a request
//! it cannot parse, a first request that never comes) carry a JSON body like every other
//! refusal (`web::refusals`); what the service answers itself passes untouched.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::TestServer;
use crate::floods::address_of;

/// Everything the server sends on `stream` until it closes the connection (or `wait` passes).
fn read_to_close(stream: &mut TcpStream, wait: Duration) -> String {
    let deadline = Instant::now() + wait;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) {
        stream.set_read_timeout(Some(left)).expect("a read timeout");
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(read) => answer.extend_from_slice(&chunk[..read]),
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// Sends `request` on a new connection and answers what comes back before the server closes it
/// (or `wait` passes).
async fn exchange(server: &TestServer, request: Vec<u8>, wait: Duration) -> (String, Duration) {
    let address = address_of(server);
    actix_web::rt::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(address).expect("connected");
        stream.write_all(&request).expect("sent");
        let started = Instant::now();
        let answer = read_to_close(&mut stream, wait);
        (answer, started.elapsed())
    })
    .await
    .expect("the client thread")
}

/// The JSON body of `answer`, checking its head says so.
fn json_body(answer: &str) -> serde_json::Value {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("a head and a body: {answer:?}"));
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length: ").map(|value| value.trim().parse().expect("a length")))
        .expect("a content length");
    assert_eq!(length, body.len(), "the length is the body's");
    serde_json::from_str(body).unwrap_or_else(|error| panic!("{error}: {body:?}"))
}

#[actix_web::test]
async fn a_100_kb_address_and_an_oversized_head_are_refused_with_a_json_body() {
    let server = TestServer::start().await;
    let long_address = format!("GET /api/config?{} HTTP/1.1\r\nHost: localhost\r\n\r\n", "a".repeat(100_000));
    let (answer, _) = exchange(&server, long_address.into_bytes(), Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    let body = json_body(&answer);
    assert_eq!(body["code"], "bad_request");
    assert_eq!(body["message"], "The request could not be read: it is not well-formed HTTP, or its address is too long.");

    // More header fields than actix-http reads.
    let many_fields: String = (0..200).map(|n| format!("X-Field-{n}: {n}\r\n")).collect();
    let many_fields = format!("GET /api/config HTTP/1.1\r\nHost: localhost\r\n{many_fields}\r\n");
    let (answer, _) = exchange(&server, many_fields.into_bytes(), Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    let body = json_body(&answer);
    assert_eq!(body["code"], "http_error");
    assert_eq!(body["message"], "The request's address or headers are too long.");
}

#[actix_web::test]
async fn requests_that_are_not_http_are_refused_400_with_a_json_body() {
    let server = TestServer::start().await;
    for request in [
        &b"HELLO THERE\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nHost localhost\r\n\r\n",
        b"GET /\x01 HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
    ] {
        let (answer, _) = exchange(&server, request.to_vec(), Duration::from_secs(10)).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{:?}: {answer}", String::from_utf8_lossy(request));
        let body = json_body(&answer);
        assert_eq!(body["code"], "bad_request");
        assert_eq!(body["message"], "The request could not be read: it is not well-formed HTTP, or its address is too long.");
    }
}

#[actix_web::test]
async fn a_first_request_that_never_comes_is_refused_408_with_a_json_body() {
    let server = TestServer::start().await;
    let (answer, took) = exchange(&server, b"GET /api/config HTTP/1.1\r\nHost: loc".to_vec(), Duration::from_secs(20)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert_eq!(json_body(&answer)["code"], "body_timeout");
    assert!(took >= Duration::from_secs(4) && took < Duration::from_secs(10), "after actix's 5 s deadline: {took:?}");
}

#[actix_web::test]
async fn the_service_s_own_answers_pass_untouched_on_a_kept_alive_connection() {
    let server = TestServer::start().await;
    let requests =
        b"GET /api/config HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/nothing-here HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_vec();
    let (answer, _) = exchange(&server, requests, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (_, rest) = answer.split_once("\r\n\r\n").expect("the first answer's head");
    assert!(rest.starts_with('{'), "the configuration's JSON: {rest}");
    let second = &answer[answer.find("HTTP/1.1 404").unwrap_or_else(|| panic!("the second answer: {answer}"))..];
    assert_eq!(json_body(second)["code"], "not_found");
}
