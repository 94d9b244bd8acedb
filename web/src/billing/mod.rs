//! The billing calls of spec §7 and Stripe's webhook (the invariant is in ARCHITECTURE.md, "Billing").
//!
//! With billing off (no Stripe secret key, the embedded default) each call still checks who is
//! asking and what was asked, then answers 501 "Billing is not enabled on this server"; plans
//! are then set by the operator (`papertide users set-tier`). With billing on, every call acts
//! on the signed-in user's own customer and subscriptions only, and a plan moves only through
//! `Billing::apply_subscription` / `Billing::cancel_plan`, as `engine::billing::transition` decides
//! from a state just read from Stripe.
//!
//! The calls (all need a session and act on the caller's own account only; another user's
//! subscription id is a 404):
//!
//! | call | answer |
//! |---|---|
//! | `POST /api/create-subscription {tier}` | step 1: `{alreadyActive:false, tier, step:"setup", clientSecret (a SetupIntent's), subscriptionId:null}` |
//! | `POST /api/create-subscription {tier, setupIntentId}` | step 2, after `stripe.confirmCardSetup`: attaches the card, makes it the default, then creates the subscription (free → paid) or changes the plan of the existing one with proration (pro → team): `{alreadyActive:false, tier, step:"subscription", subscriptionId, clientSecret}` where `clientSecret` is the first payment's PaymentIntent secret only when it needs the customer's action (3-D Secure), else null. A card refused on charge: 402 `{code:"card_declined", message (Stripe's), subscriptionId}`, the incomplete subscription canceled |
//! | same, already on that plan | `{alreadyActive:true, tier, clientSecret:null, subscriptionId}`; team → pro: 400 `downgrade_not_offered` |
//! | `POST /api/create-checkout-session {tier}` | `{clientSecret}` of an embedded Checkout Session (`return_url` = `/payment-success?session_id={CHECKOUT_SESSION_ID}`); free users only: a pro user is sent to the card form, which changes the plan in place (409 `use_card_form`); already on that plan: 409 `already_active` |
//! | `GET /api/session-status?session_id=` | `{status, subscription_id, payment_status}` of the caller's own session (else 404); a complete session's subscription is read and applied at once |
//! | `GET /api/subscriptions/{id}/status` | `{state: pending\|success\|failed, reason, tier}` from the tracking row; a row pending for more than 6 s is read again from Stripe, so a lost webhook cannot leave the page waiting |
//! | `POST /api/cancel-subscription` | the plan and active-term rules are checked, then the subscription is canceled at Stripe and the user moves to free: `{success:true, tier:"free", message}` |
//! | `GET /api/debug-webhook-status` | `{user:{email, subscriptionTier, stripeCustomerId}, stripe:{customerId, subscriptions:[{id, status, tier}], invoices:[{id, status, paid, amount_paid, amount_due, currency, created}]}}` |
//! | `POST /api/fix-subscription` | reads the caller's subscriptions from Stripe and applies the one that proves the highest paid plan (or the end of the current one): `{tier, changed}` |
//! | `POST /api/stripe/webhook` | signature (`Stripe-Signature`, HMAC-SHA-256, 5-minute tolerance, constant-time compare) else 400; an event id already applied answers 200 `{received:true, duplicate:true}`; else the subscription the event concerns is read from Stripe and applied, then the event id is recorded (a failure answers 500 and Stripe delivers again) |
//!
//! `GET /api/config` gains `stripe: {publishableKey, jsUrl} | null` (null with billing off).
//! The user view gains `planEnded: {tier, endedAt, inactiveTerms} | null` (cleared by an upgrade).

pub mod stripe;
/// Signature checks and event reading live in `engine`, where they are fuzzed without the server.
pub use engine::stripe_webhook as webhook;

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest};
use chrono::Utc;
use engine::billing::{plan_change_mail, PlanChange, SubscriptionState, TrackingStatus, Verdict};
use engine::{Tier, UserId};
use store::billing::Applied;
use store::User;

use self::stripe::{StripeFailure, StripeGateway};
use crate::auth::SignedIn;
use crate::error::{ApiError, ApiResult, ErrorCode, ErrorDetails};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::billing::{
    BillingUserView, CancelAnswer, CheckoutSessionAnswer, CreateSubscriptionAnswer, FixSubscriptionAnswer, InvoiceView, PaymentState, PlanChoice,
    SessionQuery, SessionStatusAnswer, StripeCustomerView, StripeSubscriptionView, SubscriptionStatusAnswer, SubscriptionStep, WebhookAnswer,
    WebhookStatusAnswer,
};

