//! Harvest → index → query end to end: `papertide harvest` (the real binary) and the harvesters
//! of `papertide serve` against the replay server's recorded responses, with `/healthz` and
//! `/metrics` showing each source's state.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use serde_json::Value;

use crate::common::replay::{ReplayServer, Reply};
use crate::common::TestServer;

const ESEARCH: &str = "/entrez/eutils/esearch.fcgi";
const EFETCH: &str = "/entrez/eutils/efetch.fcgi";
const ARXIV: &str = "/api/query";
const BIORXIV_PAGE: &str = "biorxiv/details_interval_2026-08-01_2026-08-05_cursor0_trimmed_10_of_30.json";
const MEDRXIV_PUBLISHED: &str = "medrxiv/details_doi_2020.09.09.20191205_two_versions_published.json";
/// The journal DOI the medRxiv preprint above names as its published version.
const PUBLISHED_DOI: &str = "10.1038/s41467-021-21444-5";

/// The four sources for `days`: PubMed finds one record (the journal version of the medRxiv
/// preprint), arXiv 4 papers, bioRxiv 10 preprints and medRxiv the preprint, every day alike.
fn serve_every_source(server: &ReplayServer, days: &[NaiveDate]) {
    let esearch =
        Reply::fixture("pubmed/esearch_xml_usehistory_webenv_reldate60_edat_retmax100.xml").replace("<Count>42249</Count>", "<Count>1</Count>");
    server.on(ESEARCH).reply(esearch);
    let efetch = Reply::fixture("pubmed/efetch_structured_abstract_21813367.xml").replace("10.1289/ehp.1103729", PUBLISHED_DOI);
    server.on(EFETCH).reply(efetch);
    server.on(ARXIV).reply(Reply::fixture("arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml"));
    for day in days {
        let biorxiv = Reply::fixture(BIORXIV_PAGE).replace("\"total\": \"873\"", "\"total\": \"10\"");
        server.on(&format!("/details/biorxiv/{day}/{day}/0/json")).reply(biorxiv);
        server.on(&format!("/details/medrxiv/{day}/{day}/0/json")).reply(Reply::fixture(MEDRXIV_PUBLISHED));
    }
}

/// The source URLs of `server`, as environment variables.
fn source_env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![
        ("PAPERTIDE_PUBMED_URL", server.url("/entrez/eutils/").to_string()),
        ("PAPERTIDE_ARXIV_URL", server.url(ARXIV).to_string()),
        ("PAPERTIDE_BIORXIV_URL", server.url("/").to_string()),
        ("PAPERTIDE_NCBI_EMAIL", "ops@papers.example.org".into()),
    ]
}

