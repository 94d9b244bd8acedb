//! A user's search terms over HTTP (spec §7): `GET /api/users/{userId}/search-terms`,
//! `PATCH /api/search-terms/{termId}` (new text, checked with the §5 schema and refused with a
//! 409 when it is another of the user's topics; the term searches again; and/or its exclusion
//! words, `exclude`, checked by `engine::rating`) and `DELETE /api/search-terms/{termId}`. Only the owner sees or touches a term; anyone
//! else gets the 404 of a term that is not there.

use actix_web::web;
use chrono::Utc;
use engine::digest::{next_weekly_run, WeeklyInputs};
use engine::rating::validate_exclude_words;
use engine::search_term::{already_followed, is_same_term, validate_search_term, SearchTerm, TermId, TermStatus};

use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult, ErrorCode, ErrorDetails};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::terms::{SearchTermView, TermChange, TermDeleted};

const MSG_NO_TERM: &str = "Search term not found";

/// A search term the §5 schema refused, as the validation error of `field`.
pub fn term_error(field: &'static str, message: &str) -> ApiError {
    let mut errors = engine::ValidationErrors::default();
    errors.add(field, message);
    errors.into()
}

/// The 409 of a topic the user follows already (`term`, as they follow it).
pub fn already_followed_error(term: &SearchTerm) -> ApiError {
    let details = ErrorDetails { term_id: Some(term.id.to_string()), ..ErrorDetails::default() };
    ApiError::new(ErrorCode::TermAlreadyFollowed, already_followed(&term.term)).with_details(details)
}

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/users/{user_id}/search-terms", list).patch("/search-terms/{term_id}", update).delete("/search-terms/{term_id}", remove);
}

/// `GET /api/users/{userId}/search-terms` → the user's terms, oldest first.
async fn list(state: web::Data<AppState>, signed_in: SignedIn, user_id: web::Path<String>) -> ApiResult<web::Json<Vec<SearchTermView>>> {
    signed_in.require_owner(&user_id)?;
    let user = &signed_in.user;
    let history = state.store.digests().digest_history(user)?;
    let preferences = state.store.accounts().preferences(user.id)?;
    let inputs = WeeklyInputs {
        preferences: &preferences,
        tier: user.subscription_tier,
        history: &history,
        now: Utc::now(),
        hour: state.settings.digest_hour,
    };
    let next = next_weekly_run(&inputs);
    let mut terms = state.store.digests().search_terms_as_processed(user.id)?;
    for term in &mut terms {
        // Computed when read, so a change of plan or preferences shows at once.
        term.next_scheduled_run = next.filter(|_| term.is_active);
    }
    let terms: Vec<SearchTermView> = terms.into_iter().map(SearchTermView::from).collect();
    Ok(web::Json(terms))
}

/// The term `term_id` names, if the signed-in user owns it.
pub(crate) fn owned_term(state: &AppState, signed_in: &SignedIn, term_id: &str) -> ApiResult<SearchTerm> {
    let id: TermId = term_id.parse().map_err(|_| ApiError::not_found(MSG_NO_TERM))?;
    match state.store.terms().get(id)? {
        Some(term) if term.user_id == signed_in.user.id => Ok(term),
        _ => Err(ApiError::not_found(MSG_NO_TERM)),
    }
}

const MSG_NOTHING_TO_CHANGE: &str = "Send a new term, exclusion words (exclude), or both";

/// `PATCH /api/search-terms/{termId}` `{ term?, exclude? }` → the changed term; new text leaves
/// it pending its next search.
async fn update(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    change: web::Json<TermChange>,
) -> ApiResult<web::Json<SearchTermView>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    if change.term.is_none() && change.exclude.is_none() {
        return Err(ApiError::bad_request(MSG_NOTHING_TO_CHANGE));
    }
    let text = change.term.as_deref().map(validate_search_term).transpose().map_err(|message| term_error("term", message))?;
    let exclude = change.exclude.as_deref().map(validate_exclude_words).transpose().map_err(|message| term_error("exclude", message))?;
    if let Some(text) = &text {
        let others = state.store.terms().of_user(signed_in.user.id)?;
        if let Some(same) = others.iter().find(|other| other.id != term.id && is_same_term(&other.term, text)) {
            return Err(already_followed_error(same));
        }
    }
    let changed = state
        .store
        .terms()
        .update(term.id, |stored| {
            if let Some(text) = text.as_ref().filter(|text| **text != stored.term) {
                stored.term = text.clone();
                stored.status = TermStatus::Pending;
            }
            if let Some(exclude) = &exclude {
                stored.exclude = exclude.clone();
            }
        })?
        .ok_or_else(|| ApiError::not_found(MSG_NO_TERM))?;
    state.store.flush_async().await?;
    Ok(web::Json(SearchTermView::from(changed)))
}

/// `DELETE /api/search-terms/{termId}`.
async fn remove(state: web::Data<AppState>, signed_in: SignedIn, term_id: web::Path<String>) -> ApiResult<web::Json<TermDeleted>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    state.store.terms().delete(term.id)?;
    state.store.flush_async().await?;
    Ok(web::Json(TermDeleted { id: term.id.0, success: true }))
}
