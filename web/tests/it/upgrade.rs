//! Upgrades, with the real binary: data directories written by earlier schemas (checked in under
//! `store/tests/data/`, whose README says which commit and commands made them) open with this
//! binary — the database migrates at start, and its accounts, terms, digests, queued mail, sent
//! papers and the paper index are all there — and a data directory of a newer schema is refused
//! at start with a message that says what to do.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tempfile::TempDir;
use testkit::server::{self, Binary, Log};

use crate::common::{free_port, Client, PASSWORD};

/// Each archive and the schema its database was written with, oldest first.
const ARCHIVES: [(&str, u32); 2] = [("schema-1.tar.gz", 1), ("schema-2.tar.gz", 2)];
/// The weekly pass the archives' maker ran: ada's week (Mondays) is served.
const ADAS_WEEK: &str = "2026-12-07T09:00:00Z";
/// An hour later: nothing is due again.
const ADAS_WEEK_AGAIN: &str = "2026-12-07T10:00:00Z";
/// cy's first weekly slot (Tuesdays): papers of 2026-11-24..12-01, ten of them mailed to her in
/// her immediate digest.
const CYS_FIRST_WEEK: &str = "2026-12-01T09:00:00Z";

/// `papertide serve`, killed if the test fails before it is stopped.
struct Serving(std::process::Child);