pub const MSG_BILLING_DISABLED: &str = "Billing is not enabled on this server. Plans on this Papertide installation are set by its operator.";
const MSG_NOTHING_TO_CANCEL: &str = "You are on the Free plan: there is no subscription to cancel.";
const MSG_BAD_TIER: &str = "Please select a valid subscription plan.";
const MSG_UNAVAILABLE: &str = "The payment service could not be reached. Nothing was charged; please try again in a few minutes.";
const MSG_NO_SUBSCRIPTION: &str = "No such subscription.";
const MSG_NO_SESSION: &str = "No such checkout session.";
const MSG_SETUP_NOT_CONFIRMED: &str = "Your card has not been confirmed yet. Please enter it again.";
/// A tracking row still pending after this long is read again from Stripe when polled, so a
/// lost webhook cannot leave the finalizing page waiting.
const RECHECK_AFTER_SECS: i64 = 6;

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .post("/cancel-subscription", cancel_subscription)
        .post("/create-subscription", create_subscription)
        .post("/create-checkout-session", create_checkout_session)
        .get("/session-status", session_status)
        .get("/subscriptions/{subscription_id}/status", subscription_status)
        .get("/debug-webhook-status", debug_webhook_status)
        .post("/fix-subscription", fix_subscription)
        // The body is Stripe's event, read by signature (engine::stripe_webhook), not a wire type of ours.
        .post("/stripe/webhook", stripe_webhook);
}

fn billing_disabled() -> ApiError {
    let details = ErrorDetails { billing_enabled: Some(false), ..ErrorDetails::default() };
    ApiError::new(ErrorCode::BillingDisabled, MSG_BILLING_DISABLED).with_details(details)
}

fn gateway(state: &AppState) -> ApiResult<&StripeGateway> {
    state.billing.as_deref().ok_or_else(billing_disabled)
}

impl From<StripeFailure> for ApiError {
    fn from(failure: StripeFailure) -> ApiError {
        match failure {
            StripeFailure::Refused { message, card_error: true, .. } => ApiError::new(ErrorCode::CardDeclined, message),
            StripeFailure::Refused { status: 404, .. } => ApiError::not_found(MSG_NO_SUBSCRIPTION),
            other => {
                tracing::warn!(error = %other, "a Stripe call failed");
                ApiError::new(ErrorCode::PaymentServiceUnavailable, MSG_UNAVAILABLE)
            }
        }
    }
}

/// The mail of a plan change, for the store to queue with it.
fn change_mail(state: &AppState) -> impl Fn(&User, &PlanChange) -> engine::mail::RenderedMail + '_ {
    let context = state.mail_context();
    move |user, change| plan_change_mail(&context, &user.email, change)
}

/// Applies a subscription read from Stripe to `user` and tells the mailer about any change.
fn apply(state: &AppState, user: &User, subscription: &SubscriptionState) -> ApiResult<Applied> {
    let applied = state.store.billing().apply_subscription(user.id, subscription, Utc::now(), change_mail(state))?;
    if applied.change.is_some() {
        state.store.flush()?;
        state.poke_mailer();
    }
    Ok(applied)
}

/// Reads subscription `id` from Stripe and applies it to its user, found through its tracking
/// row or its customer. None when no user of this server owns it.
async fn reconcile(state: &AppState, gateway: &StripeGateway, subscription_id: &str) -> ApiResult<Option<Applied>> {
    let subscription = gateway.subscription(subscription_id).await?;
    let owner = match state.store.billing().subscription_tracking(subscription_id)? {
        Some(row) => state.store.accounts().user(row.user_id)?,
        None => state.store.billing().user_by_stripe_customer(&subscription.customer)?,
    };
    match owner {
        Some(user) => apply(state, &user, &subscription).map(Some),
        None => {
            tracing::warn!(subscription = subscription_id, "a Stripe subscription of no user of this server");
            Ok(None)
        }
    }
}

/// The user's Stripe customer, created on first need.
async fn customer_of(state: &AppState, gateway: &StripeGateway, user: &User) -> ApiResult<String> {
    if let Some(customer) = &user.stripe_customer_id {
        return Ok(customer.clone());
    }
    let created = gateway.create_customer(user.id, &user.email).await?;
    Ok(state.store.billing().set_stripe_customer(user.id, &created)?)
}

