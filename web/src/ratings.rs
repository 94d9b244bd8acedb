//! Ratings over HTTP: a term's owner lists, records and removes their verdicts on the papers of
//! the term's digests (`GET`/`PUT`/`DELETE /api/search-terms/{termId}/ratings`), and the rating
//! links of the digest mail are looked at (`GET /api/ratings/link?token=…`, which changes
//! nothing, so a mail scanner that follows the link rates nothing) and confirmed
//! (`POST /api/ratings/link {token}`, no sign-in: the signed token is the authority). Wrong
//! tokens count against the client's link guesses.

use actix_web::{web, HttpRequest};
use chrono::Utc;
use engine::digest::{Digest, DigestEntry};
use engine::rating::Rating;
use engine::search_term::{is_same_term, SearchTerm};
use engine::signed::{RatingClaim, RatingTokenError};
use engine::UserId;

use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::terms::owned_term;
use crate::wire::ratings::{RateRequest, RatingLinkConfirmed, RatingLinkQuery, RatingLinkRequest, RatingLinkView, RatingView, RemoveRatingQuery};
use crate::wire::Done;

pub const MSG_LINK_INVALID: &str = "This rating link is not valid.";
pub const MSG_LINK_EXPIRED: &str = "This rating link has expired.";
pub const MSG_LINK_DIGEST_GONE: &str = "The digest this link rates is no longer there.";
pub const MSG_LINK_TERM_GONE: &str = "The search term this link rates was deleted.";
const MSG_NO_DIGEST: &str = "Digest not found";
const MSG_NOT_IN_DIGEST: &str = "This paper is not in that digest of this search term.";
const MSG_NO_RATING: &str = "Rating not found";
const MSG_PAPER_KEY_REQUIRED: &str = "paperKey is required";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/search-terms/{term_id}/ratings", list)
        .put("/search-terms/{term_id}/ratings", rate)
        .delete("/search-terms/{term_id}/ratings", remove)
        .get("/ratings/link", look_at_link)
        .post("/ratings/link", confirm_link);
}

/// `GET /api/search-terms/{termId}/ratings` → the term's ratings, newest first.
async fn list(state: web::Data<AppState>, signed_in: SignedIn, term_id: web::Path<String>) -> ApiResult<web::Json<Vec<RatingView>>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    let ratings: Vec<RatingView> = state.store.ratings().of_term(signed_in.user.id, term.id)?.into_iter().map(RatingView::from).collect();
    Ok(web::Json(ratings))
}

/// `PUT /api/search-terms/{termId}/ratings` `{ digestId, paperKey, verdict }`: the paper must be
/// in one of the user's digests of the term; its title is the digest's.
async fn rate(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    body: web::Json<RateRequest>,
) -> ApiResult<web::Json<RatingView>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    let user_id = signed_in.user.id;
    let digest = state.store.digests().user_digest(user_id, body.digest_id)?.filter(|digest| is_of_term(digest, &term));
    let Some(digest) = digest else {
        return Err(ApiError::not_found(MSG_NO_DIGEST));
    };
    let Some(entry) = digest.papers_data.iter().find(|entry| first_key(entry) == Some(body.paper_key.as_str())) else {
        return Err(ApiError::bad_request(MSG_NOT_IN_DIGEST));
    };
    let rating = Rating {
        term_id: term.id,
        paper_key: body.paper_key.clone(),
        title: entry.title.clone(),
        verdict: body.verdict.into(),
        digest_id: Some(digest.id),
        rated_at: Utc::now(),
        seeded: false,
    };
    state.store.ratings().rate(user_id, &rating)?;
    state.store.flush_async().await?;
    Ok(web::Json(RatingView::from(rating)))
}

/// `DELETE /api/search-terms/{termId}/ratings?paperKey=…`.
async fn remove(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    query: web::Query<RemoveRatingQuery>,
) -> ApiResult<web::Json<Done>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    let paper_key = query.paper_key.as_deref().filter(|key| !key.is_empty()).ok_or_else(|| ApiError::bad_request(MSG_PAPER_KEY_REQUIRED))?;
    if !state.store.ratings().remove(signed_in.user.id, term.id, paper_key)? {
        return Err(ApiError::not_found(MSG_NO_RATING));
    }
    state.store.flush_async().await?;
    Ok(web::Json(Done::new()))
}

/// `GET /api/ratings/link?token=…` → the term, the paper's title and the verdict; writes nothing.
async fn look_at_link(state: web::Data<AppState>, request: HttpRequest, query: web::Query<RatingLinkQuery>) -> ApiResult<web::Json<RatingLinkView>> {
    let token = query.token.clone().unwrap_or_default();
    let link = resolve_link(&state, &request, &token)?;
    Ok(web::Json(link.view()))
}

