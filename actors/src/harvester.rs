//! Harvesting: one [`Harvester`] actor per source fetches the source's new papers day by day on
//! a daily schedule (or at once on [`HarvestNow`]) and hands them to the [`Indexer`]; [`harvest_days`] is the run itself,
//! shared with `papertide harvest`.
//!
//! Schedule, cursor and backoff follow `engine::harvest` (the state lives in sled, written after
//! every day, so a restarted service resumes where it stopped). Each run is a task of its own:
//! an error or even a panic in it is recorded on the source's state and board entry, counted as
//! a restart, and retried after the backoff, while the other sources go on untouched.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix::prelude::*;
use chrono::{NaiveDate, Utc};
use engine::harvest::{days, DayReport, HarvestState};
use engine::paper::{Paper, Parsed, Source};
use store::Store;

use crate::indexer::{Indexer, IndexerError, Ingest, IngestCounts};
use crate::sources::{ArxivClient, BiorxivClient, Progress, ProgressFn, PubmedClient, SourceError};
use crate::status::StatusBoard;

/// Papers go to the indexer in batches of at most this many (bounded messages, frequent commits).
const INGEST_BATCH: usize = 5_000;

/// A future that fetches, boxed so that sources can live behind one trait object.
pub type FetchFuture<'a> = Pin<Box<dyn Future<Output = Result<Parsed<Paper>, SourceError>> + Send + 'a>>;

/// A source the harvesters can read one day at a time.
pub trait PaperSource: Send + Sync + 'static {
    fn source(&self) -> Source;

    /// Every record the source published (entered) on `day`.
    fn fetch_day<'a>(&'a self, day: NaiveDate, progress: Option<ProgressFn<'a>>) -> FetchFuture<'a>;
}

impl PaperSource for PubmedClient {
    fn source(&self) -> Source {
        Source::Pubmed
    }

    fn fetch_day<'a>(&'a self, day: NaiveDate, progress: Option<ProgressFn<'a>>) -> FetchFuture<'a> {
        Box::pin(self.fetch_window("all", day, day, progress))
    }
}

impl PaperSource for ArxivClient {
    fn source(&self) -> Source {
        Source::Arxiv
    }

    fn fetch_day<'a>(&'a self, day: NaiveDate, progress: Option<ProgressFn<'a>>) -> FetchFuture<'a> {
        Box::pin(self.fetch_window(day, day, &[], progress))
    }
}

/// bioRxiv or medRxiv, which share one API (and one client, so one pace).
#[derive(Debug, Clone)]
pub struct PreprintServer {
    pub client: BiorxivClient,
    /// `Source::Biorxiv` or `Source::Medrxiv`.
    pub server: Source,
}

impl PaperSource for PreprintServer {
    fn source(&self) -> Source {
        self.server
    }

    fn fetch_day<'a>(&'a self, day: NaiveDate, progress: Option<ProgressFn<'a>>) -> FetchFuture<'a> {
        Box::pin(self.client.fetch_window(self.server, day, day, progress))
    }
}

/// Where a run stands, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunProgress {
    /// A page of `day` arrived.
    Page { source: Source, day: NaiveDate, day_number: usize, days: usize, page: Progress },
    /// `day` is fetched and indexed.
    DayDone { source: Source, day_number: usize, days: usize, report: DayReport },
}

/// What a whole run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunReport {
    pub days: usize,
    pub received: u64,
    pub rejected: u64,
    pub counts: IngestCounts,
}

