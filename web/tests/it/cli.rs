//! The operator's `papertide users ...` commands, run as the real binary.

use std::path::Path;
use std::process::{Command, Output};

use chrono::Utc;
use engine::{Preferences, UserId};
use store::{NewAccount, Store, User};
use uuid::Uuid;

fn papertide(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_papertide"))
        .args(["--data-dir", &data_dir.display().to_string()])
        .args(args)
        .output()
        .expect("the papertide binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn seed(data_dir: &Path, emails: &[&str]) {
    let store = Store::open(&data_dir.join("db")).expect("database");
    for email in emails {
        let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), Utc::now());
        let account = NewAccount { user, preferences: Preferences::default(), verification: None, mail: None };
        store.create_account(account, Utc::now()).expect("account");
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
    let ada = store.user_by_email("ada@example.org").expect("readable").expect("ada");
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
    let ada = store.user_by_email("ada@example.org").expect("readable").expect("ada");
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
