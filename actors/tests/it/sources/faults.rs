//! Faults every client shares the handling of, scripted on the replay server: 429 with
//! `Retry-After`, 5xx, 404, a hung server, a closed port, and garbage or cut bodies.

use std::time::{Duration, Instant};

use actors::sources::{ArxivClient, ArxivConfig, BiorxivClient, BiorxivConfig, ErrorKind, Failure, HttpConfig};
use engine::paper::Source;

use super::{day, esearch_reply, pubmed_client, quick_http, EFETCH, ESEARCH, RECORDED_WEB_ENV};
use testkit::replay::{arrival_gaps, ReplayServer, Reply};

const RATE_LIMIT_BODY: &str = r#"{"error":"API rate limit exceeded","count":"11"}"#;

#[actix_rt::test]
async fn a_429_with_retry_after_is_waited_out_then_retried() {
    let server = ReplayServer::start().await;
    let limited = Reply::text(429, RATE_LIMIT_BODY).header("Retry-After", "1").header("Content-Type", "application/json");
    server.on(ESEARCH).script(vec![limited, esearch_reply(20, RECORDED_WEB_ENV)]);
    let client = pubmed_client(&server, |_| {});

    let search = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect("the retry succeeds");

    assert_eq!(search.count, 20);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(arrival_gaps(&requests)[0] >= Duration::from_secs(1), "the retry came {:?} after the 429", arrival_gaps(&requests)[0]);
}

#[actix_rt::test]
async fn a_429_past_the_retries_is_rate_limited_with_the_asked_wait() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::text(429, RATE_LIMIT_BODY).header("Retry-After", "1"));
    let client = pubmed_client(&server, |config| config.http.max_retries = 0);

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("rate limited");

    assert_eq!(error.kind(), ErrorKind::RateLimited { retry_after: Some(Duration::from_secs(1)) });
    assert!(error.to_string().contains("API rate limit exceeded"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

#[actix_rt::test]
async fn a_retry_after_longer_than_allowed_is_handed_back_at_once() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::status(503).header("Retry-After", "3600"));
    let client = pubmed_client(&server, |_| {});
    let started = Instant::now();

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("unavailable");

    assert_eq!(error.kind(), ErrorKind::Transient);
    assert_eq!(error.failure.retry_after(), Some(Duration::from_secs(3600)));
    assert_eq!(server.requests().len(), 1);
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[actix_rt::test]
async fn a_500_is_retried() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).script(vec![Reply::text(500, "Internal Server Error"), esearch_reply(20, RECORDED_WEB_ENV)]);
    let client = pubmed_client(&server, |_| {});

    let search = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect("the retry succeeds");

    assert_eq!(search.count, 20);
    assert_eq!(server.requests().len(), 2);
}

#[actix_rt::test]
async fn persistent_5xx_is_transient_after_every_retry() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::text(502, "<html><body>Bad Gateway</body></html>"));
    let client = pubmed_client(&server, |config| config.http.max_retries = 2);

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("still failing");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Transient, 3));
    assert!(error.to_string().contains("HTTP 502: <html><body>Bad Gateway</body></html>"), "{error}");
    assert_eq!(server.requests().len(), 3);
}

#[actix_rt::test]
async fn a_404_is_not_found_and_not_retried() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::text(404, "Not Found"));
    let client = pubmed_client(&server, |_| {});

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("not found");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::NotFound, 1));
    assert_eq!(server.requests().len(), 1);
}

#[actix_rt::test]
async fn a_hung_answer_times_out_and_is_transient_after_the_retries() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(20, RECORDED_WEB_ENV).delayed(Duration::from_secs(5)));
    let client = pubmed_client(&server, |config| {
        config.http.timeout = Duration::from_millis(200);
        config.http.max_retries = 2;
    });
    let started = Instant::now();

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("timed out");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Transient, 3));
    assert_eq!(error.failure, Failure::Timeout(Duration::from_millis(200)));
    assert_eq!(server.requests().len(), 3);
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
}

#[actix_rt::test]
async fn a_closed_port_is_transient() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("address")
    };
    let http = HttpConfig { max_retries: 1, ..quick_http(Duration::ZERO) };
    let base_url = format!("http://{closed}/").parse().expect("a URL");
    let client = BiorxivClient::new(BiorxivConfig { base_url, http }).expect("client");

    let error = client.fetch_window(Source::Biorxiv, day("2026-08-01"), day("2026-08-05"), None).await.expect_err("nobody listens");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Transient, 2));
    assert!(matches!(error.failure, Failure::Connection(_)), "{error}");
}

#[actix_rt::test]
async fn garbage_and_cut_bodies_are_not_retried() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).param("mindate", "2024/01/01").reply(Reply::text(200, "<html><body>Service temporarily moved</body></html>"));
    server.on(ESEARCH).param("mindate", "2024/02/01").reply(esearch_reply(20, RECORDED_WEB_ENV).truncated(0.3));
    server.on(ESEARCH).param("mindate", "2024/03/01").reply(esearch_reply(20, RECORDED_WEB_ENV));
    server.on(EFETCH).reply(Reply::fixture("pubmed/efetch_batch_20_articles.xml").truncated(0.5));
    server.on("/api/query").reply(Reply::fixture("arxiv/api_query_testing_start0_max10.xml").truncated(0.5));
    server.on("/details/biorxiv/2026-08-01/2026-08-05/0/json").reply(Reply::text(200, "<html>502 Bad Gateway</html>"));
    let pubmed = pubmed_client(&server, |_| {});
    let arxiv = ArxivClient::new(ArxivConfig { base_url: server.url("/api/query"), http: quick_http(Duration::ZERO), ..ArxivConfig::default() })
        .expect("arxiv client");
    let biorxiv = BiorxivClient::new(BiorxivConfig { base_url: server.url("/"), http: quick_http(Duration::ZERO) }).expect("biorxiv client");

    let garbage = pubmed.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("garbage");
    let cut = pubmed.search_window("all", day("2024-02-01"), day("2024-02-07")).await.expect_err("cut short");
    let arxiv_cut = arxiv.fetch_window(day("2024-01-01"), day("2024-01-07"), &[], None).await.expect_err("cut short");
    let biorxiv_garbage = biorxiv.fetch_window(Source::Biorxiv, day("2026-08-01"), day("2026-08-05"), None).await.expect_err("garbage");
    for error in [&garbage, &cut, &arxiv_cut, &biorxiv_garbage] {
        assert_eq!((error.kind(), error.attempts), (ErrorKind::Parse, 1), "{error}");
    }

    // A cut EFetch body keeps the records before the cut and warns about the rest.
    let papers = pubmed.fetch_window("all", day("2024-03-01"), day("2024-03-07"), None).await.expect("what could be read");
    assert!(!papers.items.is_empty() && papers.items.len() < 20, "{} papers", papers.items.len());
    assert!(!papers.warnings.is_empty());

    assert_eq!(server.requests().len(), 6, "one request each, no retries: {:?}", server.requests());
}
