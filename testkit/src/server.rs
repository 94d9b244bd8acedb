//! The real `papertide` binary as the suites and the bench run it, as a process of its own:
//! `serve` on a loopback port and data directory (stopped with SIGTERM, or killed with SIGKILL and
//! started again), and the one-shot commands (`weekly`, `harvest`, `users`, ...) on the same
//! directory.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// Where a command's standard error goes.
#[derive(Debug, Clone)]
pub enum Log {
    /// The test's own stderr.
    Inherit,
    Discard,
    /// Appended to this file.
    File(PathBuf),
}

/// How the binary is run: its path, data directory, port and environment.
#[derive(Debug, Clone)]
pub struct Binary {
    pub path: PathBuf,
    pub data_dir: PathBuf,
    pub port: u16,
    /// `PAPERTIDE_*` settings every command gets.
    pub env: Vec<(String, String)>,
    /// Variables removed from the environment the commands inherit.
    pub unset: Vec<String>,
    /// Every command's stderr.
    pub log: Log,
}

impl Binary {
    /// The binary at `path` on `data_dir`, serving on `port`; its stderr is the caller's.
    pub fn new(path: impl Into<PathBuf>, data_dir: impl Into<PathBuf>, port: u16) -> Binary {
        Binary { path: path.into(), data_dir: data_dir.into(), port, env: Vec::new(), unset: Vec::new(), log: Log::Inherit }
    }

    /// The binary at `path` on `data_dir`, serving on `port` with nothing of the caller's
    /// environment that would reach out or change it: no config file, no SMTP (mail to the
    /// outbox), no model, no harvest and no live search; links name `http://127.0.0.1:PORT`.
    pub fn isolated(path: impl Into<PathBuf>, data_dir: impl Into<PathBuf>, port: u16) -> Binary {
        Binary::new(path, data_dir, port)
            .unset("PAPERTIDE_CONFIG")
            .unset("PAPERTIDE_SMTP_URL")
            .unset("PAPERTIDE_EMBED_MODEL_DIR")
            .env("PAPERTIDE_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
            .env("PAPERTIDE_HARVEST_SOURCES", "none")
            .env("PAPERTIDE_LIVE_SEARCH", "false")
    }

    /// Sets `name` to `value` for every command.
    pub fn env(mut self, name: &str, value: impl Into<String>) -> Binary {
        self.env.push((name.to_owned(), value.into()));
        self
    }

    /// Sets each `(name, value)` for every command.
    pub fn envs<'a>(mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Binary {
        self.env.extend(pairs.into_iter().map(|(name, value)| (name.to_owned(), value.to_owned())));
        self
    }

    /// Removes `name` from every command's inherited environment.
    pub fn unset(mut self, name: &str) -> Binary {
        self.unset.push(name.to_owned());
        self
    }

    pub fn log(self, log: Log) -> Binary {
        Binary { log, ..self }
    }

    /// `papertide --data-dir DIR ARGS`, with the environment and log, stdin and stdout closed.
    pub fn command(&self, args: &[&str]) -> anyhow::Result<Command> {
        let stderr = match &self.log {
            Log::Inherit => Stdio::inherit(),
            Log::Discard => Stdio::null(),
            Log::File(path) => Stdio::from(File::options().create(true).append(true).open(path).context("opening the server log")?),
        };
        let mut command = Command::new(&self.path);
        command.args(["--data-dir", &self.data_dir.display().to_string()]).args(args);
        for name in &self.unset {
            command.env_remove(name);
        }
        command.envs(self.env.iter().map(|(name, value)| (name.as_str(), value.as_str()))).stdin(Stdio::null()).stdout(Stdio::null()).stderr(stderr);
        Ok(command)
    }

    /// Starts `papertide serve` on the port (`ARGS` after `serve --bind ADDRESS`).
    pub fn spawn_serve(&self, args: &[&str]) -> anyhow::Result<Child> {
        let bind = format!("127.0.0.1:{}", self.port);
        let mut command = self.command(&[&["serve", "--bind", &bind], args].concat())?;
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

/// SIGTERM, then waits for the process to end; answers how it ended.
pub fn terminate(child: &mut Child) -> anyhow::Result<ExitStatus> {
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().context("running kill")?;
    if !sent.success() {
        bail!("kill -TERM {} failed with {sent}", child.id());
    }
    child.wait().context("waiting for the stopped process")
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

/// Whether `/healthz` at `base` answers at all (the server listens).
pub async fn is_listening(base: &str) -> bool {
    reqwest::get(format!("{base}/healthz")).await.is_ok()
}

/// Whether `/healthz` at `base` answers 200.
pub async fn is_healthy(http: &reqwest::Client, base: &str) -> bool {
    http.get(format!("{base}/healthz")).send().await.is_ok_and(|answer| answer.status().is_success())
}

/// Waits until `/healthz` answers 200 and answers how long that took; fails if the process exits
/// or takes longer than `limit` (a server that will not start). The one health wait of the tests
/// and the bench: it asks every 5 ms, so a timed start is known to 5 ms.
pub async fn wait_until_healthy(child: &mut Child, base: &str, limit: Duration) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(5)).build()?;
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("the server exited with {status} instead of starting");
        }
        if is_healthy(&http, base).await {
            return Ok(started.elapsed());
        }
        if started.elapsed() > limit {
            bail!("the server did not answer /healthz within {limit:?} of its start");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
