//! Configuration: a TOML file < `PAPERTIDE_*` environment variables < command-line flags, each
//! option with an embedded default, validated once into typed [`Settings`]. This crate (through
//! clap's `env` attributes) is the only place that reads the environment. It depends on `engine`
//! alone, so the file's parsing and checks are fuzzed without the server (`fuzz/`).

pub mod paths;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use engine::paper::Source;
use serde::{Deserialize, Serialize};
use url::Url;

/// The options every subcommand shares.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommonArgs {
    /// TOML configuration file (see papertide.example.toml).
    #[arg(long, env = "PAPERTIDE_CONFIG", global = true)]
    pub config: Option<PathBuf>,
    /// Directory of the database and the mail outbox [default: ./papertide-data].
    #[arg(long, env = "PAPERTIDE_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
}

/// Where the paper sources answer and how Papertide introduces itself to them (`serve` and
/// `harvest`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SourceArgs {
    /// PubMed E-utilities directory [default: https://eutils.ncbi.nlm.nih.gov/entrez/eutils/].
    #[arg(long, env = "PAPERTIDE_PUBMED_URL")]
    pub pubmed_url: Option<String>,
    /// arXiv export API query endpoint [default: https://export.arxiv.org/api/query].
    #[arg(long, env = "PAPERTIDE_ARXIV_URL")]
    pub arxiv_url: Option<String>,
    /// bioRxiv/medRxiv API root, for both servers [default: https://api.biorxiv.org/].
    #[arg(long, env = "PAPERTIDE_BIORXIV_URL")]
    pub biorxiv_url: Option<String>,
    /// Crossref REST API root, asked for seed DOIs the sources do not hold
    /// [default: https://api.crossref.org/].
    #[arg(long, env = "PAPERTIDE_CROSSREF_URL")]
    pub crossref_url: Option<String>,
    /// NCBI API key: PubMed allows 10 requests a second with one, 3 without.
    #[arg(long, env = "PAPERTIDE_NCBI_API_KEY", hide_env_values = true)]
    pub ncbi_api_key: Option<String>,
    /// Contact email sent to NCBI with every request, and to Crossref as `mailto` [default: the
    /// support email].
    #[arg(long, env = "PAPERTIDE_NCBI_EMAIL")]
    pub ncbi_email: Option<String>,
}

/// An OpenAI-compatible chat-completions endpoint for query expansion and summaries (`serve`).
/// Unset URL: no LLM; the local expansion and extractive summaries are used.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 (requests go to
    /// URL/chat/completions) [default: none, local expansion and summaries].
    #[arg(long, env = "PAPERTIDE_LLM_URL")]
    pub llm_url: Option<String>,
    /// API key, sent as a Bearer token; not needed by most local servers.
    #[arg(long, env = "PAPERTIDE_LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<String>,
    /// The standard model, used for free plans; required with --llm-url.
    #[arg(long, env = "PAPERTIDE_LLM_MODEL")]
    pub llm_model: Option<String>,
    /// The model for paid plans [default: the standard model].
    #[arg(long, env = "PAPERTIDE_LLM_MODEL_ADVANCED")]
    pub llm_model_advanced: Option<String>,
    /// Longest wait for one answer, in seconds [default: 30].
    #[arg(long, env = "PAPERTIDE_LLM_TIMEOUT_SECS")]
    pub llm_timeout_secs: Option<u64>,
}

/// Stripe (`serve`). Billing is on when the secret key is set; it then needs every other key but
/// the two URLs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StripeArgs {
    /// Secret API key (sk_live_… or sk_test_…); set: billing is on [default: none, billing off].
    #[arg(long, env = "PAPERTIDE_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<String>,
    /// Publishable key (pk_…), given to browsers for Stripe.js.
    #[arg(long, env = "PAPERTIDE_STRIPE_PUBLISHABLE_KEY")]
    pub stripe_publishable_key: Option<String>,
    /// Signing secret of the webhook endpoint (whsec_…) that points at /api/stripe/webhook.
    #[arg(long, env = "PAPERTIDE_STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<String>,
    /// Stripe API base URL [default: https://api.stripe.com/].
    #[arg(long, env = "PAPERTIDE_STRIPE_API_URL")]
    pub stripe_api_url: Option<String>,
    /// Stripe.js script URL [default: https://js.stripe.com/v3/].
    #[arg(long, env = "PAPERTIDE_STRIPE_JS_URL")]
    pub stripe_js_url: Option<String>,
    /// Price id (or plan id) of the Pro plan, $5 a month.
    #[arg(long, env = "PAPERTIDE_STRIPE_PRICE_PRO")]
    pub stripe_price_pro: Option<String>,
    /// Price id (or plan id) of the Team plan, $10 a month.
    #[arg(long, env = "PAPERTIDE_STRIPE_PRICE_TEAM")]
    pub stripe_price_team: Option<String>,
}

/// Whether billing is on, for commands that only need to know (`papertide users set-tier`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BillingKeyArg {
    /// Stripe secret key: set, billing is on and Stripe decides plans.
    #[arg(long = "stripe-secret-key", env = "PAPERTIDE_STRIPE_SECRET_KEY", hide_env_values = true, hide = true)]
    pub stripe_secret_key: Option<String>,
}

impl BillingKeyArg {
    pub fn billing_on(&self, file: &FileConfig) -> bool {
        let from_file = file.stripe.as_ref().and_then(|stripe| stripe.secret_key.clone());
        self.stripe_secret_key.clone().or(from_file).is_some_and(|key| !key.trim().is_empty())
    }
}

