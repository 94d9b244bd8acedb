//! The operator's `papertide users ...` commands, run as the real binary.

use std::path::Path;
use std::process::Command;

use crate::common::papertide;

use chrono::Utc;
use engine::{Preferences, UserId};
use store::{NewAccount, Store, User};
use uuid::Uuid;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn seed(data_dir: &Path, emails: &[&str]) {
    let store = Store::open(&data_dir.join("db")).expect("database");
    for email in emails {
        let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), Utc::now());
        let account = NewAccount { user, preferences: Preferences::default(), verification: None, mail: None };
        store.accounts().create(account, Utc::now()).expect("account");
    }
    store.flush().expect("flush");
}

#[test]
fn users_list_set_tier_and_grant_admin() {
    let data_dir = tempfile::tempdir().expect("data directory");
    seed(data_dir.path(), &["ada@example.org", "bob@example.org"]);

    let set = papertide(data_dir.path(), &["users", "set-tier", "ADA@example.org", "team"]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    assert_eq!(text(&set.stdout).trim(), "ada@example.org is now on the team plan");

    let grant = papertide(data_dir.path(), &["users", "grant-admin", "bob@example.org"]);
    assert!(grant.status.success(), "{}", text(&grant.stderr));

    let list = papertide(data_dir.path(), &["users", "list"]);
    assert!(list.status.success());
    let listing = text(&list.stdout);
    let ada_row = listing.lines().find(|line| line.starts_with("ada@example.org")).expect("ada listed");
    let bob_row = listing.lines().find(|line| line.starts_with("bob@example.org")).expect("bob listed");
    assert_eq!(ada_row.split_whitespace().nth(1), Some("team"));
    assert_eq!(bob_row.split_whitespace().nth(3), Some("yes"), "{bob_row}");
    assert!(listing.trim_end().ends_with("2 account(s)"));

    let store = Store::open(&data_dir.path().join("db")).expect("database");
    let ada = store.accounts().user_by_email("ada@example.org").expect("readable").expect("ada");
    assert_eq!(ada.subscription_tier, engine::Tier::Team);
}

#[test]
fn bad_input_is_refused_with_a_reason_and_changes_nothing() {
    let data_dir = tempfile::tempdir().expect("data directory");
    seed(data_dir.path(), &["ada@example.org"]);

    let bad_tier = papertide(data_dir.path(), &["users", "set-tier", "ada@example.org", "gold"]);
    assert!(!bad_tier.status.success());
    assert!(text(&bad_tier.stderr).contains("free, pro, team"), "{}", text(&bad_tier.stderr));

    let unknown = papertide(data_dir.path(), &["users", "grant-admin", "nobody@example.org"]);
    assert!(!unknown.status.success());
    assert!(text(&unknown.stderr).contains("no account with email nobody@example.org"));

    let store = Store::open(&data_dir.path().join("db")).expect("database");
    let ada = store.accounts().user_by_email("ada@example.org").expect("readable").expect("ada");
    assert_eq!(ada.subscription_tier, engine::Tier::Free);
    assert!(!ada.is_admin);

    let while_running = papertide(data_dir.path(), &["users", "list"]);
    assert!(!while_running.status.success(), "two processes opened one database");
    assert!(text(&while_running.stderr).contains("in use by another papertide process"), "{}", text(&while_running.stderr));
}

#[test]
fn commands_on_a_missing_data_directory_say_so() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let output = papertide(&data_dir.path().join("nothing-here"), &["users", "list"]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("no database in"), "{}", text(&output.stderr));
}

