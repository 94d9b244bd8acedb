//! The vectorizer: every indexed paper embedded into the store with the real model
//! (all-MiniLM-L6-v2 from `PAPERTIDE_TEST_EMBED_MODEL_DIR`), again when a merge changes its text
//! or the model changes; and with stand-in models, failures and panics recorded and retried,
//! a stop between batches, and a restart that embeds only what is missing.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use actix::Addr;
use actors::{ActorStatus, DocumentEmbedder, Indexer, Ingest, StatusBoard, Vectorizer, VectorizerConfig, VectorizerThread};
use embed::{EmbedError, Embedder};
use engine::embedding::{embedding_text, text_hash};
use engine::paper::{AbstractSection, Author, Paper, Source};
use index::{PaperId, PaperIndex};
use store::{Store, StoredVector};

const WRITER_HEAP: usize = 20 * 1024 * 1024;

/// The real model, loaded once for every test of this binary.
fn real_model() -> Arc<Embedder> {
    static MODEL: OnceLock<Arc<Embedder>> = OnceLock::new();
    let model = MODEL.get_or_init(|| {
        let dir = std::env::var("PAPERTIDE_TEST_EMBED_MODEL_DIR").expect("PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model");
        Arc::new(Embedder::load(&PathBuf::from(dir)).expect("the model loads"))
    });
    Arc::clone(model)
}

/// Checks often, retries soon, embeds two papers a batch.
fn quick() -> VectorizerConfig {
    VectorizerConfig {
        check_interval: Duration::from_millis(20),
        batch_size: 2,
        retry_base: Duration::from_millis(20),
        retry_cap: Duration::from_millis(200),
    }
}

struct Papers {
    store: Store,
    index: PaperIndex,
    board: StatusBoard,
    indexer: Addr<Indexer>,
}

impl Papers {
    fn new() -> Papers {
        let (store, index, board) = (Store::temporary().expect("store"), PaperIndex::create_in_ram().expect("index"), StatusBoard::default());
        let indexer = Indexer::new(index.clone(), WRITER_HEAP, board.clone()).start_in_own_thread().0;
        Papers { store, index, board, indexer }
    }

    async fn ingest(&self, papers: Vec<Paper>) {
        self.indexer.send(Ingest(papers)).await.expect("indexer alive").expect("indexed");
    }

    fn start(&self, embedder: Arc<dyn DocumentEmbedder>, config: VectorizerConfig) -> VectorizerThread {
        Vectorizer::new(embedder, self.index.clone(), self.store.clone(), self.board.clone(), config).start_in_own_thread().1
    }

    fn status(&self) -> ActorStatus {
        self.board.get(actors::vectorizer::ACTOR_NAME).unwrap_or_default()
    }

    /// Whether a pass ended with `works` papers embedded and none waiting.
    fn settled_at(&self, works: u64) -> bool {
        let status = self.status();
        !status.busy && status.last_success_at.is_some() && status.up_to_date == works && status.queue_depth == 0
    }

    fn ids(&self) -> Vec<PaperId> {
        self.index.work_ids_newest_first().expect("ids")
    }

    fn vector(&self, id: PaperId) -> StoredVector {
        self.store.papers().vector(id.get()).expect("store").unwrap_or_else(|| panic!("paper {id} has no vector"))
    }
}

fn paper(source: Source, title: &str, abstract_text: &str, day: &str) -> Paper {
    let mut paper = Paper::new(source, title);
    paper.authors = vec![Author::person(Some("A."), "Reed")];
    paper.abstract_sections = vec![AbstractSection { label: None, text: abstract_text.into() }];
    paper.entered = Some(day.parse().expect("a YYYY-MM-DD day"));
    paper.published = paper.entered;
    paper
}

fn arxiv_version(version: u32, abstract_text: &str, day: &str) -> Paper {
    let mut record = paper(Source::Arxiv, "Generative adversarial text to image synthesis", abstract_text, day);
    record.ids.arxiv = Some("1605.05396".into());
    record.ids.preprint_version = Some(version);
    record
}

async fn wait_for(what: &str, condition: impl Fn() -> bool) {
    // The real model shares two cores with other builds: generous, but never a fixed sleep.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        actix_rt::time::sleep(Duration::from_millis(20)).await;
    }
}