/// The options of `papertide serve`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "PAPERTIDE_BIND")]
    pub bind: Option<String>,
    /// The address users reach the service at; used in mailed links and for the cookie's Secure
    /// flag [default: http://localhost:PORT].
    #[arg(long, env = "PAPERTIDE_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// SMTP server URL: smtp://host:25, smtp://user:pass@host:587?tls=required (STARTTLS) or
    /// smtps://user:pass@host:465 (TLS). Unset: mail is written to the outbox.
    #[arg(long, env = "PAPERTIDE_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// PEM certificate of a private certificate authority to trust for SMTP over TLS.
    #[arg(long, env = "PAPERTIDE_SMTP_CA_FILE")]
    pub smtp_ca_file: Option<PathBuf>,
    /// Sender of every mail [default: Papertide <noreply@PUBLIC-HOST>].
    #[arg(long, env = "PAPERTIDE_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// Address users write to for help, shown in mails [default: support@PUBLIC-HOST].
    #[arg(long, env = "PAPERTIDE_SUPPORT_EMAIL")]
    pub support_email: Option<String>,
    /// Comma-separated emails that are operators.
    #[arg(long, env = "PAPERTIDE_ADMIN_EMAILS", value_delimiter = ',')]
    pub admin_emails: Option<Vec<String>>,
    /// Take the client address from the last X-Forwarded-For hop (behind a reverse proxy).
    #[arg(long, env = "PAPERTIDE_TRUST_PROXY")]
    pub trust_proxy: Option<bool>,
    /// Let lab channels post to webhooks on private, loopback or link-local addresses (a lab's
    /// own chat server on its network) [default: false].
    #[arg(long, env = "PAPERTIDE_CHANNELS_ALLOW_PRIVATE")]
    pub channels_allow_private: Option<bool>,
    /// Analytics provider loaded in browsers that consent: plausible, umami or ga4 [default: none].
    #[arg(long, env = "PAPERTIDE_ANALYTICS_PROVIDER")]
    pub analytics_provider: Option<String>,
    /// The provider's site: Plausible domain, Umami website id or GA4 measurement id.
    #[arg(long, env = "PAPERTIDE_ANALYTICS_SITE_ID")]
    pub analytics_site_id: Option<String>,
    /// The provider's script URL [default: the provider's own; required for umami].
    #[arg(long, env = "PAPERTIDE_ANALYTICS_SCRIPT_URL")]
    pub analytics_script_url: Option<String>,
    /// Log filter, e.g. info or web=debug,info [default: info].
    #[arg(long, env = "PAPERTIDE_LOG")]
    pub log: Option<String>,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// Sources harvested daily, comma-separated, or none [default: pubmed,arxiv,biorxiv,medrxiv].
    #[arg(long, env = "PAPERTIDE_HARVEST_SOURCES", value_delimiter = ',')]
    pub harvest_sources: Option<Vec<String>>,
    /// Hour of the UTC day at which the daily harvest runs, 0 to 23 [default: 6].
    #[arg(long, env = "PAPERTIDE_HARVEST_HOUR")]
    pub harvest_hour: Option<u32>,
    /// Days a source's first harvest goes back [default: 7].
    #[arg(long, env = "PAPERTIDE_HARVEST_LOOKBACK_DAYS")]
    pub harvest_lookback_days: Option<u32>,
    /// An immediate search whose term the index has little for asks PubMed and arXiv for the
    /// term's recent papers first (at most once a day per term and source) [default: true].
    #[arg(long, env = "PAPERTIDE_LIVE_SEARCH")]
    pub live_search: Option<bool>,
    /// Hour of the UTC day from which weekly digests go out on each user's delivery day, 0 to 23
    /// [default: 8].
    #[arg(long, env = "PAPERTIDE_DIGEST_HOUR")]
    pub digest_hour: Option<u32>,
    /// Free space (MiB) kept on the data directory's disk: under it every write is refused with a
    /// clear "disk full" until space is freed, so the database never meets a full disk; 0 turns
    /// the check off [default: 64].
    #[arg(long, env = "PAPERTIDE_MIN_FREE_DISK_MB")]
    pub min_free_disk_mb: Option<u64>,
    /// Folder of the daily backups: once a day (from 03:00 UTC) the service copies its database
    /// and index into a new `papertide-YYYY-MM-DDTHHMMSSZ` folder there; the API's backups go
    /// there too. Outside the data directory [default: none, no daily backup].
    #[arg(long, env = "PAPERTIDE_BACKUP_DIR")]
    pub backup_dir: Option<PathBuf>,
    /// Daily backups kept in the backup folder; older ones the service made are deleted
    /// [default: 7].
    #[arg(long, env = "PAPERTIDE_BACKUP_KEEP")]
    pub backup_keep: Option<usize>,
    /// Folder of the sentence-embedding model (sentence-transformers layout); one that does not
    /// load stops the start [default: DATA_DIR/models/all-minilm-l6-v2 if present, else none:
    /// lexical ranking].
    #[arg(long, env = "PAPERTIDE_EMBED_MODEL_DIR")]
    pub embed_model_dir: Option<PathBuf>,
    /// The runtime the embedding model runs in: onnx-int8 (ONNX Runtime, 8-bit products),
    /// onnx-fp32 (ONNX Runtime, 32-bit floats) or candle (pure Rust, nothing to fetch)
    /// [default: onnx-int8 when ONNX Runtime's library is there, else candle].
    #[arg(long, env = "PAPERTIDE_EMBED_RUNTIME")]
    pub embed_runtime: Option<String>,
    /// ONNX Runtime's shared library [default: DATA_DIR/runtime/libonnxruntime.so.1.32.0, where
    /// `papertide model fetch` puts it].
    #[arg(long, env = "PAPERTIDE_ONNXRUNTIME_LIBRARY")]
    pub onnxruntime_library: Option<PathBuf>,
    /// Sign-in attempts per client and email [default: 10/15m].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_LOGIN")]
    pub rate_limit_login: Option<String>,
    /// Sign-in attempts per account from every client together, except from the account's
    /// trusted devices and addresses [default: 50/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_LOGIN_ACCOUNT")]
    pub rate_limit_login_account: Option<String>,
    /// Signups per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_SIGNUP")]
    pub rate_limit_signup: Option<String>,
    /// Password-reset requests per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_FORGOT_PASSWORD")]
    pub rate_limit_forgot_password: Option<String>,
    /// Verification re-sends per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_RESEND")]
    pub rate_limit_resend: Option<String>,
    /// New-password submissions (reset links used) per client address [default: 10/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_RESET_PASSWORD")]
    pub rate_limit_reset_password: Option<String>,
    /// Immediate searches (a term run at once, each mailing a digest) per user [default: 20/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_IMMEDIATE_SEARCH")]
    pub rate_limit_immediate_search: Option<String>,
    /// Digests mailed again (resend email) per user [default: 10/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_RESEND_EMAIL")]
    pub rate_limit_resend_email: Option<String>,
    /// Test mails and triggered digests of the test-email page per user [default: 10/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_TEST_EMAIL")]
    pub rate_limit_test_email: Option<String>,
    /// Mails anyone can have sent to one address, together: verification links (signups and
    /// re-sends), reset links and the note that an account exists [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_RECIPIENT")]
    pub rate_limit_recipient: Option<String>,
    /// Signups from every client together [default: 200/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_SIGNUP_GLOBAL")]
    pub rate_limit_signup_global: Option<String>,
    /// Wrong verification and unsubscribe links per client address [default: 30/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_LINK_GUESSES")]
    pub rate_limit_link_guesses: Option<String>,
    /// Connections served at once; past it a new connection is answered 503 and closed
    /// [default: three quarters of the open-files limit].
    #[arg(long, env = "PAPERTIDE_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// The leading bits an IPv6 client address is counted by, in every per-address limit and
    /// cap (1 to 128) [default: 64].
    #[arg(long, env = "PAPERTIDE_IPV6_PREFIX")]
    pub ipv6_prefix: Option<u8>,
    /// Exact rate-limit counters kept in memory; past it the least counted are folded into a
    /// fixed-size table that never under-counts (at least 8) [default: 100000].
    #[arg(long, env = "PAPERTIDE_RATE_LIMITER_CAPACITY")]
    pub rate_limiter_capacity: Option<usize>,
    /// Bearer token `/metrics` asks for (`Authorization: Bearer TOKEN`) [default: none, public].
    #[arg(long, env = "PAPERTIDE_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub stripe: StripeArgs,
}

