//! The `crash` scenario: the real `papertide` binary killed with SIGKILL at random moments while
//! it harvests, runs the weekly pass, sends mail and applies Stripe webhooks, then started again,
//! with every acknowledged account, term, digest, plan change and queued mail checked after each
//! kill, no mail delivered twice, and the index consistent with the database (see `checks`).
//!
//! Peers: maildev as the SMTP server, localstripe as Stripe (the card flow, and subscriptions
//! canceled or made at Stripe whose events the scenario signs and delivers, again until
//! answered, as Stripe does), and the replay server of recorded PubMed and arXiv responses for
//! the harvest. Everything random comes from one seed: a failure is reproduced by running the
//! same seed again.

pub mod checks;
pub mod rng;
pub mod server;
pub mod workload;

use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use chrono::{Datelike, TimeZone, Utc};
use engine::paper::Source;
use serde::Serialize;

use checks::{Fixtures, MailBox, Observed};
use rng::Rng;
use testkit::maildev::Maildev;
use testkit::replay::{ReplayServer, Reply};
use testkit::server::{kill, wait_for_exit, wait_until_healthy, Binary, Log};
use testkit::stripe::LocalStripe;
use workload::{InFlight, Tally, User};

const ESEARCH: &str = "/entrez/eutils/esearch.fcgi";
const EFETCH: &str = "/entrez/eutils/efetch.fcgi";
const ARXIV: &str = "/api/query";
const PUBMED_BATCH: &str = "pubmed/efetch_batch_20_articles.xml";
const ARXIV_PAGE: &str = "arxiv/api_query_abs_codon_model_sortby_submittedDate_desc.xml";
/// How long a start may take: longer is a server that will not restart.
const RESTART_LIMIT: Duration = Duration::from_secs(60);

/// How a run goes.
#[derive(Debug, Clone)]
pub struct CrashConfig {
    /// The `papertide` binary.
    pub binary: PathBuf,
    /// SIGKILLs to land, over every phase.
    pub kills: usize,
    pub seed: u64,
    /// Simulated users.
    pub users: usize,
}

/// Where a kill landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum KillPoint {
    /// `serve`, after a random delay while users act.
    Random,
    /// `serve`, while it was sending mail (maildev had received part of what was queued).
    Mailing,
    /// `serve`, a random moment into a Stripe webhook's handling.
    Webhook,
    /// `serve`, into an immediate search (a digest and its mail being built and stored).
    Search,
    /// `serve`, into the card flow's subscription step.
    PlanChange,
    /// `serve`, while its harvesters fetched from the sources.
    ServeHarvest,
    /// `papertide harvest`, a random moment into the run.
    Harvest,
    /// `papertide weekly`, a random moment into the pass.
    Weekly,
}

/// The run's figures.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrashReport {
    pub seed: u64,
    pub kills: usize,
    pub kills_by_point: std::collections::BTreeMap<String, usize>,
    pub restarts: usize,
    pub checks_passed: u64,
    pub users: usize,
    pub requests: u64,
    pub requests_unanswered: u64,
    pub searches: u64,
    pub webhooks: u64,
    pub plan_changes: u64,
    pub weekly_passes_completed: usize,
    pub harvests_completed: usize,
    pub digests: usize,
    pub mails_delivered: usize,
    pub mails_repeated: usize,
    /// Mails a kill interrupted on their way to the SMTP server: kept aside as dead mail, never
    /// sent again.
    pub mails_interrupted: usize,
    /// Of those, the ones that never arrived (the kill came before the server had them).
    pub mails_interrupted_missing: usize,
    pub papers_indexed: u64,
    pub slowest_restart_ms: u128,
    pub seconds: f64,
}

