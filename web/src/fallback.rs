//! The page a binary built without the web client serves: it still handles the two pages mailed
//! links lead to (email verification, password reset), so such a build can be used end to end,
//! and says where the API is for anything else. `make run` always builds the client first.

use actix_web::http::header::{CacheControl, CacheDirective};
use actix_web::HttpResponse;

const PAGE: &str = include_str!("fallback.html");

pub async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(CacheControl(vec![CacheDirective::NoCache]))
        .insert_header((
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ))
        .content_type("text/html; charset=utf-8")
        .body(PAGE)
}
