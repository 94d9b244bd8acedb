//! Live search on the replay server: an immediate search for a term the index lacks asks PubMed
//! (and, on a paid plan, arXiv) for the term's recent papers, indexes them through the indexer
//! and sends them; the same words are not asked again the same day; sources that fail, refuse
//! the connection or hang still give a digest, promptly; weekly digests and terms the index
//! covers never ask.
//!
//! The answers are real recorded responses (`engine/fixtures`, with their provenance), recorded
//! for queries without our date range, so they also hold records older than the window: those
//! are not indexed. The clock of each test is set where the recorded papers are recent: PubMed's
//! records entered PubMed in 2008, arXiv's newest paper was submitted on 2026-06-25.

use std::time::{Duration, Instant};

use actix::Addr;
use actors::sources::{ArxivClient, ArxivConfig};
use actors::{DigestOutcome, Digester, Indexer, Ingest, LiveSearch, StatusBoard, UserActors};
use chrono::{DateTime, TimeZone, Utc};
use engine::account::Preferences;
use engine::digest::Digest;
use engine::mail::MailContext;
use engine::search_term::{SearchTerm, TermId};
use engine::Tier;
use index::{PaperIndex, PaperQuery};
use store::{NewAccount, Store, User};
use uuid::Uuid;

use crate::sources::{pubmed_client, quick_http, EFETCH, ESEARCH};
use testkit::free_port;
use testkit::replay::{ReplayServer, Reply};

const WRITER_HEAP: usize = 20 * 1024 * 1024;
const ARXIV: &str = "/api/query";
/// A recorded ESearch answer with its ids (6 PMIDs, for `science[journal] AND breast cancer AND
/// 2008[pdat]`), and the recorded EFetch of exactly those 6 records.
const ESEARCH_IDS: &str = "pubmed/esearch_xml_retmax5000_idlist.xml";
const EFETCH_6: &str = "pubmed/efetch_batch_6_articles.xml";
const RECORDED_PMIDS: &str = "19008416,18927361,18787170,18487186,18239126,18239125";
/// Of those, the records that entered PubMed within 90 days of 2008-12-01.
const PMIDS_IN_WINDOW: [&str; 3] = ["19008416", "18927361", "18787170"];
/// A recorded arXiv answer (`abs:"codon model"`, newest first): 4 papers, of which only
/// 2606.27607 was submitted within 90 days of 2026-08-11.
const CODON_FEED: &str = "arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml";

/// A Monday morning in December 2008 (a free plan's delivery day).
fn in_2008() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2008, 12, 1, 9, 30, 0).single().expect("a time")
}

/// The day arXiv's answer was recorded.
fn in_2026() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 8, 11, 9, 30, 0).single().expect("a time")
}

struct World {
    store: Store,
    index: PaperIndex,
    indexer: Addr<Indexer>,
    board: StatusBoard,
    users: UserActors,
}

/// A store, an empty in-RAM index with its indexer, and the users' actors whose live search asks
/// PubMed and arXiv at `server` (PubMed at `pubmed_url` when given), waiting at most `timeout`.
fn world(server: &ReplayServer, pubmed_url: Option<url::Url>, timeout: Duration) -> World {
    let store = Store::temporary().expect("store");
    let index = PaperIndex::create_in_ram().expect("index");
    let board = StatusBoard::default();
    let (indexer, _) = Indexer::new(index.clone(), WRITER_HEAP, board.clone()).start_in_own_thread();
    let pubmed = pubmed_client(server, |config| {
        if let Some(url) = pubmed_url {
            config.base_url = url;
        }
    });
    let arxiv_config = ArxivConfig { base_url: server.url(ARXIV), http: quick_http(Duration::ZERO), ..ArxivConfig::default() };
    let live = LiveSearch::new(index.clone(), indexer.clone(), board.clone())
        .with_pubmed(pubmed)
        .with_arxiv(ArxivClient::new(arxiv_config).expect("arXiv client"))
        .with_timeout(timeout);
    let mail = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
    let digester = Digester::new(store.clone(), index.clone(), mail.clone());
    let users = UserActors::with_live_search(store.clone(), digester, live, mail, 1);
    World { store, index, indexer, board, users }
}

impl World {
    /// A verified user on `tier` with the default preferences (every source), who signed up a
    /// month before `now`.
    fn user(&self, email: &str, tier: Tier, now: DateTime<Utc>) -> User {
        let mut user = User::new(engine::UserId(Uuid::new_v4()), email, "hash".into(), now - chrono::Duration::days(30));
        user.is_email_verified = true;
        user.subscription_tier = tier;
        self.store.accounts().create(NewAccount { user, preferences: Preferences::default(), verification: None, mail: None }, now).expect("account")
    }