/// The signed-in user as stored now (the session's copy may predate a plan change).
fn own_user(state: &AppState, signed_in: &SignedIn) -> ApiResult<User> {
    state.store.accounts().user(signed_in.user.id)?.ok_or_else(|| ApiError::unauthorized("Please sign in again."))
}

fn paid_tier(text: &str) -> ApiResult<Tier> {
    match text.parse::<Tier>() {
        Ok(tier) if tier.is_paid() => Ok(tier),
        _ => Err(ApiError::bad_request(MSG_BAD_TIER)),
    }
}

fn downgrade_refused(current: Tier, asked: Tier) -> ApiError {
    ApiError::new(
        ErrorCode::DowngradeNotOffered,
        format!(
            "Moving from {} to {} is not offered. A downgrade first requires reducing your search terms to the {} plan's limits; cancel your subscription from the dashboard and choose the plan again.",
            current.label(),
            asked.label(),
            asked.label()
        ),
    )
}

/// `POST /api/create-subscription {tier[, setupIntentId]}`: the card flow (the module's table).
async fn create_subscription(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    body: web::Json<PlanChoice>,
) -> ApiResult<web::Json<CreateSubscriptionAnswer>> {
    let tier = paid_tier(&body.tier)?;
    let gateway = gateway(&state)?;
    let user = own_user(&state, &signed_in)?;
    if user.subscription_tier == tier {
        return Ok(web::Json(CreateSubscriptionAnswer {
            already_active: true,
            client_secret: None,
            payment_status: None,
            state: None,
            step: None,
            subscription_id: user.stripe_subscription_id,
            tier: tier.into(),
        }));
    }
    if user.subscription_tier > tier {
        return Err(downgrade_refused(user.subscription_tier, tier));
    }
    let customer = customer_of(&state, gateway, &user).await?;
    let Some(setup_intent_id) = body.setup_intent_id.as_deref().filter(|id| !id.trim().is_empty()) else {
        let (_, secret) = gateway.create_setup_intent(&customer, user.id, tier).await?;
        return Ok(web::Json(CreateSubscriptionAnswer {
            already_active: false,
            client_secret: Some(secret),
            payment_status: None,
            state: None,
            step: Some(SubscriptionStep::Setup),
            subscription_id: None,
            tier: tier.into(),
        }));
    };
    let setup = gateway.setup_intent(setup_intent_id).await.map_err(|failure| match failure {
        failure if failure.is_not_found() => ApiError::not_found("No such card setup."),
        other => ApiError::from(other),
    })?;
    if setup.customer.as_deref() != Some(customer.as_str()) {
        return Err(ApiError::not_found("No such card setup."));
    }
    let Some(payment_method) = setup.payment_method.filter(|_| setup.succeeded) else {
        return Err(ApiError::bad_request(MSG_SETUP_NOT_CONFIRMED));
    };
    gateway.use_payment_method(&customer, &payment_method).await?;

    let current = user.stripe_subscription_id.clone().filter(|_| user.subscription_tier.is_paid());
    let created = match &current {
        Some(subscription_id) => gateway.change_plan(subscription_id, tier).await?,
        None => {
            abandon_unpaid_subscriptions(&state, gateway, &user).await;
            gateway.create_subscription(&customer, user.id, tier).await?
        }
    };
    let subscription_id = created.state.id.clone();
    state.store.billing().track_subscription(user.id, &subscription_id, tier, Utc::now())?;
    let applied = apply(&state, &user, &created.state)?;
    if let Verdict::Failed(reason) = engine::billing::verdict(&created.state) {
        if current.is_none() {
            // Nothing half-done: the unpaid subscription goes, and the user can try another card.
            if let Err(error) = gateway.cancel(&subscription_id).await {
                tracing::warn!(%error, subscription = %subscription_id, "could not cancel a subscription whose first payment failed");
            }
        }
        let details = ErrorDetails { subscription_id: Some(subscription_id), ..ErrorDetails::default() };
        return Err(ApiError::new(ErrorCode::CardDeclined, reason).with_details(details));
    }
    Ok(web::Json(CreateSubscriptionAnswer {
        already_active: false,
        client_secret: created.action_secret,
        payment_status: Some(created.state.payment_status),
        state: Some(applied.tracking.as_ref().map(PaymentState::of)),
        step: Some(SubscriptionStep::Subscription),
        subscription_id: Some(subscription_id),
        tier: tier.into(),
    }))
}

