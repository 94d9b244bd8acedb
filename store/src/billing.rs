//! Paid plans: the tracking rows of spec §3, the webhook events already applied, the customer →
//! user index, and the one place a plan change is written (with its record in the plan history,
//! [`crate::plan_history`]) ([`Billing::apply_subscription`],
//! [`Billing::cancel_plan`]); what the change is, `engine::billing::transition` and `end_plan` decide.
//!
//! Guarantee: the user's plan, the tracking row, the terms turned off or on and the mail that
//! reports the change are written in one transaction, and the mail is queued only when the plan
//! actually changes; applying the same state again writes the same row and queues nothing.

use chrono::{DateTime, Utc};
use engine::billing::{
    end_plan, terms_for_plan, transition, EndCause, PlanChange, PlanHolder, SubscriptionState, SubscriptionTracking, TrackingStatus,
};
use engine::mail::RenderedMail;
use engine::search_term::{SearchTerm, TermId};
use engine::{Tier, UserId};
use sled::transaction::TransactionalTree;
use sled::Transactional;
use uuid::Uuid;

use crate::codec::{decode, tx_decode, tx_encode};
use crate::error::{abort, StoreError};
use crate::mail_queue::tx_enqueue;
use crate::plan_history::{tx_record_plan_change, PlanReason};
use crate::users::User;
use crate::{Billing, Result};

type TxResult<T> = std::result::Result<T, sled::transaction::ConflictableTransactionError<StoreError>>;

/// What a plan update did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub user: User,
    /// The subscription's row; none for a plan without one (set by an operator).
    pub tracking: Option<SubscriptionTracking>,
    /// The change made and mailed; none when the plan stayed as it was.
    pub change: Option<PlanChange>,
}

