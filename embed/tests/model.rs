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
    println!("near {near:.4} far {far:.4}");
    assert!(near > far + 0.2, "near {near}, far {far}");
    let norm: f32 = query.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "normalized: {norm}");
}
