//! The web client, built by Vite into `web/client/dist` and embedded in the binary (in debug
//! builds it is read from that folder at run time). Hashed assets are cached for a year,
//! `index.html` never; every other path outside `/api` is a client route and gets `index.html`.
//! A binary built without the client serves a small built-in page instead (see `fallback`).
//!
//! Also `GET /api/config`: what the client needs to know about this installation.

use actix_web::http::header::{CacheControl, CacheDirective};
use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};
use rust_embed::RustEmbed;
use serde_json::json;

use crate::fallback;
use crate::state::AppState;

#[derive(RustEmbed)]
#[folder = "client/dist"]
#[allow_missing = true]
struct ClientAssets;

const ONE_YEAR_SECS: u32 = 365 * 24 * 3600;
const ONE_HOUR_SECS: u32 = 3600;

/// Whether this binary carries the built client.
pub fn is_embedded() -> bool {
    ClientAssets::get("index.html").is_some()
}

/// Every non-API path: a client file, or the client's `index.html` for client routes.
pub async fn serve(request: HttpRequest) -> HttpResponse {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        return HttpResponse::MethodNotAllowed().insert_header(("Allow", "GET, HEAD")).finish();
    }
    let path = request.path().trim_start_matches('/');
    if !path.is_empty() {
        if let Some(file) = ClientAssets::get(path) {
            let max_age = if path.starts_with("assets/") { ONE_YEAR_SECS } else { ONE_HOUR_SECS };
            let mut cache = vec![CacheDirective::Public, CacheDirective::MaxAge(max_age)];
            if path.starts_with("assets/") {
                cache.push(CacheDirective::Extension("immutable".into(), None));
            }
            return HttpResponse::Ok()
                .content_type(file.metadata.mimetype())
                .insert_header(CacheControl(cache))
                .body(file.data.into_owned());
        }
        // A missing file (an old asset after an upgrade) must not turn into the HTML page.
        let last_segment = path.rsplit('/').next().unwrap_or_default();
        if path.starts_with("assets/") || last_segment.contains('.') {
            return HttpResponse::NotFound().content_type("text/plain; charset=utf-8").body("Not found");
        }
    }
    match ClientAssets::get("index.html") {
        Some(index) => HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .insert_header(CacheControl(vec![CacheDirective::NoCache]))
            .body(index.data.into_owned()),
        None => fallback::page().await,
    }
}

/// `GET /api/config`: the support address, the analytics provider (none unless configured; the
/// client loads it only after consent) and whether billing is on.
pub async fn config(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "supportEmail": state.settings.support_email,
        "analytics": state.settings.analytics,
        "billingEnabled": false,
    }))
}
