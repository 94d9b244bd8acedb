//! arXiv: paging with `start`/`max_results` at the configured pace, the error feed, and the
//! empty page arXiv sometimes answers in the middle of a result set.

use std::time::Duration;

use actors::sources::{ArxivClient, ArxivConfig, ErrorKind, HttpConfig};
use engine::paper::Source;

use super::{day, quick_http, ProgressLog};
use testkit::replay::{assert_paced, ReplayServer, Reply};

const QUERY: &str = "/api/query";
/// A real page of 10 entries (of 214881), and a real page of the 4 last entries of a search.
const TEN_ENTRIES: &str = "arxiv/api_query_testing_start0_max10.xml";
const FOUR_ENTRIES: &str = "arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml";

fn client(server: &ReplayServer, http: HttpConfig, page_size: u64) -> ArxivClient {
    ArxivClient::new(ArxivConfig { base_url: server.url(QUERY), page_size, http, ..ArxivConfig::default() }).expect("a valid config")
}

/// Serves the recorded page of ten as the first page of a result set of 14, and returns the
/// recorded page of four renumbered as its second page.
fn serve_first_of_fourteen(server: &ReplayServer) -> Reply {
    server.on(QUERY).param("start", "0").reply(Reply::fixture(TEN_ENTRIES).replace(">214881<", ">14<"));
    Reply::fixture(FOUR_ENTRIES).replace("<opensearch:totalResults>4<", "<opensearch:totalResults>14<")
}

#[actix_rt::test]
async fn two_pages_are_read_at_the_configured_interval() {
    let interval = Duration::from_millis(200);
    let server = ReplayServer::start().await;
    let second = serve_first_of_fourteen(&server);
    server.on(QUERY).param("start", "10").reply(second);
    let client = client(&server, HttpConfig { max_in_flight: Some(1), ..quick_http(interval) }, 10);
    let progress = ProgressLog::default();

    let papers = client
        .fetch_window(day("2024-01-01"), day("2024-01-07"), &["q-bio.GN", "cs.LG"], Some(&|update| progress.record(update)))
        .await
        .expect("the window");

    assert_eq!(papers.items.len(), 14, "{:?}", papers.warnings);
    assert!(papers.items.iter().all(|paper| paper.sources == [Source::Arxiv] && paper.ids.arxiv.is_some()));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let query = "submittedDate:[202401010000 TO 202401072359] AND (cat:q-bio.GN OR cat:cs.LG)";
    assert!(requests.iter().all(|request| request.param("search_query") == Some(query)), "{requests:?}");
    assert!(requests.iter().all(|request| request.param("sortBy") == Some("submittedDate")));
    let pages: Vec<(Option<&str>, Option<&str>)> = requests.iter().map(|request| (request.param("start"), request.param("max_results"))).collect();
    assert_eq!(pages, [(Some("0"), Some("10")), (Some("10"), Some("4"))]);
    assert_paced(&requests, interval);
    let last = progress.last().expect("progress was reported");
    assert_eq!((last.pages, last.records_received, last.records_expected), (2, 14, 14));
}

#[actix_rt::test]
async fn an_empty_page_before_the_end_is_asked_again() {
    let server = ReplayServer::start().await;
    let second = serve_first_of_fourteen(&server);
    let empty = Reply::fixture("arxiv/api_idlist_nonexistent_0000.0000_zero_results.xml")
        .replace("<opensearch:totalResults>0<", "<opensearch:totalResults>14<");
    server.on(QUERY).param("start", "10").script(vec![empty, second]);
    let client = client(&server, quick_http(Duration::ZERO), 10);

    let papers = client.fetch_window(day("2024-01-01"), day("2024-01-07"), &[], None).await.expect("the window");

    assert_eq!(papers.items.len(), 14);
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.requests()[0].param("search_query"), Some("submittedDate:[202401010000 TO 202401072359]"));
}

