//! What must hold after every kill, read from the data directory while no process runs (the
//! database and the index exactly as the next start finds them), and from maildev.
//!
//! - every account, verification, term and digest acknowledged to a user is there;
//! - every plan change acknowledged is the user's plan (unless a later change is in doubt);
//! - no user has two weekly digests of one term in one week (a redone pass repeats nothing);
//! - every mail ever seen queued is delivered in the end, and none twice (by Message-ID); the
//!   one exception a kill may make is a mail it interrupted while it was going to the SMTP
//!   server, which the next start keeps aside as dead mail instead of sending it again (it may
//!   or may not have arrived, but never twice);
//! - the index opens, holds each work once, and holds every paper of the days a source's cursor
//!   covers and every paper a stored digest sent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, ensure, Context};
use chrono::Datelike;
use engine::dedup::DedupKey;
use engine::paper::Source;
use serde_json::Value;

use super::server::{db_dir, index_dir};
use super::workload::{recipient, User, VERIFY_SUBJECT};

/// A queued mail seen in the database: it must arrive, once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct QueuedSeen {
    /// The start of its Message-ID, `<papertide.ID.ENQUEUED_SECS@`.
    pub message_id_prefix: String,
    pub to: String,
    pub subject: String,
}

/// The recorded papers the replay server serves, by source: each must be in the index once the
/// source's cursor covers a day.
pub struct Fixtures {
    pub works: BTreeMap<Source, Vec<Vec<DedupKey>>>,
}

/// What the checks learned, kept across kills.
#[derive(Default)]
pub struct Observed {
    /// Every digest acknowledged or once seen stored, by its user's email.
    pub digests: BTreeMap<String, BTreeSet<String>>,
    pub queued: BTreeSet<QueuedSeen>,
    pub checks_passed: u64,
}

/// The database and index checks, after a kill. Settles what was in doubt (an account that
/// exists, a verification that went through) from what the database holds.
pub fn check_data_dir(data_dir: &Path, users: &mut [User], fixtures: &Fixtures, observed: &mut Observed) -> anyhow::Result<()> {
    let store = store::Store::open(&db_dir(data_dir)).context("the database opens after the kill")?;
    for user in users.iter_mut() {
        check_user(&store, user, observed)?;
    }
    for queued in store.mail().due(chrono::Utc::now() + chrono::Duration::days(3650), usize::MAX)? {
        observed.queued.insert(QueuedSeen {
            message_id_prefix: format!("<papertide.{}.{}@", queued.id, queued.enqueued_at.timestamp()),
            to: queued.mail.to.to_lowercase(),
            subject: queued.mail.subject.clone(),
        });
    }
    observed.checks_passed += 1;
    check_index(data_dir, &store, fixtures)?;
    observed.checks_passed += 1;
    Ok(())
}

