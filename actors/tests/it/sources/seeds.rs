//! Seed lookups end to end: a real in-RAM index with its indexer, and every source on the
//! replay server (PubMed's and arXiv's answers recorded, bioRxiv's DOI lookup recorded,
//! Crossref's hand-built from its documentation). An id the index has is not asked for; what a
//! source brings is in the index before the answer; an unknown id is not found; a failing or
//! hanging source is a failure in words, and costs only its own ids.

use std::time::{Duration, Instant};

use actix::Addr;
use actors::sources::{ArxivClient, ArxivConfig, BiorxivClient, BiorxivConfig};
use actors::{Indexer, Ingest, SeedFound, SeedLookup, SeedOutcome, StatusBoard};
use engine::paper::{Paper, Source};
use engine::seed::SeedId;
use index::PaperIndex;

use super::crossref::{crossref_client, JOURNAL_ARTICLE, JOURNAL_ARTICLE_PATH, NOT_FOUND, PREPRINT};
use super::{pubmed_client, quick_http, EFETCH};
use testkit::replay::{ReplayServer, Reply};

const WRITER_HEAP: usize = 20 * 1024 * 1024;
const ARXIV: &str = "/api/query";
/// Recorded EFetch answers for one PMID each.
const EFETCH_IN_INDEX: &str = "pubmed/efetch_no_abstract_11618220.xml";
const EFETCH_21813367: &str = "pubmed/efetch_structured_abstract_21813367.xml";
const NO_POSTS: &str = r#"{"messages":[{"status":"no posts found"}],"collection":[]}"#;

struct World {
    index: PaperIndex,
    indexer: Addr<Indexer>,
    lookup: SeedLookup,
}

/// An empty in-RAM index with its indexer, and a lookup asking every source at `server`,
/// waiting at most `timeout`.
fn world(server: &ReplayServer, timeout: Duration) -> World {
    let index = PaperIndex::create_in_ram().expect("index");
    let (indexer, _) = Indexer::new(index.clone(), WRITER_HEAP, StatusBoard::default()).start_in_own_thread();
    let arxiv = ArxivClient::new(ArxivConfig { base_url: server.url(ARXIV), http: quick_http(Duration::ZERO), ..ArxivConfig::default() })
        .expect("arXiv client");
    let biorxiv = BiorxivClient::new(BiorxivConfig { base_url: server.url("/"), http: quick_http(Duration::ZERO) }).expect("bioRxiv client");
    let lookup = SeedLookup::new(index.clone(), indexer.clone())
        .with_pubmed(pubmed_client(server, |_| {}))
        .with_arxiv(arxiv)
        .with_biorxiv(biorxiv)
        .with_crossref(crossref_client(server, Some("ops@papers.example.org")))
        .with_timeout(timeout);
    World { index, indexer, lookup }
}