#[actix_rt::test]
async fn the_error_feed_is_permanent_whatever_its_status() {
    let server = ReplayServer::start().await;
    let error_feed = Reply::fixture("arxiv/api_error_incorrect_id_format_http400.xml");
    server.on(QUERY).param("start", "0").script(vec![error_feed.clone().with_status(400), error_feed]);
    let client = client(&server, quick_http(Duration::ZERO), 10);

    for status in [400, 200] {
        let error = client.fetch_window(day("2024-01-01"), day("2024-01-07"), &[], None).await.expect_err("the error feed");
        assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 1), "HTTP {status}: {error}");
        assert!(error.to_string().contains("incorrect id format for abc"), "HTTP {status}: {error}");
    }
    assert_eq!(server.requests().len(), 2);
}

#[actix_rt::test]
async fn a_category_that_would_change_the_query_is_refused_before_sending() {
    let server = ReplayServer::start().await;
    let client = client(&server, quick_http(Duration::ZERO), 10);

    let error = client.fetch_window(day("2024-01-01"), day("2024-01-07"), &["cs.AI OR all:x"], None).await.expect_err("refused");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0));
    assert!(server.requests().is_empty());
}

/// Real answers to `id_list=1605.08386` (one entry) and `id_list=0000.0000` (none).
const ID_LIST_1605: &str = "arxiv/api_idlist_1605.08386_two_categories.xml";
const ID_LIST_NONE: &str = "arxiv/api_idlist_nonexistent_0000.0000_zero_results.xml";

#[actix_rt::test]
async fn papers_are_asked_by_id_list_and_an_unknown_id_is_simply_absent() {
    let server = ReplayServer::start().await;
    server.on(QUERY).param("id_list", "1605.08386,0000.0000").reply(Reply::fixture(ID_LIST_1605));
    let client = client(&server, quick_http(Duration::ZERO), 10);

    let papers = client.fetch_ids(&["1605.08386".into(), "0000.0000".into()]).await.expect("the ids");

    assert!(papers.warnings.is_empty(), "{:?}", papers.warnings);
    assert_eq!(papers.items.len(), 1);
    let paper = &papers.items[0];
    assert_eq!((paper.ids.arxiv.as_deref(), paper.title.as_str()), (Some("1605.08386"), "Heat-bath random walks with Markov bases"));
    assert_eq!(paper.categories, ["math.CO", "math.ST"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].query,
        [("id_list", "1605.08386,0000.0000"), ("start", "0"), ("max_results", "2")].map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
}

#[actix_rt::test]
async fn more_than_a_hundred_ids_go_in_requests_of_a_hundred() {
    let server = ReplayServer::start().await;
    server.on(QUERY).param("id_list", "1605.08386").reply(Reply::fixture(ID_LIST_1605));
    server.on(QUERY).reply(Reply::fixture(ID_LIST_NONE));
    let client = client(&server, quick_http(Duration::ZERO), 10);
    let mut ids: Vec<String> = (1..=100).map(|number| format!("2101.{number:05}")).collect();
    ids.push("1605.08386".into());

    let papers = client.fetch_ids(&ids).await.expect("the ids");

    assert_eq!(papers.items.len(), 1);
    let requests = server.requests();
    let sizes: Vec<(usize, Option<&str>)> =
        requests.iter().map(|request| (request.param("id_list").map_or(0, |list| list.split(',').count()), request.param("max_results"))).collect();
    assert_eq!(sizes, [(100, Some("100")), (1, Some("1"))]);
}

#[actix_rt::test]
async fn an_id_that_is_no_arxiv_id_is_refused_before_sending() {
    let server = ReplayServer::start().await;
    let client = client(&server, quick_http(Duration::ZERO), 10);

    let error = client.fetch_ids(&["1605.08386".into(), "1605.08386&start=5".into()]).await.expect_err("refused");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0));
    assert!(error.to_string().contains("not an arXiv id"), "{error}");
    assert!(server.requests().is_empty());
}

#[actix_rt::test]
async fn an_id_list_arxiv_refuses_is_a_permanent_error() {
    let server = ReplayServer::start().await;
    server.on(QUERY).reply(Reply::fixture("arxiv/api_error_incorrect_id_format_http400.xml").with_status(400));
    let client = client(&server, quick_http(Duration::ZERO), 10);

    let error = client.fetch_ids(&["1605.08386".into()]).await.expect_err("the error feed");

    assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 1));
}
