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

use crate::wire::Tier;

/// Every error code the API answers, with its HTTP status. Serialized as its snake_case name,
/// the stable string clients branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // 400
    BadRequest,
    ValidationFailed,
    InvalidToken,
    DowngradeNotOffered,
    BadSignature,
    // 401
    Unauthorized,
    MetricsTokenRequired,
    // 402
    RequiresPayment,
    FreeDigestsUsed,
    CardDeclined,
    // 403
    CrossSiteRequest,
    AccountDeactivated,
    EmailNotVerified,
    RequiresUpgrade,
    NotYourAccount,
    NotYourAddress,
    RequiresSupport,
    TriggerNeedsPaidPlan,
    OperatorOnly,
    WrongPassword,
    // 404, 405, 408, 409, 410, 413, 429
    NotFound,
    MethodNotAllowed,
    BodyTimeout,
    EmailTaken,
    TermAlreadyFollowed,
    AlreadyActive,
    UseCardForm,
    CannotDeleteSelf,
    CannotDemoteSelf,
    OperatorBySettings,
    CannotDisableSelf,
    AlreadyVerified,
    HarvestRunning,
    LinkExpired,
    DigestGone,
    TermGone,
    BackupDirUnset,
    BackupDestNotEmpty,
    PayloadTooLarge,
    RateLimited,
    // 5xx
    Internal,
    BillingDisabled,
    Busy,
    /// The connection gate's refusal, written straight to the socket (`web::connections`).
    TooManyConnections,
    DiskFull,
    PaymentServiceUnavailable,
    /// A lab channel's webhook refused or did not answer a post.
    WebhookFailed,
    /// A refusal made by the HTTP layer itself (an extractor, a guard): its status is the
    /// refusal's own, any 4xx or 5xx.
    HttpError,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 48] = [
        ErrorCode::BadRequest,
        ErrorCode::ValidationFailed,
        ErrorCode::InvalidToken,
        ErrorCode::DowngradeNotOffered,
        ErrorCode::BadSignature,
        ErrorCode::Unauthorized,
        ErrorCode::MetricsTokenRequired,
        ErrorCode::RequiresPayment,
        ErrorCode::FreeDigestsUsed,
        ErrorCode::CardDeclined,
        ErrorCode::CrossSiteRequest,
        ErrorCode::AccountDeactivated,
        ErrorCode::EmailNotVerified,
        ErrorCode::RequiresUpgrade,
        ErrorCode::NotYourAccount,
        ErrorCode::NotYourAddress,
        ErrorCode::RequiresSupport,
        ErrorCode::TriggerNeedsPaidPlan,
        ErrorCode::OperatorOnly,
        ErrorCode::WrongPassword,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::BodyTimeout,
        ErrorCode::EmailTaken,
        ErrorCode::TermAlreadyFollowed,
        ErrorCode::AlreadyActive,
        ErrorCode::UseCardForm,
        ErrorCode::CannotDeleteSelf,
        ErrorCode::CannotDemoteSelf,
        ErrorCode::OperatorBySettings,
        ErrorCode::CannotDisableSelf,
        ErrorCode::AlreadyVerified,
        ErrorCode::HarvestRunning,
        ErrorCode::LinkExpired,
        ErrorCode::DigestGone,
        ErrorCode::WebhookFailed,
        ErrorCode::TermGone,
        ErrorCode::BackupDirUnset,
        ErrorCode::BackupDestNotEmpty,
        ErrorCode::PayloadTooLarge,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::BillingDisabled,
        ErrorCode::Busy,
        ErrorCode::TooManyConnections,
        ErrorCode::DiskFull,
        ErrorCode::PaymentServiceUnavailable,
        ErrorCode::HttpError,
    ];

    /// The HTTP status every answer with this code has; `None` for [`ErrorCode::HttpError`],
    /// whose status is the refusal's own.
    pub fn fixed_status(self) -> Option<StatusCode> {
        let status = match self {
            ErrorCode::BadRequest
            | ErrorCode::ValidationFailed
            | ErrorCode::InvalidToken
            | ErrorCode::DowngradeNotOffered
            | ErrorCode::BadSignature => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized | ErrorCode::MetricsTokenRequired => StatusCode::UNAUTHORIZED,
            ErrorCode::RequiresPayment | ErrorCode::FreeDigestsUsed | ErrorCode::CardDeclined => StatusCode::PAYMENT_REQUIRED,
            ErrorCode::CrossSiteRequest
            | ErrorCode::AccountDeactivated
            | ErrorCode::EmailNotVerified
            | ErrorCode::RequiresUpgrade
            | ErrorCode::NotYourAccount
            | ErrorCode::NotYourAddress
            | ErrorCode::RequiresSupport
            | ErrorCode::TriggerNeedsPaidPlan
            | ErrorCode::OperatorOnly
            | ErrorCode::WrongPassword => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::EmailTaken
            | ErrorCode::TermAlreadyFollowed
            | ErrorCode::AlreadyActive
            | ErrorCode::UseCardForm
            | ErrorCode::CannotDeleteSelf
            | ErrorCode::CannotDemoteSelf
            | ErrorCode::OperatorBySettings
            | ErrorCode::CannotDisableSelf
            | ErrorCode::AlreadyVerified
            | ErrorCode::HarvestRunning
            | ErrorCode::BackupDirUnset
            | ErrorCode::BackupDestNotEmpty => StatusCode::CONFLICT,
            ErrorCode::LinkExpired | ErrorCode::DigestGone | ErrorCode::TermGone => StatusCode::GONE,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::BillingDisabled => StatusCode::NOT_IMPLEMENTED,
            ErrorCode::WebhookFailed => StatusCode::BAD_GATEWAY,
            ErrorCode::Busy | ErrorCode::TooManyConnections | ErrorCode::DiskFull | ErrorCode::PaymentServiceUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ErrorCode::HttpError => return None,
        };
        Some(status)
    }

    /// The HTTP status of an [`ApiError`] with this code.
    pub fn status(self) -> StatusCode {
        self.fixed_status().unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The code as clients read it: `validation_failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::ValidationFailed => "validation_failed",
            ErrorCode::InvalidToken => "invalid_token",
            ErrorCode::DowngradeNotOffered => "downgrade_not_offered",
            ErrorCode::BadSignature => "bad_signature",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::MetricsTokenRequired => "metrics_token_required",
            ErrorCode::RequiresPayment => "requires_payment",
            ErrorCode::FreeDigestsUsed => "free_digests_used",
            ErrorCode::CardDeclined => "card_declined",
            ErrorCode::CrossSiteRequest => "cross_site_request",
            ErrorCode::AccountDeactivated => "account_deactivated",
            ErrorCode::EmailNotVerified => "email_not_verified",
            ErrorCode::RequiresUpgrade => "requires_upgrade",
            ErrorCode::NotYourAccount => "not_your_account",
            ErrorCode::NotYourAddress => "not_your_address",
            ErrorCode::RequiresSupport => "requires_support",
            ErrorCode::TriggerNeedsPaidPlan => "trigger_needs_paid_plan",
            ErrorCode::OperatorOnly => "operator_only",
            ErrorCode::WrongPassword => "wrong_password",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::BodyTimeout => "body_timeout",
            ErrorCode::EmailTaken => "email_taken",
            ErrorCode::TermAlreadyFollowed => "term_already_followed",
            ErrorCode::AlreadyActive => "already_active",
            ErrorCode::UseCardForm => "use_card_form",
            ErrorCode::CannotDeleteSelf => "cannot_delete_self",
            ErrorCode::CannotDemoteSelf => "cannot_demote_self",
            ErrorCode::OperatorBySettings => "operator_by_settings",
            ErrorCode::CannotDisableSelf => "cannot_disable_self",
            ErrorCode::AlreadyVerified => "already_verified",
            ErrorCode::HarvestRunning => "harvest_running",
            ErrorCode::LinkExpired => "link_expired",
            ErrorCode::DigestGone => "digest_gone",
            ErrorCode::WebhookFailed => "webhook_failed",
            ErrorCode::TermGone => "term_gone",
            ErrorCode::BackupDirUnset => "backup_dir_unset",
            ErrorCode::BackupDestNotEmpty => "backup_dest_not_empty",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Internal => "internal",
            ErrorCode::BillingDisabled => "billing_disabled",
            ErrorCode::Busy => "busy",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::DiskFull => "disk_full",
            ErrorCode::PaymentServiceUnavailable => "payment_service_unavailable",
            ErrorCode::HttpError => "http_error",
        }
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
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
