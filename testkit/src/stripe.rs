//! Stripe's API on loopback for the test suites: localstripe through `tools/stripe/launcher.py`
//! (installed into `tools/stripe/.venv` by the README's test command), one in-memory instance per
//! test, with the plans `price_pro` (500 usd a month) and `price_team` (1000). Besides the API it
//! plays the browser's part: confirming a SetupIntent or a 3-D Secure PaymentIntent with a test
//! card as Stripe.js would, and paying an embedded Checkout Session. See tools/stripe/README.md for
//! what each test card does.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::free_port;

pub const SECRET_KEY: &str = "sk_test_localstripe";
pub const PUBLISHABLE_KEY: &str = "pk_test_localstripe";
pub const PLAN_PRO: &str = "price_pro";
pub const PLAN_TEAM: &str = "price_team";

/// Test cards, as localstripe treats them.
pub const CARD_OK: &str = "4242424242424242";
pub const CARD_3DS: &str = "4000002500003155";
pub const CARD_DECLINED: &str = "4000000000000002";
pub const CARD_DECLINED_ON_CHARGE: &str = "4000000000000341";

/// The webhook endpoint id `register_webhook` uses (one endpoint at a time).
const WEBHOOK_ID: &str = "papertide";

pub struct LocalStripe {
    child: Child,
    port: u16,
    http: reqwest::Client,
}

fn tools_stripe() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/stripe")
}

fn python() -> PathBuf {
    let python = tools_stripe().join(".venv/bin/python");
    let installed = python.try_exists().unwrap_or_else(|error| panic!("looking for localstripe at {}: {error}", python.display()));
    assert!(installed, "localstripe is not installed at {}: run the README's test command (make test), which installs it", python.display());
    python
}

/// The message of a Stripe error answer.
fn error_message(body: &Value) -> String {
    body["error"]["message"].as_str().map_or_else(|| body.to_string(), str::to_owned)
}

impl LocalStripe {
    /// Starts localstripe on a free port and waits until it answers (with its plans created).
    /// A free port can be taken by another test before localstripe binds it; it then exits, and
    /// it is started again on another port.
    pub async fn start() -> LocalStripe {
        const ATTEMPTS: usize = 3;
        for _ in 0..ATTEMPTS {
            if let Some(stripe) = LocalStripe::try_start().await {
                return stripe;
            }
        }
        panic!("localstripe did not start in {ATTEMPTS} attempts");
    }

