//! Harvest → index on the replay server: day-by-day runs, the cursor and counts in sled,
//! re-runs that add nothing, a preprint and its journal record as one paper, and supervised
//! harvesters that keep going when another source fails or panics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::Addr;
use actors::sources::{BiorxivClient, BiorxivConfig, ProgressFn};
use actors::{harvest_days, HarvestSchedule, Harvester, Indexer, PaperSource, PreprintServer, RunProgress, StatusBoard};
use chrono::{NaiveDate, Utc};
use engine::dedup::DedupKey;
use engine::paper::Source;
use index::{PaperIndex, PaperQuery};
use store::Store;

use crate::sources::{day, esearch_reply, pubmed_client, quick_http, EFETCH, ESEARCH, RECORDED_WEB_ENV};
use testkit::replay::{ReplayServer, Reply};

const WRITER_HEAP: usize = 20 * 1024 * 1024;
const BIORXIV_PAGE: &str = "biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";
const MEDRXIV_PUBLISHED: &str = "medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json";
/// The journal DOI the medRxiv preprint above names as its published version.
const PUBLISHED_DOI: &str = "10.1038/s41467-021-21444-5";
const PUBMED_RECORD: &str = "pubmed/efetch_structured_abstract_21813367.xml";

fn indexer(index: &PaperIndex, board: &StatusBoard) -> Addr<Indexer> {
    Indexer::new(index.clone(), WRITER_HEAP, board.clone()).start_in_own_thread().0
}

fn preprints(server: &ReplayServer, which: Source) -> PreprintServer {
    let client = BiorxivClient::new(BiorxivConfig { base_url: server.url("/"), http: quick_http(Duration::ZERO) }).expect("client");
    PreprintServer { client, server: which }
}

/// bioRxiv's recorded page of 10 preprints (said to be all there is) for each of `days`.
fn serve_biorxiv_days(server: &ReplayServer, days: &[&str]) {
    for day in days {
        let page = Reply::fixture(BIORXIV_PAGE).replace("\"total\": \"873\"", "\"total\": \"10\"");
        server.on(&format!("/details/biorxiv/{day}/{day}/0/json")).reply(page);
    }
}

fn no_progress(_: RunProgress) {}

#[actix_rt::test]
async fn days_are_fetched_indexed_and_recorded_and_a_repeat_adds_nothing() {
    let server = ReplayServer::start().await;
    serve_biorxiv_days(&server, &["2026-08-01", "2026-08-02"]);
    let (store, index, board) = (Store::temporary().expect("store"), PaperIndex::create_in_ram().expect("index"), StatusBoard::default());
    let indexer = indexer(&index, &board);
    let source = preprints(&server, Source::Biorxiv);
    let today = day("2026-08-05");
    let progress = std::sync::Mutex::new(Vec::new());
    let record = |update: RunProgress| progress.lock().expect("progress").push(update);

    let first = harvest_days(&source, (day("2026-08-01"), day("2026-08-02")), today, &store, &indexer, &record).await.expect("first run");
    assert_eq!((first.days, first.received, first.counts.added), (2, 20, 10), "the same 10 preprints were served for both days");
    assert_eq!(first.counts.unchanged, 10);
    assert_eq!(index.paper_count().expect("count"), 10);
    let days_done: Vec<NaiveDate> = progress
        .lock()
        .expect("progress")
        .iter()
        .filter_map(|update| match update {
            RunProgress::DayDone { report, .. } => Some(report.day),
            RunProgress::Page { .. } => None,
        })
        .collect();
    assert_eq!(days_done, vec![day("2026-08-01"), day("2026-08-02")]);

    let state = store.papers().harvest_state(Source::Biorxiv).expect("state");
    assert_eq!(state.cursor, Some(day("2026-08-02")));
    assert_eq!((state.papers_added_total, state.records_total, state.consecutive_failures), (10, 20, 0));
    assert!(state.last_success_at.is_some());

    let again = harvest_days(&source, (day("2026-08-01"), day("2026-08-01")), today, &store, &indexer, &no_progress).await.expect("repeat");
    assert_eq!((again.counts.added, again.counts.merged, again.counts.unchanged), (0, 0, 10));
    assert_eq!(index.paper_count().expect("count"), 10);
}

#[actix_rt::test]
async fn a_preprint_and_its_journal_record_become_one_paper() {
    let server = ReplayServer::start().await;
    server.on("/details/medrxiv/2026-08-01/2026-08-01/0/json").reply(Reply::fixture(MEDRXIV_PUBLISHED));
    server.on(ESEARCH).reply(esearch_reply(1, RECORDED_WEB_ENV));
    server.on(EFETCH).reply(Reply::fixture(PUBMED_RECORD).replace("10.1289/ehp.1103729", PUBLISHED_DOI));
    let (store, index, board) = (Store::temporary().expect("store"), PaperIndex::create_in_ram().expect("index"), StatusBoard::default());
    let indexer = indexer(&index, &board);
    let window = (day("2026-08-01"), day("2026-08-01"));
    let today = day("2026-08-05");

    let medrxiv = harvest_days(&preprints(&server, Source::Medrxiv), window, today, &store, &indexer, &no_progress).await.expect("medrxiv");
    assert_eq!(medrxiv.counts.added, 1, "two versions of one preprint are one paper");
    let pubmed = harvest_days(&pubmed_client(&server, |_| {}), window, today, &store, &indexer, &no_progress).await.expect("pubmed");
    assert_eq!((pubmed.counts.added, pubmed.counts.merged), (0, 1));

    assert_eq!(index.paper_count().expect("count"), 1);
    let paper = index.find(&DedupKey::Doi(PUBLISHED_DOI.into())).expect("look-up").expect("the merged paper");
    assert_eq!(paper.sources, vec![Source::Pubmed, Source::Medrxiv]);
    assert_eq!(paper.ids.preprint_doi.as_deref(), Some("10.1101/2020.09.09.20191205"));
    assert_eq!(paper.ids.pmid.as_deref(), Some("21813367"));
    let hits = index.search(&PaperQuery { sources: vec![Source::Medrxiv], ..PaperQuery::new("", 10) }).expect("search");
    assert_eq!(hits.len(), 1);
}

