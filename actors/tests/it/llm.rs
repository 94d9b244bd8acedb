//! The LLM client against a real chat-completions server on loopback: a small HTTP/1.1 server
//! on its own threads that plays a script of replies and records every request it receives.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actors::{Llm, LlmConfig, LlmError, ModelClass};
use engine::paper::{AbstractSection, Paper, Source};
use serde_json::{json, Value};
use url::Url;

/// One scripted reply.
#[derive(Clone)]
struct Canned {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
}

impl Canned {
    /// A chat completion whose first choice says `content`.
    fn answer(content: &str) -> Canned {
        let body = json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        });
        Canned::raw(200, &body.to_string())
    }

    fn raw(status: u16, body: &str) -> Canned {
        Canned { status, headers: Vec::new(), body: body.to_owned(), delay: Duration::ZERO }
    }

    fn delayed(self, delay: Duration) -> Canned {
        Canned { delay, ..self }
    }

    fn header(mut self, name: &'static str, value: &str) -> Canned {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Lower-case names.
    headers: HashMap<String, String>,
    body: Value,
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Canned>,
    /// Repeated once the script is played.
    last: Option<Canned>,
    seen: Vec<Seen>,
}

struct ChatServer {
    port: u16,
    script: Arc<Mutex<Script>>,
}

impl ChatServer {
    /// Listens on a free loopback port; the script's last reply repeats.
    fn start(replies: Vec<Canned>) -> ChatServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("address").port();
        let script = Arc::new(Mutex::new(Script { replies: replies.into(), ..Script::default() }));
        let shared = Arc::clone(&script);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let script = Arc::clone(&shared);
                std::thread::spawn(move || serve(stream, &script));
            }
        });
        ChatServer { port, script }
    }

    fn base_url(&self) -> Url {
        Url::parse(&format!("http://127.0.0.1:{}/v1", self.port)).expect("url")
    }

    fn seen(&self) -> Vec<Seen> {
        self.script.lock().expect("script").seen.clone()
    }
}

/// Reads one request, records it, and answers with the next scripted reply.
fn serve(stream: TcpStream, script: &Mutex<Script>) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or_default().to_owned(), parts.next().unwrap_or_default().to_owned());
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers.get("content-length").and_then(|length| length.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = {
        let mut script = script.lock().expect("script");
        script.seen.push(Seen { method, path, headers, body });
        let next = script.replies.pop_front().or_else(|| script.last.clone());
        script.last = next.clone();
        next.unwrap_or_else(|| Canned::raw(418, "no reply scripted"))
    };
    std::thread::sleep(reply.delay);
    let mut response = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (name, value) in &reply.headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(&reply.body);
    let mut stream = reader.into_inner();
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}

fn config(server: &ChatServer) -> LlmConfig {
    LlmConfig {
        api_key: Some("sk-test-key".into()),
        model_advanced: Some("big-model".into()),
        timeout: Duration::from_secs(5),
        ..LlmConfig::new(server.base_url(), "small-model")
    }
}

fn paper(title: &str, abstract_text: &str) -> Paper {
    let mut paper = Paper::new(Source::Arxiv, title);
    paper.abstract_sections = vec![AbstractSection { label: None, text: abstract_text.into() }];
    paper
}

fn user_message(seen: &Seen) -> String {
    let messages = seen.body["messages"].as_array().cloned().unwrap_or_default();
    assert!(messages.len() >= 2, "system and user messages: {}", seen.body);
    assert!(messages.iter().all(|message| message["role"].is_string() && message["content"].is_string()), "{}", seen.body);
    messages.iter().find(|message| message["role"] == "user").and_then(|message| message["content"].as_str()).unwrap_or_default().to_owned()
}

