//! PubMed: ESearch on the history server, EFetch in batches, window splitting, pacing, ids by
//! POST, and NCBI's errors inside HTTP 200.

use std::time::Duration;

use actors::sources::ErrorKind;

use super::{day, esearch_reply, pubmed_client, ProgressLog, EFETCH, ESEARCH, RECORDED_WEB_ENV};
use testkit::replay::{assert_paced, ReplayServer, Reply};

const EFETCH_20: &str = "pubmed/efetch_batch_20_articles.xml";
const EFETCH_6: &str = "pubmed/efetch_batch_6_articles.xml";

#[actix_rt::test]
async fn a_window_is_searched_with_history_and_fetched_from_it() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(20, RECORDED_WEB_ENV));
    server.on(EFETCH).reply(Reply::fixture(EFETCH_20));
    let client = pubmed_client(&server, |_| {});
    let progress = ProgressLog::default();

    let papers = client.fetch_window("all", day("2024-01-01"), day("2024-01-07"), Some(&|update| progress.record(update))).await.expect("the window");

    assert_eq!(papers.items.len(), 20, "{:?}", papers.warnings);
    assert!(papers.warnings.is_empty(), "{:?}", papers.warnings);
    assert!(papers.items.iter().all(|paper| paper.ids.pmid.is_some()));
    assert_eq!(papers.items[0].ids.pmid.as_deref(), Some("10485824"));

    let searches = server.requests_to(ESEARCH);
    assert_eq!(searches.len(), 1);
    let search = &searches[0];
    for (name, value) in [
        ("db", "pubmed"),
        ("term", "all[sb]"),
        ("datetype", "edat"),
        ("mindate", "2024/01/01"),
        ("maxdate", "2024/01/07"),
        ("usehistory", "y"),
        ("retmax", "0"),
        ("tool", "papertide-tests"),
        ("email", "ops@papers.example.org"),
        ("api_key", "test-key"),
    ] {
        assert_eq!(search.param(name), Some(value), "esearch {name}");
    }
    let fetches = server.requests_to(EFETCH);
    assert_eq!(fetches.len(), 1);
    for (name, value) in [
        ("db", "pubmed"),
        ("WebEnv", RECORDED_WEB_ENV),
        ("query_key", "1"),
        ("retstart", "0"),
        ("retmax", "20"),
        ("retmode", "xml"),
        ("tool", "papertide-tests"),
        ("api_key", "test-key"),
    ] {
        assert_eq!(fetches[0].param(name), Some(value), "efetch {name}");
    }
    let last = progress.last().expect("progress was reported");
    assert_eq!((last.records_received, last.records_expected), (20, 20));
}

#[actix_rt::test]
async fn records_are_fetched_in_batches_through_the_history_server() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(26, RECORDED_WEB_ENV));
    server.on(EFETCH).param("retstart", "0").param("retmax", "20").reply(Reply::fixture(EFETCH_20));
    server.on(EFETCH).param("retstart", "20").param("retmax", "6").reply(Reply::fixture(EFETCH_6));
    let client = pubmed_client(&server, |config| config.batch_size = 20);

    let papers = client.fetch_window("cancer[tiab]", day("2024-01-01"), day("2024-01-07"), None).await.expect("the window");

    assert_eq!(papers.items.len(), 26, "{:?}", papers.warnings);
    assert!(papers.warnings.is_empty(), "{:?}", papers.warnings);
    assert_eq!(server.requests_to(ESEARCH)[0].param("term"), Some("cancer[tiab]"));
    assert_eq!(server.requests_to(EFETCH).len(), 2);
}

#[actix_rt::test]
async fn a_window_over_9999_records_is_split_by_days_until_each_part_fits() {
    let server = ReplayServer::start().await;
    let window = |from: &str, to: &str| server.on(ESEARCH).param("mindate", from).param("maxdate", to);
    window("2024/01/01", "2024/01/08").reply(esearch_reply(30_000, "MCID_whole"));
    window("2024/01/01", "2024/01/04").reply(esearch_reply(12_000, "MCID_first_half"));
    window("2024/01/01", "2024/01/02").reply(esearch_reply(20, "MCID_first_quarter"));
    window("2024/01/03", "2024/01/04").reply(esearch_reply(0, "MCID_second_quarter"));
    window("2024/01/05", "2024/01/08").reply(esearch_reply(6, "MCID_second_half"));
    server.on(EFETCH).param("WebEnv", "MCID_first_quarter").reply(Reply::fixture(EFETCH_20));
    server.on(EFETCH).param("WebEnv", "MCID_second_half").reply(Reply::fixture(EFETCH_6));
    let client = pubmed_client(&server, |_| {});

    let papers = client.fetch_window("all", day("2024-01-01"), day("2024-01-08"), None).await.expect("the window");

    assert_eq!(papers.items.len(), 26, "{:?}", papers.warnings);
    assert!(papers.warnings.is_empty(), "{:?}", papers.warnings);
    let searched: Vec<(String, String)> = server
        .requests_to(ESEARCH)
        .iter()
        .map(|request| (request.param("mindate").unwrap_or("").to_owned(), request.param("maxdate").unwrap_or("").to_owned()))
        .collect();
    let expected = [
        ("2024/01/01", "2024/01/08"),
        ("2024/01/01", "2024/01/04"),
        ("2024/01/01", "2024/01/02"),
        ("2024/01/03", "2024/01/04"),
        ("2024/01/05", "2024/01/08"),
    ];
    assert_eq!(searched, expected.map(|(from, to)| (from.to_owned(), to.to_owned())));
    let fetched: Vec<String> = server.requests_to(EFETCH).iter().filter_map(|request| request.param("WebEnv").map(str::to_owned)).collect();
    assert_eq!(fetched, ["MCID_first_quarter", "MCID_second_half"], "only parts that fit are fetched, empty ones not at all");
}

