//! `create_app`: the one application factory used by the binary and by the tests.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{from_fn, DefaultHeaders};
use actix_web::{web, App, HttpResponse};

use crate::error::{json_payload_error, query_error, ApiError};
use crate::security::same_origin_guard;
use crate::state::AppState;
use crate::{auth, billing, client, digests, health, terms, users};

/// JSON bodies larger than this are refused with 413; no form needs more.
pub const MAX_JSON_BODY_BYTES: usize = 64 * 1024;

pub fn create_app(
    state: AppState,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::JsonConfig::default().limit(MAX_JSON_BODY_BYTES).error_handler(json_payload_error))
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .wrap(
            DefaultHeaders::new()
                .add(("X-Content-Type-Options", "nosniff"))
                .add(("Referrer-Policy", "same-origin"))
                .add(("X-Frame-Options", "DENY")),
        )
        .route("/healthz", web::get().to(health::healthz))
        .route("/metrics", web::get().to(health::metrics))
        .service(
            web::scope("/api")
                .wrap(from_fn(same_origin_guard))
                .route("/config", web::get().to(client::config))
                .configure(auth::configure)
                .configure(users::configure)
                .configure(terms::configure)
                .configure(digests::configure)
                .configure(billing::configure)
                .default_service(web::to(api_not_found)),
        )
        .default_service(web::to(client::serve))
}

async fn api_not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::not_found("Not found"))
}