#[actix_rt::test]
async fn every_indexed_paper_gets_the_models_vector_of_its_text_once() {
    let papers = Papers::new();
    let recorded = engine::parse::pubmed::parse_efetch(include_str!("../../../engine/fixtures/pubmed/efetch_batch_6_articles.xml")).items;
    assert_eq!(recorded.len(), 6);
    papers.ingest(recorded).await;
    let model = real_model();
    let _vectorizer = papers.start(model.clone(), quick());

    wait_for("the six papers are embedded", || papers.settled_at(6)).await;
    for (id, paper) in papers.index.papers_by_id(&papers.ids()).expect("papers") {
        let stored = papers.vector(id);
        let text = embedding_text(&paper);
        assert_eq!((stored.model.as_str(), stored.text_hash), (model.fingerprint(), text_hash(&text)), "paper {id}");
        assert_eq!(stored.vector.len(), 384);
        let alone = model.embed_documents(&[text.as_str()]).expect("embedded");
        let cosine = embed::cosine(&stored.vector, &alone[0]);
        assert!(cosine > 0.999, "paper {id}: the stored vector is the paper's own (cosine {cosine})");
    }
    let status = papers.status();
    assert_eq!((status.processed_total, status.failed_total, status.restarts), (6, 0, 0));

    papers.ingest(vec![paper(Source::Arxiv, "Sparse attention for protein language models", "Long sequences, cheaply.", "2026-01-05")]).await;
    wait_for("the new paper is embedded", || papers.settled_at(7)).await;
    assert_eq!(papers.status().processed_total, 7, "only the new paper was embedded; the six were not again");
}

#[actix_rt::test]
async fn a_paper_whose_text_a_merge_changed_is_embedded_again() {
    let papers = Papers::new();
    let unrelated = paper(Source::Pubmed, "Statin use and drug-induced liver injury", "A cohort of statin users.", "2026-01-02");
    papers.ingest(vec![arxiv_version(1, "We translate captions into images with a GAN.", "2026-01-01"), unrelated]).await;
    let _vectorizer = papers.start(real_model(), quick());
    wait_for("both papers are embedded", || papers.settled_at(2)).await;
    let before: Vec<(PaperId, StoredVector)> = papers.ids().into_iter().map(|id| (id, papers.vector(id))).collect();

    // Version 2 of the preprint is the same work with a new abstract, which replaces version 1's.
    papers.ingest(vec![arxiv_version(2, "Birds and flowers are drawn from their written descriptions.", "2026-01-03")]).await;
    let ids = papers.ids();
    assert_eq!(ids.len(), 2, "merged into the same work");
    let (merged_id, merged) = papers.index.papers_by_id(&ids[..1]).expect("papers").remove(0);
    let new_hash = text_hash(&embedding_text(&merged));
    wait_for("the merged paper's vector is of its new text", || papers.vector(merged_id).text_hash == new_hash).await;
    wait_for("the pass ends", || papers.settled_at(2) && papers.status().processed_total == 3).await;

    for (id, old) in before {
        let now = papers.vector(id);
        if id == merged_id {
            assert!(embed::cosine(&old.vector, &now.vector) < 0.99, "the vector follows the new abstract");
        } else {
            assert_eq!(now, old, "the unrelated paper was left alone");
        }
    }
}

#[actix_rt::test]
async fn vectors_of_another_model_are_replaced_and_those_of_merged_away_works_dropped() {
    let papers = Papers::new();
    papers
        .ingest(vec![
            paper(Source::Pubmed, "Hepatic steatosis after phthalate exposure", "Mice fed DEHP.", "2026-01-01"),
            paper(Source::Biorxiv, "Soil fungi under drought", "Twelve sites sampled.", "2026-01-02"),
            paper(Source::Arxiv, "Quantum error correction with cat qubits", "A repetition code.", "2026-01-03"),
        ])
        .await;
    let ids = papers.ids();
    let gone = 9_999;
    let old = |id: u64| (id, StoredVector { model: "another-model".into(), text_hash: 1, vector: vec![0.5; 8] });
    let stale: Vec<(u64, StoredVector)> = ids.iter().map(|id| old(id.get())).chain([old(gone)]).collect();
    papers.store.papers().put_vectors(&stale).expect("stored");

    let model = real_model();
    let _vectorizer = papers.start(model.clone(), quick());
    wait_for("the three papers are embedded with the real model", || papers.settled_at(3)).await;
    assert_eq!(papers.store.papers().vector_count(model.fingerprint()).expect("count"), 3);
    assert_eq!(papers.store.papers().vector_count("another-model").expect("count"), 0);
    let mut listed: Vec<u64> = ids.iter().map(|id| id.get()).collect();
    listed.sort_unstable();
    assert_eq!(papers.store.papers().vector_ids().expect("ids"), listed, "the vector of a work no longer indexed is dropped");
    assert_eq!(papers.status().processed_total, 3);
}

/// A stand-in model: a vector of a text is its length and a one; it fails as its plan says.
struct StandIn {
    calls: AtomicUsize,
    /// What call number `n` (1 for the first) does: `Ok`, `Err` or a panic.
    plan: fn(usize) -> Result<(), &'static str>,
}

