//! The Stripe test peer (localstripe through tools/stripe/launcher.py, driven by
//! `testkit::stripe`) answers the calls the billing code makes in shapes async-stripe 0.41
//! parses, webhook payloads included, and its test cards behave as tools/stripe/README.md says.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web as routes, App, HttpRequest, HttpResponse, HttpServer};
use stripe::{
    AttachPaymentMethod, CancelSubscription, CheckoutSession, CheckoutSessionId, CheckoutSessionMode, CheckoutSessionStatus, CheckoutSessionUiMode,
    Client, CreateCheckoutSession, CreateCheckoutSessionLineItems, CreateCustomer, CreateSetupIntent, CreateSubscription, CreateSubscriptionItems,
    Customer, CustomerInvoiceSettings, ErrorCode, ErrorType, Event, EventObject, EventType, Expandable, Invoice, InvoiceStatus, ListEvents,
    ListInvoices, ListSubscriptions, PaymentIntent, PaymentIntentStatus, PaymentMethod, PaymentMethodId, RequestStrategy, SetupIntent,
    SetupIntentStatus, StripeError, Subscription, SubscriptionId, SubscriptionStatus, SubscriptionStatusFilter, UpdateCustomer, UpdateSubscription,
    UpdateSubscriptionItems, Webhook,
};

// Two enums of this name; the subscription's is the one UpdateSubscription takes.
use stripe::generated::billing::subscription::SubscriptionProrationBehavior as ProrationBehavior;

use crate::common::stripe::{LocalStripe, CARD_3DS, CARD_DECLINED, CARD_DECLINED_ON_CHARGE, CARD_OK};

fn client(stripe: &LocalStripe) -> Client {
    Client::from_url(stripe.api_url().as_str(), stripe.secret_key())
}

async fn customer(client: &Client, email: &str) -> Customer {
    Customer::create(client, CreateCustomer { email: Some(email), ..CreateCustomer::new() }).await.expect("customer")
}

/// The server's card flow up to a subscription: a SetupIntent confirmed with `card` in the
/// "browser", its card attached and made the default, the subscription created with its first
/// invoice and payment intent expanded.
async fn subscribe(stripe: &LocalStripe, client: &Client, customer: &Customer, card: &str) -> Subscription {
    let intent = SetupIntent::create(client, CreateSetupIntent { customer: Some(customer.id.clone()), ..CreateSetupIntent::new() })
        .await
        .expect("setup intent");
    assert_eq!(intent.status, SetupIntentStatus::RequiresPaymentMethod);
    let secret = intent.client_secret.clone().expect("a client secret");
    let method = stripe.confirm_setup_intent(&secret, card).await.expect("the card is set up");

    let intent = SetupIntent::retrieve(client, &intent.id, &[]).await.expect("setup intent again");
    assert_eq!(intent.status, SetupIntentStatus::Succeeded);
    assert_eq!(intent.payment_method.as_ref().map(|method| method.id().to_string()), Some(method.clone()));
    let method_id: PaymentMethodId = method.parse().expect("a payment method id");
    let attached = PaymentMethod::attach(client, &method_id, AttachPaymentMethod { customer: customer.id.clone() }).await.expect("attached");
    assert_eq!(attached.customer.map(|customer| customer.id()), Some(customer.id.clone()));
    let settings = CustomerInvoiceSettings { default_payment_method: Some(method), ..Default::default() };
    Customer::update(client, &customer.id, UpdateCustomer { invoice_settings: Some(settings), ..UpdateCustomer::new() }).await.expect("default card");

    let mut create = CreateSubscription::new(customer.id.clone());
    create.items = Some(vec![CreateSubscriptionItems { plan: Some(stripe.plan_pro().into()), ..Default::default() }]);
    create.expand = &["latest_invoice.payment_intent"];
    Subscription::create(client, create).await.expect("subscription")
}

