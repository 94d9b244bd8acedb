//! Configuration: a TOML file < `PAPERTIDE_*` environment variables < command-line flags, each
//! option with an embedded default, validated once into typed [`Settings`]. This module (through
//! clap's `env` attributes) is the only place that reads the environment.

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
    /// NCBI API key: PubMed allows 10 requests a second with one, 3 without.
    #[arg(long, env = "PAPERTIDE_NCBI_API_KEY", hide_env_values = true)]
    pub ncbi_api_key: Option<String>,
    /// Contact email sent to NCBI with every request [default: the support email].
    #[arg(long, env = "PAPERTIDE_NCBI_EMAIL")]
    pub ncbi_email: Option<String>,
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
    /// Hour of the UTC day from which weekly digests go out on each user's delivery day, 0 to 23
    /// [default: 8].
    #[arg(long, env = "PAPERTIDE_DIGEST_HOUR")]
    pub digest_hour: Option<u32>,
    /// Sign-in attempts per client and email [default: 10/15m].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_LOGIN")]
    pub rate_limit_login: Option<String>,
    /// Signups per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_SIGNUP")]
    pub rate_limit_signup: Option<String>,
    /// Password-reset requests per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_FORGOT_PASSWORD")]
    pub rate_limit_forgot_password: Option<String>,
    /// Verification re-sends per client address [default: 5/1h].
    #[arg(long, env = "PAPERTIDE_RATE_LIMIT_RESEND")]
    pub rate_limit_resend: Option<String>,
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
    pub log: Option<String>,
    pub rate_limits: Option<FileRateLimits>,
    pub analytics: Option<FileAnalytics>,
    pub sources: Option<FileSources>,
    pub harvest: Option<FileHarvest>,
    pub digest_hour: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSources {
    pub pubmed_url: Option<String>,
    pub arxiv_url: Option<String>,
    pub biorxiv_url: Option<String>,
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
pub struct FileAnalytics {
    pub provider: Option<String>,
    pub site_id: Option<String>,
    pub script_url: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRateLimits {
    pub login: Option<String>,
    pub signup: Option<String>,
    pub forgot_password: Option<String>,
    pub resend: Option<String>,
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
        let split_at = window.len().saturating_sub(1);
        let (amount, unit) = window.split_at(split_at);
        let amount: u64 = if amount.is_empty() { 1 } else { amount.parse().with_context(|| format!("rate {text:?}: bad window"))? };
        let seconds = match unit {
            "s" => amount,
            "m" => amount * 60,
            "h" => amount * 3600,
            _ => bail!("rate {text:?}: the window ends in s, m or h"),
        };
        if max == 0 || seconds == 0 {
            bail!("rate {text:?}: count and window must be positive");
        }
        Ok(Rate { max, window: Duration::from_secs(seconds) })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    pub login: Rate,
    pub signup: Rate,
    pub forgot_password: Rate,
    pub resend: Rate,
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
            .field("ncbi_api_key", &self.ncbi_api_key.as_ref().map(|_| "<redacted>"))
            .field("ncbi_email", &self.ncbi_email)
            .finish()
    }
}

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
    pub log: String,
    pub rate_limits: RateLimits,
    /// None unless configured: then nothing is ever loaded.
    pub analytics: Option<Analytics>,
    pub sources: SourceSettings,
    pub harvest: HarvestSettings,
    /// Hour of the UTC day weekly digests start on each delivery day.
    pub digest_hour: u32,
}

pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
pub const DEFAULT_DATA_DIR: &str = "./papertide-data";
pub const DEFAULT_LOG: &str = "info";
pub const DEFAULT_RATE_LOGIN: &str = "10/15m";
pub const DEFAULT_RATE_SIGNUP: &str = "5/1h";
pub const DEFAULT_RATE_FORGOT_PASSWORD: &str = "5/1h";
pub const DEFAULT_RATE_RESEND: &str = "5/1h";
pub const DEFAULT_HARVEST_HOUR: u32 = 6;
pub const DEFAULT_HARVEST_LOOKBACK_DAYS: u32 = 7;
pub const DEFAULT_DIGEST_HOUR: u32 = 8;
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
    toml::from_str(&text).with_context(|| format!("parsing the configuration file {}", path.display()))
}