    async fn immediate(&self, user: &User, term: &str, now: DateTime<Utc>) -> Digest {
        match self.users.digest(user.clone(), term.into(), engine::digest::DigestKind::Immediate, now).await.expect("a digest") {
            DigestOutcome::Sent(digest) => *digest,
            DigestOutcome::FreeDigestsUsed => panic!("the plan allowed no digest"),
        }
    }
}

fn keys_of(digest: &Digest) -> Vec<String> {
    digest.papers_data.iter().flat_map(|entry| entry.keys.clone()).collect()
}

fn serve_pubmed(server: &ReplayServer) {
    server.on(ESEARCH).reply(Reply::fixture(ESEARCH_IDS));
    server.on(EFETCH).reply(Reply::fixture(EFETCH_6));
}

#[actix_rt::test]
async fn a_term_the_index_lacks_is_searched_live_on_pubmed_and_its_papers_are_sent() {
    let server = ReplayServer::start().await;
    serve_pubmed(&server);
    let world = world(&server, None, Duration::from_secs(20));
    let ada = world.user("ada@example.org", Tier::Free, in_2008());

    let digest = world.immediate(&ada, "breast cancer", in_2008()).await;

    // One ESearch for the term over the last 90 days of Entrez dates, relevance first, with ids.
    let searches = server.requests_to(ESEARCH);
    assert_eq!(searches.len(), 1, "{searches:?}");
    for (name, value) in [
        ("term", "breast cancer"),
        ("datetype", "edat"),
        ("mindate", "2008/09/02"),
        ("maxdate", "2008/12/01"),
        ("retmax", "50"),
        ("sort", "relevance"),
        ("db", "pubmed"),
        ("tool", "papertide-tests"),
    ] {
        assert_eq!(searches[0].param(name), Some(value), "esearch {name}");
    }
    assert_eq!(searches[0].param("usehistory"), None);
    let fetches = server.requests_to(EFETCH);
    assert_eq!(fetches.len(), 1);
    assert_eq!(fetches[0].param("id"), Some(RECORDED_PMIDS), "the PMIDs ESearch named");
    assert!(server.requests_to(ARXIV).is_empty(), "a free plan searches PubMed only");

    // Indexed through the indexer: the window's three records, not the older ones.
    assert_eq!(world.index.paper_count().expect("count"), 3);
    assert_eq!(world.board.get("indexer").map(|status| status.processed_total), Some(3));
    let live = world.board.get(LiveSearch::board_name(engine::paper::Source::Pubmed)).expect("live search reported");
    assert_eq!((live.processed_total, live.failed_total), (1, 0));

    // The digest ranks them: the record on breast cancer is sent, nothing from outside the window.
    let sent = keys_of(&digest);
    assert!(sent.contains(&"pmid:18927361".to_owned()), "{:?}", digest.papers_data);
    assert!(
        sent.iter().filter(|key| key.starts_with("pmid:")).all(|key| PMIDS_IN_WINDOW.iter().any(|pmid| key == &format!("pmid:{pmid}"))),
        "{sent:?}"
    );
    assert_eq!(digest.widened.map(|widened| widened.days), Some(90), "the papers are weeks old");

    // The same words the same day (another spelling, another user): PubMed is not asked again.
    let bob = world.user("bob@example.org", Tier::Free, in_2008());
    let again = world.immediate(&bob, "Breast  CANCER", in_2008() + chrono::Duration::hours(3)).await;
    assert_eq!((server.requests_to(ESEARCH).len(), server.requests_to(EFETCH).len()), (1, 1), "asked once a day");
    assert_eq!(keys_of(&again), sent, "the indexed papers serve the next search");
}