fn latest_invoice(subscription: &Subscription) -> &Invoice {
    match &subscription.latest_invoice {
        Some(Expandable::Object(invoice)) => invoice,
        other => panic!("the latest invoice is not expanded: {other:?}"),
    }
}

fn payment_intent(invoice: &Invoice) -> &PaymentIntent {
    match &invoice.payment_intent {
        Some(Expandable::Object(intent)) => intent,
        other => panic!("the payment intent is not expanded: {other:?}"),
    }
}

/// Every event so far parses as async-stripe's Event (the webhook payloads are the same JSON).
async fn parsed_events(client: &Client) -> Vec<Event> {
    let events = Event::list(client, &ListEvents { limit: Some(100), ..ListEvents::new() }).await.expect("events parse");
    events.data.into_iter().rev().collect()
}

fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(|event| event.type_).collect()
}

#[actix_web::test]
async fn a_card_set_up_subscribed_upgraded_and_canceled_parses_with_async_stripe() {
    let stripe = LocalStripe::start().await;
    let client = client(&stripe);
    let ada = customer(&client, "ada@example.org").await;

    let subscription = subscribe(&stripe, &client, &ada, CARD_OK).await;
    assert_eq!(subscription.status, SubscriptionStatus::Active);
    assert_eq!(subscription.items.data[0].price.as_ref().map(|price| price.id.to_string()), Some("price_pro".into()));
    let invoice = latest_invoice(&subscription);
    assert_eq!((invoice.status, invoice.paid, invoice.amount_paid), (Some(InvoiceStatus::Paid), Some(true), Some(500)));
    assert_eq!(payment_intent(invoice).status, PaymentIntentStatus::Succeeded);

    // pro → team, the change invoiced at once: 1000 less the unused 500.
    let item = subscription.items.data[0].id.to_string();
    let mut change = UpdateSubscription::new();
    change.items = Some(vec![UpdateSubscriptionItems { id: Some(item), price: Some(stripe.plan_team().into()), ..Default::default() }]);
    change.proration_behavior = Some(ProrationBehavior::AlwaysInvoice);
    change.expand = &["latest_invoice.payment_intent"];
    let upgraded = Subscription::update(&client, &subscription.id, change).await.expect("plan changed");
    assert_eq!(upgraded.status, SubscriptionStatus::Active);
    assert_eq!(upgraded.items.data[0].plan.as_ref().map(|plan| plan.id.to_string()), Some("price_team".into()));
    let invoice = latest_invoice(&upgraded);
    assert_eq!((invoice.status, invoice.amount_due), (Some(InvoiceStatus::Paid), Some(500)));
    assert_ne!(invoice.id, latest_invoice(&subscription).id, "a new invoice");

    let invoices = Invoice::list(&client, &ListInvoices { customer: Some(ada.id.clone()), ..ListInvoices::new() }).await.expect("invoices");
    assert_eq!(invoices.data.len(), 2);
    assert_eq!(invoices.data[0].id, invoice.id, "newest first");
    for invoice in &invoices.data {
        assert_eq!(invoice.customer.as_ref().map(Expandable::id), Some(ada.id.clone()));
        assert!(!invoice.lines.as_ref().expect("lines").data.is_empty());
    }
    let retrieved = Customer::retrieve(&client, &ada.id, &[]).await.expect("customer parses");
    let subscriptions = retrieved.subscriptions.expect("the customer's subscriptions");
    assert_eq!(subscriptions.data.len(), 1);

    let raw = stripe.get(&format!("/v1/subscriptions?customer={}&status=all", ada.id)).await;
    assert_eq!(raw["data"][0]["items"]["data"][0]["price"]["id"], "price_team", "the raw helpers see the same");
    let canceled = Subscription::cancel(&client, &subscription.id, CancelSubscription::new()).await.expect("canceled");
    assert_eq!(canceled.status, SubscriptionStatus::Canceled);
    assert!(canceled.canceled_at.is_some());
    let mut listing = ListSubscriptions::new();
    listing.customer = Some(ada.id.clone());
    listing.status = Some(SubscriptionStatusFilter::All);
    let listed = Subscription::list(&client, &listing).await.expect("subscriptions");
    assert_eq!(listed.data.iter().map(|subscription| subscription.status).collect::<Vec<_>>(), vec![SubscriptionStatus::Canceled]);

    use EventType::*;
    assert_eq!(
        types(&parsed_events(&client).await),
        vec![
            ProductCreated,
            PlanCreated,
            ProductCreated,
            PlanCreated, // the plans, at start
            CustomerCreated,
            CustomerUpdated,
            InvoiceCreated,
            PaymentIntentSucceeded,
            InvoicePaid,
            InvoicePaymentSucceeded,
            CustomerSubscriptionCreated,
            InvoiceCreated,
            PaymentIntentSucceeded,
            InvoicePaid,
            InvoicePaymentSucceeded,
            CustomerSubscriptionUpdated,
            CustomerSubscriptionDeleted,
        ],
    );
}