fn check_user(store: &store::Store, user: &mut User, observed: &mut Observed) -> anyhow::Result<()> {
    let stored = store.accounts().user_by_email(&user.email)?;
    let Some(stored) = stored else {
        ensure!(!user.signed_up, "lost account: {} was acknowledged (201) and is gone", user.email);
        // The unanswered signup never happened: the user signs up again.
        user.signup_in_doubt = false;
        return Ok(());
    };
    user.signed_up = true;
    user.signup_in_doubt = false;
    ensure!(stored.is_email_verified || !user.verified, "lost verification: {} was verified and is not", user.email);
    user.verified = stored.is_email_verified;
    observed.checks_passed += 2;

    let terms = store.terms().of_user(stored.id)?;
    for term in &user.terms {
        ensure!(terms.iter().any(|stored| stored.term.eq_ignore_ascii_case(term)), "lost term: {term:?} of {}", user.email);
    }
    observed.checks_passed += 1;

    let digests = store.digests().of_user(stored.id)?;
    let ids: BTreeSet<String> = digests.iter().map(|digest| digest.id.to_string()).collect();
    let known = observed.digests.entry(user.email.clone()).or_default();
    known.extend(user.digests.iter().cloned());
    if let Some(lost) = known.difference(&ids).next() {
        bail!("lost digest {lost} of {}: acknowledged or stored before, gone now", user.email);
    }
    known.extend(ids);
    let mut weekly = BTreeMap::new();
    for digest in digests.iter().filter(|digest| digest.digest_type == engine::digest::DigestKind::Weekly) {
        let week = digest.sent_at.date_naive().iso_week();
        *weekly.entry((digest.search_term.to_lowercase(), week.year(), week.week())).or_insert(0) += 1;
    }
    if let Some(((term, year, week), count)) = weekly.iter().find(|(_, count)| **count > 1) {
        bail!("{count} weekly digests of {term:?} for {} in week {week} of {year}: a redone pass repeated one", user.email);
    }
    observed.checks_passed += 2;

    let settled = !user.plan_in_doubt && user.pending_event.is_none();
    let tier = stored.subscription_tier.as_str();
    if settled {
        ensure!(tier == user.plan.as_str(), "lost plan change: {} was told {} and the database says {tier}", user.email, user.plan.as_str());
        observed.checks_passed += 1;
    }
    Ok(())
}

/// The index as the next start opens it: each work once, the days behind each cursor indexed,
/// every paper a digest sent indexed.
fn check_index(data_dir: &Path, store: &store::Store, fixtures: &Fixtures) -> anyhow::Result<()> {
    let index = index::PaperIndex::open_or_create(&index_dir(data_dir)).context("the index opens after the kill")?;
    let mut found = 0u64;
    for (source, works) in &fixtures.works {
        let covered = store.papers().harvest_state(*source)?.cursor.is_some();
        for keys in works {
            let mut present = false;
            for key in keys {
                present |= index.find(key)?.is_some();
            }
            ensure!(present || !covered, "{source:?}'s cursor covers its days, and its paper {:?} is not in the index", keys.first());
            found += u64::from(present);
        }
    }
    let count = index.paper_count()?;
    ensure!(count == found, "the index holds {count} works for {found} distinct recorded papers: a work is there twice");
    for user in store.accounts().users()? {
        for digest in store.digests().of_user(user.id)? {
            for entry in &digest.papers_data {
                let mut present = false;
                for key in &entry.keys {
                    present |= match DedupKey::parse(key) {
                        Some(key) => index.find(&key)?.is_some(),
                        None => false,
                    };
                }
                ensure!(present, "digest {} sent {:?}, which is not in the index", digest.id, entry.title);
            }
        }
    }
    Ok(())
}

/// Mail as maildev received it.
pub struct MailBox {
    pub mails: Vec<Value>,
}

impl MailBox {
    /// Message-IDs that arrived more than once, with how often.
    pub fn repeated_message_ids(&self) -> BTreeMap<String, usize> {
        let mut seen = BTreeMap::new();
        for mail in &self.mails {
            *seen.entry(message_id(mail)).or_insert(0) += 1;
        }
        seen.into_iter().filter(|(_, count)| *count > 1).collect()
    }

    /// The mails seen queued that never arrived.
    pub fn missing<'a>(&self, queued: impl IntoIterator<Item = &'a QueuedSeen>) -> Vec<QueuedSeen> {
        let ids: Vec<String> = self.mails.iter().map(message_id).collect();
        queued.into_iter().filter(|queued| !ids.iter().any(|id| id.starts_with(&queued.message_id_prefix))).cloned().collect()
    }

    fn to(&self, email: &str) -> Vec<&Value> {
        let email = email.to_lowercase();
        let mut distinct = BTreeMap::new();
        for mail in self.mails.iter().filter(|mail| recipient(mail) == email) {
            distinct.entry(message_id(mail)).or_insert(mail);
        }
        distinct.into_values().collect()
    }
}