#[test]
fn each_task_gets_its_answer_and_the_server_gets_a_chat_completions_request() {
    let server = ChatServer::start(vec![
        Canned::answer("```json\n[\"clustered regularly interspaced short palindromic repeats\", \"Cas9\", \"CRISPR\"]\n```"),
        Canned::answer("**Summary:** The authors edit genes with Cas9."),
        Canned::answer("- Gene editing dominates.\n- Delivery improves.\n- Off-target effects shrink."),
    ]);
    let llm = Llm::new(config(&server)).expect("client");
    let gene = paper("Cas9 editing in mice", "We edited genes in mice with Cas9.");

    let phrases = llm.expand(ModelClass::Standard, "CRISPR").expect("expansion");
    let summary = llm.summarize_paper(ModelClass::Advanced, &gene).expect("summary");
    let lines = llm.summarize_digest(ModelClass::Standard, "CRISPR", &[&gene], engine::digest::WINDOW_DAYS).expect("digest summary");

    assert_eq!(phrases, vec!["clustered regularly interspaced short palindromic repeats", "Cas9"]);
    assert_eq!(summary, "The authors edit genes with Cas9.");
    assert_eq!(lines, vec!["Gene editing dominates.", "Delivery improves.", "Off-target effects shrink."]);

    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    for request in &seen {
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/chat/completions"));
        assert_eq!(request.headers.get("authorization").map(String::as_str), Some("Bearer sk-test-key"));
        assert!(request.headers.get("content-type").is_some_and(|kind| kind.starts_with("application/json")));
        assert!(request.body["temperature"].as_f64().is_some_and(|temperature| temperature <= 0.5));
    }
    let models: Vec<&str> = seen.iter().map(|request| request.body["model"].as_str().unwrap_or_default()).collect();
    assert_eq!(models, vec!["small-model", "big-model", "small-model"]);
    assert!(user_message(&seen[0]).contains("CRISPR"));
    assert!(user_message(&seen[1]).contains("Cas9 editing in mice") && user_message(&seen[1]).contains("We edited genes"));
    assert!(user_message(&seen[2]).contains("CRISPR") && user_message(&seen[2]).contains("Cas9 editing in mice"));
    let stats = llm.stats();
    assert_eq!((stats.calls, stats.failures, stats.last_error), (3, 0, None));
}

#[test]
fn without_a_key_no_authorization_is_sent_and_advanced_falls_back_to_the_standard_model() {
    let server = ChatServer::start(vec![Canned::answer("[\"heart attack\"]")]);
    let config = LlmConfig { api_key: None, model_advanced: None, ..config(&server) };
    let llm = Llm::new(config).expect("client");

    assert_eq!(llm.model(ModelClass::Advanced), "small-model");
    assert_eq!(llm.expand(ModelClass::Advanced, "myocardial infarction").expect("expansion"), vec!["heart attack"]);

    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].headers.get("authorization"), None);
    assert_eq!(seen[0].body["model"], "small-model");
}

#[test]
fn the_model_of_each_class_is_named_for_cache_keys() {
    let server = ChatServer::start(Vec::new());
    let llm = Llm::new(config(&server)).expect("client");
    assert_eq!((llm.model(ModelClass::Standard), llm.model(ModelClass::Advanced)), ("small-model", "big-model"));
    assert!(server.seen().is_empty(), "naming the model sends nothing");
}

#[test]
fn a_server_slower_than_the_timeout_is_a_timeout_within_about_the_timeout() {
    let server = ChatServer::start(vec![Canned::answer("[\"late\"]").delayed(Duration::from_secs(4))]);
    let timeout = Duration::from_millis(500);
    let llm = Llm::new(LlmConfig { timeout, ..config(&server) }).expect("client");
    let started = Instant::now();

    let error = llm.expand(ModelClass::Standard, "anything").expect_err("too slow");

    assert_eq!(error, LlmError::Timeout(timeout));
    assert!(started.elapsed() < Duration::from_millis(1_500), "gave up after {:?}", started.elapsed());
    assert_eq!(server.seen().len(), 1, "a timeout is not retried");
    assert!(error.to_string().contains("did not answer within 0.5 s"), "{error}");
}

