//! The operator's `papertide users ...` and `papertide weekly` commands. The `users` commands
//! go through the running service's socket when one answers on the data directory
//! ([`crate::local`]: the same operator routes as the console), and otherwise open the database
//! directly (sled allows one process at a time). `weekly` needs the service stopped.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use chrono::{DateTime, Utc};
use engine::account::normalize_email;
use engine::Tier;
use serde::de::DeserializeOwned;
use serde::Serialize;
use store::{Store, StoreError};

use crate::wire::admin::{AdminBilling, AdminDisabledRequest, AdminOperatorRequest, AdminPlanRequest, AdminUser, AdminUserPage};
use crate::wire::backup::{BackupReport, BackupRequest};

/// One line of `papertide users list`.
struct UserRow {
    email: String,
    tier: String,
    verified: bool,
    admin: bool,
    active: bool,
    created_at: DateTime<Utc>,
}

pub fn list_users(data_dir: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    let rows = match service_users(data_dir, None)? {
        Some(users) => users.into_iter().map(|user| row_of_admin_user(&user)).collect(),
        None => open(data_dir)?.accounts().users()?.iter().map(row_of_user).collect::<Vec<UserRow>>(),
    };
    writeln!(out, "{:<40} {:<5} {:<8} {:<5} {:<8} CREATED", "EMAIL", "TIER", "VERIFIED", "ADMIN", "ACTIVE")?;
    for row in &rows {
        writeln!(
            out,
            "{:<40} {:<5} {:<8} {:<5} {:<8} {}",
            row.email,
            row.tier,
            yes_no(row.verified),
            yes_no(row.admin),
            yes_no(row.active),
            row.created_at.format("%Y-%m-%d %H:%M UTC"),
        )?;
    }
    writeln!(out, "{} account(s)", rows.len())?;
    Ok(())
}

/// Puts an account on a plan by hand, turning its terms off or back on to fit the plan. With
/// billing on, Stripe decides plans: the change is made, with a warning that the next event of
/// the user's subscription (or a repair from the debug page) sets the plan Stripe proves.
/// `billing_on` is this command's configuration; a running service says for itself.
pub fn set_tier(data_dir: &Path, email: &str, tier: &str, billing_on: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let tier: Tier = tier.parse()?;
    const WARNING: &str = "warning: billing is on, and Stripe is the source of truth for plans: the next event of this account's subscription, or a repair from /debug-subscription, sets the plan its payments prove";
    if let Some(user) = service_user(data_dir, email)? {
        let billing: AdminBilling = service_call(data_dir, "GET", "/api/admin/billing", NO_BODY)?;
        if billing.enabled {
            writeln!(out, "{WARNING}")?;
        }
        let path = format!("/api/admin/users/{}/plan", user.id);
        let changed: AdminUser = service_call(data_dir, "POST", &path, Some(&AdminPlanRequest { plan: tier.to_string() }))?;
        writeln!(out, "{} is now on the {} plan", changed.email, plan_name(&changed))?;
        return Ok(());
    }
    let store = open(data_dir)?;
    let user = store.accounts().user_by_email(email)?.ok_or_else(|| no_account(email))?;
    if billing_on {
        writeln!(out, "{WARNING}")?;
    }
    let user = store.billing().set_plan(user.id, tier).map_err(not_found(email))?;
    store.flush()?;
    writeln!(out, "{} is now on the {} plan", user.email, user.subscription_tier)?;
    Ok(())
}

pub fn grant_admin(data_dir: &Path, email: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let email = set_operator(data_dir, email, true)?;
    writeln!(out, "{email} is now an operator")?;
    Ok(())
}

/// Takes back the operator flag `grant-admin` gave. An address in `PAPERTIDE_ADMIN_EMAILS`
/// stays an operator by the settings; the running service refuses to pretend otherwise.
pub fn revoke_admin(data_dir: &Path, email: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let email = set_operator(data_dir, email, false)?;
    writeln!(out, "{email} is no longer an operator")?;
    Ok(())
}

/// Disables an account (it cannot sign in, and is signed out everywhere) or enables it again.
pub fn set_disabled(data_dir: &Path, email: &str, disabled: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let email = match service_user(data_dir, email)? {
        Some(user) => {
            let path = format!("/api/admin/users/{}/disabled", user.id);
            let changed: AdminUser = service_call(data_dir, "POST", &path, Some(&AdminDisabledRequest { disabled }))?;
            changed.email
        }
        None => {
            let store = open(data_dir)?;
            let user = store.accounts().user_by_email(email)?.ok_or_else(|| no_account(email))?;
            let user = store.accounts().set_disabled(user.id, disabled).map_err(not_found(email))?;
            store.flush()?;
            user.email
        }
    };
    if disabled {
        writeln!(out, "{email} is now disabled: signed out everywhere, and cannot sign in")?;
    } else {
        writeln!(out, "{email} is enabled again")?;
    }
    Ok(())
}

/// Sets the stored operator flag of `email`'s account, through the running service or the
/// database; answers the account's email.
fn set_operator(data_dir: &Path, email: &str, operator: bool) -> anyhow::Result<String> {
    if let Some(user) = service_user(data_dir, email)? {
        let path = format!("/api/admin/users/{}/operator", user.id);
        let changed: AdminUser = service_call(data_dir, "POST", &path, Some(&AdminOperatorRequest { operator }))?;
        return Ok(changed.email);
    }
    let store = open(data_dir)?;
    let user = store.accounts().update_user_by_email(email, |user| user.is_admin = operator).map_err(not_found(email))?;
    store.flush()?;
    Ok(user.email)
}

