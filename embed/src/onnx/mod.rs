//! A BERT encoder run by ONNX Runtime, whose CPU kernels use the machine's wide vector units
//! (AVX-512, VNNI and AMX for int8). The graph is written here from the model's own
//! `model.safetensors` (the weights checked against the published SHA-256), so no converted model
//! file has to be fetched or trusted: only the runtime's shared library, which is loaded at run
//! time ([`load_runtime`]) and so needs nothing at build time.
//!
//! The graph uses ONNX Runtime's fused transformer operators (`com.microsoft`):
//! `EmbedLayerNormalization`, `MultiHeadAttention`, `SkipLayerNormalization` and `BiasGelu`. In
//! [`Precision::Int8`] every matrix product of a layer is a `DynamicQuantizeMatMul`: the weights
//! are quantized here, symmetric per output column, and each product's input is quantized on the
//! fly by the runtime, the scheme of ONNX Runtime's own dynamic quantization.

pub mod proto;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::Tensor;
use safetensors::{Dtype, SafeTensors};
use serde::Deserialize;

use crate::{EmbedError, Result};
use proto::{Attribute, Dim, Element, Message};

const MICROSOFT: &str = "com.microsoft";

/// The numbers the model's matrix products are computed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// 32-bit floats: the weights as published.
    Float32,
    /// 8-bit integers: weights quantized per output column, inputs per product at run time.
    Int8,
}

impl Precision {
    /// The name in settings and fingerprints.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Float32 => "fp32",
            Precision::Int8 => "int8",
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = String;

    fn from_str(text: &str) -> Result<Precision, String> {
        match text {
            "fp32" => Ok(Precision::Float32),
            "int8" => Ok(Precision::Int8),
            other => Err(format!("unknown precision {other:?}: fp32 or int8")),
        }
    }
}

/// The BERT shape `config.json` gives.
#[derive(Debug, Clone, Deserialize)]
pub struct BertShape {
    pub hidden_size: usize,
    pub num_attention_heads: usize,
    pub num_hidden_layers: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_epsilon")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_activation")]
    pub hidden_act: String,
}

fn default_epsilon() -> f64 {
    1e-12
}

fn default_activation() -> String {
    "gelu".into()
}

/// ONNX Runtime's one environment of the process, and the library it was loaded from.
static ENVIRONMENT: Mutex<Option<(PathBuf, Environment)>> = Mutex::new(None);

/// Loads ONNX Runtime's shared library from `library` for the whole process. A process holds one
/// library: asking again for the same one gets it, asking for another is an error.
pub fn load_runtime(library: &Path) -> Result<Environment> {
    let failed = |error: String| EmbedError::Runtime(format!("{}: {error}", library.display()));
    let mut loaded = ENVIRONMENT.lock().map_err(|_| failed("an earlier load panicked".into()))?;
    if let Some((path, environment)) = loaded.as_ref() {
        if path != library {
            return Err(failed(format!("this process already runs ONNX Runtime from {}", path.display())));
        }
        return Ok(environment.clone());
    }
    let builder = ort::init_from(library).map_err(|error| failed(error.to_string()))?;
    let environment = builder.with_name("papertide").build().map_err(|error| failed(error.to_string()))?;
    *loaded = Some((library.to_owned(), environment.clone()));
    Ok(environment)
}

fn corrupt(reason: impl std::fmt::Display) -> EmbedError {
    EmbedError::Corrupt { file: "model.safetensors", reason: reason.to_string() }
}

fn run_error(error: impl std::fmt::Display) -> EmbedError {
    EmbedError::Run(error.to_string())
}

/// The model's weights by their name, without the `bert.` prefix some checkpoints carry.
struct Weights<'a> {
    tensors: SafeTensors<'a>,
    prefix: &'static str,
}

impl<'a> Weights<'a> {
    fn read(bytes: &'a [u8]) -> Result<Weights<'a>> {
        let tensors = SafeTensors::deserialize(bytes).map_err(corrupt)?;
        let prefix = if tensors.names().iter().any(|name| name.starts_with("bert.")) { "bert." } else { "" };
        Ok(Weights { tensors, prefix })
    }

    /// A float tensor and its shape.
    fn get(&self, name: &str) -> Result<(Vec<f32>, Vec<usize>)> {
        let full = format!("{}{name}", self.prefix);
        let view = self.tensors.tensor(&full).map_err(|_| corrupt(format!("it has no {full}")))?;
        if view.dtype() != Dtype::F32 {
            return Err(corrupt(format!("{full} is {:?}, not 32-bit floats", view.dtype())));
        }
        let values = view.data().chunks_exact(4).map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).collect();
        Ok((values, view.shape().to_vec()))
    }