/// Why a run stopped early (the days before it stay done and recorded).
#[derive(Debug, thiserror::Error)]
pub enum HarvestError {
    #[error("{day}: {source}")]
    Source { day: NaiveDate, source: SourceError },
    #[error("{day}: {source}")]
    Index { day: NaiveDate, source: IndexerError },
    #[error("the indexer is not running")]
    IndexerGone,
    #[error("the harvest state cannot be stored: {0}")]
    Store(#[from] store::StoreError),
}

/// Fetches `from..=to` day by day, oldest first, indexes each day's papers, and records each
/// day on the source's state (`today` decides which days are complete). On success the run is
/// recorded as one; on an error the error is recorded and returned.
pub async fn harvest_days(
    source: &dyn PaperSource,
    (from, to): (NaiveDate, NaiveDate),
    today: NaiveDate,
    store: &Store,
    indexer: &Addr<Indexer>,
    progress: &(dyn Fn(RunProgress) + Sync),
) -> Result<RunReport, HarvestError> {
    let name = source.source();
    // Each day is recorded as it completes; the run stops at the first error.
    let outcome: Result<RunReport, HarvestError> = async {
        let day_count = days(from, to).count();
        let mut run = RunReport::default();
        for (index, day) in days(from, to).enumerate() {
            let day_number = index + 1;
            let on_page = |page: Progress| progress(RunProgress::Page { source: name, day, day_number, days: day_count, page });
            let parsed = source.fetch_day(day, Some(&on_page)).await.map_err(|error| HarvestError::Source { day, source: error })?;
            for warning in parsed.warnings.iter().take(3) {
                tracing::warn!(source = %name, %day, record = warning.record.as_deref().unwrap_or("-"), "{}", warning.message);
            }
            let rejected = parsed.warnings.iter().filter(|warning| warning.record.is_some()).count() as u64;
            let received = parsed.items.len() as u64 + rejected;
            let mut counts = IngestCounts::default();
            let mut papers = parsed.items;
            while !papers.is_empty() {
                let rest = papers.split_off(papers.len().min(INGEST_BATCH));
                let batch = std::mem::replace(&mut papers, rest);
                let indexed = indexer.send(Ingest(batch)).await.map_err(|_| HarvestError::IndexerGone)?;
                counts.add(indexed.map_err(|error| HarvestError::Index { day, source: error })?);
            }
            let report = DayReport { day, received, added: counts.added, merged: counts.merged, unchanged: counts.unchanged, rejected };
            let mut state = store.papers().harvest_state(name)?;
            state.record_day(report, today);
            store.papers().put_harvest_state(name, &state)?;
            run.days += 1;
            run.received += received;
            run.rejected += rejected;
            run.counts.add(counts);
            progress(RunProgress::DayDone { source: name, day_number, days: day_count, report });
        }
        Ok(run)
    }
    .await;
    let mut state = store.papers().harvest_state(name)?;
    match &outcome {
        Ok(_) => state.record_success(Utc::now()),
        Err(error) => state.record_failure(Utc::now(), &error.to_string()),
    }
    store.papers().put_harvest_state(name, &state)?;
    outcome
}

/// When and how far back the harvesters run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarvestSchedule {
    /// The daily slot, an hour of the UTC day (0–23).
    pub hour: u32,
    /// How many days a first run fetches.
    pub lookback_days: u32,
}

impl Default for HarvestSchedule {
    fn default() -> HarvestSchedule {
        HarvestSchedule { hour: 6, lookback_days: 7 }
    }
}

/// One source's harvester. See the module documentation.
pub struct Harvester {
    source: Arc<dyn PaperSource>,
    store: Store,
    indexer: Addr<Indexer>,
    board: StatusBoard,
    schedule: HarvestSchedule,
    running: bool,
    next_run: Option<SpawnHandle>,
}

impl Harvester {
    pub fn new(source: Arc<dyn PaperSource>, store: Store, indexer: Addr<Indexer>, board: StatusBoard, schedule: HarvestSchedule) -> Harvester {
        Harvester { source, store, indexer, board, schedule, running: false, next_run: None }
    }

    /// Starts the harvester under a supervisor on the current arbiter.
    pub fn start_supervised(self) -> Addr<Harvester> {
        Supervisor::start(move |_| self)
    }

