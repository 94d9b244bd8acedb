//! One actor per active user serializes that user's immediate digests, while different users'
//! work runs side by side. (The weekly pass, [`crate::weekly`], does not go through these
//! actors: each user's digests are committed against the ledger version they were chosen at,
//! so a paper is never sent twice however an immediate digest races them.)
//!
//! The [`UserActors`] registry starts a user's [`UserActor`] on first use, on an arbiter of its
//! own (not an HTTP worker's), and the actor stops itself after [`IDLE_STOP`] without work, so
//! only users with work in flight hold one. Each message's work is blocking (index searches,
//! sled) and runs on the blocking pool; the actor handles its next message only when it is done
//! (`AtomicResponse`). A semaphore bounds how many users' work runs at once, one per core by
//! default, so many users' searches queue instead of starting a thread for each.
//!
//! With a [`LiveSearch`], an immediate digest whose term the index has little for first asks the
//! sources live and waits for their papers to be indexed (bounded by the live search's
//! timeout); no permit is held while it waits on the network. Weekly digests never search live.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix::prelude::*;
use chrono::{DateTime, Utc};
use engine::digest::DigestKind;
use engine::mail::MailContext;
use engine::search_term::{SearchTerm, TermId};
use engine::UserId;
use store::{Store, User};
use tokio::sync::Semaphore;

use crate::digester::{DigestOutcome, Digester, Entitlement};
use crate::error::DigestError;
use crate::live::{LiveQuery, LiveSearch};

/// An idle user's actor stops after this long without work.
pub const IDLE_STOP: Duration = Duration::from_secs(600);

/// Starts and finds the users' actors. Cheap to clone; clones share the actors.
#[derive(Clone)]
pub struct UserActors {
    shared: Arc<Shared>,
}

struct Shared {
    store: Store,
    digester: Digester,
    /// Asks the sources before an immediate digest whose term the index has little for.
    live: Option<LiveSearch>,
    mail: MailContext,
    arbiter: ArbiterHandle,
    actors: Mutex<HashMap<UserId, Addr<UserActor>>>,
    permits: Arc<Semaphore>,
    workers: usize,
}

impl UserActors {
    /// The registry, with its own arbiter thread; at most `workers` users' work at once. Call
    /// from within an actix system.
    pub fn new(store: Store, digester: Digester, mail: MailContext, workers: usize) -> UserActors {
        UserActors::start(store, digester, None, mail, workers)
    }

    /// The registry, as [`UserActors::new`], whose immediate digests ask the sources through
    /// `live` first when the index has little for their term.
    pub fn with_live_search(store: Store, digester: Digester, live: LiveSearch, mail: MailContext, workers: usize) -> UserActors {
        UserActors::start(store, digester, Some(live), mail, workers)
    }

    fn start(store: Store, digester: Digester, live: Option<LiveSearch>, mail: MailContext, workers: usize) -> UserActors {
        let arbiter = Arbiter::new().handle();
        let permits = Arc::new(Semaphore::new(workers.max(1)));
        UserActors { shared: Arc::new(Shared { store, digester, live, mail, arbiter, actors: Mutex::default(), permits, workers: workers.max(1) }) }
    }

    /// The digester the users' digests are built with.
    pub fn digester(&self) -> &Digester {
        &self.shared.digester
    }

    /// The store the users' digests are kept in.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// What the users' mails link to.
    pub fn mail(&self) -> &MailContext {
        &self.shared.mail
    }

    /// How many users' work runs at once.
    pub fn workers(&self) -> usize {
        self.shared.workers
    }

    /// How many users' work may run at once by default: one per core.
    pub fn default_workers() -> usize {
        std::thread::available_parallelism().map_or(1, usize::from)
    }

    /// Builds `user`'s digest of `term` as of `now` (an immediate search, or a weekly digest the
    /// user asked for), after any work of theirs in flight, if their plan allows another digest
    /// (checked on the user's actor, so two requests cannot both take the last free one).
    pub async fn digest(&self, user: User, term: String, kind: DigestKind, now: DateTime<Utc>) -> Result<DigestOutcome, DigestError> {
        self.build_digest(BuildDigest { user, term, term_id: None, kind, now }).await
    }

    /// [`UserActors::digest`] of the user's stored term `term`: the commit that records the
    /// digest also marks the term completed, so no crash can part the two.
    pub async fn digest_of_term(&self, user: User, term: &SearchTerm, kind: DigestKind, now: DateTime<Utc>) -> Result<DigestOutcome, DigestError> {
        self.build_digest(BuildDigest { user, term: term.term.clone(), term_id: Some(term.id), kind, now }).await
    }

