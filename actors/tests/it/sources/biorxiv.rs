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

/// The real answer to `details/medrxiv/10.1101/2020.09.09.20191205`: versions 1 and 2.
const DOI_LOOKUP: &str = "medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json";
const DOI_LOOKUP_PATH: &str = "/details/medrxiv/10.1101/2020.09.09.20191205/na/json";
const NO_POSTS: &str = r#"{"messages":[{"status":"no posts found"}],"collection":[]}"#;

#[actix_rt::test]
async fn a_preprint_is_looked_up_by_doi_and_its_latest_version_wins() {
    let server = ReplayServer::start().await;
    server.on(DOI_LOOKUP_PATH).reply(Reply::fixture(DOI_LOOKUP));

    let paper =
        client(&server).fetch_doi(Source::Medrxiv, "https://doi.org/10.1101/2020.09.09.20191205").await.expect("an answer").expect("the preprint");

    let paths: Vec<String> = server.requests().into_iter().map(|request| request.path).collect();
    assert_eq!(paths, [DOI_LOOKUP_PATH]);
    assert_eq!(paper.sources, [Source::Medrxiv]);
    assert_eq!(paper.ids.doi.as_deref(), Some("10.1101/2020.09.09.20191205"));
    assert_eq!(paper.ids.preprint_version, Some(2));
    assert_eq!(paper.ids.published_doi.as_deref(), Some("10.1038/s41467-021-21444-5"));
    assert_eq!(paper.entered, Some(day("2020-09-11")), "the latest version's date");
}

#[actix_rt::test]
async fn no_posts_found_is_none_and_a_failing_server_an_error() {
    let server = ReplayServer::start().await;
    server.on("/details/biorxiv/10.1101/2020.09.09.20191205/na/json").reply(Reply::text(200, NO_POSTS));
    server.on(DOI_LOOKUP_PATH).reply(Reply::text(503, "Service Unavailable"));
    let client = client(&server);

    let absent = client.fetch_doi(Source::Biorxiv, "10.1101/2020.09.09.20191205").await.expect("an answer");
    assert_eq!(absent, None);

    let error = client.fetch_doi(Source::Medrxiv, "10.1101/2020.09.09.20191205").await.expect_err("unavailable");
    assert_eq!((error.kind(), error.attempts), (ErrorKind::Transient, 4));
}

#[actix_rt::test]
async fn a_doi_that_would_change_the_path_is_refused_before_sending() {
    let server = ReplayServer::start().await;
    let client = client(&server);

    for bad in ["10.1101/../../details", "10.1101/2020.09.09.20191205?x=1", "not a doi"] {
        let error = client.fetch_doi(Source::Biorxiv, bad).await.expect_err("refused");
        assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0), "{bad}");
    }
    assert!(server.requests().is_empty());
}
