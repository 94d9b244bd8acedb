//! The API's one error type: a status, a stable machine-readable code and a human message,
//! answered as JSON `{ "message": ..., "code": ... }` plus any extra fields a client needs.
//!
//! The codes are one enum, [`ErrorCode`], each with its HTTP status; the body is one type,
//! [`ErrorBody`], whose extra fields are optional and absent unless set. Both are part of the
//! contract ([`crate::contract`]).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use engine::ValidationErrors;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::wire::Tier;

/// Declares [`ErrorCode`] from its table: one line per code, `Variant = "snake_case_name" => status`,
/// the status a number, or `own` for a refusal whose status is its own.
macro_rules! error_codes {
    ($($(#[$meta:meta])* $variant:ident = $name:literal => $status:tt,)*) => {
        /// Every error code the API answers, with its HTTP status. Serialized as its snake_case
        /// name, the stable string clients branch on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS, ToSchema)]
        pub enum ErrorCode {
            $($(#[$meta])* #[serde(rename = $name)] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The HTTP status every answer with this code has; `None` for
            /// [`ErrorCode::HttpError`], whose status is the refusal's own.
            pub fn fixed_status(self) -> Option<StatusCode> {
                match self {
                    $(ErrorCode::$variant => error_codes!(@status $status),)*
                }
            }

            /// The code as clients read it: `validation_failed`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }
        }
    };
    (@status own) => { None };
    (@status $code:literal) => { StatusCode::from_u16($code).ok() };
}

error_codes! {
    BadRequest = "bad_request" => 400,
    ValidationFailed = "validation_failed" => 400,
    InvalidToken = "invalid_token" => 400,
    DowngradeNotOffered = "downgrade_not_offered" => 400,
    BadSignature = "bad_signature" => 400,
    Unauthorized = "unauthorized" => 401,
    MetricsTokenRequired = "metrics_token_required" => 401,
    RequiresPayment = "requires_payment" => 402,
    FreeDigestsUsed = "free_digests_used" => 402,
    CardDeclined = "card_declined" => 402,
    CrossSiteRequest = "cross_site_request" => 403,
    AccountDeactivated = "account_deactivated" => 403,
    EmailNotVerified = "email_not_verified" => 403,
    RequiresUpgrade = "requires_upgrade" => 403,
    NotYourAccount = "not_your_account" => 403,
    NotYourAddress = "not_your_address" => 403,
    RequiresSupport = "requires_support" => 403,
    TriggerNeedsPaidPlan = "trigger_needs_paid_plan" => 403,
    OperatorOnly = "operator_only" => 403,
    WrongPassword = "wrong_password" => 403,
    NotFound = "not_found" => 404,
    MethodNotAllowed = "method_not_allowed" => 405,
    BodyTimeout = "body_timeout" => 408,
    EmailTaken = "email_taken" => 409,
    TermAlreadyFollowed = "term_already_followed" => 409,
    AlreadyActive = "already_active" => 409,
    UseCardForm = "use_card_form" => 409,
    CannotDeleteSelf = "cannot_delete_self" => 409,
    CannotDemoteSelf = "cannot_demote_self" => 409,
    OperatorBySettings = "operator_by_settings" => 409,
    CannotDisableSelf = "cannot_disable_self" => 409,
    AlreadyVerified = "already_verified" => 409,
    HarvestRunning = "harvest_running" => 409,
    BackupDirUnset = "backup_dir_unset" => 409,
    BackupDestNotEmpty = "backup_dest_not_empty" => 409,
    LinkExpired = "link_expired" => 410,
    DigestGone = "digest_gone" => 410,
    TermGone = "term_gone" => 410,
    PayloadTooLarge = "payload_too_large" => 413,
    RateLimited = "rate_limited" => 429,
    Internal = "internal" => 500,
    BillingDisabled = "billing_disabled" => 501,
    /// A lab channel's webhook refused or did not answer a post.
    WebhookFailed = "webhook_failed" => 502,
    Busy = "busy" => 503,
    /// The connection gate's refusal, written straight to the socket (`web::connections`).
    TooManyConnections = "too_many_connections" => 503,
    DiskFull = "disk_full" => 503,
    PaymentServiceUnavailable = "payment_service_unavailable" => 503,
    /// A refusal made by the HTTP layer itself (an extractor, a guard): its status is the
    /// refusal's own, any 4xx or 5xx.
    HttpError = "http_error" => own,
}

impl ErrorCode {
    /// The HTTP status of an [`ApiError`] with this code.
    pub fn status(self) -> StatusCode {
        self.fixed_status().unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

/// The fields some errors add to `code` and `message`, each absent unless set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorDetails {
    pub already_active: Option<bool>,
    pub billing_enabled: Option<bool>,
    pub current_count: Option<usize>,
    pub current_search_count: Option<usize>,
    pub errors: Option<Vec<FieldErrorView>>,
    pub requires_payment: Option<bool>,
    pub requires_search_deletion: Option<bool>,
    pub requires_support: Option<bool>,
    pub requires_verification: Option<bool>,
    pub subscription_id: Option<String>,
    pub success: Option<bool>,
    pub term_id: Option<String>,
    pub tier: Option<Tier>,
}

/// Every error answer's body: the code and message, and the extra fields some errors carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// `already_active`: the plan asked for is the user's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub already_active: Option<bool>,
    /// `billing_disabled`: always `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub billing_enabled: Option<bool>,
    pub code: ErrorCode,
    /// `requires_payment`: the user's terms now.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub current_count: Option<usize>,
    /// A cancel refused until terms are deleted: the active terms now.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub current_search_count: Option<usize>,
    /// `validation_failed`: every rejected field, in the form's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub errors: Option<Vec<FieldErrorView>>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requires_payment: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requires_search_deletion: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requires_support: Option<bool>,
    /// `email_not_verified`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub requires_verification: Option<bool>,
    /// `card_declined` of a subscription that was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subscription_id: Option<String>,
    /// The verification link's refusals: `false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub success: Option<bool>,
    /// `term_already_followed`: the term the user follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub term_id: Option<String>,
    /// `already_active` and `use_card_form`: the plan asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tier: Option<Tier>,
}

/// One rejected field with the message a user reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, ToSchema)]
pub struct FieldErrorView {
    pub field: String,
    pub message: String,
}

impl From<&engine::FieldError> for FieldErrorView {
    fn from(error: &engine::FieldError) -> FieldErrorView {
        FieldErrorView { field: error.field.to_owned(), message: error.message.clone() }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    /// Extra top-level fields (`errors`, `requiresVerification`, ...), boxed: most errors have none.
    pub details: Option<Box<ErrorDetails>>,
    /// Seconds to wait, for 429 and 503 answers.
    pub retry_after_secs: Option<u64>,
    /// Other headers of the answer (`Allow` of a 405).
    pub headers: Vec<(&'static str, String)>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error with `code`, answered with the code's status.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { status: code.status(), code, message: message.into(), details: None, retry_after_secs: None, headers: Vec::new() }
    }

    /// The error with the extra fields `details` sets.
    pub fn with_details(mut self, details: ErrorDetails) -> ApiError {
        self.details = Some(Box::new(details));
        self
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> ApiError {
        self.headers.push((name, value.into()));
        self
    }

    /// The body this error is answered with.
    pub fn body(&self) -> ErrorBody {
        let details = self.details.as_deref().cloned().unwrap_or_default();
        ErrorBody {
            already_active: details.already_active,
            billing_enabled: details.billing_enabled,
            code: self.code,
            current_count: details.current_count,
            current_search_count: details.current_search_count,
            errors: details.errors,
            message: self.message.clone(),
            requires_payment: details.requires_payment,
            requires_search_deletion: details.requires_search_deletion,
            requires_support: details.requires_support,
            requires_verification: details.requires_verification,
            subscription_id: details.subscription_id,
            success: details.success,
            term_id: details.term_id,
            tier: details.tier,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadRequest, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Unauthorized, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, message)
    }

    pub fn too_many_requests(retry_after_secs: u64) -> ApiError {
        let minutes = retry_after_secs.div_ceil(60).max(1);
        let unit = if minutes == 1 { "minute" } else { "minutes" };
        let mut error = ApiError::new(ErrorCode::RateLimited, format!("Too many attempts. Please try again in {minutes} {unit}."));
        error.retry_after_secs = Some(retry_after_secs);
        error
    }

    /// A server fault: the cause is logged, the answer says nothing about it.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "request failed");
        ApiError::new(ErrorCode::Internal, "Something went wrong on our side. Please try again.")
    }
}

/// The answer while the data directory's disk is full: nothing was saved, and the same request
/// can be made again once the operator frees space.
pub const MSG_DISK_FULL: &str = "The server cannot save anything right now: its disk is full. Nothing was changed; please try again later.";

impl ApiError {
    /// The disk is full: 503 with `Retry-After`; the cause is logged for the operator.
    pub fn disk_full(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(%cause, "a write was refused: the data directory's disk is full");
        let mut error = ApiError::new(ErrorCode::DiskFull, MSG_DISK_FULL);
        error.retry_after_secs = Some(60);
        error
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> ApiError {
        let details = ErrorDetails { errors: Some(errors.errors.iter().map(FieldErrorView::from).collect()), ..ErrorDetails::default() };
        ApiError::new(ErrorCode::ValidationFailed, errors.first_message()).with_details(details)
    }
}

impl From<store::StoreError> for ApiError {
    fn from(error: store::StoreError) -> ApiError {
        match error {
            store::StoreError::DuplicateEmail => {
                ApiError::new(ErrorCode::EmailTaken, "An account with this email already exists. Please sign in instead.")
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
        let mut response = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after_secs {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        for (name, value) in &self.headers {
            response.insert_header((*name, value.as_str()));
        }
        response.json(self.body())
    }
}

/// Turns actix's body-parsing failures into our JSON errors (413 for oversized bodies).
pub fn json_payload_error(error: actix_web::error::JsonPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    use actix_web::error::JsonPayloadError;
    let api_error = match &error {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            ApiError::new(ErrorCode::PayloadTooLarge, "The request body is too large.")
        }
        JsonPayloadError::ContentType => ApiError::bad_request("Expected a JSON body (Content-Type: application/json)."),
        JsonPayloadError::Deserialize(cause) => match unknown_field(&cause.to_string()) {
            Some(field) => unknown_field_error(field),
            None => ApiError::bad_request(format!("Invalid JSON body: {}", public_serde_message(&cause.to_string()))),
        },
        JsonPayloadError::Payload(_) => ApiError::bad_request("Could not read the request body."),
        _ => ApiError::bad_request("Could not read the request body as JSON."),
    };
    api_error.into()
}

/// Turns query-string failures into our JSON errors.
pub fn query_error(error: actix_web::error::QueryPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    let cause = match &error {
        actix_web::error::QueryPayloadError::Deserialize(cause) => {
            if let Some(field) = unknown_field(&cause.to_string()) {
                return unknown_field_error(field).into();
            }
            public_serde_message(&cause.to_string())
        }
        _ => "it could not be read".to_owned(),
    };
    ApiError::bad_request(format!("Invalid query string: {cause}")).into()
}

/// The field a deserializer refused as unknown (every request type denies unknown fields).
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.split_once("unknown field `")?.1;
    rest.split_once('`').map(|(field, _)| field)
}

/// The validation answer to a field no request type has: a misspelt field is never ignored.
fn unknown_field_error(field: &str) -> ApiError {
    let message = format!("Unknown field: {field}.");
    let errors = vec![FieldErrorView { field: field.to_owned(), message: message.clone() }];
    ApiError::new(ErrorCode::ValidationFailed, message).with_details(ErrorDetails { errors: Some(errors), ..ErrorDetails::default() })
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
    let body = serde_json::to_string(&ApiError::new(ErrorCode::HttpError, message).body()).unwrap_or_default();
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
    fn unknown_fields_are_named() {
        assert_eq!(unknown_field("unknown field `tier2`, expected one of `tier`, `setupIntentId` at line 1 column 8"), Some("tier2"));
        assert_eq!(unknown_field("Query deserialize error: unknown field `x`, expected `token`"), Some("x"));
        assert_eq!(unknown_field("missing field `email`"), None);
        let error = unknown_field_error("extra");
        assert_eq!((error.code, error.body().errors.map(|errors| errors[0].field.clone())), (ErrorCode::ValidationFailed, Some("extra".to_owned())));
    }

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
