//! Billing with Stripe on, against localstripe (a stateful Stripe peer on loopback) delivering
//! its webhooks to the running server: each scenario checks the tier, the tracking row and the
//! mail. The card steps the browser takes with Stripe.js are taken by the harness.

use std::time::{Duration, Instant};

use chrono::Utc;
use engine::billing::TrackingStatus;
use engine::Tier;
use serde_json::{json, Value};
use web::config::StripeArgs;

use crate::common::stripe::LocalStripe;
use crate::common::{Answer, Client, TestServer};

pub(crate) const WEBHOOK_SECRET: &str = "whsec_papertide_test";
pub(crate) const CARD_OK: &str = "4242424242424242";
const CARD_3DS: &str = "4000002500003155";
const CARD_DECLINED: &str = "4000000000000002";
const CARD_DECLINED_ON_CHARGE: &str = "4000000000000341";

/// Billing settings that point at `stripe`, with [`WEBHOOK_SECRET`].
pub(crate) fn stripe_args(stripe: &LocalStripe) -> StripeArgs {
    StripeArgs {
        stripe_secret_key: Some(stripe.secret_key().to_owned()),
        stripe_publishable_key: Some(stripe.publishable_key().to_owned()),
        stripe_webhook_secret: Some(WEBHOOK_SECRET.to_owned()),
        stripe_api_url: Some(stripe.api_url()),
        stripe_js_url: Some(stripe.js_url()),
        stripe_price_pro: Some(stripe.plan_pro().to_owned()),
        stripe_price_team: Some(stripe.plan_team().to_owned()),
    }
}

pub(crate) struct Billing {
    pub(crate) server: TestServer,
    pub(crate) stripe: LocalStripe,
}

impl Billing {
    pub(crate) async fn start() -> Billing {
        Billing::start_with(|_| {}).await
    }

    /// Billing on, with the options `configure` adjusts as well.
    pub(crate) async fn start_with(configure: impl FnOnce(&mut web::config::ServeArgs)) -> Billing {
        let stripe = LocalStripe::start().await;
        let server = TestServer::start_with(|serve| {
            serve.stripe = stripe_args(&stripe);
            configure(serve);
        })
        .await;
        stripe.register_webhook(&format!("{}/api/stripe/webhook", server.base), WEBHOOK_SECRET).await;
        Billing { server, stripe }
    }

    /// A verified, signed-in free user with `terms` active terms.
    pub(crate) async fn user(&self, email: &str, terms: usize) -> Client {
        let client = self.server.client();
        self.server.verified_user(&client, email).await;
        for index in 0..terms {
            let answer = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": format!("topic number {index}") })).await;
            assert!(answer.status < 300 || answer.status == 402, "{}", answer.body);
        }
        client
    }

    pub(crate) fn user_record(&self, email: &str) -> store::User {
        self.server.state.store.accounts().user_by_email(email).expect("db").expect("user")
    }

    pub(crate) fn tier(&self, email: &str) -> Tier {
        self.user_record(email).subscription_tier
    }

    fn tracking(&self, subscription_id: &str) -> engine::billing::SubscriptionTracking {
        self.server.state.store.billing().subscription_tracking(subscription_id).expect("db").expect("a tracking row")
    }

    /// The mails to `email` whose subject has `subject`, once the queue has drained.
    async fn mails_to(&self, email: &str, subject: &str) -> Vec<String> {
        self.server.wait_for_empty_queue().await;
        let (to, subject) = (format!("To: {email}\r\n"), format!("Subject: {subject}"));
        self.server.outbox().into_iter().filter(|mail| mail.contains(&to) && mail.contains(&subject)).collect()
    }

    /// Step 1 and the browser's card confirmation; the answer of step 2.
    pub(crate) async fn pay(&self, client: &Client, tier: &str, card: &str) -> Answer {
        let setup = client.post("/api/create-subscription", json!({ "tier": tier })).await;
        assert_eq!((setup.status, setup.body["step"].as_str()), (200, Some("setup")), "{}", setup.body);
        let secret = setup.body["clientSecret"].as_str().expect("a SetupIntent secret").to_owned();
        self.stripe.confirm_setup_intent(&secret, card).await.expect("the card is accepted for setup");
        let setup_intent_id = secret.split("_secret_").next().unwrap_or_default();
        client.post("/api/create-subscription", json!({ "tier": tier, "setupIntentId": setup_intent_id })).await
    }

