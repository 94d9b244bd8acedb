//! Crossref: one work by DOI, the DOI one encoded path segment, the polite pool's `mailto`, a
//! 404 as no work, and its errors. The bodies are hand-built from Crossref's documentation
//! (`engine/fixtures/crossref/PROVENANCE.md`), not recorded.

use std::time::Duration;

use actors::sources::{CrossrefClient, CrossrefConfig, ErrorKind, Origin};
use engine::paper::Source;

use super::quick_http;
use testkit::replay::{ReplayServer, Reply};

pub const JOURNAL_ARTICLE: &str = "crossref/works_journal_article_jats_structured_abstract.json";
pub const PREPRINT: &str = "crossref/works_posted_content_biorxiv_published.json";
pub const NOT_FOUND: &str = "crossref/works_404_resource_not_found.txt";
/// The path of `works/10.5555/psycho.2021.0042`, its `/` encoded.
pub const JOURNAL_ARTICLE_PATH: &str = "/works/10.5555%2Fpsycho.2021.0042";

pub fn crossref_client(server: &ReplayServer, mailto: Option<&str>) -> CrossrefClient {
    let config = CrossrefConfig { http: quick_http(Duration::ZERO), ..CrossrefConfig::new(server.url("/"), mailto.map(str::to_owned)) };
    CrossrefClient::new(config).expect("a valid config")
}

#[actix_rt::test]
async fn a_work_is_asked_by_its_doi_as_one_path_segment_with_the_contact() {
    let server = ReplayServer::start().await;
    server.on(JOURNAL_ARTICLE_PATH).reply(Reply::fixture(JOURNAL_ARTICLE));

    let paper = crossref_client(&server, Some("ops@papers.example.org"))
        .work("https://doi.org/10.5555/PSYCHO.2021.0042")
        .await
        .expect("an answer")
        .expect("the work");

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].path, JOURNAL_ARTICLE_PATH);
    assert_eq!(requests[0].query, [("mailto".to_owned(), "ops@papers.example.org".to_owned())]);
    assert_eq!(paper.ids.doi.as_deref(), Some("10.5555/psycho.2021.0042"));
    assert_eq!(paper.title, "Water retention of cracked pots: a controlled comparison of crack shapes");
    assert!(paper.sources.is_empty());
    assert_eq!(paper.abstract_sections.len(), 3);
}

#[actix_rt::test]
async fn without_a_contact_no_mailto_is_sent_and_a_preprint_is_its_servers() {
    let server = ReplayServer::start().await;
    server.on("/works/10.1101%2F2099.01.01.000001").reply(Reply::fixture(PREPRINT));

    let paper = crossref_client(&server, None).work("10.1101/2099.01.01.000001").await.expect("an answer").expect("the work");

    assert!(server.requests()[0].query.is_empty());
    assert_eq!(paper.sources, [Source::Biorxiv]);
    assert_eq!(paper.ids.published_doi.as_deref(), Some("10.5555/psycho.2099.0001"));
}

#[actix_rt::test]
async fn characters_that_would_change_the_request_stay_inside_the_segment() {
    let server = ReplayServer::start().await;
    server.on("/works/10.1002%2F(sici)1097%3Fx=1%23y").reply(Reply::fixture(NOT_FOUND).with_status(404));

    let answer = crossref_client(&server, None).work("10.1002/(SICI)1097?x=1#y").await.expect("an answer");

    assert_eq!(answer, None);
    let requests = server.requests();
    assert_eq!((requests[0].path.as_str(), requests[0].query.len()), ("/works/10.1002%2F(sici)1097%3Fx=1%23y", 0), "{requests:?}");
}

#[actix_rt::test]
async fn a_doi_crossref_does_not_hold_is_none_at_once() {
    let server = ReplayServer::start().await;
    server.on("/works/10.5555%2Fnowhere").reply(Reply::fixture(NOT_FOUND).with_status(404));

    let answer = crossref_client(&server, Some("ops@papers.example.org")).work("10.5555/nowhere").await.expect("not an error");

    assert_eq!(answer, None);
    assert_eq!(server.requests().len(), 1, "a 404 is not retried");
}

#[actix_rt::test]
async fn a_server_error_is_retried_then_transient_and_a_refusal_permanent() {
    let server = ReplayServer::start().await;
    server.on(JOURNAL_ARTICLE_PATH).reply(Reply::text(500, "Internal Server Error"));
    let refusal = r#"{"status":"failed","message-type":"validation-failure","message":[{"value":"x","message":"mailto is not a valid email","type":"parameter-not-valid"}]}"#;
    server.on("/works/10.5555%2Frefused").reply(Reply::text(400, refusal));
    let client = crossref_client(&server, Some("ops@papers.example.org"));

    let error = client.work("10.5555/psycho.2021.0042").await.expect_err("Crossref keeps failing");
    assert_eq!((error.origin, error.kind(), error.attempts), (Origin::Crossref, ErrorKind::Transient, 4));
    assert_eq!(server.requests_to(JOURNAL_ARTICLE_PATH).len(), 4);
    assert!(!error.to_string().contains("ops@papers.example.org"), "no URL in the error: {error}");

    let refused = client.work("10.5555/refused").await.expect_err("refused");
    assert_eq!((refused.kind(), refused.attempts), (ErrorKind::Permanent, 1));
    assert!(refused.to_string().contains("mailto is not a valid email"), "{refused}");
}

#[actix_rt::test]
async fn an_answer_that_is_no_work_is_unreadable() {
    let server = ReplayServer::start().await;
    server.on(JOURNAL_ARTICLE_PATH).reply(Reply::text(200, "<html><body>Maintenance</body></html>"));

    let error = crossref_client(&server, None).work("10.5555/psycho.2021.0042").await.expect_err("unreadable");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Parse, 1));
}