/// Cancels the user's earlier subscriptions that were never paid (an abandoned 3-D Secure,
/// a declined card), so a new attempt does not leave two behind. Best effort.
async fn abandon_unpaid_subscriptions(state: &AppState, gateway: &StripeGateway, user: &User) {
    let Ok(rows) = state.store.billing().subscription_trackings(user.id) else {
        return;
    };
    for row in rows.iter().filter(|row| !row.provisioned && matches!(row.status, TrackingStatus::Pending | TrackingStatus::Failed)) {
        match gateway.cancel(&row.subscription_id).await {
            Ok(subscription) => {
                let _ = apply(state, user, &subscription);
            }
            Err(error) if error.is_not_found() => {}
            Err(error) => tracing::warn!(%error, subscription = %row.subscription_id, "could not cancel an unpaid subscription"),
        }
    }
}

/// `POST /api/create-checkout-session {tier}`: an embedded Checkout Session for a free user.
async fn create_checkout_session(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    body: web::Json<PlanChoice>,
) -> ApiResult<web::Json<CheckoutSessionAnswer>> {
    let tier = paid_tier(&body.tier)?;
    let gateway = gateway(&state)?;
    let user = own_user(&state, &signed_in)?;
    if user.subscription_tier == tier {
        let details = ErrorDetails { already_active: Some(true), tier: Some(tier.into()), ..ErrorDetails::default() };
        return Err(
            ApiError::new(ErrorCode::AlreadyActive, format!("You already have an active {} subscription.", tier.as_str())).with_details(details)
        );
    }
    if user.subscription_tier > tier {
        return Err(downgrade_refused(user.subscription_tier, tier));
    }
    if user.subscription_tier.is_paid() {
        let details = ErrorDetails { tier: Some(tier.into()), ..ErrorDetails::default() };
        return Err(ApiError::new(
            ErrorCode::UseCardForm,
            "Your plan is changed on the card form, which moves your current subscription to the new plan.",
        )
        .with_details(details));
    }
    let customer = customer_of(&state, gateway, &user).await?;
    let return_url = format!("{}/payment-success?session_id={{CHECKOUT_SESSION_ID}}", state.settings.public_base());
    let secret = gateway.create_checkout_session(&customer, user.id, tier, &return_url).await?;
    Ok(web::Json(CheckoutSessionAnswer { client_secret: secret }))
}

/// `GET /api/session-status?session_id=`: the caller's own Checkout Session; a complete one's
/// subscription is applied at once.
async fn session_status(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    query: web::Query<SessionQuery>,
) -> ApiResult<web::Json<SessionStatusAnswer>> {
    let gateway = gateway(&state)?;
    let session_id = query.session_id.trim();
    if session_id.is_empty() {
        return Err(ApiError::bad_request("session_id is required."));
    }
    let user = &signed_in.user;
    let session = gateway.checkout_session(session_id).await.map_err(|failure| match failure {
        failure if failure.is_not_found() => ApiError::not_found(MSG_NO_SESSION),
        other => ApiError::from(other),
    })?;
    let owned = session.customer.is_some() && session.customer == user.stripe_customer_id
        || session.client_reference_id.as_deref() == Some(user.id.0.to_string().as_str());
    if !owned {
        return Err(ApiError::not_found(MSG_NO_SESSION));
    }
    if let (Some("complete"), Some(subscription_id)) = (session.status.as_deref(), session.subscription.as_deref()) {
        let subscription = gateway.subscription(subscription_id).await?;
        if subscription.customer.as_str() == user.stripe_customer_id.as_deref().unwrap_or_default() {
            if let Some(tier) = subscription.tier {
                state.store.billing().track_subscription(user.id, subscription_id, tier, Utc::now())?;
            }
            apply(&state, user, &subscription)?;
        }
    }
    Ok(web::Json(SessionStatusAnswer { payment_status: session.payment_status, status: session.status, subscription_id: session.subscription }))
}

