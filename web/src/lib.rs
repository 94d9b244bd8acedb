//! Papertide's front door: the actix-web application (JSON API, sessions, security checks),
//! configuration, and the `papertide` binary's commands.
//!
//! Architecture invariant: HTTP types live only here; every lower error becomes an
//! [`error::ApiError`] with a status, a stable code and a message. `create_app` is the only way
//! an application is built, for the binary and the tests alike (besides `create_local_app`, the
//! data directory's socket's, which serves only the operator routes; see [`local`]).
//!
//! Architecture invariant: every `/api` answer and request is a type of [`wire`] (errors:
//! [`error::ErrorBody`]), never a domain or storage type; [`contract`] publishes them, and the
//! client's TypeScript is generated from them.

pub mod address;
pub mod admin;
pub mod app;
pub mod auth;
pub mod billing;
pub mod client;
pub mod commands;
pub mod connections;
pub mod contract;
pub mod deadline;
/// The configuration lives in its own crate, light enough to fuzz; `web::config` is it.
pub use ::config;
pub mod channels;
pub mod citations;
pub mod digests;
pub mod error;
mod fallback;
pub mod feeds;
pub mod harvest;
mod headers;
mod health;
pub mod limiter;
pub mod local;
pub mod logging;
pub mod model;
pub mod openapi;
pub mod papers;
pub mod ratings;
pub mod refusals;
pub mod rights;
pub mod routes;
pub mod security;
pub mod seeds;
pub mod server;
pub mod state;
pub mod terms;
pub mod users;
pub mod wire;

pub use app::create_app;
pub use config::Settings;
pub use state::AppState;
