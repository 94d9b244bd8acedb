//! What the simulated users do while the server may die under them, and what the scenario
//! knows for certain about it afterwards (the ledger): an action whose answer arrived is
//! acknowledged and must survive every later crash; an action the server died under is in doubt
//! until the database or a retry settles it.

use std::cell::Cell;

use chrono::Utc;
use serde_json::{json, Value};

use super::rng::Rng;
use super::server::{Browser, Reply};
use testkit::maildev::Maildev;
use testkit::stripe::{LocalStripe, CARD_OK, PLAN_PRO};

pub const PASSWORD: &str = "Crash-test-1";
pub const WEBHOOK_SECRET: &str = "whsec_papertide_crash";
pub const VERIFY_SUBJECT: &str = "Verify your email for Papertide";

/// Topics the recorded PubMed and arXiv papers are about, so digests carry papers.
const TOPICS: &[&str] = &[
    "phthalate exposure",
    "liver toxicity",
    "endocrine disruptors",
    "codon substitution model",
    "oxidative stress",
    "hepatic steatosis",
    "molecular evolution",
    "prenatal exposure",
];

/// A plan the scenario expects a user to be on, once nothing about it is in doubt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Free,
    Pro,
}

impl Plan {
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
        }
    }
}

/// A Stripe event the server has not acknowledged yet: Stripe delivers it again.
#[derive(Debug, Clone)]
pub struct PendingEvent {
    pub body: String,
    pub expected: Plan,
}

/// One simulated user and everything acknowledged to them.
pub struct User {
    pub email: String,
    pub browser: Browser,
    /// The signup was answered (201).
    pub signed_up: bool,
    /// A signup was sent and not answered: the account may or may not exist.
    pub signup_in_doubt: bool,
    pub verified: bool,
    pub signed_in: bool,
    /// Terms whose immediate search was answered.
    pub terms: Vec<String>,
    /// Digests whose immediate search was answered with their id.
    pub digests: Vec<String>,
    pub plan: Plan,
    /// A plan change was sent and not answered, or an event waits for redelivery: the plan is
    /// not checked until it is settled.
    pub plan_in_doubt: bool,
    pub pending_event: Option<PendingEvent>,
    pub customer: Option<String>,
    pub subscription: Option<String>,
    /// Plan changes answered (each queues one mail) and attempted (at most one mail each).
    pub plan_changes_acknowledged: u32,
    pub plan_changes_attempted: u32,
}

impl User {
    pub fn new(email: String, base: &str) -> anyhow::Result<User> {
        Ok(User {
            email,
            browser: Browser::new(base)?,
            signed_up: false,
            signup_in_doubt: false,
            verified: false,
            signed_in: false,
            terms: Vec::new(),
            digests: Vec::new(),
            plan: Plan::Free,
            plan_in_doubt: false,
            pending_event: None,
            customer: None,
            subscription: None,
            plan_changes_acknowledged: 0,
            plan_changes_attempted: 0,
        })
    }

    fn exists(&self) -> bool {
        self.signed_up || self.signup_in_doubt
    }
}

/// Counters the kill trigger watches, set by the workload around its requests.
#[derive(Default)]
pub struct InFlight {
    pub webhook: Cell<bool>,
    pub search: Cell<bool>,
    pub plan_change: Cell<bool>,
}

/// Everything the users did, for the report.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub requests: u64,
    pub unanswered: u64,
    pub signups: u64,
    pub searches: u64,
    pub webhooks: u64,
    pub plan_changes: u64,
}

/// The users' side of one server life: acts until the future is dropped (the server was killed)
/// or `steps` actions are done.
pub async fn act(users: &mut [User], rng: &mut Rng, maildev: &Maildev, stripe: &LocalStripe, in_flight: &InFlight, tally: &mut Tally, steps: usize) {
    for _ in 0..steps {
        let index = rng.below(users.len() as u64) as usize;
        let user = &mut users[index];
        step(user, rng, maildev, stripe, in_flight, tally).await;
        let pause_ms = rng.below(60);
        tokio::time::sleep(std::time::Duration::from_millis(pause_ms)).await;
    }
}

/// One action of `user`, chosen by what they can do now.
async fn step(user: &mut User, rng: &mut Rng, maildev: &Maildev, stripe: &LocalStripe, in_flight: &InFlight, tally: &mut Tally) {
    if !user.exists() {
        return signup(user, tally).await;
    }
    if !user.verified {
        return verify(user, maildev, tally).await;
    }
    if !user.signed_in && !sign_in(user, tally).await {
        return;
    }
    if let Some(event) = user.pending_event.clone() {
        return deliver_event(user, &event, in_flight, tally).await;
    }
    if user.plan_in_doubt {
        return repair_plan(user, tally).await;
    }
    let roll = rng.below(100);
    match (user.plan, user.customer.is_some(), user.subscription.is_some()) {
        (Plan::Free, false, _) if roll < 35 => upgrade_by_card(user, stripe, in_flight, tally).await,
        (Plan::Free, true, _) if roll < 30 => resubscribe_at_stripe(user, stripe, in_flight, tally).await,
        (Plan::Pro, _, true) if roll < 25 => cancel_at_stripe(user, stripe, in_flight, tally).await,
        _ => search(user, rng, in_flight, tally).await,
    }
}

