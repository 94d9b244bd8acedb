//! Private Atom feeds: every digest of a user (`/feeds/{token}/digests.atom`) and each of their
//! terms (`/feeds/{token}/terms/{termId}.atom`), one entry per paper sent — title, authors,
//! link, the summary, the percent and the reason — for feed readers and Zotero's feeds.
//!
//! - **The token is the authority.** It is signed (`engine::signed::FeedClaim`): the user and
//!   the generation of their feed addresses. `POST /api/feeds/renew` counts the generation up,
//!   which ends every address made before. A deleted or disabled account's feeds answer 404, as
//!   does a wrong token (which counts against the client's link guesses).
//! - **Polling is cheap.** The `ETag` is made from the generation, the term and the newest
//!   digest's key, which the store reads from its keys alone; a reader's `If-None-Match` (or
//!   `If-Modified-Since`) that still holds gets 304 with no digest read.
//! - `GET /api/feeds` gives the signed-in user their addresses.

use actix_web::http::header::{self, HeaderValue};
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use engine::digest::{percent, Digest, DigestEntry};
use engine::feed::{AtomEntry, AtomFeed};
use engine::search_term::{SearchTerm, TermId};
use engine::signed::FeedClaim;
use sha2::{Digest as _, Sha256};
use store::User;

use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::workflows::{FeedsView, TermFeedView};

/// The most papers a feed lists, newest digest first.
pub const MAX_FEED_ENTRIES: usize = 100;
const MSG_NO_FEED: &str = "Feed not found";

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/feeds", feeds).post("/feeds/renew", renew);
}

/// The feeds themselves, outside `/api`: a feed reader is no browser page of the service.
pub fn configure_public(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/feeds/{token}/digests.atom").route(web::get().to(digests_feed)))
        .service(web::resource("/feeds/{token}/terms/{term_id}.atom").route(web::get().to(term_feed)));
}