/// `GET /api/subscriptions/{id}/status`: the caller's own tracking row.
async fn subscription_status(
    state: web::Data<AppState>,
    signed_in: SignedIn,
    path: web::Path<String>,
) -> ApiResult<web::Json<SubscriptionStatusAnswer>> {
    let gateway = gateway(&state)?;
    let subscription_id = path.into_inner();
    let owned = |row: &engine::billing::SubscriptionTracking| row.user_id == signed_in.user.id;
    let mut row =
        state.store.billing().subscription_tracking(&subscription_id)?.filter(owned).ok_or_else(|| ApiError::not_found(MSG_NO_SUBSCRIPTION))?;
    if row.state() == "pending" && (Utc::now() - row.updated_at).num_seconds() >= RECHECK_AFTER_SECS {
        match reconcile(&state, gateway, &subscription_id).await {
            Ok(Some(applied)) => row = applied.tracking.unwrap_or(row),
            Ok(None) => {}
            Err(error) => tracing::warn!(message = %error.message, "re-reading a pending subscription failed"),
        }
    }
    let payment_state = PaymentState::of(&row);
    let reason = match payment_state {
        PaymentState::Failed => Some(row.last_error.clone().unwrap_or_else(|| engine::billing::MSG_PAYMENT_FAILED.to_owned())),
        _ => None,
    };
    Ok(web::Json(SubscriptionStatusAnswer { reason, state: payment_state, status: row.status.into(), tier: row.tier.into() }))
}