fn count(tally: &mut Tally, reply: &Reply) {
    tally.requests += 1;
    if reply.status().is_none() {
        tally.unanswered += 1;
    }
}

async fn signup(user: &mut User, tally: &mut Tally) {
    let body = json!({
        "email": user.email,
        "researchField": "biology",
        "password": PASSWORD,
        "confirmPassword": PASSWORD,
        "agreeToTerms": true,
        "agreeToPrivacy": true,
    });
    user.signup_in_doubt = true;
    let reply = user.browser.post("/api/signup", &body).await;
    count(tally, &reply);
    tally.signups += 1;
    // A taken address answers 201 as well (no enumeration), and mails its owner instead.
    if reply.status() == Some(201) {
        user.signup_in_doubt = false;
        user.signed_up = true;
    }
}

/// Follows the verification link of the mail that arrived, or signs in if an earlier
/// verification went through before its answer was lost.
async fn verify(user: &mut User, maildev: &Maildev, tally: &mut Tally) {
    let Some(token) = verification_token(maildev, &user.email).await else { return };
    let reply = user.browser.get(&format!("/api/verify-email?token={token}")).await;
    count(tally, &reply);
    match reply.status() {
        Some(200) => {
            user.verified = true;
            user.signed_in = true;
            user.signed_up = true;
            user.signup_in_doubt = false;
        }
        // A used token: the address may be verified already.
        Some(_) => {
            sign_in(user, tally).await;
        }
        None => {}
    }
}

/// Signs in with the password: true when signed in (which also proves the address verified).
async fn sign_in(user: &mut User, tally: &mut Tally) -> bool {
    let reply = user.browser.post("/api/auth/login", &json!({ "email": user.email, "password": PASSWORD })).await;
    count(tally, &reply);
    if reply.status() == Some(200) {
        user.verified = true;
        user.signed_in = true;
        user.signed_up = true;
        user.signup_in_doubt = false;
    }
    user.signed_in
}

async fn search(user: &mut User, rng: &mut Rng, in_flight: &InFlight, tally: &mut Tally) {
    let topic = *rng.pick(TOPICS);
    in_flight.search.set(true);
    let reply = user.browser.post("/api/immediate-search", &json!({ "email": user.email, "searchTerm": topic })).await;
    in_flight.search.set(false);
    count(tally, &reply);
    tally.searches += 1;
    match reply.status() {
        Some(200) => {
            if !user.terms.iter().any(|term| term.eq_ignore_ascii_case(topic)) {
                user.terms.push(topic.to_owned());
            }
            if let Some(digest) = reply.body()["digestId"].as_str() {
                user.digests.push(digest.to_owned());
            }
        }
        Some(401) => user.signed_in = false,
        _ => {}
    }
}

/// The card flow of `/payment`: a SetupIntent, the card confirmed as Stripe.js would, then the
/// subscription (free → pro).
async fn upgrade_by_card(user: &mut User, stripe: &LocalStripe, in_flight: &InFlight, tally: &mut Tally) {
    // In doubt from the moment a call that can change the plan is sent until its answer is read:
    // when the server is killed meanwhile, this future is dropped before the answer, and the
    // server may have committed the change (or created the customer). The repair call settles it.
    user.plan_in_doubt = true;
    let setup = user.browser.post("/api/create-subscription", &json!({ "tier": "pro" })).await;
    count(tally, &setup);
    if setup.status().is_none() {
        return;
    }
    user.plan_in_doubt = false;
    if setup.status() != Some(200) {
        return;
    }
    let Some(secret) = setup.body()["clientSecret"].as_str().map(str::to_owned) else { return };
    if stripe.confirm_setup_intent(&secret, CARD_OK).await.is_err() {
        return;
    }
    let setup_intent_id = secret.split("_secret_").next().unwrap_or_default().to_owned();
    user.plan_changes_attempted += 1;
    tally.plan_changes += 1;
    in_flight.plan_change.set(true);
    user.plan_in_doubt = true;
    let paid = user.browser.post("/api/create-subscription", &json!({ "tier": "pro", "setupIntentId": setup_intent_id })).await;
    in_flight.plan_change.set(false);
    count(tally, &paid);
    if paid.status().is_none() {
        return;
    }
    user.plan_in_doubt = false;
    if paid.status() == Some(200) {
        user.plan = Plan::Pro;
        user.plan_changes_acknowledged += 1;
        user.subscription = paid.body()["subscriptionId"].as_str().map(str::to_owned);
        learn_customer(user, tally).await;
    }
}

/// The user's Stripe customer, as the debug page shows it.
async fn learn_customer(user: &mut User, tally: &mut Tally) {
    let status = user.browser.get("/api/debug-webhook-status").await;
    count(tally, &status);
    if let Some(customer) = status.body()["stripe"]["customerId"].as_str() {
        user.customer = Some(customer.to_owned());
    }
}