/// Merges file < environment/flags < nothing-given defaults into checked settings.
pub fn resolve(file: FileConfig, common: &CommonArgs, serve: &ServeArgs) -> anyhow::Result<Settings> {
    let file_rates = file.rate_limits.clone().unwrap_or_default();
    let pick = |flag: &Option<String>, from_file: Option<String>| flag.clone().or(from_file);

    let bind_text = pick(&serve.bind, file.bind).unwrap_or_else(|| DEFAULT_BIND.to_owned());
    let bind: SocketAddr = bind_text.parse().with_context(|| format!("bind address {bind_text:?} is not HOST:PORT"))?;
    let data_dir = common.data_dir.clone().or(file.data_dir).unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));

    let public_text = pick(&serve.public_url, file.public_url).unwrap_or_else(|| format!("http://localhost:{}", bind.port()));
    let public_url = Url::parse(public_text.trim_end_matches('/')).with_context(|| format!("public URL {public_text:?} is not a URL"))?;
    if !matches!(public_url.scheme(), "http" | "https") || public_url.host_str().is_none() {
        bail!("public URL {public_text:?} must be an http:// or https:// address");
    }
    let host = public_url.host_str().unwrap_or("localhost").to_owned();

    let smtp_url = pick(&serve.smtp_url, file.smtp_url).filter(|url| !url.trim().is_empty());
    if let Some(url) = &smtp_url {
        let parsed = Url::parse(url).context("PAPERTIDE_SMTP_URL is not a URL")?;
        if !matches!(parsed.scheme(), "smtp" | "smtps") {
            bail!("the SMTP URL must start with smtp:// or smtps://");
        }
    }
    let mail_from = pick(&serve.mail_from, file.mail_from).unwrap_or_else(|| format!("Papertide <noreply@{host}>"));
    let support_email = pick(&serve.support_email, file.support_email).unwrap_or_else(|| format!("support@{host}"));
    let admin_emails = serve
        .admin_emails
        .clone()
        .or(file.admin_emails)
        .unwrap_or_default()
        .iter()
        .map(|email| engine::account::normalize_email(email))
        .filter(|email| !email.is_empty())
        .collect();
    let rate = |flag: &Option<String>, from_file: Option<String>, default: &str| {
        Rate::parse(&pick(flag, from_file).unwrap_or_else(|| default.to_owned()))
    };
    let rate_limits = RateLimits {
        login: rate(&serve.rate_limit_login, file_rates.login, DEFAULT_RATE_LOGIN)?,
        signup: rate(&serve.rate_limit_signup, file_rates.signup, DEFAULT_RATE_SIGNUP)?,
        forgot_password: rate(&serve.rate_limit_forgot_password, file_rates.forgot_password, DEFAULT_RATE_FORGOT_PASSWORD)?,
        resend: rate(&serve.rate_limit_resend, file_rates.resend, DEFAULT_RATE_RESEND)?,
    };
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
    let digest_hour = serve.digest_hour.or(file.digest_hour).unwrap_or(DEFAULT_DIGEST_HOUR);
    if digest_hour > 23 {
        bail!("the digest hour {digest_hour} is not an hour of the day (0 to 23)");
    }
    Ok(Settings {
        sources,
        harvest,
        digest_hour,
        bind,
        data_dir,
        public_url,
        smtp_url,
        smtp_ca_file: serve.smtp_ca_file.clone().or(file.smtp_ca_file),
        mail_from,
        support_email,
        admin_emails,
        trust_proxy: serve.trust_proxy.or(file.trust_proxy).unwrap_or(false),
        log: pick(&serve.log, file.log).unwrap_or_else(|| DEFAULT_LOG.to_owned()),
        rate_limits,
        analytics,
    })
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
        pubmed_url: url("PubMed", args.pubmed_url.clone().or(file.pubmed_url), actors::sources::pubmed::DEFAULT_BASE_URL)?,
        arxiv_url: url("arXiv", args.arxiv_url.clone().or(file.arxiv_url), actors::sources::arxiv::DEFAULT_BASE_URL)?,
        biorxiv_url: url("bioRxiv", args.biorxiv_url.clone().or(file.biorxiv_url), actors::sources::biorxiv::DEFAULT_BASE_URL)?,
        ncbi_api_key: args.ncbi_api_key.clone().or(file.ncbi_api_key).filter(|key| !key.trim().is_empty()),
        ncbi_email,
    })
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
    let script_url = script_url
        .or(default_script.map(str::to_owned))
        .with_context(|| format!("analytics provider {provider} needs a script URL"))?;
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
    fn flags_and_environment_override_the_file() -> anyhow::Result<()> {
        let file: FileConfig = toml::from_str(
            "bind = \"0.0.0.0:9000\"\npublic_url = \"https://file.example.org/\"\n[rate_limits]\nlogin = \"3/1m\"\n",
        )?;
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
    }

    #[test]
    fn rates_parse() -> anyhow::Result<()> {
        assert_eq!(Rate::parse("5/1h")?, Rate { max: 5, window: Duration::from_secs(3600) });
        assert_eq!(Rate::parse("20/s")?, Rate { max: 20, window: Duration::from_secs(1) });
        assert!(Rate::parse("0/1h").is_err());
        assert!(Rate::parse("5/1d").is_err());
        Ok(())
    }

    /// The committed example must list every option with its default.
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
            log: Some(String::new()),
            rate_limits: Some(FileRateLimits {
                login: Some(String::new()),
                signup: Some(String::new()),
                forgot_password: Some(String::new()),
                resend: Some(String::new()),
            }),
            analytics: Some(FileAnalytics { provider: Some(String::new()), site_id: Some(String::new()), script_url: Some(String::new()) }),
            sources: Some(FileSources {
                pubmed_url: Some(String::new()),
                arxiv_url: Some(String::new()),
                biorxiv_url: Some(String::new()),
                ncbi_api_key: Some(String::new()),
                ncbi_email: Some(String::new()),
            }),
            harvest: Some(FileHarvest { sources: Some(vec![]), hour: Some(0), lookback_days: Some(0) }),
            digest_hour: Some(0),
        };
        let keys = toml::to_string(&every_key)?;
        for line in keys.lines().filter(|line| line.contains(" = ")) {
            let key = line.split(" = ").next().unwrap_or_default();
            assert!(example_text.contains(&format!("{key} =")), "papertide.example.toml lacks {key}");
        }
        Ok(())
    }
}
