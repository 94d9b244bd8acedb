//! Sentence embeddings on the CPU: a sentence-transformers BERT folder (e.g. all-MiniLM-L6-v2)
//! run by ONNX Runtime ([`onnx`], in 32-bit floats or 8-bit integer products) or by candle, pure
//! Rust ([`Runtime`]). The folder holds `config.json`, `tokenizer.json`,
//! `model.safetensors`, and optionally `1_Pooling/config.json` (CLS or mean pooling; mean when
//! absent), `sentence_bert_config.json` (`max_seq_length`) and `config_sentence_transformers.json`
//! (`prompts.query`, a prefix some models want on queries, e.g. bge-small-en-v1.5).
//!
//! Every vector is L2-normalized, so the cosine of two vectors is their dot product. A text
//! longer than the model's sequence limit (256 word pieces for all-MiniLM-L6-v2, at most
//! [`MAX_TOKENS`]) is truncated: a paper's title and the start of its abstract are embedded.

pub mod nearest;
pub mod onnx;
pub mod package;
pub use nearest::nearest;
pub use onnx::Precision;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationParams};

/// The most word pieces embedded of one text, whatever the model allows.
pub const MAX_TOKENS: usize = 256;
/// The word pieces of a paper the service embeds, when below the model's own limit (`None`: the
/// model's limit). Chosen by measurement (bench/README.md, "embed").
pub const DOCUMENT_TOKENS: Option<usize> = None;
/// Texts run through the model together, on one core, in either runtime. Measured
/// (bench/README.md, "embed" and "Runtimes"): 4 embeds as fast as 8 or 16 on 2 cores or faster,
/// with less than half their memory (a batch's attention scores alone are 12 heads × 256²
/// floats per text).
const BATCH: usize = 4;
/// The setting candle reads before each matrix product to decide on how many threads it runs.
const KERNEL_THREADS: &str = "RAYON_NUM_THREADS";

/// Makes the model's matrix products run on the thread that asks for them, unless the operator
/// set `RAYON_NUM_THREADS`. [`Embedder::embed_documents`] already runs one batch per core, and a
/// product spread over every core from each of them makes the cores contend: on 2 cores this
/// embeds 1.3–1.5× as many papers a second (bench/README.md, "embed"). Call it first in `main`,
/// before any other thread starts, since it sets the process's environment.
pub fn run_kernels_on_callers_thread() {
    if std::env::var_os(KERNEL_THREADS).is_none() {
        std::env::set_var(KERNEL_THREADS, "1");
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("the embedding model folder {0} has no {1}")]
    Missing(PathBuf, &'static str),
    #[error("the embedding model's {file} is unreadable: {reason}")]
    Corrupt { file: &'static str, reason: String },
    #[error("embedding failed: {0}")]
    Run(String),
    #[error("ONNX Runtime: {0}")]
    Runtime(String),
}

impl From<candle_core::Error> for EmbedError {
    fn from(error: candle_core::Error) -> EmbedError {
        EmbedError::Run(error.to_string())
    }
}

pub type Result<T, E = EmbedError> = std::result::Result<T, E>;

/// How token vectors become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
}

#[derive(Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

#[derive(Deserialize, Default)]
struct SentenceTransformersConfig {
    #[serde(default)]
    prompts: std::collections::HashMap<String, String>,
}

/// A vector and the position of its text among the caller's.
type Numbered = (usize, Vec<f32>);

/// What runs the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runtime {
    /// candle, pure Rust, in 32-bit floats.
    Candle,
    /// ONNX Runtime, loaded from its shared library at `library`.
    Onnx { library: PathBuf, precision: Precision },
}

/// The runtimes a model can be run in, by the name settings give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeName {
    /// ONNX Runtime with 8-bit integer products.
    OnnxInt8,
    /// ONNX Runtime in 32-bit floats.
    OnnxFp32,
    /// candle, pure Rust, in 32-bit floats: no library to fetch.
    Candle,
}

impl RuntimeName {
    /// Every runtime, by name.
    pub const ALL: [RuntimeName; 3] = [RuntimeName::OnnxInt8, RuntimeName::OnnxFp32, RuntimeName::Candle];
    /// The runtime the service uses unless told otherwise. Chosen by measurement
    /// (bench/README.md, "Runtimes").
    pub const DEFAULT: RuntimeName = RuntimeName::OnnxInt8;

