//! The actors against real peers: the mailer with maildev over SMTP, the outbox on disk and a
//! closed port; harvests on the replay server; the vectorizer with the real embedding model.

mod harvest;
mod live;
mod llm;
mod semantic;
mod sources;
mod vectors;

use std::time::{Duration, Instant};

use actors::mailer::{drain_due_mail, parse_mailbox};
use actors::{DrainQueue, MailTransport, Mailer, MailerConfig, StatusBoard};
use chrono::Utc;
use engine::mail::RenderedMail;
use store::Store;
use testkit::{free_port, Maildev};

fn mail(to: &str, subject: &str) -> RenderedMail {
    RenderedMail {
        to: to.into(),
        subject: subject.into(),
        html: format!("<p>{subject}</p>"),
        text: subject.into(),
        action_url: None,
        list_unsubscribe: None,
    }
}

fn config() -> MailerConfig {
    MailerConfig::new(parse_mailbox("Papertide <noreply@papers.example.org>").expect("sender"), "papers.example.org".into())
}

fn smtp(url: &str) -> MailTransport {
    MailTransport::smtp_from_url(url, Duration::from_secs(5)).expect("transport")
}

#[actix_rt::test]
async fn queued_mail_goes_out_by_smtp_in_order_and_leaves_the_queue() {
    let maildev = Maildev::start().await;
    let store = Store::temporary().expect("store");
    for subject in ["first", "second", "third"] {
        store.mail().enqueue(&mail("ada@example.org", subject), Utc::now()).expect("queued");
    }
    let report = drain_due_mail(&store, &smtp(&maildev.smtp_url()), &config()).await;
    assert_eq!((report.sent, report.retried, report.dead), (3, 0, 0));
    assert_eq!(store.mail().queue_len(), 0);
    let received = maildev.wait_for_emails(3).await;
    let subjects: Vec<&str> = received.iter().filter_map(|mail| mail["subject"].as_str()).collect();
    assert_eq!(subjects, vec!["first", "second", "third"]);
    assert!(received[0]["headers"]["message-id"].as_str().is_some_and(|id| id.ends_with("@papers.example.org>")));
    assert!(received[0]["html"].as_str().is_some_and(|html| html.contains("<p>first</p>")));
}

/// Starts an SMTP server that takes the envelope, says "go ahead" to `DATA`, and then drops the
/// connection in the middle of the message, once per connection. Answers its address.
async fn smtp_server_dropping_the_message() -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (reading, mut writing) = socket.into_split();
                let mut lines = BufReader::new(reading).lines();
                let _ = writing.write_all(b"220 flaky.example ESMTP\r\n").await;
                while let Ok(Some(line)) = lines.next_line().await {
                    let command = line.to_ascii_uppercase();
                    let answer: &[u8] = if command.starts_with("DATA") {
                        b"354 go ahead\r\n"
                    } else if command.starts_with("EHLO") || command.starts_with("MAIL") || command.starts_with("RCPT") || command.starts_with("NOOP")
                    {
                        b"250 ok\r\n"
                    } else {
                        // The first line of the message: the connection drops here.
                        return;
                    };
                    let _ = writing.write_all(answer).await;
                }
            });
        }
    });
    format!("smtp://{address}")
}

#[actix_rt::test]
async fn a_mail_whose_hand_over_failed_stays_queued_across_a_restart_and_a_delivered_one_is_gone() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("db");
    let store = Store::open(&path).expect("store");
    let id = store.mail().enqueue(&mail("ada@example.org", "hello"), Utc::now()).expect("queued");
    let report = drain_due_mail(&store, &smtp(&smtp_server_dropping_the_message().await), &config()).await;
    assert_eq!((report.sent, report.retried, report.dead), (0, 1, 0), "{report:?}");
    drop(store);
    // The journal says the hand-over began and failed: the mail waits for its retry, it is not
    // taken for one interrupted by a crash.
    let store = Store::open(&path).expect("reopened");
    assert_eq!(store.mail().queued().expect("queue").iter().map(|queued| (queued.id, queued.attempts)).collect::<Vec<_>>(), [(id, 1)]);
    assert_eq!(store.mail().dead_len(), 0);

    let maildev = Maildev::start().await;
    store.mail().make_all_due(Utc::now()).expect("due");
    let report = drain_due_mail(&store, &smtp(&maildev.smtp_url()), &config()).await;
    assert_eq!(report.sent, 1, "{report:?}");
    assert_eq!(maildev.wait_for_emails(1).await.len(), 1);
    drop(store);
    let store = Store::open(&path).expect("reopened");
    assert_eq!((store.mail().queue_len(), store.mail().dead_len()), (0, 0), "delivered, so neither queued nor kept aside");
}

