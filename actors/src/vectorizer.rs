//! The [`Vectorizer`]: embeds every paper of the index once, in the background, and keeps its
//! vector in the store (`paper_vectors`), made again when the paper's text or the model changes.
//!
//! It looks at the index at start and every [`VectorizerConfig::check_interval`]; when the
//! index's generation changed since its last complete pass, a pass begins. A pass lists every
//! work newest first (`PaperIndex::work_ids_newest_first`), drops the vectors of works no longer
//! in the index (absorbed by a merge), then walks the list and embeds each work that
//! `engine::embedding::needs_embedding` says is stale — no vector, one of another model, or one
//! of another text than the paper's `engine::embedding::embedding_text` — in batches of
//! [`VectorizerConfig::batch_size`], newest first, each batch written to the store at once. A
//! model change (another fingerprint) thus embeds everything again, newest papers first.
//!
//! Each step of a pass (one batch, or a bounded stretch of up-to-date works) is a message the
//! actor sends itself after yielding to its arbiter, so other messages and a stop of the arbiter
//! get in between batches. A crash loses at most the batch being embedded; a restart begins a
//! new pass, which skips everything already embedded. A stored record that cannot be read counts
//! as no vector, and is made again.
//!
//! It runs on its own arbiter (thread): embedding a batch takes seconds of every core and must
//! not stall HTTP requests or the indexer. An error or a panic in a step is recorded on the
//! [`StatusBoard`] (a panic also as a restart), the pass is dropped, and a new one begins after
//! a doubling wait ([`VectorizerConfig::retry_base`] to [`VectorizerConfig::retry_cap`]), so
//! the failed batch is tried again without a crash loop.
//!
//! Board entry [`ACTOR_NAME`]: `busy` during a pass, `up_to_date` the works with a vector of
//! the current model, `queue_depth` the works waiting for one, `processed_total` the papers
//! embedded since start, `work_millis_total` the time their batches took, `failed_total` the
//! failed steps.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use chrono::Utc;
use embed::{EmbedError, Embedder};
use engine::embedding::{embedding_text, needs_embedding, text_hash};
use index::{IndexError, PaperId, PaperIndex};
use store::{Store, StoreError, StoredVector, VectorStamp};

use crate::status::StatusBoard;

pub const ACTOR_NAME: &str = "vectorizer";
/// The most works a step looks at without finding a batch to embed: a step stays short when
/// nearly every work is up to date.
const LOOK_AT_MOST_PER_STEP: usize = 1_024;

/// What the vectorizer needs of a model: the fingerprint that names its vectors, and the vectors
/// of documents. [`Embedder`] is the real one; tests put in models that fail or wait.
pub trait DocumentEmbedder: Send + Sync + 'static {
    fn fingerprint(&self) -> &str;

    /// One vector per text, in order.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

impl DocumentEmbedder for Embedder {
    fn fingerprint(&self) -> &str {
        Embedder::fingerprint(self)
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Embedder::embed_documents(self, texts)
    }
}

/// How the vectorizer paces itself; every knob in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorizerConfig {
    /// How often the index is looked at for new commits.
    pub check_interval: Duration,
    /// Papers embedded together and written in one batch.
    pub batch_size: usize,
    /// The wait for a new pass after a failed step, doubling with each failure in a row…
    pub retry_base: Duration,
    /// …up to this.
    pub retry_cap: Duration,
}

impl Default for VectorizerConfig {
    fn default() -> VectorizerConfig {
        VectorizerConfig {
            check_interval: Duration::from_secs(10),
            batch_size: 32,
            retry_base: Duration::from_secs(30),
            retry_cap: Duration::from_secs(3600),
        }
    }
}

/// Look at the index now: begin a pass if it changed since the last complete one. Sent by the
/// vectorizer's timer; others may send it too.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct CheckIndex;

/// Take the next step of the pass under way (sent by the vectorizer to itself).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
struct EmbedNextBatch;

