//! The real `papertide` binary as the crash scenario runs it: `serve` on a fixed port and data
//! directory (killed with SIGKILL and started again), the `weekly` and `harvest` commands, and
//! an HTTP client with its own cookie jar (one browser per user).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::Value;

/// How the binary is configured: its data directory, port and environment.
pub struct Binary {
    pub path: PathBuf,
    pub data_dir: PathBuf,
    pub port: u16,
    /// `PAPERTIDE_*` settings shared by every command.
    pub env: Vec<(String, String)>,
    /// Every command's stderr goes here, appended.
    pub log: PathBuf,
}

impl Binary {
    fn command(&self, args: &[&str]) -> anyhow::Result<Command> {
        let log = File::options().create(true).append(true).open(&self.log).context("opening the server log")?;
        let mut command = Command::new(&self.path);
        command
            .args(["--data-dir", &self.data_dir.display().to_string()])
            .args(args)
            .envs(self.env.iter().map(|(name, value)| (name.as_str(), value.as_str())))
            // A model in the operator's environment would make every start load it: the run is
            // lexical (the data directory has no model of its own).
            .env_remove("PAPERTIDE_EMBED_MODEL_DIR")
            .env_remove("PAPERTIDE_CONFIG")
            .env_remove("PAPERTIDE_LLM_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        Ok(command)
    }

    /// Starts `papertide serve`.
    pub fn spawn_serve(&self) -> anyhow::Result<Child> {
        let bind = format!("127.0.0.1:{}", self.port);
        let mut command = self.command(&["serve", "--bind", &bind])?;
        command.spawn().with_context(|| format!("starting {}", self.path.display()))
    }

    /// Starts a command that runs to its end (`weekly --at …`, `harvest …`).
    pub fn spawn(&self, args: &[&str]) -> anyhow::Result<Child> {
        self.command(args)?.spawn().with_context(|| format!("starting {} {}", self.path.display(), args.join(" ")))
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// SIGKILL (what `Child::kill` sends on Unix), then reaps the process.
pub fn kill(child: &mut Child) -> anyhow::Result<()> {
    // A process that already ended cannot be killed; that is not an error here.
    let _ = child.kill();
    child.wait().context("reaping a killed process")?;
    Ok(())
}

/// Waits for a command to end (polling, so the async peers go on answering).
pub async fn wait_for_exit(child: &mut Child, limit: Duration) -> anyhow::Result<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().context("waiting for a command")? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            kill(child)?;
            bail!("the command did not end within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until `/healthz` answers 200; fails if the process exits or takes more than a minute
/// (a server that will not restart).
pub async fn wait_until_healthy(child: &mut Child, base: &str) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(5)).build()?;
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("the server exited with {status} instead of starting");
        }
        let healthy = http.get(format!("{base}/healthz")).send().await.is_ok_and(|answer| answer.status().is_success());
        if healthy {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("the server did not answer /healthz within a minute of its start");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// One browser: a cookie jar and the service's address.
#[derive(Clone)]
pub struct Browser {
    http: reqwest::Client,
    base: String,
}

/// What became of a request: an answer, or none (the server died under it; the effect is in
/// doubt).
#[derive(Debug)]
pub enum Reply {
    Answer { status: u16, body: Value },
    NoAnswer,
}

impl Reply {
    pub fn status(&self) -> Option<u16> {
        match self {
            Reply::Answer { status, .. } => Some(*status),
            Reply::NoAnswer => None,
        }
    }

    pub fn body(&self) -> &Value {
        match self {
            Reply::Answer { body, .. } => body,
            Reply::NoAnswer => &Value::Null,
        }
    }
}

impl Browser {
    pub fn new(base: &str) -> anyhow::Result<Browser> {
        let http = reqwest::Client::builder()
            .cookie_store(true)
            .timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(0)
            .build()
            .context("an HTTP client")?;
        Ok(Browser { http, base: base.to_owned() })
    }

    pub async fn get(&self, path: &str) -> Reply {
        Self::reply(self.http.get(format!("{}{path}", self.base)).send().await).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        Self::reply(self.http.post(format!("{}{path}", self.base)).json(body).send().await).await
    }

    /// A POST of a raw body with extra headers (a signed webhook).
    pub async fn post_raw(&self, path: &str, headers: &[(&str, &str)], body: String) -> Reply {
        let mut request = self.http.post(format!("{}{path}", self.base)).body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Self::reply(request.send().await).await
    }

    async fn reply(sent: reqwest::Result<reqwest::Response>) -> Reply {
        let Ok(response) = sent else { return Reply::NoAnswer };
        let status = response.status().as_u16();
        let Ok(text) = response.text().await else { return Reply::NoAnswer };
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Reply::Answer { status, body }
    }
}

/// The data directory's database and index, as the scenario opens them while no process runs.
pub fn db_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("db")
}

pub fn index_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("index")
}
