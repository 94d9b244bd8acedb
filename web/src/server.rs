//! Starting and stopping the service: open the store, start the actors, serve HTTP, and on
//! SIGINT/SIGTERM stop accepting, finish requests in flight and flush the database.

use std::net::SocketAddr;
use std::time::Duration;

use actix::Arbiter;
use actix_web::dev::Server;
use actix_web::HttpServer;
use actors::{
    Digester, Indexer, Janitor, Llm, MailTransport, Mailer, MailerConfig, ModelClass, ScheduleConfig, Scheduler, StatusBoard, UserActors, Vectorizer,
    VectorizerConfig, VectorizerThread,
};
use anyhow::Context;
use index::PaperIndex;
use store::Store;

use crate::app::create_app;
use crate::config::Settings;
use crate::harvest::SourceClients;
use crate::state::AppState;

const SMTP_TIMEOUT: Duration = Duration::from_secs(30);
const SHUTDOWN_GRACE_SECS: u64 = 10;
/// How often the scheduler looks for due weekly digests.
const SCHEDULER_INTERVAL: Duration = Duration::from_secs(300);

/// A started service: await `server` to run it until a signal (or `server.handle().stop()`).
pub struct Started {
    pub server: Server,
    pub address: SocketAddr,
    pub state: AppState,
    /// The index writer's thread; stopping it releases the index.
    pub indexer_thread: Arbiter,
    /// The vectorizer's thread, when there is an embedding model; stopping it stops embedding
    /// after the batch under way.
    pub vectorizer_thread: Option<VectorizerThread>,
}

/// Starts everything on the current actix system; `workers` HTTP worker threads.
pub fn start(settings: Settings, workers: usize) -> anyhow::Result<Started> {
    std::fs::create_dir_all(&settings.data_dir).with_context(|| format!("creating the data directory {}", settings.data_dir.display()))?;
    // Loaded first: a model folder that does not load stops the start before anything is opened.
    let embedding = crate::model::load_for_serve(&settings)?;
    let store = Store::open(&settings.database_dir())?.with_disk_reserve(settings.min_free_disk_bytes);
    let board = StatusBoard::default();

    let transport = match (&settings.smtp_url, &settings.smtp_ca_file) {
        (Some(url), None) => MailTransport::smtp_from_url(url, SMTP_TIMEOUT)?,
        (Some(url), Some(ca_file)) => {
            let pem = std::fs::read(ca_file).with_context(|| format!("reading the SMTP CA file {}", ca_file.display()))?;
            MailTransport::smtp_from_url_with_root(url, &pem, SMTP_TIMEOUT)?
        }
        (None, _) => MailTransport::Outbox(settings.outbox_dir()),
    };
    let from = actors::mailer::parse_mailbox(&settings.mail_from).with_context(|| format!("the sender address {:?}", settings.mail_from))?;
    let index = PaperIndex::open_or_create(&crate::papers::index_dir(&settings.data_dir)).context("opening the paper index")?;
    // With a model the digester ranks by meaning as well as by words, with the vectors the
    // `Vectorizer` below makes of every paper; without one, by words.
    let mut digester = Digester::new(store.clone(), index.clone(), crate::state::mail_context(&settings));
    if let Some(model) = &embedding {
        digester = digester.with_embedder(model.embedder.clone());
    }
    if let Some(llm_settings) = &settings.llm {
        let config = actors::LlmConfig {
            api_key: llm_settings.api_key.clone(),
            model_advanced: llm_settings.model_advanced.clone(),
            timeout: llm_settings.timeout,
            ..actors::LlmConfig::new(llm_settings.url.clone(), llm_settings.model.clone())
        };
        let llm = Llm::new(config.clone()).context("starting the LLM client")?;
        tracing::info!(endpoint = %config.endpoint(), model = %llm.model(ModelClass::Standard), "LLM configured for expansion and summaries");
        digester = digester.with_llm(llm);
    }
    // Digest mails are queued as references to their digests and rendered when they are sent.
    let mailer_config = MailerConfig::new(from, settings.public_host()).with_digests(digester.renderer().clone());
    let mailer = Mailer::new(store.clone(), transport, mailer_config, board.clone()).start_supervised();
    Janitor::new(store.clone(), board.clone()).start_supervised();

    // Taken here once, so that an index another process writes (papertide import or harvest)
    // stops the start with a reason instead of failing every batch later.
    drop(index.writer(crate::harvest::WRITER_HEAP_BYTES).context("taking the index writer (is papertide import or harvest running?)")?);
    let (indexer, indexer_thread) =
        Indexer::new(index.clone(), crate::harvest::WRITER_HEAP_BYTES, board.clone()).with_disk_room(store.room().clone()).start_in_own_thread();
    // One client per source, shared by its harvester and live search: one pace per source.
    let clients = SourceClients::new(&settings.sources)?;
    crate::harvest::start_harvesters(&clients, &settings.harvest, &store, &indexer, &board);

    let mail_context = crate::state::mail_context(&settings);
    let digest_workers = UserActors::default_workers();
    let users = if settings.live_search {
        let live = clients.live_search(&index, &indexer, &board);
        UserActors::with_live_search(store.clone(), digester, live, mail_context, digest_workers)
    } else {
        UserActors::new(store.clone(), digester, mail_context, digest_workers)
    };
    let vectorizer_thread = embedding.as_ref().map(|model| {
        let vectorizer = Vectorizer::new(model.embedder.clone(), index.clone(), store.clone(), board.clone(), VectorizerConfig::default());
        vectorizer.start_in_own_thread().1
    });
    let state = AppState::new(settings.clone(), store, mailer, index, indexer, users, board).with_embedding(embedding);
    let schedule = ScheduleConfig { hour: settings.digest_hour, interval: SCHEDULER_INTERVAL };
    Scheduler::new(state.store.clone(), state.users.clone(), schedule, state.board.clone()).start_supervised();
    let app_state = state.clone();
    let gate = state.connections.clone();
    let open_files = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    let http = HttpServer::new(move || create_app(app_state.clone()))
        .on_connect(move |io, data| gate.on_connect(io, data))
        .max_connections(crate::connections::accept_limit_per_worker(open_files, workers))
        .workers(workers)
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .bind(settings.bind)
        .with_context(|| format!("listening on {}", settings.bind))?;
    let address = http.addrs().first().copied().context("the server has no address")?;
    Ok(Started { server: http.run(), address, state, indexer_thread, vectorizer_thread })
}

