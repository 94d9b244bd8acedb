//! The channel poster: posts each digest of a term with a lab channel to the channel's incoming
//! webhook (Slack- or Mattermost-compatible), once.
//!
//! The posts wait in the store's durable queue (`store::channels`), queued with their digest.
//! Each is marked in flight before its request goes and leaves the queue once the webhook
//! answered 2xx, so a crash never posts a digest twice (a post found in flight at a start is
//! given up, and its channel says why). A failure is retried with doubling waits (1 minute to 6
//! hours) up to [`MAX_ATTEMPTS`], then given up; the channel's record keeps the count of
//! failures in a row and the last error, which the dashboard and the operator's console show.
//!
//! A webhook's address is the user's: unless the operator allows private addresses
//! (`PAPERTIDE_CHANNELS_ALLOW_PRIVATE`, for a lab's own chat server on its network), its host
//! must resolve to public addresses only, and the request goes to the address that was checked
//! (no second lookup), with no redirects followed.

use std::net::SocketAddr;
use std::time::Duration;

use actix::prelude::*;
use chrono::Utc;
use store::{ChannelPost, LabChannel, PostOutcome, Store};

use crate::status::StatusBoard;

pub const ACTOR_NAME: &str = "channels";
/// Attempts before a post is given up.
pub const MAX_ATTEMPTS: u32 = 8;
const FIRST_RETRY: Duration = Duration::from_secs(60);
const LONGEST_RETRY: Duration = Duration::from_secs(6 * 3600);
/// Posts sent per round, at most.
const ROUND: usize = 20;

/// How the poster reaches webhooks.
#[derive(Debug, Clone)]
pub struct ChannelConfig {
    /// The dashboard's address, linked from every post.
    pub dashboard_url: String,
    /// Whether webhooks on private, loopback or link-local addresses may be posted to.
    pub allow_private: bool,
    pub timeout: Duration,
    /// How often the queue is looked at.
    pub poll_interval: Duration,
}

impl Default for ChannelConfig {
    fn default() -> ChannelConfig {
        ChannelConfig { dashboard_url: String::new(), allow_private: false, timeout: Duration::from_secs(10), poll_interval: Duration::from_secs(15) }
    }
}

/// Posts the waiting digests.
pub struct ChannelPoster {
    store: Store,
    board: StatusBoard,
    config: ChannelConfig,
}

/// Post what is due now.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct PostDue;

impl ChannelPoster {
    pub fn new(store: Store, board: StatusBoard, config: ChannelConfig) -> ChannelPoster {
        ChannelPoster { store, board, config }
    }

    pub fn start_supervised(self) -> Addr<ChannelPoster> {
        Supervisor::start(|_| self)
    }
}

impl Actor for ChannelPoster {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        match self.store.channels().give_up_interrupted_posts() {
            Ok(0) => {}
            Ok(given_up) => tracing::warn!(given_up, "channel posts interrupted by the last stop were not posted again"),
            Err(error) => tracing::error!(%error, "reading the channel posts"),
        }
        ctx.run_interval(self.config.poll_interval, |_, ctx| ctx.notify(PostDue));
        ctx.notify(PostDue);
    }
}

impl Supervised for ChannelPoster {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.board.record_restart(ACTOR_NAME);
    }
}

impl Handler<PostDue> for ChannelPoster {
    type Result = AtomicResponse<Self, ()>;

    fn handle(&mut self, _: PostDue, _: &mut Self::Context) -> Self::Result {
        let (store, board, config) = (self.store.clone(), self.board.clone(), self.config.clone());
        AtomicResponse::new(Box::pin(async move { post_due(&store, &board, &config).await }.into_actor(self)))
    }
}

/// Posts every post due now, one after another.
pub async fn post_due(store: &Store, board: &StatusBoard, config: &ChannelConfig) {
    let due = match store.channels().due_posts(Utc::now(), ROUND) {
        Ok(due) => due,
        Err(error) => {
            tracing::error!(%error, "reading the channel posts");
            return;
        }
    };
    for post in due {
        if let Err(error) = post_one(store, board, config, &post).await {
            tracing::error!(%error, digest = %post.digest_id, "recording a channel post");
        }
    }
}

async fn post_one(store: &Store, board: &StatusBoard, config: &ChannelConfig, post: &ChannelPost) -> Result<(), store::StoreError> {
    let channel = store.channels().get(post.user_id, post.term_id)?;
    let digest = store.digests().digest_at(&post.digest_key)?;
    let (Some(channel), Some(digest)) = (channel, digest) else {
        // The channel was disconnected or the digest deleted since: nothing to post.
        return store.channels().finish_post(post, &PostOutcome::Failed { error: "The digest or its channel is gone.".into(), retry_at: None });
    };
    if !store.channels().mark_post_in_flight(post)? {
        return Ok(());
    }
    let message = engine::channel::webhook_message(&digest, &config.dashboard_url);
    let outcome = match send(&channel, &message, config).await {
        Ok(()) => {
            board.record_success(ACTOR_NAME, 1, Utc::now());
            PostOutcome::Posted(Utc::now())
        }
        Err(error) => {
            board.record_failure(ACTOR_NAME, &error, Utc::now());
            let attempts = post.attempts + 1;
            let retry_at = (attempts < MAX_ATTEMPTS).then(|| {
                let wait = engine::backoff::doubling(FIRST_RETRY, LONGEST_RETRY, attempts);
                Utc::now() + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::hours(6))
            });
            tracing::warn!(%error, attempts, digest = %post.digest_id, "a channel post failed");
            PostOutcome::Failed { error, retry_at }
        }
    };
    store.channels().finish_post(post, &outcome)
}

/// Posts `message` to the channel's webhook once; the reason it failed, for the researcher.
pub async fn send(channel: &LabChannel, message: &serde_json::Value, config: &ChannelConfig) -> Result<(), String> {
    let url = engine::channel::validate_webhook_url(&channel.url, config.allow_private).map_err(str::to_owned)?;
    let host = url.host_str().unwrap_or_default().to_owned();
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses: Vec<SocketAddr> =
        tokio::net::lookup_host((host.as_str(), port)).await.map_err(|_| format!("The webhook's host {host} was not found."))?.collect();
    let allowed: Vec<SocketAddr> = addresses.into_iter().filter(|address| config.allow_private || is_public(address.ip())).collect();
    let Some(address) = allowed.first().copied() else {
        return Err(format!("The webhook's host {host} is on a private network, which this installation does not post to."));
    };
    let client = reqwest::Client::builder()
        .timeout(config.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, address)
        .user_agent(crate::sources::default_user_agent())
        .build()
        .map_err(|error| format!("The webhook could not be called: {error}"))?;
    let response = client.post(url).json(message).send().await.map_err(|error| {
        if error.is_timeout() {
            "The webhook did not answer in time.".to_owned()
        } else {
            format!("The webhook could not be reached: {}", without_url(&error))
        }
    })?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let body = response.text().await.unwrap_or_default();
    let said: String = body.chars().take(200).collect();
    Err(format!("The webhook answered {status}: {}", said.trim()))
}

fn is_public(address: std::net::IpAddr) -> bool {
    match address {
        std::net::IpAddr::V4(v4) => engine::channel::is_public_ipv4(v4),
        std::net::IpAddr::V6(v6) => engine::channel::is_public_ipv6(v6),
    }
}

/// A request error's text without the URL it names: a webhook's address is a secret.
fn without_url(error: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    let mut last = None;
    while let Some(cause) = source {
        last = Some(cause.to_string());
        source = cause.source();
    }
    last.unwrap_or_else(|| "the connection failed".to_owned())
}