/// Why a step failed.
#[derive(Debug, thiserror::Error)]
pub enum VectorizerError {
    #[error("reading the paper index: {0}")]
    Index(#[from] IndexError),
    #[error("reading or writing paper vectors: {0}")]
    Store(#[from] StoreError),
    #[error("embedding papers: {0}")]
    Embed(#[from] EmbedError),
    #[error("the model gave {vectors} vectors for {texts} texts")]
    VectorCount { texts: usize, vectors: usize },
    #[error("embedding a batch panicked")]
    Panicked,
}

/// Embeds the index's papers into the store. See the module documentation.
pub struct Vectorizer {
    embedder: Arc<dyn DocumentEmbedder>,
    index: PaperIndex,
    store: Store,
    board: StatusBoard,
    config: VectorizerConfig,
    /// The index generation of the last pass that found every work up to date.
    finished_generation: Option<u64>,
    pass: Option<Pass>,
    /// Failed steps since the last success; a new pass waits [`retry_delay`] after the last one.
    failures_in_a_row: u32,
    retry_at: Option<Instant>,
    /// Set by [`VectorizerThread::stop`]: no step begins once it is.
    stopping: Arc<AtomicBool>,
}

/// The thread a vectorizer runs on, from [`Vectorizer::start_in_own_thread`].
pub struct VectorizerThread {
    arbiter: Arbiter,
    stopping: Arc<AtomicBool>,
}

impl VectorizerThread {
    /// Stops the vectorizer after the step under way: no new batch is begun, even when the
    /// arbiter would run the actor's next step before it saw its stop. False when the thread
    /// had already ended.
    pub fn stop(&self) -> bool {
        self.stopping.store(true, Ordering::SeqCst);
        self.arbiter.stop()
    }

    /// Waits for the thread to end (after [`VectorizerThread::stop`]).
    pub fn join(self) -> std::thread::Result<()> {
        self.arbiter.join()
    }
}

/// A pass over one generation of the index.
struct Pass {
    generation: u64,
    /// Every work of that generation, newest first.
    ids: Vec<PaperId>,
    /// How many of `ids` have been looked at.
    looked_at: usize,
    /// Works found stale and not embedded yet, newest first.
    stale: VecDeque<StaleWork>,
    /// Works with a vector of the current model, and works waiting for one.
    embedded: u64,
    waiting: u64,
    /// Papers this pass embedded.
    embedded_now: u64,
}

/// A work to embed: the text it is embedded from now, and that text's hash.
struct StaleWork {
    id: PaperId,
    text: String,
    text_hash: u64,
}

/// What a step left to do.
enum Step {
    /// The pass goes on.
    Continue,
    /// Every work of the pass's generation is up to date.
    Finished,
}

impl Vectorizer {
    /// A vectorizer embedding `index`'s papers with `embedder` into `store`; a batch size of 0
    /// counts as 1.
    pub fn new(embedder: Arc<dyn DocumentEmbedder>, index: PaperIndex, store: Store, board: StatusBoard, config: VectorizerConfig) -> Vectorizer {
        Vectorizer {
            embedder,
            index,
            store,
            board,
            config: VectorizerConfig { batch_size: config.batch_size.max(1), ..config },
            finished_generation: None,
            pass: None,
            failures_in_a_row: 0,
            retry_at: None,
            stopping: Arc::default(),
        }
    }

    /// Starts the vectorizer under a supervisor on a new arbiter (its own thread). Keep the
    /// thread: stopping it stops the vectorizer (after the step under way).
    pub fn start_in_own_thread(self) -> (Addr<Vectorizer>, VectorizerThread) {
        let arbiter = Arbiter::new();
        let stopping = self.stopping.clone();
        let address = Supervisor::start_in_arbiter(&arbiter.handle(), move |_| self);
        (address, VectorizerThread { arbiter, stopping })
    }

    fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Lists the generation's works, drops the vectors of works gone from the index, and counts
    /// the works with and without a vector of the current model.
    fn begin_pass(&self, generation: u64) -> Result<Pass, VectorizerError> {
        let ids = self.index.work_ids_newest_first()?;
        self.drop_vectors_of_gone_works(&ids)?;
        let model = self.embedder.fingerprint();
        let mut embedded = 0;
        for id in &ids {
            if self.stamp_of(*id)?.is_some_and(|stamp| stamp.model == model) {
                embedded += 1;
            }
        }
        let waiting = ids.len() as u64 - embedded;
        tracing::debug!(generation, works = ids.len(), embedded, waiting, "embedding pass begins");
        Ok(Pass { generation, ids, looked_at: 0, stale: VecDeque::new(), embedded, waiting, embedded_now: 0 })
    }

    /// Removes the vectors of works the index no longer holds (merged into an older work).
    /// Vectors are only written for listed works, and a work once gone never comes back, so
    /// anything stored and not in the newest list is gone for good.
    fn drop_vectors_of_gone_works(&self, ids: &[PaperId]) -> Result<(), VectorizerError> {
        let mut listed: Vec<u64> = ids.iter().map(|id| id.get()).collect();
        listed.sort_unstable();
        let gone: Vec<u64> = self.store.papers().vector_ids()?.into_iter().filter(|id| listed.binary_search(id).is_err()).collect();
        if !gone.is_empty() {
            self.store.papers().remove_vectors(&gone)?;
            tracing::debug!(works = gone.len(), "vectors of works merged away dropped");
        }
        Ok(())
    }

    /// One step: finds stale works until a batch is full (or the list ends, or a stretch of
    /// [`LOOK_AT_MOST_PER_STEP`] works was looked at), and embeds one batch if it has one.
    fn step(&self, pass: &mut Pass) -> Result<Step, VectorizerError> {
        self.find_stale_works(pass)?;
        let is_listed_to_end = pass.looked_at == pass.ids.len();
        let has_batch = pass.stale.len() >= self.config.batch_size || (is_listed_to_end && !pass.stale.is_empty());
        if has_batch {
            let batch: Vec<StaleWork> = pass.stale.drain(..pass.stale.len().min(self.config.batch_size)).collect();
            let started = Instant::now();
            self.embed_and_store(&batch)?;
            let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            let count = batch.len() as u64;
            pass.embedded += count;
            pass.waiting = pass.waiting.saturating_sub(count);
            pass.embedded_now += count;
            self.board.update(ACTOR_NAME, |status| {
                status.record_success(count, Utc::now());
                status.work_millis_total = status.work_millis_total.saturating_add(millis);
            });
            return Ok(Step::Continue);
        }
        Ok(if is_listed_to_end { Step::Finished } else { Step::Continue })
    }

    /// Looks at the next works of the pass, a batch at a time, and queues the stale ones.
    fn find_stale_works(&self, pass: &mut Pass) -> Result<(), VectorizerError> {
        let model = self.embedder.fingerprint();
        let batch_size = self.config.batch_size;
        let mut looked_at_now = 0;
        while pass.stale.len() < batch_size && pass.looked_at < pass.ids.len() && looked_at_now < LOOK_AT_MOST_PER_STEP {
            let end = (pass.looked_at + batch_size).min(pass.ids.len());
            for (id, paper) in self.index.papers_by_id(&pass.ids[pass.looked_at..end])? {
                let text = embedding_text(&paper);
                let hash = text_hash(&text);
                let stamp = self.stamp_of(id)?;
                let stored = stamp.as_ref().map(|stamp| (stamp.model.as_str(), stamp.text_hash));
                if !needs_embedding(stored, model, hash) {
                    continue;
                }
                let has_vector_of_model = stamp.as_ref().is_some_and(|stamp| stamp.model == model);
                if has_vector_of_model {
                    // Counted as embedded when the pass began; its text has changed since.
                    pass.embedded = pass.embedded.saturating_sub(1);
                    pass.waiting += 1;
                }
                pass.stale.push_back(StaleWork { id, text, text_hash: hash });
            }
            looked_at_now += end - pass.looked_at;
            pass.looked_at = end;
        }
        Ok(())
    }

    /// What a work's stored vector was made by and from; a record that cannot be decoded is no
    /// vector (it is made again and replaced), a database that cannot be read an error.
    fn stamp_of(&self, id: PaperId) -> Result<Option<VectorStamp>, VectorizerError> {
        match self.store.papers().vector_stamp(id.get()) {
            Ok(stamp) => Ok(stamp),
            Err(error @ (StoreError::Decode { .. } | StoreError::Corrupt(_))) => {
                tracing::warn!(%error, paper = %id, "a stored vector is damaged; embedding the paper again");
                Ok(None)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Embeds `batch` and stores its vectors in one write.
    fn embed_and_store(&self, batch: &[StaleWork]) -> Result<(), VectorizerError> {
        let texts: Vec<&str> = batch.iter().map(|work| work.text.as_str()).collect();
        let vectors = self.embedder.embed_documents(&texts)?;
        if vectors.len() != batch.len() {
            return Err(VectorizerError::VectorCount { texts: batch.len(), vectors: vectors.len() });
        }
        let model = self.embedder.fingerprint();
        let stored: Vec<(u64, StoredVector)> = batch
            .iter()
            .zip(vectors)
            .map(|(work, vector)| (work.id.get(), StoredVector { model: model.to_owned(), text_hash: work.text_hash, vector }))
            .collect();
        self.store.papers().put_vectors(&stored)?;
        Ok(())
    }

    fn report_counts(&self, pass: &Pass) {
        let (embedded, waiting) = (pass.embedded, pass.waiting);
        self.board.update(ACTOR_NAME, |status| {
            status.busy = true;
            status.up_to_date = embedded;
            status.queue_depth = waiting;
        });
    }

    fn finish_pass(&mut self, pass: Pass) {
        if pass.embedded_now > 0 {
            tracing::info!(papers = pass.embedded_now, works = pass.ids.len(), "papers embedded; every paper has its vector");
        }
        self.finished_generation = Some(pass.generation);
        self.failures_in_a_row = 0;
        self.retry_at = None;
        let embedded = pass.embedded;
        self.board.update(ACTOR_NAME, |status| {
            status.busy = false;
            status.up_to_date = embedded;
            status.queue_depth = 0;
            status.last_success_at = Some(Utc::now());
        });
    }

    /// Records a failed step; the pass is dropped and a new one waits for the backoff.
    fn record_failure(&mut self, error: &VectorizerError) {
        self.failures_in_a_row = self.failures_in_a_row.saturating_add(1);
        let delay = retry_delay(&self.config, self.failures_in_a_row);
        self.retry_at = Some(Instant::now() + delay);
        tracing::error!(%error, retry_in_secs = delay.as_secs(), "embedding papers failed; will retry");
        let panicked = matches!(error, VectorizerError::Panicked);
        self.board.update(ACTOR_NAME, |status| {
            status.busy = false;
            status.record_failure(error, Utc::now());
            if panicked {
                status.restarts += 1;
            }
        });
    }
}

/// The wait before a new pass after `failures` failed steps in a row (1 for the first):
/// doubling from the base, capped.
pub fn retry_delay(config: &VectorizerConfig, failures: u32) -> Duration {
    engine::backoff::doubling(config.retry_base, config.retry_cap, failures)
}

/// Sends the next step once the arbiter had a turn. A message sent straight to itself would be
/// handled in the same poll of the actor, so a stop of the arbiter would wait for the whole pass.
fn next_step_after_yielding(ctx: &mut Context<Vectorizer>) {
    let turn = actix::fut::wrap_future::<_, Vectorizer>(actix_rt::task::yield_now());
    ctx.spawn(turn.map(|(), _, ctx| ctx.notify(EmbedNextBatch)));
}

impl Actor for Vectorizer {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.board.set_busy(ACTOR_NAME, false);
        ctx.run_interval(self.config.check_interval, |_, ctx| ctx.notify(CheckIndex));
        ctx.notify(CheckIndex);
    }
}

impl Supervised for Vectorizer {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.pass = None;
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<CheckIndex> for Vectorizer {
    type Result = ();

    fn handle(&mut self, _: CheckIndex, ctx: &mut Self::Context) {
        let is_waiting_to_retry = self.retry_at.is_some_and(|at| Instant::now() < at);
        if self.pass.is_some() || is_waiting_to_retry || self.is_stopping() {
            return;
        }
        let generation = self.index.generation();
        if self.finished_generation == Some(generation) {
            return;
        }
        match catch_unwind(AssertUnwindSafe(|| self.begin_pass(generation))).unwrap_or(Err(VectorizerError::Panicked)) {
            Ok(pass) => {
                self.report_counts(&pass);
                self.pass = Some(pass);
                next_step_after_yielding(ctx);
            }
            Err(error) => self.record_failure(&error),
        }
    }
}

impl Handler<EmbedNextBatch> for Vectorizer {
    type Result = ();

    fn handle(&mut self, _: EmbedNextBatch, ctx: &mut Self::Context) {
        if self.is_stopping() {
            return;
        }
        let Some(mut pass) = self.pass.take() else {
            return;
        };
        match catch_unwind(AssertUnwindSafe(|| self.step(&mut pass))).unwrap_or(Err(VectorizerError::Panicked)) {
            Ok(Step::Continue) => {
                self.failures_in_a_row = 0;
                self.report_counts(&pass);
                self.pass = Some(pass);
                next_step_after_yielding(ctx);
            }
            Ok(Step::Finished) => self.finish_pass(pass),
            Err(error) => self.record_failure(&error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_wait_doubling_up_to_the_cap() {
        let config = VectorizerConfig::default();
        let waits: Vec<u64> = [1, 2, 3, 7, 8, 40].iter().map(|&failures| retry_delay(&config, failures).as_secs()).collect();
        assert_eq!(waits, [30, 60, 120, 1920, 3600, 3600]);
        assert_eq!(retry_delay(&config, 0), Duration::from_secs(30), "no failure yet waits as the first");
    }
}
