//! The sentence-embedding model the system runs: where it is looked for (the configured folder,
//! else the default one `papertide model fetch` unpacks into the data directory) and loading it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use embed::package::DEFAULT_MODEL_NAME;
use embed::Embedder;

use config::Settings;

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

/// Where `serve`'s sentence-embedding model comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedModel {
    /// Set with `PAPERTIDE_EMBED_MODEL_DIR`.
    Configured(PathBuf),
    /// Not set, and `papertide model fetch` put the default model in the data directory.
    Default(PathBuf),
    /// Not set, and the default folder is not there.
    None { looked_in: PathBuf },
}

/// Where the sentence-embedding model is to be loaded from: the configured folder, else the
/// default one under the data directory when `default_exists` says it is there (the caller
/// looks), else none and ranking is lexical.
pub fn embed_model(settings: &Settings, default_exists: impl FnOnce(&Path) -> bool) -> EmbedModel {
    if let Some(dir) = &settings.embed_model_dir {
        return EmbedModel::Configured(dir.clone());
    }
    let default = default_model_dir(&settings.data_dir);
    if default_exists(&default) {
        EmbedModel::Default(default)
    } else {
        EmbedModel::None { looked_in: default }
    }
}

/// Loads the model the settings name ([`embed_model`]). A configured folder, or the
/// fetched default one, that does not load is an error that stops the start; with neither there
/// is no model (one warning: ranking is lexical).
pub fn load_for_serve(settings: &Settings) -> anyhow::Result<Option<EmbeddingModel>> {
    // A default folder that cannot be looked at counts as there: loading it then fails with the
    // I/O error, instead of the start going on lexically as if it were missing.
    let (dir, remedy) = match embed_model(settings, |dir| dir.try_exists().unwrap_or(true)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use config::{resolve, CommonArgs, FileConfig, ServeArgs};

    #[test]
    fn the_embedding_model_is_the_configured_folder_else_the_fetched_default_else_none() -> anyhow::Result<()> {
        let common = CommonArgs { config: None, data_dir: Some(PathBuf::from("/srv/papertide")) };
        let default = PathBuf::from("/srv/papertide/models/all-minilm-l6-v2");
        let unset = resolve(FileConfig::default(), &common, &ServeArgs::default())?;
        assert_eq!(unset.embed_model_dir, None);
        assert_eq!(embed_model(&unset, |dir| dir == default), EmbedModel::Default(default.clone()), "fetched: used");
        assert_eq!(embed_model(&unset, |_| false), EmbedModel::None { looked_in: default.clone() }, "not fetched: lexical ranking");

        let file: FileConfig = toml::from_str("embed_model_dir = \"/models/from-file\"\n")?;
        let from_file = resolve(file.clone(), &common, &ServeArgs::default())?;
        assert_eq!(embed_model(&from_file, |_| true), EmbedModel::Configured(PathBuf::from("/models/from-file")), "configured: used, looked or not");
        let flag = ServeArgs { embed_model_dir: Some(PathBuf::from("/models/from-flag")), ..ServeArgs::default() };
        assert_eq!(resolve(file.clone(), &common, &flag)?.embed_model_dir, Some(PathBuf::from("/models/from-flag")), "the flag wins");
        let blank = ServeArgs { embed_model_dir: Some(PathBuf::new()), ..ServeArgs::default() };
        assert_eq!(resolve(file, &common, &blank)?.embed_model_dir, None, "an empty variable switches the file's folder off");
        Ok(())
    }
}
