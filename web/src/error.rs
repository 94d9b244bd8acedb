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
    /// Seconds to wait, for 429 and 503 answers.
    pub retry_after_secs: Option<u64>,
    /// Other headers of the answer (`Allow` of a 405).
    pub headers: Vec<(&'static str, String)>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), extra: Map::new(), retry_after_secs: None, headers: Vec::new() }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> ApiError {
        self.headers.push((name, value.into()));
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
        let mut error =
            ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", format!("Too many attempts. Please try again in {minutes} {unit}."));
        error.retry_after_secs = Some(retry_after_secs);
        error
    }

    /// A server fault: the cause is logged, the answer says nothing about it.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "request failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "Something went wrong on our side. Please try again.")
    }
}

/// The answer while the data directory's disk is full: nothing was saved, and the same request
/// can be made again once the operator frees space.
pub const MSG_DISK_FULL: &str = "The server cannot save anything right now: its disk is full. Nothing was changed; please try again later.";

impl ApiError {
    /// The disk is full: 503 with `Retry-After`; the cause is logged for the operator.
    pub fn disk_full(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "a write was refused: the data directory's disk is full");
        let mut error = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "disk_full", MSG_DISK_FULL);
        error.retry_after_secs = Some(60);
        error
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
            store::StoreError::DuplicateEmail => {
                ApiError::new(StatusCode::CONFLICT, "email_taken", "An account with this email already exists. Please sign in instead.")
            }
            store::StoreError::UserNotFound => ApiError::not_found("Not found"),
            store::StoreError::NotFound("search term") => ApiError::not_found("Search term not found"),
            store::StoreError::NotFound(_) => ApiError::not_found("Not found"),
            full if full.is_disk_full() => ApiError::disk_full(full),
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
        for (name, value) in &self.headers {
            response.insert_header((*name, value.as_str()));
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
        JsonPayloadError::Deserialize(cause) => ApiError::bad_request(format!("Invalid JSON body: {}", public_serde_message(&cause.to_string()))),
        JsonPayloadError::Payload(_) => ApiError::bad_request("Could not read the request body."),
        _ => ApiError::bad_request("Could not read the request body as JSON."),
    };
    api_error.into()
}

/// Turns query-string failures into our JSON errors.
pub fn query_error(error: actix_web::error::QueryPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    let cause = match &error {
        actix_web::error::QueryPayloadError::Deserialize(cause) => public_serde_message(&cause.to_string()),
        _ => "it could not be read".to_owned(),
    };
    ApiError::bad_request(format!("Invalid query string: {cause}")).into()
}

/// Turns path-parameter failures into our JSON errors.
pub fn path_error(error: actix_web::error::PathError, _: &actix_web::HttpRequest) -> actix_web::Error {
    let actix_web::error::PathError::Deserialize(cause) = &error else {
        return ApiError::bad_request("Invalid address.").into();
    };
    ApiError::bad_request(format!("Invalid address: {}", public_serde_message(&cause.to_string()))).into()
}

/// A deserializer's message with our type names taken out: "expected struct LoginForm" says
/// nothing to a client, "expected a JSON object" does.
pub fn public_serde_message(message: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    let mut tokens = message.split(' ').peekable();
    while let Some(word) = tokens.next() {
        let replacement = match word {
            "struct" => Some("a JSON object"),
            "enum" => Some("one of the accepted values"),
            _ => None,
        };
        let next_is_type_name = tokens.peek().is_some_and(|next| next.starts_with(|c: char| c.is_ascii_uppercase()));
        match replacement {
            Some(replacement) if next_is_type_name => {
                let type_name = tokens.next().unwrap_or_default();
                words.push(replacement);
                // Keep what followed the name in the same word ("LoginForm," keeps the comma).
                let trailing = type_name.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
                if !trailing.is_empty() {
                    words.push(trailing);
                }
            }
            _ => words.push(word),
        }
    }
    words.join(" ").replace(" ,", ",").replace("Query deserialize error: ", "")
}

/// Middleware (`from_fn`) that makes every error answer JSON with a `message`: actix's own
/// refusals (a route's method guard, an extractor without an error handler) come with an empty
/// or plain-text body; they get the status's reason as their message, and keep their headers.
/// Pages (HTML) and JSON answers pass untouched.
pub async fn json_error_bodies(
    request: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let response = next.call(request).await?;
    let status = response.status();
    let content_type =
        response.headers().get(actix_web::http::header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default().to_ascii_lowercase();
    let is_readable = content_type.starts_with("application/json") || content_type.starts_with("text/html");
    if !(status.is_client_error() || status.is_server_error()) || is_readable {
        return Ok(response.map_into_left_body());
    }
    let message = match status {
        StatusCode::INTERNAL_SERVER_ERROR => "Something went wrong on our side. Please try again.".to_owned(),
        other => format!("{}.", other.canonical_reason().unwrap_or("The request could not be answered")),
    };
    let body = json!({ "message": message, "code": "http_error" }).to_string();
    let response = response.map_body(|head, _| {
        head.headers.insert(actix_web::http::header::CONTENT_TYPE, actix_web::http::header::HeaderValue::from_static("application/json"));
        head.headers.remove(actix_web::http::header::CONTENT_LENGTH);
        body
    });
    Ok(response.map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_our_type_names() {
        let check = |message: &str, expected: &str| assert_eq!(public_serde_message(message), expected);
        check(
            "invalid type: string \"x\", expected struct LoginForm at line 1 column 3",
            "invalid type: string \"x\", expected a JSON object at line 1 column 3",
        );
        check("invalid type: integer `1`, expected enum Tier", "invalid type: integer `1`, expected one of the accepted values");
        check("Query deserialize error: duplicate field `token`", "duplicate field `token`");
        check("invalid type: integer `5`, expected a string at line 1 column 10", "invalid type: integer `5`, expected a string at line 1 column 10");
        check("the struct of it", "the struct of it");
    }
}