impl StandIn {
    fn new(plan: fn(usize) -> Result<(), &'static str>) -> Arc<StandIn> {
        Arc::new(StandIn { calls: AtomicUsize::new(0), plan })
    }
}

impl DocumentEmbedder for StandIn {
    fn fingerprint(&self) -> &str {
        "stand-in"
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        (self.plan)(call).map_err(|why| EmbedError::Run(why.into()))?;
        Ok(texts.iter().map(|text| vec![text.len() as f32, 1.0]).collect())
    }
}

fn three_papers() -> Vec<Paper> {
    vec![
        paper(Source::Pubmed, "Oldest: kidney organoids", "Grown for a month.", "2026-01-01"),
        paper(Source::Arxiv, "Middle: sparse transformers", "Attention on a budget.", "2026-01-02"),
        paper(Source::Biorxiv, "Newest: soil fungi", "Twelve sites.", "2026-01-03"),
    ]
}

#[actix_rt::test]
async fn a_failing_or_panicking_batch_is_recorded_and_retried_later() {
    let papers = Papers::new();
    papers.ingest(three_papers()).await;
    let model = StandIn::new(|call| match call {
        1 => Err("the model is unwell"),
        2 => panic!("a bug in the model"),
        _ => Ok(()),
    });
    let _vectorizer = papers.start(model.clone(), quick());

    wait_for("every paper is embedded after the retries", || papers.settled_at(3)).await;
    let status = papers.status();
    assert_eq!((status.failed_total, status.restarts, status.processed_total), (2, 1, 3), "{status:?}");
    assert_eq!(status.last_error.as_deref(), Some("embedding a batch panicked"));
    assert_eq!(papers.store.papers().vector_count("stand-in").expect("count"), 3);
    assert_eq!(model.calls.load(Ordering::SeqCst), 4, "two failed calls, then two batches");
}

/// A stand-in model that tells the test each batch it is given and waits for leave to answer (at
/// most a minute, so a loaded machine does not turn the wait into a failed batch; once the test
/// drops its sender, at once).
struct Gated {
    batches: Mutex<mpsc::Sender<Vec<String>>>,
    leave: Mutex<mpsc::Receiver<()>>,
}

impl DocumentEmbedder for Gated {
    fn fingerprint(&self) -> &str {
        "stand-in"
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let batch = texts.iter().map(|text| (*text).to_owned()).collect();
        self.batches.lock().expect("lock").send(batch).map_err(|_| EmbedError::Run("the test is gone".into()))?;
        let leave = self.leave.lock().expect("lock").recv_timeout(Duration::from_secs(60));
        leave.map_err(|_| EmbedError::Run("no leave to answer".into()))?;
        Ok(texts.iter().map(|text| vec![text.len() as f32, 1.0]).collect())
    }
}

#[actix_rt::test]
async fn a_stopped_vectorizer_ends_after_its_batch_and_a_new_one_embeds_only_what_is_missing() {
    let papers = Papers::new();
    papers.ingest(three_papers()).await;
    let (batches_sender, batches) = mpsc::channel();
    let (leave, leave_receiver) = mpsc::channel();
    let gated = Arc::new(Gated { batches: Mutex::new(batches_sender), leave: Mutex::new(leave_receiver) });
    let config = VectorizerConfig { batch_size: 1, ..quick() };
    let thread = papers.start(gated, config);

    let first = actix_rt::task::spawn_blocking(move || (batches.recv_timeout(Duration::from_secs(60)), batches)).await.expect("joined");
    let (first, batches) = (first.0.expect("a first batch"), first.1);
    assert!(first[0].starts_with("Newest: soil fungi."), "newest first: {first:?}");
    assert!(thread.stop(), "the thread was running");
    leave.send(()).expect("the model waits");
    drop(leave);
    actix_rt::task::spawn_blocking(move || thread.join()).await.expect("joined").expect("the vectorizer's thread ended");
    assert!(batches.try_recv().is_err(), "no second batch was begun");
    assert_eq!(papers.store.papers().vector_count("stand-in").expect("count"), 1, "the batch under way was written");

    let restarted = Papers { board: StatusBoard::default(), ..papers };
    let model = StandIn::new(|_| Ok(()));
    let _vectorizer = restarted.start(model.clone(), config);
    wait_for("the rest is embedded", || restarted.settled_at(3)).await;
    assert_eq!(restarted.status().processed_total, 2, "the paper embedded before the stop was not embedded again");
    assert_eq!(model.calls.load(Ordering::SeqCst), 2);
}