impl Drop for Serving {
    fn drop(&mut self) {
        // Already stopped (the test passed) or killed now; either way reaped.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An archive unpacked into a temporary folder, and its data directory in it.
struct Unpacked {
    _folder: TempDir,
    data_dir: PathBuf,
}

fn unpack(archive: &str) -> Unpacked {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/tests/data").join(archive);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let status = Command::new("tar").arg("-xzf").arg(&path).arg("-C").arg(folder.path()).status().expect("tar runs");
    assert!(status.success(), "unpacking {}: {status}", path.display());
    let data_dir = folder.path().join("data");
    Unpacked { _folder: folder, data_dir }
}

/// The binary on `data_dir` as an operator runs it (no model, no sources), its log in `log`.
fn binary_on(data_dir: &Path, log: &Path) -> Binary {
    let port = free_port();
    Binary::isolated(env!("CARGO_BIN_EXE_papertide"), data_dir, port).env("PAPERTIDE_LOG", "info").log(Log::File(log.to_owned()))
}

/// Runs a one-shot command to its end and answers its stdout (and fails on a failed command).
fn run(binary: &Binary, args: &[&str]) -> String {
    let output = binary.command(args).expect("the command").stdout(Stdio::piped()).output().expect("papertide runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "papertide {}: {}\n{stdout}", args.join(" "), output.status);
    stdout
}

/// Signs `email` in and answers its user id.
async fn sign_in(client: &Client, email: &str) -> String {
    let answer = client.post("/api/auth/login", json!({ "email": email, "password": PASSWORD })).await;
    assert_eq!(answer.status, 200, "{email} signs in with their password: {}", answer.body);
    answer.body["user"]["id"].as_str().expect("a user id").to_owned()
}

fn items(answer: &Value) -> &Vec<Value> {
    answer.as_array().or_else(|| answer["searchTerms"].as_array()).unwrap_or_else(|| panic!("a list: {answer}"))
}

/// `(kind, term, papers)` of each digest listed.
fn digest_summaries(digests: &Value) -> Vec<(String, String, usize)> {
    items(digests)
        .iter()
        .map(|digest| {
            let kind = digest["digestType"].as_str().expect("a kind").to_owned();
            let term = digest["searchTerm"].as_str().expect("a term").to_owned();
            (kind, term, digest["papersData"].as_array().map_or(0, Vec::len))
        })
        .collect()
}

#[actix_web::test]
async fn older_data_directories_serve_their_accounts_terms_digests_and_papers() {
    for (archive, schema) in ARCHIVES {
        let unpacked = unpack(archive);
        let log = unpacked.data_dir.with_file_name("serve.log");
        let binary = binary_on(&unpacked.data_dir, &log);
        let mut serve = Serving(binary.spawn_serve(&[]).expect("papertide starts"));
        let started = server::wait_until_healthy(&mut serve.0, &binary.base_url(), Duration::from_secs(60)).await;
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        started.unwrap_or_else(|error| panic!("{archive}: {error}\n{logged}"));
        assert_eq!(
            logged.contains("migrating database"),
            schema < store::SCHEMA_VERSION,
            "{archive}: the migration is logged when one runs:\n{logged}"
        );

        let client = Client::new(&binary.base_url());
        let health = client.get("/healthz").await;
        assert_eq!(health.body["schemaVersion"], json!(store::SCHEMA_VERSION), "{archive}: {}", health.body);
        assert_eq!(health.body["index"]["papers"], 36, "{archive}: every paper is in the index: {}", health.body);

        let wrong = client.post("/api/auth/login", json!({ "email": "ada@example.org", "password": "Not-her-password-1" })).await;
        assert_eq!(wrong.status, 401, "{archive}: a wrong password is still wrong");
        let ada = sign_in(&client, "ada@example.org").await;
        let terms = client.get(&format!("/api/users/{ada}/search-terms")).await;
        assert_eq!(terms.status, 200, "{}", terms.body);
        let mut term_texts: Vec<&str> = items(&terms.body).iter().filter_map(|term| term["term"].as_str()).collect();
        term_texts.sort_unstable();
        assert_eq!(term_texts, ["peroxisome proliferation", "phthalate"], "{archive}");
        let digests = client.get(&format!("/api/users/{ada}/digests")).await;
        assert_eq!(digests.status, 200, "{}", digests.body);
        let listed = digest_summaries(&digests.body);
        // The service's own weekly pass may add a digest of the day it runs on; the archive's are
        // all there, with their papers.
        let has = |kind: &str, term: &str, papers: Option<usize>| {
            listed.iter().any(|(k, t, n)| k == kind && t == term && papers.is_none_or(|papers| *n == papers))
        };
        assert!(
            has("immediate", "phthalate", Some(10)) && has("immediate", "peroxisome proliferation", Some(2)),
            "{archive}: ada's first digests: {listed:?}"
        );
        // (How many papers each weekly digest has differs between the binaries that wrote them.)
        assert!(has("weekly", "phthalate", None) && has("weekly", "peroxisome proliferation", None), "{archive}: ada's weekly digests: {listed:?}");
        let weekly_at: Vec<&str> = items(&digests.body)
            .iter()
            .filter(|digest| digest["digestType"] == "weekly")
            .filter_map(|digest| digest["sentAt"].as_str())
            .filter(|sent| sent.starts_with("2026-12-07T09:00:00"))
            .collect();
        assert_eq!(weekly_at.len(), 2, "{archive}: the weekly pass of {ADAS_WEEK}: {listed:?}");
        // The archive's digests were stored by their term's text alone; the upgrade gives each the
        // id of the term it was made for, so a paper of the first digest is rated for that term.
        let phthalate = items(&terms.body).iter().find(|term| term["term"] == "phthalate").expect("the term");
        let first = items(&digests.body)
            .iter()
            .find(|digest| digest["digestType"] == "immediate" && digest["searchTerm"] == "phthalate")
            .expect("the first digest");
        assert_eq!(first["termId"], phthalate["id"], "{archive}: the digest names its term");
        let paper_key = first["papersData"][0]["paperKey"].as_str().expect("a paper key");
        let rated = client
            .send(
                "PUT",
                &format!("/api/search-terms/{}/ratings", phthalate["id"].as_str().expect("an id")),
                Some(&json!({ "digestId": first["id"], "paperKey": paper_key, "verdict": "relevant" })),
            )
            .await;
        assert_eq!(rated.status, 200, "{archive}: an archived digest's paper is rated for its term: {}", rated.body);

        let cys_client = Client::new(&binary.base_url());
        let cy = sign_in(&cys_client, "cy@example.org").await;
        let preferences = cys_client.get(&format!("/api/users/{cy}/preferences")).await;
        assert_eq!(preferences.body["deliveryDay"], "tuesday", "{archive}: {}", preferences.body);
        let cys_digests = digest_summaries(&cys_client.get(&format!("/api/users/{cy}/digests")).await.body);
        assert!(
            cys_digests.iter().any(|(kind, term, papers)| kind == "immediate" && term == "phthalate" && *papers == 10),
            "{archive}: {cys_digests:?}"
        );

        // The two weekly mails the archive left queued go out (to the outbox, beside the six
        // mailed before).
        let outbox = unpacked.data_dir.join("outbox");
        let mailed = testkit::wait::until(Duration::from_secs(10), Duration::from_millis(20), || {
            let count = std::fs::read_dir(&outbox)
                .ok()?
                .filter_map(Result::ok)
                .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "eml"))
                .count();
            (count >= 8).then_some(count)
        });
        assert!(mailed.await.is_some(), "{archive}: the queued mail was not sent");

        let stopped = server::terminate(&mut serve.0).expect("stopped");
        assert!(stopped.success(), "{archive}: {stopped}");
        let found = run(&binary, &["search", "phthalate", "--limit", "50"]);
        assert!(found.contains("Species differences in di-(2-ethylhexyl) phthalate-induced hepatic peroxisome"), "{archive}: {found}");
        assert!(found.trim_end().lines().last().is_some_and(|line| line.starts_with(|c: char| c.is_ascii_digit()) && line != "0 hit(s)"), "{found}");
    }
}

#[test]
fn the_weekly_pass_on_older_data_directories_serves_each_week_once_and_no_paper_twice() {
    for (archive, _) in ARCHIVES {
        let unpacked = unpack(archive);
        let binary = binary_on(&unpacked.data_dir, &unpacked.data_dir.with_file_name("weekly.log"));

        let again = run(&binary, &["weekly", "--at", ADAS_WEEK_AGAIN]);
        assert!(again.contains(": 0 digest(s) built"), "{archive}: ada's week was served before the upgrade: {again}");
        let cys_week = run(&binary, &["weekly", "--at", CYS_FIRST_WEEK]);
        assert!(cys_week.contains(": 1 digest(s) built"), "{archive}: cy's first week: {cys_week}");

        let store = store::Store::open(&unpacked.data_dir.join("db")).expect("the database opens");
        assert_eq!(store.schema_version().expect("readable"), store::SCHEMA_VERSION);
        let cy = store.accounts().user_by_email("cy@example.org").expect("readable").expect("cy");
        let digests = store.digests().of_user(cy.id).expect("readable");
        let first_key =
            |digest: &engine::digest::Digest| -> Vec<String> { digest.papers_data.iter().filter_map(|paper| paper.keys.first().cloned()).collect() };
        let (weekly, earlier): (Vec<_>, Vec<_>) = digests.iter().partition(|digest| digest.digest_type == engine::digest::DigestKind::Weekly);
        assert_eq!((weekly.len(), earlier.len()), (1, 1), "{archive}: {digests:?}");
        let sent_before: Vec<String> = first_key(earlier[0]);
        let sent_now = first_key(weekly[0]);
        // The ten papers of her immediate digest entered on 2026-11-24..27, in this week's window:
        // only the sent records the upgrade kept leave them out.
        assert_eq!(sent_before.len(), 10, "{archive}");
        assert!(!sent_now.is_empty(), "{archive}: the week had papers not sent yet: {:?}", weekly[0]);
        assert!(sent_now.iter().all(|key| !sent_before.contains(key)), "{archive}: a paper went twice: {sent_now:?} after {sent_before:?}");
    }
}

#[test]
fn a_data_directory_of_a_newer_schema_is_refused_at_start_and_left_as_it_was() {
    let (archive, _) = ARCHIVES[ARCHIVES.len() - 1];
    let unpacked = unpack(archive);
    let newer = store::SCHEMA_VERSION + 1;
    store::Store::open(&unpacked.data_dir.join("db")).expect("the database opens").stamp_schema_version(newer).expect("stamped");
    let log = unpacked.data_dir.with_file_name("serve.log");
    let binary = binary_on(&unpacked.data_dir, &log);

    let mut serve = binary.command(&["serve", "--bind", "127.0.0.1:0"]).expect("the command");
    let output = serve.stderr(Stdio::piped()).output().expect("papertide runs");
    assert!(!output.status.success(), "it must not start");
    let error = String::from_utf8_lossy(&output.stderr);
    let expected = format!("the database has schema version {newer}, newer than this binary's {}; use a newer papertide", store::SCHEMA_VERSION);
    assert!(error.contains(&expected), "{error}");

    let refused = run_failing(&binary, &["users", "list"]);
    assert!(refused.contains(&expected), "the one-shot commands refuse it too: {refused}");
    match store::Store::open(&unpacked.data_dir.join("db")) {
        Err(store::StoreError::SchemaTooNew { found, .. }) => assert_eq!(found, newer, "the refused database keeps its schema"),
        other => panic!("the database must still be of schema {newer}: {:?}", other.map(|_| "opened")),
    }
}

/// Runs a command that must fail and answers its stderr.
fn run_failing(binary: &Binary, args: &[&str]) -> String {
    let output = binary.command(args).expect("the command").stderr(Stdio::piped()).output().expect("papertide runs");
    assert!(!output.status.success(), "papertide {} must fail", args.join(" "));
    String::from_utf8_lossy(&output.stderr).into_owned()
}