/// `POST /api/ratings/link {token}` → records the link's rating (again, the same: idempotent).
async fn confirm_link(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Json<RatingLinkRequest>,
) -> ApiResult<web::Json<RatingLinkConfirmed>> {
    let link = resolve_link(&state, &request, &body.token)?;
    let rating = Rating {
        term_id: link.term.id,
        paper_key: link.paper_key.clone(),
        title: link.title.clone(),
        verdict: link.claim.verdict,
        digest_id: Some(link.claim.digest_id),
        rated_at: Utc::now(),
        seeded: false,
    };
    state.store.ratings().rate(link.claim.user_id, &rating)?;
    state.store.flush_async().await?;
    Ok(web::Json(RatingLinkConfirmed { rating: link.view(), success: true }))
}

/// A rating link's claim with the term and paper it names.
struct ResolvedLink {
    claim: RatingClaim,
    term: SearchTerm,
    title: String,
    paper_key: String,
    /// The paper's Highwire meta tags.
    citation: Vec<(String, String)>,
}

impl ResolvedLink {
    fn view(&self) -> RatingLinkView {
        RatingLinkView {
            term: self.term.term.clone(),
            term_id: self.term.id.to_string(),
            title: self.title.clone(),
            paper_key: self.paper_key.clone(),
            verdict: self.claim.verdict.into(),
            citation: self.citation.clone(),
        }
    }
}

/// The link's claim, checked (a client over its link guesses gets 429 first; a wrong token
/// counts as one), with its digest's term and paper; a digest or term since deleted says so.
fn resolve_link(state: &AppState, request: &HttpRequest, token: &str) -> ApiResult<ResolvedLink> {
    let ip = crate::security::client_ip(request, state.settings.trust_proxy);
    let guesses = state.settings.rate_limits.link_guesses;
    state.limiter.check_not_over("link-guess", &ip, guesses)?;
    // No key yet: no link was ever made, and checking one makes none.
    let key = state.store.ratings().link_key_if_made()?.unwrap_or_default();
    let verified = if key.is_empty() { Err(RatingTokenError::Invalid) } else { RatingClaim::verify(&key, token, Utc::now()) };
    let claim = match verified {
        Ok(claim) => claim,
        Err(RatingTokenError::Expired) => return Err(ApiError::new(ErrorCode::LinkExpired, MSG_LINK_EXPIRED)),
        Err(RatingTokenError::Invalid) => {
            state.limiter.check("link-guess", &ip, guesses)?;
            return Err(ApiError::bad_request(MSG_LINK_INVALID));
        }
    };
    let digest = state
        .store
        .digests()
        .user_digest(claim.user_id, claim.digest_id)?
        .ok_or_else(|| ApiError::new(ErrorCode::DigestGone, MSG_LINK_DIGEST_GONE))?;
    let entry = digest.papers_data.get(usize::from(claim.position));
    let Some((entry, paper_key)) = entry.and_then(|entry| first_key(entry).map(|key| (entry, key.to_owned()))) else {
        return Err(ApiError::bad_request(MSG_LINK_INVALID));
    };
    let term = term_of_digest(state, claim.user_id, &digest)?.ok_or_else(|| ApiError::new(ErrorCode::TermGone, MSG_LINK_TERM_GONE))?;
    let citation = engine::citation::highwire_tags(&crate::citations::citation_of(state, entry));
    let citation = citation.into_iter().map(|(name, content)| (name.to_owned(), content)).collect();
    Ok(ResolvedLink { claim, term, title: entry.title.clone(), paper_key, citation })
}

/// The user's term a digest was made for (see [`is_of_term`]).
fn term_of_digest(state: &AppState, user_id: UserId, digest: &Digest) -> ApiResult<Option<SearchTerm>> {
    let Some(term_id) = digest.term_id else { return Ok(None) };
    Ok(state.store.terms().get(term_id)?.filter(|term| term.user_id == user_id && is_of_term(digest, term)))
}

/// Whether `digest` was made for `term`, as it is now: the same term, by the identity the digest
/// keeps (a term deleted and added again is a new term, which an old digest's links and ratings
/// never reach; a digest whose term was gone when identities were first kept belongs to none),
/// and still the same topic (a term edited to another topic no longer takes the old topic's
/// ratings; case and spacing aside, as `is_same_term` reads them).
fn is_of_term(digest: &Digest, term: &SearchTerm) -> bool {
    digest.term_id == Some(term.id) && is_same_term(&digest.search_term, &term.term)
}

fn first_key(entry: &DigestEntry) -> Option<&str> {
    entry.keys.first().map(String::as_str)
}
