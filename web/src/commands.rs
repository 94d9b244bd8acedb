//! The operator's `papertide users ...` commands. They open the database directly, so the
//! service must be stopped (sled allows one process at a time; the error says so).

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

pub fn set_tier(data_dir: &Path, email: &str, tier: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let tier: Tier = tier.parse()?;
    let store = open(data_dir)?;
    let user = store.update_user_by_email(email, |user| user.subscription_tier = tier).map_err(not_found(email))?;
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
    if !path.exists() {
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
