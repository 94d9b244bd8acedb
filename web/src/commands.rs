//! The operator's `papertide users ...` and `papertide weekly` commands. They open the database
//! directly, so the service must be stopped (sled allows one process at a time; the error says
//! so).

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use engine::Tier;
use store::{Store, StoreError};

pub fn list_users(data_dir: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    let store = open(data_dir)?;
    let users = store.users()?;
    writeln!(out, "{:<40} {:<5} {:<8} {:<5} {:<8} CREATED", "EMAIL", "TIER", "VERIFIED", "ADMIN", "ACTIVE")?;
    for user in &users {
        writeln!(
            out,
            "{:<40} {:<5} {:<8} {:<5} {:<8} {}",
            user.email,
            user.subscription_tier,
            yes_no(user.is_email_verified),
            yes_no(user.is_admin),
            yes_no(user.is_active),
            user.created_at.format("%Y-%m-%d %H:%M UTC"),
        )?;
    }
    writeln!(out, "{} account(s)", users.len())?;
    Ok(())
}

/// Puts an account on a plan by hand, turning its terms off or back on to fit the plan. With
/// billing on, Stripe decides plans: the change is made, with a warning that the next event of
/// the user's subscription (or a repair from the debug page) sets the plan Stripe proves.
pub fn set_tier(data_dir: &Path, email: &str, tier: &str, billing_on: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let tier: Tier = tier.parse()?;
    let store = open(data_dir)?;
    let user = store.user_by_email(email)?.ok_or_else(|| anyhow::anyhow!("no account with email {email}"))?;
    if billing_on {
        writeln!(
            out,
            "warning: billing is on, and Stripe is the source of truth for plans: the next event of this account's subscription, or a repair from /debug-subscription, sets the plan its payments prove"
        )?;
    }
    let user = store.set_plan(user.id, tier).map_err(not_found(email))?;
    store.flush()?;
    writeln!(out, "{} is now on the {} plan", user.email, user.subscription_tier)?;
    Ok(())
}

pub fn grant_admin(data_dir: &Path, email: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let store = open(data_dir)?;
    let user = store.update_user_by_email(email, |user| user.is_admin = true).map_err(not_found(email))?;
    store.flush()?;
    writeln!(out, "{} is now an operator", user.email)?;
    Ok(())
}

fn open(data_dir: &Path) -> anyhow::Result<Store> {
    let path = data_dir.join("db");
    if !path.try_exists().with_context(|| format!("looking for the database in {}", data_dir.display()))? {
        anyhow::bail!("no database in {}: start the service once, or pass --data-dir", data_dir.display());
    }
    Store::open(&path).context("opening the database")
}

fn not_found(email: &str) -> impl FnOnce(StoreError) -> anyhow::Error + '_ {
    move |error| match error {
        StoreError::UserNotFound => anyhow::anyhow!("no account with email {email}"),
        other => other.into(),
    }
}

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

/// `papertide weekly [--at TIME]`: the scheduler's weekly pass, once, in the foreground, as of
/// `at` (now by default): every user whose weekly digest is due then gets it (their delivery day,
/// from the digest hour, the free plan's rules), exactly as the running service would. The
/// digests are stored with their mails queued; the next `papertide serve` sends them. For an
/// operator who had the service down through a delivery day, and for tests of the schedule.
pub async fn run_weekly(settings: &crate::config::Settings, at: chrono::DateTime<chrono::Utc>, out: &mut impl Write) -> anyhow::Result<()> {
    // Ranked as the service ranks: by meaning as well, with the vectors its `Vectorizer` made.
    let system = runtime::System::start(settings, runtime::Options::command())?;
    let sent = actors::scheduler::serve_due_users(&system.store, &system.users, at, settings.digest_hour).await?;
    system.shutdown().await?;
    writeln!(out, "weekly pass as of {}: {sent} digest(s) built; their mails go out when papertide serve runs", at.format("%Y-%m-%d %H:%M UTC"))?;
    Ok(())
}

/// `papertide backup DEST` beside a stopped service: copies the data directory's database and
/// index into DEST (a new or empty folder) with a manifest, and says what it copied.
pub fn backup(data_dir: &Path, dest: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    if !data_dir.join("db").try_exists().with_context(|| format!("looking for the database in {}", data_dir.display()))? {
        anyhow::bail!("no database in {}: nothing to back up (pass --data-dir?)", data_dir.display());
    }
    let report = match runtime::backup::backup_stopped(data_dir, dest) {
        Err(error) if matches!(error.downcast_ref::<StoreError>(), Some(StoreError::Locked { .. })) => {
            anyhow::bail!(
                "the service is running: its database in {} is open; stop it, or ask the running service for a backup (POST /api/admin/backup)",
                data_dir.display()
            )
        }
        other => other?,
    };
    print_backup(&report, out)
}

/// Says what a backup copied.
pub fn print_backup(report: &runtime::backup::BackupReport, out: &mut impl Write) -> anyhow::Result<()> {
    writeln!(out, "backup written to {}", report.path.display())?;
    writeln!(out, "  database: {} ({} account(s))", megabytes(report.store_bytes), report.users)?;
    writeln!(out, "  index:    {} ({} paper(s))", megabytes(report.index_bytes), report.papers)?;
    writeln!(out, "  {} files, manifest.json lists each with its SHA-256; took {:.1} s", report.files, report.took.as_secs_f64())?;
    Ok(())
}

/// `papertide restore SRC`: checks the backup at SRC and puts it in place in the data directory
/// (see `runtime::backup::restore`), and says what it restored.
pub fn restore(src: &Path, data_dir: &Path, force: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let restored = runtime::backup::restore(src, data_dir, force)?;
    let manifest = &restored.manifest;
    if let Some(aside) = &restored.moved_aside {
        writeln!(out, "the former database and index were moved to {}", aside.display())?;
    }
    writeln!(out, "restored the backup of {} into {}", manifest.created_at.format("%Y-%m-%d %H:%M:%S UTC"), data_dir.display())?;
    writeln!(
        out,
        "  {} files checked against their SHA-256, {}; {} account(s), {} paper(s); made by papertide {}",
        manifest.files.len(),
        megabytes(restored.bytes),
        manifest.users,
        manifest.papers,
        manifest.papertide_version
    )?;
    writeln!(out, "mail that was queued when the backup was made goes out when the service starts")?;
    Ok(())
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}
