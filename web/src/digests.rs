//! Digests over HTTP (spec §7): `POST /api/immediate-search` adds a term and runs it at once —
//! expanded locally (RM3 over the index), searched in the last week's papers of the sources the
//! user's plan and preferences allow (after asking PubMed and arXiv live when the index has
//! little for the term, with live search on), scored, summarized, stored and mailed;
//! `GET /api/users/{userId}/digests` lists what was sent (each paper with its `paperKey`, what a
//! rating names); `POST /api/resend-email` mails a term's
//! latest digest again; `GET`/`POST /api/unsubscribe/{token}` turn weekly digests off (the POST
//! is the mail clients' one-click unsubscribe, RFC 8058); `POST /api/test-email` and
//! `POST /api/trigger-digest` serve the test-email page (own address only, operators any; rate
//! limited).

use actix_web::{web, HttpRequest};
use actors::DigestOutcome;
use chrono::Utc;
use engine::account::normalize_email;
use engine::digest::{has_digest_allowance, Digest, DigestKind};
use engine::mail::{welcome_mail, RenderedMail};
use engine::search_term::{is_same_term, validate_search_term, SearchTerm, TermId, TermLimit, TermStatus};
use store::search_terms::Added;
use store::User;
use uuid::Uuid;

use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult, ErrorCode, ErrorDetails};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::terms::{already_followed_error, term_error};
use crate::wire::digests::{
    DigestView, ImmediateSearchAnswer, ImmediateSearchRequest, ResendAnswer, ResendRequest, TestEmailRequest, TriggerDigestAnswer,
};
use crate::wire::DoneWithMessage;

const MSG_UNSUBSCRIBED: &str = "You have been unsubscribed from weekly digests. You can turn them back on in your dashboard.";
/// Spec §5: the text of an unsubscribe link without a (valid) token.
const MSG_BAD_UNSUBSCRIBE: &str = "Invalid unsubscribe link. Please check your email for the correct link.";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .post("/immediate-search", immediate_search)
        .post("/resend-email", resend)
        .post("/test-email", test_email)
        .post("/trigger-digest", trigger_digest)
        .get("/users/{user_id}/digests", list)
        .get("/unsubscribe/{token}", unsubscribe)
        .post("/unsubscribe/{token}", unsubscribe);
}

