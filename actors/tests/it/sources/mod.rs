//! The source clients against the replay server: real recorded bodies (Crossref's hand-built
//! from its documentation), scripted faults, and the requests checked as the server received
//! them; and seed lookups through them into a real index. Pacing intervals, timeouts and
//! backoffs are shrunk so that the whole module runs in a few seconds.

mod arxiv;
mod biorxiv;
mod crossref;
mod faults;
mod isolation;
mod pubmed;
mod seeds;

use std::sync::Mutex;
use std::time::Duration;

use actors::sources::{ArxivClient, ArxivConfig, BiorxivClient, BiorxivConfig, HttpConfig, Progress, PubmedClient, PubmedConfig};
use chrono::NaiveDate;
use engine::paper::Source;

use testkit::replay::{ReplayServer, Reply};

pub const ESEARCH: &str = "/entrez/eutils/esearch.fcgi";
pub const EFETCH: &str = "/entrez/eutils/efetch.fcgi";

/// The recorded history-server search (Count 42249) and its WebEnv.
const ESEARCH_FIXTURE: &str = "pubmed/esearch_xml_usehistory_webenv_reldate60_edat_retmax100.xml";
pub const RECORDED_WEB_ENV: &str = "MCID_6927d6e7fee3e90f880ec190";

/// Fast knobs for tests: 2 s timeout, 3 retries backing off 10–50 ms, the given pace.
pub fn quick_http(min_interval: Duration) -> HttpConfig {
    HttpConfig {
        timeout: Duration::from_secs(2),
        max_retries: 3,
        backoff_base: Duration::from_millis(10),
        backoff_cap: Duration::from_millis(50),
        max_retry_after: Duration::from_secs(5),
        ..HttpConfig::paced(min_interval)
    }
}

/// A PubMed client aimed at the replay server, with test knobs, adjusted by `adjust`.
pub fn pubmed_client(server: &ReplayServer, adjust: impl FnOnce(&mut PubmedConfig)) -> PubmedClient {
    let mut config = PubmedConfig::new("papertide-tests", "ops@papers.example.org", Some("test-key".into()));
    config.base_url = server.url("/entrez/eutils/");
    config.http = quick_http(Duration::ZERO);
    adjust(&mut config);
    PubmedClient::new(config).expect("a valid config")
}

/// The recorded ESearch answer, saying `count` records and naming `web_env`.
pub fn esearch_reply(count: u64, web_env: &str) -> Reply {
    Reply::fixture(ESEARCH_FIXTURE).replace("<Count>42249</Count>", &format!("<Count>{count}</Count>")).replace(RECORDED_WEB_ENV, web_env)
}

pub fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

/// Collects the progress reports of a fetch.
#[derive(Default)]
pub struct ProgressLog(Mutex<Vec<Progress>>);

impl ProgressLog {
    pub fn record(&self, progress: Progress) {
        self.0.lock().expect("progress log").push(progress);
    }

    pub fn last(&self) -> Option<Progress> {
        self.0.lock().expect("progress log").last().copied()
    }
}

/// The fetch futures are `Send`, so a harvester may run them on any runtime thread.
#[test]
fn fetches_can_run_on_any_thread() {
    fn assert_send<T: Send>(_: &T) {}
    let pubmed = PubmedClient::new(PubmedConfig::new("papertide-tests", "ops@papers.example.org", None)).expect("client");
    let arxiv = ArxivClient::new(ArxivConfig::default()).expect("client");
    let biorxiv = BiorxivClient::new(BiorxivConfig::default()).expect("client");
    let log = ProgressLog::default();
    let progress = |update| log.record(update);
    assert_send(&pubmed.fetch_window("all", day("2024-01-01"), day("2024-01-07"), Some(&progress)));
    assert_send(&pubmed.fetch_ids(&[], None));
    assert_send(&arxiv.fetch_window(day("2024-01-01"), day("2024-01-07"), &[], Some(&progress)));
    assert_send(&biorxiv.fetch_window(Source::Medrxiv, day("2024-01-01"), day("2024-01-07"), None));
    assert_send(&arxiv.fetch_ids(&[]));
    assert_send(&biorxiv.fetch_doi(Source::Medrxiv, "10.1101/2020.09.09.20191205"));
    let crossref = actors::sources::CrossrefClient::new(actors::sources::CrossrefConfig::new(
        actors::sources::crossref::DEFAULT_BASE_URL.parse().expect("the default URL"),
        None,
    ))
    .expect("client");
    assert_send(&crossref.work("10.5555/x"));
}
