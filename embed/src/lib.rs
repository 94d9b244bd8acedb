//! Sentence embeddings on the CPU: a sentence-transformers BERT folder (e.g. all-MiniLM-L6-v2)
//! run with candle, pure Rust. The folder holds `config.json`, `tokenizer.json`,
//! `model.safetensors`, and optionally `1_Pooling/config.json` (CLS or mean pooling; mean when
//! absent), `sentence_bert_config.json` (`max_seq_length`) and `config_sentence_transformers.json`
//! (`prompts.query`, a prefix some models want on queries, e.g. bge-small-en-v1.5).
//!
//! Every vector is L2-normalized, so the cosine of two vectors is their dot product. A text
//! longer than the model's sequence limit (256 word pieces for all-MiniLM-L6-v2, at most
//! [`MAX_TOKENS`]) is truncated: a paper's title and the start of its abstract are embedded.

pub mod nearest;
pub mod package;
pub use nearest::nearest;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// The most word pieces embedded of one text, whatever the model allows.
pub const MAX_TOKENS: usize = 256;
/// Texts run through the model together.
const BATCH: usize = 16;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("the embedding model folder {0} has no {1}")]
    Missing(PathBuf, &'static str),
    #[error("the embedding model's {file} is unreadable: {reason}")]
    Corrupt { file: &'static str, reason: String },
    #[error("embedding failed: {0}")]
    Run(String),
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

/// A loaded model, ready to embed.
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    query_prefix: String,
    dimensions: usize,
    fingerprint: String,
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
        let config: Config = serde_json::from_slice(&read(dir, "config.json")?)
            .map_err(|error| EmbedError::Corrupt { file: "config.json", reason: error.to_string() })?;
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
        let query_prefix = optional_json::<SentenceTransformersConfig>(dir, "config_sentence_transformers.json")?
            .unwrap_or_default()
            .prompts
            .remove("query")
            .unwrap_or_default();
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: max_tokens, ..TruncationParams::default() }))
            .map_err(|error| EmbedError::Corrupt { file: "tokenizer.json", reason: error.to_string() })?;
        tokenizer.with_padding(Some(PaddingParams { strategy: PaddingStrategy::BatchLongest, ..PaddingParams::default() }));
        let device = Device::Cpu;
        let weights = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|error| EmbedError::Corrupt { file: "model.safetensors", reason: error.to_string() })?;
        let model =
            BertModel::load(weights, &config).map_err(|error| EmbedError::Corrupt { file: "model.safetensors", reason: error.to_string() })?;
        Ok(Embedder { model, tokenizer, pooling, query_prefix, dimensions: config.hidden_size, fingerprint, device })
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Names the weights the vectors come from.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Vectors of documents (papers: title, then abstract).
    /// Batches run on every core at once, each on its own thread.
    pub fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).max(1);
        let batches: Vec<&[&str]> = texts.chunks(BATCH).collect();
        let per_thread = batches.len().div_ceil(threads).max(1);
        let results: Vec<Result<Vec<Vec<f32>>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = batches
                .chunks(per_thread)
                .map(|share| {
                    scope.spawn(move || {
                        let mut vectors = Vec::new();
                        for batch in share {
                            vectors.extend(self.embed_batch(batch)?);
                        }
                        Ok(vectors)
                    })
                })
                .collect();
            handles.into_iter().map(|handle| handle.join().unwrap_or_else(|_| Err(EmbedError::Run("an embedding thread panicked".into())))).collect()
        });
        let mut vectors = Vec::with_capacity(texts.len());
        for result in results {
            vectors.extend(result?);
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
        let encodings = self.tokenizer.encode_batch(inputs, true).map_err(|error| EmbedError::Run(error.to_string()))?;
        let rows = |field: fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor> {
            let rows = encodings.iter().map(|encoding| Tensor::new(field(encoding), &self.device)).collect::<candle_core::Result<Vec<_>>>()?;
            Ok(Tensor::stack(&rows, 0)?)
        };
        let ids = rows(|encoding| encoding.get_ids())?;
        let types = rows(|encoding| encoding.get_type_ids())?;
        let mask = rows(|encoding| encoding.get_attention_mask())?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
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
}

/// The cosine of two normalized vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
