//! The sentence-embedding model the system runs: where it is looked for (the configured folder,
//! else the default one `papertide model fetch` unpacks into the data directory) and loading it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use embed::package::{runtime_library, DEFAULT_MODEL_NAME};
use embed::{Embedder, LoadOptions, RuntimeName};

use config::Settings;

/// The sentence-embedding model `serve` loaded: its name (its folder's), the runtime it runs in
/// and the model.
#[derive(Clone)]
pub struct EmbeddingModel {
    pub name: String,
    pub runtime: RuntimeName,
    pub embedder: Arc<Embedder>,
}

impl std::fmt::Debug for EmbeddingModel {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("EmbeddingModel")
            .field("name", &self.name)
            .field("runtime", &self.runtime)
            .field("fingerprint", &self.embedder.fingerprint())
            .finish()
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
    let runtime = embed_runtime(settings, |path| path.is_file())?;
    let options = LoadOptions { limit: embed::DOCUMENT_TOKENS, runtime: runtime.with_library(&onnxruntime_library(settings)) };
    let embedder = Embedder::load_with(&dir, &options)
        .with_context(|| format!("the embedding model in {} does not load; {remedy} (runtime {runtime})", dir.display()))?;
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |name| name.to_string_lossy().into_owned());
    tracing::info!(model = %name, %runtime, fingerprint = %embedder.fingerprint(), dimensions = embedder.dimensions(), "embedding model loaded");
    Ok(Some(EmbeddingModel { name, runtime, embedder: Arc::new(embedder) }))
}

/// ONNX Runtime's library: the configured one, else the data directory's.
fn onnxruntime_library(settings: &Settings) -> PathBuf {
    settings.onnxruntime_library.clone().unwrap_or_else(|| runtime_library(&settings.data_dir))
}

/// The runtime the model runs in: the configured one, whose library must be there (`is_file`
/// looks); else ONNX Runtime in int8 when its library is there, else candle (one warning: a
/// service fetched before ONNX Runtime was used goes on embedding as it did).
pub fn embed_runtime(settings: &Settings, is_file: impl Fn(&Path) -> bool) -> anyhow::Result<RuntimeName> {
    let library = onnxruntime_library(settings);
    match settings.embed_runtime.as_deref() {
        Some(name) => {
            let runtime: RuntimeName = name.parse().map_err(|error: String| anyhow::anyhow!("PAPERTIDE_EMBED_RUNTIME: {error}"))?;
            if runtime != RuntimeName::Candle && !is_file(&library) {
                anyhow::bail!(
                    "the embedding runtime {runtime} needs ONNX Runtime's library at {}: run `papertide model fetch`, set PAPERTIDE_ONNXRUNTIME_LIBRARY, or set PAPERTIDE_EMBED_RUNTIME=candle",
                    library.display()
                );
            }
            Ok(runtime)
        }
        None if is_file(&library) => Ok(RuntimeName::DEFAULT),
        None => {
            tracing::warn!(
                looked_in = %library.display(),
                "ONNX Runtime's library is not there: the embedding model runs in candle, several times slower; run `papertide model fetch` to fetch it"
            );
            Ok(RuntimeName::Candle)
        }
    }
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

    #[test]
    fn the_runtime_is_the_configured_one_else_onnx_int8_when_its_library_is_there_else_candle() -> anyhow::Result<()> {
        let common = CommonArgs { config: None, data_dir: Some(PathBuf::from("/srv/papertide")) };
        let fetched = |path: &Path| path == Path::new("/srv/papertide/runtime/libonnxruntime.so.1.32.0");
        let unset = resolve(FileConfig::default(), &common, &ServeArgs::default())?;
        assert_eq!(embed_runtime(&unset, fetched)?, RuntimeName::OnnxInt8, "fetched: ONNX Runtime");
        assert_eq!(embed_runtime(&unset, |_| false)?, RuntimeName::Candle, "not fetched: candle, as before");

        let named = |name: &str| ServeArgs { embed_runtime: Some(name.to_owned()), ..ServeArgs::default() };
        assert_eq!(embed_runtime(&resolve(FileConfig::default(), &common, &named("onnx-fp32"))?, fetched)?, RuntimeName::OnnxFp32);
        assert_eq!(embed_runtime(&resolve(FileConfig::default(), &common, &named("candle"))?, fetched)?, RuntimeName::Candle);
        let missing = embed_runtime(&resolve(FileConfig::default(), &common, &named("onnx-int8"))?, |_| false).expect_err("no library");
        assert!(missing.to_string().contains("papertide model fetch"), "{missing}");
        let unknown = embed_runtime(&resolve(FileConfig::default(), &common, &named("tensorflow"))?, fetched).expect_err("no such runtime");
        assert!(unknown.to_string().contains("onnx-int8, onnx-fp32, candle"), "{unknown}");

        let elsewhere = ServeArgs { onnxruntime_library: Some(PathBuf::from("/opt/ort/libonnxruntime.so")), ..named("onnx-int8") };
        let settings = resolve(FileConfig::default(), &common, &elsewhere)?;
        assert_eq!(
            embed_runtime(&settings, |path| path == Path::new("/opt/ort/libonnxruntime.so"))?,
            RuntimeName::OnnxInt8,
            "a library named is used"
        );
        Ok(())
    }
}
