//! Starting and stopping the service: the system (the runtime's: store, index, model and
//! actors), HTTP in front of it (on its address, and the operator routes on the data
//! directory's socket, `crate::local`), and on SIGINT/SIGTERM stop accepting, finish requests in
//! flight, remove the socket, stop the system's threads and flush the database.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use actix_service::{IntoServiceFactory, ServiceFactoryExt};
use actix_web::dev::{Server, ServerHandle};
use actix_web::rt::net::TcpStream;
use actix_web::HttpServer;
use anyhow::Context;
use runtime::{Options, System};

use crate::app::{create_app, create_local_app};
use crate::config::Settings;
use crate::refusals::RefusalBodies;
use crate::state::AppState;

const SHUTDOWN_GRACE_SECS: u64 = 10;

/// A started service: await `server` to run it until a signal (or `server.handle().stop()`).
pub struct Started {
    pub server: Server,
    pub address: SocketAddr,
    pub state: AppState,
    /// The system behind the HTTP server; [`System::shutdown`] stops it.
    pub system: System,
    /// The server of the data directory's socket, already running; none when the socket could
    /// not be made (the service runs without it).
    pub local: Option<LocalServer>,
}

/// The operator routes served on the data directory's socket.
pub struct LocalServer {
    pub handle: ServerHandle,
    pub data_dir: PathBuf,
}

impl LocalServer {
    /// Stops serving (requests in flight finish) and removes the socket.
    pub async fn stop(self) {
        self.handle.stop(true).await;
        crate::local::remove(&self.data_dir);
    }
}

/// How long actix waits for a connection's first request head (then 408), for the rest of a
/// connection to close after its answer, and how long an idle keep-alive connection stays:
/// actix-web's defaults, which the service has always run with.
const FIRST_REQUEST_DEADLINE: Duration = Duration::from_secs(5);
const DISCONNECT_DEADLINE: Duration = Duration::from_secs(1);
const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// Connections the kernel queues before the service accepts them (actix-web's default).
const LISTEN_BACKLOG: i32 = 1024;

/// Starts everything on the current actix system; `workers` HTTP worker threads.
///
/// HTTP is actix-http's, served by actix-server on a listener made here; each connection's
/// socket is wrapped in [`RefusalBodies`] so that the refusals actix-http writes by itself carry
/// a JSON body like every other refusal. (actix-web's `HttpServer` builds the same service, with
/// no way to wrap the socket.)
pub fn start(settings: Settings, workers: usize) -> anyhow::Result<Started> {
    let system = System::start(&settings, Options::service())?;
    let state = AppState::from_system(settings.clone(), &system)?;
    crate::rights::finish_unfinished_deletions(&state)?;
    let listener = tcp_listener(settings.bind).with_context(|| format!("listening on {}", settings.bind))?;
    let address = listener.local_addr().context("the server has no address")?;
    let open_files = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    let builder = actix_server::Server::build();
    let shutting_down = builder.graceful_shutdown_signal();
    let (app_state, gate) = (state.clone(), state.connections.clone());
    let http = builder
        .max_concurrent_connections(crate::connections::accept_limit_per_worker(open_files, workers))
        .workers(workers)
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .listen("papertide", listener, move || {
            let shutting_down = shutting_down.clone();
            let gate = gate.clone();
            let app = create_app(app_state.clone()).into_factory().map_err(|error| error.error_response());
            let http = actix_http::HttpService::build()
                .graceful_shutdown_signal(move || {
                    let signal = shutting_down.clone();
                    async move { signal.notified().await }
                })
                .keep_alive(KEEP_ALIVE)
                .client_request_timeout(FIRST_REQUEST_DEADLINE)
                .client_disconnect_timeout(DISCONNECT_DEADLINE)
                .local_addr(address)
                .on_connect_ext(move |io: &RefusalBodies<TcpStream>, data: &mut actix_http::Extensions| gate.on_connect(io.get_ref(), data))
                .finish(actix_service::map_config(app, |()| actix_web::dev::AppConfig::default()));
            actix_service::fn_service(|io: TcpStream| async move {
                let peer = io.peer_addr().ok();
                Ok::<_, actix_http::error::DispatchError>((RefusalBodies::new(io), actix_http::Protocol::Http1, peer))
            })
            .and_then(http)
        })
        .context("serving HTTP")?;
    let local = match start_local(&state) {
        Ok(local) => Some(local),
        Err(error) => {
            tracing::warn!(error = format!("{error:#}"), "the local socket is off: papertide users commands cannot reach this service");
            None
        }
    };
    Ok(Started { server: http.run(), address, state, system, local })
}

/// A listening TCP socket on `address`: the address reusable at once after a restart, a backlog
/// of [`LISTEN_BACKLOG`], non-blocking.
fn tcp_listener(address: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    use rustix::net::{bind, listen, socket, sockopt, AddressFamily, SocketType};
    let family = if address.is_ipv6() { AddressFamily::INET6 } else { AddressFamily::INET };
    let socket = socket(family, SocketType::STREAM, None)?;
    sockopt::set_socket_reuseaddr(&socket, true)?;
    bind(&socket, &address)?;
    listen(&socket, LISTEN_BACKLOG)?;
    let listener = std::net::TcpListener::from(socket);
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Serves the operator routes on the data directory's socket, on one worker; stopped by
/// [`LocalServer::stop`] (not by signals: `serve` stops it after the HTTP server).
fn start_local(state: &AppState) -> anyhow::Result<LocalServer> {
    let data_dir = state.settings.data_dir.clone();
    let listener = crate::local::listen(&data_dir)?;
    let local_state = state.clone();
    let server = HttpServer::new(move || create_local_app(local_state.clone()))
        .workers(1)
        .disable_signals()
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .listen_uds(listener)
        .context("serving the local socket")?
        .run();
    let handle = server.handle();
    actix_web::rt::spawn(server);
    Ok(LocalServer { handle, data_dir })
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
        socket = started.local.as_ref().map_or_else(|| "off".to_owned(), |local| crate::local::socket_path(&local.data_dir).display().to_string()),
        %mail,
        %harvest,
        %embeddings,
        live_search,
        client,
        open_files,
        "papertide is listening"
    );
    let served = started.server.await.context("serving HTTP");
    if let Some(local) = started.local {
        local.stop().await;
    }
    served?;
    started.system.shutdown().await?;
    tracing::info!("stopped; database flushed");
    Ok(())
}
