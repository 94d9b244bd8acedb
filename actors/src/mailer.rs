//! The mailer: the one owner of the mail transport. It drains the durable queue in order,
//! hands each mail to SMTP or writes it to the outbox, and only then removes it from the queue.
//!
//! Delivery guarantee: a mail leaves the queue only after the transport accepted it, and that
//! removal is flushed before the next mail goes, so a crash loses no mail. A crash never sends
//! a mail twice: each step is journalled with one `write`, which a killed process cannot lose
//! (`store::sent_journal`): the moment the message goes to the SMTP server
//! (`Mail::mark_handing_over`), a failure (`Mail::mark_not_handed_over`), and the
//! acceptance (`Mail::mark_sent`). A process killed between the first and the last may
//! or may not have delivered that one mail: the next start keeps it aside, as dead mail with
//! that reason, instead of sending it again (a power cut: the flush is what counts). A retry
//! after an error carries the same `Message-ID` (derived from the queue id), and in outbox mode
//! it rewrites the same file, so no recipient sees two different messages.
//!
//! The outbox is the mailer's: an account's deletion is closed here
//! ([`close_account_deletions`]), which removes the outbox's files to the address before the
//! store queues the confirmation.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use actix::prelude::*;
use chrono::{DateTime, Utc};
use engine::account::normalize_email;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::Message;
use store::{QueuedMail, Store};

use crate::DigestRenderer;

use crate::error::MailError;
use crate::smtp::{SmtpClient, SmtpServer};
use crate::status::StatusBoard;

pub const ACTOR_NAME: &str = "mailer";
const MAILBOX_CAPACITY: usize = 16;

/// Where mail goes.
#[derive(Clone)]
pub enum MailTransport {
    /// A real SMTP server (plain, STARTTLS or TLS, with credentials), from a URL such as
    /// `smtp://user:pass@host:587?tls=required` or `smtps://host:465` (see [`SmtpClient`]).
    Smtp(Arc<SmtpClient>),
    /// No SMTP configured: every mail becomes an `.eml` file in this directory.
    Outbox(PathBuf),
}

impl MailTransport {
    /// An SMTP transport from a connection URL; rejects URLs it cannot use.
    pub fn smtp_from_url(url: &str, timeout: Duration) -> Result<MailTransport, MailError> {
        MailTransport::smtp(url, None, timeout)
    }

    /// Like [`MailTransport::smtp_from_url`], but TLS (either `smtps://` or STARTTLS with
    /// `?tls=required|opportunistic`) also trusts the PEM certificate `extra_root_pem`: for mail
    /// servers with a private CA.
    pub fn smtp_from_url_with_root(url: &str, extra_root_pem: &[u8], timeout: Duration) -> Result<MailTransport, MailError> {
        MailTransport::smtp(url, Some(extra_root_pem), timeout)
    }

    fn smtp(url: &str, extra_root_pem: Option<&[u8]>, timeout: Duration) -> Result<MailTransport, MailError> {
        Ok(MailTransport::Smtp(Arc::new(SmtpClient::new(SmtpServer::from_url(url, extra_root_pem, timeout)?))))
    }

    pub fn describe(&self) -> String {
        match self {
            MailTransport::Smtp(_) => "smtp".to_owned(),
            MailTransport::Outbox(dir) => format!("outbox {}", dir.display()),
        }
    }
}

/// Parses a sender such as `Papertide <noreply@example.org>`.
pub fn parse_mailbox(text: &str) -> Result<Mailbox, MailError> {
    text.parse().map_err(|error| MailError::Permanent(format!("invalid address {text:?}: {error}")))
}

/// How the mailer behaves; every knob in one place.
#[derive(Debug, Clone)]
pub struct MailerConfig {
    pub from: Mailbox,
    /// The right-hand side of generated `Message-ID`s (the public URL's host).
    pub message_id_domain: String,
    /// How often the queue is checked even when nobody pokes the mailer.
    pub poll_interval: Duration,
    /// Mails handed over per drain before yielding to other messages.
    pub batch_size: usize,
    pub retry_base: Duration,
    pub retry_cap: Duration,
    /// After this many failed attempts a mail is moved to the dead-letter tree.
    pub max_attempts: u32,
    /// Renders queued digest mails (queued as a reference to the stored digest).
    pub digests: Option<DigestRenderer>,
}

