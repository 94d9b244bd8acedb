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
    let semantic = bench::relevance::evaluate_ranking_with(
        &med,
        &Ranking::SemanticDigest(Calibration::SEMANTIC, engine::concepts::MeaningCovers::SERVICE, engine::scoring::KEY_CONCEPT_SHARE),
        Some(&vectors),
    )?;
    let (before, after) = (plain.mean.average_precision, semantic.mean.average_precision);
    assert!(after > 0.65 && after > before + 0.1, "MED MAP: BM25 {before}, semantic digest {after}");
    assert!(semantic.mean.ndcg_at_10 > plain.mean.ndcg_at_10, "{} vs {}", semantic.mean.ndcg_at_10, plain.mean.ndcg_at_10);
    // Its candidates carry the similarity, and the curve orders them as the fused score does.
    assert!(semantic.samples.iter().all(|sample| sample.evidence.similarity.is_some()));
    Ok(())
}

/// The bench measures what the service sends: one collection ranked for one topic through the
/// bench's view (`evaluate_ranking_with`, over an in-memory index of the collection) and through
/// the service's digester (over the paper index and the stored vectors) sends the same papers in
/// the same order, with the same percents and reason lines.
#[test]
fn the_bench_and_the_service_rank_one_index_alike() -> anyhow::Result<()> {
    use std::sync::Arc;

    use chrono::{Duration, TimeZone, Utc};
    use engine::embedding::{embedding_text, text_hash};
    use engine::paper::{AbstractSection, Paper, Source};

    let dir = std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model");
    let embedder = Arc::new(embed::Embedder::load(Path::new(&dir))?);
    // Two overlapping topics' judged papers from the trap collection (real abstracts).
    let trap = Collection::load(&collection("trap"), None)?;
    let judged: std::collections::BTreeSet<&String> =
        ["t03", "t04"].iter().flat_map(|topic| trap.judgments[*topic].keys().chain(trap.not_relevant[*topic].iter())).collect();
    let mut documents: Vec<_> = trap.documents.iter().filter(|document| judged.contains(&document.id)).cloned().collect();
    documents.truncate(40);
    let topic = bench::relevance::collection::Query { id: "t04".into(), text: "KRAS-mutant lung cancer".into() };
    let small = Collection { documents, queries: vec![topic.clone()], short_queries: Vec::new(), name: "trap-kras".into(), ..trap.clone() };
    let vectors = bench::relevance::DocumentVectors::of(&small, &embedder)?;
    let ranking = Ranking::SemanticDigest(Calibration::SEMANTIC, engine::concepts::MeaningCovers::SERVICE, engine::scoring::KEY_CONCEPT_SHARE);
    let measured = bench::relevance::evaluate_ranking_with(&small, &ranking, Some(&vectors))?;
    let bench_sent = &measured.per_query[0];
    assert!(bench_sent.sent.len() >= 2, "a digest worth comparing: {:?}", bench_sent.sent);

    // The service: the same papers this week, their vectors stored as the vectorizer stores them.
    let now = Utc.with_ymd_and_hms(2026, 11, 23, 9, 0, 0).single().expect("a time");
    let store = store::Store::temporary()?;
    let index = index::PaperIndex::create_in_ram()?;
    let mut writer = index.writer(index::MIN_WRITER_HEAP_BYTES)?;
    for (position, document) in small.documents.iter().enumerate() {
        let mut paper = Paper::new(Source::Pubmed, document.title.clone());
        paper.ids.doi = Some(format!("10.0000/relevance.{position}"));
        paper.abstract_sections = vec![AbstractSection { label: None, text: document.text.clone() }];
        paper.entered = Some(now.date_naive() - Duration::days(2));
        writer.upsert(paper)?;
    }
    writer.commit()?;
    let ids = index.work_ids_newest_first()?;
    let papers = index.papers_by_id(&ids)?;
    let texts: Vec<String> = papers.iter().map(|(_, paper)| embedding_text(paper)).collect();
    let embedded = embedder.embed_documents(&texts.iter().map(String::as_str).collect::<Vec<_>>())?;
    let stored: Vec<(u64, store::StoredVector)> = papers
        .iter()
        .zip(texts.iter().zip(embedded))
        .map(|((id, _), (text, vector))| {
            (id.get(), store::StoredVector { model: embedder.fingerprint().to_owned(), text_hash: text_hash(text), vector })
        })
        .collect();
    store.papers().put_vectors(&stored)?;
    let mut user = store::User::new(engine::UserId(uuid::Uuid::new_v4()), "ada@example.org", "hash".into(), now - Duration::days(30));
    user.is_email_verified = true;
    user.subscription_tier = engine::Tier::Pro;
    let user = store
        .accounts()
        .create(store::NewAccount { user, preferences: engine::account::Preferences::default(), verification: None, mail: None }, now)?;
    let mail = engine::mail::MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
    let digester = actors::Digester::new(store, index, mail).with_embedder(Arc::clone(&embedder));
    let digest = digester.run(&user, &topic.text, engine::digest::DigestKind::Weekly, now)?.into_sent().expect("allowed");

    let position_of = |title: &str| small.documents.iter().position(|document| document.title == title);
    let service_sent: Vec<String> =
        digest.papers_data.iter().filter_map(|entry| position_of(&entry.title)).map(|position| small.documents[position].id.clone()).collect();
    assert_eq!(service_sent, bench_sent.sent, "the same papers in the same order");
    let service_reasons: Vec<&str> = digest.papers_data.iter().map(|entry| entry.reason.as_str()).collect();
    assert_eq!(service_reasons, bench_sent.reasons.iter().map(String::as_str).collect::<Vec<_>>(), "the same reason lines");
    Ok(())
}