#[actix_web::test]
async fn three_d_secure_and_declined_cards_behave_as_the_readme_says() {
    let stripe = LocalStripe::start().await;
    let client = client(&stripe);

    // 3-D Secure: the first payment waits for the customer, who passes the challenge...
    let grace = customer(&client, "grace@example.org").await;
    let subscription = subscribe(&stripe, &client, &grace, CARD_3DS).await;
    assert_eq!(subscription.status, SubscriptionStatus::Incomplete);
    let intent = payment_intent(latest_invoice(&subscription));
    assert_eq!(intent.status, PaymentIntentStatus::RequiresAction);
    let secret = intent.client_secret.clone().expect("a client secret");
    let paid = stripe.confirm_payment_intent(&secret, true).await.expect("authenticated");
    assert_eq!(paid["status"], "succeeded");
    let subscription = Subscription::retrieve(&client, &subscription.id, &[]).await.expect("subscription");
    assert_eq!(subscription.status, SubscriptionStatus::Active);

    // ... or fails it: the subscription stays incomplete, the payment intent says why.
    let alan = customer(&client, "alan@example.org").await;
    let subscription = subscribe(&stripe, &client, &alan, CARD_3DS).await;
    let secret = payment_intent(latest_invoice(&subscription)).client_secret.clone().expect("a client secret");
    let failed = stripe.confirm_payment_intent(&secret, false).await;
    assert_eq!(failed, Err("The provided PaymentMethod has failed authentication.".into()));
    let subscription = Subscription::retrieve(&client, &subscription.id, &["latest_invoice.payment_intent"]).await.expect("subscription");
    assert_eq!(subscription.status, SubscriptionStatus::Incomplete);
    let intent = payment_intent(latest_invoice(&subscription));
    assert_eq!(intent.status, PaymentIntentStatus::RequiresPaymentMethod);
    let error = intent.last_payment_error.as_ref().expect("the reason");
    assert_eq!(error.code, Some(stripe::ApiErrorsCode::PaymentIntentAuthenticationFailure));

    // Declined at setup, and when attached.
    let edsger = customer(&client, "edsger@example.org").await;
    let intent = SetupIntent::create(&client, CreateSetupIntent { customer: Some(edsger.id.clone()), ..CreateSetupIntent::new() })
        .await
        .expect("setup intent");
    let declined = stripe.confirm_setup_intent(intent.client_secret.as_deref().expect("secret"), CARD_DECLINED).await;
    assert_eq!(declined, Err("Your card was declined.".into()));
    let intent = SetupIntent::retrieve(&client, &intent.id, &[]).await.expect("setup intent");
    assert_eq!(intent.status, SetupIntentStatus::RequiresPaymentMethod);
    assert!(intent.last_setup_error.is_some());
    let method = stripe
        .post_form(
            "/v1/payment_methods",
            &[("type", "card"), ("card[number]", CARD_DECLINED), ("card[exp_month]", "12"), ("card[exp_year]", "2034"), ("card[cvc]", "123")],
        )
        .await;
    let method_id: PaymentMethodId = method["id"].as_str().expect("an id").parse().expect("a payment method id");
    match PaymentMethod::attach(&client, &method_id, AttachPaymentMethod { customer: edsger.id.clone() }).await {
        Err(StripeError::Stripe(error)) => {
            assert_eq!((error.http_status, error.error_type, error.code), (402, ErrorType::Card, Some(ErrorCode::CardDeclined)));
        }
        other => panic!("attaching a declined card: {other:?}"),
    }

    // Attaches, declined on charge: the subscription is made, incomplete.
    let barbara = customer(&client, "barbara@example.org").await;
    let subscription = subscribe(&stripe, &client, &barbara, CARD_DECLINED_ON_CHARGE).await;
    assert_eq!(subscription.status, SubscriptionStatus::Incomplete);
    let invoice = latest_invoice(&subscription);
    assert_eq!(invoice.status, Some(InvoiceStatus::Open));
    let intent = payment_intent(invoice);
    assert_eq!(intent.status, PaymentIntentStatus::RequiresPaymentMethod);
    assert_eq!(intent.last_payment_error.as_ref().and_then(|error| error.message.as_deref()), Some("Your card was declined."));

    let events = parsed_events(&client).await;
    let failures = types(&events).into_iter().filter(|kind| matches!(kind, EventType::InvoicePaymentFailed | EventType::PaymentIntentPaymentFailed));
    assert_eq!(failures.count(), 4, "the failed challenge and the declined charge each report both");
    assert!(types(&events).contains(&EventType::InvoicePaymentActionRequired));
}

