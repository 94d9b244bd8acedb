//! The `digest` scenario: N users with 3 search terms each over an index of M papers entered this
//! week, served by the production weekly path — the scheduler's pass (`serve_due_users`: batches
//! of users on one thread per core, each batch recorded in one transaction) — so every digest is
//! built (expanded search, scoring, summaries), stored with its sent papers and queued; then
//! every queued mail rendered as the mailer renders it when it sends (not sent); then a backup of
//! the data directory (`runtime::backup`), timed and weighed, while a user's requests go on (a
//! thread writing and reading sessions as a sign-in and `GET /api/auth/me` do), whose longest
//! waits are measured.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use actors::scheduler::serve_due_users;
use actors::{Digester, UserActors};
use anyhow::Context;
use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use engine::parse::parse_any;
use engine::search_term::{SearchTerm, TermId};
use engine::{Preferences, Tier, UserId};
use index::PaperIndex;
use store::secret::TokenHash;
use store::{NewAccount, Session, Store, User};
use uuid::Uuid;

use crate::workload;

/// Topics the simulated users follow: words and phrases the generated week's papers use.
pub(crate) const TOPICS: &[&str] = &[
    "cancer",
    "tumor suppression",
    "gene expression",
    "protein folding",
    "cell proliferation",
    "RNA interference",
    "breast cancer",
    "signaling network",
    "histone methylation",
    "microRNA",
    "mass spectrometry",
    "neural networks",
    "deep learning",
    "quantum computing",
    "galaxy formation",
    "epidemiology",
    "vaccine",
    "immune response",
    "stem cells",
    "drug resistance",
    "genome sequencing",
    "machine learning",
    "climate",
    "diabetes",
    "Alzheimer's disease",
];
/// The UTC hour the simulated schedule runs at.
pub(crate) const HOUR: u32 = 9;
/// Records generated and indexed at a time, so a large index never holds its week in memory.
const INDEX_PART: usize = 50_000;

/// What a run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DigestRun {
    pub users: usize,
    pub papers: u64,
    pub digests: usize,
    pub papers_sent: usize,
    pub workers: usize,
    pub index_seconds: f64,
    /// Peak memory while the index was built; the process's peak at the end is the run's.
    pub index_peak_rss_mib: Option<f64>,
    /// Peak memory while the users signed up (after the index was built).
    pub signup_peak_rss_mib: Option<f64>,
    /// The scheduler's pass: digests built, stored and queued.
    pub digest_seconds: f64,
    /// Every queued digest mail rendered.
    pub render_seconds: f64,
    /// Bytes the process wrote to disk during the pass (its flush included), per digest.
    pub disk_bytes_per_digest: Option<f64>,
    /// The database's size on disk after the pass, per user.
    pub database_bytes_per_user: f64,
    /// An online backup of the data directory after the pass (`runtime::backup`): its time,
    /// manifest included, and its bytes (database and index).
    pub backup_seconds: f64,
    pub backup_bytes: u64,
    /// What a user saw during the backup: see [`BackupWaits`].
    pub backup_waits: BackupWaits,
    /// Then one account deleted and erased from the disk by a compaction, as the service's
    /// janitor runs it ([`Store::compact`]): its time, and what a user saw meanwhile.
    pub compaction_seconds: f64,
    pub compaction_waits: BackupWaits,
}

/// The longest waits of a user's requests during a backup (or a compaction): a thread that, until the backup
/// ends, writes a session (as a sign-in does), reads it with its account (as every signed-in
/// request does) and deletes it (as a sign-out does), with a millisecond's pause between rounds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BackupWaits {
    /// Rounds done during the backup.
    pub rounds: u64,
    /// The longest session write or delete, in milliseconds.
    pub longest_write_ms: f64,
    /// The longest session read, in milliseconds.
    pub longest_read_ms: f64,
}

