//! Lab channels over HTTP: a term's owner on the Team plan, or an operator, connects an incoming
//! webhook (Slack- or Mattermost-compatible) to the term (`PUT /api/search-terms/{termId}/channel
//! {url}`; the term's latest digest is posted at once), looks at how its posts fare (`GET`), sends a test message (`POST …/channel/test`) and
//! disconnects it (`DELETE`). Each digest of the term is then posted by `actors::channels`. The
//! webhook's address is a secret: only its host is shown back. The operator's console lists
//! every channel, failing ones first (`GET /api/admin/channels`).

use actix_web::web;
use chrono::Utc;
use store::LabChannel;

use crate::auth::{Operator, SignedIn};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::terms::owned_term;
use crate::wire::workflows::{AdminChannel, AdminChannels, ChannelAnswer, ChannelRequest, ChannelView};
use crate::wire::Done;

pub const MSG_TEAM_ONLY: &str = "Lab channels come with the Team plan.";
const MSG_NO_CHANNEL: &str = "This search term has no lab channel.";
/// The test message's text.
pub const TEST_MESSAGE: &str = "Papertide is connected: this channel will get each new digest of";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/search-terms/{term_id}/channel", get_channel)
        .put("/search-terms/{term_id}/channel", connect)
        .delete("/search-terms/{term_id}/channel", disconnect)
        .post("/search-terms/{term_id}/channel/test", test)
        .get("/admin/channels", admin_channels);
}

/// Only a Team user or an operator has lab channels.
fn require_entitled(state: &AppState, signed_in: &SignedIn) -> ApiResult<()> {
    let user = &signed_in.user;
    if user.subscription_tier.entitlements().lab_channels || crate::auth::is_operator(user, &state.settings) {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::RequiresUpgrade, MSG_TEAM_ONLY))
    }
}

fn view(channel: &LabChannel) -> ChannelView {
    ChannelView {
        host: host_of(&channel.url),
        connected_at: channel.connected_at,
        last_posted_at: channel.last_posted_at,
        failures: channel.failures,
        last_error: channel.last_error.clone(),
    }
}

fn host_of(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|url| url.host_str().map(str::to_owned)).unwrap_or_default()
}

/// `GET /api/search-terms/{termId}/channel` → `{ channel }`, `null` when none.
async fn get_channel(state: web::Data<AppState>, signed_in: SignedIn, term_id: web::Path<String>) -> ApiResult<web::Json<ChannelAnswer>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    let channel = state.store.channels().get(signed_in.user.id, term.id)?;
    Ok(web::Json(ChannelAnswer { channel: channel.as_ref().map(view) }))
}

/// `PUT /api/search-terms/{termId}/channel {url}`: connects (or replaces) the term's channel.
async fn connect(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    term_id: web::Path<String>,
    body: web::Json<ChannelRequest>,
) -> ApiResult<web::Json<ChannelView>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    require_entitled(&state, &signed_in)?;
    let url = engine::channel::validate_webhook_url(body.url.trim(), state.settings.channels_allow_private)
        .map_err(|message| crate::terms::term_error("url", message))?;
    let channel = LabChannel {
        user_id: signed_in.user.id,
        term_id: term.id,
        url: url.to_string(),
        connected_at: Utc::now(),
        last_posted_at: None,
        failures: 0,
        last_error: None,
    };
    let connected_before = state.store.channels().get(signed_in.user.id, term.id)?.is_some();
    state.store.channels().set(&channel)?;
    // A channel just connected gets the term's latest digest at once, so the lab sees what it
    // will get; from then on every new one.
    if !connected_before {
        let latest = state
            .store
            .digests()
            .of_user(signed_in.user.id)?
            .into_iter()
            .find(|digest| digest.term_id == Some(term.id) && !digest.papers_data.is_empty());
        if let Some(digest) = latest {
            state.store.channels().queue_post(&digest, Utc::now())?;
        }
    }
    state.store.flush_async().await?;
    Ok(web::Json(view(&channel)))
}

/// `DELETE /api/search-terms/{termId}/channel`.
async fn disconnect(state: web::Data<AppState>, signed_in: SignedIn, term_id: web::Path<String>) -> ApiResult<web::Json<Done>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    if !state.store.channels().remove(signed_in.user.id, term.id)? {
        return Err(ApiError::not_found(MSG_NO_CHANNEL));
    }
    state.store.flush_async().await?;
    Ok(web::Json(Done::new()))
}

/// `POST /api/search-terms/{termId}/channel/test`: posts a short message now; the error says
/// what the webhook answered.
async fn test(state: web::Data<AppState>, signed_in: SignedIn, term_id: web::Path<String>) -> ApiResult<web::Json<Done>> {
    let term = owned_term(&state, &signed_in, &term_id)?;
    require_entitled(&state, &signed_in)?;
    state.limiter.check(
        "channel-test",
        &signed_in.user.id.to_string(),
        crate::config::Rate { max: 10, window: std::time::Duration::from_secs(3600) },
    )?;
    let channel = state.store.channels().get(signed_in.user.id, term.id)?.ok_or_else(|| ApiError::not_found(MSG_NO_CHANNEL))?;
    let text = format!("{TEST_MESSAGE} \u{201c}{}\u{201d}.", term.term);
    let message = serde_json::json!({ "text": text });
    actors::channels::send(&channel, &message, &state.channel_config()).await.map_err(|error| ApiError::new(ErrorCode::WebhookFailed, error))?;
    Ok(web::Json(Done::new()))
}

/// `GET /api/admin/channels`: every channel, the most failures first.
async fn admin_channels(state: web::Data<AppState>, _operator: Operator) -> ApiResult<web::Json<AdminChannels>> {
    let mut channels = Vec::new();
    for channel in state.store.channels().all()? {
        let email = state.store.accounts().user(channel.user_id)?.map(|user| user.email).unwrap_or_default();
        let term = state.store.terms().get(channel.term_id)?.map(|term| term.term).unwrap_or_default();
        channels.push(AdminChannel {
            user_email: email,
            term,
            host: host_of(&channel.url),
            failures: channel.failures,
            last_error: channel.last_error.clone(),
            last_posted_at: channel.last_posted_at,
            pending: state.store.channels().pending_posts(channel.user_id, channel.term_id)?,
        });
    }
    channels.sort_by(|a, b| b.failures.cmp(&a.failures).then_with(|| a.user_email.cmp(&b.user_email)));
    Ok(web::Json(AdminChannels { channels }))
}
