//! Liveness and metrics: `/healthz` (JSON) and `/metrics` (Prometheus text).

use std::fmt::Write;

use actix_web::{web, HttpRequest, HttpResponse};
use actors::Harvester;
use chrono::Utc;
use engine::harvest::HarvestState;
use engine::paper::Source;
use serde_json::{json, Value};
use sha2::Digest;
use subtle::ConstantTimeEq;

use crate::auth::SignedIn;
use crate::state::AppState;

/// Each source's harvest state, as stored (the empty state when unreadable).
fn harvest_states(state: &AppState) -> Vec<(Source, HarvestState)> {
    Source::ALL
        .into_iter()
        .map(|source| {
            let harvest = state.store.papers().harvest_state(source).unwrap_or_else(|error| {
                tracing::error!(%error, %source, "reading the harvest state");
                HarvestState::default()
            });
            (source, harvest)
        })
        .collect()
}

/// A source's harvest for `/healthz`: its cursor, last success and error, this week's papers,
/// restarts and next run.
fn source_status(state: &AppState, source: Source, harvest: &HarvestState) -> Value {
    let now = Utc::now();
    let enabled = state.settings.harvest.sources.contains(&source);
    let actor = state.board.get(Harvester::actor_name(source)).unwrap_or_default();
    json!({
        "enabled": enabled,
        "healthy": harvest.is_healthy(),
        "running": actor.busy,
        "cursor": harvest.cursor,
        "lastSuccessAt": harvest.last_success_at,
        "lastErrorAt": harvest.last_error_at,
        "lastError": harvest.last_error,
        "consecutiveFailures": harvest.consecutive_failures,
        "papersThisWeek": harvest.papers_in_week_of(now.date_naive()),
        "papersAddedTotal": harvest.papers_added_total,
        "recordsTotal": harvest.records_total,
        "restarts": actor.restarts,
        "nextRunAt": (enabled && !actor.busy).then(|| harvest.next_run_at(now, state.settings.harvest.hour)),
        "lastDay": harvest.last_day,
    })
}

/// The LLM's state: `null` when none is configured (expansion and summaries are local).
fn llm_status(state: &AppState) -> Value {
    let Some(llm) = state.digester.llm() else { return Value::Null };
    let stats = llm.stats();
    json!({
        "model": llm.model(actors::ModelClass::Standard),
        "modelAdvanced": llm.model(actors::ModelClass::Advanced),
        "calls": stats.calls,
        "failures": stats.failures,
        "skipped": stats.skipped,
        "lastError": stats.last_error,
        // While open, calls are skipped and the local expansion and summaries stand in.
        "fallingBack": stats.breaker_open,
    })
}

/// The sentence-embedding model: its name, the runtime it runs in, the start of its weights'
/// fingerprint, how far the vectorizer got, its rate since start and the hours left at that rate
/// (null until a batch was embedded); `model: null` and lexical ranking when none is loaded.
/// Nothing in it is any user's.
fn embeddings_status(state: &AppState) -> Value {
    let Some(model) = &state.embedding else {
        return json!({ "model": null, "ranking": "lexical" });
    };
    let vectorizer = state.board.get(actors::vectorizer::ACTOR_NAME).unwrap_or_default();
    let fingerprint = model.embedder.fingerprint();
    json!({
        "model": model.name,
        "runtime": model.runtime.name(),
        "fingerprint": fingerprint.get(..FINGERPRINT_SHOWN).unwrap_or(fingerprint),
        "papersEmbedded": vectorizer.up_to_date,
        "papersWaiting": vectorizer.queue_depth,
        "papersPerSecond": vectorizer.per_second().map(|rate| (rate * 10.0).round() / 10.0),
        "hoursLeft": vectorizer.hours_left(),
    })
}

/// The hex digits of the model's fingerprint `/healthz` shows: enough to tell models apart.
const FINGERPRINT_SHOWN: usize = 16;