/// Raises the soft limit on open files to the hard limit, so that each connection, its socket
/// and the database's and index's files fit (many systems start processes at 1,024, about a
/// thousand connections); answers the soft limit now in force, or none when it is unknown.
pub fn raise_open_files_limit() -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    if let (Some(current), Some(maximum)) = (limit.current, limit.maximum) {
        if current < maximum {
            if let Err(error) = setrlimit(Resource::Nofile, Rlimit { current: Some(maximum), maximum: Some(maximum) }) {
                tracing::warn!(%error, current, maximum, "could not raise the open-files limit");
            }
        }
    }
    getrlimit(Resource::Nofile).current
}

/// `papertide serve`: runs until SIGINT or SIGTERM, then flushes the database.
pub async fn serve(settings: Settings) -> anyhow::Result<()> {
    let workers = std::thread::available_parallelism().map_or(2, |count| count.get());
    let mail = match &settings.smtp_url {
        Some(_) => "smtp".to_owned(),
        None => format!("outbox {}", settings.outbox_dir().display()),
    };
    let client = if crate::client::is_embedded() { "embedded" } else { "not built: serving the built-in page" };
    let harvest = match settings.harvest.sources.as_slice() {
        [] => "off".to_owned(),
        sources => {
            format!("{} daily at {:02}:00 UTC", sources.iter().map(|source| source.as_str()).collect::<Vec<_>>().join(","), settings.harvest.hour)
        }
    };
    let live_search = if settings.live_search { "pubmed,arxiv" } else { "off" };
    let open_files = raise_open_files_limit();
    let started = start(settings, workers)?;
    let embeddings = started.state.embedding.as_ref().map_or_else(|| "none: lexical ranking".to_owned(), |model| model.name.clone());
    tracing::info!(
        address = %started.address,
        public_url = %started.state.settings.public_base(),
        data_dir = %started.state.settings.data_dir.display(),
        %mail,
        %harvest,
        %embeddings,
        live_search,
        client,
        open_files,
        "papertide is listening"
    );
    started.server.await.context("serving HTTP")?;
    if let Some(vectorizer_thread) = &started.vectorizer_thread {
        vectorizer_thread.stop();
    }
    started.indexer_thread.stop();
    started.state.store.flush_async().await.context("flushing the database")?;
    tracing::info!("stopped; database flushed");
    Ok(())
}
