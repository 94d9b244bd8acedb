//! Liveness and metrics: `/healthz` (JSON) and `/metrics` (Prometheus text).

use std::fmt::Write;

use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::state::AppState;

/// `GET /healthz`: 200 with the state of the database and every actor; 503 when the database
/// cannot be read.
pub async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    let database = state.store.schema_version();
    let body = json!({
        "status": if database.is_ok() { "ok" } else { "unavailable" },
        "version": env!("CARGO_PKG_VERSION"),
        "uptimeSecs": state.started_at.elapsed().as_secs(),
        "schemaVersion": database.as_ref().ok(),
        "users": state.store.user_count(),
        "mail": {
            "transport": if state.settings.smtp_url.is_some() { "smtp" } else { "outbox" },
            "queued": state.store.mail_queue_len(),
            "dead": state.store.dead_mail_len(),
        },
        "actors": state.board.snapshot(),
    });
    match database {
        Ok(_) => HttpResponse::Ok().json(body),
        Err(error) => {
            tracing::error!(%error, "health check cannot read the database");
            HttpResponse::ServiceUnavailable().json(body)
        }
    }
}

/// `GET /metrics`: counters and gauges in the Prometheus text format.
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let mut text = String::new();
    let mut gauge = |name: &str, help: &str, value: u64| {
        let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}");
    };
    gauge("papertide_users", "Accounts in the database.", state.store.user_count() as u64);
    gauge("papertide_mail_queue_depth", "Mails waiting to be sent.", state.store.mail_queue_len() as u64);
    gauge("papertide_mail_dead", "Mails given up on.", state.store.dead_mail_len() as u64);
    gauge("papertide_uptime_seconds", "Seconds since the service started.", state.started_at.elapsed().as_secs());
    gauge("papertide_database_bytes", "Database size on disk.", state.store.size_on_disk_bytes().unwrap_or(0));

    let actors = state.board.snapshot();
    let mut family = |name: &str, help: &str, kind: &str, value: &dyn Fn(&actors::ActorStatus) -> u64| {
        let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (actor, status) in &actors {
            let _ = writeln!(text, "{name}{{actor=\"{actor}\"}} {}", value(status));
        }
    };
    family("papertide_actor_processed_total", "Units of work an actor completed.", "counter", &|s| s.processed_total);
    family("papertide_actor_failures_total", "Units of work an actor failed.", "counter", &|s| s.failed_total);
    family("papertide_actor_restarts_total", "Supervisor restarts of an actor.", "counter", &|s| u64::from(s.restarts));
    family("papertide_actor_last_success_timestamp_seconds", "When an actor last succeeded.", "gauge", &|s| {
        s.last_success_at.map_or(0, |at| at.timestamp().max(0) as u64)
    });
    HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(text)
}
