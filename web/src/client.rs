//! The web client, built by Vite into `web/client/dist` and embedded in the binary (in debug
//! builds it is read from that folder at run time). Hashed assets are cached for a year,
//! `index.html` never; every other path outside `/api` gets `index.html`, with status 200 for the
//! client's routes (the list in `web/client/src/app/routes.json`, shared with the client's router)
//! and 404 for any other path, where the client shows its 'Page Not Found' page. A blog post's
//! address is a route only for a post that exists (the ids in
//! `web/client/src/features/blog/postIds.json`, checked against the client's posts): any other
//! id gets 404 with the client's 'Post Not Found' page.
//! A binary built without the client serves a small built-in page instead (see `fallback`).
//!
//! Also `GET /api/config`: what the client needs to know about this installation.

use std::sync::OnceLock;

use actix_web::http::header::{CacheControl, CacheDirective};
use actix_web::http::Method;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use rust_embed::RustEmbed;

use crate::fallback;
use crate::state::AppState;
use crate::wire::config::{AnalyticsView, ClientConfig, StripeView};

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
            return HttpResponse::Ok().content_type(file.metadata.mimetype()).insert_header(CacheControl(cache)).body(file.data.into_owned());
        }
        // A missing file (an old asset after an upgrade) must not turn into the HTML page.
        let last_segment = path.rsplit('/').next().unwrap_or_default();
        if path.starts_with("assets/") || last_segment.contains('.') {
            return HttpResponse::NotFound().content_type("text/plain; charset=utf-8").body("Not found");
        }
    }
    // Every path gets the client (it shows 'Page Not Found' for paths it does not know), but
    // crawlers and monitors see the truth in the status.
    let status = if is_client_route(request.path()) { StatusCode::OK } else { StatusCode::NOT_FOUND };
    match ClientAssets::get("index.html") {
        Some(index) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .insert_header(CacheControl(vec![CacheDirective::NoCache]))
            .body(index.data.into_owned()),
        None => {
            let mut page = fallback::page().await;
            *page.status_mut() = status;
            page
        }
    }
}

/// The client's routes, one list for the client's router and this server
/// (`web/client/src/app/routes.json`, React Router patterns: `:name` is one path segment).
const CLIENT_ROUTES_JSON: &str = include_str!("../client/src/app/routes.json");

fn client_routes() -> &'static [String] {
    static ROUTES: OnceLock<Vec<String>> = OnceLock::new();
    ROUTES.get_or_init(|| serde_json::from_str(CLIENT_ROUTES_JSON).unwrap_or_default())
}

/// The blog's post ids, one list for the client's posts and this server.
const BLOG_POST_IDS_JSON: &str = include_str!("../client/src/features/blog/postIds.json");

/// The route whose `:id` must be one of the blog's posts.
const BLOG_POST_ROUTE: &str = "/blog/:id";

fn blog_post_ids() -> &'static [String] {
    static IDS: OnceLock<Vec<String>> = OnceLock::new();
    IDS.get_or_init(|| serde_json::from_str(BLOG_POST_IDS_JSON).unwrap_or_default())
}

/// Whether the client has a page at `path` (a trailing slash aside): a route of the list, with
/// a blog post's id naming a post that exists.
pub fn is_client_route(path: &str) -> bool {
    let path = if path.len() > 1 { path.trim_end_matches('/') } else { path };
    let segments: Vec<&str> = path.split('/').collect();
    client_routes().iter().any(|pattern| {
        let pattern_segments: Vec<&str> = pattern.split('/').collect();
        let is_blog_post = pattern == BLOG_POST_ROUTE;
        pattern_segments.len() == segments.len()
            && pattern_segments.iter().zip(&segments).all(|(expected, actual)| {
                if !expected.starts_with(':') {
                    expected == actual
                } else if is_blog_post {
                    blog_post_ids().iter().any(|id| id == actual)
                } else {
                    !actual.is_empty()
                }
            })
    })
}

/// `GET /api/config`: the support address, the analytics provider (none unless configured; the
/// client loads it only after consent), whether billing is on, and whether paid plans get a more
/// advanced chat model than the free plan.
pub async fn config(state: web::Data<AppState>) -> web::Json<ClientConfig> {
    web::Json(ClientConfig {
        analytics: state.settings.analytics.as_ref().map(AnalyticsView::from),
        billing_enabled: state.billing.is_some(),
        advanced_model: state.settings.llm.as_ref().is_some_and(|llm| llm.model_advanced.as_ref().is_some_and(|advanced| *advanced != llm.model)),
        plans: engine::Tier::ALL.into_iter().map(crate::wire::workflows::PlanEntitlements::from).collect(),
        stripe: state.billing.as_ref().map(|billing| StripeView {
            js_url: billing.settings().js_url.as_str().to_owned(),
            publishable_key: billing.settings().publishable_key.clone(),
        }),
        support_email: state.settings.support_email.clone(),
    })
}

#[cfg(test)]
mod route_tests {
    use super::*;

    #[test]
    fn the_shared_list_names_every_page_of_the_spec() {
        for path in ["/", "/auth", "/dashboard", "/blog", "/blog/how-to-write-review-article", "/verify-email", "/dashboard/"] {
            assert!(is_client_route(path), "{path}");
        }
        // Spec §2: /subscribe/fix-payment is referenced but not registered: Page Not Found.
        for path in ["/no/such/page", "/blog/a/b", "/dashboards", "/blog//x", "/auth/extra", "/blog/nope", "/subscribe/fix-payment"] {
            assert!(!is_client_route(path), "{path}");
        }
        assert!(client_routes().len() >= 20, "the list parsed: {:?}", client_routes());
        assert!(client_routes().iter().any(|route| route == BLOG_POST_ROUTE), "the blog post route is in the list");
    }

    #[test]
    fn a_blog_post_is_a_route_only_when_the_post_exists() {
        assert_eq!(blog_post_ids().len(), 4, "the list parsed: {:?}", blog_post_ids());
        for id in blog_post_ids() {
            assert!(is_client_route(&format!("/blog/{id}")), "{id}");
            assert!(is_client_route(&format!("/blog/{id}/")), "{id}/");
        }
        for path in ["/blog/nope", "/blog/how-to-write-review-article-2", "/blog/LLM-SCIENTIFIC-REVIEW"] {
            assert!(!is_client_route(path), "{path}");
        }
    }
}
