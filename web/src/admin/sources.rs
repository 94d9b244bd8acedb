//! The sources and the index: each source's harvest state (stored) and its harvester's board
//! entry, the papers of the last 7 days, the next run; the index's papers and vectors; and
//! "harvest now", which sends the source's harvester the run its timer would start.

use actix_web::web;
use actors::{HarvestNow, Harvester};
use chrono::{Duration, Utc};
use engine::paper::Source;

use crate::auth::Operator;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::{Accepted, ApiRoutes};
use crate::state::AppState;
use crate::wire::admin::{AdminIndex, AdminSource, AdminSources, AdminVectors, PapersBySource};
use crate::wire::Message;

/// "This week" of a source: papers whose source date is within this many days, today included.
const WEEK_DAYS: i64 = 7;

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/admin/sources", sources).post("/admin/sources/{source}/harvest", harvest_now);
}

/// `GET /api/admin/sources`.
async fn sources(state: web::Data<AppState>, _operator: Operator) -> ApiResult<web::Json<AdminSources>> {
    let answer = web::block(move || read_sources(&state)).await??;
    Ok(web::Json(answer))
}

/// Reads the harvest states and counts the index (a few searches): run off the async threads.
fn read_sources(state: &AppState) -> ApiResult<AdminSources> {
    let now = Utc::now();
    let week_start = now.date_naive() - Duration::days(WEEK_DAYS - 1);
    let index = &state.index;
    let count = |since, sources: &[Source]| index.count_in_window(since, None, sources).map_err(ApiError::internal);
    let mut sources = Vec::new();
    for source in Source::ALL {
        let harvest = state.store.papers().harvest_state(source)?;
        let enabled = state.settings.harvest.sources.contains(&source);
        let board = state.board.get(Harvester::actor_name(source)).unwrap_or_default();
        sources.push(AdminSource {
            source: source.into(),
            enabled,
            cursor: harvest.cursor,
            last_success_at: harvest.last_success_at,
            last_error_at: harvest.last_error_at,
            last_error: harvest.last_error.clone(),
            papers_dated_last_7_days: count(Some(week_start), &[source])?,
            next_run_at: enabled.then(|| harvest.next_run_at(now, state.settings.harvest.hour)),
            running: board.busy,
        });
    }
    let vectorizer = state.board.get(actors::vectorizer::ACTOR_NAME).unwrap_or_default();
    let (embedded, waiting, hours_left) = match &state.embedding {
        Some(_) => (vectorizer.up_to_date, vectorizer.queue_depth, vectorizer.hours_left()),
        None => (0, 0, None),
    };
    let index = AdminIndex {
        papers: index.paper_count().map_err(ApiError::internal)?,
        by_source: PapersBySource {
            pubmed: count(None, &[Source::Pubmed])?,
            arxiv: count(None, &[Source::Arxiv])?,
            biorxiv: count(None, &[Source::Biorxiv])?,
            medrxiv: count(None, &[Source::Medrxiv])?,
        },
        vectors: AdminVectors {
            model: state.embedding.as_ref().map(|model| model.name.clone()),
            runtime: state.embedding.as_ref().map(|model| model.runtime.name().to_owned()),
            embedded,
            waiting,
            hours_left,
        },
    };
    Ok(AdminSources { sources, index })
}

/// `POST /api/admin/sources/{source}/harvest` → 202: the source's harvester starts a run now
/// (409 `harvest_running` while one runs; 404 for a source this service does not harvest).
async fn harvest_now(state: web::Data<AppState>, _operator: Operator, source: web::Path<String>) -> ApiResult<Accepted<Message>> {
    let not_harvested = || ApiError::not_found("This service does not harvest that source.");
    let source: Source = source.trim().parse().map_err(|_| not_harvested())?;
    let harvester = state.harvesters.get(&source).ok_or_else(not_harvested)?;
    let started = harvester.send(HarvestNow).await.map_err(ApiError::internal)?;
    if !started {
        return Err(ApiError::new(ErrorCode::HarvestRunning, format!("A {source} harvest is running already.")));
    }
    tracing::info!(%source, "an operator started a harvest");
    Ok(Accepted::new(Message::new(format!("A {source} harvest has started."))))
}
