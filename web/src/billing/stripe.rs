//! The Stripe calls billing makes, through async-stripe, pointed at the configured API base.
//! Everything read comes back as `engine::billing` values, so the rest of billing does not
//! know Stripe's types. Every call has a time limit: a Stripe that does not answer becomes a
//! clear "try again" instead of a hung request.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use engine::billing::{InvoiceState, ProviderStatus, SubscriptionState};
use engine::{Tier, UserId};
use stripe::{
    AttachPaymentMethod, CancelSubscription, CheckoutSession, CheckoutSessionMode, CheckoutSessionUiMode, Client, CreateCheckoutSession,
    CreateCheckoutSessionLineItems, CreateCustomer, CreateSetupIntent, CreateSubscription, CreateSubscriptionItems, Customer, CustomerId,
    CustomerInvoiceSettings, Expandable, Invoice, InvoiceId, ListInvoices, ListSubscriptions, PaymentIntent, PaymentMethod, PaymentMethodId,
    RequestStrategy, SetupIntent, SetupIntentId, SetupIntentStatus, StripeError, Subscription, SubscriptionId, SubscriptionStatus,
    SubscriptionStatusFilter, UpdateCustomer, UpdateSubscription, UpdateSubscriptionItems,
};

use crate::config::StripeSettings;

/// The longest wait for one Stripe call.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// What went wrong talking to Stripe.
#[derive(Debug, thiserror::Error)]
pub enum StripeFailure {
    /// Stripe refused: a card problem (`card_error`) carries a message meant for the customer.
    #[error("Stripe answered {status}: {message}")]
    Refused { status: u16, message: String, card_error: bool },
    /// Stripe could not be reached, or answered something unreadable.
    #[error("Stripe is unavailable: {0}")]
    Unavailable(String),
}

impl StripeFailure {
    pub fn is_not_found(&self) -> bool {
        matches!(self, StripeFailure::Refused { status: 404, .. })
    }
}

impl From<StripeError> for StripeFailure {
    fn from(error: StripeError) -> StripeFailure {
        match error {
            StripeError::Stripe(request) => StripeFailure::Refused {
                status: request.http_status,
                card_error: request.error_type == stripe::ErrorType::Card,
                message: request.message.unwrap_or_else(|| "The payment was refused.".to_owned()),
            },
            other => StripeFailure::Unavailable(other.to_string()),
        }
    }
}

pub type StripeResult<T> = Result<T, StripeFailure>;

async fn within<T>(call: impl std::future::Future<Output = Result<T, StripeError>>) -> StripeResult<T> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(answer) => answer.map_err(StripeFailure::from),
        Err(_) => Err(StripeFailure::Unavailable(format!("no answer in {} s", CALL_TIMEOUT.as_secs()))),
    }
}

/// A Stripe object id from a caller. Stripe's ids are letters, digits and `_` (`cs_test_a1B2`,
/// `seti_…`), at most 255 of them; anything else is no object of Stripe's, and is refused here
/// rather than placed in the address of a call to Stripe (where `/`, `..` or `?` would name
/// another of its endpoints).
fn id<T: FromStr>(text: &str) -> StripeResult<T> {
    let not_found = || StripeFailure::Refused { status: 404, message: "No such object.".to_owned(), card_error: false };
    let is_stripe_id = !text.is_empty() && text.len() <= 255 && text.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_');
    if !is_stripe_id {
        return Err(not_found());
    }
    text.parse().map_err(|_| not_found())
}

/// A SetupIntent as billing needs it.
#[derive(Debug, Clone)]
pub struct SetupState {
    pub customer: Option<String>,
    pub payment_method: Option<String>,
    pub succeeded: bool,
}

/// A subscription just created or changed, with the secret of a first payment that needs the
/// customer (3-D Secure).
#[derive(Debug, Clone)]
pub struct Created {
    pub state: SubscriptionState,
    pub action_secret: Option<String>,
}

