//! The data directory is its owner's alone, through the real binary: everything `serve` creates
//! in it (the database, the index, the outbox and its mails) is owner-only (folders 0700, files
//! 0600), and a start narrows wider modes it finds there, with one warning.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use testkit::server::{Binary, Log};
use testkit::wait;

use crate::common::{free_port, signup_body, BinaryServer, PASSWORD};

/// Fails naming every path under `root` (itself included; links are not followed) that the
/// group or others may read, write or open.
pub fn assert_owner_only(root: &Path) {
    let mut shared: Vec<(PathBuf, u32)> = Vec::new();
    let mut pending = vec![root.to_owned()];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let metadata = path.symlink_metadata().unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        if metadata.file_type().is_symlink() {
            continue;
        }
        if metadata.is_dir() {
            let entries = std::fs::read_dir(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            pending.extend(entries.map(|entry| entry.expect("an entry").path()));
        }
        seen += 1;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            shared.push((path, mode));
        }
    }
    let shown: Vec<String> = shared.iter().map(|(path, mode)| format!("{} {mode:o}", path.display())).collect();
    assert!(shown.is_empty(), "{} of {seen} paths others may read: {shown:#?}", shown.len());
}

/// Found probing the data directory: `serve` made folders 0755 and files 0644, and another local
/// user read sign-in links in `outbox/` and password hashes in `db/`.
#[actix_web::test]
async fn everything_serve_creates_in_the_data_directory_is_owner_only() {
    let server = BinaryServer::start(&[("PAPERTIDE_LOG", "warn")], std::process::Stdio::null()).await;
    let client = server.client();
    assert_eq!(client.post("/api/signup", signup_body("ada@example.org", PASSWORD)).await.status, 201);
    server.wait_for_mails(1, "ada@example.org", "").await;
    let data_dir = server.data_dir.path();
    for part in ["db", "index", "outbox", "papertide.sock"] {
        assert!(data_dir.join(part).symlink_metadata().is_ok(), "{part} exists");
    }
    assert_owner_only(data_dir);
}

/// A data directory made by an older papertide (0755, a mail 0644) is narrowed at the start, and
/// the start says how many paths it narrowed.
#[actix_web::test]
async fn a_start_narrows_wider_modes_it_finds_and_says_so() {
    let folder = tempfile::tempdir().expect("a folder");
    let data_dir = folder.path().join("data");
    std::fs::create_dir_all(data_dir.join("outbox")).expect("an outbox");
    let old_mail = data_dir.join("outbox/20260101T000000Z-000001.eml");
    std::fs::write(&old_mail, "To: ada@example.org\r\n\r\nhttp://127.0.0.1/verify-email?token=x").expect("a mail");
    for (path, mode) in [(&old_mail, 0o644), (&data_dir.join("outbox"), 0o755), (&data_dir, 0o755)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("a mode");
    }
    let log = folder.path().join("serve.log");
    let port = free_port();
    let binary = Binary::isolated(env!("CARGO_BIN_EXE_papertide"), &data_dir, port).env("PAPERTIDE_LOG", "warn").log(Log::File(log.clone()));
    let mut child = binary.spawn_serve(&[]).expect("papertide starts");
    let base = binary.base_url();
    let listening =
        wait::until_async(Duration::from_secs(30), Duration::from_millis(50), || async { testkit::server::is_listening(&base).await.then_some(()) });
    let listened = listening.await.is_some();
    testkit::server::kill(&mut child).expect("stopped");
    assert!(listened, "nothing listens on {port}");
    assert_owner_only(&data_dir);
    let said = std::fs::read_to_string(&log).expect("the log");
    let warnings: Vec<&str> = said.lines().filter(|line| line.contains("group and other permissions were removed")).collect();
    assert_eq!(warnings.len(), 1, "{said}");
    assert!(warnings[0].contains("repaired=3"), "the data directory, the outbox and the mail: {said}");
}

/// `papertide backup DEST` makes an owner-only backup.
#[test]
fn a_backup_made_by_the_command_line_is_owner_only() {
    let folder = tempfile::tempdir().expect("a folder");
    let data_dir = folder.path().join("data");
    drop(store::Store::open(&data_dir.join("db")).expect("a database"));
    let dest = folder.path().join("backup");
    let output = crate::common::papertide(&data_dir, &["backup", &dest.display().to_string()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(dest.join("manifest.json").try_exists().expect("checkable"));
    assert_owner_only(&dest);
}