/// The data directory's disk: writes are refused while it is under the reserve
/// (`PAPERTIDE_MIN_FREE_DISK_MB`).
fn disk_status(room: &store::RoomStatus) -> Value {
    json!({
        "writable": room.writable,
        "availableBytes": room.available_bytes,
        "reserveBytes": room.reserve_bytes,
    })
}

/// `GET /healthz`: 200 with the state of the database and every actor; 503 when the database
/// cannot be read (`status: "unavailable"`) or its disk is full, so writes are refused
/// (`status: "disk_full"`; reads go on).
///
/// Anyone may read it: it holds states, times and counts, nothing of any user. The text of the
/// last errors (a mail server's refusal can name an address, a source's the request it
/// failed) is shown to operators only (`users grant-admin`, or an admin email in the settings),
/// signed in; everyone else sees when the error happened, not what it said.
pub async fn healthz(state: web::Data<AppState>, viewer: Option<SignedIn>) -> HttpResponse {
    let is_operator = viewer.is_some_and(|viewer| crate::auth::is_operator(&viewer.user, &state.settings));
    let database = state.store.schema_version();
    let room = state.store.disk_room();
    let status = match (&database, room.writable) {
        (Err(_), _) => "unavailable",
        (Ok(_), false) => "disk_full",
        (Ok(_), true) => "ok",
    };
    let body = json!({
        "status": status,
        "version": env!("CARGO_PKG_VERSION"),
        "uptimeSecs": state.started_at.elapsed().as_secs(),
        "schemaVersion": database.as_ref().ok(),
        "users": state.store.accounts().user_count(),
        "mail": {
            "transport": if state.settings.smtp_url.is_some() { "smtp" } else { "outbox" },
            "queued": state.store.mail().queue_len(),
            "dead": state.store.mail().dead_len(),
        },
        "index": { "papers": state.index.paper_count().ok() },
        "disk": disk_status(&room),
        "llm": llm_status(&state),
        "embeddings": embeddings_status(&state),
        "sources": harvest_states(&state)
            .iter()
            .map(|(source, harvest)| (source.as_str().to_owned(), source_status(&state, *source, harvest)))
            .collect::<serde_json::Map<String, Value>>(),
        "actors": state.board.snapshot(),
    });
    let body = if is_operator { body } else { without_error_texts(body) };
    match database {
        Ok(_) if room.writable => HttpResponse::Ok().json(body),
        Ok(_) => {
            tracing::warn!(available_bytes = room.available_bytes, reserve_bytes = room.reserve_bytes, "the data directory's disk is full");
            HttpResponse::ServiceUnavailable().json(body)
        }
        Err(error) => {
            tracing::error!(%error, "health check cannot read the database");
            HttpResponse::ServiceUnavailable().json(body)
        }
    }
}

