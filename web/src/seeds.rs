//! Seeds over HTTP: a term taught from papers its researcher already knows.
//!
//! `POST /api/search-terms/{termId}/seeds { ids, file }` seeds a term the user has; the same
//! `seeds` object in `POST /api/immediate-search` seeds a new term before its first digest is
//! ranked, and in `POST /api/signup` the topic typed before signup (kept on the account until the
//! topic is made). Every time:
//! 1. the identifiers and the BibTeX or RIS file are read (`engine::seed`): a line or entry that
//!    cannot be read is refused with its own message;
//! 2. each paper is looked up, in the index first, else at its source (`actors::seeds`); one not
//!    found, or a source that does not answer, is refused with its own message;
//! 3. only when every paper was found are they saved, as the term's ratings "relevant" marked
//!    seeded: the ranking reads them from the first digest on (`engine::feedback`), the term's
//!    ratings list them, and they are removed and exported like any rating.
//!
//! Nothing partial is saved: any refusal is a 400 `validation_failed` whose `errors` hold one
//! message per bad line, and nothing changes.

use actix_web::web;
use chrono::Utc;
use engine::dedup::dedup_keys;
use engine::paper::Paper;
use engine::rating::Rating;
use engine::search_term::TermId;
use engine::seed::{parse_seeds, Seed, SeedId, SeedInput, SeedProblem};
use engine::UserId;

use actors::seeds::SeedOutcome;

use crate::auth::SignedIn;
use crate::config::Rate;
use crate::error::{ApiError, ApiResult};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::terms::owned_term;
use crate::wire::workflows::{SeedFoundIn, SeedPaperView, SeedsAdded, SeedsRequest};

/// Seed lookups per user (each may ask the sources): a researcher's few, not a crawler's.
pub const SEED_RATE: Rate = Rate { max: 30, window: std::time::Duration::from_secs(3600) };
pub const MSG_NO_INDEX: &str = "Papers cannot be looked up on this installation right now; try again later.";

pub fn configure(routes: &mut ApiRoutes) {
    routes.post("/search-terms/{term_id}/seeds", seed_term);
}

/// A seed paper found, ready to be saved.
#[derive(Debug, Clone)]
pub struct FoundSeed {
    pub seed: Seed,
    pub paper: Paper,
    pub found_in: SeedFoundIn,
}

impl FoundSeed {
    /// What names the paper in the term's ratings: its first dedup key, as the index keeps it.
    pub fn paper_key(&self) -> String {
        dedup_keys(&self.paper).first().map_or_else(|| self.seed.id.key().to_string(), ToString::to_string)
    }

    pub fn view(&self) -> SeedPaperView {
        paper_view(&self.seed.given_as, self.paper_key(), &self.paper, self.found_in)
    }
}

fn paper_view(given_as: &str, paper_key: String, paper: &Paper, found_in: SeedFoundIn) -> SeedPaperView {
    let authors: Vec<&str> = paper.authors.iter().map(|author| author.name.as_str()).collect();
    SeedPaperView {
        given_as: given_as.to_owned(),
        paper_key,
        title: paper.title.clone(),
        authors: authors.join(", "),
        year: paper.published.or(paper.entered).map(|day| chrono::Datelike::year(&day)),
        source: paper.sources.first().copied().map(Into::into),
        found_in,
    }
}

/// `POST /api/search-terms/{termId}/seeds`.
async fn seed_term(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    body: web::Json<SeedsRequest>,
) -> ApiResult<web::Json<SeedsAdded>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    state.limiter.check("seeds", &signed_in.user.id.to_string(), SEED_RATE)?;
    let found = find_seeds(&state, &body).await?;
    let seeded = save_seeds(&state, signed_in.user.id, term.id, &found)?;
    state.store.flush_async().await?;
    Ok(web::Json(SeedsAdded { seeded }))
}