#[actix_rt::test]
async fn a_single_day_over_the_limit_is_fetched_up_to_it_with_a_warning() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(25, RECORDED_WEB_ENV));
    server.on(EFETCH).reply(Reply::fixture(EFETCH_20));
    let client = pubmed_client(&server, |config| config.max_records_per_search = 20);

    let papers = client.fetch_window("all", day("2024-01-03"), day("2024-01-03"), None).await.expect("the day");

    assert_eq!(papers.items.len(), 20);
    assert_eq!(papers.warnings.len(), 1, "{:?}", papers.warnings);
    assert!(papers.warnings[0].message.contains("2024-01-03 holds 25 records"), "{}", papers.warnings[0].message);
    assert_eq!(server.requests_to(EFETCH)[0].param("retmax"), Some("20"));
}

#[actix_rt::test]
async fn ncbi_requests_keep_the_pace_across_concurrent_callers() {
    let interval = Duration::from_millis(150);
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(26, RECORDED_WEB_ENV));
    server.on(EFETCH).param("retstart", "0").reply(Reply::fixture(EFETCH_20));
    server.on(EFETCH).param("retstart", "20").reply(Reply::fixture(EFETCH_6));
    let client = pubmed_client(&server, |config| {
        config.batch_size = 20;
        config.http.min_interval = interval;
    });
    let other_caller = client.clone();

    let (window, ()) = tokio::join!(client.fetch_window("all", day("2024-01-01"), day("2024-01-07"), None), async {
        for _ in 0..3 {
            other_caller.search_window("all", day("2024-02-01"), day("2024-02-07")).await.expect("a search");
        }
    });
    assert_eq!(window.expect("the window").items.len(), 26);

    let requests = server.requests();
    assert_eq!(requests.len(), 6);
    assert_paced(&requests, interval);
}

#[actix_rt::test]
async fn more_than_200_ids_are_sent_by_post() {
    let server = ReplayServer::start().await;
    server.on(EFETCH).reply(Reply::fixture(EFETCH_6));
    let client = pubmed_client(&server, |config| config.batch_size = 500);
    let many: Vec<String> = (1..=201).map(|pmid| pmid.to_string()).collect();
    let few: Vec<String> = vec!["9997".into(), "12091962".into()];

    client.fetch_ids(&many, None).await.expect("many ids");
    let papers = client.fetch_ids(&few, None).await.expect("few ids");

    let requests = server.requests_to(EFETCH);
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "POST");
    assert!(requests[0].query.is_empty(), "a POST carries its parameters in the body");
    assert_eq!(requests[0].param("id").map(|ids| ids.split(',').count()), Some(201));
    assert_eq!(requests[0].param("email"), Some("ops@papers.example.org"));
    assert_eq!(requests[1].method, "GET");
    assert_eq!(requests[1].param("id"), Some("9997,12091962"));
    assert_eq!(papers.items.len(), 6, "the replay answers six records whatever was asked");
    let error = client.fetch_ids(&["PMC123".into()], None).await.expect_err("not a PMID");
    assert_eq!((error.kind(), error.attempts), (ErrorKind::Permanent, 0));
}

#[actix_rt::test]
async fn an_ncbi_error_inside_http_200_is_permanent_and_not_retried() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::fixture("pubmed/esummary_xml_error_no_id.xml"));
    let client = pubmed_client(&server, |_| {});

    let error = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect_err("an NCBI error");

    assert_eq!(error.kind(), ErrorKind::Permanent);
    assert!(error.to_string().contains("Neither query_key nor id specified"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

#[actix_rt::test]
async fn an_efetch_error_inside_http_200_is_permanent() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(esearch_reply(20, RECORDED_WEB_ENV));
    server.on(EFETCH).reply(Reply::text(200, "<?xml version=\"1.0\"?>\n<eFetchResult>\n\t<ERROR>Unable to obtain query #1</ERROR>\n</eFetchResult>"));
    let client = pubmed_client(&server, |_| {});

    let error = client.fetch_window("all", day("2024-01-01"), day("2024-01-07"), None).await.expect_err("an NCBI error");

    assert_eq!(error.kind(), ErrorKind::Permanent);
    assert!(error.request.starts_with("efetch"), "{error}");
    assert!(error.to_string().contains("Unable to obtain query #1"), "{error}");
    assert_eq!(server.requests_to(EFETCH).len(), 1);
}

#[actix_rt::test]
async fn an_ncbi_error_that_says_try_again_later_is_retried() {
    let server = ReplayServer::start().await;
    let busy = "<eSearchResult><ERROR>Search Backend temporarily unavailable, please try again later</ERROR></eSearchResult>";
    server.on(ESEARCH).script(vec![Reply::text(200, busy), esearch_reply(20, RECORDED_WEB_ENV)]);
    let client = pubmed_client(&server, |_| {});

    let search = client.search_window("all", day("2024-01-01"), day("2024-01-07")).await.expect("the retry succeeds");

    assert_eq!(search.count, 20);
    assert_eq!(search.web_env.as_deref(), Some(RECORDED_WEB_ENV));
    assert_eq!(server.requests().len(), 2);
}