/// Every account of the service running on `data_dir` whose email contains `search` (all:
/// `None`), oldest first; `None` when no service runs there.
fn service_users(data_dir: &Path, search: Option<&str>) -> anyhow::Result<Option<Vec<AdminUser>>> {
    let mut users = Vec::new();
    for page in 1u32.. {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("page", &page.to_string());
        if let Some(search) = search {
            query.append_pair("q", search);
        }
        let path = format!("/api/admin/users?{}", query.finish());
        let Some(page): Option<AdminUserPage> = service_request(data_dir, "GET", &path, NO_BODY)? else {
            return Ok(None);
        };
        let is_last = page.users.len() < page.page_size as usize || users.len() + page.users.len() >= page.total as usize;
        users.extend(page.users);
        if is_last {
            break;
        }
    }
    Ok(Some(users))
}

/// The account of `email` on the service running on `data_dir` (an error when it has none);
/// `None` when no service runs there.
fn service_user(data_dir: &Path, email: &str) -> anyhow::Result<Option<AdminUser>> {
    let normalized = normalize_email(email);
    let Some(users) = service_users(data_dir, Some(&normalized))? else {
        return Ok(None);
    };
    let user = users.into_iter().find(|user| user.email == normalized).ok_or_else(|| no_account(email))?;
    Ok(Some(user))
}

/// The body of a request that has none.
const NO_BODY: Option<&()> = None;

/// A request to the running service that must succeed; its answer, as the route's wire type.
fn service_call<T: DeserializeOwned>(data_dir: &Path, method: &str, path: &str, body: Option<&impl Serialize>) -> anyhow::Result<T> {
    service_request(data_dir, method, path, body)?.context("the service stopped while the command ran; run it again")
}

/// A request to the service on `data_dir`'s socket: its answer (as the route's wire type) when
/// it succeeded, an error with the service's message when it did not, `None` when no service
/// runs there. The command line is not async: the request runs on a runtime of its own.
fn service_request<T: DeserializeOwned>(data_dir: &Path, method: &str, path: &str, body: Option<&impl Serialize>) -> anyhow::Result<Option<T>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("a runtime for the socket's client")?;
    let Some(answer) = runtime.block_on(crate::local::request(data_dir, method, path, body))? else {
        return Ok(None);
    };
    if !answer.is_success() {
        anyhow::bail!("{}", answer.refusal());
    }
    answer.read().map(Some)
}

fn row_of_user(user: &store::User) -> UserRow {
    UserRow {
        email: user.email.clone(),
        tier: user.subscription_tier.to_string(),
        verified: user.is_email_verified,
        admin: user.is_admin,
        active: user.is_active,
        created_at: user.created_at,
    }
}

fn row_of_admin_user(user: &AdminUser) -> UserRow {
    UserRow {
        email: user.email.clone(),
        tier: plan_name(user),
        verified: user.verified,
        admin: user.operator_granted,
        active: !user.disabled,
        created_at: user.created_at,
    }
}

/// The plan as the command line has always written it (`free`, `pro`, `team`).
fn plan_name(user: &AdminUser) -> String {
    serde_json::to_value(user.plan).ok().and_then(|value| value.as_str().map(str::to_owned)).unwrap_or_default()
}

fn no_account(email: &str) -> anyhow::Error {
    anyhow::anyhow!("no account with email {email}")
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
        StoreError::UserNotFound => no_account(email),
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

/// `papertide backup DEST`: copies the data directory's database and index into DEST (a new or
/// empty folder outside the data directory, made owner-only) with a manifest, and says what it
/// copied; the running service makes the copy when one runs.
pub fn backup(data_dir: &Path, dest: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    // A running service makes the copy itself (its writes wait for the database's copy); the
    // socket's requests are the local operator's.
    let dest = std::path::absolute(dest).with_context(|| format!("resolving {}", dest.display()))?;
    runtime::backup::check_outside_data_dir(&dest, data_dir)?;
    let request = BackupRequest { dest: Some(dest.display().to_string()) };
    if let Some(report) = service_request::<BackupReport>(data_dir, "POST", "/api/admin/backup", Some(&request))? {
        return print_backup(&report, out);
    }
    if !data_dir.join("db").try_exists().with_context(|| format!("looking for the database in {}", data_dir.display()))? {
        anyhow::bail!("no database in {}: nothing to back up (pass --data-dir?)", data_dir.display());
    }
    let report = match runtime::backup::backup_stopped(data_dir, &dest) {
        Err(error) if matches!(error.downcast_ref::<StoreError>(), Some(StoreError::Locked { .. })) => {
            anyhow::bail!(
                "the database in {} is open in another process that does not answer on its socket; stop it and run the backup again",
                data_dir.display()
            )
        }
        other => other?,
    };
    print_backup(&report.into(), out)
}

/// Says what a backup copied.
pub fn print_backup(report: &BackupReport, out: &mut impl Write) -> anyhow::Result<()> {
    writeln!(out, "backup written to {}", report.path)?;
    writeln!(out, "  database: {} ({} account(s))", megabytes(report.store_bytes), report.users)?;
    writeln!(out, "  index:    {} ({} paper(s))", megabytes(report.index_bytes), report.papers)?;
    writeln!(out, "  {} files, manifest.json lists each with its SHA-256; took {:.1} s", report.files, report.took_ms as f64 / 1000.0)?;
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