/// The names operators' scripts use: a `--config` file, overridden by `PAPERTIDE_*` variables,
/// overridden by flags. Each run signs someone up; the mailed links show which public URL won.
#[actix_web::test]
async fn serve_reads_the_file_then_the_environment_then_flags() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let (file_port, flag_port) = (crate::common::free_port(), crate::common::free_port());
    let config = data_dir.path().join("papertide.toml");
    let file_settings = format!("bind = \"127.0.0.1:{file_port}\"\npublic_url = \"http://file.example.org\"\nsupport_email = \"file@example.org\"\n");
    std::fs::write(&config, file_settings).expect("config file");
    let outbox = data_dir.path().join("outbox");

    let runs = [
        (file_port, vec![]),
        (flag_port, vec!["--bind".to_owned(), format!("127.0.0.1:{flag_port}"), "--public-url".into(), "http://flag.example.org".into()]),
    ];
    for (run, (port, flags)) in runs.iter().enumerate() {
        let mut server = Command::new(env!("CARGO_BIN_EXE_papertide"))
            .args(["--config", &config.display().to_string(), "--data-dir", &data_dir.path().display().to_string(), "serve"])
            .args(flags)
            .env("PAPERTIDE_PUBLIC_URL", "http://env.example.org")
            .env("PAPERTIDE_LOG", "warn")
            .env("PAPERTIDE_HARVEST_SOURCES", "none")
            .env("PAPERTIDE_LIVE_SEARCH", "false")
            .spawn()
            .expect("papertide starts");
        let client = crate::common::Client::new(&format!("http://127.0.0.1:{port}"));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await.is_err() {
            assert!(std::time::Instant::now() < deadline, "nothing listens on {port}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let body = crate::common::signup_body(&format!("user{run}@example.org"), crate::common::PASSWORD);
        assert_eq!(client.post("/api/signup", body).await.status, 201);
        while std::fs::read_dir(&outbox).map_or(0, |entries| entries.count()) < run + 1 {
            assert!(std::time::Instant::now() < deadline, "the verification mail was not written");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        server.kill().expect("stop");
        server.wait().expect("reaped");
    }

    let mut mails: Vec<String> = std::fs::read_dir(&outbox)
        .expect("outbox")
        .map(|entry| crate::common::decode_quoted_printable(&std::fs::read_to_string(entry.expect("entry").path()).expect("mail")))
        .collect();
    mails.sort_by_key(|mail| mail.contains("user1@"));
    assert!(mails[0].contains("http://env.example.org/verify-email?token="), "the environment must win over the file");
    assert!(mails[1].contains("http://flag.example.org/verify-email?token="), "flags must win over the environment");
    assert!(mails.iter().all(|mail| mail.contains("file@example.org")), "options only in the file must still apply");
}

#[test]
fn weekly_runs_the_pass_as_of_a_time_once_and_only_for_users_due_then() {
    use chrono::{Datelike, Duration, TimeZone};
    use engine::search_term::{SearchTerm, TermId};

    let data_dir = tempfile::tempdir().expect("data directory");
    seed(data_dir.path(), &["ada@example.org"]);
    {
        let store = Store::open(&data_dir.path().join("db")).expect("database");
        let ada = store.accounts().update_user_by_email("ada@example.org", |user| user.is_email_verified = true).expect("verified");
        let term = SearchTerm::new(TermId(Uuid::new_v4()), ada.id, "malaria vaccine".into(), ada.subscription_tier, Utc::now());
        store.terms().add(&term, ada.subscription_tier, false).expect("a term");
        store.flush().expect("flush");
    }
    // Free plans: Mondays, and not within three days of signup. The Monday is at least four days
    // ahead, so its slot is past the gap whatever the time of day the test runs (three days ahead,
    // a signup after the slot's hour would still be within it).
    let today = Utc::now().date_naive();
    let gap = engine::digest::WEEKLY_GAP_DAYS;
    let first_monday =
        (gap + 1..=gap + 7).map(|days| today + Duration::days(days)).find(|day| day.weekday() == chrono::Weekday::Mon).expect("a Monday");
    let at = |day: chrono::NaiveDate, hour: u32| Utc.from_utc_datetime(&day.and_hms_opt(hour, 0, 0).expect("a time")).to_rfc3339();
    let early = papertide(data_dir.path(), &["weekly", "--at", &at(first_monday, 7)]);
    assert!(early.status.success(), "{}", text(&early.stderr));
    assert!(text(&early.stdout).contains(": 0 digest(s) built"), "before the hour: {}", text(&early.stdout));
    let due = papertide(data_dir.path(), &["weekly", "--at", &at(first_monday, 9)]);
    assert!(text(&due.stdout).contains(": 1 digest(s) built"), "{} {}", text(&due.stdout), text(&due.stderr));
    let again = papertide(data_dir.path(), &["weekly", "--at", &at(first_monday, 10)]);
    assert!(text(&again.stdout).contains(": 0 digest(s) built"), "once a week: {}", text(&again.stdout));
    let bad = papertide(data_dir.path(), &["weekly", "--at", "next monday"]);
    assert!(!bad.status.success() && text(&bad.stderr).contains("--at"), "{}", text(&bad.stderr));

    let store = Store::open(&data_dir.path().join("db")).expect("database");
    let ada = store.accounts().user_by_email("ada@example.org").expect("db").expect("ada");
    let digests = store.digests().of_user(ada.id).expect("db");
    assert_eq!((digests.len(), digests[0].digest_type.as_str()), (1, "weekly"));
    assert_eq!(store.mail().queue_len(), 1, "its mail waits for the service");
}

#[test]
fn set_tier_warns_that_stripe_decides_plans_when_billing_is_on() {
    let data_dir = tempfile::tempdir().expect("data directory");
    seed(data_dir.path(), &["ada@example.org"]);
    let set = std::process::Command::new(env!("CARGO_BIN_EXE_papertide"))
        .env("PAPERTIDE_STRIPE_SECRET_KEY", "sk_test_anything")
        .args(["--data-dir", &data_dir.path().display().to_string(), "users", "set-tier", "ada@example.org", "pro"])
        .output()
        .expect("papertide runs");
    assert!(set.status.success(), "{}", text(&set.stderr));
    let out = text(&set.stdout);
    assert!(out.starts_with("warning: billing is on, and Stripe is the source of truth for plans"), "{out}");
    assert!(out.trim_end().ends_with("ada@example.org is now on the pro plan"), "{out}");
    let store = Store::open(&data_dir.path().join("db")).expect("database");
    assert_eq!(store.accounts().user_by_email("ada@example.org").expect("readable").expect("ada").subscription_tier, engine::Tier::Pro);
}

#[test]
fn serve_refuses_to_start_with_half_configured_billing() {
    let data_dir = tempfile::tempdir().expect("data directory");
    let serve = std::process::Command::new(env!("CARGO_BIN_EXE_papertide"))
        .env("PAPERTIDE_STRIPE_SECRET_KEY", "sk_test_anything")
        .env("PAPERTIDE_STRIPE_PRICE_PRO", "price_pro")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .args(["--data-dir", &data_dir.path().display().to_string(), "serve", "--bind", "127.0.0.1:0"])
        .output()
        .expect("papertide runs");
    assert!(!serve.status.success(), "it must not start");
    let error = text(&serve.stderr);
    assert!(
        error.contains("billing is half-configured: PAPERTIDE_STRIPE_SECRET_KEY is set but PAPERTIDE_STRIPE_PUBLISHABLE_KEY, PAPERTIDE_STRIPE_WEBHOOK_SECRET, PAPERTIDE_STRIPE_PRICE_TEAM are missing"),
        "{error}"
    );
    assert!(!data_dir.path().join("db").try_exists().expect("the data directory reads"), "nothing was written");
}

#[test]
fn serve_refuses_to_start_with_an_embedding_model_that_does_not_load() {
    let serve = |data_dir: &Path, extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_papertide"))
            .env("PAPERTIDE_HARVEST_SOURCES", "none")
            .args(["--data-dir", &data_dir.display().to_string(), "serve", "--bind", "127.0.0.1:0"])
            .args(extra)
            .output()
            .expect("papertide runs");
        assert!(!output.status.success(), "it must not start");
        text(&output.stderr)
    };

    let data_dir = tempfile::tempdir().expect("data directory");
    let empty = data_dir.path().join("not-a-model");
    std::fs::create_dir(&empty).expect("a folder");
    let error = serve(data_dir.path(), &["--embed-model-dir", &empty.display().to_string()]);
    assert!(
        error.contains(&format!("the embedding model in {} does not load; fix the folder, or unset PAPERTIDE_EMBED_MODEL_DIR", empty.display())),
        "{error}"
    );
    assert!(error.contains("has no config.json"), "the cause is named: {error}");
    assert!(!data_dir.path().join("db").try_exists().expect("the data directory reads"), "nothing was written");

    let fetched_badly = data_dir.path().join("models").join("all-minilm-l6-v2");
    std::fs::create_dir_all(&fetched_badly).expect("a folder");
    let error = serve(data_dir.path(), &[]);
    assert!(error.contains("does not load; run `papertide model fetch` to fetch it again, or remove the folder to rank lexically"), "{error}");
}

/// `papertide model fetch` puts the model in DATA_DIR/models/all-minilm-l6-v2 (here: a link to
/// the test model), where `serve` finds it with nothing configured.
#[actix_web::test]
async fn serve_embeds_with_the_model_fetched_into_the_data_directory() {
    let model_dir = std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model");
    let data_dir = tempfile::tempdir().expect("data directory");
    std::fs::create_dir(data_dir.path().join("models")).expect("models folder");
    std::os::unix::fs::symlink(&model_dir, web::model::default_model_dir(data_dir.path())).expect("linked");
    let port = crate::common::free_port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_papertide"))
        .args(["--data-dir", &data_dir.path().display().to_string(), "serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("PAPERTIDE_LOG", "warn")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .spawn()
        .expect("papertide starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let health = loop {
        if let Ok(answer) = reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await {
            break answer.json::<serde_json::Value>().await.expect("JSON");
        }
        assert!(std::time::Instant::now() < deadline, "nothing listens on {port}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    server.kill().expect("stop");
    server.wait().expect("reaped");
    assert_eq!(health["embeddings"]["model"], "all-minilm-l6-v2", "{health}");
    assert_eq!(health["embeddings"]["papersWaiting"], 0, "an empty index waits for nothing");
}

/// `papertide weekly` killed with SIGKILL once its first batch is recorded, then run again: every
/// user gets each term's digest once, no user gets a paper twice, and each digest has one mail.
#[test]
fn a_weekly_pass_killed_midway_and_run_again_serves_every_user_once() {
    use std::io::{BufRead, BufReader};

    use chrono::{Datelike, Duration, TimeZone};
    use engine::search_term::{SearchTerm, TermId};

    const USERS: usize = 700;
    const TERMS: [&str; 4] = ["cancer", "gene expression", "protein folding", "deep learning"];
    let data_dir = tempfile::tempdir().expect("data directory");
    let today = Utc::now().date_naive();
    let monday = (1..=7).map(|days| today + Duration::days(days)).find(|day| day.weekday() == chrono::Weekday::Mon).expect("a Monday");
    let at = Utc.from_utc_datetime(&monday.and_hms_opt(9, 0, 0).expect("a time"));
    {
        // A week of papers entered the day before, and pro users with three terms each.
        let index = index::PaperIndex::open_or_create(&data_dir.path().join("index")).expect("index");
        let mut writer = index.writer(index::MIN_WRITER_HEAP_BYTES).expect("writer");
        for body in bench::workload::build_week_part(0, 3_000).bodies {
            for mut paper in engine::parse::parse_any(&body).1.items {
                paper.entered = Some(monday - Duration::days(1));
                writer.upsert(paper).expect("indexed");
            }
        }
        writer.commit().expect("committed");
        let store = Store::open(&data_dir.path().join("db")).expect("database");
        for number in 0..USERS {
            let mut user = User::new(UserId(Uuid::new_v4()), &format!("user{number}@example.org"), "hash".into(), at - Duration::days(30));
            user.is_email_verified = true;
            user.subscription_tier = engine::Tier::Pro;
            let user = store
                .accounts()
                .create(NewAccount { user, preferences: Preferences::default(), verification: None, mail: None }, at)
                .expect("account");
            for offset in 0..3 {
                let text = TERMS[(number + offset) % TERMS.len()];
                let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, text.into(), engine::Tier::Pro, at - Duration::days(30));
                store.terms().add(&term, engine::Tier::Pro, false).expect("a term");
            }
        }
        store.flush().expect("flush");
    }
    let when = at.to_rfc3339();
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_papertide"))
        .args(["--data-dir", &data_dir.path().display().to_string(), "weekly", "--at", &when])
        .env("PAPERTIDE_LOG", "warn,actors::weekly=debug")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("papertide starts");
    let stderr = BufReader::new(first.stderr.take().expect("stderr"));
    let mut seen = Vec::new();
    for line in stderr.lines() {
        let line = line.expect("a line");
        let recorded = line.contains("a batch of weekly digests recorded");
        seen.push(line);
        if recorded {
            break;
        }
    }
    assert!(seen.last().is_some_and(|line| line.contains("recorded")), "no batch was recorded: {seen:?}");
    first.kill().expect("SIGKILL");
    let status = first.wait().expect("reaped");
    assert!(!status.success(), "killed mid-pass, not finished: {status}");

    let again = papertide(data_dir.path(), &["weekly", "--at", &when]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(!text(&again.stdout).contains(": 0 digest(s) built"), "the kill left users to serve: {}", text(&again.stdout));
    let once_more = papertide(data_dir.path(), &["weekly", "--at", &when]);
    assert!(text(&once_more.stdout).contains(": 0 digest(s) built"), "every user was served: {}", text(&once_more.stdout));

    let store = Store::open(&data_dir.path().join("db")).expect("database");
    let mut referenced = std::collections::HashMap::new();
    for queued in store.mail().queued().expect("queue") {
        let reference = queued.digest.expect("a digest mail");
        *referenced.entry(reference.digest_key).or_insert(0) += 1;
    }
    assert_eq!(referenced.len(), USERS * 3, "one mail per digest");
    assert!(referenced.values().all(|&mails| mails == 1), "a digest's mail was queued twice");
    let mut papers_sent = 0;
    for user in store.accounts().users().expect("users") {
        let digests = store.digests().of_user(user.id).expect("digests");
        assert_eq!(digests.len(), 3, "{}: one weekly digest per term", user.email);
        let mut keys: Vec<&str> =
            digests.iter().flat_map(|digest| &digest.papers_data).filter_map(|paper| paper.keys.first()).map(String::as_str).collect();
        papers_sent += keys.len();
        let sent = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), sent, "{}: a paper went twice", user.email);
        let ledger = store.digests().ledger(user.id).expect("ledger");
        assert_eq!((ledger.version, ledger.received, ledger.last_weekly), (1, 3, Some(at)), "{}: one commit of three digests", user.email);
    }
    assert!(papers_sent > USERS, "the digests had papers: {papers_sent}");
}