/// `POST /api/immediate-search` `{ email, searchTerm }`: the term is kept and, if the plan allows
/// another digest, searched and mailed at once. A topic the user has already (whatever its letter
/// case and spacing) is refused with a 409 that says so, unless its last search failed: then it
/// is searched again, once however many requests ask. A free plan whose digests are used keeps the term and gets no digest
/// (`digestSent: false`, with a message saying why).
async fn immediate_search(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    body: web::Json<ImmediateSearchRequest>,
) -> ApiResult<web::Json<ImmediateSearchAnswer>> {
    let user = signed_in.user;
    if normalize_email(&body.email) != user.email {
        return Err(ApiError::new(ErrorCode::NotYourAccount, "You can only search for your own account."));
    }
    let text = validate_search_term(&body.search_term).map_err(|message| term_error("searchTerm", message))?;
    state.limiter.check("immediate-search", &user.id.to_string(), state.settings.rate_limits.immediate_search)?;
    let now = Utc::now();
    let existing = state.store.terms().of_user(user.id)?.into_iter().find(|term| is_same_term(&term.term, &text));
    if let Some(term) = existing.as_ref().filter(|term| term.status != TermStatus::Failed) {
        return Err(already_followed_error(term));
    }
    // Seeds are found before anything is saved: a line refused leaves no term behind.
    let found = match body.seeds.as_ref().filter(|seeds| !seeds.is_empty()) {
        Some(seeds) => {
            state.limiter.check("seeds", &user.id.to_string(), crate::seeds::SEED_RATE)?;
            crate::seeds::find_seeds(&state, seeds).await?
        }
        None => Vec::new(),
    };
    let term = match existing {
        // A topic whose search failed is searched again; any other the user has is searched
        // already (or waits for its week, or for a plan with digests left): refused above.
        Some(term) => term,
        None => add_term(&state, &user, SearchTerm::new(TermId(Uuid::new_v4()), user.id, text, user.subscription_tier, now))?,
    };
    // Claimed in one step: of two requests for one term, only one searches it.
    let claimed = std::cell::Cell::new(false);
    state.store.terms().update(term.id, |stored| {
        claimed.set(stored.status != TermStatus::Processing);
        stored.status = TermStatus::Processing;
    })?;
    if !claimed.get() {
        return Err(already_followed_error(&term));
    }
    let mut seeded = crate::seeds::save_seeds(&state, user.id, term.id, &found)?;
    if user.pending_search.as_deref().is_some_and(|pending| is_same_term(pending, &term.term)) {
        // The papers given at signup become the topic's seeds as it is made.
        seeded.extend(crate::seeds::save_pending_seeds(&state, &user, term.id)?);
        state.store.accounts().update_user(user.id, |stored| {
            stored.pending_search = None;
            stored.pending_seeds.clear();
        })?;
    }
    // A digest's commit marks the term completed with it; a term that was not searched (no free
    // digest left) keeps the state it had, and a failed search says so.
    let outcome = run_term_digest(&state, &user, &term, DigestKind::Immediate).await;
    match &outcome {
        Ok(DigestOutcome::Sent(_)) => {}
        Ok(DigestOutcome::FreeDigestsUsed) => {
            state.store.terms().update(term.id, |stored| stored.status = term.status)?;
        }
        Err(_) => {
            state.store.terms().update(term.id, |stored| {
                stored.status = TermStatus::Failed;
                stored.last_processed_at = Some(Utc::now());
            })?;
        }
    }
    state.store.flush_async().await?;
    let digest = match outcome? {
        DigestOutcome::Sent(digest) => digest,
        DigestOutcome::FreeDigestsUsed => {
            return Ok(web::Json(ImmediateSearchAnswer {
                digest_id: None,
                digest_sent: false,
                message: MSG_FREE_DIGESTS_USED_SAVED.to_owned(),
                papers_found: 0,
                search_term: term.term,
                seeded,
                success: true,
                term_id: term.id.0,
            }));
        }
    };
    state.poke_mailer();
    let papers = digest.papers_data.len();
    let message = match (papers, digest.widened) {
        (0, _) => format!(
            "Nothing published in the last {} days was relevant enough to send; your digest says so, and the search runs again every week.",
            digest.window_days()
        ),
        (_, Some(widened)) => format!("{} Your digest is on its way.", widened.note()),
        (_, None) => "Your digest is on its way.".to_owned(),
    };
    Ok(web::Json(ImmediateSearchAnswer {
        digest_id: Some(digest.id),
        digest_sent: true,
        message,
        papers_found: papers,
        search_term: term.term,
        seeded,
        success: true,
        term_id: term.id.0,
    }))
}

const MSG_FREE_DIGESTS_USED_SAVED: &str = "Your search term is saved. Your free plan's 2 digests have been used, so no digest was sent.";
const MSG_FREE_DIGESTS_USED: &str = "Your free plan's 2 digests have been used, so no new digest can be sent.";
const MSG_TRIGGER_NEEDS_PAID_PLAN: &str = "Triggering a weekly digest is for paid plans: on the free plan it would use one of your 2 free \
digests. Your free digests come on their own (the first when you add a search term, then on Mondays); to see how a digest \
looks, use Send Sample Digest.";

/// Stores a new term, or answers that the user follows it already (409), or the plan limit's 402
/// (`requiresPayment`, `currentCount`) or 403 (`requiresSupport`) of spec §8.
fn add_term(state: &AppState, user: &User, term: SearchTerm) -> ApiResult<SearchTerm> {
    match state.store.terms().add(&term, user.subscription_tier, user.is_unlimited)? {
        Added::Added(term) => Ok(term),
        Added::AlreadyFollowed(same) => Err(already_followed_error(&same)),
        Added::OverLimit(TermLimit::RequiresPayment { current_count, message }) => {
            // With billing off there is no plan to buy: the message names the operator instead.
            let message = if state.billing.is_some() { message } else { engine::search_term::term_limit_without_billing(user.subscription_tier) };
            let details = ErrorDetails { requires_payment: Some(true), current_count: Some(current_count), ..ErrorDetails::default() };
            Err(ApiError::new(ErrorCode::RequiresPayment, message).with_details(details))
        }
        Added::OverLimit(TermLimit::RequiresSupport { message }) => {
            let details = ErrorDetails { requires_support: Some(true), ..ErrorDetails::default() };
            Err(ApiError::new(ErrorCode::RequiresSupport, message).with_details(details))
        }
    }
}