impl MailerConfig {
    pub fn new(from: Mailbox, message_id_domain: String) -> MailerConfig {
        MailerConfig {
            from,
            message_id_domain,
            poll_interval: Duration::from_secs(5),
            batch_size: 50,
            retry_base: Duration::from_secs(30),
            retry_cap: Duration::from_secs(3600),
            max_attempts: 12,
            digests: None,
        }
    }

    /// Renders queued digest mails with `renderer`.
    pub fn with_digests(mut self, renderer: DigestRenderer) -> MailerConfig {
        self.digests = Some(renderer);
        self
    }
}

/// Send what is due now. Sent by the web layer after it queues mail, and by the mailer's timer.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct DrainQueue;

/// What one drain did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrainReport {
    pub sent: u64,
    pub retried: u64,
    pub dead: u64,
    pub last_error: Option<String>,
}

pub struct Mailer {
    store: Store,
    transport: MailTransport,
    config: MailerConfig,
    board: StatusBoard,
}

impl Mailer {
    pub fn new(store: Store, transport: MailTransport, config: MailerConfig, board: StatusBoard) -> Mailer {
        Mailer { store, transport, config, board }
    }

    /// Starts the mailer under a supervisor on the current arbiter.
    pub fn start_supervised(self) -> Addr<Mailer> {
        Supervisor::start(move |_| self)
    }

    /// Records a drain. The queue is counted again (a walk of the whole queue) only when the
    /// drain emptied it of due mail: while a burst of millions of digest mails goes out batch
    /// by batch, the depth is the last count less what left the queue, so sending stays linear
    /// in the queue's length.
    fn record(&self, report: &DrainReport, burst_goes_on: bool) {
        let recounted = (!burst_goes_on).then(|| self.store.mail().queue_len() as u64);
        self.board.update(ACTOR_NAME, |status| {
            status.queue_depth = recounted.unwrap_or_else(|| status.queue_depth.saturating_sub(report.sent + report.dead));
            status.processed_total += report.sent;
            status.failed_total += report.retried + report.dead;
            if report.sent > 0 {
                status.last_success_at = Some(Utc::now());
            }
            if let Some(error) = &report.last_error {
                status.last_error_at = Some(Utc::now());
                status.last_error = Some(error.clone());
            }
        });
    }
}

impl Actor for Mailer {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.set_mailbox_capacity(MAILBOX_CAPACITY);
        match self.store.mail().make_all_due(Utc::now()) {
            Ok(0) => {}
            Ok(deferred) => tracing::info!(deferred, "retrying deferred mail now"),
            Err(error) => tracing::error!(%error, "reading the mail queue"),
        }
        ctx.run_interval(self.config.poll_interval, |_, ctx| ctx.notify(DrainQueue));
        ctx.notify(DrainQueue);
        tracing::info!(transport = %self.transport.describe(), "mailer started");
    }
}

impl Supervised for Mailer {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<DrainQueue> for Mailer {
    type Result = AtomicResponse<Self, ()>;

