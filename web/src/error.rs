//! The API's one error type: a status, a stable machine-readable code and a human message,
//! answered as JSON `{ "message": ..., "code": ... }` plus any extra fields a client needs.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use engine::ValidationErrors;
use serde_json::{json, Map, Value};

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Extra top-level fields (`errors`, `requiresVerification`, ...).
    pub extra: Map<String, Value>,
    /// Seconds to wait, for 429 answers.
    pub retry_after_secs: Option<u64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), extra: Map::new(), retry_after_secs: None }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn too_many_requests(retry_after_secs: u64) -> ApiError {
        let minutes = retry_after_secs.div_ceil(60).max(1);
        let unit = if minutes == 1 { "minute" } else { "minutes" };
        let mut error = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("Too many attempts. Please try again in {minutes} {unit}."),
        );
        error.retry_after_secs = Some(retry_after_secs);
        error
    }

    /// A server fault: the cause is logged, the answer says nothing about it.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "request failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "Something went wrong on our side. Please try again.")
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> ApiError {
        let details = serde_json::to_value(&errors.errors).unwrap_or(Value::Null);
        ApiError::new(StatusCode::BAD_REQUEST, "validation_failed", errors.first_message()).with("errors", details)
    }
}

impl From<store::StoreError> for ApiError {
    fn from(error: store::StoreError) -> ApiError {
        match error {
            store::StoreError::DuplicateEmail => ApiError::new(
                StatusCode::CONFLICT,
                "email_taken",
                "An account with this email already exists. Please sign in instead.",
            ),
            store::StoreError::UserNotFound => ApiError::not_found("Not found"),
            other => ApiError::internal(other),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(error: actix_web::error::BlockingError) -> ApiError {
        ApiError::internal(error)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut body = self.extra.clone();
        body.insert("message".into(), json!(self.message));
        body.insert("code".into(), json!(self.code));
        let mut response = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after_secs {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        response.json(Value::Object(body))
    }
}

/// Turns actix's body-parsing failures into our JSON errors (413 for oversized bodies).
pub fn json_payload_error(error: actix_web::error::JsonPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    use actix_web::error::JsonPayloadError;
    let api_error = match &error {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", "The request body is too large.")
        }
        JsonPayloadError::ContentType => ApiError::bad_request("Expected a JSON body (Content-Type: application/json)."),
        JsonPayloadError::Deserialize(cause) => ApiError::bad_request(format!("Invalid JSON body: {cause}")),
        other => ApiError::bad_request(format!("Could not read the request body: {other}")),
    };
    api_error.into()
}

/// Turns query-string failures into our JSON errors.
pub fn query_error(error: actix_web::error::QueryPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    ApiError::bad_request(format!("Invalid query string: {error}")).into()
}