/// Builds, stores and queues `user`'s digest of `term` on the user's actor (after any work of
/// theirs in flight), off the event loop, if their plan allows another digest.
async fn run_term_digest(state: &AppState, user: &User, term: &SearchTerm, kind: DigestKind) -> ApiResult<DigestOutcome> {
    state.users.digest_of_term(user.clone(), term, kind, Utc::now()).await.map_err(ApiError::internal)
}

/// The mail of a stored digest, to `to`.
fn render_digest(state: &AppState, user: &User, to: &str, digest: &Digest) -> ApiResult<RenderedMail> {
    state.digester.render(user, to, digest).map_err(ApiError::internal)
}

/// `POST /api/resend-email` `{ searchTerm }`: mails the user's latest digest of that term again.
async fn resend(state: web::Data<AppState>, signed_in: SignedIn, body: web::Json<ResendRequest>) -> ApiResult<web::Json<ResendAnswer>> {
    let user = signed_in.user;
    state.limiter.check("resend-email", &user.id.to_string(), state.settings.rate_limits.resend_email)?;
    // The latest digest of the user's term of that text (by the term's identity: an edited
    // term's digests are its own); of a term since deleted, the latest of that text.
    let term = state.store.terms().of_user(user.id)?.into_iter().find(|term| is_same_term(&term.term, &body.search_term));
    let digest = state
        .store
        .digests()
        .of_user(user.id)?
        .into_iter()
        .find(|digest| match &term {
            Some(term) => digest.term_id == Some(term.id),
            None => is_same_term(&digest.search_term, &body.search_term),
        })
        .ok_or_else(|| ApiError::not_found("There is no digest of this search term to resend yet."))?;
    let mail = render_digest(&state, &user, &user.email, &digest)?;
    state.store.mail().enqueue(&mail, Utc::now())?;
    state.store.flush_async().await?;
    state.poke_mailer();
    Ok(web::Json(ResendAnswer { search_term: digest.search_term, success: true }))
}

const MSG_EMAIL_REQUIRED: &str = "Please enter an email address";

/// `POST /api/test-email` `{ email, type: welcome | digest }`: a welcome mail, or the user's
/// latest digest, to the user's own address (operators: any address).
async fn test_email(state: web::Data<AppState>, signed_in: SignedIn, body: web::Json<TestEmailRequest>) -> ApiResult<web::Json<DoneWithMessage>> {
    let user = signed_in.user;
    let typed = body.email.trim();
    if typed.is_empty() {
        return Err(ApiError::bad_request(MSG_EMAIL_REQUIRED));
    }
    // Checked as typed: a lookalike must not become a valid address by being normalized.
    if !engine::validation::is_valid_email(typed) {
        return Err(ApiError::bad_request(engine::validation::MSG_INVALID_EMAIL));
    }
    let to = normalize_email(typed);
    let is_operator = crate::auth::is_operator(&user, &state.settings);
    if to != user.email && !is_operator {
        return Err(ApiError::new(ErrorCode::NotYourAddress, "Test mail goes only to your own address."));
    }
    let is_welcome = match body.kind.as_str() {
        "welcome" => true,
        "digest" => false,
        _ => return Err(ApiError::bad_request("The type of test mail must be welcome or digest.")),
    };
    state.limiter.check("test-email", &user.id.to_string(), state.settings.rate_limits.test_email)?;
    let mail = if is_welcome {
        welcome_mail(&state.mail_context(), &to)
    } else {
        let latest = state.store.digests().of_user(user.id)?.into_iter().next().ok_or_else(|| {
            ApiError::bad_request("There is no digest to send yet: add a search term first, and the sample shows its latest results.")
        })?;
        render_digest(&state, &user, &to, &latest)?
    };
    state.store.mail().enqueue(&mail, Utc::now())?;
    state.store.flush_async().await?;
    state.poke_mailer();
    Ok(web::Json(DoneWithMessage::new(format!("Test mail queued for {to}."))))
}