/// A Checkout Session as billing needs it.
#[derive(Debug, Clone)]
pub struct SessionState {
    pub status: Option<String>,
    pub payment_status: String,
    pub customer: Option<String>,
    pub client_reference_id: Option<String>,
    pub subscription: Option<String>,
}

/// An invoice for the repair page, with its date.
#[derive(Debug, Clone)]
pub struct ListedInvoice {
    pub invoice: InvoiceState,
    pub created: Option<i64>,
}

pub struct StripeGateway {
    client: Client,
    settings: StripeSettings,
}

impl StripeGateway {
    pub fn new(settings: StripeSettings) -> StripeGateway {
        let client = Client::from_url(settings.api_url.as_str(), settings.secret_key.clone());
        StripeGateway { client, settings }
    }

    pub fn settings(&self) -> &StripeSettings {
        &self.settings
    }

    /// The price (or plan) id a paid plan is sold at.
    pub fn price_of(&self, tier: Tier) -> Option<&str> {
        match tier {
            Tier::Free => None,
            Tier::Pro => Some(&self.settings.price_pro),
            Tier::Team => Some(&self.settings.price_team),
        }
    }

    /// The price of a paid plan; the free plan has none to charge.
    fn paid_price(&self, tier: Tier) -> StripeResult<&str> {
        self.price_of(tier).ok_or_else(|| StripeFailure::Unavailable("no price for the free plan".into()))
    }

    /// The plan a price (or plan) id stands for.
    pub fn tier_of_price(&self, price: &str) -> Option<Tier> {
        [Tier::Pro, Tier::Team].into_iter().find(|tier| self.price_of(*tier) == Some(price))
    }

    /// Creates the user's customer; the idempotency key makes two racing calls one customer.
    pub async fn create_customer(&self, user_id: UserId, email: &str) -> StripeResult<String> {
        let client = self.client.clone().with_strategy(RequestStrategy::Idempotent(format!("papertide-customer-{}", user_id.0)));
        let metadata = HashMap::from([("user_id".to_owned(), user_id.0.to_string())]);
        let params = CreateCustomer { email: Some(email), metadata: Some(metadata), ..CreateCustomer::new() };
        let customer = within(Customer::create(&client, params)).await?;
        Ok(customer.id.to_string())
    }

    /// A SetupIntent that collects a card for later payments: (id, client secret).
    pub async fn create_setup_intent(&self, customer: &str, user_id: UserId, tier: Tier) -> StripeResult<(String, String)> {
        let metadata = HashMap::from([("user_id".to_owned(), user_id.0.to_string()), ("tier".to_owned(), tier.as_str().to_owned())]);
        let params = CreateSetupIntent {
            customer: Some(id::<CustomerId>(customer)?),
            payment_method_types: Some(vec!["card".to_owned()]),
            metadata: Some(metadata),
            ..CreateSetupIntent::new()
        };
        let intent = within(SetupIntent::create(&self.client, params)).await?;
        let secret = intent.client_secret.ok_or_else(|| StripeFailure::Unavailable("a SetupIntent came without a client secret".into()))?;
        Ok((intent.id.to_string(), secret))
    }

    pub async fn setup_intent(&self, setup_intent_id: &str) -> StripeResult<SetupState> {
        let intent = within(SetupIntent::retrieve(&self.client, &id::<SetupIntentId>(setup_intent_id)?, &[])).await?;
        Ok(SetupState {
            customer: intent.customer.as_ref().map(|customer| customer.id().to_string()),
            payment_method: intent.payment_method.as_ref().map(|method| method.id().to_string()),
            succeeded: intent.status == SetupIntentStatus::Succeeded,
        })
    }