/// Builds an index of about `papers` papers entered this week and `users` users with 3 terms
/// each, then runs the weekly pass on the day every user is due.
pub fn run(users: usize, papers: usize) -> anyhow::Result<DigestRun> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let index = PaperIndex::open_or_create(&dir.path().join("index")).context("the index")?;
    let now = next_monday(Utc::now());
    let started = Instant::now();
    build_index(&index, papers, now.date_naive() - Duration::days(1))?;
    let index_seconds = started.elapsed().as_secs_f64();
    let index_peak_rss_mib = crate::peak_rss_mib();
    crate::reset_peak_rss();

    {
        // As the service opens it: compactable (`papertide weekly` opens it as it finds it).
        let store = Store::open_compactable(&dir.path().join("db")).context("the database")?;
        create_users(&store, users, now)?;
        store.flush()?;
    }
    let signup_peak_rss_mib = crate::peak_rss_mib();
    // From here on the peak is the weekly run's own (what the signups left resident included).
    crate::reset_peak_rss();

    // The system as `papertide weekly` starts it (store, index, digester, user actors).
    drop(index);
    let settings = settings(dir.path())?;
    let runner = actix_rt::System::new();
    let system = runner.block_on(async { runtime::System::start(&settings, runtime::Options::command()) })?;
    let (store, index, digester) = (&system.store, &system.index, &system.digester);
    let workers = UserActors::default_workers();
    let written_before = written_bytes();
    let started = Instant::now();
    let digests = runner.block_on(serve_due_users(store, &system.users, now, HOUR));
    let digests = digests.map_err(|error| anyhow::anyhow!("the weekly pass: {error}"))?;
    let digest_seconds = started.elapsed().as_secs_f64();
    let written = written_bytes().zip(written_before).map(|(after, before)| after.saturating_sub(before));
    let disk_bytes_per_digest = written.map(|bytes| bytes as f64 / digests.max(1) as f64);
    let database_bytes_per_user = store.size_on_disk_bytes()? as f64 / users.max(1) as f64;

    let started = Instant::now();
    let papers_sent = render_queue(store, digester, workers)?;
    let render_seconds = started.elapsed().as_secs_f64();

    // A backup of the data directory the pass left, as the running service makes one.
    let source = runtime::backup::IndexSource::Index(index.clone());
    let backup_done = AtomicBool::new(false);
    let (backup, backup_waits) = std::thread::scope(|scope| {
        let user = scope.spawn(|| requests_until(store, &backup_done));
        let backup = runner.block_on(runtime::backup::backup(store.clone(), source, dir.path().join("backup")));
        backup_done.store(true, Ordering::SeqCst);
        let waits = user.join().map_err(|_| anyhow::anyhow!("the user's thread panicked"));
        (backup, waits)
    });
    let (backup, backup_waits) = (backup?, backup_waits??);

    // An account deleted, and the compaction that erases it from the disk.
    let deleted = store.accounts().user_by_email("user0@bench.example.org")?.context("the first user")?;
    let confirmation = |user: &store::User| engine::mail::RenderedMail {
        to: user.email.clone(),
        subject: "Deleted".into(),
        html: String::new(),
        text: "Your account is deleted.".into(),
        action_url: None,
        list_unsubscribe: None,
    };
    store.accounts().delete_account(deleted.id, confirmation)?;
    store.accounts().close_account_deletion(deleted.id)?;
    let compaction_done = AtomicBool::new(false);
    let started = Instant::now();
    let (compaction, compaction_waits) = std::thread::scope(|scope| {
        let user = scope.spawn(|| requests_until(store, &compaction_done));
        let compaction = store.compact();
        compaction_done.store(true, Ordering::SeqCst);
        let waits = user.join().map_err(|_| anyhow::anyhow!("the user's thread panicked"));
        (compaction, waits)
    });
    let compaction_seconds = started.elapsed().as_secs_f64();
    let (compaction, compaction_waits) = (compaction?, compaction_waits??);
    anyhow::ensure!(compaction.is_some_and(|done| done.old_removed), "the compaction left the old generation");
    Ok(DigestRun {
        users,
        papers: index.paper_count()?,
        digests,
        papers_sent,
        workers,
        index_seconds,
        index_peak_rss_mib,
        signup_peak_rss_mib,
        digest_seconds,
        render_seconds,
        disk_bytes_per_digest,
        database_bytes_per_user,
        backup_seconds: backup.took.as_secs_f64(),
        backup_bytes: backup.store_bytes + backup.index_bytes,
        backup_waits,
        compaction_seconds,
        compaction_waits,
    })
}

/// A user's requests, one round after another, until `done`: see [`BackupWaits`].
fn requests_until(store: &Store, done: &AtomicBool) -> anyhow::Result<BackupWaits> {
    let mut waits = BackupWaits::default();
    let user_id = UserId(Uuid::new_v4());
    let as_ms = |started: Instant| started.elapsed().as_secs_f64() * 1000.0;
    while !done.load(Ordering::SeqCst) {
        let now = Utc::now();
        let hash = TokenHash::of(&format!("probe session {}", waits.rounds));
        let session = Session { user_id, epoch: 0, created_at: now, expires_at: now + Duration::days(1), ip_address: None };
        let started = Instant::now();
        store.accounts().create_session(hash, &session)?;
        waits.longest_write_ms = waits.longest_write_ms.max(as_ms(started));
        let started = Instant::now();
        store.accounts().session_user(hash, now)?;
        waits.longest_read_ms = waits.longest_read_ms.max(as_ms(started));
        let started = Instant::now();
        store.accounts().delete_session(hash)?;
        waits.longest_write_ms = waits.longest_write_ms.max(as_ms(started));
        waits.rounds += 1;
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    Ok(waits)
}

/// The settings of a data directory whose mails link to `papers.example.org`, with nothing to
/// harvest.
pub(crate) fn settings(data_dir: &Path) -> anyhow::Result<config::Settings> {
    let common = config::CommonArgs { config: None, data_dir: Some(data_dir.to_owned()) };
    let serve = config::ServeArgs {
        public_url: Some("https://papers.example.org".into()),
        support_email: Some("help@papers.example.org".into()),
        harvest_sources: Some(vec!["none".into()]),
        live_search: Some(false),
        ..config::ServeArgs::default()
    };
    config::resolve(config::FileConfig::default(), &common, &serve)
}

/// The bytes this process has caused to be written to disk (`write_bytes` of `/proc/self/io`).
fn written_bytes() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines().find_map(|line| line.strip_prefix("write_bytes:")).and_then(|value| value.trim().parse().ok())
}