/// Webhook deliveries received: (Stripe-Signature, body).
type Deliveries = Arc<Mutex<Vec<(String, String)>>>;

async fn webhook_receiver() -> (String, Deliveries) {
    let deliveries: Deliveries = Arc::default();
    let kept = deliveries.clone();
    let server = HttpServer::new(move || {
        let kept = kept.clone();
        App::new().route(
            "/hook",
            routes::post().to(move |request: HttpRequest, body: String| {
                let kept = kept.clone();
                async move {
                    let signature = request.headers().get("Stripe-Signature").and_then(|value| value.to_str().ok()).unwrap_or_default();
                    kept.lock().expect("deliveries").push((signature.to_owned(), body));
                    HttpResponse::Ok().finish()
                }
            }),
        )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .expect("a webhook receiver");
    let address = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    (format!("http://{address}/hook"), deliveries)
}

/// Waits (at most 10 s) until a delivered, correctly signed event satisfies `wanted`.
async fn wait_for_event(deliveries: &Deliveries, secret: &str, wanted: impl Fn(&Event) -> bool) -> Event {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let received = deliveries.lock().expect("deliveries").clone();
        for (signature, body) in &received {
            let event = Webhook::construct_event(body, signature, secret).unwrap_or_else(|error| panic!("{error:?}: {body}"));
            if wanted(&event) {
                return event;
            }
        }
        assert!(Instant::now() < deadline, "the event did not arrive; received {}", received.len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn an_embedded_checkout_session_is_paid_and_announced_by_a_signed_webhook() {
    const SECRET: &str = "whsec_test_peer";
    let stripe = LocalStripe::start().await;
    let client = client(&stripe);
    let (hook, deliveries) = webhook_receiver().await;
    stripe.register_webhook(&hook, SECRET).await;
    // One customer however often the first-need call is retried with its idempotency key.
    let once = client.clone().with_strategy(RequestStrategy::Idempotent("customer-of-user-1".into()));
    let ada = customer(&once, "ada@example.org").await;
    assert_eq!(customer(&once, "ada@example.org").await.id, ada.id);

    let mut create = CreateCheckoutSession::new();
    create.mode = Some(CheckoutSessionMode::Subscription);
    create.ui_mode = Some(CheckoutSessionUiMode::Embedded);
    create.customer = Some(ada.id.clone());
    create.line_items = Some(vec![CreateCheckoutSessionLineItems { price: Some(stripe.plan_pro().into()), quantity: Some(1), ..Default::default() }]);
    create.return_url = Some("http://127.0.0.1:1/payment-success?session_id={CHECKOUT_SESSION_ID}");
    create.metadata = Some([("userId".to_owned(), "user-1".to_owned())].into());
    create.client_reference_id = Some("user-1");
    let session = CheckoutSession::create(&client, create).await.expect("session");
    assert!(session.id.as_str().starts_with("cs_test_"));
    assert!(session.client_secret.as_deref().is_some_and(|secret| secret.starts_with(&format!("{}_secret_", session.id))));
    assert_eq!(session.return_url, Some(format!("http://127.0.0.1:1/payment-success?session_id={}", session.id)));
    assert_eq!((session.status, session.subscription.is_none()), (Some(CheckoutSessionStatus::Open), true));

    assert_eq!(stripe.complete_checkout_session(session.id.as_str(), CARD_DECLINED_ON_CHARGE).await, Err("Your card was declined.".into()));
    let completed = stripe.complete_checkout_session(session.id.as_str(), CARD_OK).await.expect("paid");
    assert_eq!(completed["status"], "complete");

    let id: CheckoutSessionId = session.id.clone();
    let session = CheckoutSession::retrieve(&client, &id, &["subscription"]).await.expect("session parses");
    assert_eq!(session.status, Some(CheckoutSessionStatus::Complete));
    let subscription = match &session.subscription {
        Some(Expandable::Object(subscription)) => subscription.clone(),
        other => panic!("the subscription is not expanded: {other:?}"),
    };
    assert_eq!(subscription.status, SubscriptionStatus::Active);
    let customer_now = Customer::retrieve(&client, &ada.id, &[]).await.expect("customer");
    let default = customer_now.invoice_settings.and_then(|settings| settings.default_payment_method).map(|method| method.id());
    assert!(default.is_some(), "the card became the default");

    let event = wait_for_event(&deliveries, SECRET, |event| event.type_ == EventType::CheckoutSessionCompleted).await;
    match &event.data.object {
        EventObject::CheckoutSession(paid) => {
            assert_eq!(paid.id, session.id);
            assert_eq!(paid.subscription.as_ref().map(Expandable::id), Some(subscription.id.clone()));
            assert_eq!(paid.metadata.as_ref().and_then(|metadata| metadata.get("userId")).map(String::as_str), Some("user-1"));
        }
        other => panic!("a checkout session, not {other:?}"),
    }
    let created: SubscriptionId = subscription.id.clone();
    wait_for_event(&deliveries, SECRET, |event| {
        event.type_ == EventType::CustomerSubscriptionCreated && matches!(&event.data.object, EventObject::Subscription(made) if made.id == created)
    })
    .await;

    // A duplicate delivery carries the same event id; no endpoint, no delivery.
    let before = deliveries.lock().expect("deliveries").len();
    stripe.resend_event(event.id.as_str()).await;
    let again = wait_for_event(&deliveries, SECRET, |again| again.id == event.id && again.created == event.created).await;
    assert_eq!(again.type_, EventType::CheckoutSessionCompleted);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let with_duplicate = deliveries.lock().expect("deliveries").len();
    assert!(with_duplicate > before);
    stripe.unregister_webhooks().await;
    assert_eq!(stripe.delete(&format!("/v1/subscriptions/{}", subscription.id)).await["status"], "canceled");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(deliveries.lock().expect("deliveries").len(), with_duplicate, "nothing is delivered without an endpoint");
}
