//! The relevance harness on the MED and Cranfield collections shipped in `bench/collections/`
//! (with their provenance), and on a small BEIR-layout collection: the files are read with the
//! right conventions and the production ranking lands where plain BM25 does (see
//! `bench/collections/BASELINES.md`); a wiring error (a wrong query mapping, say) drops MAP to
//! about 0.01.

use std::path::{Path, PathBuf};

use bench::relevance::{evaluate, evaluate_ranking, Calibration, Collection, Format, Ranking, Rm3};

fn collection(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("collections").join(name)
}

#[test]
fn med_is_read_whole_and_ranked_like_bm25() -> anyhow::Result<()> {
    let med = Collection::load(&collection("med"), None)?;
    assert_eq!((med.documents.len(), med.queries.len(), med.judgments.len()), (1033, 30, 30));
    assert_eq!(med.judgments.values().map(|relevant| relevant.len()).sum::<usize>(), 696);
    let evaluation = evaluate(&med, None)?;
    assert_eq!(evaluation.queries, 30);
    assert!(evaluation.mean.average_precision > 0.45, "MED MAP {}", evaluation.mean.average_precision);
    assert!(evaluation.mean.ndcg_at_10 > 0.55, "MED nDCG@10 {}", evaluation.mean.ndcg_at_10);
    let observed: Vec<f64> = evaluation.calibration.iter().filter(|bin| bin.hits >= 30).map(|bin| bin.observed).collect();
    assert!(observed.len() >= 2 && observed.windows(2).all(|pair| pair[0] <= pair[1]), "higher relevance, more relevant hits: {observed:?}");
    let expanded = evaluate(&med, Some(&Rm3::default()))?;
    let (before, after) = (evaluation.mean.average_precision, expanded.mean.average_precision);
    assert!(after > before + 0.03, "RM3 expansion should lift MED's MAP well above plain BM25: {before} -> {after}");
    Ok(())
}

#[test]
fn cranfield_queries_are_numbered_by_position_and_graded_by_code() -> anyhow::Result<()> {
    let cranfield = Collection::load(&collection("cranfield"), Some(Format::Smart))?;
    assert_eq!((cranfield.documents.len(), cranfield.queries.len()), (1400, 225));
    assert_eq!(cranfield.queries.last().map(|query| query.id.as_str()), Some("225"));
    assert_eq!(cranfield.judgments.values().map(|relevant| relevant.len()).sum::<usize>(), 1612, "codes 1–4 only");
    let evaluation = evaluate(&cranfield, None)?;
    assert!(evaluation.mean.average_precision > 0.25, "Cranfield MAP {}", evaluation.mean.average_precision);
    // The digest's ranking: expanded, then ordered and cut by the absolute relevance.
    let digest = evaluate_ranking(&cranfield, &Ranking::Digest(Rm3::default(), Calibration::LEXICAL))?;
    assert!(
        digest.mean.average_precision > evaluation.mean.average_precision + 0.02,
        "{} vs {}",
        digest.mean.average_precision,
        evaluation.mean.average_precision
    );
    let bins: Vec<(f64, f64)> = digest.calibration.iter().filter(|bin| bin.hits >= 50).map(|bin| (bin.predicted, bin.observed)).collect();
    assert!(bins.len() >= 5 && bins.windows(2).all(|pair| pair[0].1 <= pair[1].1), "higher relevance, more relevant hits: {bins:?}");
    for (predicted, observed) in &bins {
        assert!((predicted - observed).abs() < 0.2, "the absolute score means about what it says on Cranfield: {bins:?}");
    }
    Ok(())
}

#[test]
fn beir_collections_are_read_and_measured() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("qrels"))?;
    std::fs::write(
        dir.path().join("corpus.jsonl"),
        concat!(
            "{\"_id\": \"d1\", \"title\": \"Glucose in fetal plasma\", \"text\": \"maternal and fetal glucose levels\"}\n",
            "{\"_id\": \"d2\", \"title\": \"Wing aerodynamics\", \"text\": \"lift of a wing in a slipstream\"}\n",
            "{\"_id\": 3, \"title\": \"Lens proteins\", \"text\": \"the crystalline lens of vertebrates\"}\n",
        ),
    )?;
    std::fs::write(
        dir.path().join("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"fetal glucose?\"}\n{\"_id\": \"q2\", \"text\": \"crystalline lens\"}\n",
    )?;
    std::fs::write(dir.path().join("qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\t3\t2\nq2\td2\t0\n")?;
    let beir = Collection::load(dir.path(), None)?;
    assert_eq!((beir.documents.len(), beir.queries.len(), beir.judgments.len()), (3, 2, 2));
    let evaluation = evaluate(&beir, None)?;
    assert_eq!(evaluation.queries, 2);
    assert!((evaluation.mean.average_precision - 1.0).abs() < 1e-9, "{evaluation:?}");

    std::fs::write(dir.path().join("qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\n")?;
    assert!(Collection::load(dir.path(), None).is_err(), "a qrels line without a score is refused");
    Ok(())
}

#[test]
fn a_directory_without_a_collection_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let error = Collection::load(dir.path(), None).expect_err("nothing there");
    assert!(format!("{error:#}").contains("no documents (*.ALL) file"), "{error:#}");
}

#[test]
fn the_semantic_digest_ranking_beats_bm25_on_med_with_the_real_model() -> anyhow::Result<()> {
    let dir = std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model");
    let embedder = embed::Embedder::load(Path::new(&dir))?;
    let med = Collection::load(&collection("med"), None)?;
    let vectors = bench::relevance::DocumentVectors::of(&med, &embedder)?;
    let plain = evaluate(&med, None)?;
    let semantic = bench::relevance::evaluate_ranking_with(&med, &Ranking::SemanticDigest(Calibration::SEMANTIC, engine::concepts::MeaningCovers::SERVICE, engine::scoring::KEY_CONCEPT_SHARE), Some(&vectors))?;
    let (before, after) = (plain.mean.average_precision, semantic.mean.average_precision);
    assert!(after > 0.65 && after > before + 0.1, "MED MAP: BM25 {before}, semantic digest {after}");
    assert!(semantic.mean.ndcg_at_10 > plain.mean.ndcg_at_10, "{} vs {}", semantic.mean.ndcg_at_10, plain.mean.ndcg_at_10);
    // Its candidates carry the similarity, and the curve orders them as the fused score does.
    assert!(semantic.samples.iter().all(|sample| sample.evidence.similarity.is_some()));
    Ok(())
}
