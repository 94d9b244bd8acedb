//! A real SMTP server on loopback for the test suites: maildev (installed into
//! `tools/node_modules` by the README's test command), one instance per test, read through its
//! REST API.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::free_port;

pub struct Maildev {
    child: Child,
    pub smtp_port: u16,
    pub web_port: u16,
    http: reqwest::Client,
}

fn maildev_binary() -> PathBuf {
    let tools = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/node_modules/.bin/maildev");
    let installed = tools.try_exists().unwrap_or_else(|error| panic!("looking for maildev at {}: {error}", tools.display()));
    assert!(installed, "maildev is not installed at {}: run the README's test command (make test), which installs it", tools.display());
    tools
}

impl Maildev {
    pub async fn start() -> Maildev {
        Maildev::start_with(&[]).await
    }

    /// Starts maildev with extra arguments (e.g. `--incoming-user`), waiting until it answers.
    /// A free port can be taken by another test before maildev binds it; maildev then exits, and
    /// it is started again on other ports.
    pub async fn start_with(extra_args: &[&str]) -> Maildev {
        const ATTEMPTS: usize = 3;
        for _ in 0..ATTEMPTS {
            if let Some(maildev) = Maildev::try_start(extra_args).await {
                return maildev;
            }
        }
        panic!("maildev did not start in {ATTEMPTS} attempts");
    }

    /// One start on fresh ports: `None` when maildev exits before it answers.
    async fn try_start(extra_args: &[&str]) -> Option<Maildev> {
        let (smtp_port, web_port) = (free_port(), free_port());
        let child = Command::new(maildev_binary())
            .args(["--smtp", &smtp_port.to_string(), "--web", &web_port.to_string(), "--ip", "127.0.0.1", "--silent"])
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting maildev");
        let mut maildev = Maildev { child, smtp_port, web_port, http: reqwest::Client::new() };
        // Node starts slowly on a busy machine running many test binaries at once.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if maildev.child.try_wait().ok().flatten().is_some() {
                return None;
            }
            let web_up = maildev.http.get(maildev.api("/email")).send().await.is_ok();
            // A bare TCP probe would abort a TLS handshake, which makes maildev exit; a TLS
            // server is taken as up once its web API (started after SMTP) answers.
            let is_tls = extra_args.contains(&"--incoming-secure");
            let smtp_up = is_tls || std::net::TcpStream::connect(("127.0.0.1", smtp_port)).is_ok();
            if web_up && smtp_up {
                return Some(maildev);
            }
            assert!(Instant::now() < deadline, "maildev did not start within 60 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn smtp_url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.smtp_port)
    }

    fn api(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.web_port, path)
    }

    /// Every mail received so far, as maildev describes it (subject, text, html, to, headers).
    pub async fn emails(&self) -> Vec<Value> {
        let response = self.http.get(self.api("/email")).send().await.expect("maildev answers");
        response.json::<Vec<Value>>().await.expect("maildev lists mail as JSON")
    }

    /// Waits until at least `count` mails arrived (at most 20 s) and returns them all.
    pub async fn wait_for_emails(&self, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let emails = self.emails().await;
            if emails.len() >= count {
                return emails;
            }
            assert!(Instant::now() < deadline, "expected {count} mails, maildev has {}", emails.len());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Maildev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