    fn handle(&mut self, _: DrainQueue, _: &mut Self::Context) -> Self::Result {
        let (store, transport, config) = (self.store.clone(), self.transport.clone(), self.config.clone());
        let drain = async move { drain_due_mail(&store, &transport, &config).await };
        let batch_size = self.config.batch_size as u64;
        AtomicResponse::new(Box::pin(drain.into_actor(self).map(move |report, mailer, ctx| {
            // A full batch means more may be due: go on at once instead of waiting for the timer.
            let burst_goes_on = report.sent + report.retried + report.dead >= batch_size;
            mailer.record(&report, burst_goes_on);
            if burst_goes_on {
                ctx.notify(DrainQueue);
            }
        })))
    }
}

/// Hands over every due mail (up to a batch), oldest first.
pub async fn drain_due_mail(store: &Store, transport: &MailTransport, config: &MailerConfig) -> DrainReport {
    let mut report = DrainReport::default();
    let due = match store.mail().due(Utc::now(), config.batch_size) {
        Ok(due) => due,
        Err(error) => {
            tracing::error!(%error, "reading the mail queue");
            report.last_error = Some(error.to_string());
            return report;
        }
    };
    // Producers write mail without flushing it one by one; what is sent must be durable first,
    // or a crash could lose a digest whose mail went out, and the redo would send it twice.
    if !due.is_empty() {
        if let Err(error) = store.flush_async().await {
            tracing::error!(%error, "flushing the database before sending");
            report.last_error = Some(error.to_string());
            return report;
        }
    }
    for queued in due {
        let outcome = match with_body(queued.clone(), config) {
            Ok(ready) => deliver(store, &ready, transport, config).await,
            Err(error) => Err(error),
        };
        if let Err(error) = settle(store, &queued, outcome, config, &mut report).await {
            tracing::error!(%error, mail_id = queued.id, "updating the mail queue");
            report.last_error = Some(error.to_string());
        }
    }
    report
}

/// The queued mail with its body: a digest's mail is rendered from the stored digest now.
fn with_body(mut queued: QueuedMail, config: &MailerConfig) -> Result<QueuedMail, MailError> {
    let Some(reference) = &queued.digest else { return Ok(queued) };
    let renderer = config.digests.as_ref().ok_or_else(|| MailError::Permanent("a digest mail, but no digest renderer".into()))?;
    // A digest that is gone cannot come back: the mail is given up.
    let rendered = renderer.render_queued(reference, &queued.mail.to).map_err(|error| match error {
        crate::DigestError::Missing => MailError::Permanent(error.to_string()),
        other => MailError::Transient(other.to_string()),
    })?;
    queued.mail = rendered;
    Ok(queued)
}

/// Records the outcome of one delivery in the queue (and makes it durable).
async fn settle(
    store: &Store,
    queued: &QueuedMail,
    outcome: Result<(), MailError>,
    config: &MailerConfig,
    report: &mut DrainReport,
) -> Result<(), store::StoreError> {
    match outcome {
        Ok(()) => {
            store.mail().mark_sent(queued.id)?;
            report.sent += 1;
        }
        Err(error) if error.is_permanent() || queued.attempts + 1 >= config.max_attempts => {
            tracing::error!(%error, mail_id = queued.id, to = %queued.mail.to, "mail given up");
            store.mail().move_to_dead(queued.id, &error.to_string())?;
            report.dead += 1;
            report.last_error = Some(error.to_string());
        }
        Err(error) => {
            let delay = retry_delay(config, queued.attempts + 1, queued.id);
            let next_attempt_at = Utc::now() + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::hours(1));
            tracing::warn!(%error, mail_id = queued.id, retry_in_secs = delay.as_secs(), "mail deferred");
            store.mail().mark_failed(queued.id, &error.to_string(), next_attempt_at)?;
            report.retried += 1;
            report.last_error = Some(error.to_string());
        }
    }
    store.flush_async().await
}

/// Capped exponential backoff with up to 10% jitter, spread by mail id so retries after an
/// outage do not arrive at once.
pub fn retry_delay(config: &MailerConfig, attempt: u32, mail_id: u64) -> Duration {
    let capped = engine::backoff::doubling(config.retry_base, config.retry_cap, attempt);
    let jitter_permille = (mail_id.wrapping_mul(2_654_435_761) % 100) as u32;
    capped + capped * jitter_permille / 1000
}

async fn deliver(store: &Store, queued: &QueuedMail, transport: &MailTransport, config: &MailerConfig) -> Result<(), MailError> {
    let message = build_message(queued, config)?;
    match transport {
        MailTransport::Smtp(smtp) => {
            let mut handing_over = false;
            let sent = smtp
                .send(message.envelope(), &message.formatted(), || {
                    store.mail().mark_handing_over(queued.id);
                    handing_over = true;
                })
                .await;
            if let Err(error) = sent {
                if handing_over {
                    store.mail().mark_not_handed_over(queued.id);
                }
                return Err(error);
            }
            tracing::info!(mail_id = queued.id, to = %queued.mail.to, subject = %queued.mail.subject, "mail sent");
            Ok(())
        }
        MailTransport::Outbox(dir) => write_to_outbox(dir, queued, &message.formatted()).await,
    }
}