/// Monday (every plan's possible delivery day) at [`HOUR`], on or after `from`'s date.
pub(crate) fn next_monday(from: DateTime<Utc>) -> DateTime<Utc> {
    let today = from.date_naive();
    let monday = today + Duration::days(i64::from((7 - today.weekday().num_days_from_monday()) % 7));
    Utc.from_utc_datetime(&monday.and_hms_opt(HOUR, 0, 0).unwrap_or_default())
}

pub(crate) fn build_index(index: &PaperIndex, papers: usize, entered: chrono::NaiveDate) -> anyhow::Result<()> {
    build_index_range(index, 0..papers, entered)
}

/// Indexes the generated papers numbered `numbers` (each number one distinct work), all
/// entered on `entered`.
pub(crate) fn build_index_range(index: &PaperIndex, numbers: std::ops::Range<usize>, entered: chrono::NaiveDate) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().unwrap_or(std::num::NonZeroUsize::MIN);
    let mut writer = index.writer_with_threads(256 * 1024 * 1024, threads)?;
    for first in numbers.clone().step_by(INDEX_PART) {
        for body in workload::build_week_part(first, INDEX_PART.min(numbers.end - first)).bodies {
            for mut paper in parse_any(&body).1.items {
                paper.entered = Some(entered);
                writer.upsert(paper)?;
            }
        }
        // A commit per part: the writer holds its uncommitted works in memory.
        writer.commit()?;
    }
    Ok(())
}

/// Pro users (3 terms fit their plan), three in four reading PubMed only and the rest every
/// source, all delivered on Monday, signed up a month before (a new account's first weekly
/// digest waits a few days).
pub(crate) fn create_users(store: &Store, users: usize, now: DateTime<Utc>) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..threads).map(|part| scope.spawn(move || create_user_range(store, (part..users).step_by(threads), now))).collect();
        parts.into_iter().try_for_each(|part| part.join().map_err(|_| anyhow::anyhow!("a signup thread panicked"))?)
    })
}

fn create_user_range(store: &Store, numbers: impl Iterator<Item = usize>, now: DateTime<Utc>) -> anyhow::Result<()> {
    let signed_up = now - Duration::days(30);
    for number in numbers {
        let mut user = User::new(UserId(Uuid::new_v4()), &format!("user{number}@bench.example.org"), String::new(), signed_up);
        user.is_email_verified = true;
        user.subscription_tier = Tier::Pro;
        let every_source = number % 4 == 0;
        let preferences = Preferences { include_arxiv: every_source, include_biorxiv: every_source, ..Preferences::default() };
        let user = store.accounts().create(NewAccount { user, preferences, verification: None, mail: None }, now)?;
        for offset in 0..3 {
            let text = TOPICS[(number * 3 + offset) % TOPICS.len()];
            let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, text.to_owned(), Tier::Pro, now);
            store.terms().add(&term, Tier::Pro, false)?;
        }
    }
    Ok(())
}

/// Renders every queued digest mail, as the mailer does when it sends, on `workers` threads that
/// take the queue in chunks as they read it (a million users' queue is never held whole); returns
/// the papers the digests hold.
fn render_queue(store: &Store, digester: &Digester, workers: usize) -> anyhow::Result<usize> {
    const CHUNK: usize = 256;
    let queue = std::sync::Mutex::new(store.mail().queued_iter());
    let next_chunk = || -> anyhow::Result<Vec<store::QueuedMail>> {
        let mut queue = queue.lock().map_err(|_| anyhow::anyhow!("a render thread panicked"))?;
        Ok(queue.by_ref().take(CHUNK).collect::<Result<_, _>>()?)
    };
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..workers.max(1))
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<usize> {
                    let mut papers = 0;
                    loop {
                        let chunk = next_chunk()?;
                        if chunk.is_empty() {
                            return Ok(papers);
                        }
                        for mail in chunk {
                            let reference = mail.digest.as_ref().context("a digest mail")?;
                            let digest = store.digests().digest_at(&reference.digest_key)?.context("the queued digest")?;
                            let user = store.accounts().user(reference.user_id)?.context("the digest's user")?;
                            let rendered = digester.render(&user, &mail.mail.to, &digest)?;
                            anyhow::ensure!(!rendered.html.is_empty() && !rendered.text.is_empty(), "an empty mail");
                            papers += digest.papers_data.len();
                        }
                    }
                })
            })
            .collect();
        parts.into_iter().map(|part| part.join().map_err(|_| anyhow::anyhow!("a render thread panicked"))?).sum()
    })
}