#[actix_rt::test]
async fn the_hand_over_is_announced_once_the_envelope_is_taken_and_only_then() {
    use actors::smtp::{SmtpClient, SmtpServer};
    let message = lettre::Message::builder()
        .from("Papertide <noreply@papers.example.org>".parse().expect("from"))
        .to("ada@example.org".parse().expect("to"))
        .subject("hello")
        .body(String::from("hello"))
        .expect("message");
    let client = |url: &str| SmtpClient::new(SmtpServer::from_url(url, None, Duration::from_secs(5)).expect("server"));

    let maildev = Maildev::start().await;
    let mut announced = 0;
    client(&maildev.smtp_url()).send(message.envelope(), &message.formatted(), || announced += 1).await.expect("sent");
    assert_eq!(announced, 1);

    let mut announced = 0;
    let closed = client(&format!("smtp://127.0.0.1:{}", free_port())).send(message.envelope(), &message.formatted(), || announced += 1).await;
    assert!(closed.is_err());
    assert_eq!(announced, 0, "nothing was handed over to a server that was not there");

    let mut announced = 0;
    let dropped = client(&smtp_server_dropping_the_message().await).send(message.envelope(), &message.formatted(), || announced += 1).await;
    assert!(dropped.is_err());
    assert_eq!(announced, 1, "the message had begun to go");
}

#[actix_rt::test]
async fn an_unreachable_server_defers_mail_with_backoff() {
    let store = Store::temporary().expect("store");
    let id = store.mail().enqueue(&mail("ada@example.org", "hello"), Utc::now()).expect("queued");
    let closed = smtp(&format!("smtp://127.0.0.1:{}", free_port()));
    let report = drain_due_mail(&store, &closed, &config()).await;
    assert_eq!((report.sent, report.retried), (0, 1));
    assert!(report.last_error.is_some());
    let queued = store.mail().queued().expect("queue");
    assert_eq!(queued.len(), 1);
    assert_eq!((queued[0].id, queued[0].attempts), (id, 1));
    assert!(queued[0].next_attempt_at > Utc::now() + chrono::Duration::seconds(25));

    let again = drain_due_mail(&store, &closed, &config()).await;
    assert_eq!((again.sent, again.retried), (0, 0), "a deferred mail was retried before its time");
}

#[actix_rt::test]
async fn mail_out_of_attempts_moves_to_the_dead_letters() {
    let store = Store::temporary().expect("store");
    store.mail().enqueue(&mail("ada@example.org", "hello"), Utc::now()).expect("queued");
    let closed = smtp(&format!("smtp://127.0.0.1:{}", free_port()));
    let config = MailerConfig { max_attempts: 1, ..config() };
    let report = drain_due_mail(&store, &closed, &config).await;
    assert_eq!(report.dead, 1);
    assert_eq!(store.mail().queue_len(), 0);
    assert_eq!(store.mail().dead_len(), 1);
}

#[actix_rt::test]
async fn an_invalid_recipient_is_given_up_at_once() {
    let store = Store::temporary().expect("store");
    store.mail().enqueue(&mail("not an address", "hello"), Utc::now()).expect("queued");
    let dir = tempfile::tempdir().expect("dir");
    let report = drain_due_mail(&store, &MailTransport::Outbox(dir.path().to_owned()), &config()).await;
    assert_eq!(report.dead, 1);
    assert!(store.mail().dead().expect("dead")[0].last_error.as_deref().is_some_and(|error| error.contains("invalid recipient")));
}

#[actix_rt::test]
async fn the_outbox_gets_one_named_file_per_mail_and_retries_when_it_cannot_write() {
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::temporary().expect("store");
    store.mail().enqueue(&mail("ada@example.org", "hello"), Utc::now()).expect("queued");

    let blocked = dir.path().join("not-a-directory");
    std::fs::write(&blocked, b"a file where the outbox should be").expect("file");
    let report = drain_due_mail(&store, &MailTransport::Outbox(blocked.clone()), &config()).await;
    assert_eq!(report.retried, 1, "an unwritable outbox must defer, not lose, the mail");
    store.mail().make_all_due(Utc::now()).expect("due");

    let outbox = dir.path().join("outbox");
    let report = drain_due_mail(&store, &MailTransport::Outbox(outbox.clone()), &config()).await;
    assert_eq!(report.sent, 1);
    let files: Vec<String> = std::fs::read_dir(&outbox).expect("outbox").filter_map(|entry| entry.ok()?.file_name().into_string().ok()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with(".eml") && !files[0].starts_with('.'));
    let content = std::fs::read_to_string(outbox.join(&files[0])).expect("mail");
    assert!(content.contains("Subject: hello") && content.contains("To: ada@example.org"));
}