fn build_message(queued: &QueuedMail, config: &MailerConfig) -> Result<Message, MailError> {
    let recipient: Mailbox =
        queued.mail.to.parse().map_err(|error| MailError::Permanent(format!("invalid recipient {:?}: {error}", queued.mail.to)))?;
    let message_id = format!("<papertide.{}.{}@{}>", queued.id, queued.enqueued_at.timestamp(), config.message_id_domain);
    let body = MultiPart::alternative()
        .singlepart(SinglePart::builder().header(ContentType::TEXT_PLAIN).body(queued.mail.text.clone()))
        .singlepart(SinglePart::builder().header(ContentType::TEXT_HTML).body(queued.mail.html.clone()));
    let mut builder = Message::builder()
        .from(config.from.clone())
        .to(recipient)
        .subject(queued.mail.subject.clone())
        .message_id(Some(message_id))
        .date(SystemTime::from(queued.enqueued_at));
    if let Some(url) = &queued.mail.list_unsubscribe {
        // RFC 2369 and RFC 8058: mail clients offer a one-click unsubscribe that POSTs to the URL.
        builder = builder
            .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("List-Unsubscribe"), format!("<{url}>")))
            .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("List-Unsubscribe-Post"), "List-Unsubscribe=One-Click".into()));
    }
    builder.multipart(body).map_err(|error| MailError::Permanent(format!("building the message: {error}")))
}

/// The outbox file of a queued mail; the same mail always gets the same name.
pub fn outbox_file_name(queued: &QueuedMail) -> String {
    format!("{}-{:06}.eml", outbox_stamp(queued.enqueued_at), queued.id)
}

fn outbox_stamp(at: DateTime<Utc>) -> String {
    at.format("%Y%m%dT%H%M%SZ").to_string()
}

async fn write_to_outbox(dir: &PathBuf, queued: &QueuedMail, bytes: &[u8]) -> Result<(), MailError> {
    let transient = |error: std::io::Error| MailError::Transient(format!("writing to the outbox {}: {error}", dir.display()));
    // Owner-only: a mail holds sign-in and reset links.
    tokio::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).await.map_err(transient)?;
    let name = outbox_file_name(queued);
    let final_path = dir.join(&name);
    let partial_path = dir.join(format!(".{name}.partial"));
    let (path, contents) = (partial_path.clone(), bytes.to_vec());
    let written = tokio::task::spawn_blocking(move || {
        use std::os::unix::fs::OpenOptionsExt;
        std::io::Write::write_all(&mut std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&path)?, &contents)
    });
    written.await.map_err(|join| transient(std::io::Error::other(join)))?.map_err(transient)?;
    tokio::fs::rename(&partial_path, &final_path).await.map_err(transient)?;
    match &queued.mail.action_url {
        Some(link) => {
            tracing::info!(file = %final_path.display(), to = %queued.mail.to, subject = %queued.mail.subject, %link, "mail written to outbox")
        }
        None => tracing::info!(file = %final_path.display(), to = %queued.mail.to, subject = %queued.mail.subject, "mail written to outbox"),
    }
    Ok(())
}

/// Closes every account deletion begun (`Accounts::account_deletions_to_close`): the outbox's mail
/// files to each address go, then the store closes the deletion (and queues its confirmation).
/// Run after each deletion and at every start, so one a crash interrupted is closed too.
/// Answers how many were closed.
pub fn close_account_deletions(store: &Store, outbox: &Path) -> Result<usize, store::StoreError> {
    let begun = store.accounts().account_deletions_to_close()?;
    for (user_id, email) in &begun {
        remove_outbox_mail(outbox, email);
        store.accounts().close_account_deletion(*user_id)?;
    }
    Ok(begun.len())
}

/// Removes the outbox's mail files addressed to `email`; a file that cannot be read or removed
/// is logged and left.
fn remove_outbox_mail(outbox: &Path, email: &str) {
    let entries = match std::fs::read_dir(outbox) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
        Err(error) => {
            tracing::warn!(%error, outbox = %outbox.display(), "reading the outbox to remove a deleted account's mail");
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|extension| extension.to_str()) != Some("eml") {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if is_addressed_to(&String::from_utf8_lossy(&bytes), email) {
            if let Err(error) = std::fs::remove_file(&path) {
                tracing::warn!(%error, file = %path.display(), "removing a deleted account's mail from the outbox");
            }
        }
    }
}

