//! Papertide's system, started in one place from one configuration: [`System::start`] loads the
//! embedding model, opens the store and the paper index, builds the digester, and starts the
//! actors (the mailer and the janitor, the index writer with the harvesters and live search, the
//! user actors, the vectorizer, the scheduler), in that order; [`System::shutdown`] stops the
//! threads and flushes the database.
//!
//! Every caller builds the system here: `papertide serve` (which puts HTTP in front of it),
//! `papertide weekly`, the bench and the tests. A caller that does not need a part leaves it out
//! with [`Options`], never by building its own copy.

pub mod backup;
pub mod model;
pub mod private;
pub mod sources;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use actix::{Addr, Arbiter};
use actors::{
    ChannelConfig, ChannelPoster, Digester, Harvester, Indexer, Janitor, Llm, LlmConfig, MailTransport, Mailer, MailerConfig, ModelClass,
    ScheduleConfig, Scheduler, StatusBoard, UserActors, Vectorizer, VectorizerConfig, VectorizerThread,
};
use anyhow::Context;
use config::Settings;
use engine::mail::MailContext;
use engine::paper::Source;
use index::PaperIndex;
use store::Store;

use crate::model::EmbeddingModel;
use crate::sources::{SourceClients, WRITER_HEAP_BYTES};

const SMTP_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the scheduler looks for due weekly digests.
const SCHEDULER_INTERVAL: Duration = Duration::from_secs(300);

/// Which parts of the system to start besides the store, the index, the model, the digester and
/// the user actors, which every caller gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The mailer (it replays its sent journal as it starts, then drains the queue) and the
    /// janitor.
    pub mail: bool,
    /// The index writer, and what feeds it: the harvesters, live search and the vectorizer. Off,
    /// the index is only read.
    pub index_writer: bool,
    /// The scheduler, which hands due weekly digests to the user actors, and the daily backups
    /// when the settings name their folder.
    pub scheduler: bool,
    /// The LLM client for query expansion and summaries, when the settings configure one.
    pub llm: bool,
    /// Writes refused below the settings' free-disk reserve.
    pub disk_reserve: bool,
}

impl Options {
    /// Everything: the running service.
    pub fn service() -> Options {
        Options { mail: true, index_writer: true, scheduler: true, llm: true, disk_reserve: true }
    }

    /// A one-shot command beside a stopped service (`papertide weekly`): the store, the index
    /// read, the model, the digester and the user actors; mail queued is sent by the next start.
    pub fn command() -> Options {
        Options { mail: false, index_writer: false, scheduler: false, llm: false, disk_reserve: false }
    }
}

/// The index writer and the thread it runs on.
pub struct IndexWriter {
    pub indexer: Addr<Indexer>,
    /// Stopping it releases the index.
    pub thread: Arbiter,
}

/// A started system: handles to every part that runs.
pub struct System {
    pub store: Store,
    pub board: StatusBoard,
    /// The paper index, for searches; its one writer is [`System::writer`]'s.
    pub index: PaperIndex,
    /// The sentence-embedding model, when one is configured or fetched; none: ranking is lexical.
    pub embedding: Option<EmbeddingModel>,
    /// Builds digests (the user actors hold the same one).
    pub digester: Digester,
    pub users: UserActors,
    pub mailer: Option<Addr<Mailer>>,
    /// Looks seed papers up through the harvesters' clients, when the index is written here.
    pub seed_lookup: Option<actors::seeds::SeedLookup>,
    /// Posts digests to their terms' lab channels; started with the mailer.
    pub channel_poster: Option<Addr<ChannelPoster>>,
    pub janitor: Option<Addr<Janitor>>,
    pub writer: Option<IndexWriter>,
    /// One per configured source.
    pub harvesters: BTreeMap<Source, Addr<Harvester>>,
    /// The vectorizer's thread, when there is a model and an index writer; stopping it stops
    /// embedding after the batch under way.
    pub vectorizer_thread: Option<VectorizerThread>,
    pub scheduler: Option<Addr<Scheduler>>,
    /// The daily backups, with the scheduler when the settings name a backup folder.
    pub backups: Option<Addr<backup::DailyBackups>>,
}