/// After a plan change the server died under: the repair call reads the user's subscriptions
/// from Stripe and applies them, and its answer settles the plan.
async fn repair_plan(user: &mut User, tally: &mut Tally) {
    let fixed = user.browser.post("/api/fix-subscription", &json!({})).await;
    count(tally, &fixed);
    if fixed.status() != Some(200) {
        return;
    }
    user.plan = if fixed.body()["tier"] == "pro" { Plan::Pro } else { Plan::Free };
    let status = user.browser.get("/api/debug-webhook-status").await;
    count(tally, &status);
    if status.status() != Some(200) {
        return;
    }
    user.customer = status.body()["stripe"]["customerId"].as_str().map(str::to_owned);
    let active = status.body()["stripe"]["subscriptions"]
        .as_array()
        .and_then(|subscriptions| subscriptions.iter().find(|subscription| subscription["status"] == "active"))
        .and_then(|subscription| subscription["id"].as_str());
    user.subscription = active.map(str::to_owned);
    user.plan_in_doubt = false;
}

/// The subscription is canceled at Stripe (from its dashboard), and Stripe tells the server.
async fn cancel_at_stripe(user: &mut User, stripe: &LocalStripe, in_flight: &InFlight, tally: &mut Tally) {
    let Some(subscription) = user.subscription.take() else { return };
    let (status, _) = stripe.send(reqwest::Method::DELETE, &format!("/v1/subscriptions/{subscription}"), &[]).await;
    if status != 200 {
        return;
    }
    let event = PendingEvent { body: event_body("customer.subscription.deleted", &subscription), expected: Plan::Free };
    user.plan_changes_attempted += 1;
    tally.plan_changes += 1;
    user.pending_event = Some(event.clone());
    deliver_event(user, &event, in_flight, tally).await;
}

/// A new subscription is made at Stripe for the user's customer (as a sales call would), and
/// Stripe tells the server.
async fn resubscribe_at_stripe(user: &mut User, stripe: &LocalStripe, in_flight: &InFlight, tally: &mut Tally) {
    let Some(customer) = user.customer.clone() else { return };
    let form = [("customer", customer.as_str()), ("items[0][plan]", PLAN_PRO)];
    let (status, created) = stripe.send(reqwest::Method::POST, "/v1/subscriptions", &form).await;
    let Some(subscription) = created["id"].as_str().filter(|_| status == 200 && created["status"] == "active") else { return };
    user.subscription = Some(subscription.to_owned());
    let event = PendingEvent { body: event_body("customer.subscription.created", subscription), expected: Plan::Pro };
    user.plan_changes_attempted += 1;
    tally.plan_changes += 1;
    user.pending_event = Some(event.clone());
    deliver_event(user, &event, in_flight, tally).await;
}

/// Posts the event signed as Stripe signs it; an answer other than 200 leaves it pending, as
/// Stripe would deliver it again.
async fn deliver_event(user: &mut User, event: &PendingEvent, in_flight: &InFlight, tally: &mut Tally) {
    let timestamp = Utc::now().timestamp();
    let signature = sign(WEBHOOK_SECRET, event.body.as_bytes(), timestamp);
    let headers = [("Stripe-Signature", signature.as_str()), ("Content-Type", "application/json")];
    in_flight.webhook.set(true);
    let reply = user.browser.post_raw("/api/stripe/webhook", &headers, event.body.clone()).await;
    in_flight.webhook.set(false);
    count(tally, &reply);
    tally.webhooks += 1;
    if reply.status() == Some(200) {
        if reply.body()["duplicate"] != true {
            user.plan_changes_acknowledged += 1;
        }
        user.plan = event.expected;
        user.pending_event = None;
    }
}

fn event_body(kind: &str, subscription: &str) -> String {
    let id = format!("evt_crash_{}", uuid::Uuid::new_v4().simple());
    let object = json!({ "id": subscription, "object": "subscription" });
    json!({ "id": id, "object": "event", "type": kind, "created": Utc::now().timestamp(), "data": { "object": object } }).to_string()
}

/// Stripe's `Stripe-Signature` header: HMAC-SHA-256 of `timestamp.body` under the endpoint's
/// secret.
pub fn sign(secret: &str, body: &[u8], timestamp: i64) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={timestamp},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// The token of the newest verification mail to `email` in maildev.
async fn verification_token(maildev: &Maildev, email: &str) -> Option<String> {
    let emails = maildev.emails().await;
    let mail = emails.iter().rev().find(|mail| recipient(mail) == email && mail["subject"] == VERIFY_SUBJECT)?;
    let text = mail["text"].as_str()?;
    let start = text.find("token=")? + "token=".len();
    let token: String = text[start..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    (!token.is_empty()).then_some(token)
}

/// The first recipient of a mail as maildev lists it.
pub fn recipient(mail: &Value) -> String {
    mail["to"][0]["address"].as_str().unwrap_or_default().to_lowercase()
}