fn parsed(fixture: &str) -> Vec<Paper> {
    let path = format!("{}/../engine/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
    engine::parse::pubmed::parse_efetch(&std::fs::read_to_string(path).expect("fixture")).items
}

fn pmid(text: &str) -> SeedId {
    SeedId::Pmid(text.into())
}

/// The outcomes, as `(kind, the id's key when the paper carries it, or the message)`.
fn summary(found: &[SeedFound]) -> Vec<(&'static str, String)> {
    let carried = |paper: &Paper, id: &SeedId| {
        let keys = engine::dedup::dedup_keys(paper);
        if keys.contains(&id.key()) {
            id.key().to_string()
        } else {
            format!("another paper: {keys:?}")
        }
    };
    found
        .iter()
        .map(|found| match &found.outcome {
            SeedOutcome::InIndex(paper) => ("in index", carried(paper, &found.id)),
            SeedOutcome::Fetched(paper) => ("fetched", carried(paper, &found.id)),
            SeedOutcome::NotFound => ("not found", String::new()),
            SeedOutcome::Failed(why) => ("failed", why.clone()),
        })
        .collect()
}

#[actix_rt::test]
async fn the_index_answers_first_and_what_the_sources_bring_is_indexed_before_the_answer() {
    let server = ReplayServer::start().await;
    server.on(EFETCH).param("id", "21813367").reply(Reply::fixture(EFETCH_21813367));
    server.on(ARXIV).param("id_list", "0000.0000").reply(Reply::fixture("arxiv/api_idlist_nonexistent_0000.0000_zero_results.xml"));
    server.on(JOURNAL_ARTICLE_PATH).reply(Reply::fixture(JOURNAL_ARTICLE));
    let world = world(&server, Duration::from_secs(20));
    world.indexer.send(Ingest(parsed(EFETCH_IN_INDEX))).await.expect("indexer alive").expect("indexed");
    let ids = [pmid("11618220"), pmid("21813367"), SeedId::Arxiv("0000.0000".into()), SeedId::Doi("10.5555/psycho.2021.0042".into())];

    let found = world.lookup.resolve(&ids).await;

    assert_eq!(found.iter().map(|found| &found.id).collect::<Vec<_>>(), ids.iter().collect::<Vec<_>>(), "in the order asked");
    assert_eq!(
        summary(&found),
        [
            ("in index", "pmid:11618220".to_owned()),
            ("fetched", "pmid:21813367".to_owned()),
            ("not found", String::new()),
            ("fetched", "doi:10.5555/psycho.2021.0042".to_owned()),
        ]
    );
    let fetches = server.requests_to(EFETCH);
    assert_eq!(fetches.len(), 1, "{fetches:?}");
    assert_eq!(fetches[0].param("id"), Some("21813367"), "the PMID the index has is not asked for");
    assert_eq!(server.requests_to(ARXIV).len(), 1);
    assert_eq!(server.requests_to(JOURNAL_ARTICLE_PATH)[0].param("mailto"), Some("ops@papers.example.org"));

    // In the index now, the Crossref work too (with no source), and found there next time.
    assert_eq!(world.index.paper_count().expect("count"), 3);
    let fetched = world.index.find(&pmid("21813367").key()).expect("search").expect("indexed");
    assert_eq!(fetched.ids.pmid.as_deref(), Some("21813367"));
    let crossref = world.index.find(&SeedId::Doi("10.5555/psycho.2021.0042".into()).key()).expect("search").expect("indexed");
    assert!(crossref.sources.is_empty(), "{:?}", crossref.sources);
    let again = world.lookup.resolve(&[pmid("21813367"), pmid("21813367")]).await;
    assert_eq!(summary(&again), [("in index", "pmid:21813367".to_owned()), ("in index", "pmid:21813367".to_owned())]);
    assert_eq!(server.requests_to(EFETCH).len(), 1, "asked once");
}

#[actix_rt::test]
async fn a_failing_source_is_a_failure_in_words_and_costs_only_its_own_ids() {
    let server = ReplayServer::start().await;
    server.on(EFETCH).reply(Reply::text(500, "<html><body>Internal Server Error</body></html>"));
    server.on(ARXIV).param("id_list", "1605.08386").reply(Reply::fixture("arxiv/api_idlist_1605.08386_two_categories.xml"));
    // A medRxiv preprint: bioRxiv has no post under it, medRxiv has.
    server.on("/details/biorxiv/10.1101/2020.09.09.20191205/na/json").reply(Reply::text(200, NO_POSTS));
    server
        .on("/details/medrxiv/10.1101/2020.09.09.20191205/na/json")
        .reply(Reply::fixture("medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json"));
    // A 10.1101 DOI neither server has: Crossref is asked, and knows it as a bioRxiv preprint.
    server.on("/details/biorxiv/10.1101/2099.01.01.000001/na/json").reply(Reply::text(200, NO_POSTS));
    server.on("/details/medrxiv/10.1101/2099.01.01.000001/na/json").reply(Reply::text(200, NO_POSTS));
    server.on("/works/10.1101%2F2099.01.01.000001").reply(Reply::fixture(PREPRINT));
    server.on("/works/10.5555%2Fnowhere").reply(Reply::fixture(NOT_FOUND).with_status(404));
    let world = world(&server, Duration::from_secs(20));
    let ids = [
        pmid("21813367"),
        SeedId::Arxiv("1605.08386".into()),
        SeedId::Doi("10.1101/2020.09.09.20191205".into()),
        SeedId::Doi("10.1101/2099.01.01.000001".into()),
        SeedId::Doi("10.5555/nowhere".into()),
        SeedId::Pmid("12a".into()),
    ];

    let found = world.lookup.resolve(&ids).await;

    assert_eq!(
        summary(&found),
        [
            ("failed", "PubMed did not answer; try again later".to_owned()),
            ("fetched", "arxiv:1605.08386".to_owned()),
            ("fetched", "doi:10.1101/2020.09.09.20191205".to_owned()),
            ("fetched", "doi:10.1101/2099.01.01.000001".to_owned()),
            ("not found", String::new()),
            ("failed", "\"12a\" is not a PMID".to_owned()),
        ]
    );
    assert_eq!(server.requests_to(EFETCH).len(), 4, "PubMed's 500 was retried, then given up");
    let SeedOutcome::Fetched(preprint) = &found[2].outcome else { panic!("fetched") };
    assert_eq!((preprint.sources.as_slice(), preprint.ids.preprint_version), ([Source::Medrxiv].as_slice(), Some(2)));
    let SeedOutcome::Fetched(from_crossref) = &found[3].outcome else { panic!("fetched") };
    assert_eq!(from_crossref.sources, [Source::Biorxiv]);
    assert_eq!(world.index.paper_count().expect("count"), 3, "the three papers fetched, and nothing of the failure");
}

#[actix_rt::test]
async fn a_source_that_hangs_or_has_no_client_is_a_failure_and_the_answer_comes_promptly() {
    let server = ReplayServer::start().await;
    server.on(ARXIV).reply(Reply::fixture("arxiv/api_idlist_1605.08386_two_categories.xml").delayed(Duration::from_secs(60)));
    let index = PaperIndex::create_in_ram().expect("index");
    let (indexer, _) = Indexer::new(index.clone(), WRITER_HEAP, StatusBoard::default()).start_in_own_thread();
    let arxiv = ArxivClient::new(ArxivConfig { base_url: server.url(ARXIV), http: quick_http(Duration::ZERO), ..ArxivConfig::default() })
        .expect("arXiv client");
    let lookup = SeedLookup::new(index.clone(), indexer).with_arxiv(arxiv).with_timeout(Duration::from_secs(1));
    let ids = [SeedId::Arxiv("1605.08386".into()), pmid("21813367"), SeedId::Doi("10.5555/psycho.2021.0042".into())];

    fn assert_send<T: Send>(_: &T) {}
    assert_send(&lookup.resolve(&ids));
    let started = Instant::now();
    let found = lookup.resolve(&ids).await;

    assert!(started.elapsed() < Duration::from_secs(10), "the lookup waited {:?}", started.elapsed());
    assert_eq!(
        summary(&found),
        [
            ("failed", "arXiv did not answer in time; try again later".to_owned()),
            ("failed", "PubMed is not available on this installation".to_owned()),
            ("failed", "Crossref is not available on this installation".to_owned()),
        ]
    );
    assert_eq!(server.requests_to(ARXIV).len(), 1);
    assert_eq!(index.paper_count().expect("count"), 0);
}