    pub fn name(self) -> &'static str {
        match self {
            RuntimeName::OnnxInt8 => "onnx-int8",
            RuntimeName::OnnxFp32 => "onnx-fp32",
            RuntimeName::Candle => "candle",
        }
    }

    /// The runtime, with ONNX Runtime's shared library at `library`.
    pub fn with_library(self, library: &Path) -> Runtime {
        match self {
            RuntimeName::OnnxInt8 => Runtime::Onnx { library: library.to_owned(), precision: Precision::Int8 },
            RuntimeName::OnnxFp32 => Runtime::Onnx { library: library.to_owned(), precision: Precision::Float32 },
            RuntimeName::Candle => Runtime::Candle,
        }
    }
}

impl std::str::FromStr for RuntimeName {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<RuntimeName, String> {
        RuntimeName::ALL
            .into_iter()
            .find(|runtime| runtime.name() == text.trim())
            .ok_or_else(|| format!("unknown embedding runtime {text:?}: one of {}", RuntimeName::ALL.map(RuntimeName::name).join(", ")))
    }
}

impl std::fmt::Display for RuntimeName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// How a model is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    /// The most word pieces embedded of a text, when below the model's own limit.
    pub limit: Option<usize>,
    pub runtime: Runtime,
}

/// The model, in the runtime that runs it.
enum Engine {
    Candle(Box<BertModel>),
    Onnx(onnx::OnnxBert),
}

/// A loaded model, ready to embed.
pub struct Embedder {
    engine: Engine,
    /// Batches run at once: one per core (candle's workers, or ONNX Runtime's sessions).
    workers: usize,
    /// Truncates to the sequence limit and does not pad: [`Embedder::run`] pads each batch.
    unpadded: Tokenizer,
    pooling: Pooling,
    query_prefix: String,
    dimensions: usize,
    fingerprint: String,
    /// The most word pieces embedded of one text.
    max_tokens: usize,
    device: Device,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Embedder")
            .field("pooling", &self.pooling)
            .field("dimensions", &self.dimensions)
            .field("fingerprint", &self.fingerprint)
            .finish()
    }
}

fn read(dir: &Path, file: &'static str) -> Result<Vec<u8>> {
    std::fs::read(dir.join(file)).map_err(|_| EmbedError::Missing(dir.to_owned(), file))
}

fn optional_json<T: for<'de> Deserialize<'de>>(dir: &Path, file: &'static str) -> Result<Option<T>> {
    match std::fs::read(dir.join(file)) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|error| EmbedError::Corrupt { file, reason: error.to_string() }),
        Err(_) => Ok(None),
    }
}

/// The SHA-256 of a model's weights, in hex: names the vectors it made, so a model change
/// is seen and papers are embedded again.
pub fn weights_fingerprint(weights: &[u8]) -> String {
    hex::encode(Sha256::digest(weights))
}

impl Embedder {
    /// Loads a sentence-transformers folder.
    pub fn load(dir: &Path) -> Result<Embedder> {
        Embedder::load_with_limit(dir, None)
    }

    /// Loads a sentence-transformers folder, embedding at most `limit` word pieces of a text
    /// when that is below the model's own limit. A lower limit embeds other inputs, so it is
    /// part of the fingerprint (`…:t128`): vectors made under another limit are made again.
    pub fn load_with_limit(dir: &Path, limit: Option<usize>) -> Result<Embedder> {
        Embedder::load_with(dir, &LoadOptions { limit, runtime: Runtime::Candle })
    }