#[actix_rt::test]
async fn the_supervised_mailer_drains_when_poked_and_reports_its_status() {
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::temporary().expect("store");
    let board = StatusBoard::default();
    let outbox = dir.path().join("outbox");
    let mailer = Mailer::new(store.clone(), MailTransport::Outbox(outbox.clone()), config(), board.clone()).start_supervised();
    store.mail().enqueue(&mail("ada@example.org", "hello"), Utc::now()).expect("queued");
    mailer.send(DrainQueue).await.expect("mailer alive");
    let deadline = Instant::now() + Duration::from_secs(5);
    while board.get("mailer").map_or(0, |status| status.processed_total) < 1 {
        assert!(Instant::now() < deadline, "the mailer did not send");
        actix_rt::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(std::fs::read_dir(&outbox).expect("outbox").count(), 1);
    let status = board.get("mailer").expect("status");
    assert_eq!((status.queue_depth, status.restarts), (0, 0));
    assert!(status.last_success_at.is_some());
}

/// A private certificate authority and a server certificate for 127.0.0.1 signed by it, made
/// with the openssl command line. Returns (CA certificate PEM path, server cert path, key path).
fn private_ca(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let run = |args: &[&str]| {
        let output = std::process::Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs");
        assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    run(&[&["req", "-x509"][..], &ec, &["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Papertide Test CA"]].concat());
    run(&[&["req"][..], &ec, &["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]].concat());
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("extensions file");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"))
}

#[actix_rt::test]
async fn smtps_with_credentials_verifies_the_server_certificate() {
    let dir = tempfile::tempdir().expect("dir");
    let (ca, cert, key) = private_ca(dir.path());
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    let maildev = Maildev::start_with(&[
        "--incoming-secure",
        "--incoming-cert",
        &cert,
        "--incoming-key",
        &key,
        "--incoming-user",
        "papertide",
        "--incoming-pass",
        "s3cret",
    ])
    .await;
    let url = format!("smtps://papertide:s3cret@127.0.0.1:{}", maildev.smtp_port);
    let store = Store::temporary().expect("store");
    store.mail().enqueue(&mail("ada@example.org", "over tls"), Utc::now()).expect("queued");

    let pem = std::fs::read(&ca).expect("CA certificate");
    let trusted = MailTransport::smtp_from_url_with_root(&url, &pem, Duration::from_secs(5)).expect("transport");
    let report = drain_due_mail(&store, &trusted, &config()).await;
    assert_eq!(report.sent, 1, "{:?}", report.last_error);
    let received = maildev.wait_for_emails(1).await;
    assert_eq!(received[0]["subject"], "over tls");

    // Last, because maildev exits when a client walks out of the TLS handshake.
    store.mail().enqueue(&mail("ada@example.org", "untrusted"), Utc::now()).expect("queued");
    let untrusted = drain_due_mail(&store, &smtp(&url), &config()).await;
    assert_eq!((untrusted.sent, untrusted.retried), (0, 1), "a certificate nobody vouches for was accepted");
    assert!(untrusted.last_error.is_some_and(|error| error.to_lowercase().contains("certificate")));
}

#[actix_rt::test]
async fn a_long_queue_is_drained_in_batches_without_waiting_for_the_timer() {
    let dir = tempfile::tempdir().expect("dir");
    let store = Store::temporary().expect("store");
    for index in 0..25 {
        store.mail().enqueue(&mail("ada@example.org", &format!("mail {index}")), Utc::now()).expect("queued");
    }
    let config = MailerConfig { batch_size: 4, poll_interval: Duration::from_secs(3600), ..config() };
    let outbox = dir.path().join("outbox");
    let board = StatusBoard::default();
    let _mailer = Mailer::new(store.clone(), MailTransport::Outbox(outbox.clone()), config, board.clone()).start_supervised();
    let deadline = Instant::now() + Duration::from_secs(10);
    while store.mail().queue_len() > 0 {
        assert!(Instant::now() < deadline, "{} mails left after 10 s", store.mail().queue_len());
        actix_rt::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(std::fs::read_dir(&outbox).expect("outbox").count(), 25);
}

#[actix_rt::test]
async fn a_digest_carries_one_click_unsubscribe_headers() {
    let maildev = Maildev::start().await;
    let store = Store::temporary().expect("store");
    let unsubscribe = "https://papers.example.org/api/unsubscribe/tok123";
    let digest = RenderedMail { list_unsubscribe: Some(unsubscribe.into()), ..mail("ada@example.org", "digest") };
    store.mail().enqueue(&digest, Utc::now()).expect("queued");
    store.mail().enqueue(&mail("ada@example.org", "plain"), Utc::now()).expect("queued");
    let report = drain_due_mail(&store, &smtp(&maildev.smtp_url()), &config()).await;
    assert_eq!(report.sent, 2, "{:?}", report.last_error);
    let received = maildev.wait_for_emails(2).await;
    let headers = |subject: &str| received.iter().find(|mail| mail["subject"] == subject).map(|mail| mail["headers"].clone()).expect("received");
    let digest_headers = headers("digest");
    assert_eq!(digest_headers["list-unsubscribe"], format!("<{unsubscribe}>").as_str(), "{digest_headers}");
    assert_eq!(digest_headers["list-unsubscribe-post"], "List-Unsubscribe=One-Click");
    assert!(headers("plain").get("list-unsubscribe").is_none(), "only digests offer it");
}