    /// Attaches a confirmed card to the customer and makes it the default for invoices.
    pub async fn use_payment_method(&self, customer: &str, payment_method: &str) -> StripeResult<()> {
        let customer_id = id::<CustomerId>(customer)?;
        let method_id = id::<PaymentMethodId>(payment_method)?;
        let method = within(PaymentMethod::retrieve(&self.client, &method_id, &[])).await?;
        let attached_to = method.customer.as_ref().map(|owner| owner.id().to_string());
        match attached_to.as_deref() {
            Some(owner) if owner == customer => {}
            Some(_) => {
                return Err(StripeFailure::Refused { status: 404, message: format!("No such payment method: {payment_method}"), card_error: false })
            }
            None => {
                within(PaymentMethod::attach(&self.client, &method_id, AttachPaymentMethod { customer: customer_id.clone() })).await?;
            }
        }
        let settings = CustomerInvoiceSettings { default_payment_method: Some(payment_method.to_owned()), ..Default::default() };
        let params = UpdateCustomer { invoice_settings: Some(settings), ..UpdateCustomer::new() };
        within(Customer::update(&self.client, &customer_id, params)).await?;
        Ok(())
    }

    /// Subscribes the customer to `tier`'s price; the first invoice is charged at once, to the
    /// customer's default card (set by [`StripeGateway::use_payment_method`]).
    pub async fn create_subscription(&self, customer: &str, user_id: UserId, tier: Tier) -> StripeResult<Created> {
        let price = self.paid_price(tier)?;
        let metadata = HashMap::from([("user_id".to_owned(), user_id.0.to_string()), ("tier".to_owned(), tier.as_str().to_owned())]);
        let mut params = CreateSubscription::new(id::<CustomerId>(customer)?);
        // A plan id goes wherever a price id does; `plan` is what every Stripe API version takes.
        params.items = Some(vec![CreateSubscriptionItems { plan: Some(price.to_owned()), quantity: Some(1), ..Default::default() }]);
        params.metadata = Some(metadata);
        params.expand = &["latest_invoice.payment_intent"];
        let subscription = within(Subscription::create(&self.client, params)).await?;
        self.created(subscription).await
    }

    /// Moves an existing subscription to `tier`'s price, charging the prorated difference now to
    /// the customer's default card.
    pub async fn change_plan(&self, subscription_id: &str, tier: Tier) -> StripeResult<Created> {
        let price = self.paid_price(tier)?;
        let subscription_key = id::<SubscriptionId>(subscription_id)?;
        let current = within(Subscription::retrieve(&self.client, &subscription_key, &[])).await?;
        let item = current.items.data.first().ok_or_else(|| StripeFailure::Unavailable("the subscription has no item".into()))?;
        let mut params = UpdateSubscription::new();
        params.items = Some(vec![UpdateSubscriptionItems { id: Some(item.id.to_string()), plan: Some(price.to_owned()), ..Default::default() }]);
        params.proration_behavior = Some(stripe::generated::billing::subscription::SubscriptionProrationBehavior::AlwaysInvoice);
        params.metadata = Some(HashMap::from([("tier".to_owned(), tier.as_str().to_owned())]));
        params.expand = &["latest_invoice.payment_intent"];
        let subscription = within(Subscription::update(&self.client, &subscription_key, params)).await?;
        self.created(subscription).await
    }

    async fn created(&self, subscription: Subscription) -> StripeResult<Created> {
        let state = self.state_of(subscription).await?;
        let action_secret = self.action_secret(&state).await?;
        Ok(Created { state, action_secret })
    }

    /// The client secret of the latest invoice's payment when it waits for the customer.
    async fn action_secret(&self, state: &SubscriptionState) -> StripeResult<Option<String>> {
        if !matches!(state.payment_status.as_deref(), Some("requires_action" | "requires_confirmation")) {
            return Ok(None);
        }
        let Some(invoice) = &state.latest_invoice else {
            return Ok(None);
        };
        let invoice = within(Invoice::retrieve(&self.client, &id::<InvoiceId>(&invoice.id)?, &["payment_intent"])).await?;
        Ok(match invoice.payment_intent {
            Some(Expandable::Object(intent)) => intent.client_secret,
            Some(Expandable::Id(intent_id)) => within(PaymentIntent::retrieve(&self.client, &intent_id, &[])).await?.client_secret,
            None => None,
        })
    }