    async fn build_digest(&self, message: BuildDigest) -> Result<DigestOutcome, DigestError> {
        let actor = self.actor(message.user.id);
        match actor.send(message).await {
            Ok(outcome) => outcome,
            Err(error) => Err(DigestError::Stopped(error.to_string())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<UserId, Addr<UserActor>>> {
        engine::sync::lock(&self.shared.actors)
    }

    /// The user's actor, started if it is not running.
    fn actor(&self, user_id: UserId) -> Addr<UserActor> {
        let mut actors = self.lock();
        if let Some(actor) = actors.get(&user_id).filter(|actor| actor.connected()) {
            return actor.clone();
        }
        // Actors that stopped while idle are forgotten now and then, not one by one.
        if actors.len() >= 1024 && actors.len().is_power_of_two() {
            actors.retain(|_, actor| actor.connected());
        }
        let shared = Arc::clone(&self.shared);
        let actor = UserActor::start_in_arbiter(&self.shared.arbiter, move |_| UserActor { shared, last_work: Instant::now() });
        actors.insert(user_id, actor.clone());
        actor
    }
}

/// A user's actor: one message of theirs at a time.
pub struct UserActor {
    shared: Arc<Shared>,
    last_work: Instant,
}

impl Actor for UserActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(IDLE_STOP / 4, |actor, ctx| {
            if actor.last_work.elapsed() >= IDLE_STOP {
                ctx.stop();
            }
        });
    }
}

impl UserActor {
    /// Runs the future `job` makes; the actor takes no other message until it is done.
    fn run_job<T, Job>(&mut self, job: impl FnOnce(Arc<Shared>) -> Job) -> AtomicResponse<Self, T>
    where
        Job: Future<Output = T> + 'static,
    {
        self.last_work = Instant::now();
        let job = job(Arc::clone(&self.shared));
        AtomicResponse::new(Box::pin(job.into_actor(self).map(|outcome, actor, _| {
            actor.last_work = Instant::now();
            outcome
        })))
    }
}

/// Runs `work` on the blocking pool once one of the permits is free, and gives the permit back
/// when it is done.
async fn on_blocking_pool<T, E, F>(shared: Arc<Shared>, work: F) -> Result<T, E>
where
    T: Send + 'static,
    E: From<WorkStopped> + Send + 'static,
    F: FnOnce(&Shared) -> Result<T, E> + Send + 'static,
{
    let _permit = Arc::clone(&shared.permits).acquire_owned().await.map_err(|error| WorkStopped(error.to_string()))?;
    actix_rt::task::spawn_blocking(move || work(&shared)).await.map_err(|error| WorkStopped(error.to_string()))?
}

/// A user's work that ended without an answer (a panic, or the system stopping).
#[derive(Debug)]
pub struct WorkStopped(String);

impl From<WorkStopped> for String {
    fn from(WorkStopped(reason): WorkStopped) -> String {
        format!("the user's work stopped abnormally: {reason}")
    }
}

impl From<WorkStopped> for DigestError {
    fn from(stopped: WorkStopped) -> DigestError {
        DigestError::Stopped(String::from(stopped))
    }
}

/// Build the user's digest of a term now, if their plan allows it.
#[derive(Message)]
#[rtype(result = "Result<DigestOutcome, DigestError>")]
struct BuildDigest {
    user: User,
    term: String,
    /// The stored term, when the digest completes it.
    term_id: Option<TermId>,
    kind: DigestKind,
    now: DateTime<Utc>,
}

impl Handler<BuildDigest> for UserActor {
    type Result = AtomicResponse<Self, Result<DigestOutcome, DigestError>>;

    fn handle(&mut self, BuildDigest { user, term, term_id, kind, now }: BuildDigest, _: &mut Self::Context) -> Self::Result {
        self.run_job(move |shared| async move {
            let checked_term = term.clone();
            let checked = on_blocking_pool(Arc::clone(&shared), move |shared| check_digest(shared, user, &checked_term, kind, now)).await?;
            let Some((user, entitlement, live_query)) = checked else {
                return Ok(DigestOutcome::FreeDigestsUsed);
            };
            if let (Some(live), Some(query)) = (&shared.live, live_query) {
                live.run(&query).await;
            }
            on_blocking_pool(shared, move |shared| shared.digester.run_entitled(&user, &term, term_id, kind, now, entitlement)).await
        })
    }
}

/// Whether `user` (as stored now: an operator's set-tier or an upgrade counts at once) may have
/// a digest now, and if so, their ledger and allowance (decided here, once, and passed to the
/// digest) and the live query an immediate digest of `term` should make first. `None`: the plan
/// allows no digest now. Blocking (sled, the index).
fn check_digest(
    shared: &Shared,
    user: User,
    term: &str,
    kind: DigestKind,
    now: DateTime<Utc>,
) -> Result<Option<(User, Entitlement, Option<LiveQuery>)>, DigestError> {
    let user = shared.store.accounts().user(user.id)?.unwrap_or(user);
    let entitlement = Entitlement::read(&shared.store, &user)?;
    if !entitlement.allowance.allows_digest() {
        return Ok(None);
    }
    let live_query = match &shared.live {
        Some(live) if kind == DigestKind::Immediate => {
            let sources = shared.digester.sources(&user)?;
            live.plan(term, &sources, now.date_naive()).unwrap_or_else(|error| {
                tracing::warn!(%error, "counting the index's papers on a term failed; no live search");
                None
            })
        }
        _ => None,
    };
    Ok(Some((user, entitlement, live_query)))
}