impl Billing<'_> {
    /// Records `customer_id` as the user's Stripe customer unless they already have one; returns
    /// the customer the user has now (the first one stored wins a race).
    pub fn set_stripe_customer(&self, user_id: UserId, customer_id: &str) -> Result<String> {
        let writer = self.store.writing()?;
        let user = self.store.accounts().update_user(user_id, |user| {
            if user.stripe_customer_id.is_none() {
                user.stripe_customer_id = Some(customer_id.to_owned());
            }
        })?;
        let kept = user.stripe_customer_id.unwrap_or_else(|| customer_id.to_owned());
        writer.stripe_customers.insert(kept.as_bytes(), user_id.as_bytes())?;
        Ok(kept)
    }

    /// The user whose Stripe customer this is.
    pub fn user_by_stripe_customer(&self, customer_id: &str) -> Result<Option<User>> {
        let Some(id) = self.store.trees().stripe_customers.get(customer_id.as_bytes())? else {
            return Ok(None);
        };
        match UserId::from_slice(&id) {
            Some(id) => self.store.accounts().user(id),
            None => Ok(None),
        }
    }

    pub fn subscription_tracking(&self, subscription_id: &str) -> Result<Option<SubscriptionTracking>> {
        self.store.trees().subscription_tracking.get(subscription_id.as_bytes())?.map(|bytes| decode("subscription tracking", &bytes)).transpose()
    }

    /// A user's tracking rows, newest first.
    pub fn subscription_trackings(&self, user_id: UserId) -> Result<Vec<SubscriptionTracking>> {
        let mut rows = Vec::new();
        for value in self.store.trees().subscription_tracking.iter().values() {
            let row: SubscriptionTracking = decode("subscription tracking", &value?)?;
            if row.user_id == user_id {
                rows.push(row);
            }
        }
        rows.sort_by_key(|row| std::cmp::Reverse(row.created_at));
        Ok(rows)
    }

    /// Starts following a subscription the user asked for (pending), or, for a plan change of a
    /// followed one, asks for `tier` on its row.
    pub fn track_subscription(&self, user_id: UserId, subscription_id: &str, tier: Tier, now: DateTime<Utc>) -> Result<SubscriptionTracking> {
        let writer = self.store.writing()?;
        let row = writer.subscription_tracking.transaction(|rows| {
            let row = match rows.get(subscription_id.as_bytes())? {
                Some(bytes) => {
                    let mut row: SubscriptionTracking = tx_decode("subscription tracking", &bytes)?;
                    if row.user_id != user_id {
                        return Err(abort(StoreError::UserNotFound));
                    }
                    if row.tier != tier {
                        row.tier = tier;
                        row.provisioned = false;
                        row.status = TrackingStatus::Pending;
                        row.last_error = None;
                        row.updated_at = now;
                    }
                    row
                }
                None => SubscriptionTracking::new(Uuid::new_v4(), user_id, subscription_id, tier, now),
            };
            rows.insert(subscription_id.as_bytes(), tx_encode("subscription tracking", &row)?)?;
            Ok(row)
        })?;
        Ok(row)
    }

    /// Whether the webhook event `event_id` was applied already.
    pub fn stripe_event_applied(&self, event_id: &str) -> Result<bool> {
        Ok(self.store.trees().stripe_events.contains_key(event_id.as_bytes())?)
    }

    /// Records that `event_id` has been applied.
    pub fn record_stripe_event(&self, event_id: &str, now: DateTime<Utc>) -> Result<()> {
        let writer = self.store.writing()?;
        writer.stripe_events.insert(event_id.as_bytes(), &now.timestamp().to_be_bytes())?;
        Ok(())
    }

    /// Applies a subscription just read from Stripe to its user: `engine::billing::transition`
    /// decides the tracking row, the plan and the terms turned off or on; this writes them and
    /// queues the mail of a change (rendered by `mail`) in one transaction.
    pub fn apply_subscription(
        &self,
        user_id: UserId,
        state: &SubscriptionState,
        now: DateTime<Utc>,
        mail: impl Fn(&User, &PlanChange) -> RenderedMail,
    ) -> Result<Applied> {
        let writer = self.store.writing()?;
        let _terms_held = engine::sync::lock(&self.store.adding_terms);
        let terms = self.store.terms().of_user(user_id)?;
        let new_row_id = Uuid::new_v4();
        let trees = (&writer.users, &writer.subscription_tracking, &writer.search_terms, &writer.mail_queue, &writer.plan_history);
        let applied = trees.transaction(|(users, rows, term_tree, queue, history)| {
            let mut user = tx_user(users, user_id)?;
            let before = user.subscription_tier;
            let row = rows.get(state.id.as_bytes())?.map(|bytes| tx_decode::<SubscriptionTracking>("subscription tracking", &bytes)).transpose()?;
            if row.as_ref().is_some_and(|row| row.user_id != user_id) {
                return Err(abort(StoreError::UserNotFound));
            }
            let next = transition(&plan_holder(&user), row.as_ref(), state, &terms, now, new_row_id, user_id);
            set_plan_holder(&mut user, next.holder);
            let reason =
                if user.subscription_tier < before && !user.subscription_tier.is_paid() { PlanReason::PlanEnded } else { PlanReason::Stripe };
            tx_record_plan_change(history, user_id, before, user.subscription_tier, reason, now)?;
            tx_set_active(term_tree, &next.turn_off, false)?;
            tx_set_active(term_tree, &next.turn_on, true)?;
            if let Some(change) = &next.change {
                tx_enqueue(queue, &mail(&user, change), None, now)?;
            }
            users.insert(user_id.as_bytes(), tx_encode("user", &user)?)?;
            rows.insert(state.id.as_bytes(), tx_encode("subscription tracking", &next.row)?)?;
            Ok(Applied { user, tracking: Some(next.row), change: next.change })
        })?;
        if let Some(customer) = &applied.user.stripe_customer_id {
            writer.stripe_customers.insert(customer.as_bytes(), user_id.as_bytes())?;
        }
        Ok(applied)
    }

    /// Ends the user's paid plan because they canceled it: the plan becomes free, terms past the
    /// free limit are turned off, the subscription's row (if any) is marked canceled, and the
    /// notice is queued. A free user is left as is.
    pub fn cancel_plan(&self, user_id: UserId, now: DateTime<Utc>, mail: impl Fn(&User, &PlanChange) -> RenderedMail) -> Result<Applied> {
        let writer = self.store.writing()?;
        let _terms_held = engine::sync::lock(&self.store.adding_terms);
        let terms = self.store.terms().of_user(user_id)?;
        let trees = (&writer.users, &writer.subscription_tracking, &writer.search_terms, &writer.mail_queue, &writer.plan_history);
        let applied = trees.transaction(|(users, rows, term_tree, queue, history)| {
            let mut user = tx_user(users, user_id)?;
            let before = user.subscription_tier;
            let mut tracking = None;
            if let Some(subscription_id) = &user.stripe_subscription_id {
                if let Some(bytes) = rows.get(subscription_id.as_bytes())? {
                    let mut row: SubscriptionTracking = tx_decode("subscription tracking", &bytes)?;
                    row.status = TrackingStatus::Canceled;
                    row.updated_at = now;
                    rows.insert(subscription_id.as_bytes(), tx_encode("subscription tracking", &row)?)?;
                    tracking = Some(row);
                }
            }
            let ended = end_plan(&plan_holder(&user), &terms, EndCause::Canceled, now);
            set_plan_holder(&mut user, ended.holder);
            tx_record_plan_change(history, user_id, before, user.subscription_tier, PlanReason::Canceled, now)?;
            tx_set_active(term_tree, &ended.turn_off, false)?;
            let change = ended.change;
            if let Some(change) = &change {
                tx_enqueue(queue, &mail(&user, change), None, now)?;
            }
            users.insert(user_id.as_bytes(), tx_encode("user", &user)?)?;
            Ok(Applied { user, tracking, change })
        })?;
        Ok(applied)
    }

    /// Sets a plan by the operator's hand (`papertide users set-tier`), turning terms off or
    /// back on to fit it like a paid change does; no mail.
    pub fn set_plan(&self, user_id: UserId, tier: Tier) -> Result<User> {
        let writer = self.store.writing()?;
        let _terms_held = engine::sync::lock(&self.store.adding_terms);
        let terms = self.store.terms().of_user(user_id)?;
        let now = Utc::now();
        let user = (&writer.users, &writer.search_terms, &writer.plan_history).transaction(|(users, term_tree, history)| {
            let mut user = tx_user(users, user_id)?;
            tx_record_plan_change(history, user_id, user.subscription_tier, tier, PlanReason::Operator, now)?;
            user.subscription_tier = tier;
            let (deactivate, reactivate) = terms_for_plan(&terms, tier, user.is_unlimited);
            tx_set_active(term_tree, &deactivate, false)?;
            tx_set_active(term_tree, &reactivate, true)?;
            if tier.is_paid() {
                user.plan_ended = None;
            }
            users.insert(user_id.as_bytes(), tx_encode("user", &user)?)?;
            Ok(user)
        })?;
        Ok(user)
    }

    /// Every tracking row; for the operator and tests.
    pub fn all_subscription_trackings(&self) -> Result<Vec<SubscriptionTracking>> {
        self.store.trees().subscription_tracking.iter().values().map(|value| decode("subscription tracking", &value?)).collect()
    }
}

