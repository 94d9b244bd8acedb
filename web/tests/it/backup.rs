//! Backups of the running binary under a write load, SIGKILL, and restore: every write answered
//! before the backup was asked for is in the restored service, and the restored index holds
//! every paper its database refers to. And `papertide restore`'s refusals.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use testkit::server::Binary;
use testkit::wait;

use crate::common::{decode_quoted_printable, free_port, link_in, signup_body, token_of, Client, PASSWORD};

const OPERATOR: &str = "op@example.org";
const GENEROUS: &str = "100000/1h";
const PUBMED_BATCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/fixtures/pubmed/efetch_batch_20_articles.xml");

fn binary(data_dir: &Path, port: u16) -> Binary {
    let mut binary = Binary::new(env!("CARGO_BIN_EXE_papertide"), data_dir, port)
        .env("PAPERTIDE_LOG", "warn")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .env("PAPERTIDE_ADMIN_EMAILS", OPERATOR)
        .env("PAPERTIDE_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
        .unset("PAPERTIDE_BACKUP_DIR")
        .unset("PAPERTIDE_SMTP_URL");
    for limit in ["LOGIN", "LOGIN_ACCOUNT", "SIGNUP", "RESEND", "IMMEDIATE_SEARCH", "RECIPIENT", "SIGNUP_GLOBAL", "LINK_GUESSES"] {
        binary = binary.env(&format!("PAPERTIDE_RATE_LIMIT_{limit}"), GENEROUS);
    }
    binary
}

/// A data directory with the recorded PubMed batch imported (20 papers on phthalates and the
/// liver, entered in PubMed today, so that digests find them) and an empty database.
fn data_dir_with_papers(data_dir: &Path) {
    std::fs::create_dir_all(data_dir).expect("data directory");
    let today = chrono::Utc::now().date_naive();
    let mut xml = std::fs::read_to_string(PUBMED_BATCH).expect("the recorded batch");
    for status in ["entrez", "pubmed"] {
        xml = entered_on(&xml, status, today);
    }
    let batch = data_dir.join("batch.xml");
    std::fs::write(&batch, xml).expect("the batch written");
    let (imported, out, err) = run(data_dir, &["import", &batch.display().to_string()]);
    assert!(imported, "import: {out} {err}");
    drop(store::Store::open(&data_dir.join("db")).expect("a new database"));
}

/// `xml` with every `<PubMedPubDate PubStatus="STATUS">` set to `day`.
fn entered_on(xml: &str, status: &str, day: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    let marker = format!("<PubMedPubDate PubStatus=\"{status}\">");
    let mut parts = xml.split(&marker);
    let mut out = parts.next().unwrap_or_default().to_owned();
    for part in parts {
        let end = part.find("</Day>").expect("a day") + "</Day>".len();
        out.push_str(&marker);
        out.push_str(&format!("<Year>{}</Year><Month>{}</Month><Day>{}</Day>", day.year(), day.month(), day.day()));
        out.push_str(&part[end..]);
    }
    out
}

/// Runs `papertide ARGS` on `data_dir` to its end; answers its exit, stdout and stderr.
fn run(data_dir: &Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_papertide"))
        .args(["--data-dir", &data_dir.display().to_string()])
        .args(args)
        .env("PAPERTIDE_LOG", "warn")
        .output()
        .expect("papertide runs");
    (output.status.success(), String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// A server killed when dropped, so that a failing test leaves none behind.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = testkit::server::kill(&mut self.0);
    }
}

async fn serve(data_dir: &Path) -> (Running, Client) {
    serve_with_backups(data_dir, None).await
}

/// [`serve`], with `PAPERTIDE_BACKUP_DIR` set to `backup_dir` when given.
async fn serve_with_backups(data_dir: &Path, backup_dir: Option<&Path>) -> (Running, Client) {
    let port = free_port();
    let mut binary = binary(data_dir, port);
    if let Some(dir) = backup_dir {
        binary = binary.env("PAPERTIDE_BACKUP_DIR", dir.display().to_string());
    }
    let child = Running(binary.spawn_serve(&[]).expect("the papertide binary starts"));
    let client = Client::new(&format!("http://127.0.0.1:{port}"));
    let http = reqwest::Client::new();
    let healthy = wait::until_async(Duration::from_secs(30), Duration::from_millis(50), || async {
        testkit::server::is_healthy(&http, client.base()).await.then_some(())
    });
    assert!(healthy.await.is_some(), "the server did not become healthy");
    (child, client)
}

/// The newest outbox mail to `to` with a verification link: the link.
async fn verification_link(data_dir: &Path, to: &str) -> String {
    let to_line = format!("To: {to}\r\n");
    let found = wait::until(Duration::from_secs(20), Duration::from_millis(50), || {
        let entries = std::fs::read_dir(data_dir.join("outbox")).ok()?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect();
        paths.sort();
        paths
            .iter()
            .rev()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .map(|raw| decode_quoted_printable(&raw))
            .find(|mail| mail.contains(&to_line) && mail.contains("/verify-email?token="))
    });
    let mail = found.await.unwrap_or_else(|| panic!("no verification mail to {to}"));
    link_in(&mail, "/verify-email?token=")
}

/// A verified account signed in on `client`; answers its id.
async fn verified(data_dir: &Path, client: &Client, email: &str) -> String {
    assert_eq!(client.post("/api/signup", signup_body(email, PASSWORD)).await.status, 201);
    let link = verification_link(data_dir, email).await;
    let answer = client.get(&format!("/api/verify-email?token={}", token_of(&link))).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let me = client.get("/api/auth/me").await;
    me.body["user"]["id"].as_str().expect("an id").to_owned()
}

/// The writes the load had answered with a 2xx.
#[derive(Debug, Default, Clone)]
struct Acknowledged {
    /// Accounts signed up (not verified).
    signups: Vec<String>,
    /// (user id, term) added by an immediate search.
    terms: Vec<(String, String)>,
    /// Users whose weekly digest was turned off.
    weekly_off: Vec<String>,
    /// The refusals the users' writes met (a plan's limits), to explain a load that stalls.
    refused: Vec<String>,
}

#[derive(Clone)]
struct Load {
    acknowledged: Arc<Mutex<Acknowledged>>,
    stop: Arc<AtomicBool>,
}

impl Load {
    fn record(&self, change: impl FnOnce(&mut Acknowledged)) {
        change(&mut self.acknowledged.lock().expect("not poisoned"));
    }

    fn acknowledged(&self) -> Acknowledged {
        self.acknowledged.lock().expect("not poisoned").clone()
    }
}

/// A verified user's writes, one after another, until stopped: a term, a preference.
async fn user_load(load: Load, client: Client, email: String, id: String) {
    let mut n = 0;
    while !load.stop.load(Ordering::SeqCst) {
        // Topics of the imported papers, so that digests name some of them.
        let topics = ["phthalate liver", "peroxisome proliferation", "diethylhexyl phthalate toxicity", "hepatic peroxisome", "phthalate exposure"];
        let term = match topics.get(n) {
            Some(topic) => (*topic).to_owned(),
            None => format!("liver toxicity study {n}"),
        };
        let answer = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": term })).await;
        if (200..300).contains(&answer.status) {
            load.record(|acknowledged| acknowledged.terms.push((id.clone(), term)));
        } else {
            load.record(|acknowledged| acknowledged.refused.push(format!("{} {}", answer.status, answer.body)));
        }
        if n == 0 {
            let answer = client.patch(&format!("/api/users/{id}/preferences"), json!({ "weeklyDigest": false })).await;
            if (200..300).contains(&answer.status) {
                load.record(|acknowledged| acknowledged.weekly_off.push(id.clone()));
            }
        }
        n += 1;
    }
}

/// New accounts, one after another, until stopped.
async fn signup_load(load: Load, client: Client, worker: usize) {
    let mut n = 0;
    while !load.stop.load(Ordering::SeqCst) {
        let email = format!("new{worker}-{n}@example.org");
        if (200..300).contains(&client.post("/api/signup", signup_body(&email, PASSWORD)).await.status) {
            load.record(|acknowledged| acknowledged.signups.push(email));
        }
        n += 1;
    }
}

#[actix_web::test]
async fn a_backup_under_load_restores_every_write_acknowledged_before_it_after_a_sigkill() {
    let folder = tempfile::tempdir().expect("a folder");
    let data_dir = folder.path().join("data");
    data_dir_with_papers(&data_dir);

    let backups = folder.path().join("backups");
    let (mut server, client) = serve_with_backups(&data_dir, Some(&backups)).await;
    let operator = Client::new(client.base());
    verified(&data_dir, &operator, OPERATOR).await;
    let load = Load { acknowledged: Arc::default(), stop: Arc::default() };
    let mut tasks = Vec::new();
    for user in 0..3 {
        let browser = Client::new(client.base());
        let email = format!("user{user}@example.org");
        let id = verified(&data_dir, &browser, &email).await;
        tasks.push(actix_web::rt::spawn(user_load(load.clone(), browser, email, id)));
    }
    for worker in 0..2 {
        tasks.push(actix_web::rt::spawn(signup_load(load.clone(), Client::new(client.base()), worker)));
    }
    let started = wait::until(Duration::from_secs(60), Duration::from_millis(20), || {
        let so_far = load.acknowledged();
        (so_far.signups.len() >= 4 && so_far.terms.len() >= 3 && !so_far.weekly_off.is_empty()).then_some(())
    });
    if started.await.is_none() {
        let so_far = load.acknowledged();
        panic!(
            "the load made too few writes: {} signups, terms {:?}, weekly off {:?}, refused {:?}",
            so_far.signups.len(),
            so_far.terms,
            so_far.weekly_off,
            so_far.refused.iter().take(5).collect::<Vec<_>>()
        );
    }

    // Everything answered before the backup is asked for; the load goes on during it.
    let before_backup = load.acknowledged();
    let made = operator.post("/api/admin/backup", json!({})).await;
    assert_eq!(made.status, 200, "{}", made.body);
    let backup_dir = PathBuf::from(made.body["path"].as_str().expect("the backup's folder"));
    assert!(backup_dir.starts_with(&backups), "{}", backup_dir.display());
    // Writes wait while the database is copied, so none may be answered during the backup; the
    // load must go on past it, so that the kill cuts writes the backup cannot hold.
    let acknowledged_count = |acknowledged: &Acknowledged| acknowledged.signups.len() + acknowledged.terms.len();
    let went_on = wait::until_async(Duration::from_secs(30), Duration::from_millis(20), || async {
        (acknowledged_count(&load.acknowledged()) > acknowledged_count(&before_backup)).then_some(())
    });
    assert!(went_on.await.is_some(), "the load stopped at the backup");
    load.stop.store(true, Ordering::SeqCst);
    testkit::server::kill(&mut server.0).expect("SIGKILL");
    for task in tasks {
        // A request the kill cut short fails its task (the test client panics on a lost
        // connection): that is the kill, not a failure of the load.
        let _ = task.await;
    }
    assert!(made.body["users"].as_u64().expect("users") >= (4 + before_backup.signups.len()) as u64, "{}", made.body);
    assert!(made.body["papers"].as_u64().expect("papers") >= 20, "{}", made.body);
    assert!(made.body["storeBytes"].as_u64() > Some(0) && made.body["indexBytes"].as_u64() > Some(0), "{}", made.body);

    let restored_dir = folder.path().join("restored");
    let (restored, out, err) = run(&restored_dir, &["restore", &backup_dir.display().to_string()]);
    assert!(restored, "restore: {out} {err}");
    assert!(out.contains("restored the backup") && out.contains("SHA-256"), "{out}");

    // The index holds every paper a restored digest names.
    {
        let store = store::Store::open(&restored_dir.join("db")).expect("the restored database opens");
        let index = index::PaperIndex::open_or_create(&restored_dir.join("index")).expect("the restored index opens");
        assert_eq!(index.paper_count().expect("count"), made.body["papers"].as_u64().expect("papers"));
        let mut checked = 0;
        for user in store.accounts().users().expect("users") {
            for digest in store.digests().of_user(user.id).expect("digests") {
                for paper in &digest.papers_data {
                    let key = engine::dedup::DedupKey::parse(&paper.keys[0]).expect("a dedup key");
                    assert!(index.find(&key).expect("lookup").is_some(), "digest paper {} missing from the index", paper.keys[0]);
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "the restored digests name papers");
    }

    let (mut second, client) = serve(&restored_dir).await;
    for email in &before_backup.signups {
        let login = client.post("/api/auth/login", json!({ "email": email, "password": PASSWORD })).await;
        assert_eq!(login.status, 403, "{email}'s signup was acknowledged before the backup: {}", login.body);
    }
    let browsers: Vec<(String, Client)> = {
        let mut browsers = Vec::new();
        for user in 0..3 {
            let email = format!("user{user}@example.org");
            let browser = Client::new(client.base());
            let login = browser.post("/api/auth/login", json!({ "email": email, "password": PASSWORD })).await;
            assert_eq!(login.status, 200, "{email}: {}", login.body);
            let id = browser.get("/api/auth/me").await.body["user"]["id"].as_str().expect("an id").to_owned();
            browsers.push((id, browser));
        }
        browsers
    };
    for (id, browser) in &browsers {
        let listed = browser.get(&format!("/api/users/{id}/search-terms")).await;
        let terms: Vec<&str> = listed.body.as_array().expect("terms").iter().filter_map(|term| term["term"].as_str()).collect();
        for (_, term) in before_backup.terms.iter().filter(|(owner, _)| owner == id) {
            assert!(terms.contains(&term.as_str()), "the term {term:?} was acknowledged before the backup: {terms:?}");
        }
        if before_backup.weekly_off.contains(id) {
            let preferences: Value = browser.get(&format!("/api/users/{id}/preferences")).await.body;
            assert_eq!(preferences["weeklyDigest"], false, "{preferences}");
        }
    }
    testkit::server::kill(&mut second.0).expect("stop");
}

#[actix_web::test]
async fn restore_refuses_a_live_data_directory_a_damaged_backup_and_a_database_without_force() {
    let folder = tempfile::tempdir().expect("a folder");
    let data_dir = folder.path().join("data");
    data_dir_with_papers(&data_dir);
    let backup_dir = folder.path().join("backup");
    let (made, out, err) = run(&data_dir, &["backup", &backup_dir.display().to_string()]);
    assert!(made, "backup: {out} {err}");
    assert!(out.contains("backup written to") && out.contains("20 paper(s)") && out.contains("0 account(s)"), "{out}");
    let (again, _, err) = run(&data_dir, &["backup", &backup_dir.display().to_string()]);
    assert!(!again && err.contains("not empty"), "{err}");
    let inside = data_dir.join("backups/today");
    let (refused, _, err) = run(&data_dir, &["backup", &inside.display().to_string()]);
    assert!(!refused && err.contains("inside the data directory") && !inside.try_exists().expect("checkable"), "{err}");

    // A running service: the command line's backup is made by the service (through its
    // socket), and a restore over it is refused.
    let (mut server, _) = serve(&data_dir).await;
    let live_backup = folder.path().join("live");
    let (backed_up, out, err) = run(&data_dir, &["backup", &live_backup.display().to_string()]);
    assert!(backed_up && out.contains("backup written to") && out.contains("20 paper(s)"), "{out} {err}");
    assert!(live_backup.join("manifest.json").try_exists().expect("checkable"), "the running service wrote the backup");
    let (refused, _, err) = run(&data_dir, &["backup", &inside.display().to_string()]);
    assert!(!refused && err.contains("inside the data directory") && !inside.try_exists().expect("checkable"), "{err}");
    // The service checks the folder the socket names itself too, and answers a folder it
    // cannot make with a 400 that says why.
    let a_file = folder.path().join("a-file");
    std::fs::write(&a_file, "not a folder").expect("a file");
    for (dest, status, says) in [
        (inside.display().to_string(), 400, "inside the data directory"),
        (data_dir.join("db/copy").display().to_string(), 400, "inside the data directory"),
        (folder.path().join("elsewhere/../data/copy").display().to_string(), 400, "inside the data directory"),
        ("backups/today".to_owned(), 400, "absolute"),
        (a_file.join("copy").display().to_string(), 400, "cannot"),
        (backup_dir.display().to_string(), 409, "not empty"),
    ] {
        let answer = web::local::request(&data_dir, "POST", "/api/admin/backup", Some(&json!({ "dest": dest }))).await.expect("the socket answers");
        let answer = answer.expect("the service listens");
        let (answered, body) = (answer.status, answer.read::<serde_json::Value>().expect("a JSON answer"));
        assert_eq!(answered, status, "{dest}: {body}");
        assert!(body["message"].as_str().is_some_and(|message| message.contains(says)), "{dest}: {body}");
    }
    assert!(!inside.try_exists().expect("checkable") && !data_dir.join("db/copy").try_exists().expect("checkable"));
    let (restored, _, err) = run(&data_dir, &["restore", "--force", &backup_dir.display().to_string()]);
    assert!(!restored && err.contains("the service is running"), "{err}");
    testkit::server::kill(&mut server.0).expect("SIGKILL");

    let (restored, _, err) = run(&data_dir, &["restore", &backup_dir.display().to_string()]);
    assert!(!restored && err.contains("--force"), "{err}");
    let (restored, out, err) = run(&data_dir, &["restore", "--force", &backup_dir.display().to_string()]);
    assert!(restored, "{out} {err}");
    assert!(out.contains("moved to") && out.contains("before-restore-"), "{out}");

    let manifest: Value = serde_json::from_slice(&std::fs::read(backup_dir.join("manifest.json")).expect("a manifest")).expect("JSON");
    let victim = manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|file| file["path"].as_str().is_some_and(|path| path.starts_with("db/")))
        .expect("a file of the database");
    let victim_path = victim["path"].as_str().expect("a path");
    let target = backup_dir.join(victim_path);
    let mut bytes = std::fs::read(&target).expect("readable");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&target, bytes).expect("writable");
    let fresh = folder.path().join("fresh");
    let (restored, _, err) = run(&fresh, &["restore", &backup_dir.display().to_string()]);
    assert!(!restored && err.contains(victim_path) && err.contains("SHA-256"), "{err}");
    assert!(!fresh.join("db").try_exists().expect("checkable"), "nothing restored from a damaged backup");
}

#[actix_web::test]
async fn daily_backups_keep_the_newest_in_the_backup_folder() {
    let folder = tempfile::tempdir().expect("a folder");
    let data_dir = folder.path().join("data");
    let backups = folder.path().join("backups");
    std::fs::create_dir_all(&backups).expect("backup folder");
    // Two older backups the service made (copied from a real one), and a folder it did not.
    let seed = folder.path().join("seed");
    data_dir_with_papers(&data_dir);
    let (made, out, err) = run(&data_dir, &["backup", &seed.display().to_string()]);
    assert!(made, "{out} {err}");
    for (day, made_at) in [("2026-01-01T030000Z", "2026-01-01T03:00:00Z"), ("2026-01-02T030000Z", "2026-01-02T03:00:00Z")] {
        let old = backups.join(format!("papertide-{day}"));
        std::fs::create_dir_all(&old).expect("an old backup");
        let mut manifest: Value = serde_json::from_slice(&std::fs::read(seed.join("manifest.json")).expect("a manifest")).expect("JSON");
        manifest["createdAt"] = json!(made_at);
        std::fs::write(old.join("manifest.json"), manifest.to_string()).expect("its manifest");
    }
    std::fs::create_dir_all(backups.join("papertide-2025-12-31T030000Z-keep-me")).expect("another folder");
    // Named like a backup of a day to come, with a manifest copied in: not one of the service's,
    // so it neither passes for today's backup nor is deleted.
    let future = backups.join("papertide-2099-01-01T030000Z");
    std::fs::create_dir_all(&future).expect("a folder of a day to come");
    std::fs::copy(seed.join("manifest.json"), future.join("manifest.json")).expect("a manifest");

    let port = free_port();
    let mut server = Running(
        binary(&data_dir, port)
            .env("PAPERTIDE_BACKUP_DIR", backups.display().to_string())
            .env("PAPERTIDE_BACKUP_KEEP", "2")
            .spawn_serve(&[])
            .expect("starts"),
    );
    // No backup today: one is made at start, and the oldest of the service's goes.
    let pruned = wait::until(Duration::from_secs(60), Duration::from_millis(100), || {
        let names: Vec<String> =
            std::fs::read_dir(&backups).ok()?.filter_map(|entry| entry.ok()).map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
        let today = names.iter().any(|name| name.starts_with(&format!("papertide-{}", chrono::Utc::now().format("%Y-%m-%d"))));
        (today && names.len() == 4).then_some(names)
    });
    let mut names =
        pruned.await.unwrap_or_else(|| panic!("no daily backup and pruning: {:?}", std::fs::read_dir(&backups).map(|entries| entries.count())));
    testkit::server::kill(&mut server.0).expect("SIGKILL");
    names.sort();
    assert_eq!(names[0], "papertide-2025-12-31T030000Z-keep-me");
    assert_eq!(names[1], "papertide-2026-01-02T030000Z");
    assert_eq!(names[3], "papertide-2099-01-01T030000Z");
    let newest = backups.join(&names[2]);
    crate::private_files::assert_owner_only(&newest);
    let (restored, out, err) = run(&folder.path().join("restored"), &["restore", &newest.display().to_string()]);
    assert!(restored, "the daily backup restores: {out} {err}");
}

/// Found probing `POST /api/admin/backup`: the request's `dest` wrote through `..`, inside the
/// live `db/` and under `/dev`, and four bad paths answered 500. A signed-in operator's request
/// names no folder now: each is refused with a 400 saying where backups go, and nothing is made.
#[actix_web::test]
async fn a_signed_in_operator_s_backup_goes_only_into_the_configured_folder() {
    let backups = tempfile::tempdir().expect("a backup folder");
    let server = crate::common::TestServer::start_with(|serve| serve.backup_dir = Some(backups.path().to_owned())).await;
    let operator = server.operator().await;
    let data_dir = server.data_dir.path();
    let named = [
        backups.path().join("../escaped").display().to_string(),
        data_dir.join("db/backup").display().to_string(),
        "/dev/papertide-backup".to_owned(),
        "relative/folder".to_owned(),
        String::new(),
    ];
    for dest in &named {
        let answer = operator.post("/api/admin/backup", json!({ "dest": dest })).await;
        assert_eq!(answer.status, 400, "{dest}: {}", answer.body);
        assert!(answer.body["message"].as_str().is_some_and(|message| message.contains("PAPERTIDE_BACKUP_DIR")), "{dest}: {}", answer.body);
    }
    for made in [backups.path().join("../escaped"), data_dir.join("db/backup"), PathBuf::from("/dev/papertide-backup")] {
        assert!(!made.try_exists().expect("checkable"), "{} was made", made.display());
    }
    let answer = operator.post("/api/admin/backup", json!({ "dest": 42 })).await;
    assert_eq!((answer.status, answer.body["code"].as_str()), (400, Some("bad_request")), "{}", answer.body);

    let made = operator.post("/api/admin/backup", json!({})).await;
    assert_eq!(made.status, 200, "{}", made.body);
    let path = PathBuf::from(made.body["path"].as_str().expect("a path"));
    assert_eq!(path.parent(), Some(backups.path()), "a new dated folder of the configured folder");
    assert!(path.join("manifest.json").try_exists().expect("checkable"));
    crate::private_files::assert_owner_only(&path);
}
