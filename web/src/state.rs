//! What every request handler shares.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use actix::Addr;
use actors::{Digester, DrainQueue, Harvester, Indexer, Mailer, StatusBoard, UserActors};
use anyhow::Context;
use engine::mail::MailContext;
use engine::paper::Source;
use index::PaperIndex;
use store::Store;

use crate::auth::password::PasswordHasher;
use crate::config::Settings;
use crate::connections::ConnectionGate;
use crate::limiter::RateLimiter;
use crate::model::EmbeddingModel;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub mailer: Addr<Mailer>,
    /// The paper index, for searches; its one writer is the `indexer`.
    pub index: PaperIndex,
    pub indexer: Addr<Indexer>,
    /// Builds digests (immediate searches and test mail).
    pub digester: Digester,
    /// The sentence-embedding model, when one is loaded (its vectorizer embeds every paper);
    /// none: ranking is lexical.
    pub embedding: Option<EmbeddingModel>,
    /// One actor per user with digest work in flight.
    pub users: UserActors,
    pub board: StatusBoard,
    pub limiter: RateLimiter,
    /// Open connections, counted in all and per client address.
    pub connections: ConnectionGate,
    /// The password-hashing threads: every argon2 hash and check goes through them.
    pub hasher: PasswordHasher,
    pub started_at: Instant,
    /// Stripe, when billing is on.
    pub billing: Option<Arc<crate::billing::stripe::StripeGateway>>,
    /// The harvester of each source this service harvests (the operator's "harvest now").
    pub harvesters: BTreeMap<Source, Addr<Harvester>>,
    /// Looks seed papers up: in the index, else at their sources.
    pub seeds: Option<actors::seeds::SeedLookup>,
}

impl AppState {
    pub fn new(
        settings: Settings,
        store: Store,
        mailer: Addr<Mailer>,
        index: PaperIndex,
        indexer: Addr<Indexer>,
        users: UserActors,
        board: StatusBoard,
    ) -> AppState {
        let digester = users.digester().clone();
        let settings_billing = settings.stripe.clone().map(|stripe| Arc::new(crate::billing::stripe::StripeGateway::new(stripe)));
        let open_files = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        let max_connections = settings.max_connections.unwrap_or_else(|| crate::connections::default_max_connections(open_files));
        // Behind a proxy every connection comes from the proxy: only the total counts.
        let per_address = (!settings.trust_proxy).then_some(crate::connections::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
        let limiter = RateLimiter::with_capacity(settings.rate_limiter_capacity);
        let ipv6_prefix = settings.ipv6_prefix;
        let seeds = match runtime::sources::SourceClients::new(&settings.sources) {
            Ok(clients) => Some(clients.seed_lookup(&index, &indexer)),
            Err(error) => {
                tracing::warn!(%error, "seed papers cannot be looked up at their sources");
                None
            }
        };
        AppState {
            settings: Arc::new(settings),
            store,
            mailer,
            index,
            indexer,
            digester,
            embedding: None,
            users,
            board,
            limiter,
            connections: ConnectionGate::with_ipv6_prefix(max_connections, per_address, ipv6_prefix),
            hasher: PasswordHasher::start_per_core(),
            started_at: Instant::now(),
            billing: settings_billing,
            harvesters: BTreeMap::new(),
            seeds,
        }
    }

    /// The state of a service in front of `system`, which must run its mailer and index writer.
    pub fn from_system(settings: Settings, system: &runtime::System) -> anyhow::Result<AppState> {
        let mailer = system.mailer.clone().context("the service needs the system's mailer")?;
        let indexer = system.writer.as_ref().map(|writer| writer.indexer.clone()).context("the service needs the system's index writer")?;
        let mut state =
            AppState::new(settings, system.store.clone(), mailer, system.index.clone(), indexer, system.users.clone(), system.board.clone());
        state.harvesters = system.harvesters.clone();
        // The system's clients: one pace per source, shared with its harvesters.
        if system.seed_lookup.is_some() {
            state.seeds = system.seed_lookup.clone();
        }
        Ok(state.with_embedding(system.embedding.clone()))
    }

    /// The state with the sentence-embedding model `serve` loaded (none: ranking is lexical).
    pub fn with_embedding(mut self, embedding: Option<EmbeddingModel>) -> AppState {
        self.embedding = embedding;
        self
    }

    /// How lab channels' webhooks are reached (`actors::channels`).
    pub fn channel_config(&self) -> actors::ChannelConfig {
        runtime::channel_config(&self.settings)
    }

    pub fn mail_context(&self) -> MailContext {
        mail_context(&self.settings)
    }

    /// Tells the mailer there is new mail. A full mailbox already holds a drain request, so a
    /// refused poke loses nothing; the mailer's timer is the backstop.
    pub fn poke_mailer(&self) {
        let _ = self.mailer.try_send(DrainQueue);
    }
}

/// The public URL and support address that mails link to.
pub fn mail_context(settings: &Settings) -> MailContext {
    runtime::mail_context(settings)
}