pub fn message_id(mail: &Value) -> String {
    let header = mail["headers"]["message-id"].as_str().or_else(|| mail["messageId"].as_str()).unwrap_or_default();
    let trimmed = header.trim();
    if trimmed.starts_with('<') {
        trimmed.to_owned()
    } else {
        format!("<{trimmed}>")
    }
}

/// The end of the run, everything delivered and the server stopped: each user got exactly the
/// mails the database says were queued for them, once each.
/// Answers how many mails a kill interrupted on their way to the SMTP server (kept aside, never
/// sent again), and how many of those never arrived.
pub fn check_final_mail(data_dir: &Path, users: &[User], mailbox: &MailBox, observed: &mut Observed) -> anyhow::Result<(usize, usize)> {
    let store = store::Store::open(&db_dir(data_dir)).context("the database opens at the end")?;
    ensure!(store.mail().queue_len() == 0, "{} mails still queued at the end", store.mail().queue_len());
    let mut interrupted = Vec::new();
    for dead in store.mail().dead()? {
        let reason = dead.last_error.as_deref().unwrap_or_default();
        ensure!(reason == store::MSG_HAND_OVER_INTERRUPTED, "mail {} to {} given up: {reason}", dead.id, dead.mail.to);
        interrupted.push(QueuedSeen {
            message_id_prefix: format!("<papertide.{}.{}@", dead.id, dead.enqueued_at.timestamp()),
            to: dead.mail.to.to_lowercase(),
            subject: dead.mail.subject.clone(),
        });
    }
    let interrupted_missing = mailbox.missing(&interrupted);
    let missing: Vec<QueuedSeen> = mailbox.missing(&observed.queued).into_iter().filter(|queued| !interrupted_missing.contains(queued)).collect();
    ensure!(missing.is_empty(), "lost queued mail: {} never arrived, e.g. {:?}", missing.len(), missing.first());
    for user in users {
        let Some(stored) = store.accounts().user_by_email(&user.email)? else {
            ensure!(mailbox.to(&user.email).is_empty(), "mail to {}, who has no account", user.email);
            continue;
        };
        let mails = mailbox.to(&user.email);
        // A mail a kill interrupted and that never arrived counts as sent: it was on its way.
        let email_lowercase = user.email.to_lowercase();
        let subjects: Vec<&str> = mails
            .iter()
            .map(|mail| mail["subject"].as_str().unwrap_or_default())
            .chain(interrupted_missing.iter().filter(|queued| queued.to == email_lowercase).map(|queued| queued.subject.as_str()))
            .collect();
        let count = |wanted: &dyn Fn(&str) -> bool| subjects.iter().filter(|subject| wanted(subject)).count();
        let verification = count(&|subject| subject == VERIFY_SUBJECT);
        let welcome = count(&|subject| subject == "Welcome to Papertide");
        let digests = count(&|subject| subject.starts_with("Papertide: "));
        let plans =
            count(&|subject| subject.starts_with("Your Papertide ") && (subject.ends_with("plan is active") || subject.ends_with("plan has ended")));
        let used_up = count(&|subject| subject == "Your free Papertide digests are used up");
        let email = &user.email;
        ensure!(verification == 1, "{email} got {verification} verification mails");
        ensure!(welcome == usize::from(stored.is_email_verified), "{email} got {welcome} welcome mails");
        let stored_digests = store.digests().of_user(stored.id)?.len();
        ensure!(digests == stored_digests, "{email} got {digests} digest mails for {stored_digests} stored digests");
        let (least, most) = (user.plan_changes_acknowledged as usize, user.plan_changes_attempted as usize);
        ensure!((least..=most).contains(&plans), "{email} got {plans} plan mails for {least} acknowledged and {most} attempted changes");
        ensure!(used_up <= 1, "{email} was told {used_up} times that the free digests are used up");
        let known = verification + welcome + digests + plans + used_up;
        ensure!(known == subjects.len(), "{email} got mail of no kind the scenario knows: {subjects:?}");
        observed.checks_passed += 6;
    }
    Ok((interrupted.len(), interrupted_missing.len()))
}