#[actix_rt::test]
async fn a_paid_plan_also_asks_arxiv_and_a_failing_source_costs_only_its_own_papers() {
    let server = ReplayServer::start().await;
    server.on(ESEARCH).reply(Reply::text(500, "<html><body>Internal Server Error</body></html>"));
    server.on(ARXIV).reply(Reply::fixture(CODON_FEED));
    let world = world(&server, None, Duration::from_secs(20));
    let grace = world.user("grace@example.org", Tier::Pro, in_2026());

    let digest = world.immediate(&grace, "codon model", in_2026()).await;

    let queries = server.requests_to(ARXIV);
    assert_eq!(queries.len(), 1, "{queries:?}");
    for (name, value) in [
        ("search_query", "all:codon AND all:model AND submittedDate:[202605130000 TO 202608112359]"),
        ("sortBy", "submittedDate"),
        ("sortOrder", "descending"),
        ("start", "0"),
        ("max_results", "50"),
    ] {
        assert_eq!(queries[0].param(name), Some(value), "arXiv {name}");
    }
    assert_eq!(server.requests_to(ESEARCH).len(), 4, "PubMed's 500 was retried, then given up");
    assert!(server.requests_to(EFETCH).is_empty());

    assert_eq!(world.index.paper_count().expect("count"), 1, "only the paper of the window");
    assert!(keys_of(&digest).contains(&"arxiv:2606.27607".to_owned()), "{:?}", digest.papers_data);
    let pubmed = world.board.get(LiveSearch::board_name(engine::paper::Source::Pubmed)).expect("reported");
    assert_eq!((pubmed.processed_total, pubmed.failed_total), (0, 1));
    assert!(pubmed.last_error.as_deref().is_some_and(|error| error.contains("500")), "{pubmed:?}");
    let arxiv = world.board.get(LiveSearch::board_name(engine::paper::Source::Arxiv)).expect("reported");
    assert_eq!((arxiv.processed_total, arxiv.failed_total), (1, 0));
}

#[actix_rt::test]
async fn sources_that_refuse_or_hang_still_give_a_digest_promptly() {
    let server = ReplayServer::start().await;
    // PubMed at a port nobody listens on; arXiv answers, but only after a minute.
    server.on(ARXIV).reply(Reply::fixture(CODON_FEED).delayed(Duration::from_secs(60)));
    let refused = format!("http://127.0.0.1:{}/entrez/eutils/", free_port()).parse().expect("a URL");
    let world = world(&server, Some(refused), Duration::from_secs(1));
    let grace = world.user("grace@example.org", Tier::Pro, in_2026());

    let started = Instant::now();
    let digest = world.immediate(&grace, "codon model", in_2026()).await;

    assert!(started.elapsed() < Duration::from_secs(10), "the digest waited {:?}", started.elapsed());
    assert!(digest.papers_data.is_empty(), "nothing came back in time: {:?}", digest.papers_data);
    assert_eq!(server.requests_to(ARXIV).len(), 1, "arXiv was asked");
    for source in [engine::paper::Source::Pubmed, engine::paper::Source::Arxiv] {
        let status = world.board.get(LiveSearch::board_name(source)).expect("reported");
        assert_eq!((status.processed_total, status.failed_total), (0, 1), "{source}: {status:?}");
    }
    let stored = world.store.digests().of_user(grace.id).expect("digests");
    assert_eq!(stored.len(), 1, "the digest was stored and its mail queued");
}

#[actix_rt::test]
async fn weekly_digests_never_search_live() {
    let server = ReplayServer::start().await;
    serve_pubmed(&server);
    let world = world(&server, None, Duration::from_secs(20));
    let ada = world.user("ada@example.org", Tier::Free, in_2008());
    let term = SearchTerm::new(TermId(Uuid::new_v4()), ada.id, "breast cancer".into(), Tier::Free, in_2008() - chrono::Duration::days(20));
    world.store.terms().add(&term, Tier::Free, false).expect("term");

    let sent = actors::scheduler::serve_due_users(&world.store, &world.users, in_2008(), 8).await.expect("the weekly pass");

    assert_eq!(sent, 1, "Monday is the free plan's delivery day");
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    assert_eq!(world.index.paper_count().expect("count"), 0);
}

#[actix_rt::test]
async fn a_term_the_index_covers_is_not_searched_live() {
    let server = ReplayServer::start().await;
    serve_pubmed(&server);
    let world = world(&server, None, Duration::from_secs(20));
    // The recorded batch of 20 records on phthalates and the liver, as if they had entered
    // PubMed a week before.
    let mut papers = engine::parse::pubmed::parse_efetch(include_str!("../../../engine/fixtures/pubmed/efetch_batch_20_articles.xml")).items;
    for paper in &mut papers {
        paper.entered = Some(in_2008().date_naive() - chrono::Duration::days(7));
    }
    world.indexer.send(Ingest(papers)).await.expect("indexer alive").expect("indexed");
    let term = "phthalate liver";
    let covered =
        PaperQuery { text: term.into(), since: Some(in_2008().date_naive() - chrono::Duration::days(90)), limit: 100, ..PaperQuery::default() };
    assert!(world.index.rank(&covered).expect("search").len() >= engine::live_search::FEW_MATCHES, "the index covers the term");
    let ada = world.user("ada@example.org", Tier::Free, in_2008());

    let digest = world.immediate(&ada, term, in_2008()).await;

    assert!(server.requests().is_empty(), "{:?}", server.requests());
    assert!(!digest.papers_data.is_empty());
}
