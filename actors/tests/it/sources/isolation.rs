//! Clients are independent: one source failing and backing off does not hold up, pace or fail
//! another client running at the same time.

use std::time::{Duration, Instant};

use actors::sources::{ArxivClient, ArxivConfig, BiorxivClient, BiorxivConfig, ErrorKind};
use engine::paper::Source;

use super::{day, pubmed_client, quick_http, ESEARCH};
use testkit::replay::{ReplayServer, Reply};

#[actix_rt::test]
async fn a_failing_source_does_not_hold_up_the_others() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::text(500, "Internal Server Error"));
    server.on("/api/query").reply(Reply::fixture("arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml"));
    let biorxiv_page = Reply::fixture("biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json")
        .replace("\"total\": \"873\"", "\"total\": \"30\"");
    server.on("/details/biorxiv/2026-08-01/2026-08-05/0/json").reply(biorxiv_page);

    let pubmed = pubmed_client(&server, |config| config.http.min_interval = Duration::from_millis(300));
    let arxiv = ArxivClient::new(ArxivConfig { base_url: server.url("/api/query"), http: quick_http(Duration::ZERO), ..ArxivConfig::default() })
        .expect("arxiv client");
    let biorxiv = BiorxivClient::new(BiorxivConfig { base_url: server.url("/"), http: quick_http(Duration::ZERO) }).expect("biorxiv client");
    let finished_at = |outcome| (outcome, Instant::now());

    let ((pubmed_outcome, pubmed_done), (arxiv_outcome, arxiv_done), (biorxiv_outcome, biorxiv_done)) = tokio::join!(
        async { finished_at(pubmed.fetch_window("all", day("2024-01-01"), day("2024-01-07"), None).await) },
        async { finished_at(arxiv.fetch_window(day("2024-01-01"), day("2024-01-07"), &[], None).await) },
        async { finished_at(biorxiv.fetch_window(Source::Biorxiv, day("2026-08-01"), day("2026-08-05"), None).await) },
    );

    let pubmed_error = pubmed_outcome.expect_err("PubMed keeps failing");
    assert_eq!((pubmed_error.origin, pubmed_error.kind(), pubmed_error.attempts), (Source::Pubmed.into(), ErrorKind::Transient, 4));
    assert_eq!(arxiv_outcome.expect("arXiv answers").items.len(), 4);
    assert_eq!(biorxiv_outcome.expect("bioRxiv answers").items.len(), 10);
    assert!(arxiv_done < pubmed_done && biorxiv_done < pubmed_done, "the healthy sources waited for the failing one");
    assert_eq!(server.requests_to(ESEARCH).len(), 4);
}