    /// A linear layer's weight as `[inputs, outputs]` (stored `[outputs, inputs]`).
    fn transposed(&self, name: &str) -> Result<Matrix> {
        let (values, shape) = self.get(name)?;
        let [outputs, inputs] = shape[..] else { return Err(corrupt(format!("{name} is not a matrix"))) };
        let mut transposed = vec![0.0; values.len()];
        for row in 0..outputs {
            for column in 0..inputs {
                transposed[column * outputs + row] = values[row * inputs + column];
            }
        }
        Ok(Matrix { values: transposed, rows: inputs, columns: outputs })
    }
}

/// A row-major matrix of floats.
struct Matrix {
    values: Vec<f32>,
    rows: usize,
    columns: usize,
}

impl Matrix {
    /// The matrices side by side: one product computes all of them.
    fn beside(parts: &[Matrix]) -> Matrix {
        let rows = parts[0].rows;
        let columns = parts.iter().map(|part| part.columns).sum();
        let mut values = Vec::with_capacity(rows * columns);
        for row in 0..rows {
            for part in parts {
                values.extend_from_slice(&part.values[row * part.columns..(row + 1) * part.columns]);
            }
        }
        Matrix { values, rows, columns }
    }

    /// Symmetric int8 quantization per column: `value ≈ scale[column] × quantized`.
    fn quantized(&self) -> (Vec<i8>, Vec<f32>) {
        let mut scales = vec![0.0f32; self.columns];
        for row in self.values.chunks_exact(self.columns) {
            for (scale, value) in scales.iter_mut().zip(row) {
                *scale = scale.max(value.abs());
            }
        }
        for scale in &mut scales {
            *scale = if *scale > 0.0 { *scale / 127.0 } else { 1.0 };
        }
        let quantized = self
            .values
            .chunks_exact(self.columns)
            .flat_map(|row| row.iter().zip(&scales).map(|(value, scale)| (value / scale).round().clamp(-127.0, 127.0) as i8))
            .collect();
        (quantized, scales)
    }
}

fn float_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

/// A graph being written: its nodes and initializers.
struct Graph {
    precision: Precision,
    nodes: Vec<Message>,
    initializers: Vec<Message>,
}