/// `POST /api/trigger-digest`: the caller's weekly digest now, one per active term. Refused on
/// the free plan: a triggered digest is a real one (its papers are not sent again), so there it
/// would spend the plan's allowance on a test; Send Sample Digest shows a digest at no cost.
async fn trigger_digest(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<TriggerDigestAnswer>> {
    let user = signed_in.user;
    if has_digest_allowance(user.subscription_tier) {
        return Err(ApiError::new(ErrorCode::TriggerNeedsPaidPlan, MSG_TRIGGER_NEEDS_PAID_PLAN));
    }
    let terms: Vec<SearchTerm> = state.store.terms().of_user(user.id)?.into_iter().filter(|term| term.is_active).collect();
    if terms.is_empty() {
        return Err(ApiError::bad_request("Add a search term first: the weekly digest covers your active terms."));
    }
    state.limiter.check("test-email", &user.id.to_string(), state.settings.rate_limits.test_email)?;
    let mut papers = 0;
    let mut sent = 0;
    for term in &terms {
        let digest = match run_term_digest(&state, &user, term, DigestKind::Weekly).await? {
            DigestOutcome::Sent(digest) => digest,
            DigestOutcome::FreeDigestsUsed if sent == 0 => {
                let details = ErrorDetails { requires_payment: Some(true), ..ErrorDetails::default() };
                return Err(ApiError::new(ErrorCode::FreeDigestsUsed, MSG_FREE_DIGESTS_USED).with_details(details));
            }
            DigestOutcome::FreeDigestsUsed => break,
        };
        papers += digest.papers_data.len();
        sent += 1;
    }
    state.store.flush_async().await?;
    state.poke_mailer();
    Ok(web::Json(TriggerDigestAnswer { digests: sent, papers_found: papers, success: true }))
}

/// `GET /api/users/{userId}/digests` → the user's digests, newest first, each paper as the
/// client reads it (spec §3 Paper, with its summary, why it matched, its sources and links).
async fn list(state: web::Data<AppState>, signed_in: SignedIn, user_id: web::Path<String>) -> ApiResult<web::Json<Vec<DigestView>>> {
    signed_in.require_owner(&user_id)?;
    let digests = state.store.digests().of_user(signed_in.user.id)?;
    // Each paper is named by its first dedup key; the store's bookkeeping (which works were
    // sent, the ranking's impact prior) is no part of the wire type.
    let listed: Vec<DigestView> = digests.into_iter().map(DigestView::from).collect();
    Ok(web::Json(listed))
}

/// `GET` or `POST /api/unsubscribe/{token}`: weekly digests off for the token's user.
///
/// Wrong links are counted per client address (`link_guesses`); a caller over it gets 429 before
/// anything is looked up. Right ones are never counted: a mail provider's one-click requests
/// for many users come from few addresses.
async fn unsubscribe(state: web::Data<AppState>, request: HttpRequest, token: web::Path<String>) -> ApiResult<web::Json<DoneWithMessage>> {
    let ip = crate::security::client_ip(&request, state.settings.trust_proxy);
    let guesses = state.settings.rate_limits.link_guesses;
    state.limiter.check_not_over("link-guess", &ip, guesses)?;
    let Some(user_id) = state.store.digests().unsubscribe_user(&token)? else {
        state.limiter.check("link-guess", &ip, guesses)?;
        return Err(ApiError::not_found(MSG_BAD_UNSUBSCRIBE));
    };
    let mut preferences = state.store.accounts().preferences(user_id)?;
    preferences.weekly_digest = false;
    state.store.accounts().put_preferences(user_id, &preferences)?;
    state.store.flush_async().await?;
    Ok(web::Json(DoneWithMessage::new(MSG_UNSUBSCRIBED)))
}
