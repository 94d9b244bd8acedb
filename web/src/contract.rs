//! The published API contract: the TypeScript of every wire type ([`crate::wire`], the error
//! codes and the error body), generated from the Rust types, checked in at
//! `web/client/src/api/contract.ts` for the client, and served with the route table for people
//! who script against the API:
//! - `GET /api/contract`: every route (method, path, request and answer type) and every error
//!   code with its status, as JSON ([`ApiContract`]);
//! - `GET /api/contract.ts`: the TypeScript itself;
//! - `GET /api/openapi.json`: the OpenAPI 3.1 document of the same routes and types
//!   ([`crate::openapi`]).
//!
//! Both are public documentation: anyone may read them, signed in or not.
//!
//! The checked-in file is compared with what the types generate by a test; after changing a
//! wire type, regenerate it with `PAPERTIDE_UPDATE_CONTRACT=1 cargo test -p web --lib contract`.

use std::sync::Arc;

use actix_web::web;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::error::{ErrorBody, ErrorCode, FieldErrorView};
use crate::routes::{ApiRoutes, RouteTable, Text, TextMedia};
use crate::wire::{admin, auth, backup, billing, config, digests, ratings, rights, terms, users, workflows};
use crate::wire::{DeliveryDay, Done, DoneWithMessage, Message, Source, Tier, Verdict};

/// The checked-in TypeScript, as served by `GET /api/contract.ts`.
pub const TYPESCRIPT: &str = include_str!("../client/src/api/contract.ts");

/// Where the checked-in TypeScript lives, from the `web` crate's folder.
pub const TYPESCRIPT_PATH: &str = "client/src/api/contract.ts";

/// The command that writes [`TYPESCRIPT_PATH`] again from the types.
pub const REGENERATE: &str = "PAPERTIDE_UPDATE_CONTRACT=1 cargo test -p web --lib contract";

/// `GET /api/contract`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiContract {
    /// Every `/api` route, in registration order.
    pub routes: Vec<RouteContract>,
    /// Every error code and the status its answers have (`null`: the refusal's own status).
    pub error_codes: Vec<ErrorCodeContract>,
    /// Where the TypeScript of every named type is served.
    pub typescript: String,
}

/// One route: its method, its path pattern, and the names of its wire types in the TypeScript.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct RouteContract {
    pub method: String,
    pub path: String,
    /// Its JSON body, or for a `GET` or `DELETE` its query string; `null` when it reads neither.
    pub request: Option<String>,
    pub answer: String,
}

/// One error code and its HTTP status.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct ErrorCodeContract {
    pub code: ErrorCode,
    pub status: Option<u16>,
}

/// The contract of the routes in `table`.
pub fn api_contract(table: &RouteTable) -> ApiContract {
    let routes = table
        .routes()
        .iter()
        .map(|route| RouteContract {
            method: route.method.to_string(),
            path: route.path.clone(),
            request: route.wire.request_name(),
            answer: route.wire.answer_name(),
        })
        .collect();
    let error_codes =
        ErrorCode::ALL.iter().map(|code| ErrorCodeContract { code: *code, status: code.fixed_status().map(|status| status.as_u16()) }).collect();
    ApiContract { routes, error_codes, typescript: "/api/contract.ts".to_owned() }
}

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/contract", contract).get("/contract.ts", typescript);
}

/// `GET /api/contract`.
async fn contract(table: web::Data<Arc<RouteTable>>) -> web::Json<ApiContract> {
    web::Json(api_contract(&table))
}

/// The TypeScript's media type: plain text.
pub struct PlainText;

impl TextMedia for PlainText {
    const MEDIA_TYPES: &'static [&'static str] = &["text/plain"];
}

/// `GET /api/contract.ts`: the TypeScript (as text; a script can save it as a `.ts` file).
async fn typescript() -> Text<PlainText> {
    Text::new("text/plain; charset=utf-8", TYPESCRIPT.to_owned())
}