impl Graph {
    fn node(&mut self, op_type: &str, domain: &str, inputs: &[&str], outputs: &[&str], attributes: &[Attribute<'_>]) {
        let name = format!("{op_type}_{}", self.nodes.len());
        self.nodes.push(proto::node(op_type, domain, &name, inputs, outputs, attributes));
    }

    fn floats(&mut self, name: &str, values: &[f32], dims: &[usize]) {
        self.initializers.push(proto::tensor(name, Element::Float, dims, &float_bytes(values)));
    }

    /// `input × weight (+ bias)` into `output`, in the graph's precision.
    fn product(&mut self, input: &str, name: &str, weight: &Matrix, bias: Option<&[f32]>, output: &str) {
        let bias_name = format!("{name}.bias");
        if let Some(bias) = bias {
            self.floats(&bias_name, bias, &[bias.len()]);
        }
        match self.precision {
            Precision::Float32 => {
                self.floats(name, &weight.values, &[weight.rows, weight.columns]);
                match bias {
                    Some(_) => {
                        let product = format!("{output}.product");
                        self.node("MatMul", "", &[input, name], &[&product], &[]);
                        self.node("Add", "", &[&product, &bias_name], &[output], &[]);
                    }
                    None => self.node("MatMul", "", &[input, name], &[output], &[]),
                }
            }
            Precision::Int8 => {
                let (quantized, scales) = weight.quantized();
                let bytes: Vec<u8> = quantized.iter().map(|value| value.to_le_bytes()[0]).collect();
                self.initializers.push(proto::tensor(name, Element::Int8, &[weight.rows, weight.columns], &bytes));
                let scale_name = format!("{name}.scale");
                let zero_name = format!("{name}.zero");
                self.floats(&scale_name, &scales, &[weight.columns]);
                self.initializers.push(proto::tensor(&zero_name, Element::Int8, &[weight.columns], &vec![0u8; weight.columns]));
                let bias_input = if bias.is_some() { bias_name.as_str() } else { "" };
                self.node("DynamicQuantizeMatMul", MICROSOFT, &[input, name, &scale_name, &zero_name, bias_input], &[output], &[]);
            }
        }
    }
}

/// Writes the ONNX model of a BERT encoder from its weights: inputs `input_ids`,
/// `token_type_ids` and `attention_mask` (int32, `[batch, sequence]`), output
/// `last_hidden_state` (`[batch, sequence, hidden]`).
pub fn bert_model(shape: &BertShape, weights: &[u8], precision: Precision) -> Result<Vec<u8>> {
    if shape.hidden_act != "gelu" {
        return Err(EmbedError::Corrupt { file: "config.json", reason: format!("hidden_act {:?} is not gelu", shape.hidden_act) });
    }
    let weights = Weights::read(weights)?;
    let epsilon = shape.layer_norm_eps as f32;
    let mut graph = Graph { precision, nodes: Vec::new(), initializers: Vec::new() };

    embeddings(&mut graph, &weights, epsilon)?;
    let hidden = shape.hidden_size;
    graph.initializers.push(proto::tensor(
        "qkv.split",
        Element::Int64,
        &[3],
        &[hidden as i64; 3].iter().flat_map(|size| size.to_le_bytes()).collect::<Vec<u8>>(),
    ));

    for layer in 0..shape.num_hidden_layers {
        encoder_layer(&mut graph, &weights, shape, layer, epsilon)?;
    }
    let last = format!("hidden.{}", shape.num_hidden_layers);
    graph.node("Identity", "", &[&last], &["last_hidden_state"], &[]);

    Ok(model_bytes(&graph, hidden))
}

/// The embeddings: word, position and token type, summed and normalized into `hidden.0`.
fn embeddings(graph: &mut Graph, weights: &Weights<'_>, epsilon: f32) -> Result<()> {
    for name in [
        "embeddings.word_embeddings.weight",
        "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
        "embeddings.LayerNorm.weight",
        "embeddings.LayerNorm.bias",
    ] {
        let (values, dims) = weights.get(name)?;
        graph.floats(name, &values, &dims);
    }
    graph.node(
        "EmbedLayerNormalization",
        MICROSOFT,
        &[
            "input_ids",
            "token_type_ids",
            "embeddings.word_embeddings.weight",
            "embeddings.position_embeddings.weight",
            "embeddings.token_type_embeddings.weight",
            "embeddings.LayerNorm.weight",
            "embeddings.LayerNorm.bias",
        ],
        &["hidden.0", "mask_index"],
        &[Attribute::Float("epsilon", epsilon)],
    );
    Ok(())
}

/// Encoder layer `layer`: attention (one Q|K|V product split into `MultiHeadAttention`), then the
/// feed-forward part, each closed by a skip layer norm; `hidden.{layer}` to `hidden.{layer + 1}`.
fn encoder_layer(graph: &mut Graph, weights: &Weights<'_>, shape: &BertShape, layer: usize, epsilon: f32) -> Result<()> {
    let at = |part: &str| format!("encoder.layer.{layer}.{part}");
    let input = format!("hidden.{layer}");
    let output = format!("hidden.{}", layer + 1);

    let qkv = Matrix::beside(&[
        weights.transposed(&at("attention.self.query.weight"))?,
        weights.transposed(&at("attention.self.key.weight"))?,
        weights.transposed(&at("attention.self.value.weight"))?,
    ]);
    let qkv_bias: Vec<f32> = [at("attention.self.query.bias"), at("attention.self.key.bias"), at("attention.self.value.bias")]
        .iter()
        .map(|name| weights.get(name).map(|(values, _)| values))
        .collect::<Result<Vec<_>>>()?
        .concat();
    let qkv_name = at("attention.qkv");
    let projected = at("attention.projected");
    graph.product(&input, &qkv_name, &qkv, Some(&qkv_bias), &projected);
    let (query, key, value) = (at("attention.q"), at("attention.k"), at("attention.v"));
    graph.node("Split", "", &[&projected, "qkv.split"], &[&query, &key, &value], &[Attribute::Int("axis", 2)]);
    let context = at("attention.context");
    graph.node(
        "MultiHeadAttention",
        MICROSOFT,
        &[&query, &key, &value, "", "attention_mask"],
        &[&context],
        &[Attribute::Int("num_heads", shape.num_attention_heads as i64)],
    );

    let attention_out = at("attention.output.dense");
    let attention_projected = format!("{attention_out}.projected");
    graph.product(&context, &format!("{attention_out}.weight"), &weights.transposed(&format!("{attention_out}.weight"))?, None, &attention_projected);
    let attended = at("attention.output");
    skip_layer_norm(graph, weights, &attention_out, &attention_projected, &input, &at("attention.output"), &attended, epsilon)?;

    let intermediate = at("intermediate.dense");
    let expanded = format!("{intermediate}.projected");
    graph.product(&attended, &format!("{intermediate}.weight"), &weights.transposed(&format!("{intermediate}.weight"))?, None, &expanded);
    let (bias, _) = weights.get(&format!("{intermediate}.bias"))?;
    graph.floats(&format!("{intermediate}.bias"), &bias, &[bias.len()]);
    let activated = at("intermediate.gelu");
    graph.node("BiasGelu", MICROSOFT, &[&expanded, &format!("{intermediate}.bias")], &[&activated], &[]);

    let out = at("output.dense");
    let out_projected = format!("{out}.projected");
    graph.product(&activated, &format!("{out}.weight"), &weights.transposed(&format!("{out}.weight"))?, None, &out_projected);
    skip_layer_norm(graph, weights, &out, &out_projected, &attended, &at("output"), &output, epsilon)?;
    Ok(())
}

/// The model's bytes: the graph with its inputs and output, opsets 17 and Microsoft's 1.
fn model_bytes(graph: &Graph, hidden: usize) -> Vec<u8> {
    let batch_by_sequence = [Dim::Named("batch"), Dim::Named("sequence")];
    let mut graph_proto = Message::default();
    for node in &graph.nodes {
        graph_proto.message(1, node);
    }
    graph_proto.string(2, "bert");
    for initializer in &graph.initializers {
        graph_proto.message(5, initializer);
    }
    for input in ["input_ids", "token_type_ids", "attention_mask"] {
        graph_proto.message(11, &proto::value_info(input, Element::Int32, &batch_by_sequence));
    }
    graph_proto
        .message(12, &proto::value_info("last_hidden_state", Element::Float, &[Dim::Named("batch"), Dim::Named("sequence"), Dim::Fixed(hidden)]));

    let mut model = Message::default();
    model.int(1, 8).string(2, "papertide").message(7, &graph_proto).message(8, &proto::opset("", 17)).message(8, &proto::opset(MICROSOFT, 1));
    model.into_bytes()
}

/// `LayerNorm(projected + bias + residual)` with the layer norm of `prefix` and the bias of the
/// linear layer `dense`.
#[allow(clippy::too_many_arguments)]
fn skip_layer_norm(
    graph: &mut Graph,
    weights: &Weights<'_>,
    dense: &str,
    projected: &str,
    residual: &str,
    prefix: &str,
    output: &str,
    epsilon: f32,
) -> Result<()> {
    let (bias, _) = weights.get(&format!("{dense}.bias"))?;
    graph.floats(&format!("{dense}.bias"), &bias, &[bias.len()]);
    for part in ["weight", "bias"] {
        let name = format!("{prefix}.LayerNorm.{part}");
        let (values, _) = weights.get(&name)?;
        graph.floats(&name, &values, &[values.len()]);
    }
    graph.node(
        "SkipLayerNormalization",
        MICROSOFT,
        &[projected, residual, &format!("{prefix}.LayerNorm.weight"), &format!("{prefix}.LayerNorm.bias"), &format!("{dense}.bias")],
        &[output],
        &[Attribute::Float("epsilon", epsilon)],
    );
    Ok(())
}

/// A BERT encoder in ONNX Runtime: one session per worker, each on one thread.
pub struct OnnxBert {
    sessions: Vec<Mutex<Session>>,
    hidden: usize,
}

impl OnnxBert {
    /// Builds the graph and opens `sessions` sessions of it, each running on `threads` threads,
    /// in the runtime [`load_runtime`] loaded.
    pub fn new(
        environment: &Environment,
        shape: &BertShape,
        weights: &[u8],
        precision: Precision,
        sessions: usize,
        threads: usize,
    ) -> Result<OnnxBert> {
        let model = bert_model(shape, weights, precision)?;
        let sessions = (0..sessions.max(1))
            .map(|_| {
                let session = Session::builder(environment)
                    .map_err(run_error)?
                    .with_optimization_level(GraphOptimizationLevel::Level3)
                    .map_err(run_error)?
                    .with_intra_threads(threads.max(1))
                    .map_err(run_error)?
                    .with_inter_threads(1)
                    .map_err(run_error)?
                    .commit_from_memory(&model)
                    .map_err(|error| EmbedError::Runtime(format!("the model's graph does not load: {error}")))?;
                Ok(Mutex::new(session))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(OnnxBert { sessions, hidden: shape.hidden_size })
    }

    /// The last hidden state (`[batch, sequence, hidden]`, row-major) of a padded batch, run by
    /// session `worker`.
    pub fn forward(&self, worker: usize, ids: Vec<i32>, types: Vec<i32>, mask: Vec<i32>, batch: usize, sequence: usize) -> Result<Vec<f32>> {
        let shape = [batch as i64, sequence as i64];
        let tensor = |values: Vec<i32>| Tensor::from_array((shape, values)).map_err(run_error);
        let inputs = ort::inputs!["input_ids" => tensor(ids)?, "token_type_ids" => tensor(types)?, "attention_mask" => tensor(mask)?];
        let mut session =
            self.sessions[worker % self.sessions.len()].lock().map_err(|_| EmbedError::Run("an embedding session was poisoned".into()))?;
        let outputs = session.run(inputs).map_err(run_error)?;
        let (_, values) = outputs["last_hidden_state"].try_extract_tensor::<f32>().map_err(run_error)?;
        if values.len() != batch * sequence * self.hidden {
            return Err(EmbedError::Run(format!("the model gave {} values for a batch of {batch} × {sequence}", values.len())));
        }
        Ok(values.to_vec())
    }
}