/// `value` with every `lastError` field, at any depth, removed.
fn without_error_texts(mut value: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                fields.remove("lastError");
                fields.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

/// Whether `request` may read `/metrics`: always when no token is set, else only with
/// `Authorization: Bearer TOKEN` (compared in constant time).
fn may_read_metrics(state: &AppState, request: &HttpRequest) -> bool {
    let Some(token) = &state.settings.metrics_token else {
        return true;
    };
    let given = request.headers().get("authorization").and_then(|value| value.to_str().ok()).and_then(|value| value.strip_prefix("Bearer "));
    let (Some(given), expected) = (given, token.as_bytes()) else {
        return false;
    };
    // Hashed first, so the comparison takes as long whatever the lengths.
    let digest = |bytes: &[u8]| -> [u8; 32] { sha2::Sha256::digest(bytes).into() };
    let (given, expected) = (digest(given.trim().as_bytes()), digest(expected));
    given.ct_eq(&expected).into()
}

/// `GET /metrics`: counters and gauges in the Prometheus text format; with
/// `PAPERTIDE_METRICS_TOKEN` set, only for `Authorization: Bearer TOKEN` (else 401).
pub async fn metrics(state: web::Data<AppState>, request: HttpRequest) -> HttpResponse {
    if !may_read_metrics(&state, &request) {
        let refusal = crate::error::ApiError::new(crate::error::ErrorCode::MetricsTokenRequired, "This server's metrics need its metrics token.");
        let mut answer = actix_web::ResponseError::error_response(&refusal);
        answer.headers_mut().insert(actix_web::http::header::WWW_AUTHENTICATE, actix_web::http::header::HeaderValue::from_static("Bearer"));
        return answer;
    }
    let mut out = Exposition::default();
    storage_metrics(&mut out, &state);
    hashing_metrics(&mut out, &state);
    connection_metrics(&mut out, &state);
    source_metrics(&mut out, &state);
    actor_metrics(&mut out, &state);
    HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(out.0)
}

/// The Prometheus text exposition, written metric by metric.
#[derive(Default)]
struct Exposition(String);

impl Exposition {
    fn metric(&mut self, kind: &str, name: &str, help: &str, value: u64) {
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}");
    }

    fn gauge(&mut self, name: &str, help: &str, value: u64) {
        self.metric("gauge", name, help, value);
    }

    fn counter(&mut self, name: &str, help: &str, value: u64) {
        self.metric("counter", name, help, value);
    }

    /// One metric with a value per member, labelled `label="member"`.
    fn family<M: std::fmt::Display + Copy, T>(
        &mut self,
        kind: &str,
        name: &str,
        help: &str,
        label: &str,
        members: impl IntoIterator<Item = (M, T)>,
        value: impl Fn(M, T) -> u64,
    ) {
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (member, of) in members {
            let _ = writeln!(self.0, "{name}{{{label}=\"{member}\"}} {}", value(member, of));
        }
    }
}

/// The database, the disk, the index and its vectors.
fn storage_metrics(out: &mut Exposition, state: &AppState) {
    out.gauge("papertide_users", "Accounts in the database.", state.store.accounts().user_count() as u64);
    out.gauge("papertide_mail_queue_depth", "Mails waiting to be sent.", state.store.mail().queue_len() as u64);
    out.gauge("papertide_mail_dead", "Mails given up on.", state.store.mail().dead_len() as u64);
    out.gauge("papertide_uptime_seconds", "Seconds since the service started.", state.started_at.elapsed().as_secs());
    out.gauge("papertide_database_bytes", "Database size on disk.", state.store.size_on_disk_bytes().unwrap_or(0));
    let room = state.store.disk_room();
    out.gauge("papertide_disk_available_bytes", "Free bytes on the data directory's disk.", room.available_bytes.unwrap_or(0));
    out.gauge("papertide_disk_writable", "1 while writes are accepted, 0 while the disk is under its reserve.", u64::from(room.writable));

    out.gauge("papertide_index_papers", "Papers (works) in the index.", state.index.paper_count().unwrap_or(0));
    let vectorizer = state.board.get(actors::vectorizer::ACTOR_NAME).unwrap_or_default();
    out.gauge("papertide_papers_embedded", "Papers with a vector of the embedding model (0 without a model).", vectorizer.up_to_date);
    out.gauge(
        "papertide_papers_waiting_for_embedding",
        "Papers without a vector of the embedding model, or with one of an older text (0 without a model).",
        vectorizer.queue_depth,
    );
}

/// The password hasher's threads and queue.
fn hashing_metrics(out: &mut Exposition, state: &AppState) {
    let hashing = state.hasher.stats();
    out.gauge("papertide_password_hash_workers", "Threads that hash passwords (at most this many hashes run at once).", hashing.workers as u64);
    out.gauge("papertide_password_hashes_running", "Password hashes running now.", hashing.running as u64);
    out.gauge("papertide_password_hashes_queued", "Password hashes waiting for a thread.", hashing.queued as u64);
    out.counter("papertide_password_hashes_total", "Password hashes and checks done.", hashing.completed);
    out.counter("papertide_password_hash_busy_total", "Requests refused with 503 because the hashing queue was full.", hashing.refused_busy);
}