/// The papers `request` names, every one found; else the 400 that lists each line refused.
pub async fn find_seeds(state: &AppState, request: &SeedsRequest) -> ApiResult<Vec<FoundSeed>> {
    let input = SeedInput { ids: request.ids.as_deref().unwrap_or_default(), file: request.file.as_deref() };
    let seeds = parse_seeds(&input).map_err(|problems| seed_errors(problems.iter().map(|problem| problem.describe())))?;
    let lookup = state.seeds.as_ref().ok_or_else(|| seed_errors([MSG_NO_INDEX.to_owned()]))?;
    let ids: Vec<_> = seeds.iter().map(|seed| seed.id.clone()).collect();
    let outcomes = lookup.resolve(&ids).await;
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for (seed, outcome) in seeds.into_iter().zip(outcomes) {
        match outcome.outcome {
            SeedOutcome::InIndex(paper) => found.push(FoundSeed { seed, paper, found_in: SeedFoundIn::Index }),
            SeedOutcome::Fetched(paper) => found.push(FoundSeed { seed, paper, found_in: SeedFoundIn::Source }),
            SeedOutcome::NotFound => problems.push(problem(&seed, format!("Not found at {}", where_looked(&seed.id)))),
            SeedOutcome::Failed(why) => problems.push(problem(&seed, why)),
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(seed_errors(problems))
    }
}

/// A seed's problem in one sentence: `Line 3 ("12345678"): Not found at PubMed`.
fn problem(seed: &Seed, message: String) -> String {
    SeedProblem { place: seed.place, given_as: seed.given_as.clone(), message }.describe()
}

/// Where a paper not in the index was looked for.
fn where_looked(id: &SeedId) -> &'static str {
    match id {
        SeedId::Pmid(_) => "PubMed",
        SeedId::Arxiv(_) => "arXiv",
        SeedId::Doi(doi) if doi.starts_with("10.1101/") => "bioRxiv or medRxiv",
        SeedId::Doi(_) => "Crossref",
    }
}

/// Saves `found` as the term's seeds (ratings "relevant" marked seeded); their views.
pub fn save_seeds(state: &AppState, user_id: UserId, term_id: TermId, found: &[FoundSeed]) -> ApiResult<Vec<SeedPaperView>> {
    let now = Utc::now();
    for seed in found {
        state.store.ratings().rate(user_id, &Rating::seed(term_id, seed.paper_key(), seed.paper.title.clone(), now))?;
    }
    Ok(found.iter().map(FoundSeed::view).collect())
}

/// Saves the papers given at signup (`User::pending_seeds`) as the seeds of the term just made
/// of the pending topic; their views.
pub fn save_pending_seeds(state: &AppState, user: &store::User, term_id: TermId) -> ApiResult<Vec<SeedPaperView>> {
    let now = Utc::now();
    let mut views = Vec::new();
    for pending in &user.pending_seeds {
        state.store.ratings().rate(user.id, &Rating::seed(term_id, pending.paper_key.clone(), pending.title.clone(), now))?;
        views.push(pending_view(state, pending));
    }
    Ok(views)
}

/// The view of a seed kept since signup: the paper as the index has it now, else its title.
fn pending_view(state: &AppState, pending: &store::PendingSeed) -> SeedPaperView {
    let paper = engine::dedup::DedupKey::parse(&pending.paper_key).and_then(|key| state.index.find(&key).ok().flatten());
    match paper {
        Some(paper) => paper_view(&pending.paper_key, pending.paper_key.clone(), &paper, SeedFoundIn::Index),
        None => SeedPaperView {
            given_as: pending.paper_key.clone(),
            paper_key: pending.paper_key.clone(),
            title: pending.title.clone(),
            authors: String::new(),
            year: None,
            source: None,
            found_in: SeedFoundIn::Index,
        },
    }
}

/// The papers given at signup, found, as the account keeps them until its topic is made.
pub fn pending_seeds(found: &[FoundSeed]) -> Vec<store::PendingSeed> {
    found.iter().map(|seed| store::PendingSeed { paper_key: seed.paper_key(), title: seed.paper.title.clone() }).collect()
}

/// The 400 of seeds refused: one `seeds` error per message.
fn seed_errors(messages: impl IntoIterator<Item = String>) -> ApiError {
    let mut errors = engine::ValidationErrors::default();
    for message in messages {
        errors.add("seeds", &message);
    }
    errors.into()
}
