//! Every path outside `/api` is a page of the web client. Until the client is embedded, a small
//! built-in page serves the two pages mailed links lead to (email verification, password reset)
//! so a fresh install can be used end to end, and says where the API is for anything else.

use actix_web::http::header::{CacheControl, CacheDirective};
use actix_web::HttpResponse;

const PAGE: &str = include_str!("fallback.html");

pub async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(CacheControl(vec![CacheDirective::NoCache]))
        .insert_header(("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"))
        .content_type("text/html; charset=utf-8")
        .body(PAGE)
}