/// `POST /api/cancel-subscription`: the plan and active-term rules, then the subscription is
/// canceled at Stripe and the user moves to free.
async fn cancel_subscription(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<CancelAnswer>> {
    let user = own_user(&state, &signed_in)?;
    if !user.subscription_tier.is_paid() {
        return Err(ApiError::bad_request(MSG_NOTHING_TO_CANCEL));
    }
    let active = state.store.terms().of_user(user.id)?.iter().filter(|term| term.is_active).count();
    if active > 1 {
        let details = ErrorDetails { requires_search_deletion: Some(true), current_search_count: Some(active), ..ErrorDetails::default() };
        return Err(ApiError::bad_request(format!(
            "You have {active} active search terms. Please delete search terms until only 1 remains, then cancel your subscription."
        ))
        .with_details(details));
    }
    let gateway = gateway(&state)?;
    if let Some(subscription_id) = &user.stripe_subscription_id {
        match gateway.cancel(subscription_id).await {
            Ok(_) => {}
            // Already gone at Stripe: the plan ends here too.
            Err(failure) if failure.is_not_found() => {}
            Err(failure) => return Err(failure.into()),
        }
    }
    let applied = state.store.billing().cancel_plan(user.id, Utc::now(), change_mail(&state))?;
    state.store.flush()?;
    state.poke_mailer();
    Ok(web::Json(CancelAnswer {
        message: "Your subscription has been canceled. You remain on the Free plan, and your search terms and digests are kept.".to_owned(),
        success: true,
        tier: applied.user.subscription_tier.into(),
    }))
}

/// `GET /api/debug-webhook-status`: what Stripe knows of the caller.
async fn debug_webhook_status(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<WebhookStatusAnswer>> {
    let gateway = gateway(&state)?;
    let user = own_user(&state, &signed_in)?;
    let (subscriptions, invoices) = match &user.stripe_customer_id {
        Some(customer) => (gateway.customer_subscriptions(customer).await?, gateway.customer_invoices(customer).await?),
        None => (Vec::new(), Vec::new()),
    };
    let subscriptions = subscriptions
        .iter()
        .map(|subscription| StripeSubscriptionView {
            id: subscription.id.clone(),
            status: subscription.status.as_str().to_owned(),
            tier: subscription.tier.map(Into::into),
        })
        .collect();
    let invoices = invoices
        .into_iter()
        .map(|listed| InvoiceView {
            amount_due: listed.invoice.amount_due,
            amount_paid: listed.invoice.amount_paid,
            created: listed.created,
            currency: listed.invoice.currency,
            id: listed.invoice.id,
            paid: listed.invoice.paid,
            status: listed.invoice.status,
        })
        .collect();
    Ok(web::Json(WebhookStatusAnswer {
        stripe: StripeCustomerView { customer_id: user.stripe_customer_id.clone(), invoices, subscriptions },
        user: BillingUserView {
            email: user.email,
            stripe_customer_id: user.stripe_customer_id,
            stripe_subscription_id: user.stripe_subscription_id,
            subscription_tier: user.subscription_tier.into(),
        },
    }))
}

/// `POST /api/fix-subscription`: reads the caller's subscriptions from Stripe and applies them,
/// ended ones first and then paid ones from the lowest plan up, so the plan they prove wins.
async fn fix_subscription(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<FixSubscriptionAnswer>> {
    Ok(web::Json(repair_subscription(&state, signed_in.user.id).await?))
}

/// The repair of `/api/fix-subscription` for the account `user_id` (its owner's, or an
/// operator's from the console).
pub(crate) async fn repair_subscription(state: &AppState, user_id: UserId) -> ApiResult<FixSubscriptionAnswer> {
    let gateway = gateway(state)?;
    let stored_user = || state.store.accounts().user(user_id)?.ok_or_else(|| ApiError::unauthorized("Please sign in again."));
    let user = stored_user()?;
    let before = user.subscription_tier;
    let Some(customer) = user.stripe_customer_id.clone() else {
        return Ok(FixSubscriptionAnswer { changed: false, tier: before.into() });
    };
    let mut subscriptions = gateway.customer_subscriptions(&customer).await?;
    if let Some(current) = &user.stripe_subscription_id {
        if !subscriptions.iter().any(|subscription| &subscription.id == current) {
            match gateway.subscription(current).await {
                Ok(subscription) => subscriptions.push(subscription),
                Err(failure) if failure.is_not_found() => {
                    tracing::warn!(subscription = %current, "a user's subscription is unknown to Stripe");
                }
                Err(failure) => return Err(failure.into()),
            }
        }
    }
    let rank = |subscription: &SubscriptionState| match engine::billing::verdict(subscription) {
        Verdict::Ended(_) => (0, Tier::Free),
        Verdict::Paid(tier) => (2, tier),
        _ => (1, Tier::Free),
    };
    subscriptions.sort_by_key(rank);
    let mut after = before;
    for subscription in subscriptions.iter().filter(|subscription| subscription.customer == customer) {
        let current = stored_user()?;
        after = apply(state, &current, subscription)?.user.subscription_tier;
    }
    Ok(FixSubscriptionAnswer { changed: after != before, tier: after.into() })
}

/// `POST /api/stripe/webhook`: verified by signature (no session, no Origin), applied once per
/// event id, and safe in any order: the subscription the event concerns is read from Stripe.
async fn stripe_webhook(state: web::Data<AppState>, request: HttpRequest, body: web::Bytes) -> ApiResult<web::Json<WebhookAnswer>> {
    let gateway = gateway(&state)?;
    let header = request.headers().get("Stripe-Signature").and_then(|value| value.to_str().ok());
    webhook::verify(&gateway.settings().webhook_secret, header, &body, Utc::now().timestamp())
        .map_err(|error| ApiError::new(ErrorCode::BadSignature, format!("Webhook refused: {error}.")))?;
    let event = webhook::parse_event(&body).ok_or_else(|| ApiError::bad_request("Webhook refused: the body is not a Stripe event."))?;
    if state.store.billing().stripe_event_applied(&event.id)? {
        return Ok(web::Json(WebhookAnswer { duplicate: Some(true), received: true }));
    }
    if let Some(subscription_id) = subscription_of_event(gateway, &event).await? {
        match reconcile(&state, gateway, &subscription_id).await {
            Ok(_) => {}
            // A subscription Stripe does not know (deleted test data): nothing to apply.
            Err(error) if error.status == StatusCode::NOT_FOUND => {
                tracing::warn!(event = %event.id, subscription = %subscription_id, "a webhook about an unknown subscription");
            }
            // Anything else answers 5xx, and Stripe delivers the event again later.
            Err(error) => return Err(error),
        }
    }
    state.store.billing().record_stripe_event(&event.id, Utc::now())?;
    state.store.flush()?;
    Ok(web::Json(WebhookAnswer { duplicate: None, received: true }))
}

/// The subscription an event is about, if it is about one.
async fn subscription_of_event(gateway: &StripeGateway, event: &webhook::Event) -> ApiResult<Option<String>> {
    let subscription = match webhook::subject(event) {
        Some(webhook::Subject::Subscription(id)) => Some(id),
        Some(webhook::Subject::Invoice(invoice)) => match gateway.invoice_subscription(&invoice).await {
            Ok(subscription) => subscription,
            Err(failure) if failure.is_not_found() => None,
            Err(failure) => return Err(failure.into()),
        },
        None => None,
    };
    tracing::debug!(event = %event.id, kind = %event.kind, subscription = ?subscription, "Stripe event");
    Ok(subscription)
}