/// Runs the scenario; an error is a broken invariant (or a peer that would not start), with the
/// data directory kept for a look. `progress` gets a line per kill.
pub async fn run(config: &CrashConfig, progress: &mut dyn FnMut(&str)) -> anyhow::Result<CrashReport> {
    let started = Instant::now();
    let mut rng = Rng::new(config.seed);
    progress(&format!("crash: seed {} ({} kills, {} users)", config.seed, config.kills, config.users));
    let maildev = Maildev::start().await;
    let stripe = LocalStripe::start().await;
    let replay = ReplayServer::start().await;
    replay.on(ESEARCH).reply(
        Reply::fixture("pubmed/esearch_xml_usehistory_webenv_reldate60_edat_retmax100.xml").replace("<Count>42249</Count>", "<Count>20</Count>"),
    );
    replay.on(EFETCH).reply(Reply::fixture(PUBMED_BATCH));
    replay.on(ARXIV).reply(Reply::fixture(ARXIV_PAGE));
    let fixtures = recorded_fixtures()?;

    let work_dir = tempfile::Builder::new().prefix("papertide-crash-").tempdir().context("a temporary data directory")?;
    let port = testkit::free_port();
    // A model in the operator's environment would make every start load it: the run is lexical
    // (the data directory has no model of its own).
    let binary = Binary::new(&config.binary, work_dir.path().join("data"), port)
        .unset("PAPERTIDE_EMBED_MODEL_DIR")
        .unset("PAPERTIDE_CONFIG")
        .unset("PAPERTIDE_LLM_URL")
        .log(Log::File(work_dir.path().join("papertide.log")));
    let binary = Binary { env: server_env(port, &maildev, &stripe, &replay), ..binary };
    let outcome = drive(config, &mut rng, &binary, &maildev, &stripe, &replay, &fixtures, progress).await;
    match outcome {
        Ok(mut report) => {
            report.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
            Ok(report)
        }
        Err(error) => {
            let kept = work_dir.keep();
            Err(error.context(format!("seed {}; data directory and log kept in {}", config.seed, kept.display())))
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn drive(
    config: &CrashConfig,
    rng: &mut Rng,
    binary: &Binary,
    maildev: &Maildev,
    stripe: &LocalStripe,
    replay: &ReplayServer,
    fixtures: &Fixtures,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<CrashReport> {
    let base = binary.base_url();
    let mut users = Vec::new();
    for number in 0..config.users {
        users.push(User::new(format!("researcher{number}@crash.example.org"), &base)?);
    }
    let mut observed = Observed::default();
    let mut tally = Tally::default();
    let mut kills: Vec<KillPoint> = Vec::new();
    let mut restarts = 0;
    let mut slowest_restart = Duration::ZERO;
    let mut week = 0i64;
    let (mut weekly_passes, mut harvests) = (0, 0);
    let (mut weekly_lifetime, mut harvest_lifetime) = (Lifetime::default(), Lifetime::default());

    while kills.len() < config.kills {
        let mut child = binary.spawn_serve(&[])?;
        let took = wait_until_healthy(&mut child, &base, RESTART_LIMIT).await.with_context(|| format!("start after {} kills", kills.len()))?;
        slowest_restart = slowest_restart.max(took);
        restarts += 1;
        let point = serve_life(&mut child, rng, &mut users, maildev, stripe, replay, &mut tally).await?;
        kills.push(point);
        progress(&format!("{} kill {:>3}: serve, {point:?}", Utc::now().format("%H:%M:%S%.3f"), kills.len()));

        // While the service is down: the operator's commands, killed in turn.
        if kills.len() < config.kills && rng.chance(30) {
            let killed = weekly_pass(binary, rng, week, &mut weekly_lifetime).await?;
            match killed {
                Some(point) => {
                    kills.push(point);
                    progress(&format!("{} kill {:>3}: weekly pass of week {week}", Utc::now().format("%H:%M:%S%.3f"), kills.len()));
                }
                None => {
                    weekly_passes += 1;
                    week += 1;
                }
            }
        }
        if kills.len() < config.kills && rng.chance(25) {
            match harvest(binary, rng, &mut harvest_lifetime).await? {
                Some(point) => {
                    kills.push(point);
                    progress(&format!("{} kill {:>3}: harvest", Utc::now().format("%H:%M:%S%.3f"), kills.len()));
                }
                None => harvests += 1,
            }
        }
        checks::check_data_dir(&binary.data_dir, &mut users, fixtures, &mut observed)
            .with_context(|| format!("after kill {} ({:?})", kills.len(), kills.last()))?;
    }

    // The end: one more start, every in-doubt action settled, the mail drained, a clean stop.
    let mut child = binary.spawn_serve(&[])?;
    wait_until_healthy(&mut child, &base, RESTART_LIMIT).await.context("the last start")?;
    restarts += 1;
    settle(&mut users, rng, maildev, stripe, &mut tally).await;
    wait_for_drained_queue(&base).await?;
    stop(&mut child).await?;
    checks::check_data_dir(&binary.data_dir, &mut users, fixtures, &mut observed).context("at the end")?;
    let mailbox = MailBox { mails: maildev.emails().await };
    let repeated = mailbox.repeated_message_ids();
    refuse_repeated_mail(&mailbox, &repeated, &binary.data_dir)?;
    let (mails_interrupted, mails_interrupted_missing) = checks::check_final_mail(&binary.data_dir, &users, &mailbox, &mut observed)?;

    let digests = digest_count(&binary.data_dir)?;
    let index = index::PaperIndex::open_or_create(&server::index_dir(&binary.data_dir))?;
    let kills_by_point = kills_by_point(&kills)?;
    Ok(CrashReport {
        seed: config.seed,
        kills: kills.len(),
        kills_by_point,
        restarts,
        checks_passed: observed.checks_passed,
        users: users.iter().filter(|user| user.signed_up).count(),
        requests: tally.requests,
        requests_unanswered: tally.unanswered,
        searches: tally.searches,
        webhooks: tally.webhooks,
        plan_changes: tally.plan_changes,
        weekly_passes_completed: weekly_passes,
        harvests_completed: harvests,
        digests,
        mails_delivered: mailbox.mails.len(),
        mails_repeated: repeated.values().map(|times| times - 1).sum(),
        mails_interrupted,
        mails_interrupted_missing,
        papers_indexed: index.paper_count()?,
        slowest_restart_ms: slowest_restart.as_millis(),
        seconds: 0.0,
    })
}

/// Fails the run when maildev got a Message-ID more than once: names each with its recipient,
/// subject and arrival times, and keeps every copy beside the data directory.
fn refuse_repeated_mail(mailbox: &MailBox, repeated: &std::collections::BTreeMap<String, usize>, data_dir: &std::path::Path) -> anyhow::Result<()> {
    if repeated.is_empty() {
        return Ok(());
    }
    let copies: Vec<String> = repeated
        .iter()
        .map(|(id, times)| {
            let arrivals: Vec<String> = mailbox
                .mails
                .iter()
                .filter(|mail| checks::message_id(mail) == *id)
                .map(|mail| mail["time"].as_str().unwrap_or_default().to_owned())
                .collect();
            let first = mailbox.mails.iter().find(|mail| checks::message_id(mail) == *id);
            let (to, subject) = first.map_or((String::new(), String::new()), |mail| (workload::recipient(mail), mail["subject"].to_string()));
            format!("{id} to {to} {subject}: {times} times, arrived {arrivals:?}")
        })
        .collect();
    let all: Vec<&serde_json::Value> = mailbox.mails.iter().filter(|mail| repeated.contains_key(&checks::message_id(mail))).collect();
    let kept = data_dir.with_file_name("repeated-mail.json");
    std::fs::write(&kept, serde_json::to_vec_pretty(&all)?).context("keeping the repeated mail")?;
    bail!("mail sent twice: {} Message-IDs repeated (as maildev has them: {}):\n{}", repeated.len(), kept.display(), copies.join("\n"));
}

/// The digests the database holds at the end, of every user.
fn digest_count(data_dir: &std::path::Path) -> anyhow::Result<usize> {
    let store = store::Store::open(&server::db_dir(data_dir))?;
    let mut digests = 0;
    for user in store.accounts().users()? {
        digests += store.digests().of_user(user.id)?.len();
    }
    Ok(digests)
}

/// How many kills landed at each point, by the point's name in the report.
fn kills_by_point(kills: &[KillPoint]) -> anyhow::Result<std::collections::BTreeMap<String, usize>> {
    let mut by_point = std::collections::BTreeMap::new();
    for point in kills {
        let name = serde_json::to_value(point)?.as_str().unwrap_or_default().to_owned();
        *by_point.entry(name).or_insert(0) += 1;
    }
    Ok(by_point)
}

/// One life of `serve`: users act while a trigger picked by the seed waits for its moment, then
/// SIGKILL. Answers where the kill landed.
#[allow(clippy::too_many_arguments)]
async fn serve_life(
    child: &mut Child,
    rng: &mut Rng,
    users: &mut [User],
    maildev: &Maildev,
    stripe: &LocalStripe,
    replay: &ReplayServer,
    tally: &mut Tally,
) -> anyhow::Result<KillPoint> {
    let wanted = *rng.pick(&[
        KillPoint::Random,
        KillPoint::Random,
        KillPoint::Mailing,
        KillPoint::Mailing,
        KillPoint::Webhook,
        KillPoint::Search,
        KillPoint::PlanChange,
        KillPoint::ServeHarvest,
    ]);
    let delay_ms = rng.below(2_500);
    let jitter_ms = rng.below(40);
    let mut workload_rng = Rng::new(rng.next_u64());
    let in_flight = InFlight::default();
    let mails_before = maildev.emails().await.len();
    let requests_before = replay.requests().len();
    let steps = 200;

    let trigger = async {
        let deadline = Instant::now() + Duration::from_millis(4_000 + delay_ms);
        let began = Instant::now();
        loop {
            let now = Instant::now();
            let due = match wanted {
                KillPoint::Random => now >= began + Duration::from_millis(delay_ms),
                KillPoint::Webhook => in_flight.webhook.get(),
                KillPoint::Search => in_flight.search.get(),
                KillPoint::PlanChange => in_flight.plan_change.get(),
                KillPoint::Mailing => maildev.emails().await.len() > mails_before,
                KillPoint::ServeHarvest => replay.requests().len() > requests_before,
                KillPoint::Harvest | KillPoint::Weekly => false,
            };
            if due {
                tokio::time::sleep(Duration::from_millis(jitter_ms)).await;
                return wanted;
            }
            if now >= deadline {
                // The moment never came this life (nothing to mail, harvest done): a random kill.
                return KillPoint::Random;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    let acting = workload::act(users, &mut workload_rng, maildev, stripe, &in_flight, tally, steps);
    let point = tokio::select! {
        point = trigger => point,
        () = acting => KillPoint::Random,
    };
    kill(child)?;
    Ok(point)
}

/// How long a command took to run to its end the last time, so that a kill lands within a run: the
/// runs of a release build on a small data directory end in a fraction of a second.
#[derive(Default)]
struct Lifetime(Option<Duration>);

impl Lifetime {
    /// Before any run ended, kills are spread over the first 1.5 s.
    const UNKNOWN: Duration = Duration::from_millis(1_500);

    /// A random moment within the last run's lifetime (at least 5 ms into it).
    fn random_moment(&self, rng: &mut Rng) -> Duration {
        let lifetime_ms = self.0.unwrap_or(Self::UNKNOWN).as_millis().max(6) as u64;
        Duration::from_millis(5 + rng.below(lifetime_ms - 5))
    }
}

/// Runs `child`, killed at a random moment of its lifetime with probability 70%. `Some(point)`
/// when it was killed; `None` when it ran to a successful end (else an error naming `what`).
async fn run_or_kill(mut child: Child, rng: &mut Rng, lifetime: &mut Lifetime, point: KillPoint, what: &str) -> anyhow::Result<Option<KillPoint>> {
    let started = Instant::now();
    if rng.chance(70) {
        tokio::time::sleep(lifetime.random_moment(rng)).await;
        if child.try_wait()?.is_none() {
            kill(&mut child)?;
            return Ok(Some(point));
        }
    }
    let status = wait_for_exit(&mut child, Duration::from_secs(300)).await?;
    if !status.success() {
        bail!("papertide {what} failed ({status}); see the log");
    }
    // The last run's, as the next does about as much (a killed weekly pass is done again).
    lifetime.0 = Some(started.elapsed());
    Ok(None)
}

/// `papertide weekly --at` the Monday of `week` weeks after the first one a new user is due,
/// killed at a random moment with probability 70%. `Some` when it was killed.
async fn weekly_pass(binary: &Binary, rng: &mut Rng, week: i64, lifetime: &mut Lifetime) -> anyhow::Result<Option<KillPoint>> {
    let today = Utc::now().date_naive();
    let first_monday = (4..=11).map(|days| today + chrono::Duration::days(days)).find(|day| day.weekday() == chrono::Weekday::Mon).unwrap_or(today);
    let day = first_monday + chrono::Duration::weeks(week);
    let at = Utc.from_utc_datetime(&day.and_hms_opt(9, 0, 0).unwrap_or_default()).to_rfc3339();
    let child = binary.spawn(&["weekly", "--at", &at])?;
    run_or_kill(child, rng, lifetime, KillPoint::Weekly, &format!("weekly --at {at}")).await
}

/// `papertide harvest --source pubmed` over a random window of the last ten days, killed at a
/// random moment with probability 70%. `Some` when it was killed.
async fn harvest(binary: &Binary, rng: &mut Rng, lifetime: &mut Lifetime) -> anyhow::Result<Option<KillPoint>> {
    let today = Utc::now().date_naive();
    let until = today - chrono::Duration::days(rng.below(7) as i64);
    let since = until - chrono::Duration::days(rng.below(4) as i64);
    let (since, until) = (since.to_string(), until.to_string());
    let child = binary.spawn(&["harvest", "--source", "pubmed", "--since", &since, "--until", &until])?;
    run_or_kill(child, rng, lifetime, KillPoint::Harvest, &format!("harvest --since {since} --until {until}")).await
}

/// Every user finishes what was in doubt: signed up, verified, events delivered, plans repaired.
async fn settle(users: &mut [User], rng: &mut Rng, maildev: &Maildev, stripe: &LocalStripe, tally: &mut Tally) {
    let in_flight = InFlight::default();
    for _ in 0..20 {
        let unsettled = users.iter().any(|user| !user.verified || user.pending_event.is_some() || user.plan_in_doubt);
        if !unsettled {
            return;
        }
        for user in users.iter_mut() {
            if !user.verified || user.pending_event.is_some() || user.plan_in_doubt {
                workload::act(std::slice::from_mut(user), rng, maildev, stripe, &in_flight, tally, 1).await;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the service reports its mail queue empty.
async fn wait_for_drained_queue(base: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let http = reqwest::Client::new();
    loop {
        let health: serde_json::Value = http.get(format!("{base}/healthz")).send().await?.json().await?;
        if health["mail"]["queued"] == 0 {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the mail queue did not drain: {}", health["mail"]);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// SIGTERM: a clean stop that flushes.
async fn stop(child: &mut Child) -> anyhow::Result<()> {
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().context("sending SIGTERM")?;
    if !sent.success() {
        bail!("kill -TERM {pid} failed");
    }
    let status = wait_for_exit(child, Duration::from_secs(30)).await?;
    if !status.success() {
        bail!("the service stopped with {status} on SIGTERM");
    }
    Ok(())
}

fn server_env(port: u16, maildev: &Maildev, stripe: &LocalStripe, replay: &ReplayServer) -> Vec<(String, String)> {
    let generous = "100000/1h";
    let mut env: Vec<(String, String)> = vec![
        ("PAPERTIDE_PUBLIC_URL", format!("http://127.0.0.1:{port}")),
        ("PAPERTIDE_SMTP_URL", maildev.smtp_url()),
        ("PAPERTIDE_LOG", "info".into()),
        ("PAPERTIDE_LIVE_SEARCH", "false".into()),
        ("PAPERTIDE_HARVEST_SOURCES", "pubmed,arxiv".into()),
        ("PAPERTIDE_HARVEST_LOOKBACK_DAYS", "3".into()),
        ("PAPERTIDE_PUBMED_URL", replay.url("/entrez/eutils/").to_string()),
        ("PAPERTIDE_ARXIV_URL", replay.url(ARXIV).to_string()),
        ("PAPERTIDE_BIORXIV_URL", replay.url("/").to_string()),
        ("PAPERTIDE_NCBI_EMAIL", "ops@crash.example.org".into()),
        ("PAPERTIDE_STRIPE_SECRET_KEY", stripe.secret_key().into()),
        ("PAPERTIDE_STRIPE_PUBLISHABLE_KEY", stripe.publishable_key().into()),
        ("PAPERTIDE_STRIPE_WEBHOOK_SECRET", workload::WEBHOOK_SECRET.into()),
        ("PAPERTIDE_STRIPE_API_URL", stripe.api_url()),
        ("PAPERTIDE_STRIPE_JS_URL", stripe.js_url()),
        ("PAPERTIDE_STRIPE_PRICE_PRO", stripe.plan_pro().into()),
        ("PAPERTIDE_STRIPE_PRICE_TEAM", stripe.plan_team().into()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    for limit in ["LOGIN", "LOGIN_ACCOUNT", "SIGNUP", "FORGOT_PASSWORD", "RESEND", "RESET_PASSWORD", "IMMEDIATE_SEARCH", "RESEND_EMAIL", "TEST_EMAIL"]
    {
        env.push((format!("PAPERTIDE_RATE_LIMIT_{limit}"), generous.to_owned()));
    }
    env
}

/// The recorded papers the replay server answers with, by source, as their dedup keys.
fn recorded_fixtures() -> anyhow::Result<Fixtures> {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/fixtures");
    let pubmed = std::fs::read_to_string(fixtures.join(PUBMED_BATCH))?;
    let arxiv = std::fs::read_to_string(fixtures.join(ARXIV_PAGE))?;
    let keys = |papers: Vec<engine::paper::Paper>| papers.iter().map(engine::dedup::dedup_keys).collect::<Vec<_>>();
    let mut works = std::collections::BTreeMap::new();
    works.insert(Source::Pubmed, keys(engine::parse::pubmed::parse_efetch(&pubmed).items));
    works.insert(Source::Arxiv, keys(engine::parse::arxiv::parse_atom(&arxiv).map_err(|error| anyhow::anyhow!("{error}"))?.papers.items));
    Ok(Fixtures { works })
}