    /// Loads a sentence-transformers folder into the runtime `options` names. Vectors of int8
    /// products differ from the published weights' a little, so int8 is part of the
    /// fingerprint (`…:int8`); ONNX Runtime in 32-bit floats makes candle's vectors.
    pub fn load_with(dir: &Path, options: &LoadOptions) -> Result<Embedder> {
        let limit = options.limit;
        let config_bytes = read(dir, "config.json")?;
        let config: Config =
            serde_json::from_slice(&config_bytes).map_err(|error| EmbedError::Corrupt { file: "config.json", reason: error.to_string() })?;
        let mut tokenizer = Tokenizer::from_bytes(read(dir, "tokenizer.json")?)
            .map_err(|error| EmbedError::Corrupt { file: "tokenizer.json", reason: error.to_string() })?;
        let weights = read(dir, "model.safetensors")?;
        let fingerprint = weights_fingerprint(&weights);
        let pooling = match optional_json::<PoolingConfig>(dir, "1_Pooling/config.json")? {
            Some(PoolingConfig { pooling_mode_cls_token: true }) => Pooling::Cls,
            _ => Pooling::Mean,
        };
        let max_tokens = optional_json::<SentenceBertConfig>(dir, "sentence_bert_config.json")?
            .and_then(|config| config.max_seq_length)
            .unwrap_or(MAX_TOKENS)
            .clamp(8, MAX_TOKENS.min(config.max_position_embeddings));
        let (max_tokens, fingerprint) = match limit {
            Some(limit) if limit.max(8) < max_tokens => (limit.max(8), format!("{fingerprint}:t{}", limit.max(8))),
            _ => (max_tokens, fingerprint),
        };
        let query_prefix = optional_json::<SentenceTransformersConfig>(dir, "config_sentence_transformers.json")?
            .unwrap_or_default()
            .prompts
            .remove("query")
            .unwrap_or_default();
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: max_tokens, ..TruncationParams::default() }))
            .map_err(|error| EmbedError::Corrupt { file: "tokenizer.json", reason: error.to_string() })?;
        tokenizer.with_padding(None);
        let device = Device::Cpu;
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let (engine, fingerprint) = match &options.runtime {
            Runtime::Candle => {
                let weights = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
                    .map_err(|error| EmbedError::Corrupt { file: "model.safetensors", reason: error.to_string() })?;
                let model = BertModel::load(weights, &config)
                    .map_err(|error| EmbedError::Corrupt { file: "model.safetensors", reason: error.to_string() })?;
                (Engine::Candle(Box::new(model)), fingerprint)
            }
            Runtime::Onnx { library, precision } => {
                let environment = onnx::load_runtime(library)?;
                let shape: onnx::BertShape =
                    serde_json::from_slice(&config_bytes).map_err(|error| EmbedError::Corrupt { file: "config.json", reason: error.to_string() })?;
                // One session per core on one thread each, like candle's workers: measured as
                // fast as one session on every core, or batches of 8 and 16 (bench/README.md,
                // "Runtimes").
                let model = onnx::OnnxBert::new(&environment, &shape, &weights, *precision, cores, 1)?;
                let fingerprint = match precision {
                    Precision::Float32 => fingerprint,
                    Precision::Int8 => format!("{fingerprint}:int8"),
                };
                (Engine::Onnx(model), fingerprint)
            }
        };
        Ok(Embedder {
            engine,
            workers: cores,
            unpadded: tokenizer,
            pooling,
            query_prefix,
            dimensions: config.hidden_size,
            fingerprint,
            max_tokens,
            device,
        })
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Names the weights the vectors come from.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The most word pieces embedded of one text; the rest is cut.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Vectors of documents (papers: title, then abstract), in the order of `texts`.
    ///
    /// The texts are tokenized once and sorted by length, so each batch holds texts of about
    /// the same length and little of the model's work goes to padding. One worker per core
    /// takes the next batch when it is free (longest batches first), so no thread idles while
    /// another still holds a fixed share.
    pub fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = texts.iter().map(|text| (*text).to_owned()).collect();
        let encodings = self.unpadded.encode_batch(inputs, true).map_err(|error| EmbedError::Run(error.to_string()))?;
        let batches = length_sorted_batches(&encodings.iter().map(tokenizers::Encoding::len).collect::<Vec<_>>(), BATCH);
        let threads = self.workers.clamp(1, batches.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<Result<Vec<Numbered>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|worker| {
                    let (next, batches, encodings) = (&next, &batches, &encodings);
                    scope.spawn(move || {
                        let mut vectors = Vec::new();
                        loop {
                            let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(batch) = batches.get(taken) else { break };
                            let members: Vec<&tokenizers::Encoding> = batch.iter().map(|&index| &encodings[index]).collect();
                            vectors.extend(batch.iter().copied().zip(self.run(worker, &members)?));
                        }
                        Ok(vectors)
                    })
                })
                .collect();
            handles.into_iter().map(|handle| handle.join().unwrap_or_else(|_| Err(EmbedError::Run("an embedding thread panicked".into())))).collect()
        });
        let mut vectors = vec![Vec::new(); texts.len()];
        for result in results {
            for (index, vector) in result? {
                vectors[index] = vector;
            }
        }
        Ok(vectors)
    }

    /// The vector of a query (a search term), with the model's query prefix if it has one.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let prefixed = format!("{}{text}", self.query_prefix);
        let mut vectors = self.embed_batch(&[prefixed.as_str()])?;
        vectors.pop().ok_or_else(|| EmbedError::Run("no vector".into()))
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = texts.iter().map(|text| (*text).to_owned()).collect();
        let encodings = self.unpadded.encode_batch(inputs, true).map_err(|error| EmbedError::Run(error.to_string()))?;
        self.run(0, &encodings.iter().collect::<Vec<_>>())
    }

    /// Runs the model on one batch, padded (id 0, mask 0) to its longest member, as `worker`.
    fn run(&self, worker: usize, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let model = match &self.engine {
            Engine::Candle(model) => model,
            Engine::Onnx(model) => return self.run_onnx(model, worker, encodings),
        };
        let longest = encodings.iter().map(|encoding| encoding.len()).max().unwrap_or(0);
        let rows = |field: fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor> {
            let mut flat = Vec::with_capacity(encodings.len() * longest);
            for encoding in encodings {
                let values = field(encoding);
                flat.extend_from_slice(values);
                flat.resize(flat.len() + longest - values.len(), 0);
            }
            Ok(Tensor::from_vec(flat, (encodings.len(), longest), &self.device)?)
        };
        let ids = rows(tokenizers::Encoding::get_ids)?;
        let types = rows(tokenizers::Encoding::get_type_ids)?;
        let mask = rows(tokenizers::Encoding::get_attention_mask)?;
        let hidden = model.forward(&ids, &types, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
                summed.broadcast_div(&counts)?
            }
        };
        let norms = pooled.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
        let normalized = pooled.broadcast_div(&norms)?;
        Ok(normalized.to_vec2::<f32>()?)
    }

    /// [`Embedder::run`] in ONNX Runtime: the batch padded, the model run, its token vectors
    /// pooled and normalized here.
    fn run_onnx(&self, model: &onnx::OnnxBert, worker: usize, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let longest = encodings.iter().map(|encoding| encoding.len()).max().unwrap_or(0).max(1);
        let rows = |field: fn(&tokenizers::Encoding) -> &[u32]| -> Vec<i32> {
            let mut flat = Vec::with_capacity(encodings.len() * longest);
            for encoding in encodings {
                let start = flat.len();
                flat.extend(field(encoding).iter().map(|&value| value as i32));
                flat.resize(start + longest, 0);
            }
            flat
        };
        let mask = rows(tokenizers::Encoding::get_attention_mask);
        let hidden = model.forward(
            worker,
            rows(tokenizers::Encoding::get_ids),
            rows(tokenizers::Encoding::get_type_ids),
            mask.clone(),
            encodings.len(),
            longest,
        )?;
        let width = self.dimensions;
        Ok(hidden
            .chunks_exact(longest * width)
            .zip(mask.chunks_exact(longest))
            .map(|(tokens, mask)| {
                let mut pooled = vec![0.0f32; width];
                match self.pooling {
                    Pooling::Cls => pooled.copy_from_slice(&tokens[..width]),
                    Pooling::Mean => {
                        let mut count = 0.0f32;
                        for (token, &present) in tokens.chunks_exact(width).zip(mask) {
                            if present != 0 {
                                count += 1.0;
                                pooled.iter_mut().zip(token).for_each(|(sum, value)| *sum += value);
                            }
                        }
                        pooled.iter_mut().for_each(|sum| *sum /= count.max(1e-9));
                    }
                }
                let norm = pooled.iter().map(|value| value * value).sum::<f32>().sqrt().max(1e-12);
                pooled.iter_mut().for_each(|value| *value /= norm);
                pooled
            })
            .collect())
    }
}

/// Indices of texts grouped into batches of at most `size` texts of similar length (`lengths`
/// in word pieces): longest batches first, each holding neighbours in length order.
pub fn length_sorted_batches(lengths: &[usize], size: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(lengths[index]));
    order.chunks(size.max(1)).map(<[usize]>::to_vec).collect()
}

/// The cosine of two normalized vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::length_sorted_batches;

    #[test]
    fn batches_hold_neighbours_in_length_longest_first_and_every_index_once() {
        let lengths = [5, 90, 12, 90, 7, 40, 3];
        let batches = length_sorted_batches(&lengths, 3);
        assert_eq!(batches.iter().map(Vec::len).collect::<Vec<_>>(), vec![3, 3, 1]);
        let in_order: Vec<usize> = batches.iter().flatten().map(|&index| lengths[index]).collect();
        assert_eq!(in_order, vec![90, 90, 40, 12, 7, 5, 3]);
        let mut seen: Vec<usize> = batches.concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
        assert!(length_sorted_batches(&[], 16).is_empty());
    }
}