    /// The subscription as Stripe has it now.
    pub async fn subscription(&self, subscription_id: &str) -> StripeResult<SubscriptionState> {
        let subscription =
            within(Subscription::retrieve(&self.client, &id::<SubscriptionId>(subscription_id)?, &["latest_invoice.payment_intent"])).await?;
        self.state_of(subscription).await
    }

    /// Cancels the subscription now (no refund); answers its state after.
    pub async fn cancel(&self, subscription_id: &str) -> StripeResult<SubscriptionState> {
        let subscription = within(Subscription::cancel(&self.client, &id::<SubscriptionId>(subscription_id)?, CancelSubscription::new())).await?;
        self.state_of(subscription).await
    }

    /// Every subscription of the customer, in any status.
    pub async fn customer_subscriptions(&self, customer: &str) -> StripeResult<Vec<SubscriptionState>> {
        let mut params = ListSubscriptions::new();
        params.customer = Some(id::<CustomerId>(customer)?);
        params.status = Some(SubscriptionStatusFilter::All);
        params.limit = Some(100);
        let listed = within(Subscription::list(&self.client, &params)).await?;
        let mut states = Vec::new();
        for subscription in listed.data {
            // Listing does not expand the invoice: read each one whole.
            states.push(self.subscription(subscription.id.as_str()).await?);
        }
        Ok(states)
    }

    pub async fn customer_invoices(&self, customer: &str) -> StripeResult<Vec<ListedInvoice>> {
        let mut params = ListInvoices::new();
        params.customer = Some(id::<CustomerId>(customer)?);
        params.limit = Some(100);
        let listed = within(Invoice::list(&self.client, &params)).await?;
        Ok(listed.data.iter().map(|invoice| ListedInvoice { invoice: invoice_state(invoice), created: invoice.created }).collect())
    }

    /// The subscription an invoice belongs to.
    pub async fn invoice_subscription(&self, invoice_id: &str) -> StripeResult<Option<String>> {
        let invoice = within(Invoice::retrieve(&self.client, &id::<InvoiceId>(invoice_id)?, &[])).await?;
        Ok(invoice.subscription.as_ref().map(|subscription| subscription.id().to_string()))
    }

    /// An embedded Checkout Session for `tier`: its client secret.
    pub async fn create_checkout_session(&self, customer: &str, user_id: UserId, tier: Tier, return_url: &str) -> StripeResult<String> {
        let price = self.paid_price(tier)?;
        let user = user_id.0.to_string();
        let metadata = HashMap::from([("user_id".to_owned(), user.clone()), ("tier".to_owned(), tier.as_str().to_owned())]);
        let mut params = CreateCheckoutSession::new();
        params.mode = Some(CheckoutSessionMode::Subscription);
        params.ui_mode = Some(CheckoutSessionUiMode::Embedded);
        params.customer = Some(id::<CustomerId>(customer)?);
        params.client_reference_id = Some(&user);
        params.return_url = Some(return_url);
        params.metadata = Some(metadata);
        params.line_items = Some(vec![CreateCheckoutSessionLineItems { price: Some(price.to_owned()), quantity: Some(1), ..Default::default() }]);
        let session = within(CheckoutSession::create(&self.client, params)).await?;
        session.client_secret.ok_or_else(|| StripeFailure::Unavailable("a Checkout Session came without a client secret".into()))
    }

    pub async fn checkout_session(&self, session_id: &str) -> StripeResult<SessionState> {
        let session = within(CheckoutSession::retrieve(&self.client, &id(session_id)?, &[])).await?;
        Ok(SessionState {
            status: session.status.map(|status| status.as_str().to_owned()),
            payment_status: session.payment_status.as_str().to_owned(),
            customer: session.customer.as_ref().map(|customer| customer.id().to_string()),
            client_reference_id: session.client_reference_id.clone(),
            subscription: session.subscription.as_ref().map(|subscription| subscription.id().to_string()),
        })
    }