#[test]
fn a_body_that_is_not_a_chat_completion_is_a_bad_response_and_not_retried() {
    let server = ChatServer::start(vec![Canned::raw(200, "<html><body>It works!</body></html>")]);
    let llm = Llm::new(config(&server)).expect("client");

    let error = llm.summarize_paper(ModelClass::Standard, &paper("T", "A.")).expect_err("garbage");

    assert!(matches!(&error, LlmError::BadResponse(reason) if reason.contains("not a chat-completions response")), "{error:?}");
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn an_error_object_in_a_200_body_is_a_bad_response() {
    let server = ChatServer::start(vec![Canned::raw(200, r#"{"error":{"message":"model is loading"}}"#)]);
    let llm = Llm::new(config(&server)).expect("client");

    let error = llm.expand(ModelClass::Standard, "x").expect_err("error body");

    assert!(matches!(&error, LlmError::BadResponse(reason) if reason.contains("model is loading")), "{error:?}");
}

#[test]
fn a_500_is_retried_once_and_the_retry_succeeds() {
    let server = ChatServer::start(vec![Canned::raw(500, "Internal Server Error"), Canned::answer("[\"retried\"]")]);
    let llm = Llm::new(config(&server)).expect("client");

    assert_eq!(llm.expand(ModelClass::Standard, "x").expect("the retry succeeds"), vec!["retried"]);
    assert_eq!(server.seen().len(), 2);
    assert_eq!(llm.stats().failures, 0);
}

#[test]
fn a_persistent_503_is_tried_twice_only() {
    let server = ChatServer::start(vec![Canned::raw(503, r#"{"error":{"message":"overloaded"}}"#)]);
    let llm = Llm::new(config(&server)).expect("client");

    let error = llm.expand(ModelClass::Standard, "x").expect_err("still failing");

    assert_eq!(error, LlmError::Status { status: 503, message: "overloaded".into() });
    assert_eq!(server.seen().len(), 2, "one retry, no more");
}

#[test]
fn a_429_waits_out_a_short_retry_after() {
    let limited = Canned::raw(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "1");
    let server = ChatServer::start(vec![limited, Canned::answer("[\"patient\"]")]);
    let llm = Llm::new(config(&server)).expect("client");
    let started = Instant::now();

    assert_eq!(llm.expand(ModelClass::Standard, "x").expect("after the wait"), vec!["patient"]);
    assert!(started.elapsed() >= Duration::from_secs(1), "retried after {:?}", started.elapsed());
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn a_429_asking_for_a_long_wait_is_not_retried() {
    let server = ChatServer::start(vec![Canned::raw(429, "{}").header("Retry-After", "120"), Canned::answer("[\"never\"]")]);
    let llm = Llm::new(config(&server)).expect("client");
    let started = Instant::now();

    let error = llm.expand(ModelClass::Standard, "x").expect_err("rate limited");

    assert!(matches!(error, LlmError::Status { status: 429, .. }), "{error:?}");
    assert_eq!(server.seen().len(), 1);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_401_is_an_error_and_not_retried() {
    let server = ChatServer::start(vec![
        Canned::raw(401, r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#),
        Canned::answer("[\"never\"]"),
    ]);
    let llm = Llm::new(config(&server)).expect("client");

    let error = llm.expand(ModelClass::Standard, "x").expect_err("unauthorized");

    assert_eq!(error, LlmError::Status { status: 401, message: "Incorrect API key provided".into() });
    assert_eq!(server.seen().len(), 1);
    let stats = llm.stats();
    assert_eq!((stats.calls, stats.failures), (1, 1));
    assert!(stats.last_error.is_some_and(|message| message.contains("401") && !message.contains("sk-test-key")));
}

#[test]
fn a_server_quoting_the_key_does_not_get_it_into_errors() {
    let server = ChatServer::start(vec![Canned::raw(401, r#"{"error":{"message":"Incorrect API key provided: sk-test-key."}}"#)]);
    let llm = Llm::new(config(&server)).expect("client");

    let error = llm.expand(ModelClass::Standard, "x").expect_err("unauthorized");

    assert_eq!(error, LlmError::Status { status: 401, message: "Incorrect API key provided: <redacted>.".into() });
    assert!(llm.stats().last_error.is_some_and(|message| !message.contains("sk-test-key")));
}

#[test]
fn after_a_failure_calls_fail_fast_until_the_cool_down_is_over() {
    let server = ChatServer::start(vec![Canned::raw(401, "{}"), Canned::answer("[\"back\"]")]);
    let cool_down = Duration::from_millis(700);
    let llm = Llm::new(LlmConfig { cool_down, ..config(&server) }).expect("client");

    assert!(matches!(llm.expand(ModelClass::Standard, "x"), Err(LlmError::Status { status: 401, .. })));
    let started = Instant::now();
    let skipped = llm.clone().summarize_paper(ModelClass::Advanced, &paper("T", "A.")).expect_err("breaker open");
    assert!(matches!(skipped, LlmError::Unavailable { retry_in } if retry_in <= cool_down), "{skipped:?}");
    assert!(started.elapsed() < Duration::from_millis(100), "failing fast took {:?}", started.elapsed());
    assert_eq!(server.seen().len(), 1, "a skipped call must not reach the server");
    assert!(llm.stats().breaker_open);

    std::thread::sleep(cool_down + Duration::from_millis(100));
    assert_eq!(llm.expand(ModelClass::Standard, "x").expect("the probe succeeds"), vec!["back"]);
    assert_eq!(server.seen().len(), 2, "after the cool-down the call reaches the server");
    let stats = llm.stats();
    assert_eq!((stats.calls, stats.failures, stats.skipped, stats.breaker_open), (3, 2, 1, false));
}

#[test]
fn an_unusable_answer_fails_its_call_only() {
    let server = ChatServer::start(vec![Canned::answer("Sorry, I can't list phrases."), Canned::answer("[\"fine\"]")]);
    let llm = Llm::new(config(&server)).expect("client");

    assert!(matches!(llm.expand(ModelClass::Standard, "x"), Err(LlmError::BadResponse(_))));
    assert_eq!(llm.expand(ModelClass::Standard, "x").expect("the service works"), vec!["fine"]);
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn a_closed_port_is_a_connection_error() {
    let port = TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("port").port();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/v1")).expect("url");
    let llm = Llm::new(LlmConfig::new(url, "m")).expect("client");
    assert!(matches!(llm.expand(ModelClass::Standard, "x"), Err(LlmError::Connection(_))));
}

#[actix_rt::test]
async fn it_is_built_used_and_dropped_inside_an_actix_runtime() {
    let server = ChatServer::start(vec![Canned::answer("[\"from a blocking thread\"]")]);
    let llm = Llm::new(config(&server)).expect("client built inside the runtime");
    let worker = llm.clone();
    let phrases = actix_web::web::block(move || worker.expand(ModelClass::Standard, "x")).await.expect("block ran");
    assert_eq!(phrases, Ok(vec!["from a blocking thread".to_owned()]));
    let worker = llm.clone();
    let model = tokio::task::spawn_blocking(move || worker.model(ModelClass::Advanced).to_owned()).await.expect("spawn_blocking ran");
    assert_eq!(model, "big-model");
    drop(llm);
    actix_rt::time::sleep(Duration::from_millis(50)).await;
}

#[tokio::test]
async fn it_is_built_used_and_dropped_inside_a_tokio_runtime() {
    let server = ChatServer::start(vec![Canned::answer("Short summary.")]);
    let llm = Llm::new(config(&server)).expect("client built inside the runtime");
    let summary = tokio::task::spawn_blocking(move || {
        let summary = llm.summarize_paper(ModelClass::Standard, &paper("T", "A."));
        drop(llm);
        summary
    })
    .await
    .expect("spawn_blocking ran");
    assert_eq!(summary, Ok("Short summary.".to_owned()));
    let built_and_dropped_here = Llm::new(config(&server)).expect("client");
    drop(built_and_dropped_here);
}

#[test]
fn it_is_built_used_and_dropped_on_a_plain_thread() {
    let server = ChatServer::start(vec![Canned::answer("[\"plain\"]")]);
    let config = config(&server);
    let outcome = std::thread::spawn(move || {
        let llm = Llm::new(config).expect("client");
        llm.expand(ModelClass::Standard, "x")
    })
    .join()
    .expect("no panic");
    assert_eq!(outcome, Ok(vec!["plain".to_owned()]));
}
