//! The request body's deadline: a body is read within [`BODY_DEADLINE`] of its request's head and
//! at most [`MAX_JSON_BODY_BYTES`] long, and the first request of a connection the gate
//! ([`crate::connections`]) admitted under pressure or into the signed-in reserve meets that
//! admission's terms.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{HttpMessage, ResponseError};
use futures_util::StreamExt;

use crate::connections::Admitted;
use crate::error::{ApiError, ErrorCode};

/// JSON bodies larger than this are refused with 413; no form needs more.
pub const MAX_JSON_BODY_BYTES: usize = 64 * 1024;

/// How long a request body may take to arrive once its head has: the API's bodies are small
/// forms (64 KiB at most), so a client slower than this is stalling.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);

static BODY_TIMEOUTS: AtomicU64 = AtomicU64::new(0);

/// Requests answered 408 by [`body_deadline`] since the start.
pub fn body_timeouts() -> u64 {
    BODY_TIMEOUTS.load(Ordering::Relaxed)
}

/// Middleware (`from_fn`): a request with a body gets it read here, within [`BODY_DEADLINE`] and
/// at most [`MAX_JSON_BODY_BYTES`] (plus one byte, so the JSON extractor still answers 413 for a
/// larger one); a body that does not arrive in time is answered 408 and the connection closed.
/// The first request of a connection admitted under pressure must be whole by the connection's
/// deadline, and that of a connection admitted into the signed-in reserve must carry a valid
/// session (else 503, and the connection is closed).
pub async fn body_deadline(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let admitted = request.request().conn_data::<Admitted>().filter(|admitted| !admitted.first_request.done.load(Ordering::Acquire));
    let (deadline, in_reserve, first_request) = match admitted {
        Some(admitted) => (admitted.deadline, admitted.in_reserve, Some(Arc::clone(&admitted.first_request))),
        None => (None, false, None),
    };
    if let Some(first_request) = &first_request {
        first_request.head_arrived.store(true, Ordering::Release);
        first_request.settled.notify_one();
    }
    if in_reserve && !is_signed_in(&request) {
        tracing::info!(path = request.path(), "a connection in the signed-in reserve without a session");
        let answer = ApiError::new(ErrorCode::TooManyConnections, "Too many connections; try again.").error_response();
        return Ok(request.into_response(closing(answer)).map_into_right_body());
    }
    let has_body = request.headers().contains_key("content-length") || request.headers().contains_key("transfer-encoding");
    if has_body {
        let wait = deadline.map_or(BODY_DEADLINE, |deadline| BODY_DEADLINE.min(deadline.saturating_duration_since(Instant::now())));
        let payload = request.take_payload();
        match tokio::time::timeout(wait, read_body(payload, MAX_JSON_BODY_BYTES + 1)).await {
            Ok(Ok(body)) => request.set_payload(Payload::from(body)),
            Ok(Err(error)) => return Err(error),
            Err(_) => {
                BODY_TIMEOUTS.fetch_add(1, Ordering::Relaxed);
                tracing::info!(path = request.path(), "request body not received in time");
                let answer = ApiError::new(ErrorCode::BodyTimeout, "The request body did not arrive in time.").error_response();
                return Ok(request.into_response(closing(answer)).map_into_right_body());
            }
        }
    }
    if let Some(first_request) = &first_request {
        first_request.done.store(true, Ordering::Release);
    }
    Ok(next.call(request).await?.map_into_left_body())
}

/// The answer, with the connection closed after it.
fn closing(mut answer: actix_web::HttpResponse) -> actix_web::HttpResponse {
    answer.head_mut().set_connection_type(actix_web::http::ConnectionType::Close);
    answer
}

/// Whether the request carries a live session: one hash and one database read.
fn is_signed_in(request: &ServiceRequest) -> bool {
    let Some(state) = request.app_data::<actix_web::web::Data<crate::state::AppState>>() else {
        return false;
    };
    let Some(hash) = crate::auth::session::session_hash(request.request()) else {
        return false;
    };
    matches!(state.store.accounts().session_user(hash, chrono::Utc::now()), Ok(Some(_)))
}

/// The body's bytes, up to `limit` (the rest is left unread: the answer will refuse it).
async fn read_body(mut payload: Payload, limit: usize) -> Result<Bytes, actix_web::Error> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk?;
        let room = limit.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= limit {
            break;
        }
    }
    Ok(body.freeze())
}
