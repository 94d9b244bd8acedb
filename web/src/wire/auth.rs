//! Sign-up, sign-in, verification and password reset: what the forms send and what they get,
//! and the user as the client sees it (never a hash or a token).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::{sorted_keys, Tier};

/// `POST /api/auth/login` — both sign-in forms.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoginRequest {
    #[ts(optional = nullable)]
    pub email: Option<String>,
    #[ts(optional = nullable)]
    pub password: Option<String>,
}

impl From<LoginRequest> for engine::validation::LoginForm {
    fn from(request: LoginRequest) -> engine::validation::LoginForm {
        engine::validation::LoginForm { email: request.email, password: request.password }
    }
}

/// `POST /api/auth/signup` — the standalone form on /signup.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StandaloneSignupRequest {
    #[ts(optional = nullable)]
    pub email: Option<String>,
    #[ts(optional = nullable)]
    pub password: Option<String>,
    #[ts(optional = nullable)]
    pub confirm_password: Option<String>,
    #[ts(optional = nullable)]
    pub research_field: Option<String>,
    /// The topic typed before signup.
    #[ts(optional = nullable)]
    pub pending_search: Option<String>,
    /// Papers to seed the topic from.
    #[serde(default)]
    #[ts(optional)]
    pub seeds: Option<super::workflows::SeedsRequest>,
}

impl From<StandaloneSignupRequest> for engine::validation::StandaloneSignupForm {
    fn from(request: StandaloneSignupRequest) -> engine::validation::StandaloneSignupForm {
        engine::validation::StandaloneSignupForm {
            email: request.email,
            password: request.password,
            confirm_password: request.confirm_password,
            research_field: request.research_field,
            pending_search: request.pending_search,
        }
    }
}

/// `POST /api/signup` — the combined form on /auth.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CombinedSignupRequest {
    #[ts(optional = nullable)]
    pub email: Option<String>,
    #[ts(optional = nullable)]
    pub research_field: Option<String>,
    #[ts(optional = nullable)]
    pub password: Option<String>,
    #[ts(optional = nullable)]
    pub confirm_password: Option<String>,
    #[ts(optional = nullable)]
    pub agree_to_terms: Option<bool>,
    #[ts(optional = nullable)]
    pub agree_to_privacy: Option<bool>,
    /// The topic typed before signup.
    #[ts(optional = nullable)]
    pub pending_search: Option<String>,
    /// Papers to seed the topic from.
    #[serde(default)]
    #[ts(optional)]
    pub seeds: Option<super::workflows::SeedsRequest>,
}

impl From<CombinedSignupRequest> for engine::validation::CombinedSignupForm {
    fn from(request: CombinedSignupRequest) -> engine::validation::CombinedSignupForm {
        engine::validation::CombinedSignupForm {
            email: request.email,
            research_field: request.research_field,
            password: request.password,
            confirm_password: request.confirm_password,
            agree_to_terms: request.agree_to_terms,
            agree_to_privacy: request.agree_to_privacy,
            pending_search: request.pending_search,
        }
    }
}

/// `POST /api/forgot-password` and `POST /api/auth/resend-verification`: an email only.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailRequest {
    #[ts(optional = nullable)]
    pub email: Option<String>,
}

impl From<EmailRequest> for engine::validation::EmailForm {
    fn from(request: EmailRequest) -> engine::validation::EmailForm {
        engine::validation::EmailForm { email: request.email }
    }
}

/// `POST /api/reset-password`.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetPasswordRequest {
    #[ts(optional = nullable)]
    pub token: Option<String>,
    #[ts(optional = nullable)]
    pub password: Option<String>,
    #[ts(optional = nullable)]
    pub confirm_password: Option<String>,
}

impl From<ResetPasswordRequest> for engine::validation::ResetPasswordForm {
    fn from(request: ResetPasswordRequest) -> engine::validation::ResetPasswordForm {
        engine::validation::ResetPasswordForm { token: request.token, password: request.password, confirm_password: request.confirm_password }
    }
}

/// `GET /api/verify-email?token=`.
#[derive(Debug, Clone, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyEmailQuery {
    #[ts(optional = nullable)]
    pub token: Option<String>,
}

/// A user as the client reads it.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub id: Uuid,
    pub email: String,
    pub research_field: Option<String>,
    pub subscription_tier: Tier,
    pub is_active: bool,
    pub is_email_verified: bool,
    pub is_unlimited: bool,
    pub is_admin: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stripe_customer_id: Option<String>,
    pub last_digest_sent_at: Option<DateTime<Utc>>,
    /// When the last digest received on the free plan went out.
    pub last_free_sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// The topic typed before signup, until it has been searched.
    pub pending_search: Option<String>,
    /// A free plan's digests used, of how many; `null` for paid plans.
    pub free_digests: Option<FreeDigests>,
    /// The paid plan that ended, until the next upgrade.
    pub plan_ended: Option<PlanEnded>,
}

/// A free plan's digests: how many are used, of how many.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
pub struct FreeDigests {
    pub used: usize,
    pub total: usize,
}

impl From<engine::digest::FreeDigests> for FreeDigests {
    fn from(free: engine::digest::FreeDigests) -> FreeDigests {
        FreeDigests { used: free.used, total: free.total }
    }
}

/// A paid plan that ended.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanEnded {
    pub tier: Tier,
    pub ended_at: DateTime<Utc>,
    pub cause: EndCause,
    /// Terms turned off because the free plan allows fewer.
    pub inactive_terms: usize,
}

impl From<engine::billing::PlanEnded> for PlanEnded {
    fn from(ended: engine::billing::PlanEnded) -> PlanEnded {
        PlanEnded { tier: ended.tier.into(), ended_at: ended.ended_at, cause: ended.cause.into(), inactive_terms: ended.inactive_terms }
    }
}

/// Why a paid plan ended.
#[derive(Debug, Clone, Copy, Serialize, TS, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndCause {
    Canceled,
    NotPaid,
}

impl From<engine::billing::EndCause> for EndCause {
    fn from(cause: engine::billing::EndCause) -> EndCause {
        match cause {
            engine::billing::EndCause::Canceled => EndCause::Canceled,
            engine::billing::EndCause::NotPaid => EndCause::NotPaid,
        }
    }
}

/// `GET /api/auth/me`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct MeAnswer {
    pub user: UserView,
}

/// `POST /api/signup` and `POST /api/auth/signup` (201).
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupAnswer {
    pub message: String,
    #[ts(type = "true")]
    pub requires_verification: bool,
    /// The papers found for the topic's seeds, saved with the account until the topic is made.
    pub seeded: Vec<super::workflows::SeedPaperView>,
    #[serde(serialize_with = "sorted_keys")]
    pub user: UserView,
}

/// `GET /api/verify-email?token=`: verified and signed in.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyEmailAnswer {
    pub message: String,
    pub pending_search: Option<String>,
    #[ts(type = "true")]
    pub success: bool,
    #[serde(serialize_with = "sorted_keys")]
    pub user: UserView,
}

/// `POST /api/auth/login`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct LoginAnswer {
    pub message: String,
    #[serde(serialize_with = "sorted_keys")]
    pub user: UserView,
}