    /// Reads what billing needs from a subscription, fetching its latest invoice and payment
    /// when they were not expanded.
    async fn state_of(&self, subscription: Subscription) -> StripeResult<SubscriptionState> {
        let item = subscription.items.data.first();
        let price = item
            .and_then(|item| item.price.as_ref().map(|price| price.id.to_string()).or_else(|| item.plan.as_ref().map(|plan| plan.id.to_string())));
        let tier = price.as_deref().and_then(|price| self.tier_of_price(price));
        let invoice = match &subscription.latest_invoice {
            Some(Expandable::Object(invoice)) if invoice.payment_intent.as_ref().is_none_or(|intent| matches!(intent, Expandable::Object(_))) => {
                Some((**invoice).clone())
            }
            Some(latest) => Some(within(Invoice::retrieve(&self.client, &id::<InvoiceId>(latest.id().as_str())?, &["payment_intent"])).await?),
            None => None,
        };
        let intent = invoice.as_ref().and_then(|invoice| match &invoice.payment_intent {
            Some(Expandable::Object(intent)) => Some((**intent).clone()),
            _ => None,
        });
        Ok(SubscriptionState {
            id: subscription.id.to_string(),
            customer: subscription.customer.id().to_string(),
            status: provider_status(subscription.status),
            tier,
            latest_invoice: invoice.as_ref().map(invoice_state),
            payment_status: intent.as_ref().map(|intent| intent.status.as_str().to_owned()),
            payment_error: intent
                .as_ref()
                .and_then(|intent| intent.last_payment_error.as_ref())
                .map(|error| error.message.clone().unwrap_or_else(|| engine::billing::MSG_PAYMENT_FAILED.to_owned())),
        })
    }
}

fn invoice_state(invoice: &Invoice) -> InvoiceState {
    InvoiceState {
        id: invoice.id.to_string(),
        status: invoice.status.map(|status| status.as_str().to_owned()),
        paid: invoice.paid.unwrap_or(false),
        amount_paid: invoice.amount_paid.unwrap_or(0),
        amount_due: invoice.amount_due.unwrap_or(0),
        currency: invoice.currency.map(|currency| currency.to_string()).unwrap_or_else(|| "usd".to_owned()),
    }
}

fn provider_status(status: SubscriptionStatus) -> ProviderStatus {
    match status {
        SubscriptionStatus::Active => ProviderStatus::Active,
        SubscriptionStatus::Canceled => ProviderStatus::Canceled,
        SubscriptionStatus::Incomplete => ProviderStatus::Incomplete,
        SubscriptionStatus::IncompleteExpired => ProviderStatus::IncompleteExpired,
        SubscriptionStatus::PastDue => ProviderStatus::PastDue,
        SubscriptionStatus::Paused => ProviderStatus::Paused,
        SubscriptionStatus::Trialing => ProviderStatus::Trialing,
        SubscriptionStatus::Unpaid => ProviderStatus::Unpaid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_with_a_path_reached_another_stripe_endpoint() {
        for hostile in ["cs_test_../../v1/customers", "cs_test_a?expand[]=customer", "cs_test_a/b", "cs_test_%2e%2e", "cs_test_\u{0}", ""] {
            let refused = id::<stripe::CheckoutSessionId>(hostile);
            assert!(matches!(refused, Err(StripeFailure::Refused { status: 404, .. })), "{hostile:?}");
        }
        assert!(id::<stripe::CheckoutSessionId>(&format!("cs_test_{}", "a".repeat(300))).is_err());
        assert!(id::<stripe::CheckoutSessionId>("cs_test_a1B2c3").is_ok());
        assert!(id::<SubscriptionId>("sub_1Nq2").is_ok());
    }
}