    pub(crate) async fn wait_for_tier(&self, email: &str, tier: Tier) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.tier(email) != tier {
            assert!(Instant::now() < deadline, "{email} did not reach {tier}; it is on {}", self.tier(email));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Posts a webhook event signed as Stripe would, at `timestamp`.
    pub(crate) async fn webhook(&self, event: &Value, timestamp: i64, secret: &str) -> Answer {
        let body = event.to_string();
        let signature = web::billing::webhook::sign(secret, body.as_bytes(), timestamp);
        self.server.client().post_raw("/api/stripe/webhook", &[("Stripe-Signature", &signature), ("Content-Type", "application/json")], body).await
    }
}

pub(crate) fn event(id: &str, kind: &str, object: Value) -> Value {
    json!({ "id": id, "object": "event", "type": kind, "created": Utc::now().timestamp(), "data": { "object": object } })
}

#[actix_web::test]
async fn a_free_user_upgrades_to_pro_then_team_by_card_and_cancels() {
    let billing = Billing::start().await;
    let email = "ada@example.org";
    let ada = billing.user(email, 1).await;

    let paid = billing.pay(&ada, "pro", CARD_OK).await;
    assert_eq!((paid.status, paid.body["step"].as_str()), (200, Some("subscription")), "{}", paid.body);
    assert_eq!(paid.body["clientSecret"], Value::Null, "no 3-D Secure for this card");
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    billing.wait_for_tier(email, Tier::Pro).await;
    let row = billing.tracking(&subscription_id);
    assert_eq!((row.status, row.provisioned, row.tier), (TrackingStatus::Active, true, Tier::Pro));
    let status = ada.get(&format!("/api/subscriptions/{subscription_id}/status")).await;
    assert_eq!((status.status, status.body["state"].as_str()), (200, Some("success")), "{}", status.body);
    let me = ada.get("/api/auth/me").await;
    assert_eq!(me.body["user"]["subscriptionTier"], "pro", "{}", me.body);

    // localstripe's own webhooks for this payment arrive about a second later: they change nothing.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let receipts = billing.mails_to(email, "Your Papertide Pro plan is active").await;
    assert_eq!(receipts.len(), 1, "one receipt, whatever the webhooks");
    assert!(receipts[0].contains("$5.00"), "{}", receipts[0]);

    // Pro to team changes the same subscription's plan.
    let team = billing.pay(&ada, "team", CARD_OK).await;
    assert_eq!(team.status, 200, "{}", team.body);
    assert_eq!(team.body["subscriptionId"].as_str(), Some(subscription_id.as_str()), "the existing subscription changed plan");
    billing.wait_for_tier(email, Tier::Team).await;
    let stripe_subscription = billing.stripe.get(&format!("/v1/subscriptions/{subscription_id}")).await;
    assert_eq!(stripe_subscription["items"]["data"][0]["plan"]["id"].as_str(), Some(billing.stripe.plan_team()));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(billing.mails_to(email, "Your Papertide Team plan is active").await.len(), 1);

    let again = ada.post("/api/create-subscription", json!({ "tier": "team" })).await;
    assert_eq!((again.status, again.body["alreadyActive"].as_bool()), (200, Some(true)), "{}", again.body);
    assert_eq!(again.body["subscriptionId"].as_str(), Some(subscription_id.as_str()));
    let down = ada.post("/api/create-subscription", json!({ "tier": "pro" })).await;
    assert_eq!((down.status, down.body["code"].as_str()), (400, Some("downgrade_not_offered")), "{}", down.body);
    let checkout = ada.post("/api/create-checkout-session", json!({ "tier": "team" })).await;
    assert_eq!((checkout.status, checkout.body["code"].as_str()), (409, Some("already_active")), "{}", checkout.body);

    // Cancel: refused with two active terms, then accepted with one.
    let second = ada.post("/api/immediate-search", json!({ "email": email, "searchTerm": "second topic here" })).await;
    assert!(second.status < 300, "{}", second.body);
    let refused = ada.post("/api/cancel-subscription", json!({})).await;
    assert_eq!((refused.status, refused.body["requiresSearchDeletion"].as_bool()), (400, Some(true)), "{}", refused.body);
    assert_eq!(refused.body["currentSearchCount"], 2);
    assert_eq!(billing.tier(email), Tier::Team, "nothing changed");
    let terms = billing.server.state.store.terms().of_user(billing.user_record(email).id).expect("db");
    assert_eq!(ada.delete(&format!("/api/search-terms/{}", terms[1].id.0)).await.status, 200);
    let canceled = ada.post("/api/cancel-subscription", json!({})).await;
    assert_eq!((canceled.status, canceled.body["tier"].as_str()), (200, Some("free")), "{}", canceled.body);
    assert_eq!(billing.tier(email), Tier::Free);
    let at_stripe = billing.stripe.get(&format!("/v1/subscriptions/{subscription_id}")).await;
    assert_eq!(at_stripe["status"], "canceled", "{at_stripe}");
    assert_eq!(billing.tracking(&subscription_id).status, TrackingStatus::Canceled);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(billing.mails_to(email, "Your Papertide Team plan has ended").await.len(), 1, "one notice, whatever the webhooks");
    assert_eq!(billing.tier(email), Tier::Free);
}

#[actix_web::test]
async fn three_d_secure_success_moves_the_plan_and_failure_leaves_it() {
    let billing = Billing::start().await;
    let grace = billing.user("grace@example.org", 1).await;
    let paid = billing.pay(&grace, "pro", CARD_3DS).await;
    assert_eq!(paid.status, 200, "{}", paid.body);
    let secret = paid.body["clientSecret"].as_str().unwrap_or_else(|| panic!("3-D Secure needs the customer: {}", paid.body)).to_owned();
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    assert_eq!(billing.tier("grace@example.org"), Tier::Free, "nothing moves before the payment is confirmed");
    let pending = grace.get(&format!("/api/subscriptions/{subscription_id}/status")).await;
    assert_eq!(pending.body["state"], "pending", "{}", pending.body);
    billing.stripe.confirm_payment_intent(&secret, true).await.expect("3-D Secure passes");
    billing.wait_for_tier("grace@example.org", Tier::Pro).await;
    assert_eq!(billing.tracking(&subscription_id).state(), "success");
    assert_eq!(billing.mails_to("grace@example.org", "Your Papertide Pro plan is active").await.len(), 1);

    let alan = billing.user("alan@example.org", 1).await;
    let paid = billing.pay(&alan, "pro", CARD_3DS).await;
    let secret = paid.body["clientSecret"].as_str().unwrap_or_else(|| panic!("3-D Secure needs the customer: {}", paid.body)).to_owned();
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    assert!(billing.stripe.confirm_payment_intent(&secret, false).await.is_err(), "3-D Secure refused");
    let deadline = Instant::now() + Duration::from_secs(12);
    loop {
        let status = alan.get(&format!("/api/subscriptions/{subscription_id}/status")).await;
        if status.body["state"] == "failed" {
            assert!(!status.body["reason"].as_str().unwrap_or_default().is_empty(), "{}", status.body);
            break;
        }
        assert!(Instant::now() < deadline, "the failed 3-D Secure never showed: {}", status.body);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(billing.tier("alan@example.org"), Tier::Free);
    assert_eq!(billing.tracking(&subscription_id).status, TrackingStatus::Failed);
    assert!(billing.mails_to("alan@example.org", "plan is active").await.is_empty());
}

#[actix_web::test]
async fn declined_cards_change_nothing() {
    let billing = Billing::start().await;
    let bob = billing.user("bob@example.org", 1).await;
    let setup = bob.post("/api/create-subscription", json!({ "tier": "pro" })).await;
    let secret = setup.body["clientSecret"].as_str().expect("a SetupIntent secret").to_owned();
    let refused = billing.stripe.confirm_setup_intent(&secret, CARD_DECLINED).await;
    assert!(refused.is_err(), "a declined card cannot be set up: {refused:?}");
    let setup_intent_id = secret.split("_secret_").next().unwrap_or_default();
    let unconfirmed = bob.post("/api/create-subscription", json!({ "tier": "pro", "setupIntentId": setup_intent_id })).await;
    assert_eq!(unconfirmed.status, 400, "{}", unconfirmed.body);
    assert!(billing.server.state.store.billing().all_subscription_trackings().expect("db").is_empty());

    let charged = billing.pay(&bob, "pro", CARD_DECLINED_ON_CHARGE).await;
    assert_eq!((charged.status, charged.body["code"].as_str()), (402, Some("card_declined")), "{}", charged.body);
    assert!(!charged.message().is_empty());
    let subscription_id = charged.body["subscriptionId"].as_str().expect("the refused subscription").to_owned();
    let row = billing.tracking(&subscription_id);
    assert_eq!((row.status, row.provisioned), (TrackingStatus::Failed, false));
    let at_stripe = billing.stripe.get(&format!("/v1/subscriptions/{subscription_id}")).await;
    assert_ne!(at_stripe["status"], "active", "nothing half-done at Stripe: {at_stripe}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(billing.tier("bob@example.org"), Tier::Free);
    assert!(billing.mails_to("bob@example.org", "Papertide Pro plan").await.is_empty());

    // A good card afterwards works.
    let good = billing.pay(&bob, "pro", CARD_OK).await;
    assert_eq!(good.status, 200, "{}", good.body);
    billing.wait_for_tier("bob@example.org", Tier::Pro).await;
}

#[actix_web::test]
async fn webhooks_are_signed_applied_once_and_safe_out_of_order() {
    let billing = Billing::start().await;
    let email = "eve@example.org";
    let eve = billing.user(email, 1).await;
    let paid = billing.pay(&eve, "pro", CARD_OK).await;
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    billing.wait_for_tier(email, Tier::Pro).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;

    // The subscription ends at Stripe, with no webhook delivered.
    billing.stripe.unregister_webhooks().await;
    let deleted = billing.stripe.delete(&format!("/v1/subscriptions/{subscription_id}")).await;
    assert_eq!(deleted["status"], "canceled", "{deleted}");
    let now = Utc::now().timestamp();
    let subscription = json!({ "object": "subscription", "id": subscription_id, "status": "canceled" });
    let ended = event("evt_ended", "customer.subscription.deleted", subscription.clone());

    let forged = billing.webhook(&ended, now, "whsec_someone_else").await;
    assert_eq!(forged.status, 400, "{}", forged.body);
    let stale = billing.webhook(&ended, now - 301, WEBHOOK_SECRET).await;
    assert_eq!(stale.status, 400, "{}", stale.body);
    let unsigned = billing.server.client().post_raw("/api/stripe/webhook", &[("Content-Type", "application/json")], ended.to_string()).await;
    assert_eq!(unsigned.status, 400, "{}", unsigned.body);
    assert_eq!(billing.tier(email), Tier::Pro, "refused webhooks change nothing");

    let applied = billing.webhook(&ended, now, WEBHOOK_SECRET).await;
    assert_eq!((applied.status, applied.body["received"].as_bool()), (200, Some(true)), "{}", applied.body);
    assert_eq!(billing.tier(email), Tier::Free);
    let twice = billing.webhook(&ended, now, WEBHOOK_SECRET).await;
    assert_eq!((twice.status, twice.body["duplicate"].as_bool()), (200, Some(true)), "{}", twice.body);

    // An older "paid" event arriving after the end: the subscription is read again, and it is over.
    let invoice = json!({ "object": "invoice", "id": "in_old", "subscription": subscription_id, "paid": true, "status": "paid" });
    let late = billing.webhook(&event("evt_paid_earlier", "invoice.payment_succeeded", invoice), now, WEBHOOK_SECRET).await;
    assert_eq!(late.status, 200, "{}", late.body);
    assert_eq!(billing.tier(email), Tier::Free, "a late payment event does not bring a canceled plan back");
    assert_eq!(billing.mails_to(email, "Your Papertide Pro plan has ended").await.len(), 1);
    assert_eq!(billing.mails_to(email, "Your Papertide Pro plan is active").await.len(), 1);
    let me = eve.get("/api/auth/me").await;
    assert_eq!(me.body["user"]["planEnded"]["tier"], "pro", "{}", me.body);

    let garbage = billing.webhook(&json!({ "no": "event" }), now, WEBHOOK_SECRET).await;
    assert_eq!(garbage.status, 400, "{}", garbage.body);
}

#[actix_web::test]
async fn the_repair_call_sets_the_plan_a_lost_webhook_left_behind() {
    let billing = Billing::start().await;
    let email = "lin@example.org";
    let lin = billing.user(email, 1).await;
    billing.stripe.unregister_webhooks().await;
    let paid = billing.pay(&lin, "pro", CARD_3DS).await;
    let secret = paid.body["clientSecret"].as_str().unwrap_or_else(|| panic!("3-D Secure needs the customer: {}", paid.body)).to_owned();
    billing.stripe.confirm_payment_intent(&secret, true).await.expect("3-D Secure passes");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(billing.tier(email), Tier::Free, "no webhook, no poll: the payment is not known yet");

    let debug = lin.get("/api/debug-webhook-status").await;
    assert_eq!(debug.status, 200, "{}", debug.body);
    assert_eq!(debug.body["user"]["email"], email);
    assert_eq!(debug.body["stripe"]["subscriptions"][0]["status"], "active", "{}", debug.body);
    let invoices = debug.body["stripe"]["invoices"].as_array().expect("invoices");
    assert!(invoices.iter().any(|invoice| invoice["paid"] == true && invoice["amount_paid"] == 500), "{}", debug.body);

    let fixed = lin.post("/api/fix-subscription", json!({})).await;
    assert_eq!((fixed.status, fixed.body["tier"].as_str(), fixed.body["changed"].as_bool()), (200, Some("pro"), Some(true)), "{}", fixed.body);
    assert_eq!(billing.tier(email), Tier::Pro);
    let again = lin.post("/api/fix-subscription", json!({})).await;
    assert_eq!(again.body["changed"], false, "{}", again.body);
    assert_eq!(billing.mails_to(email, "Your Papertide Pro plan is active").await.len(), 1);
}

#[actix_web::test]
async fn a_paid_plan_ending_keeps_five_terms_and_an_upgrade_brings_them_back() {
    let billing = Billing::start().await;
    let email = "kim@example.org";
    let kim = billing.user(email, 1).await;
    let paid = billing.pay(&kim, "team", CARD_OK).await;
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    billing.wait_for_tier(email, Tier::Team).await;
    for index in 1..5 {
        let added = kim.post("/api/immediate-search", json!({ "email": email, "searchTerm": format!("team topic {index}") })).await;
        assert!(added.status < 300, "{}", added.body);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    billing.stripe.unregister_webhooks().await;
    billing.stripe.delete(&format!("/v1/subscriptions/{subscription_id}")).await;
    let ended = event("evt_team_ended", "customer.subscription.deleted", json!({ "object": "subscription", "id": subscription_id }));
    assert_eq!(billing.webhook(&ended, Utc::now().timestamp(), WEBHOOK_SECRET).await.status, 200);

    let user = billing.user_record(email);
    assert_eq!(user.subscription_tier, Tier::Free);
    let terms = billing.server.state.store.terms().of_user(user.id).expect("db");
    assert_eq!(terms.iter().map(|term| term.is_active).collect::<Vec<_>>(), vec![true, false, false, false, false], "the oldest stays active");
    let notice = billing.mails_to(email, "Your Papertide Team plan has ended").await;
    assert_eq!(notice.len(), 1);
    assert!(notice[0].contains("4 search terms are now inactive"), "{}", notice[0]);
    let me = kim.get("/api/auth/me").await;
    assert_eq!(
        (me.body["user"]["planEnded"]["inactiveTerms"].as_u64(), me.body["user"]["planEnded"]["tier"].as_str()),
        (Some(4), Some("team")),
        "{}",
        me.body
    );
    let list = kim.get(&format!("/api/users/{}/search-terms", user.id.0)).await;
    assert_eq!(list.body.as_array().map(|terms| terms.iter().filter(|term| term["isActive"] == true).count()), Some(1), "{}", list.body);
    let preferences = kim.get(&format!("/api/users/{}/preferences", user.id.0)).await;
    assert_eq!(
        (preferences.body["includeArxiv"].as_bool(), preferences.body["deliveryDay"].as_str()),
        (Some(false), Some("monday")),
        "{}",
        preferences.body
    );

    billing.stripe.register_webhook(&format!("{}/api/stripe/webhook", billing.server.base), WEBHOOK_SECRET).await;
    let back = billing.pay(&kim, "pro", CARD_OK).await;
    assert_eq!(back.status, 200, "{}", back.body);
    billing.wait_for_tier(email, Tier::Pro).await;
    let terms = billing.server.state.store.terms().of_user(user.id).expect("db");
    assert!(terms.iter().all(|term| term.is_active), "pro has room for all five");
    let receipt = billing.mails_to(email, "Your Papertide Pro plan is active").await;
    assert!(receipt.len() == 1 && receipt[0].contains("4 of your search terms are active again"), "{receipt:?}");
    assert_eq!(kim.get("/api/auth/me").await.body["user"]["planEnded"], Value::Null);
}

#[actix_web::test]
async fn checkout_sessions_and_other_users_records() {
    let billing = Billing::start().await;
    let ada = billing.user("ada@example.org", 1).await;
    let mallory = billing.user("mallory@example.org", 1).await;

    let created = ada.post("/api/create-checkout-session", json!({ "tier": "pro" })).await;
    assert_eq!(created.status, 200, "{}", created.body);
    let secret = created.body["clientSecret"].as_str().expect("a client secret").to_owned();
    let session_id = secret.split("_secret_").next().unwrap_or_default().to_owned();
    let open = ada.get(&format!("/api/session-status?session_id={session_id}")).await;
    assert_eq!((open.status, open.body["status"].as_str()), (200, Some("open")), "{}", open.body);
    assert_eq!(mallory.get(&format!("/api/session-status?session_id={session_id}")).await.status, 404, "another user's session");

    billing.stripe.complete_checkout_session(&session_id, CARD_OK).await.expect("checkout completes");
    let complete = ada.get(&format!("/api/session-status?session_id={session_id}")).await;
    assert_eq!(complete.body["status"], "complete", "{}", complete.body);
    let subscription_id = complete.body["subscription_id"].as_str().expect("a subscription").to_owned();
    billing.wait_for_tier("ada@example.org", Tier::Pro).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(billing.mails_to("ada@example.org", "Your Papertide Pro plan is active").await.len(), 1);

    // Another user's subscription is not there for mallory, whatever the call.
    assert_eq!(mallory.get(&format!("/api/subscriptions/{subscription_id}/status")).await.status, 404);
    assert_eq!(mallory.get("/api/subscriptions/sub_nothing/status").await.status, 404);
    let debug = mallory.get("/api/debug-webhook-status").await;
    assert_eq!(debug.body["stripe"]["subscriptions"], json!([]), "{}", debug.body);
    assert_eq!(mallory.post("/api/fix-subscription", json!({})).await.body["tier"], "free");
    assert_eq!(billing.tier("mallory@example.org"), Tier::Free);

    // A pro user changes plan on the card form, not in Checkout.
    let upgrade = ada.post("/api/create-checkout-session", json!({ "tier": "team" })).await;
    assert_eq!((upgrade.status, upgrade.body["code"].as_str()), (409, Some("use_card_form")), "{}", upgrade.body);
    let bad = ada.post("/api/create-checkout-session", json!({ "tier": "gold" })).await;
    assert_eq!((bad.status, bad.message()), (400, "Please select a valid subscription plan."));
    let visitor = billing.server.client();
    for (method, path) in [
        ("POST", "/api/create-subscription"),
        ("POST", "/api/create-checkout-session"),
        ("GET", "/api/debug-webhook-status"),
        ("POST", "/api/fix-subscription"),
    ] {
        let answer = if method == "GET" { visitor.get(path).await } else { visitor.post(path, json!({ "tier": "pro" })).await };
        assert_eq!(answer.status, 401, "{method} {path}");
    }
}

#[actix_web::test]
async fn the_client_is_told_where_stripe_js_is() {
    let billing = Billing::start().await;
    let config = billing.server.client().get("/api/config").await;
    assert_eq!(config.body["billingEnabled"], true);
    assert_eq!(config.body["stripe"]["publishableKey"], billing.stripe.publishable_key());
    assert!(config.body["stripe"]["jsUrl"].as_str().unwrap_or_default().ends_with("/js.stripe.com/v3/"), "{}", config.body);
    let off = TestServer::start().await.client().get("/api/config").await;
    assert_eq!((off.body["billingEnabled"].as_bool(), off.body["stripe"].is_null()), (Some(false), true), "{}", off.body);
}

#[actix_web::test]
async fn the_status_page_reads_a_pending_subscription_again_when_its_webhook_is_lost() {
    let billing = Billing::start().await;
    let email = "noor@example.org";
    let noor = billing.user(email, 1).await;
    billing.stripe.unregister_webhooks().await;
    let paid = billing.pay(&noor, "pro", CARD_3DS).await;
    let secret = paid.body["clientSecret"].as_str().unwrap_or_else(|| panic!("3-D Secure needs the customer: {}", paid.body)).to_owned();
    let subscription_id = paid.body["subscriptionId"].as_str().expect("a subscription").to_owned();
    billing.stripe.confirm_payment_intent(&secret, true).await.expect("3-D Secure passes");
    let status = format!("/api/subscriptions/{subscription_id}/status");
    assert_eq!(noor.get(&status).await.body["state"], "pending", "just created: the row is trusted for a few seconds");
    let started = Instant::now();
    loop {
        let answer = noor.get(&status).await;
        if answer.body["state"] == "success" {
            break;
        }
        assert_eq!(answer.body["state"], "pending", "{}", answer.body);
        assert!(started.elapsed() < Duration::from_secs(15), "the lost webhook was never made up for");
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    assert_eq!(billing.tier(email), Tier::Pro);
    assert_eq!(billing.mails_to(email, "Your Papertide Pro plan is active").await.len(), 1);
}