    /// The board entry of a source's harvester.
    pub fn actor_name(source: Source) -> &'static str {
        match source {
            Source::Pubmed => "harvester-pubmed",
            Source::Arxiv => "harvester-arxiv",
            Source::Biorxiv => "harvester-biorxiv",
            Source::Medrxiv => "harvester-medrxiv",
        }
    }

    fn name(&self) -> &'static str {
        Harvester::actor_name(self.source.source())
    }

    fn state(&self) -> HarvestState {
        self.store.papers().harvest_state(self.source.source()).unwrap_or_else(|error| {
            tracing::error!(%error, source = %self.source.source(), "reading the harvest state");
            HarvestState::default()
        })
    }

    /// Sets the timer for the next run, as the state says.
    fn schedule_next(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.next_run.take() {
            ctx.cancel_future(handle);
        }
        let now = Utc::now();
        let at = self.state().next_run_at(now, self.schedule.hour);
        let delay = (at - now).to_std().unwrap_or_default();
        tracing::debug!(source = %self.source.source(), next_run = %at, "harvest scheduled");
        self.next_run = Some(ctx.run_later(delay, |harvester, ctx| {
            harvester.next_run = None;
            harvester.start_run(ctx);
        }));
    }

    fn start_run(&mut self, ctx: &mut Context<Self>) {
        if self.running {
            return;
        }
        self.running = true;
        let name = self.name();
        self.board.set_busy(name, true);
        let today = Utc::now().date_naive();
        let window = self.state().days_due(today, self.schedule.lookback_days);
        let (source, store, indexer) = (Arc::clone(&self.source), self.store.clone(), self.indexer.clone());
        let task = actix_rt::spawn(async move {
            harvest_days(source.as_ref(), window, today, &store, &indexer, &|_| {}).await.map_err(|error| error.to_string())
        });
        ctx.spawn(task.into_actor(self).map(move |joined, harvester, ctx| {
            harvester.running = false;
            harvester.finish_run(joined, window);
            harvester.schedule_next(ctx);
        }));
    }

    fn finish_run(&mut self, joined: Result<Result<RunReport, String>, actix_rt::task::JoinError>, (from, to): (NaiveDate, NaiveDate)) {
        let source = self.source.source();
        let outcome = match joined {
            Ok(outcome) => outcome,
            Err(join_error) => {
                // The run panicked (or was cancelled) before recording anything of its end.
                let message = format!("the harvest stopped abnormally: {join_error}");
                let mut state = self.state();
                state.record_failure(Utc::now(), &message);
                if let Err(error) = self.store.papers().put_harvest_state(source, &state) {
                    tracing::error!(%error, %source, "storing the harvest state");
                }
                self.board.record_restart(self.name());
                Err(message)
            }
        };
        self.board.update(self.name(), |status| {
            status.busy = false;
            match &outcome {
                Ok(report) => status.record_success(report.received, Utc::now()),
                Err(error) => status.record_failure(error, Utc::now()),
            }
        });
        match outcome {
            Ok(report) => tracing::info!(
                %source, %from, %to, received = report.received, added = report.counts.added,
                merged = report.counts.merged, rejected = report.rejected, "harvest finished"
            ),
            Err(error) => tracing::warn!(%source, %from, %to, %error, "harvest failed; will retry"),
        }
    }
}

impl Actor for Harvester {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.board.set_busy(self.name(), false);
        self.schedule_next(ctx);
    }
}

/// Runs the harvester now, as its timer would (the operator's "harvest now"): answers `false`,
/// starting nothing, when a run is under way already.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct HarvestNow;

impl Handler<HarvestNow> for Harvester {
    type Result = bool;

    fn handle(&mut self, _: HarvestNow, ctx: &mut Self::Context) -> bool {
        if self.running {
            return false;
        }
        if let Some(handle) = self.next_run.take() {
            ctx.cancel_future(handle);
        }
        self.start_run(ctx);
        true
    }
}

impl Supervised for Harvester {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.running = false;
        self.next_run = None;
        self.board.record_restart(self.name());
    }
}