/// Runs `papertide harvest ARGS` on a blocking thread (the replay server goes on answering).
async fn harvest(data_dir: &Path, server: &ReplayServer, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_papertide"));
    command.args(["--data-dir", &data_dir.display().to_string(), "harvest"]).args(args).envs(source_env(server));
    actix_web::rt::task::spawn_blocking(move || command.output().expect("papertide runs")).await.expect("the run finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn line_of<'a>(stdout: &'a str, source: &str) -> &'a str {
    stdout.lines().find(|line| line.starts_with(&format!("{source} "))).unwrap_or_else(|| panic!("no {source} line in {stdout}"))
}

#[actix_web::test]
async fn harvest_fills_the_index_once_and_links_a_preprint_to_its_journal_version() {
    let server = ReplayServer::start().await;
    let days = ["2026-08-01".parse().expect("a day"), "2026-08-02".parse().expect("a day")];
    serve_every_source(&server, &days);
    let data_dir = tempfile::tempdir().expect("data dir");
    let window = ["--since", "2026-08-01", "--until", "2026-08-02"];

    let first = harvest(data_dir.path(), &server, &window).await;
    let stdout = text(&first.stdout);
    assert!(first.status.success(), "{stdout}\n{}", text(&first.stderr));
    assert_eq!(line_of(&stdout, "biorxiv"), "biorxiv 2026-08-01..2026-08-02: 20 records, 10 added, 0 merged, 10 already present, 0 rejected");
    assert_eq!(line_of(&stdout, "arxiv"), "arxiv 2026-08-01..2026-08-02: 8 records, 4 added, 0 merged, 4 already present, 0 rejected");
    assert!(line_of(&stdout, "medrxiv").starts_with("medrxiv 2026-08-01..2026-08-02: 2 records"), "{stdout}");
    assert!(line_of(&stdout, "pubmed").starts_with("pubmed 2026-08-01..2026-08-02: 2 records"), "{stdout}");
    assert!(stdout.contains("15 papers in the index"), "one medRxiv preprint + its PubMed record, 10 bioRxiv, 4 arXiv: {stdout}");
    let progress = text(&first.stderr);
    assert!(progress.contains("biorxiv 2026-08-02 (day 2/2) done: 10 records"), "{progress}");

    let searches = server.requests_to(ESEARCH);
    assert_eq!(searches.len(), 2, "one search per day");
    assert_eq!((searches[0].param("mindate"), searches[0].param("maxdate")), (Some("2026/08/01"), Some("2026/08/01")));
    assert_eq!(searches[0].param("email"), Some("ops@papers.example.org"));

    let again = harvest(data_dir.path(), &server, &window).await;
    let stdout = text(&again.stdout);
    assert!(again.status.success(), "{stdout}");
    for source in ["pubmed", "arxiv", "biorxiv", "medrxiv"] {
        assert!(line_of(&stdout, source).contains(" 0 added, 0 merged"), "a repeat changed {source}: {stdout}");
    }
    assert!(stdout.contains("15 papers in the index"), "{stdout}");

    let found = crate::common::papertide(data_dir.path(), &["search", "perfluorooctanoic acid", "--source", "medrxiv"]);
    let found = text(&found.stdout);
    // The journal version's text replaced the preprint's; the paper is still found as medRxiv's.
    assert!(found.contains("pubmed,medrxiv") && found.contains(&format!("doi:{PUBLISHED_DOI}")), "{found}");
    assert!(found.contains("pmid:21813367") && found.ends_with("1 hit(s)\n"), "{found}");
}

#[actix_web::test]
async fn a_failing_source_fails_the_run_but_not_the_other_sources() {
    let server = ReplayServer::start().await;
    server.on(ARXIV).reply(Reply::fixture("arxiv/api_error_incorrect_id_format_http400.xml").with_status(400));
    let day: NaiveDate = "2026-08-01".parse().expect("a day");
    serve_every_source(&server, &[day]);
    let data_dir = tempfile::tempdir().expect("data dir");

    let run = harvest(data_dir.path(), &server, &["--since", "2026-08-01", "--until", "2026-08-01"]).await;
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert!(!run.status.success());
    assert!(line_of(&stdout, "arxiv").starts_with("arxiv 2026-08-01..2026-08-01: failed: 2026-08-01:"), "{stdout}");
    assert!(line_of(&stdout, "biorxiv").contains("10 added"), "{stdout}");
    assert!(stdout.contains("11 papers in the index"), "{stdout}");
    assert!(stderr.contains("the harvest failed for arxiv"), "{stderr}");

    let only = harvest(data_dir.path(), &server, &["--source", "biorxiv", "--since", "2026-08-01", "--until", "2026-08-01"]).await;
    assert!(only.status.success());
    assert_eq!(text(&only.stdout).lines().filter(|line| line.contains("..")).count(), 1, "only bioRxiv ran");
}

#[actix_web::test]
async fn bad_harvest_arguments_are_refused_before_any_request() {
    let server = ReplayServer::start().await;
    let data_dir = tempfile::tempdir().expect("data dir");
    let tomorrow = (Utc::now().date_naive() + chrono::Duration::days(1)).to_string();
    for (args, expected) in [
        (vec!["--until", tomorrow.as_str()], "is in the future"),
        (vec!["--since", "2026-08-02", "--until", "2026-08-01"], "comes after --until"),
        (vec!["--source", "scopus"], "unknown source \"scopus\""),
        (vec!["--since", "yesterday"], "invalid value"),
    ] {
        let run = harvest(data_dir.path(), &server, &args).await;
        assert!(!run.status.success(), "{args:?} was accepted");
        assert!(text(&run.stderr).contains(expected), "{args:?}: {}", text(&run.stderr));
    }
    assert!(server.requests().is_empty(), "a refused run reached a source");
}

#[actix_web::test]
async fn harvest_refuses_to_run_beside_the_service() {
    let server = ReplayServer::start().await;
    let service = TestServer::start().await;
    let run = harvest(service.data_dir.path(), &server, &["--source", "biorxiv"]).await;
    assert!(!run.status.success());
    assert!(text(&run.stderr).contains("is papertide serve running?"), "{}", text(&run.stderr));
    assert!(server.requests().is_empty());
}

async fn wait_for_health(service: &TestServer, what: &str, condition: impl Fn(&Value) -> bool) -> Value {
    let client = service.client();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let health = client.get("/healthz").await.body;
        if condition(&health) {
            return health;
        }
        assert!(Instant::now() < deadline, "timed out waiting until {what}: {health}");
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn the_service_harvests_on_its_own_and_reports_each_source() {
    let server = ReplayServer::start().await;
    let today = Utc::now().date_naive();
    server.on(ESEARCH).reply(Reply::text(400, "{\"error\":\"API key invalid\"}"));
    serve_every_source(&server, &[today - chrono::Duration::days(1), today]);
    let service = TestServer::start_with(|serve| {
        serve.sources.pubmed_url = Some(server.url("/entrez/eutils/").to_string());
        serve.sources.biorxiv_url = Some(server.url("/").to_string());
        serve.harvest_sources = Some(vec!["biorxiv".into(), "medrxiv".into(), "pubmed".into()]);
        serve.harvest_lookback_days = Some(2);
    })
    .await;

    let health = wait_for_health(&service, "bioRxiv and medRxiv are harvested and PubMed has failed", |health| {
        let sources = &health["sources"];
        sources["biorxiv"]["lastSuccessAt"].is_string()
            && sources["medrxiv"]["lastSuccessAt"].is_string()
            && sources["pubmed"]["lastErrorAt"].is_string()
    })
    .await;
    let biorxiv = &health["sources"]["biorxiv"];
    assert_eq!((biorxiv["enabled"].as_bool(), biorxiv["healthy"].as_bool()), (Some(true), Some(true)), "{biorxiv}");
    assert_eq!(biorxiv["papersThisWeek"], 10, "{biorxiv}");
    assert_eq!(biorxiv["recordsTotal"], 20, "{biorxiv}");
    assert!(biorxiv["nextRunAt"].is_string());
    let pubmed = &health["sources"]["pubmed"];
    assert_eq!((pubmed["healthy"].as_bool(), pubmed["consecutiveFailures"].as_u64()), (Some(false), Some(1)), "{pubmed}");
    assert_eq!(health["sources"]["arxiv"]["enabled"], false);
    assert_eq!(pubmed.get("lastError"), None, "what the source said is for operators: {pubmed}");
    let for_operator = service.operator().await.get("/healthz").await.body;
    let error = for_operator["sources"]["pubmed"]["lastError"].as_str().unwrap_or_default();
    assert!(error.contains("400"), "an operator reads the error: {for_operator}");
    assert_eq!(health["index"]["papers"], 11, "{health}");
    assert!(health["actors"]["indexer"]["processedTotal"].as_u64().is_some_and(|papers| papers >= 22), "{health}");
    assert!(server.requests_to(ARXIV).is_empty(), "arXiv is not configured");

    let metrics = service.client().get("/metrics").await;
    let metrics = metrics.body.as_str().expect("text");
    for line in [
        "papertide_index_papers 11",
        "papertide_source_up{source=\"biorxiv\"} 1",
        "papertide_source_up{source=\"pubmed\"} 0",
        "papertide_source_papers_this_week{source=\"biorxiv\"} 10",
        "papertide_source_failures_total{source=\"pubmed\"} 1",
        "papertide_source_restarts_total{source=\"pubmed\"} 0",
    ] {
        assert!(metrics.contains(&format!("{line}\n")), "{line} missing from\n{metrics}");
    }
}