impl System {
    /// Starts the system `settings` describe, with the parts `options` name, on the current
    /// actix system.
    pub fn start(settings: &Settings, options: Options) -> anyhow::Result<System> {
        private::create_private_dir_all(&settings.data_dir)
            .with_context(|| format!("creating the data directory {}", settings.data_dir.display()))?;
        // Loaded first: a model folder that does not load stops the start before anything is opened.
        let embedding = model::load_for_serve(settings)?;
        let store = open_store(settings, &options)?;
        let board = StatusBoard::default();

        let mail = options.mail.then(|| mail_transport(settings)).transpose()?;
        let index = PaperIndex::open_or_create(&index_dir(&settings.data_dir)).context("opening the paper index")?;
        // With a model the digester ranks by meaning as well as by words, with the vectors the
        // `Vectorizer` below makes of every paper; without one, by words.
        let mut digester = Digester::new(store.clone(), index.clone(), mail_context(settings));
        if let Some(model) = &embedding {
            digester = digester.with_embedder(model.embedder.clone());
        }
        if let Some(llm) = options.llm.then(|| llm_client(settings)).transpose()?.flatten() {
            digester = digester.with_llm(llm);
        }
        let (mailer, janitor) = match mail {
            Some((transport, mailer_config)) => {
                // Digest mails are queued as references to their digests and rendered when they
                // are sent.
                let mailer_config = mailer_config.with_digests(digester.renderer().clone());
                let mailer = Mailer::new(store.clone(), transport, mailer_config, board.clone()).start_supervised();
                (Some(mailer), Some(Janitor::new(store.clone(), board.clone()).start_supervised()))
            }
            None => (None, None),
        };

        let mail_context = mail_context(settings);
        let digest_workers = UserActors::default_workers();
        let mut harvesters = BTreeMap::new();
        let mut vectorizer_thread = None;
        let mut seed_lookup = None;
        let (users, writer) = if options.index_writer {
            // Taken here once, so that an index another process writes (papertide import or
            // harvest) stops the start with a reason instead of failing every batch later.
            drop(index.writer(WRITER_HEAP_BYTES).context("taking the index writer (is papertide import or harvest running?)")?);
            let (indexer, thread) =
                Indexer::new(index.clone(), WRITER_HEAP_BYTES, board.clone()).with_disk_room(store.room().clone()).start_in_own_thread();
            // One client per source, shared by its harvester and live search: one pace per source.
            let clients = SourceClients::new(&settings.sources)?;
            harvesters = sources::start_harvesters(&clients, &settings.harvest, &store, &indexer, &board);
            seed_lookup = Some(clients.seed_lookup(&index, &indexer));
            let users = if settings.live_search {
                let live = clients.live_search(&index, &indexer, &board);
                UserActors::with_live_search(store.clone(), digester.clone(), live, mail_context, digest_workers)
            } else {
                UserActors::new(store.clone(), digester.clone(), mail_context, digest_workers)
            };
            vectorizer_thread = embedding.as_ref().map(|model| {
                let vectorizer = Vectorizer::new(model.embedder.clone(), index.clone(), store.clone(), board.clone(), VectorizerConfig::default());
                vectorizer.start_in_own_thread().1
            });
            (users, Some(IndexWriter { indexer, thread }))
        } else {
            (UserActors::new(store.clone(), digester.clone(), mail_context, digest_workers), None)
        };
        let channel_poster = options.mail.then(|| ChannelPoster::new(store.clone(), board.clone(), channel_config(settings)).start_supervised());
        let scheduler = options.scheduler.then(|| {
            let schedule = ScheduleConfig { hour: settings.digest_hour, interval: SCHEDULER_INTERVAL };
            Scheduler::new(store.clone(), users.clone(), schedule, board.clone()).start_supervised()
        });
        let backups = settings.backup_dir.clone().filter(|_| options.scheduler).map(|dir| {
            let source = match &writer {
                Some(writer) => backup::IndexSource::Writer(writer.indexer.clone()),
                None => backup::IndexSource::Index(index.clone()),
            };
            backup::DailyBackups::new(store.clone(), source, dir, settings.backup_keep, board.clone()).start_supervised()
        });
        Ok(System {
            store,
            board,
            index,
            embedding,
            digester,
            users,
            mailer,
            seed_lookup,
            channel_poster,
            janitor,
            writer,
            harvesters,
            vectorizer_thread,
            scheduler,
            backups,
        })
    }

