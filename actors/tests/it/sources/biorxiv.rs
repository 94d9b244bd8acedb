//! bioRxiv and medRxiv: cursor paging by the numbers in `messages[0]`, both servers through one
//! client, and the API's refusals.

use std::time::Duration;

use actors::sources::{BiorxivClient, BiorxivConfig, ErrorKind};
use engine::paper::Source;

use super::{day, quick_http, ProgressLog};
use testkit::replay::{ReplayServer, Reply};

/// A real first page (cursor 0, count 30, total 873) cut by its origin project to 10 items.
const BIORXIV_PAGE: &str = "biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";
const MEDRXIV_PAGE: &str = "medrxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";

fn client(server: &ReplayServer) -> BiorxivClient {
    BiorxivClient::new(BiorxivConfig { base_url: server.url("/"), http: quick_http(Duration::ZERO) }).expect("a valid config")
}

#[actix_rt::test]
async fn pages_follow_the_cursor_count_and_total_of_the_messages() {
    let server = ReplayServer::start().await;
    let first = Reply::fixture(BIORXIV_PAGE).replace("\"total\": \"873\"", "\"total\": \"40\"");
    let second = first.clone().replace("\"cursor\": 0", "\"cursor\": 30");
    server.on("/details/biorxiv/2026-08-01/2026-08-05/0/json").reply(first);
    server.on("/details/biorxiv/2026-08-01/2026-08-05/30/json").reply(second);
    let progress = ProgressLog::default();

    let papers = client(&server)
        .fetch_window(Source::Biorxiv, day("2026-08-01"), day("2026-08-05"), Some(&|update| progress.record(update)))
        .await
        .expect("the window");

    let paths: Vec<String> = server.requests().into_iter().map(|request| request.path).collect();
    assert_eq!(
        paths,
        ["/details/biorxiv/2026-08-01/2026-08-05/0/json", "/details/biorxiv/2026-08-01/2026-08-05/30/json"],
        "the next cursor is the page's cursor plus its stated count (30), not its 10 items; the total (40) ends the window"
    );
    assert_eq!(papers.items.len(), 20);
    assert!(papers.items.iter().all(|paper| paper.sources == [Source::Biorxiv]));
    let last = progress.last().expect("progress was reported");
    assert_eq!((last.pages, last.records_received, last.records_expected), (2, 20, 40));
}

#[actix_rt::test]
async fn medrxiv_goes_through_the_same_client() {
    let server = ReplayServer::start().await;
    let only_page = Reply::fixture(MEDRXIV_PAGE).replace("\"total\": \"246\"", "\"total\": \"30\"");
    server.on("/details/medrxiv/2026-08-01/2026-08-05/0/json").reply(only_page);

    let papers = client(&server).fetch_window(Source::Medrxiv, day("2026-08-01"), day("2026-08-05"), None).await.expect("the window");

    assert_eq!(server.requests().len(), 1);
    assert_eq!(papers.items.len(), 10);
    assert!(papers.items.iter().all(|paper| paper.sources == [Source::Medrxiv]));
}

#[actix_rt::test]
async fn a_refusal_is_permanent() {
    let server = ReplayServer::start().await;
    let refusal = r#"{"messages":[{"status":"Both dates must be in yyyy-mm-dd format"}],"collection":[]}"#;
    server.on("/details/biorxiv/2026-08-01/2026-08-05/0/json").reply(Reply::text(200, refusal));

    let error = client(&server).fetch_window(Source::Biorxiv, day("2026-08-01"), day("2026-08-05"), None).await.expect_err("refused");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 1));
    assert!(error.to_string().contains("yyyy-mm-dd"), "{error}");
}
