//! What the crash scenario adds to the binary's launcher (`testkit::server`): an HTTP client
//! with its own cookie jar (one browser per user) that tells an answer from none, and where the
//! data directory keeps its database and index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

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