    /// Stops the vectorizer (after its batch under way) and the index writer, then flushes the
    /// database. The actors on the caller's actix system stop with it.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        if let Some(vectorizer_thread) = &self.vectorizer_thread {
            vectorizer_thread.stop();
        }
        if let Some(writer) = &self.writer {
            writer.thread.stop();
        }
        self.store.flush_async().await.context("flushing the database")?;
        Ok(())
    }
}

/// Opens the database: compactable for the service (deleted accounts erased from the disk), as
/// it is found for a command beside a stopped service; with the disk reserve when asked.
fn open_store(settings: &Settings, options: &Options) -> anyhow::Result<Store> {
    let database = settings.database_dir();
    let opened = if options.scheduler { Store::open_compactable(&database) } else { Store::open(&database) };
    let store = opened.context("opening the database (is papertide serve running?)")?;
    Ok(if options.disk_reserve { store.with_disk_reserve(settings.min_free_disk_bytes) } else { store })
}

/// The LLM client the settings configure, if any.
fn llm_client(settings: &Settings) -> anyhow::Result<Option<Llm>> {
    let Some(llm_settings) = &settings.llm else { return Ok(None) };
    let config = LlmConfig {
        api_key: llm_settings.api_key.clone(),
        model_advanced: llm_settings.model_advanced.clone(),
        timeout: llm_settings.timeout,
        ..LlmConfig::new(llm_settings.url.clone(), llm_settings.model.clone())
    };
    let llm = Llm::new(config.clone()).context("starting the LLM client")?;
    tracing::info!(endpoint = %config.endpoint(), model = %llm.model(ModelClass::Standard), "LLM configured for expansion and summaries");
    Ok(Some(llm))
}

/// How the channel poster reaches webhooks, by the settings: the dashboard it links to, and
/// whether private addresses may be posted to.
pub fn channel_config(settings: &Settings) -> ChannelConfig {
    ChannelConfig {
        dashboard_url: format!("{}/dashboard", settings.public_base()),
        allow_private: settings.channels_allow_private,
        poll_interval: std::time::Duration::from_secs(5),
        ..ChannelConfig::default()
    }
}

/// Where the mail goes: the SMTP server the settings name (with their CA file, if any), else the
/// outbox folder; and the mailer's sender and host.
fn mail_transport(settings: &Settings) -> anyhow::Result<(MailTransport, MailerConfig)> {
    let transport = match (&settings.smtp_url, &settings.smtp_ca_file) {
        (Some(url), None) => MailTransport::smtp_from_url(url, SMTP_TIMEOUT)?,
        (Some(url), Some(ca_file)) => {
            let pem = std::fs::read(ca_file).with_context(|| format!("reading the SMTP CA file {}", ca_file.display()))?;
            MailTransport::smtp_from_url_with_root(url, &pem, SMTP_TIMEOUT)?
        }
        (None, _) => MailTransport::Outbox(settings.outbox_dir()),
    };
    let from = actors::mailer::parse_mailbox(&settings.mail_from).with_context(|| format!("the sender address {:?}", settings.mail_from))?;
    Ok((transport, MailerConfig::new(from, settings.public_host())))
}

/// The public URL and support address that mails link to.
pub fn mail_context(settings: &Settings) -> MailContext {
    MailContext { public_url: settings.public_base(), support_email: settings.support_email.clone() }
}

/// Where the paper index lives under a data directory.
pub fn index_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("index")
}
