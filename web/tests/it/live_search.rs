//! Live search through the service: with `--live-search true` and the sources at the replay
//! server, an immediate search whose term the index lacks asks PubMed (a free plan asks nothing
//! else) for the term over the last 90 days, indexes what comes back, mails it, counts the query
//! on `/healthz` and `/metrics`, and does not ask again for the same term the same day.
//!
//! PubMed answers with the recorded ESearch of 6 PMIDs and the recorded EFetch of those 6
//! records (`engine/fixtures/pubmed`), whose records entered PubMed in 2008. One of them, the
//! news item on breast cancer risk (PMID 18927361), has its Entrez date moved to yesterday, as
//! the browser tests' replay server moves its records into the week; the others stay outside the
//! window and are not indexed.

use chrono::{Datelike, Duration, Utc};
use serde_json::json;

use crate::common::replay::{ReplayServer, Reply};
use crate::common::TestServer;

const ESEARCH: &str = "/entrez/eutils/esearch.fcgi";
const EFETCH: &str = "/entrez/eutils/efetch.fcgi";
const ARXIV: &str = "/api/query";
const RECORDED_ENTREZ_DATE: &str = "<PubMedPubDate PubStatus=\"entrez\"><Year>2008</Year><Month>10</Month><Day>18</Day>";
const TITLE: &str = "DNA test for breast cancer risk draws criticism";

#[actix_web::test]
async fn an_immediate_search_the_index_lacks_asks_pubmed_and_mails_what_it_finds() {
    let sources = ReplayServer::start().await;
    let yesterday = Utc::now().date_naive() - Duration::days(1);
    let moved = format!(
        "<PubMedPubDate PubStatus=\"entrez\"><Year>{}</Year><Month>{}</Month><Day>{}</Day>",
        yesterday.year(),
        yesterday.month(),
        yesterday.day()
    );
    sources.on(ESEARCH).reply(Reply::fixture("pubmed/esearch_xml_retmax5000_idlist.xml"));
    sources.on(EFETCH).reply(Reply::fixture("pubmed/efetch_batch_6_articles.xml").replace(RECORDED_ENTREZ_DATE, &moved));
    let server = TestServer::start_with(|serve| {
        serve.live_search = Some(true);
        serve.sources.pubmed_url = Some(sources.url("/entrez/eutils/").to_string());
        serve.sources.arxiv_url = Some(sources.url(ARXIV).to_string());
        serve.sources.ncbi_email = Some("ops@papers.example.org".into());
    })
    .await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    assert_eq!(server.state.index.paper_count().expect("count"), 0);

    let answer = ada.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "breast cancer" })).await;

    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["papersFound"], 1, "{}", answer.body);
    let searches = sources.requests_to(ESEARCH);
    assert_eq!(searches.len(), 1, "{searches:?}");
    let today = Utc::now().date_naive();
    let ncbi = |day: chrono::NaiveDate| day.format("%Y/%m/%d").to_string();
    assert_eq!(searches[0].param("term"), Some("breast cancer"));
    assert_eq!(searches[0].param("mindate"), Some(ncbi(today - Duration::days(90)).as_str()));
    assert_eq!(searches[0].param("maxdate"), Some(ncbi(today).as_str()));
    assert_eq!(searches[0].param("email"), Some("ops@papers.example.org"));
    assert_eq!(sources.requests_to(EFETCH).len(), 1);
    assert!(sources.requests_to(ARXIV).is_empty(), "a free plan asks PubMed only");
    assert_eq!(server.state.index.paper_count().expect("count"), 1, "only the record of the window is indexed");
    let mail = server.wait_for_mail_to("ada@example.org", "Papertide: 1 new paper on \"breast cancer\"").await;
    assert!(mail.contains(TITLE), "{mail}");

    let health = ada.get("/healthz").await;
    let live = &health.body["actors"]["live-search-pubmed"];
    assert_eq!((live["processedTotal"].as_u64(), live["failedTotal"].as_u64()), (Some(1), Some(0)), "{}", health.body);
    let metrics = ada.get("/metrics").await;
    let text = metrics.body.as_str().expect("text");
    assert!(text.contains("papertide_actor_processed_total{actor=\"live-search-pubmed\"} 1"), "{text}");

    // The same term again today (deleted and added anew) runs from the index: PubMed is not
    // asked twice.
    let term_id = answer.body["termId"].as_str().expect("a term id");
    assert_eq!(ada.delete(&format!("/api/search-terms/{term_id}")).await.status, 200);
    let again = ada.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": "Breast cancer" })).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!((sources.requests_to(ESEARCH).len(), sources.requests_to(EFETCH).len()), (1, 1));
}