/// The TypeScript the wire types generate: one `export type` per type, in the order below.
pub fn generate_typescript() -> String {
    let declarations = [
        // Errors
        ErrorCode::decl(),
        ErrorBody::decl(),
        FieldErrorView::decl(),
        // Shared
        Tier::decl(),
        Verdict::decl(),
        DeliveryDay::decl(),
        Source::decl(),
        Done::decl(),
        Message::decl(),
        DoneWithMessage::decl(),
        // Config
        config::ClientConfig::decl(),
        config::AnalyticsView::decl(),
        config::StripeView::decl(),
        // Auth
        auth::LoginRequest::decl(),
        auth::StandaloneSignupRequest::decl(),
        auth::CombinedSignupRequest::decl(),
        auth::EmailRequest::decl(),
        auth::ResetPasswordRequest::decl(),
        auth::VerifyEmailQuery::decl(),
        auth::UserView::decl(),
        auth::FreeDigests::decl(),
        auth::PlanEnded::decl(),
        auth::EndCause::decl(),
        auth::MeAnswer::decl(),
        auth::SignupAnswer::decl(),
        auth::VerifyEmailAnswer::decl(),
        auth::LoginAnswer::decl(),
        // Users
        users::PreferencesView::decl(),
        users::LockedPreference::decl(),
        users::PreferencesChange::decl(),
        // Terms
        terms::TermStatus::decl(),
        terms::SearchTermView::decl(),
        terms::TermChange::decl(),
        terms::TermDeleted::decl(),
        // Ratings
        ratings::RatingView::decl(),
        ratings::RateRequest::decl(),
        ratings::RemoveRatingQuery::decl(),
        ratings::RatingLinkQuery::decl(),
        ratings::RatingLinkRequest::decl(),
        ratings::RatingLinkView::decl(),
        ratings::RatingLinkConfirmed::decl(),
        // Digests
        digests::ImmediateSearchRequest::decl(),
        digests::ImmediateSearchAnswer::decl(),
        digests::ResendRequest::decl(),
        digests::ResendAnswer::decl(),
        digests::TestEmailRequest::decl(),
        digests::TestMailKind::decl(),
        digests::TriggerDigestAnswer::decl(),
        digests::DigestKind::decl(),
        digests::DigestStatus::decl(),
        digests::DigestView::decl(),
        digests::DigestPaper::decl(),
        digests::Widened::decl(),
        // Billing
        billing::PlanChoice::decl(),
        billing::PaidTier::decl(),
        billing::CreateSubscriptionAnswer::decl(),
        billing::SubscriptionStep::decl(),
        billing::PaymentState::decl(),
        billing::SubscriptionStatus::decl(),
        billing::CheckoutSessionAnswer::decl(),
        billing::SessionQuery::decl(),
        billing::SessionStatusAnswer::decl(),
        billing::SubscriptionStatusAnswer::decl(),
        billing::CancelAnswer::decl(),
        billing::FixSubscriptionAnswer::decl(),
        billing::WebhookStatusAnswer::decl(),
        billing::BillingUserView::decl(),
        billing::StripeCustomerView::decl(),
        billing::InvoiceView::decl(),
        billing::StripeSubscriptionView::decl(),
        billing::WebhookAnswer::decl(),
        // Rights
        rights::DataExport::decl(),
        rights::AccountExport::decl(),
        rights::PreferencesExport::decl(),
        rights::DigestExport::decl(),
        rights::PaperExport::decl(),
        rights::RatingExport::decl(),
        rights::PlanReason::decl(),
        rights::PlanChangeExport::decl(),
        rights::SubscriptionExport::decl(),
        rights::DeleteAccountRequest::decl(),
        // The operator console
        admin::AdminStats::decl(),
        admin::WeekCount::decl(),
        admin::AdminUsersQuery::decl(),
        admin::AdminUserPage::decl(),
        admin::AdminUser::decl(),
        admin::AdminPlanRequest::decl(),
        admin::AdminOperatorRequest::decl(),
        admin::AdminDisabledRequest::decl(),
        admin::AdminSources::decl(),
        admin::AdminSource::decl(),
        admin::AdminIndex::decl(),
        admin::PapersBySource::decl(),
        admin::AdminVectors::decl(),
        admin::AdminMail::decl(),
        admin::MailTransportKind::decl(),
        admin::SmtpStatus::decl(),
        admin::SmtpState::decl(),
        admin::DeadMail::decl(),
        admin::AdminBilling::decl(),
        admin::AdminBillingUser::decl(),
        // Seeds, feeds, citations and lab channels
        workflows::SeedsRequest::decl(),
        workflows::SeedFoundIn::decl(),
        workflows::SeedPaperView::decl(),
        workflows::SeedsAdded::decl(),
        workflows::TermFeedView::decl(),
        workflows::FeedsView::decl(),
        workflows::CitationFormat::decl(),
        workflows::CitationQuery::decl(),
        workflows::PaperCitationQuery::decl(),
        workflows::CitationLinkQuery::decl(),
        workflows::ChannelRequest::decl(),
        workflows::ChannelView::decl(),
        workflows::ChannelAnswer::decl(),
        workflows::AdminChannel::decl(),
        workflows::AdminChannels::decl(),
        workflows::PlanEntitlements::decl(),
        // Operators: backups
        backup::BackupRequest::decl(),
        backup::BackupReport::decl(),
        // The contract itself
        ApiContract::decl(),
        RouteContract::decl(),
        ErrorCodeContract::decl(),
        crate::openapi::OpenApiDocument::decl(),
    ];
    let mut text = String::from(
        "// The API contract: generated from the server's wire types (web/src/wire, web/src/error.rs,\n\
         // web/src/contract.rs). Do not edit by hand; after changing a wire type, run\n",
    );
    text.push_str(&format!("//   {REGENERATE}\n\n"));
    for declaration in declarations {
        text.push_str("export ");
        text.push_str(&declaration);
        text.push_str("\n\n");
    }
    text.truncate(text.trim_end().len());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a type expression uses (`Array<SearchTermView>` uses `Array` and `SearchTermView`).
    fn names_in(expression: &str) -> Vec<String> {
        expression.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|name| !name.is_empty()).map(str::to_owned).collect()
    }

    #[test]
    fn the_checked_in_typescript_is_what_the_wire_types_generate() {
        let generated = generate_typescript();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(TYPESCRIPT_PATH);
        if std::env::var_os("PAPERTIDE_UPDATE_CONTRACT").is_some() {
            std::fs::write(&path, &generated).expect("writing the contract");
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "web/{TYPESCRIPT_PATH} differs from what the wire types generate (a wire type changed, or the file was edited by hand). \
             Regenerate it with\n    {REGENERATE}\nand commit it (the client's build then shows what the change breaks)."
        );
    }

    /// JSON numbers arrive in the browser as `number`; a 64-bit integer field generates `bigint`
    /// unless it says `#[ts(type = "number")]`, and the client would type it wrong.
    #[test]
    fn no_wire_type_claims_a_bigint() {
        let typescript = generate_typescript();
        let claims: Vec<&str> = typescript.lines().filter(|line| line.contains("bigint")).collect();
        assert!(claims.is_empty(), "give these 64-bit fields #[ts(type = \"number\")]: {claims:#?}");
    }

    #[test]
    fn every_route_names_types_the_typescript_declares() {
        let typescript = generate_typescript();
        let declared = |name: &str| ["Array", "string", "number", "boolean"].contains(&name) || typescript.contains(&format!("export type {name} ="));
        let contract = api_contract(&crate::app::api_route_table());
        assert!(contract.routes.len() >= 30, "every route is in the contract: {}", contract.routes.len());
        for route in &contract.routes {
            assert!(!route.answer.is_empty(), "{} {} has an answer type", route.method, route.path);
            for name in names_in(&route.answer).iter().chain(route.request.iter().flat_map(|request| names_in(request)).collect::<Vec<_>>().iter()) {
                assert!(declared(name), "{} {} names {name}, which the contract does not declare", route.method, route.path);
            }
        }
        let routes: Vec<(String, String)> = contract.routes.iter().map(|route| (route.method.clone(), route.path.clone())).collect();
        let table = crate::app::api_route_table();
        for route in table.routes() {
            assert!(routes.contains(&(route.method.to_string(), route.path.clone())), "{} {} is in the contract", route.method, route.path);
        }
        assert!(routes.contains(&("GET".to_owned(), "/api/contract".to_owned())), "the contract lists itself");
    }

    #[test]
    fn every_error_code_is_listed_once_with_its_snake_case_name_and_status() {
        let contract = api_contract(&RouteTable::default());
        let names: Vec<String> = contract.error_codes.iter().map(|entry| entry.code.as_str().to_owned()).collect();
        for (entry, name) in contract.error_codes.iter().zip(&names) {
            assert_eq!(serde_json::to_value(entry.code).ok(), Some(serde_json::Value::String(name.clone())), "{name}");
            assert_eq!(names.iter().filter(|other| *other == name).count(), 1, "{name} is listed once");
        }
        let status = |code: ErrorCode| code.fixed_status().map(|status| status.as_u16());
        assert_eq!(status(ErrorCode::ValidationFailed), Some(400));
        assert_eq!(status(ErrorCode::EmailTaken), Some(409));
        assert_eq!(status(ErrorCode::RateLimited), Some(429));
        assert_eq!(status(ErrorCode::RequiresPayment), Some(402));
        assert_eq!(status(ErrorCode::LinkExpired), Some(410));
        assert_eq!(status(ErrorCode::HttpError), None);
        let typescript = generate_typescript();
        for name in &names {
            assert!(typescript.contains(&format!("\"{name}\"")), "{name} is in the TypeScript union");
        }
    }
}