/// The rate limiter, the connection caps and deadlines, and the log.
fn connection_metrics(out: &mut Exposition, state: &AppState) {
    out.counter(
        "papertide_rate_limiter_evicted_total",
        "Open rate-limit counters dropped to keep the limiter within its size.",
        state.limiter.evicted_total(),
    );
    let connections = state.connections.stats();
    out.counter(
        "papertide_connections_refused_total",
        "Connections answered 503 and closed because the server, their address or their network was at its cap.",
        connections.refused_total,
    );
    out.counter(
        "papertide_connections_deadline_closed_total",
        "Connections answered 408 and closed because, under pressure, their request head did not arrive within the short deadline.",
        connections.deadline_closed_total,
    );
    out.counter(
        "papertide_request_body_timeouts_total",
        "Requests answered 408 because their body did not arrive in time.",
        crate::deadline::body_timeouts(),
    );
    out.counter(
        "papertide_log_lines_dropped_total",
        "Log lines that could not be written (a full disk, a closed pipe) and were dropped.",
        crate::logging::dropped_lines(),
    );
    out.gauge("papertide_rate_limiter_entries", "Rate-limit counters kept in memory (bounded).", state.limiter.len() as u64);
    out.gauge("papertide_connections_open", "Connections open now.", connections.open as u64);
    out.gauge("papertide_connections_max", "Connections served at once, at most.", connections.max_total as u64);
    out.gauge("papertide_connection_addresses", "Client addresses with a connection open now.", connections.addresses as u64);
    out.gauge("papertide_connection_networks", "Client networks (IPv4 /24, IPv6 /48) with a connection open now.", connections.networks as u64);
}

/// Each source's harvests, labelled `source`.
fn source_metrics(out: &mut Exposition, state: &AppState) {
    let today = Utc::now().date_naive();
    let harvests = harvest_states(state);
    let mut per_source = |kind: &str, name: &str, help: &str, value: &dyn Fn(Source, &HarvestState) -> u64| {
        out.family(kind, name, help, "source", harvests.iter().map(|(source, harvest)| (*source, harvest)), value);
    };
    per_source("gauge", "papertide_source_up", "1 if the source's last harvest succeeded.", &|_, h| u64::from(h.is_healthy()));
    per_source("gauge", "papertide_source_papers_this_week", "New papers a source brought this week.", &|_, h| h.papers_in_week_of(today));
    per_source("counter", "papertide_source_papers_added_total", "New papers a source brought.", &|_, h| h.papers_added_total);
    per_source("counter", "papertide_source_records_total", "Records a source delivered.", &|_, h| h.records_total);
    per_source("counter", "papertide_source_failures_total", "Harvest runs that failed.", &|_, h| h.failures_total);
    per_source("gauge", "papertide_source_last_success_timestamp_seconds", "When a source was last harvested.", &|_, h| {
        h.last_success_at.map_or(0, |at| at.timestamp().max(0) as u64)
    });
    per_source("counter", "papertide_source_restarts_total", "Harvests that stopped abnormally since start.", &|source, _| {
        state.board.get(Harvester::actor_name(source)).map_or(0, |status| u64::from(status.restarts))
    });
}

/// Each actor's work, labelled `actor`.
fn actor_metrics(out: &mut Exposition, state: &AppState) {
    let actors = state.board.snapshot();
    let mut family = |kind: &str, name: &str, help: &str, value: &dyn Fn(&actors::ActorStatus) -> u64| {
        out.family(kind, name, help, "actor", &actors, |_, status| value(status));
    };
    family("counter", "papertide_actor_processed_total", "Units of work an actor completed.", &|s| s.processed_total);
    family("counter", "papertide_actor_failures_total", "Units of work an actor failed.", &|s| s.failed_total);
    family("counter", "papertide_actor_restarts_total", "Supervisor restarts of an actor.", &|s| u64::from(s.restarts));
    family("gauge", "papertide_actor_last_success_timestamp_seconds", "When an actor last succeeded.", &|s| {
        s.last_success_at.map_or(0, |at| at.timestamp().max(0) as u64)
    });
}