/// `GET /api/feeds`.
async fn feeds(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<FeedsView>> {
    Ok(web::Json(feeds_view(&state, &signed_in.user)?))
}

/// `POST /api/feeds/renew`: new addresses; the old ones stop working.
async fn renew(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<FeedsView>> {
    let user = state.store.accounts().update_user(signed_in.user.id, |user| user.feed_generation = user.feed_generation.wrapping_add(1))?;
    state.store.flush_async().await?;
    Ok(web::Json(feeds_view(&state, &user)?))
}

fn feeds_view(state: &AppState, user: &User) -> ApiResult<FeedsView> {
    let token = FeedClaim { user_id: user.id, generation: user.feed_generation }.sign(&state.store.ratings().link_key()?);
    let base = format!("{}/feeds/{token}", state.settings.public_base());
    let terms = state.store.terms().of_user(user.id)?;
    Ok(FeedsView {
        digests_url: format!("{base}/digests.atom"),
        terms: terms
            .into_iter()
            .map(|term| TermFeedView { url: format!("{base}/terms/{}.atom", term.id), term_id: term.id.0, term: term.term })
            .collect(),
    })
}

async fn digests_feed(state: web::Data<AppState>, request: HttpRequest, token: web::Path<String>) -> ApiResult<HttpResponse> {
    let user = feed_owner(&state, &request, &token)?;
    serve_feed(&state, &request, &user, None)
}

async fn term_feed(state: web::Data<AppState>, request: HttpRequest, path: web::Path<(String, String)>) -> ApiResult<HttpResponse> {
    let (token, term_id) = path.into_inner();
    let user = feed_owner(&state, &request, &token)?;
    let term_id: TermId = term_id.parse().map_err(|_| ApiError::not_found(MSG_NO_FEED))?;
    let term = state.store.terms().get(term_id)?.filter(|term| term.user_id == user.id).ok_or_else(|| ApiError::not_found(MSG_NO_FEED))?;
    serve_feed(&state, &request, &user, Some(&term))
}

/// The live account a feed token names; 404 for anything else.
fn feed_owner(state: &AppState, request: &HttpRequest, token: &str) -> ApiResult<User> {
    let ip = crate::security::client_ip(request, state.settings.trust_proxy);
    let guesses = state.settings.rate_limits.link_guesses;
    state.limiter.check_not_over("link-guess", &ip, guesses)?;
    let key = state.store.ratings().link_key_if_made()?.unwrap_or_default();
    let claim = (!key.is_empty()).then(|| FeedClaim::verify(&key, token)).flatten();
    let user = match claim {
        Some(claim) => state.store.accounts().user(claim.user_id)?.filter(|user| user.feed_generation == claim.generation && user.is_active),
        None => None,
    };
    match user {
        Some(user) => Ok(user),
        None => {
            state.limiter.check("link-guess", &ip, guesses)?;
            Err(ApiError::not_found(MSG_NO_FEED))
        }
    }
}

fn serve_feed(state: &AppState, request: &HttpRequest, user: &User, term: Option<&SearchTerm>) -> ApiResult<HttpResponse> {
    let latest = state.store.digests().latest_digest(user.id)?;
    let etag = entity_tag(user, term, latest.map(|(_, id)| id));
    let modified = latest.map(|(at, _)| at);
    if is_unchanged(request, &etag, modified) {
        let mut answer = HttpResponse::NotModified();
        answer.insert_header((header::ETAG, etag));
        return Ok(answer.finish());
    }
    let digests = state.store.digests().of_user(user.id)?;
    let feed = atom_feed(&state.settings.public_base(), request.uri().path(), term, &digests, modified.unwrap_or(user.created_at));
    let mut answer = HttpResponse::Ok();
    answer
        .content_type("application/atom+xml; charset=utf-8")
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .insert_header(("X-Robots-Tag", HeaderValue::from_static("noindex")));
    if let Some(modified) = modified {
        answer.insert_header((header::LAST_MODIFIED, modified.format("%a, %d %b %Y %H:%M:%S GMT").to_string()));
    }
    Ok(answer.body(feed.to_xml()))
}

/// Whether the reader's copy is still the feed: its `If-None-Match` names this tag, or (without
/// one) its `If-Modified-Since` is no earlier than the newest digest.
fn is_unchanged(request: &HttpRequest, etag: &str, modified: Option<DateTime<Utc>>) -> bool {
    let headers = request.headers();
    if let Some(tags) = headers.get(header::IF_NONE_MATCH).and_then(|value| value.to_str().ok()) {
        return tags.split(',').map(str::trim).any(|tag| tag == etag || tag == "*" || tag.strip_prefix("W/") == Some(etag));
    }
    let since = headers.get(header::IF_MODIFIED_SINCE).and_then(|value| value.to_str().ok()).and_then(|text| DateTime::parse_from_rfc2822(text).ok());
    match (since, modified) {
        (Some(since), Some(modified)) => modified.timestamp() <= since.timestamp(),
        _ => false,
    }
}

fn entity_tag(user: &User, term: Option<&SearchTerm>, latest: Option<uuid::Uuid>) -> String {
    let mut hash = Sha256::new();
    hash.update(user.id.as_bytes());
    hash.update(user.feed_generation.to_be_bytes());
    if let Some(term) = term {
        hash.update(term.id.0.as_bytes());
        hash.update(term.term.as_bytes());
    }
    if let Some(latest) = latest {
        hash.update(latest.as_bytes());
    }
    format!("\"{}\"", hex::encode(&hash.finalize()[..12]))
}

/// The feed of `digests` (newest first): every paper of the term's digests (or of all of them),
/// newest digest first, at most [`MAX_FEED_ENTRIES`].
pub fn atom_feed(base: &str, path: &str, term: Option<&SearchTerm>, digests: &[Digest], updated: DateTime<Utc>) -> AtomFeed {
    let chosen = digests.iter().filter(|digest| term.is_none_or(|term| digest.term_id == Some(term.id)));
    let entries: Vec<AtomEntry> =
        chosen.flat_map(|digest| digest.papers_data.iter().map(move |entry| paper_entry(digest, entry))).take(MAX_FEED_ENTRIES).collect();
    let (title, id) = match term {
        Some(term) => (format!("Papertide: {}", term.term), format!("urn:uuid:{}", term.id)),
        None => (
            "Papertide: your digests".to_owned(),
            format!("urn:papertide:digests:{}", digests.first().map_or_else(String::new, |digest| digest.user_id.to_string())),
        ),
    };
    AtomFeed {
        id,
        title,
        subtitle: Some("The papers of your weekly research digests, ranked for you.".to_owned()),
        updated,
        self_url: format!("{base}{path}"),
        alternate_url: Some(format!("{base}/dashboard")),
        entries,
    }
}

fn paper_entry(digest: &Digest, entry: &DigestEntry) -> AtomEntry {
    let key = entry.keys.first().cloned().unwrap_or_else(|| entry.title.clone());
    let link = entry.url.clone().or_else(|| entry.links.first().map(|(_, url)| url.clone()));
    let mut summary = format!("{}% relevant. {}", percent(entry.relevance_score), entry.reason.trim());
    if !entry.summary.trim().is_empty() {
        summary.push_str("\n\n");
        summary.push_str(entry.summary.trim());
    }
    AtomEntry {
        id: format!("urn:papertide:{}:{}", digest.id, hex::encode(&Sha256::digest(key.as_bytes())[..8])),
        title: entry.title.clone(),
        updated: digest.sent_at,
        published: Some(digest.sent_at),
        authors: entry.authors.split(", ").map(str::trim).filter(|name| !name.is_empty()).map(str::to_owned).collect(),
        link,
        summary,
        content_html: None,
        categories: vec![digest.search_term.clone()],
    }
}