/// The configuration file's shape; every key optional. Unknown keys are an error, so a typo
/// never silently falls back to a default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub bind: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub public_url: Option<String>,
    pub smtp_url: Option<String>,
    pub smtp_ca_file: Option<PathBuf>,
    pub mail_from: Option<String>,
    pub support_email: Option<String>,
    pub admin_emails: Option<Vec<String>>,
    pub trust_proxy: Option<bool>,
    pub channels_allow_private: Option<bool>,
    pub log: Option<String>,
    pub rate_limits: Option<FileRateLimits>,
    pub max_connections: Option<usize>,
    pub ipv6_prefix: Option<u8>,
    pub rate_limiter_capacity: Option<usize>,
    pub metrics_token: Option<String>,
    pub analytics: Option<FileAnalytics>,
    pub sources: Option<FileSources>,
    pub harvest: Option<FileHarvest>,
    pub live_search: Option<bool>,
    pub digest_hour: Option<u32>,
    pub min_free_disk_mb: Option<u64>,
    pub backup_dir: Option<PathBuf>,
    pub backup_keep: Option<usize>,
    pub embed_model_dir: Option<PathBuf>,
    pub embed_runtime: Option<String>,
    pub onnxruntime_library: Option<PathBuf>,
    pub llm: Option<FileLlm>,
    pub stripe: Option<FileStripe>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileStripe {
    pub secret_key: Option<String>,
    pub publishable_key: Option<String>,
    pub webhook_secret: Option<String>,
    pub api_url: Option<String>,
    pub js_url: Option<String>,
    pub price_pro: Option<String>,
    pub price_team: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSources {
    pub pubmed_url: Option<String>,
    pub arxiv_url: Option<String>,
    pub biorxiv_url: Option<String>,
    pub crossref_url: Option<String>,
    pub ncbi_api_key: Option<String>,
    pub ncbi_email: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHarvest {
    pub sources: Option<Vec<String>>,
    pub hour: Option<u32>,
    pub lookback_days: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileLlm {
    pub url: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
    pub model_advanced: Option<String>,
    pub timeout_secs: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAnalytics {
    pub provider: Option<String>,
    pub site_id: Option<String>,
    pub script_url: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRateLimits {
    pub login: Option<String>,
    pub login_account: Option<String>,
    pub signup: Option<String>,
    pub forgot_password: Option<String>,
    pub resend: Option<String>,
    pub reset_password: Option<String>,
    pub immediate_search: Option<String>,
    pub resend_email: Option<String>,
    pub test_email: Option<String>,
    pub recipient: Option<String>,
    pub signup_global: Option<String>,
    pub link_guesses: Option<String>,
}

/// At most `max` events per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub max: u32,
    pub window: Duration,
}

impl Rate {
    /// Parses `N/WINDOW` where WINDOW is a number with s, m or h, e.g. `10/15m`.
    pub fn parse(text: &str) -> anyhow::Result<Rate> {
        let (max, window) = text.split_once('/').with_context(|| format!("rate {text:?} is not N/WINDOW, e.g. 10/15m"))?;
        let max: u32 = max.trim().parse().with_context(|| format!("rate {text:?}: {max:?} is not a count"))?;
        let window = window.trim();
        // The unit is the last character, whatever its width in bytes.
        let unit_at = window.char_indices().last().map_or(0, |(at, _)| at);
        let (amount, unit) = window.split_at(unit_at);
        let amount: u64 = if amount.is_empty() { 1 } else { amount.parse().with_context(|| format!("rate {text:?}: bad window"))? };
        let seconds_per_unit: u64 = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            _ => bail!("rate {text:?}: the window ends in s, m or h"),
        };
        let seconds = amount.checked_mul(seconds_per_unit).with_context(|| format!("rate {text:?}: the window is too long"))?;
        if max == 0 || seconds == 0 {
            bail!("rate {text:?}: count and window must be positive");
        }
        Ok(Rate { max, window: Duration::from_secs(seconds) })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Per client address and email; five times this per address.
    pub login: Rate,
    /// Per account, from callers that are not the account's trusted devices or addresses.
    pub login_account: Rate,
    pub signup: Rate,
    pub forgot_password: Rate,
    pub resend: Rate,
    /// Per client address.
    pub reset_password: Rate,
    /// Per user.
    pub immediate_search: Rate,
    /// Per user.
    pub resend_email: Rate,
    /// Per user: test mails and triggered digests together.
    pub test_email: Rate,
    /// Per recipient: every mail a stranger can cause (verification, reset, account-exists).
    pub recipient: Rate,
    /// Every signup together.
    pub signup_global: Rate,
    /// Per client address: verification and unsubscribe links that were wrong.
    pub link_guesses: Rate,
}

/// A web-analytics provider, loaded by the client only after the visitor consents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analytics {
    pub provider: String,
    pub site_id: String,
    pub script_url: String,
}

/// Where the sources answer; every URL checked.
#[derive(Clone, PartialEq, Eq)]
pub struct SourceSettings {
    pub pubmed_url: Url,
    pub arxiv_url: Url,
    pub biorxiv_url: Url,
    /// Crossref, asked for seed DOIs (not a source: nothing is harvested from it).
    pub crossref_url: Url,
    pub ncbi_api_key: Option<String>,
    pub ncbi_email: String,
}

impl std::fmt::Debug for SourceSettings {
    /// Everything but the API key, which is a secret.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SourceSettings")
            .field("pubmed_url", &self.pubmed_url.as_str())
            .field("arxiv_url", &self.arxiv_url.as_str())
            .field("biorxiv_url", &self.biorxiv_url.as_str())
            .field("crossref_url", &self.crossref_url.as_str())
            .field("ncbi_api_key", &self.ncbi_api_key.as_ref().map(|_| "<redacted>"))
            .field("ncbi_email", &self.ncbi_email)
            .finish()
    }
}

/// Billing with Stripe; present only when billing is on.
#[derive(Clone, PartialEq, Eq)]
pub struct StripeSettings {
    pub secret_key: String,
    pub publishable_key: String,
    pub webhook_secret: String,
    /// The API base, e.g. https://api.stripe.com/.
    pub api_url: Url,
    pub js_url: Url,
    pub price_pro: String,
    pub price_team: String,
}

impl std::fmt::Debug for StripeSettings {
    /// Everything but the two secrets.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StripeSettings")
            .field("secret_key", &"<redacted>")
            .field("publishable_key", &self.publishable_key)
            .field("webhook_secret", &"<redacted>")
            .field("api_url", &self.api_url.as_str())
            .field("js_url", &self.js_url.as_str())
            .field("price_pro", &self.price_pro)
            .field("price_team", &self.price_team)
            .finish()
    }
}

/// The chat-completions endpoint (the `Llm` actor's client adds its cool-down).
#[derive(Clone, PartialEq, Eq)]
pub struct LlmSettings {
    /// Base URL of the API, such as `https://api.openai.com/v1`.
    pub url: Url,
    pub api_key: Option<String>,
    /// The standard model, for free plans.
    pub model: String,
    /// The model for paid plans; the standard model when unset.
    pub model_advanced: Option<String>,
    /// The longest wait for one whole request.
    pub timeout: Duration,
}

impl std::fmt::Debug for LlmSettings {
    /// Everything but the API key, which is a secret.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("LlmSettings")
            .field("url", &self.url.as_str())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("model_advanced", &self.model_advanced)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Where the sources answer unless told otherwise (the same as their clients' defaults in
/// `actors::sources`, which a test in `web` checks).
pub const DEFAULT_PUBMED_URL: &str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/";
pub const DEFAULT_ARXIV_URL: &str = "https://export.arxiv.org/api/query";
pub const DEFAULT_BIORXIV_URL: &str = "https://api.biorxiv.org/";
pub const DEFAULT_CROSSREF_URL: &str = "https://api.crossref.org/";

pub const DEFAULT_STRIPE_API_URL: &str = "https://api.stripe.com/";
pub const DEFAULT_STRIPE_JS_URL: &str = "https://js.stripe.com/v3/";

/// The daily harvest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarvestSettings {
    /// The sources harvested by `serve`; empty: no harvesting.
    pub sources: Vec<Source>,
    /// Hour of the UTC day, 0–23.
    pub hour: u32,
    pub lookback_days: u32,
}

/// Validated settings of a running service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    /// Without a trailing slash.
    pub public_url: Url,
    pub smtp_url: Option<String>,
    pub smtp_ca_file: Option<PathBuf>,
    pub mail_from: String,
    pub support_email: String,
    /// Normalized (trimmed, lower-case).
    pub admin_emails: Vec<String>,
    pub trust_proxy: bool,
    /// Whether lab channels may post to private, loopback or link-local addresses.
    pub channels_allow_private: bool,
    pub log: String,
    pub rate_limits: RateLimits,
    /// Connections served at once; none: three quarters of the open-files limit.
    pub max_connections: Option<usize>,
    /// The leading bits an IPv6 client address is counted by (1 to 128).
    pub ipv6_prefix: u8,
    /// Exact rate-limit counters kept in memory (at least 8).
    pub rate_limiter_capacity: usize,
    /// The bearer token `/metrics` asks for; none: it is public.
    pub metrics_token: Option<String>,
    /// None unless configured: then nothing is ever loaded.
    pub analytics: Option<Analytics>,
    pub sources: SourceSettings,
    pub harvest: HarvestSettings,
    /// Immediate searches ask PubMed and arXiv when the index has little for their term.
    pub live_search: bool,
    /// Hour of the UTC day weekly digests start on each delivery day.
    pub digest_hour: u32,
    /// Free bytes kept on the data directory's disk; writes are refused under it (0: never).
    pub min_free_disk_bytes: u64,
    /// Where the daily backups go; none: no daily backup.
    pub backup_dir: Option<PathBuf>,
    /// Daily backups kept (at least 1).
    pub backup_keep: usize,
    /// The sentence-embedding model's folder as configured; none: the default folder if it
    /// exists (see [`Settings::embed_model`]).
    pub embed_model_dir: Option<PathBuf>,
    /// The embedding runtime as configured (a name `runtime::model` reads); none: the default.
    pub embed_runtime: Option<String>,
    /// ONNX Runtime's library as configured; none: the data directory's.
    pub onnxruntime_library: Option<PathBuf>,
    /// The chat-completions endpoint for expansion and summaries; none: local ones only.
    pub llm: Option<LlmSettings>,
    /// None: billing is off, and plans are set by the operator.
    pub stripe: Option<StripeSettings>,
}

pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA_DIR: &str = "./papertide-data";
pub const DEFAULT_LOG: &str = "info";
pub const DEFAULT_RATE_LOGIN: &str = "10/15m";
pub const DEFAULT_RATE_LOGIN_ACCOUNT: &str = "50/1h";
pub const DEFAULT_RATE_SIGNUP: &str = "5/1h";
pub const DEFAULT_RATE_FORGOT_PASSWORD: &str = "5/1h";
pub const DEFAULT_RATE_RESEND: &str = "5/1h";
pub const DEFAULT_RATE_RESET_PASSWORD: &str = "10/1h";
pub const DEFAULT_RATE_IMMEDIATE_SEARCH: &str = "20/1h";
pub const DEFAULT_RATE_RESEND_EMAIL: &str = "10/1h";
pub const DEFAULT_RATE_TEST_EMAIL: &str = "10/1h";
pub const DEFAULT_RATE_RECIPIENT: &str = "5/1h";
pub const DEFAULT_RATE_SIGNUP_GLOBAL: &str = "200/1h";
pub const DEFAULT_RATE_LINK_GUESSES: &str = "30/1h";
pub const DEFAULT_IPV6_PREFIX: u8 = 64;
pub const DEFAULT_RATE_LIMITER_CAPACITY: usize = 100_000;
pub const DEFAULT_HARVEST_HOUR: u32 = 6;
pub const DEFAULT_HARVEST_LOOKBACK_DAYS: u32 = 7;
pub const DEFAULT_DIGEST_HOUR: u32 = 8;
pub const DEFAULT_MIN_FREE_DISK_MB: u64 = 64;
pub const DEFAULT_BACKUP_KEEP: usize = 7;
pub const DEFAULT_LLM_TIMEOUT_SECS: u64 = 30;
/// The longest LLM timeout accepted: a digest run waits this long at worst before falling back.
const MAX_LLM_TIMEOUT_SECS: u64 = 600;
/// The longest first harvest `serve` may be told to make.
const MAX_LOOKBACK_DAYS: u32 = engine::harvest::MAX_CATCH_UP_DAYS;

impl Settings {
    /// The public URL as text without a trailing slash, for building links.
    pub fn public_base(&self) -> String {
        self.public_url.as_str().trim_end_matches('/').to_owned()
    }

    pub fn is_https(&self) -> bool {
        self.public_url.scheme() == "https"
    }

    pub fn public_host(&self) -> String {
        self.public_url.host_str().unwrap_or("localhost").to_owned()
    }

    pub fn database_dir(&self) -> PathBuf {
        self.data_dir.join("db")
    }

    pub fn outbox_dir(&self) -> PathBuf {
        self.data_dir.join("outbox")
    }

    pub fn is_admin_email(&self, email: &str) -> bool {
        self.admin_emails.iter().any(|admin| admin == email)
    }
}

/// Reads the configuration file named by `common.config`, if any.
pub fn read_file_config(path: Option<&Path>) -> anyhow::Result<FileConfig> {
    let Some(path) = path else {
        return Ok(FileConfig::default());
    };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading the configuration file {}", path.display()))?;
    parse_file_config(&text).with_context(|| format!("parsing the configuration file {}", path.display()))
}

/// Reads the text of a configuration file: TOML of the file's shape, unknown keys refused.
pub fn parse_file_config(text: &str) -> anyhow::Result<FileConfig> {
    Ok(toml::from_str(text)?)
}

/// Merges file < environment/flags < nothing-given defaults into checked settings.
pub fn resolve(file: FileConfig, common: &CommonArgs, serve: &ServeArgs) -> anyhow::Result<Settings> {
    let file_rates = file.rate_limits.clone().unwrap_or_default();
    let pick = |flag: &Option<String>, from_file: Option<String>| flag.clone().or(from_file);
    let data_dir = common.data_dir.clone().or_else(|| file.data_dir.clone()).unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
    let (max_connections, ipv6_prefix, rate_limiter_capacity) = resolve_connections(serve, &file)?;
    let (min_free_disk_bytes, backup_dir, backup_keep) = resolve_disk(serve, &file, &data_dir)?;

    let bind_text = pick(&serve.bind, file.bind).unwrap_or_else(|| DEFAULT_BIND.to_owned());
    let bind: SocketAddr = bind_text.parse().with_context(|| format!("bind address {bind_text:?} is not HOST:PORT"))?;

    let public_text = pick(&serve.public_url, file.public_url).unwrap_or_else(|| format!("http://localhost:{}", bind.port()));
    let public_url = Url::parse(public_text.trim_end_matches('/')).with_context(|| format!("public URL {public_text:?} is not a URL"))?;
    if !matches!(public_url.scheme(), "http" | "https") || public_url.host_str().is_none() {
        bail!("public URL {public_text:?} must be an http:// or https:// address");
    }
    let host = public_url.host_str().unwrap_or("localhost").to_owned();
    // A mail address needs a domain: a public URL at an IP address gives `localhost` (the
    // README says to set the sender and support addresses for such an installation; the mail
    // library refuses an address literal such as `noreply@[192.0.2.7]` in a message).
    let is_ip_host = host.parse::<std::net::Ipv4Addr>().is_ok() || host.starts_with('[');
    let mail_host = if is_ip_host { "localhost".to_owned() } else { host.clone() };

    let smtp_url = pick(&serve.smtp_url, file.smtp_url).filter(|url| !url.trim().is_empty());
    if let Some(url) = &smtp_url {
        let parsed = Url::parse(url).context("PAPERTIDE_SMTP_URL is not a URL")?;
        if !matches!(parsed.scheme(), "smtp" | "smtps") {
            bail!("the SMTP URL must start with smtp:// or smtps://");
        }
    }
    let mail_from = pick(&serve.mail_from, file.mail_from).unwrap_or_else(|| format!("Papertide <noreply@{mail_host}>"));
    let support_email = pick(&serve.support_email, file.support_email).unwrap_or_else(|| format!("support@{mail_host}"));
    let admin_emails = serve
        .admin_emails
        .clone()
        .or(file.admin_emails)
        .unwrap_or_default()
        .iter()
        .map(|email| engine::account::normalize_email(email))
        .filter(|email| !email.is_empty())
        .collect();
    let rate_limits = resolve_rate_limits(serve, file_rates)?;
    // An empty token is no token: `/metrics` stays public.
    let metrics_token = pick(&serve.metrics_token, file.metrics_token.clone()).map(|token| token.trim().to_owned()).filter(|token| !token.is_empty());
    let file_analytics = file.analytics.clone().unwrap_or_default();
    let analytics = resolve_analytics(
        pick(&serve.analytics_provider, file_analytics.provider),
        pick(&serve.analytics_site_id, file_analytics.site_id),
        pick(&serve.analytics_script_url, file_analytics.script_url),
    )?;
    let file_sources = file.sources.clone().unwrap_or_default();
    let sources = resolve_sources(&serve.sources, file_sources, &support_email)?;
    let file_harvest = file.harvest.clone().unwrap_or_default();
    let harvest = resolve_harvest(
        serve.harvest_sources.clone().or(file_harvest.sources),
        serve.harvest_hour.or(file_harvest.hour),
        serve.harvest_lookback_days.or(file_harvest.lookback_days),
    )?;
    let llm = resolve_llm(&serve.llm, file.llm.clone().unwrap_or_default())?;
    let stripe = resolve_stripe(&serve.stripe, file.stripe.clone().unwrap_or_default())?;
    // An empty value is no value, so an empty variable can switch a file's folder off.
    let embed_model_dir = serve.embed_model_dir.clone().or(file.embed_model_dir).filter(|dir| !dir.as_os_str().is_empty());
    let embed_runtime = serve.embed_runtime.clone().or(file.embed_runtime).map(|name| name.trim().to_owned()).filter(|name| !name.is_empty());
    let onnxruntime_library = serve.onnxruntime_library.clone().or(file.onnxruntime_library).filter(|path| !path.as_os_str().is_empty());
    let digest_hour = serve.digest_hour.or(file.digest_hour).unwrap_or(DEFAULT_DIGEST_HOUR);
    if digest_hour > 23 {
        bail!("the digest hour {digest_hour} is not an hour of the day (0 to 23)");
    }
    Ok(Settings {
        sources,
        harvest,
        min_free_disk_bytes,
        backup_dir,
        backup_keep,
        live_search: serve.live_search.or(file.live_search).unwrap_or(true),
        digest_hour,
        embed_model_dir,
        embed_runtime,
        onnxruntime_library,
        bind,
        data_dir,
        public_url,
        smtp_url,
        smtp_ca_file: serve.smtp_ca_file.clone().or(file.smtp_ca_file),
        mail_from,
        support_email,
        admin_emails,
        trust_proxy: serve.trust_proxy.or(file.trust_proxy).unwrap_or(false),
        channels_allow_private: serve.channels_allow_private.or(file.channels_allow_private).unwrap_or(false),
        log: pick(&serve.log, file.log).unwrap_or_else(|| DEFAULT_LOG.to_owned()),
        rate_limits,
        max_connections,
        ipv6_prefix,
        rate_limiter_capacity,
        metrics_token,
        analytics,
        llm,
        stripe,
    })
}

/// The rate limits: flags and environment < file < defaults, each checked.
fn resolve_rate_limits(serve: &ServeArgs, file_rates: FileRateLimits) -> anyhow::Result<RateLimits> {
    let pick = |flag: &Option<String>, from_file: Option<String>| flag.clone().or(from_file);
    let rate =
        |flag: &Option<String>, from_file: Option<String>, default: &str| Rate::parse(&pick(flag, from_file).unwrap_or_else(|| default.to_owned()));
    Ok(RateLimits {
        login: rate(&serve.rate_limit_login, file_rates.login, DEFAULT_RATE_LOGIN)?,
        login_account: rate(&serve.rate_limit_login_account, file_rates.login_account, DEFAULT_RATE_LOGIN_ACCOUNT)?,
        signup: rate(&serve.rate_limit_signup, file_rates.signup, DEFAULT_RATE_SIGNUP)?,
        forgot_password: rate(&serve.rate_limit_forgot_password, file_rates.forgot_password, DEFAULT_RATE_FORGOT_PASSWORD)?,
        resend: rate(&serve.rate_limit_resend, file_rates.resend, DEFAULT_RATE_RESEND)?,
        reset_password: rate(&serve.rate_limit_reset_password, file_rates.reset_password, DEFAULT_RATE_RESET_PASSWORD)?,
        immediate_search: rate(&serve.rate_limit_immediate_search, file_rates.immediate_search, DEFAULT_RATE_IMMEDIATE_SEARCH)?,
        resend_email: rate(&serve.rate_limit_resend_email, file_rates.resend_email, DEFAULT_RATE_RESEND_EMAIL)?,
        test_email: rate(&serve.rate_limit_test_email, file_rates.test_email, DEFAULT_RATE_TEST_EMAIL)?,
        recipient: rate(&serve.rate_limit_recipient, file_rates.recipient, DEFAULT_RATE_RECIPIENT)?,
        signup_global: rate(&serve.rate_limit_signup_global, file_rates.signup_global, DEFAULT_RATE_SIGNUP_GLOBAL)?,
        link_guesses: rate(&serve.rate_limit_link_guesses, file_rates.link_guesses, DEFAULT_RATE_LINK_GUESSES)?,
    })
}

/// The connection caps: the most connections at once, the IPv6 prefix a network is grouped by,
/// and the rate limiter's exact table.
fn resolve_connections(serve: &ServeArgs, file: &FileConfig) -> anyhow::Result<(Option<usize>, u8, usize)> {
    let max_connections = serve.max_connections.or(file.max_connections);
    if max_connections == Some(0) {
        bail!("max_connections must be at least 1");
    }
    let ipv6_prefix = serve.ipv6_prefix.or(file.ipv6_prefix).unwrap_or(DEFAULT_IPV6_PREFIX);
    if !(1..=128).contains(&ipv6_prefix) {
        bail!("ipv6_prefix {ipv6_prefix} is not a prefix length of an IPv6 address (1 to 128)");
    }
    let rate_limiter_capacity = serve.rate_limiter_capacity.or(file.rate_limiter_capacity).unwrap_or(DEFAULT_RATE_LIMITER_CAPACITY);
    if rate_limiter_capacity < 8 {
        bail!("rate_limiter_capacity must be at least 8");
    }
    Ok((max_connections, ipv6_prefix, rate_limiter_capacity))
}

/// The disk: the free space every write keeps, and where daily backups go and how many stay.
fn resolve_disk(serve: &ServeArgs, file: &FileConfig, data_dir: &Path) -> anyhow::Result<(u64, Option<PathBuf>, usize)> {
    let min_free_disk_mb = serve.min_free_disk_mb.or(file.min_free_disk_mb).unwrap_or(DEFAULT_MIN_FREE_DISK_MB);
    let Some(min_free_disk_bytes) = min_free_disk_mb.checked_mul(1024 * 1024) else {
        bail!("the free space to keep, {min_free_disk_mb} MiB, is more than any disk holds");
    };
    // An empty value is no value, as for the model's folder.
    let backup_dir = serve.backup_dir.clone().or_else(|| file.backup_dir.clone()).filter(|dir| !dir.as_os_str().is_empty());
    let backup_keep = serve.backup_keep.or(file.backup_keep).unwrap_or(DEFAULT_BACKUP_KEEP);
    if backup_keep == 0 {
        bail!("backup_keep must be at least 1: the newest backup is always kept");
    }
    if let Some(dir) = &backup_dir {
        check_backup_dir(dir, data_dir)?;
    }
    Ok((min_free_disk_bytes, backup_dir, backup_keep))
}

/// A backup folder inside the data directory would be copied into the next backup and read by
/// whoever reads the data directory; the data directory inside the backup folder would be taken
/// for backups. Both are refused.
fn check_backup_dir(backup_dir: &Path, data_dir: &Path) -> anyhow::Result<()> {
    let context = || format!("comparing backup_dir (PAPERTIDE_BACKUP_DIR) {} with the data directory", backup_dir.display());
    if paths::is_within(backup_dir, data_dir).with_context(context)? {
        bail!(
            "backup_dir (PAPERTIDE_BACKUP_DIR, --backup-dir) {} is inside the data directory {}: backups go to a folder outside it",
            backup_dir.display(),
            data_dir.display()
        );
    }
    if paths::is_within(data_dir, backup_dir).with_context(context)? {
        bail!(
            "the data directory {} is inside backup_dir (PAPERTIDE_BACKUP_DIR, --backup-dir) {}: backups go to a folder of their own",
            data_dir.display(),
            backup_dir.display()
        );
    }
    Ok(())
}

/// Billing, when the secret key is given: then the publishable key, the webhook secret and both
/// prices are required, and a half-configured billing is an error naming everything missing.
/// Blank values count as unset.
fn resolve_stripe(args: &StripeArgs, file: FileStripe) -> anyhow::Result<Option<StripeSettings>> {
    let given = |flag: &Option<String>, from_file: Option<String>| {
        flag.clone().or(from_file).map(|text| text.trim().to_owned()).filter(|text| !text.is_empty())
    };
    let secret_key = given(&args.stripe_secret_key, file.secret_key);
    let publishable_key = given(&args.stripe_publishable_key, file.publishable_key);
    let webhook_secret = given(&args.stripe_webhook_secret, file.webhook_secret);
    let price_pro = given(&args.stripe_price_pro, file.price_pro);
    let price_team = given(&args.stripe_price_team, file.price_team);
    // The keys billing needs beside the secret one, named as the operator sets them.
    let required = [
        (publishable_key.is_some(), "PAPERTIDE_STRIPE_PUBLISHABLE_KEY"),
        (webhook_secret.is_some(), "PAPERTIDE_STRIPE_WEBHOOK_SECRET"),
        (price_pro.is_some(), "PAPERTIDE_STRIPE_PRICE_PRO"),
        (price_team.is_some(), "PAPERTIDE_STRIPE_PRICE_TEAM"),
    ];
    let named = |set: bool| required.iter().filter(|(is_set, _)| *is_set == set).map(|(_, name)| *name).collect::<Vec<_>>();
    let Some(secret_key) = secret_key else {
        let stray = named(true);
        if !stray.is_empty() {
            bail!(
                "billing is half-configured: {} set but PAPERTIDE_STRIPE_SECRET_KEY is not (set it to turn billing on, or unset the others)",
                stray.join(", ")
            );
        }
        return Ok(None);
    };
    let url = |name: &str, given: Option<String>, default: &str| -> anyhow::Result<Url> {
        let text = given.unwrap_or_else(|| default.to_owned());
        let url = Url::parse(&text).with_context(|| format!("the Stripe {name} URL {text:?} is not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            bail!("the Stripe {name} URL {text:?} must be an http:// or https:// address");
        }
        Ok(url)
    };
    let (Some(publishable_key), Some(webhook_secret), Some(price_pro), Some(price_team)) = (publishable_key, webhook_secret, price_pro, price_team)
    else {
        let missing = named(false);
        bail!(
            "billing is half-configured: PAPERTIDE_STRIPE_SECRET_KEY is set but {} {} missing",
            missing.join(", "),
            if missing.len() == 1 { "is" } else { "are" }
        );
    };
    if price_pro == price_team {
        bail!("PAPERTIDE_STRIPE_PRICE_PRO and PAPERTIDE_STRIPE_PRICE_TEAM must be different prices");
    }
    Ok(Some(StripeSettings {
        secret_key,
        publishable_key,
        webhook_secret,
        api_url: url("API", given(&args.stripe_api_url, file.api_url), DEFAULT_STRIPE_API_URL)?,
        js_url: url("JS", given(&args.stripe_js_url, file.js_url), DEFAULT_STRIPE_JS_URL)?,
        price_pro,
        price_team,
    }))
}

fn resolve_sources(args: &SourceArgs, file: FileSources, support_email: &str) -> anyhow::Result<SourceSettings> {
    let url = |name: &str, given: Option<String>, default: &str| -> anyhow::Result<Url> {
        let text = given.filter(|text| !text.trim().is_empty()).unwrap_or_else(|| default.to_owned());
        let url = Url::parse(text.trim()).with_context(|| format!("the {name} URL {text:?} is not a URL"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            bail!("the {name} URL {text:?} must be an http:// or https:// address");
        }
        Ok(url)
    };
    let ncbi_email = args.ncbi_email.clone().or(file.ncbi_email).unwrap_or_else(|| support_email.to_owned());
    if !ncbi_email.contains('@') {
        bail!("the NCBI contact email {ncbi_email:?} is not an email address");
    }
    Ok(SourceSettings {
        pubmed_url: url("PubMed", args.pubmed_url.clone().or(file.pubmed_url), DEFAULT_PUBMED_URL)?,
        arxiv_url: url("arXiv", args.arxiv_url.clone().or(file.arxiv_url), DEFAULT_ARXIV_URL)?,
        biorxiv_url: url("bioRxiv", args.biorxiv_url.clone().or(file.biorxiv_url), DEFAULT_BIORXIV_URL)?,
        crossref_url: url("Crossref", args.crossref_url.clone().or(file.crossref_url), DEFAULT_CROSSREF_URL)?,
        ncbi_api_key: args.ncbi_api_key.clone().or(file.ncbi_api_key).filter(|key| !key.trim().is_empty()),
        ncbi_email,
    })
}

/// The LLM endpoint, if a URL is given: then the standard model is required, and the URL must
/// be http(s). Blank values count as unset, so an empty variable can switch a file's value off.
fn resolve_llm(args: &LlmArgs, file: FileLlm) -> anyhow::Result<Option<LlmSettings>> {
    let given = |flag: &Option<String>, from_file: Option<String>| {
        flag.clone().or(from_file).map(|text| text.trim().to_owned()).filter(|text| !text.is_empty())
    };
    let Some(text) = given(&args.llm_url, file.url) else {
        return Ok(None);
    };
    let url = Url::parse(&text).with_context(|| format!("the LLM URL {text:?} is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        bail!("the LLM URL {text:?} must be an http:// or https:// address");
    }
    let Some(model) = given(&args.llm_model, file.model) else {
        bail!("the LLM URL is set but no model: set PAPERTIDE_LLM_MODEL (--llm-model, or model in [llm]) to the standard model's name");
    };
    let timeout_secs = args.llm_timeout_secs.or(file.timeout_secs).unwrap_or(DEFAULT_LLM_TIMEOUT_SECS);
    if !(1..=MAX_LLM_TIMEOUT_SECS).contains(&timeout_secs) {
        bail!("the LLM timeout of {timeout_secs} s must be 1 to {MAX_LLM_TIMEOUT_SECS} seconds");
    }
    Ok(Some(LlmSettings {
        url,
        api_key: given(&args.llm_api_key, file.api_key),
        model,
        model_advanced: given(&args.llm_model_advanced, file.model_advanced),
        timeout: Duration::from_secs(timeout_secs),
    }))
}

fn resolve_harvest(sources: Option<Vec<String>>, hour: Option<u32>, lookback_days: Option<u32>) -> anyhow::Result<HarvestSettings> {
    let names = sources.unwrap_or_else(|| Source::ALL.iter().map(|source| source.as_str().to_owned()).collect());
    let mut sources = Vec::new();
    for name in names.iter().map(|name| name.trim()).filter(|name| !name.is_empty() && !name.eq_ignore_ascii_case("none")) {
        let source: Source = name.parse().map_err(|error: String| anyhow::anyhow!("harvest sources: {error}"))?;
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    let hour = hour.unwrap_or(DEFAULT_HARVEST_HOUR);
    if hour > 23 {
        bail!("the harvest hour {hour} is not an hour of the day (0 to 23)");
    }
    let lookback_days = lookback_days.unwrap_or(DEFAULT_HARVEST_LOOKBACK_DAYS);
    if !(1..=MAX_LOOKBACK_DAYS).contains(&lookback_days) {
        bail!("the harvest look-back of {lookback_days} days must be 1 to {MAX_LOOKBACK_DAYS}");
    }
    Ok(HarvestSettings { sources, hour, lookback_days })
}

fn resolve_analytics(provider: Option<String>, site_id: Option<String>, script_url: Option<String>) -> anyhow::Result<Option<Analytics>> {
    let provider = provider.map(|name| name.trim().to_ascii_lowercase()).filter(|name| !name.is_empty() && name != "none");
    let Some(provider) = provider else {
        return Ok(None);
    };
    let default_script = match provider.as_str() {
        "plausible" => Some("https://plausible.io/js/script.js"),
        "ga4" => Some("https://www.googletagmanager.com/gtag/js"),
        "umami" => None,
        other => bail!("analytics provider {other:?} is not one of plausible, umami, ga4"),
    };
    let site_id = site_id.filter(|id| !id.trim().is_empty()).with_context(|| format!("analytics provider {provider} needs a site id"))?;
    let script_url = script_url.or(default_script.map(str::to_owned)).with_context(|| format!("analytics provider {provider} needs a script URL"))?;
    let parsed = Url::parse(&script_url).with_context(|| format!("analytics script URL {script_url:?} is not a URL"))?;
    if !matches!(parsed.scheme(), "https" | "http") {
        bail!("the analytics script URL must be http(s)");
    }
    Ok(Some(Analytics { provider, site_id, script_url }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults() -> anyhow::Result<()> {
        let settings = resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!(settings.bind, "127.0.0.1:8080".parse()?);
        assert_eq!(settings.data_dir, PathBuf::from("./papertide-data"));
        assert_eq!(settings.public_base(), "http://localhost:8080");
        assert_eq!(settings.smtp_url, None);
        assert_eq!(settings.mail_from, "Papertide <noreply@localhost>");
        assert_eq!(settings.rate_limits.login, Rate { max: 10, window: Duration::from_secs(900) });
        assert!(!settings.is_https());
        Ok(())
    }

    #[test]
    fn addresses_at_an_ip_public_url_use_localhost_not_the_ip() -> anyhow::Result<()> {
        let at =
            |url: &str| resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs { public_url: Some(url.into()), ..ServeArgs::default() });
        let ipv4 = at("http://127.0.0.1:8080")?;
        assert_eq!((ipv4.mail_from.as_str(), ipv4.support_email.as_str()), ("Papertide <noreply@localhost>", "support@localhost"));
        let ipv6 = at("http://[::1]:8080")?;
        assert_eq!(ipv6.support_email, "support@localhost");
        assert_eq!(at("https://papers.example.org")?.support_email, "support@papers.example.org");
        Ok(())
    }

    #[test]
    fn flags_and_environment_override_the_file() -> anyhow::Result<()> {
        let file: FileConfig =
            toml::from_str("bind = \"0.0.0.0:9000\"\npublic_url = \"https://file.example.org/\"\n[rate_limits]\nlogin = \"3/1m\"\n")?;
        let serve = ServeArgs { public_url: Some("https://flag.example.org".into()), ..ServeArgs::default() };
        let settings = resolve(file, &CommonArgs::default(), &serve)?;
        assert_eq!(settings.bind.port(), 9000);
        assert_eq!(settings.public_base(), "https://flag.example.org");
        assert!(settings.is_https());
        assert_eq!(settings.support_email, "support@flag.example.org");
        assert_eq!(settings.rate_limits.login, Rate { max: 3, window: Duration::from_secs(60) });
        Ok(())
    }

    #[test]
    fn bad_values_are_refused_with_a_reason() {
        let bad = |serve: ServeArgs| resolve(FileConfig::default(), &CommonArgs::default(), &serve).err().map(|e| format!("{e:#}"));
        let message = bad(ServeArgs { bind: Some("localhost".into()), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("HOST:PORT")));
        let message = bad(ServeArgs { public_url: Some("ftp://x.org".into()), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("http")));
        let message = bad(ServeArgs { smtp_url: Some("http://mail".into()), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("smtp://")));
        let message = bad(ServeArgs { rate_limit_login: Some("ten".into()), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("N/WINDOW")));
        assert!(toml::from_str::<FileConfig>("bnd = \"x\"").is_err(), "unknown keys must be refused");
    }

    #[test]
    fn analytics_is_off_unless_a_provider_is_named() -> anyhow::Result<()> {
        let with = |provider: &str, site: Option<&str>, script: Option<&str>| {
            let serve = ServeArgs {
                analytics_provider: Some(provider.into()),
                analytics_site_id: site.map(Into::into),
                analytics_script_url: script.map(Into::into),
                ..ServeArgs::default()
            };
            resolve(FileConfig::default(), &CommonArgs::default(), &serve)
        };
        assert_eq!(resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?.analytics, None);
        assert_eq!(with("none", None, None)?.analytics, None);
        let plausible = with("Plausible", Some("papers.example.org"), None)?.analytics.ok_or_else(|| anyhow::anyhow!("none"))?;
        assert_eq!(plausible.script_url, "https://plausible.io/js/script.js");
        assert!(with("umami", Some("id"), None).is_err(), "umami has no default script");
        assert!(with("plausible", None, None).is_err(), "a site id is required");
        assert!(with("matomo", Some("1"), None).is_err());
        Ok(())
    }

    #[test]
    fn the_harvest_covers_every_source_daily_unless_told_otherwise() -> anyhow::Result<()> {
        let defaults = resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!(defaults.harvest, HarvestSettings { sources: Source::ALL.to_vec(), hour: 6, lookback_days: 7 });
        assert_eq!(defaults.sources.pubmed_url.as_str(), "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/");
        assert_eq!(defaults.sources.crossref_url.as_str(), DEFAULT_CROSSREF_URL);
        assert_eq!(defaults.sources.ncbi_email, "support@localhost");
        assert_eq!(defaults.sources.ncbi_api_key, None);

        let file: FileConfig = toml::from_str("[harvest]\nsources = [\"arxiv\"]\nhour = 2\n[sources]\nncbi_api_key = \"k\"\n")?;
        let serve = ServeArgs { harvest_sources: Some(vec!["PubMed".into(), " medrxiv".into(), "pubmed".into()]), ..ServeArgs::default() };
        let settings = resolve(file, &CommonArgs::default(), &serve)?;
        assert_eq!(settings.harvest.sources, vec![Source::Pubmed, Source::Medrxiv]);
        assert_eq!(settings.harvest.hour, 2);
        assert_eq!(settings.sources.ncbi_api_key.as_deref(), Some("k"));
        assert!(!format!("{:?}", settings.sources).contains("\"k\""), "the API key must not be printed");

        let off = ServeArgs { harvest_sources: Some(vec!["none".into()]), ..ServeArgs::default() };
        assert!(resolve(FileConfig::default(), &CommonArgs::default(), &off)?.harvest.sources.is_empty());
        Ok(())
    }

    #[test]
    fn bad_harvest_and_source_settings_are_refused() {
        let bad = |serve: ServeArgs| resolve(FileConfig::default(), &CommonArgs::default(), &serve).err().map(|e| format!("{e:#}"));
        let message = bad(ServeArgs { harvest_sources: Some(vec!["scopus".into()]), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("unknown source \"scopus\"")));
        let message = bad(ServeArgs { harvest_hour: Some(24), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("0 to 23")));
        let message = bad(ServeArgs { digest_hour: Some(25), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("digest hour")));
        let message = bad(ServeArgs { harvest_lookback_days: Some(0), ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("1 to 31")));
        let sources = SourceArgs { arxiv_url: Some("ftp://arxiv.org".into()), ..SourceArgs::default() };
        let message = bad(ServeArgs { sources, ..ServeArgs::default() });
        assert!(message.is_some_and(|m| m.contains("arXiv URL")));
        let sources = SourceArgs { ncbi_email: Some("nobody".into()), ..SourceArgs::default() };
        assert!(bad(ServeArgs { sources, ..ServeArgs::default() }).is_some_and(|m| m.contains("NCBI")));
        let sources = SourceArgs { crossref_url: Some("api.crossref.org".into()), ..SourceArgs::default() };
        assert!(bad(ServeArgs { sources, ..ServeArgs::default() }).is_some_and(|m| m.contains("Crossref URL")));
    }

    #[test]
    fn the_crossref_url_comes_from_the_file_unless_a_flag_says_otherwise() -> anyhow::Result<()> {
        let file: FileConfig = toml::from_str("[sources]\ncrossref_url = \"http://127.0.0.1:9/crossref/\"\n")?;
        let from_file = resolve(file.clone(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!(from_file.sources.crossref_url.as_str(), "http://127.0.0.1:9/crossref/");
        assert!(format!("{:?}", from_file.sources).contains("http://127.0.0.1:9/crossref/"));
        let sources = SourceArgs { crossref_url: Some("https://crossref.example.org/".into()), ..SourceArgs::default() };
        let flagged = resolve(file, &CommonArgs::default(), &ServeArgs { sources, ..ServeArgs::default() })?;
        assert_eq!(flagged.sources.crossref_url.as_str(), "https://crossref.example.org/");
        Ok(())
    }

    #[test]
    fn live_search_is_on_unless_turned_off() -> anyhow::Result<()> {
        assert!(resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?.live_search);
        let file: FileConfig = toml::from_str("live_search = false\n")?;
        assert!(!resolve(file.clone(), &CommonArgs::default(), &ServeArgs::default())?.live_search);
        let flag = ServeArgs { live_search: Some(true), ..ServeArgs::default() };
        assert!(resolve(file, &CommonArgs::default(), &flag)?.live_search, "the flag wins over the file");
        use clap::Args as _;
        let command = ServeArgs::augment_args(clap::Command::new("serve"));
        let env = command.get_arguments().find(|arg| arg.get_id() == "live_search").and_then(|arg| arg.get_env()).map(|env| env.to_owned());
        assert_eq!(env.as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LIVE_SEARCH")));
        Ok(())
    }

    #[test]
    fn there_is_no_llm_without_a_url() -> anyhow::Result<()> {
        assert_eq!(resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?.llm, None);
        let file: FileConfig = toml::from_str("[llm]\nmodel = \"gpt-4o-mini\"\ntimeout_secs = 10\n")?;
        assert_eq!(resolve(file, &CommonArgs::default(), &ServeArgs::default())?.llm, None, "a model alone turns nothing on");
        let blank = ServeArgs { llm: LlmArgs { llm_url: Some(" ".into()), ..LlmArgs::default() }, ..ServeArgs::default() };
        let file: FileConfig = toml::from_str("[llm]\nurl = \"https://api.openai.com/v1\"\nmodel = \"m\"\n")?;
        assert_eq!(resolve(file, &CommonArgs::default(), &blank)?.llm, None, "an empty variable switches the file's LLM off");
        Ok(())
    }

    #[test]
    fn the_llm_section_of_the_file_resolves() -> anyhow::Result<()> {
        let text = "[llm]\nurl = \"https://api.openai.com/v1\"\napi_key = \"sk-file\"\nmodel = \"gpt-4o-mini\"\n";
        let file: FileConfig = toml::from_str(&format!("{text}model_advanced = \"gpt-4o\"\ntimeout_secs = 12\n"))?;
        let llm = resolve(file, &CommonArgs::default(), &ServeArgs::default())?.llm.ok_or_else(|| anyhow::anyhow!("no LLM"))?;
        assert_eq!(llm.url.as_str(), "https://api.openai.com/v1");
        assert_eq!(llm.api_key.as_deref(), Some("sk-file"));
        assert_eq!((llm.model.as_str(), llm.model_advanced.as_deref()), ("gpt-4o-mini", Some("gpt-4o")));
        assert_eq!(llm.timeout, Duration::from_secs(12));
        Ok(())
    }

    #[test]
    fn llm_flags_and_environment_override_the_file() -> anyhow::Result<()> {
        let file: FileConfig = toml::from_str("[llm]\nurl = \"https://file.example.org/v1\"\nmodel = \"file-model\"\napi_key = \"sk-file\"\n")?;
        let llm = LlmArgs { llm_url: Some("http://127.0.0.1:11434/v1".into()), llm_model_advanced: Some("big".into()), ..LlmArgs::default() };
        let settings = resolve(file, &CommonArgs::default(), &ServeArgs { llm, ..ServeArgs::default() })?;
        let llm = settings.llm.clone().ok_or_else(|| anyhow::anyhow!("no LLM"))?;
        assert_eq!(llm.url.as_str(), "http://127.0.0.1:11434/v1");
        assert_eq!((llm.model.as_str(), llm.model_advanced.as_deref(), llm.api_key.as_deref()), ("file-model", Some("big"), Some("sk-file")));
        assert_eq!(llm.timeout, Duration::from_secs(DEFAULT_LLM_TIMEOUT_SECS));
        assert!(!format!("{settings:?}").contains("sk-file"), "the API key must not be printed");
        Ok(())
    }

    #[test]
    fn an_llm_url_without_a_model_or_with_a_bad_value_is_refused() {
        let bad = |llm: LlmArgs| {
            resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs { llm, ..ServeArgs::default() }).err().map(|e| format!("{e:#}"))
        };
        let url = || Some("https://api.openai.com/v1".to_owned());
        let message = bad(LlmArgs { llm_url: url(), ..LlmArgs::default() });
        assert!(message.is_some_and(|m| m.contains("no model") && m.contains("PAPERTIDE_LLM_MODEL")));
        let message = bad(LlmArgs { llm_url: url(), llm_model: Some("  ".into()), llm_model_advanced: Some("big".into()), ..LlmArgs::default() });
        assert!(message.is_some_and(|m| m.contains("no model")), "a blank standard model is no model");
        let message = bad(LlmArgs { llm_url: Some("api.openai.com/v1".into()), llm_model: Some("m".into()), ..LlmArgs::default() });
        assert!(message.is_some_and(|m| m.contains("LLM URL")));
        let message = bad(LlmArgs { llm_url: Some("ftp://models.example.org".into()), llm_model: Some("m".into()), ..LlmArgs::default() });
        assert!(message.is_some_and(|m| m.contains("http://")));
        let message = bad(LlmArgs { llm_url: url(), llm_model: Some("m".into()), llm_timeout_secs: Some(0), ..LlmArgs::default() });
        assert!(message.is_some_and(|m| m.contains("timeout")));
    }

    /// The variables' names are the documented ones, and the key's value is kept out of `--help`.
    #[test]
    fn the_llm_settings_are_read_from_their_environment_variables() {
        use clap::Args as _;
        let command = ServeArgs::augment_args(clap::Command::new("serve"));
        let env_of = |id: &str| command.get_arguments().find(|arg| arg.get_id() == id).and_then(|arg| arg.get_env()).map(|env| env.to_owned());
        assert_eq!(env_of("llm_url").as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LLM_URL")));
        assert_eq!(env_of("llm_api_key").as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LLM_API_KEY")));
        assert_eq!(env_of("llm_model").as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LLM_MODEL")));
        assert_eq!(env_of("llm_model_advanced").as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LLM_MODEL_ADVANCED")));
        assert_eq!(env_of("llm_timeout_secs").as_deref(), Some(std::ffi::OsStr::new("PAPERTIDE_LLM_TIMEOUT_SECS")));
        let key = command.get_arguments().find(|arg| arg.get_id() == "llm_api_key");
        assert!(key.is_some_and(|arg| arg.is_hide_env_values_set()));
    }

    /// Set in a child process of this test binary, so that no other test sees the variables.
    #[test]
    fn llm_environment_variables_resolve() -> anyhow::Result<()> {
        const CHILD: &str = "PAPERTIDE_TEST_LLM_ENV_CHILD";
        if std::env::var_os(CHILD).is_some() {
            #[derive(clap::Parser)]
            struct Cli {
                #[command(flatten)]
                serve: ServeArgs,
            }
            let cli = <Cli as clap::Parser>::try_parse_from(["papertide"])?;
            let llm = resolve(FileConfig::default(), &CommonArgs::default(), &cli.serve)?.llm.ok_or_else(|| anyhow::anyhow!("no LLM"))?;
            assert_eq!(llm.url.as_str(), "http://127.0.0.1:8000/v1");
            assert_eq!((llm.api_key.as_deref(), llm.model.as_str(), llm.model_advanced.as_deref()), (Some("sk-env"), "small", Some("large")));
            assert_eq!(llm.timeout, Duration::from_secs(7));
            return Ok(());
        }
        let output = std::process::Command::new(std::env::current_exe()?)
            .args(["--exact", "tests::llm_environment_variables_resolve", "--test-threads=1"])
            .env(CHILD, "1")
            .env("PAPERTIDE_LLM_URL", "http://127.0.0.1:8000/v1")
            .env("PAPERTIDE_LLM_API_KEY", "sk-env")
            .env("PAPERTIDE_LLM_MODEL", "small")
            .env("PAPERTIDE_LLM_MODEL_ADVANCED", "large")
            .env("PAPERTIDE_LLM_TIMEOUT_SECS", "7")
            .output()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success() && stdout.contains("1 passed"), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        Ok(())
    }

    #[test]
    fn billing_is_on_with_a_secret_key_and_refuses_to_start_half_configured() -> anyhow::Result<()> {
        let with = |stripe: StripeArgs| resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs { stripe, ..ServeArgs::default() });
        assert_eq!(with(StripeArgs::default())?.stripe, None, "off by default");
        let complete = StripeArgs {
            stripe_secret_key: Some("sk_test_1".into()),
            stripe_publishable_key: Some("pk_test_1".into()),
            stripe_webhook_secret: Some("whsec_1".into()),
            stripe_price_pro: Some("price_pro".into()),
            stripe_price_team: Some("price_team".into()),
            ..StripeArgs::default()
        };
        let stripe = with(complete.clone())?.stripe.ok_or_else(|| anyhow::anyhow!("billing off"))?;
        assert_eq!((stripe.api_url.as_str(), stripe.js_url.as_str()), (DEFAULT_STRIPE_API_URL, DEFAULT_STRIPE_JS_URL));
        assert!(!format!("{stripe:?}").contains("sk_test_1") && !format!("{stripe:?}").contains("whsec_1"), "secrets stay out of logs");

        let error =
            with(StripeArgs { stripe_webhook_secret: None, stripe_price_team: None, ..complete.clone() }).err().map(|error| error.to_string());
        assert_eq!(
            error.as_deref(),
            Some("billing is half-configured: PAPERTIDE_STRIPE_SECRET_KEY is set but PAPERTIDE_STRIPE_WEBHOOK_SECRET, PAPERTIDE_STRIPE_PRICE_TEAM are missing")
        );
        let error =
            with(StripeArgs { stripe_secret_key: Some("  ".into()), ..complete.clone() }).err().map(|error| error.to_string()).unwrap_or_default();
        assert!(error.contains("PAPERTIDE_STRIPE_SECRET_KEY is not"), "{error}");
        let error = with(StripeArgs { stripe_api_url: Some("ftp://stripe".into()), ..complete.clone() })
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(error.contains("must be an http"), "{error}");
        let file: FileConfig = toml::from_str(
            "[stripe]\nsecret_key = \"sk_file\"\npublishable_key = \"pk_file\"\nwebhook_secret = \"whsec_file\"\nprice_pro = \"plan_a\"\nprice_team = \"plan_b\"\napi_url = \"http://127.0.0.1:8420/\"\n",
        )?;
        let from_file = resolve(file, &CommonArgs::default(), &ServeArgs::default())?.stripe.ok_or_else(|| anyhow::anyhow!("billing off"))?;
        assert_eq!((from_file.api_url.as_str(), from_file.price_team.as_str()), ("http://127.0.0.1:8420/", "plan_b"));
        Ok(())
    }

    #[test]
    fn the_embedding_model_folder_is_read_from_its_environment_variable() {
        use clap::Args as _;
        let command = ServeArgs::augment_args(clap::Command::new("serve"));
        let argument = command.get_arguments().find(|arg| arg.get_id() == "embed_model_dir");
        assert_eq!(argument.and_then(|arg| arg.get_env()), Some(std::ffi::OsStr::new("PAPERTIDE_EMBED_MODEL_DIR")));
        assert_eq!(argument.and_then(|arg| arg.get_long()), Some("embed-model-dir"));
    }

    #[test]
    fn rates_parse() -> anyhow::Result<()> {
        assert_eq!(Rate::parse("5/1h")?, Rate { max: 5, window: Duration::from_secs(3600) });
        assert_eq!(Rate::parse("20/s")?, Rate { max: 20, window: Duration::from_secs(1) });
        assert!(Rate::parse("0/1h").is_err());
        assert!(Rate::parse("5/1d").is_err());
        Ok(())
    }

    /// Found by fuzzing the configuration file: a window ending in a character of more than one
    /// byte (`"5/1é"`) split the text inside that character and panicked at start.
    #[test]
    fn a_rate_window_ending_in_a_multibyte_character_is_refused_not_a_panic() {
        for text in ["5/1é", "5/é", "5/15µ", "5/📄"] {
            let error = Rate::parse(text).map(|rate| format!("{rate:?}")).expect_err(text);
            assert!(error.to_string().contains("the window ends in s, m or h"), "{text}: {error}");
        }
        assert!(Rate::parse("5/1hé").is_err(), "a unit after the unit");
        let file = parse_file_config("[rate_limits]\nsignup = \"5/1himmediate_se\\u00e9 \"\n").expect("valid TOML");
        let refused = resolve(file, &CommonArgs::default(), &ServeArgs::default()).expect_err("a bad rate is refused");
        assert!(refused.to_string().contains("rate \"5/1himmediate_seé \""), "{refused}");
    }

    /// Found while reading `Rate::parse` for its fuzz target: a window of more seconds than a
    /// u64 holds (`"5/18446744073709551615h"`) overflowed (a panic in debug builds, a wrapped,
    /// wrong window in release ones).
    #[test]
    fn a_rate_window_too_long_to_count_in_seconds_is_refused_not_overflowed() {
        for text in ["5/18446744073709551615h", "5/5124095576030432h", "5/307445734561825861m"] {
            let error = Rate::parse(text).map(|rate| format!("{rate:?}")).expect_err(text);
            assert!(error.to_string().contains("too long"), "{text}: {error}");
        }
        assert_eq!(Rate::parse("5/18446744073709551615s").ok().map(|rate| rate.window.as_secs()), Some(u64::MAX));
    }

    /// The committed example must list every option with its default.
    #[test]
    fn daily_backups_are_off_unless_a_folder_is_given_and_keep_at_least_one() -> anyhow::Result<()> {
        let defaults = resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!((defaults.backup_dir, defaults.backup_keep), (None, DEFAULT_BACKUP_KEEP));
        let file: FileConfig = toml::from_str("backup_dir = \"/srv/backups\"\nbackup_keep = 3\n")?;
        let from_file = resolve(file.clone(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!((from_file.backup_dir, from_file.backup_keep), (Some(PathBuf::from("/srv/backups")), 3));
        let flag = ServeArgs { backup_keep: Some(2), backup_dir: Some(PathBuf::new()), ..ServeArgs::default() };
        let from_flag = resolve(file.clone(), &CommonArgs::default(), &flag)?;
        assert_eq!((from_flag.backup_dir, from_flag.backup_keep), (None, 2), "an empty folder switches the file's off");
        let none_kept = ServeArgs { backup_keep: Some(0), ..ServeArgs::default() };
        assert!(resolve(file, &CommonArgs::default(), &none_kept).is_err());
        Ok(())
    }

    /// Found probing the backup API: a backup folder inside the data directory (or around it)
    /// put backups where the database's readers are, and the next backup copied the last.
    #[test]
    fn a_backup_folder_inside_the_data_directory_or_around_it_is_refused_naming_the_option() -> anyhow::Result<()> {
        let folder = tempfile::tempdir()?;
        let data_dir = folder.path().join("data");
        let common = CommonArgs { config: None, data_dir: Some(data_dir.clone()) };
        for inside in [data_dir.join("backups"), data_dir.join("db"), folder.path().join("elsewhere/../data/backups"), folder.path().to_owned()] {
            let serve = ServeArgs { backup_dir: Some(inside.clone()), ..ServeArgs::default() };
            let refused = resolve(FileConfig::default(), &common, &serve).expect_err("a backup folder overlapping the data directory");
            assert!(refused.to_string().contains("backup_dir (PAPERTIDE_BACKUP_DIR"), "{}: {refused}", inside.display());
        }
        let beside = ServeArgs { backup_dir: Some(folder.path().join("data-backups")), ..ServeArgs::default() };
        assert!(resolve(FileConfig::default(), &common, &beside)?.backup_dir.is_some(), "a folder beside it is fine");
        Ok(())
    }

    #[test]
    fn the_ipv6_prefix_and_the_limiters_size_are_checked() -> anyhow::Result<()> {
        let defaults = resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!((defaults.ipv6_prefix, defaults.rate_limiter_capacity), (64, 100_000));
        let file: FileConfig = toml::from_str("ipv6_prefix = 56\nrate_limiter_capacity = 5000\n")?;
        let from_file = resolve(file.clone(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!((from_file.ipv6_prefix, from_file.rate_limiter_capacity), (56, 5_000));
        let flag = ServeArgs { ipv6_prefix: Some(128), ..ServeArgs::default() };
        assert_eq!(resolve(file.clone(), &CommonArgs::default(), &flag)?.ipv6_prefix, 128);
        for bad in [ServeArgs { ipv6_prefix: Some(0), ..ServeArgs::default() }, ServeArgs { ipv6_prefix: Some(129), ..ServeArgs::default() }] {
            assert!(resolve(FileConfig::default(), &CommonArgs::default(), &bad).is_err());
        }
        let tiny = ServeArgs { rate_limiter_capacity: Some(7), ..ServeArgs::default() };
        assert!(resolve(FileConfig::default(), &CommonArgs::default(), &tiny).is_err());
        Ok(())
    }

    #[test]
    fn the_example_configuration_matches_the_defaults() -> anyhow::Result<()> {
        let example_text = include_str!("../../papertide.example.toml");
        let example: FileConfig = toml::from_str(example_text)?;
        let from_example = resolve(example, &CommonArgs::default(), &ServeArgs::default())?;
        let defaults = resolve(FileConfig::default(), &CommonArgs::default(), &ServeArgs::default())?;
        assert_eq!(from_example, defaults);
        let every_key = FileConfig {
            bind: Some(String::new()),
            data_dir: Some(PathBuf::new()),
            public_url: Some(String::new()),
            smtp_url: Some(String::new()),
            smtp_ca_file: Some(PathBuf::new()),
            mail_from: Some(String::new()),
            support_email: Some(String::new()),
            admin_emails: Some(vec![]),
            trust_proxy: Some(false),
            channels_allow_private: Some(false),
            log: Some(String::new()),
            rate_limits: Some(FileRateLimits {
                login: Some(String::new()),
                login_account: Some(String::new()),
                signup: Some(String::new()),
                forgot_password: Some(String::new()),
                resend: Some(String::new()),
                reset_password: Some(String::new()),
                immediate_search: Some(String::new()),
                resend_email: Some(String::new()),
                test_email: Some(String::new()),
                recipient: Some(String::new()),
                signup_global: Some(String::new()),
                link_guesses: Some(String::new()),
            }),
            max_connections: Some(0),
            ipv6_prefix: Some(0),
            rate_limiter_capacity: Some(0),
            metrics_token: Some(String::new()),
            analytics: Some(FileAnalytics { provider: Some(String::new()), site_id: Some(String::new()), script_url: Some(String::new()) }),
            sources: Some(FileSources {
                pubmed_url: Some(String::new()),
                arxiv_url: Some(String::new()),
                biorxiv_url: Some(String::new()),
                crossref_url: Some(String::new()),
                ncbi_api_key: Some(String::new()),
                ncbi_email: Some(String::new()),
            }),
            harvest: Some(FileHarvest { sources: Some(vec![]), hour: Some(0), lookback_days: Some(0) }),
            live_search: Some(false),
            digest_hour: Some(0),
            min_free_disk_mb: Some(0),
            backup_dir: Some(PathBuf::new()),
            backup_keep: Some(0),
            embed_model_dir: Some(PathBuf::new()),
            embed_runtime: Some(String::new()),
            onnxruntime_library: Some(PathBuf::new()),
            llm: Some(FileLlm {
                url: Some(String::new()),
                api_key: Some(String::new()),
                model: Some(String::new()),
                model_advanced: Some(String::new()),
                timeout_secs: Some(0),
            }),
            stripe: Some(FileStripe {
                secret_key: Some(String::new()),
                publishable_key: Some(String::new()),
                webhook_secret: Some(String::new()),
                api_url: Some(String::new()),
                js_url: Some(String::new()),
                price_pro: Some(String::new()),
                price_team: Some(String::new()),
            }),
        };
        let keys = toml::to_string(&every_key)?;
        for line in keys.lines().filter(|line| line.contains(" = ")) {
            let key = line.split(" = ").next().unwrap_or_default();
            assert!(example_text.contains(&format!("{key} =")), "papertide.example.toml lacks {key}");
        }
        Ok(())
    }
}