/// A source that panics on every fetch.
struct Exploding;

impl PaperSource for Exploding {
    fn source(&self) -> Source {
        Source::Arxiv
    }

    fn fetch_day<'a>(&'a self, _: NaiveDate, _: Option<ProgressFn<'a>>) -> actors::harvester::FetchFuture<'a> {
        Box::pin(async { panic!("a parser bug") })
    }
}

async fn wait_for(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        actix_rt::time::sleep(Duration::from_millis(20)).await;
    }
}

#[actix_rt::test]
async fn supervised_harvesters_run_when_due_and_a_failing_or_panicking_source_spares_the_others() {
    let server = ReplayServer::start().await;
    let today = Utc::now().date_naive();
    let yesterday = today.pred_opt().expect("a day");
    serve_biorxiv_days(&server, &[&yesterday.to_string(), &today.to_string()]);
    server.on(ESEARCH).reply(Reply::text(500, "Internal Server Error"));
    let (store, index, board) = (Store::temporary().expect("store"), PaperIndex::create_in_ram().expect("index"), StatusBoard::default());
    let indexer = indexer(&index, &board);
    let schedule = HarvestSchedule { hour: 6, lookback_days: 2 };
    let start = |source: Arc<dyn PaperSource>| Harvester::new(source, store.clone(), indexer.clone(), board.clone(), schedule).start_supervised();
    let _biorxiv = start(Arc::new(preprints(&server, Source::Biorxiv)));
    let _pubmed = start(Arc::new(pubmed_client(&server, |_| {})));
    let _arxiv = start(Arc::new(Exploding));

    let failed = |source| store.papers().harvest_state(source).expect("state").consecutive_failures > 0;
    wait_for("bioRxiv is harvested", || store.papers().harvest_state(Source::Biorxiv).expect("state").last_success_at.is_some()).await;
    wait_for("PubMed fails", || failed(Source::Pubmed)).await;
    wait_for("arXiv panics", || failed(Source::Arxiv)).await;
    wait_for("the panic is counted", || board.get("harvester-arxiv").is_some_and(|status| status.restarts == 1)).await;

    assert_eq!(index.paper_count().expect("count"), 10);
    let biorxiv = board.get("harvester-biorxiv").expect("bioRxiv's status");
    assert_eq!((biorxiv.processed_total, biorxiv.failed_total, biorxiv.restarts, biorxiv.busy), (20, 0, 0, false));
    let biorxiv_state = store.papers().harvest_state(Source::Biorxiv).expect("state");
    assert_eq!((biorxiv_state.papers_this_week, biorxiv_state.cursor), (10, None), "yesterday and today stay open");
    assert!(biorxiv_state.next_run_at(Utc::now(), schedule.hour) > Utc::now() + chrono::Duration::minutes(1), "the next run waits for its slot");

    let pubmed = store.papers().harvest_state(Source::Pubmed).expect("state");
    assert!(pubmed.last_error.as_deref().is_some_and(|error| error.contains("500")), "{:?}", pubmed.last_error);
    assert!(pubmed.next_run_at(Utc::now(), schedule.hour) > Utc::now() + chrono::Duration::seconds(90), "a failure backs off");
    let arxiv = store.papers().harvest_state(Source::Arxiv).expect("state");
    assert!(arxiv.last_error.as_deref().is_some_and(|error| error.contains("abnormally")), "{:?}", arxiv.last_error);
    assert!(board.get("harvester-pubmed").is_some_and(|status| status.failed_total == 1 && status.restarts == 0));
}

#[actix_rt::test]
async fn an_indexer_refuses_batches_while_the_disk_is_under_its_reserve_and_writes_nothing() {
    let folder = tempfile::tempdir().expect("index folder");
    let index = PaperIndex::open_or_create(folder.path()).expect("index");
    let board = StatusBoard::default();
    let papers = engine::parse::pubmed::parse_efetch(include_str!("../../../engine/fixtures/pubmed/efetch_batch_6_articles.xml")).items;
    assert!(!papers.is_empty());

    let full = store::DiskRoom::new(folder.path(), u64::MAX);
    let (refusing, arbiter) = Indexer::new(index.clone(), WRITER_HEAP, board.clone()).with_disk_room(full).start_in_own_thread();
    let refused = refusing.send(actors::Ingest(papers.clone())).await.expect("indexer alive");
    assert!(matches!(refused, Err(actors::IndexerError::DiskFull(ref reason)) if reason.contains("kept in reserve")), "{refused:?}");
    assert_eq!(index.paper_count().expect("count"), 0);
    assert!(board.get("indexer").and_then(|status| status.last_error).is_some_and(|error| error.contains("not written")));
    arbiter.stop();
    arbiter.join().expect("the indexer's thread ends");

    let roomy = store::DiskRoom::new(folder.path(), 1);
    let (indexing, _arbiter) = Indexer::new(index.clone(), WRITER_HEAP, board.clone()).with_disk_room(roomy).start_in_own_thread();
    indexing.send(actors::Ingest(papers.clone())).await.expect("indexer alive").expect("indexed once there is room");
    assert_eq!(index.paper_count().expect("count") as usize, papers.len());
}
