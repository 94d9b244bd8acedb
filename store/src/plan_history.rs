//! Each user's plan history: one record per change of `subscription_tier`, appended in the same
//! transaction as the change (operator's hand, a subscription read from Stripe, a plan that
//! ended), under user id ++ the change's time (µs, big-endian), so a user's history is one
//! prefix scan in time order. Databases made before it was kept have no history of earlier
//! changes.

use chrono::{DateTime, Utc};
use engine::{Tier, UserId};
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use crate::codec::{decode, tx_encode};
use crate::error::StoreError;
use crate::{Billing, Result};

/// Why a plan changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanReason {
    /// Set by an operator (`papertide users set-tier`, the operator console).
    Operator,
    /// A subscription read from Stripe gave (or changed) the plan.
    Stripe,
    /// The paid plan ended (its subscription ended or was not paid).
    PlanEnded,
    /// The user canceled their subscription.
    Canceled,
    /// Written directly to the account record (tests, repairs).
    Other,
}

impl PlanReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PlanReason::Operator => "operator",
            PlanReason::Stripe => "stripe",
            PlanReason::PlanEnded => "plan_ended",
            PlanReason::Canceled => "canceled",
            PlanReason::Other => "other",
        }
    }
}

/// One change of a user's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRecord {
    pub at: DateTime<Utc>,
    pub from: Tier,
    pub to: Tier,
    pub reason: PlanReason,
}

/// Appends a change from `from` to `to` (nothing when they are the same) inside a transaction;
/// two changes in the same microsecond keep both (the later one a microsecond on).
pub(crate) fn tx_record_plan_change(
    history: &TransactionalTree,
    user_id: UserId,
    from: Tier,
    to: Tier,
    reason: PlanReason,
    at: DateTime<Utc>,
) -> Result<(), ConflictableTransactionError<StoreError>> {
    if from == to {
        return Ok(());
    }
    let mut micros = at.timestamp_micros();
    loop {
        let key = [user_id.as_bytes().as_slice(), &micros.to_be_bytes()].concat();
        if history.get(key.as_slice())?.is_none() {
            let record = PlanRecord { at, from, to, reason };
            history.insert(key, tx_encode("plan record", &record)?)?;
            return Ok(());
        }
        micros += 1;
    }
}

impl Billing<'_> {
    /// The user's plan changes, oldest first.
    pub fn plan_history(&self, user_id: UserId) -> Result<Vec<PlanRecord>> {
        self.store.trees().plan_history.scan_prefix(user_id.as_bytes()).values().map(|bytes| decode("plan record", &bytes?)).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;
    use engine::billing::{InvoiceState, ProviderStatus, SubscriptionState};
    use engine::mail::RenderedMail;
    use uuid::Uuid;

    use super::*;
    use crate::users::{NewAccount, User};

    fn account(store: &Store, email: &str) -> Result<User> {
        let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), Utc::now());
        store.accounts().create(NewAccount { user, preferences: Default::default(), verification: None, mail: None }, Utc::now())
    }

    fn mail(user: &User, _: &engine::billing::PlanChange) -> RenderedMail {
        RenderedMail {
            to: user.email.clone(),
            subject: "plan".into(),
            html: String::new(),
            text: String::new(),
            action_url: None,
            list_unsubscribe: None,
        }
    }

    #[test]
    fn every_plan_change_is_recorded_with_its_reason() -> Result<()> {
        let store = Store::temporary()?;
        let ada = account(&store, "ada@example.org")?;
        let bob = account(&store, "bob@example.org")?;
        store.billing().set_plan(ada.id, Tier::Team)?;
        store.billing().set_plan(ada.id, Tier::Team)?;
        store.accounts().update_user(ada.id, |user| user.subscription_tier = Tier::Pro)?;
        store.billing().set_stripe_customer(ada.id, "cus_1")?;
        let now = Utc::now();
        let invoice =
            InvoiceState { id: "in_1".into(), status: Some("paid".into()), paid: true, amount_paid: 1000, amount_due: 1000, currency: "usd".into() };
        let active = SubscriptionState {
            id: "sub_1".into(),
            customer: "cus_1".into(),
            status: ProviderStatus::Active,
            tier: Some(Tier::Team),
            latest_invoice: Some(invoice),
            payment_status: None,
            payment_error: None,
        };
        store.billing().apply_subscription(ada.id, &active, now, mail)?;
        store.billing().cancel_plan(ada.id, now, mail)?;
        let history: Vec<(Tier, Tier, PlanReason)> =
            store.billing().plan_history(ada.id)?.into_iter().map(|record| (record.from, record.to, record.reason)).collect();
        assert_eq!(
            history,
            vec![
                (Tier::Free, Tier::Team, PlanReason::Operator),
                (Tier::Team, Tier::Pro, PlanReason::Other),
                (Tier::Pro, Tier::Team, PlanReason::Stripe),
                (Tier::Team, Tier::Free, PlanReason::Canceled),
            ],
            "setting the same plan again is no change"
        );
        assert!(store.billing().plan_history(bob.id)?.is_empty());
        Ok(())
    }
}
