//! `create_app`: the one application factory used by the binary and by the tests; and
//! `create_local_app`, the small one the data directory's socket serves (`crate::local`).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{web, App};

use std::sync::Arc;

use crate::deadline::{body_deadline, MAX_JSON_BODY_BYTES};
use crate::error::{json_error_bodies, json_payload_error, path_error, query_error};
use crate::routes::{unmatched, ApiRoutes, RouteTable};
use crate::security::same_origin_guard;
use crate::state::AppState;
use crate::{
    admin, auth, billing, channels, citations, client, contract, digests, feeds, headers, health, openapi, ratings, rights, seeds, terms, users,
};

pub fn create_app(
    state: AppState,
) -> App<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<impl MessageBody>, Error = actix_web::Error, InitError = ()>> {
    let (every_answer, not_stored) = (headers::every_answer(&state.settings), headers::not_stored);
    let mut api_routes = RouteTable::default();
    let api = web::scope("/api").configure(|config| configure_api(&mut ApiRoutes::new(config, &mut api_routes, "/api")));
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(Arc::new(api_routes)))
        .app_data(web::JsonConfig::default().limit(MAX_JSON_BODY_BYTES).error_handler(json_payload_error))
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .app_data(web::PathConfig::default().error_handler(path_error))
        .wrap(from_fn(body_deadline))
        .wrap(from_fn(json_error_bodies))
        .wrap(every_answer)
        .service(web::resource("/healthz").wrap(not_stored()).route(web::get().to(health::healthz)))
        .service(web::resource("/metrics").wrap(not_stored()).route(web::get().to(health::metrics)))
        .configure(feeds::configure_public)
        .service(api.wrap(from_fn(same_origin_guard)).wrap(not_stored()).default_service(web::to(unmatched)))
        .default_service(web::to(client::serve))
}

/// The application of the data directory's socket: the operator routes and `/healthz`, every
/// request from the local operator. No Origin check (no browser reaches a socket file) and no
/// connection gate (only the service's user can open it).
pub fn create_local_app(
    state: AppState,
) -> App<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<impl MessageBody>, Error = actix_web::Error, InitError = ()>> {
    let mut admin_routes = RouteTable::default();
    let api = web::scope("/api").configure(|config| admin::configure(&mut ApiRoutes::new(config, &mut admin_routes, "/api")));
    App::new()
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(Arc::new(admin_routes)))
        .app_data(auth::LocalOperator)
        .app_data(web::JsonConfig::default().limit(MAX_JSON_BODY_BYTES).error_handler(json_payload_error))
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .app_data(web::PathConfig::default().error_handler(path_error))
        .wrap(from_fn(json_error_bodies))
        .service(web::resource("/healthz").route(web::get().to(health::healthz)))
        .service(api.default_service(web::to(unmatched)))
        .default_service(web::to(unmatched))
}

/// Every `/api` route, each registered once through `routes` (which also records it).
pub fn configure_api(routes: &mut ApiRoutes) {
    routes.get("/config", client::config);
    auth::handlers::configure(routes);
    users::configure(routes);
    terms::configure(routes);
    ratings::configure(routes);
    seeds::configure(routes);
    feeds::configure(routes);
    citations::configure(routes);
    channels::configure(routes);
    digests::configure(routes);
    billing::configure(routes);
    rights::configure(routes);
    admin::configure(routes);
    contract::configure(routes);
    openapi::configure(routes);
}

/// The table of every `/api` route, as [`create_app`] registers them.
pub fn api_route_table() -> RouteTable {
    let mut table = RouteTable::default();
    let _ = web::scope("/api").configure(|config| configure_api(&mut ApiRoutes::new(config, &mut table, "/api")));
    table
}