    async fn try_start() -> Option<LocalStripe> {
        let port = free_port();
        // Its standard input is a pipe this process holds: if the test binary dies, it exits too.
        // PAPERTIDE_TEST_STRIPE_LOG=1 shows its request log and errors.
        let verbose = std::env::var_os("PAPERTIDE_TEST_STRIPE_LOG").is_some();
        let child = Command::new(python())
            .arg(tools_stripe().join("launcher.py"))
            .args(["--port", &port.to_string(), "--exit-with-stdin"])
            .args(["--plan", &format!("{PLAN_PRO}:500"), "--plan", &format!("{PLAN_TEAM}:1000")])
            .args(if verbose { &["--verbose"][..] } else { &[] })
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(if verbose { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .expect("starting localstripe");
        let mut stripe = LocalStripe { child, port, http: reqwest::Client::new() };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if stripe.child.try_wait().ok().flatten().is_some() {
                return None;
            }
            let plan = stripe.http.get(stripe.url(&format!("/v1/plans/{PLAN_PRO}"))).bearer_auth(SECRET_KEY).send().await;
            if plan.is_ok_and(|answer| answer.status().is_success()) {
                return Some(stripe);
            }
            assert!(Instant::now() < deadline, "localstripe did not start within 60 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The API base, as `PAPERTIDE_STRIPE_API_URL` takes it: `http://127.0.0.1:PORT`.
    pub fn api_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The Stripe.js stand-in (`…/js.stripe.com/v3/`).
    pub fn js_url(&self) -> String {
        self.url("/js.stripe.com/v3/")
    }

    /// Any `sk_test_…` key is accepted.
    pub fn secret_key(&self) -> &'static str {
        SECRET_KEY
    }

    pub fn publishable_key(&self) -> &'static str {
        PUBLISHABLE_KEY
    }

    pub fn plan_pro(&self) -> &'static str {
        PLAN_PRO
    }

    pub fn plan_team(&self) -> &'static str {
        PLAN_TEAM
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.api_url(), path)
    }

    /// Sends every event, signed with `secret`, to `url` (replacing an earlier endpoint).
    pub async fn register_webhook(&self, url: &str, secret: &str) {
        let answer = self.http.post(self.url(&format!("/_config/webhooks/{WEBHOOK_ID}"))).form(&[("url", url), ("secret", secret)]).send().await;
        assert!(answer.is_ok_and(|answer| answer.status().is_success()), "registering the webhook {url}");
    }

    /// Sends no more events anywhere (a lost webhook).
    pub async fn unregister_webhooks(&self) {
        let answer = self.http.delete(self.url("/_config/webhooks")).send().await;
        assert!(answer.is_ok_and(|answer| answer.status().is_success()), "unregistering the webhooks");
    }

    /// Delivers a stored event again (a duplicate delivery: same id, same signed timestamp).
    pub async fn resend_event(&self, event_id: &str) {
        let (status, body) = self.send(reqwest::Method::POST, &format!("/_test/events/{event_id}/resend"), &[]).await;
        assert_eq!(status, 200, "resending {event_id}: {body}");
    }

    /// Every event so far, oldest first.
    pub async fn events(&self) -> Vec<Value> {
        let mut events = Vec::new();
        let mut after = String::new();
        loop {
            let page = self.get(&format!("/v1/events?limit=100{after}")).await;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            events.extend(data.iter().cloned());
            match data.last().and_then(|event| event["id"].as_str()) {
                Some(last) if page["has_more"] == true => after = format!("&starting_after={last}"),
                _ => break,
            }
        }
        events.reverse();
        events
    }

    /// The types of every event so far, oldest first.
    pub async fn event_types(&self) -> Vec<String> {
        self.events().await.iter().filter_map(|event| event["type"].as_str().map(str::to_owned)).collect()
    }

    /// What `stripe.confirmCardSetup(clientSecret, {payment_method: {card, billing_details}})`
    /// does with `card` typed in: the PaymentMethod's id, or Stripe's error message. A 3-D Secure
    /// card passes its challenge.
    pub async fn confirm_setup_intent(&self, client_secret_or_id: &str, card: &str) -> Result<String, String> {
        self.confirm_setup_intent_with(client_secret_or_id, card, true).await
    }

    /// `confirm_setup_intent`, choosing the outcome of a 3-D Secure challenge.
    pub async fn confirm_setup_intent_with(&self, client_secret_or_id: &str, card: &str, authenticate: bool) -> Result<String, String> {
        let id = client_secret_or_id.split("_secret_").next().unwrap_or_default();
        let secret = client_secret_or_id.contains("_secret_").then_some(client_secret_or_id);
        let mut body = json!({
            "key": PUBLISHABLE_KEY,
            "use_stripe_sdk": true,
            "client_secret": secret,
            "payment_method_data": {
                "type": "card",
                "card": {"number": card, "exp_month": "12", "exp_year": "2034", "cvc": "123"},
                "billing_details": {"name": "Test Card", "address": {"postal_code": "10001"}},
            },
        });
        let (status, intent) = self.post_json(&format!("/v1/setup_intents/{id}/confirm"), &body).await;
        if status != 200 {
            return Err(error_message(&intent));
        }
        let intent = if intent["status"] == "requires_action" {
            body.as_object_mut().map(|body| body.remove("payment_method_data"));
            let step = if authenticate { "confirm" } else { "cancel" };
            let (status, intent) = self.post_json(&format!("/v1/setup_intents/{id}/{step}"), &body).await;
            if status != 200 {
                return Err(error_message(&intent));
            }
            intent
        } else {
            intent
        };
        match (intent["status"].as_str(), intent["payment_method"].as_str()) {
            (Some("succeeded"), Some(method)) => Ok(method.to_owned()),
            (Some("canceled"), _) => Err("The latest attempt to set up the payment method has failed because authentication failed.".into()),
            (status, _) => Err(format!("setup_intent has status {}", status.unwrap_or("?"))),
        }
    }

    /// What `stripe.confirmCardPayment(clientSecret)` does for a PaymentIntent that needs 3-D
    /// Secure: the customer passes (`succeed_3ds`) or fails the challenge. The PaymentIntent, or
    /// Stripe's error message (a failed challenge, or a card declined once authenticated).
    pub async fn confirm_payment_intent(&self, client_secret: &str, succeed_3ds: bool) -> Result<Value, String> {
        let id = client_secret.split("_secret_").next().unwrap_or_default();
        let body = json!({"key": PUBLISHABLE_KEY, "client_secret": client_secret});
        let (status, intent) = self.post_json(&format!("/v1/payment_intents/{id}/_authenticate?success={succeed_3ds}"), &body).await;
        if status != 200 {
            return Err(error_message(&intent));
        }
        match intent["last_payment_error"]["message"].as_str() {
            Some(message) if intent["status"] != "succeeded" => Err(message.to_owned()),
            _ => Ok(intent),
        }
    }

    /// The customer pays the embedded Checkout Session `id` with `card` (a 3-D Secure card
    /// passes its challenge): the completed session, or Stripe's error message (the session stays
    /// open).
    pub async fn complete_checkout_session(&self, id: &str, card: &str) -> Result<Value, String> {
        let (status, session) = self.post_json(&format!("/_test/checkout/sessions/{id}/complete"), &json!({"card": card})).await;
        if status == 200 {
            Ok(session)
        } else {
            Err(error_message(&session))
        }
    }

    /// `GET path` with the secret key, e.g. `/v1/subscriptions?customer=cus_…&status=all`; panics
    /// unless it succeeds.
    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.send(reqwest::Method::GET, path, &[]).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// `POST path` form-encoded with the secret key, as Stripe's clients send it; panics unless
    /// it succeeds.
    pub async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> Value {
        let (status, body) = self.send(reqwest::Method::POST, path, form).await;
        assert_eq!(status, 200, "POST {path}: {body}");
        body
    }

    /// `DELETE path` with the secret key, e.g. `/v1/subscriptions/sub_…` (cancels it); panics
    /// unless it succeeds.
    pub async fn delete(&self, path: &str) -> Value {
        let (status, body) = self.send(reqwest::Method::DELETE, path, &[]).await;
        assert_eq!(status, 200, "DELETE {path}: {body}");
        body
    }

    /// Any call with the secret key: the status and the body.
    pub async fn send(&self, method: reqwest::Method, path: &str, form: &[(&str, &str)]) -> (u16, Value) {
        let request = self.http.request(method, self.url(path)).bearer_auth(SECRET_KEY);
        let request = if form.is_empty() { request } else { request.form(form) };
        let answer = request.send().await.expect("localstripe answers");
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    /// A call as Stripe.js makes it: JSON with the publishable key in the body, no secret key.
    async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let answer = self.http.post(self.url(path)).json(body).send().await.expect("localstripe answers");
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }
}

impl Drop for LocalStripe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