/// The part of `user` a plan change reads and writes.
fn plan_holder(user: &User) -> PlanHolder {
    PlanHolder {
        tier: user.subscription_tier,
        subscription_id: user.stripe_subscription_id.clone(),
        customer_id: user.stripe_customer_id.clone(),
        plan_ended: user.plan_ended.clone(),
        is_unlimited: user.is_unlimited,
    }
}

/// Writes a plan change's `holder` back onto `user`.
fn set_plan_holder(user: &mut User, holder: PlanHolder) {
    user.subscription_tier = holder.tier;
    user.stripe_subscription_id = holder.subscription_id;
    user.stripe_customer_id = holder.customer_id;
    user.plan_ended = holder.plan_ended;
}

fn tx_user(users: &TransactionalTree, user_id: UserId) -> TxResult<User> {
    tx_decode("user", &users.get(user_id.as_bytes())?.ok_or_else(|| abort(StoreError::UserNotFound))?)
}

fn tx_set_active(term_tree: &TransactionalTree, ids: &[TermId], active: bool) -> TxResult<()> {
    for id in ids {
        let Some(bytes) = term_tree.get(id.0.as_bytes())? else {
            continue;
        };
        let mut term: SearchTerm = tx_decode("search term", &bytes)?;
        term.is_active = active;
        term_tree.insert(id.0.as_bytes().as_slice(), tx_encode("search term", &term)?)?;
    }
    Ok(())
}