/// Whether the message's `To` header (folded lines included) names `email`.
fn is_addressed_to(message: &str, email: &str) -> bool {
    let email = normalize_email(email);
    let names =
        |text: &str| text.split(|c: char| c == ',' || c == '<' || c == '>' || c.is_whitespace()).any(|word| word.eq_ignore_ascii_case(&email));
    let mut in_to = false;
    for line in message.lines() {
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if in_to && names(line) {
                return true;
            }
            continue;
        }
        in_to = line.get(..3).is_some_and(|name| name.eq_ignore_ascii_case("to:"));
        if in_to && names(&line[3..]) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use engine::mail::RenderedMail;
    use store::{NewAccount, User};
    use uuid::Uuid;

    use super::*;

    fn mail_to(to: &str, subject: &str) -> RenderedMail {
        RenderedMail { to: to.into(), subject: subject.into(), html: String::new(), text: String::new(), action_url: None, list_unsubscribe: None }
    }

    #[test]
    fn a_message_is_addressed_by_its_to_header_only() {
        let to_ada = "From: papertide@example.org\r\nTo: Ada@Example.org\r\nSubject: Hi\r\n\r\nTo: bob@example.org\r\n";
        assert!(is_addressed_to(to_ada, "ada@example.org"));
        assert!(!is_addressed_to(to_ada, "bob@example.org"), "the body is not a header");
        let folded = "To: carol@example.org,\r\n ada@example.org\r\nSubject: Hi\r\n\r\n";
        assert!(is_addressed_to(folded, "ada@example.org"));
        assert!(!is_addressed_to("Subject: ada@example.org\r\n\r\n", "ada@example.org"));
        assert!(!is_addressed_to("To: bada@example.org\r\n\r\n", "ada@example.org"), "another address that contains it");
        assert!(is_addressed_to("To: \"Ada\" <ada@example.org>\r\n\r\n", "ada@example.org"));
    }

    #[test]
    fn closing_a_deletion_removes_the_addresss_outbox_mail_then_queues_the_confirmation() -> Result<(), Box<dyn std::error::Error>> {
        let store = Store::temporary()?;
        let outbox = tempfile::tempdir()?;
        let now = Utc::now();
        let ada = User::new(engine::UserId(Uuid::new_v4()), "ada@example.org", "hash".into(), now);
        store.accounts().create(NewAccount { user: ada.clone(), preferences: Default::default(), verification: None, mail: None }, now)?;
        std::fs::write(outbox.path().join("1-ada.eml"), "To: ada@example.org\r\nSubject: Verify\r\n\r\nA link\r\n")?;
        std::fs::write(outbox.path().join("2-bob.eml"), "To: bob@example.org\r\nSubject: Digest\r\n\r\nada@example.org\r\n")?;
        store.accounts().delete_account(ada.id, |user| mail_to(&user.email, "Deleted"))?;
        assert_eq!(close_account_deletions(&store, outbox.path())?, 1);
        let mut left: Vec<String> =
            std::fs::read_dir(outbox.path())?.map(|entry| Ok(entry?.file_name().to_string_lossy().into_owned())).collect::<std::io::Result<_>>()?;
        left.sort();
        assert_eq!(left, ["2-bob.eml"], "only the deleted address's mail goes");
        let queued: Vec<(String, String)> = store.mail().queued()?.into_iter().map(|queued| (queued.mail.to, queued.mail.subject)).collect();
        assert_eq!(queued, [("ada@example.org".to_owned(), "Deleted".to_owned())], "the confirmation, queued once the files are gone");
        assert_eq!(close_account_deletions(&store, outbox.path())?, 0, "nothing is left to close");
        Ok(())
    }

    fn config() -> MailerConfig {
        let from: Mailbox = "Papertide <papertide@localhost>".parse().expect("valid mailbox");
        MailerConfig::new(from, "localhost".into())
    }

    #[test]
    fn smtp_urls_of_every_form_are_accepted_and_others_refused() {
        let timeout = Duration::from_secs(5);
        for url in ["smtp://mail.example.org", "smtp://u:p@mail.example.org:587?tls=required", "smtps://u:p@mail.example.org"] {
            assert!(MailTransport::smtp_from_url(url, timeout).is_ok(), "{url}");
        }
        assert!(MailTransport::smtp_from_url("smtp://mail.example.org?tls=sometimes", timeout).is_err());
        assert!(MailTransport::smtp_from_url_with_root("smtps://mail.example.org", b"not a certificate", timeout).is_err());
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_cap() {
        let config = config();
        let delays: Vec<u64> = (1..=10).map(|attempt| retry_delay(&config, attempt, 0).as_secs()).collect();
        assert_eq!(delays, vec![30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
        let jittered = retry_delay(&config, 1, 7);
        assert!(jittered >= Duration::from_secs(30) && jittered <= Duration::from_secs(33));
    }
}
