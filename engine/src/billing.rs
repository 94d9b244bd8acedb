//! Paid plans as plain code: what a subscription read from the payment provider means for the
//! user's plan ([`verdict`]), the whole change it makes ([`transition`]: the plan, the tracking
//! row of spec §3 `subscription_tracking`, the terms turned off or back on, the change to mail),
//! a plan's end ([`end_plan`]), and the mails that report a change. The store only writes what
//! these decide, in one transaction.
//!
//! The rule everything rests on: a plan goes up only on a confirmed payment (the subscription is
//! active and its latest invoice paid), and down only when the subscription is over (canceled,
//! unpaid, expired) or the user cancels. A state read again gives the same verdict, so events
//! that come twice or out of order change nothing.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::mail::{render_action_mail, ActionMail, MailContext, RenderedMail};
use crate::search_term::{SearchTerm, TermId};
use crate::{Tier, UserId};

/// A subscription's status at the provider (Stripe's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderStatus {
    Incomplete,
    IncompleteExpired,
    Trialing,
    Active,
    PastDue,
    Canceled,
    Unpaid,
    Paused,
}

impl ProviderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderStatus::Incomplete => "incomplete",
            ProviderStatus::IncompleteExpired => "incomplete_expired",
            ProviderStatus::Trialing => "trialing",
            ProviderStatus::Active => "active",
            ProviderStatus::PastDue => "past_due",
            ProviderStatus::Canceled => "canceled",
            ProviderStatus::Unpaid => "unpaid",
            ProviderStatus::Paused => "paused",
        }
    }
}

/// An invoice as the provider reports it; amounts in cents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvoiceState {
    pub id: String,
    /// draft, open, paid, uncollectible or void.
    pub status: Option<String>,
    pub paid: bool,
    pub amount_paid: i64,
    pub amount_due: i64,
    pub currency: String,
}

impl InvoiceState {
    /// Nothing is owed on it: paid, or for nothing.
    pub fn is_settled(&self) -> bool {
        self.paid || self.status.as_deref() == Some("paid") || self.amount_due == 0
    }
}

/// A subscription just read from the provider, with what its latest payment said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionState {
    pub id: String,
    pub customer: String,
    pub status: ProviderStatus,
    /// The plan its price stands for; None for a price this server does not sell.
    pub tier: Option<Tier>,
    pub latest_invoice: Option<InvoiceState>,
    /// The latest invoice's payment: its status (succeeded, requires_action, …).
    pub payment_status: Option<String>,
    /// Why the latest payment failed, in the provider's words.
    pub payment_error: Option<String>,
}

/// What a subscription's state means for the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Paid for: the user has `tier`.
    Paid(Tier),
    /// Not paid yet, and not failed (e.g. waiting for 3-D Secure): nothing moves.
    Waiting,
    /// The payment failed; nothing moves, and the reason is kept.
    Failed(String),
    /// Payment is late but the provider is still retrying: the plan stays.
    Grace,
    /// The subscription is over: a plan it gave ends.
    Ended(EndCause),
}

/// Why a paid plan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndCause {
    /// The user canceled (here, or at the provider).
    Canceled,
    /// The payments finally failed.
    NotPaid,
}

pub const MSG_PRICE_NOT_SOLD: &str = "This subscription's price is not one of this server's plans.";
pub const MSG_PAYMENT_FAILED: &str = "There was an issue processing your payment.";
pub const MSG_FIRST_PAYMENT_EXPIRED: &str = "The first payment was not completed in time.";

/// The verdict on a subscription state; see the module's rule.
pub fn verdict(state: &SubscriptionState) -> Verdict {
    let settled = state.latest_invoice.as_ref().is_none_or(InvoiceState::is_settled);
    match state.status {
        ProviderStatus::Active | ProviderStatus::Trialing => match state.tier {
            None => Verdict::Failed(MSG_PRICE_NOT_SOLD.to_owned()),
            Some(tier) if settled => Verdict::Paid(tier),
            Some(_) => match &state.payment_error {
                Some(error) => Verdict::Failed(error.clone()),
                None => Verdict::Waiting,
            },
        },
        ProviderStatus::Incomplete => match &state.payment_error {
            Some(error) => Verdict::Failed(error.clone()),
            None if state.payment_status.as_deref() == Some("requires_payment_method") => Verdict::Failed(MSG_PAYMENT_FAILED.to_owned()),
            None => Verdict::Waiting,
        },
        ProviderStatus::IncompleteExpired => Verdict::Failed(state.payment_error.clone().unwrap_or_else(|| MSG_FIRST_PAYMENT_EXPIRED.to_owned())),
        ProviderStatus::PastDue => Verdict::Grace,
        ProviderStatus::Unpaid => Verdict::Ended(EndCause::NotPaid),
        ProviderStatus::Canceled | ProviderStatus::Paused => Verdict::Ended(if settled { EndCause::Canceled } else { EndCause::NotPaid }),
    }
}

/// A tracking row's status (spec §3 `subscription_tracking.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TrackingStatus {
    #[default]
    Pending,
    Active,
    PastDue,
    Failed,
    Canceled,
}

impl TrackingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TrackingStatus::Pending => "pending",
            TrackingStatus::Active => "active",
            TrackingStatus::PastDue => "past_due",
            TrackingStatus::Failed => "failed",
            TrackingStatus::Canceled => "canceled",
        }
    }
}

/// One subscription as Papertide follows it (spec §3 `subscription_tracking`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionTracking {
    pub id: Uuid,
    pub user_id: UserId,
    pub subscription_id: String,
    #[serde(default)]
    pub invoice_id: Option<String>,
    pub status: TrackingStatus,
    /// The plan it pays for has been given to the user.
    pub provisioned: bool,
    #[serde(default)]
    pub last_error: Option<String>,
    /// The plan asked for.
    pub tier: Tier,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl SubscriptionTracking {
    pub fn new(id: Uuid, user_id: UserId, subscription_id: &str, tier: Tier, now: DateTime<Utc>) -> SubscriptionTracking {
        SubscriptionTracking {
            id,
            user_id,
            subscription_id: subscription_id.to_owned(),
            invoice_id: None,
            status: TrackingStatus::Pending,
            provisioned: false,
            last_error: None,
            tier,
            created_at: now,
            updated_at: now,
        }
    }

    /// The status page's state (spec §3): success once provisioned and active, failed when the
    /// payment failed or the subscription ended, else pending.
    pub fn state(&self) -> &'static str {
        match self.status {
            TrackingStatus::Active | TrackingStatus::PastDue if self.provisioned => "success",
            TrackingStatus::Failed | TrackingStatus::Canceled => "failed",
            _ => "pending",
        }
    }
}

/// A paid plan that ended, kept on the user until an upgrade, so the dashboard can say so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanEnded {
    pub tier: Tier,
    pub ended_at: DateTime<Utc>,
    pub cause: EndCause,
    /// Terms turned off because the free plan allows fewer.
    pub inactive_terms: usize,
}

/// A change of plan that was made, and is reported by mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanChange {
    /// The plan went up (from free, or pro to team) after a paid invoice.
    Upgraded {
        from: Tier,
        to: Tier,
        invoice: Option<InvoiceState>,
        reactivated_terms: usize,
    },
    Ended(PlanEnded),
}

/// The terms a plan allows, given all of a user's terms oldest first: the ids to turn off
/// (active ones past the limit, newest first) and to turn back on (inactive ones while there is
/// room, oldest first). An unlimited account keeps every term.
pub fn terms_for_plan(terms: &[SearchTerm], tier: Tier, is_unlimited: bool) -> (Vec<TermId>, Vec<TermId>) {
    if is_unlimited {
        let reactivate = terms.iter().filter(|term| !term.is_active).map(|term| term.id).collect();
        return (Vec::new(), reactivate);
    }
    let limit = tier.search_term_limit();
    let active = terms.iter().filter(|term| term.is_active).count();
    if active > limit {
        let deactivate = terms.iter().rev().filter(|term| term.is_active).take(active - limit).map(|term| term.id).collect();
        return (deactivate, Vec::new());
    }
    let reactivate = terms.iter().filter(|term| !term.is_active).take(limit - active).map(|term| term.id).collect();
    (Vec::new(), reactivate)
}

/// The part of a user that a plan change reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanHolder {
    pub tier: Tier,
    /// The subscription that gives the plan.
    pub subscription_id: Option<String>,
    pub customer_id: Option<String>,
    pub plan_ended: Option<PlanEnded>,
    /// An unlimited account keeps every term whatever its plan.
    pub is_unlimited: bool,
}

/// What one subscription state does to a user: their plan, the subscription's tracking row,
/// the terms turned off and back on, and the change to mail. Decided by [`transition`]; the
/// store writes it in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub holder: PlanHolder,
    pub row: SubscriptionTracking,
    pub turn_off: Vec<TermId>,
    pub turn_on: Vec<TermId>,
    /// The change made and mailed; none when the plan stayed as it was.
    pub change: Option<PlanChange>,
}

/// What a subscription just read from the provider does to the user who holds `holder`, whose
/// terms are `terms` (oldest first) and whose row for it is `row` (none yet: a new one with
/// `new_row_id`). The tracking row follows the state; the plan moves up on a paid invoice (or to
/// the paid plan of the subscription that gives it), and ends when that subscription is over.
/// A state applied again changes nothing but the row's `updated_at`.
pub fn transition(
    holder: &PlanHolder,
    row: Option<&SubscriptionTracking>,
    state: &SubscriptionState,
    terms: &[SearchTerm],
    now: DateTime<Utc>,
    new_row_id: Uuid,
    user_id: UserId,
) -> Transition {
    let mut row = match row {
        Some(row) => row.clone(),
        None => SubscriptionTracking::new(new_row_id, user_id, &state.id, state.tier.unwrap_or(holder.tier), now),
    };
    if let Some(tier) = state.tier {
        if tier != row.tier {
            row.tier = tier;
            row.provisioned = false;
        }
    }
    row.invoice_id = state.latest_invoice.as_ref().map(|invoice| invoice.id.clone()).or(row.invoice_id);
    row.updated_at = now;
    let gives_current_plan = holder.subscription_id.as_deref() == Some(state.id.as_str());
    let mut next = Transition { holder: holder.clone(), row, turn_off: Vec::new(), turn_on: Vec::new(), change: None };
    match verdict(state) {
        Verdict::Paid(tier) => {
            next.row.status = TrackingStatus::Active;
            next.row.provisioned = true;
            next.row.last_error = None;
            if tier > holder.tier || (gives_current_plan && tier != holder.tier) {
                next.holder.tier = tier;
                next.holder.subscription_id = Some(state.id.clone());
                next.holder.customer_id.get_or_insert_with(|| state.customer.clone());
                next.holder.plan_ended = None;
                // Only terms turned back on: a move down between paid plans turns none off.
                let (_, reactivate) = terms_for_plan(terms, tier, holder.is_unlimited);
                next.change = Some(PlanChange::Upgraded {
                    from: holder.tier,
                    to: tier,
                    invoice: state.latest_invoice.clone(),
                    reactivated_terms: reactivate.len(),
                });
                next.turn_on = reactivate;
            } else if tier == holder.tier && holder.subscription_id.is_none() {
                next.holder.subscription_id = Some(state.id.clone());
            }
        }
        Verdict::Waiting => next.row.status = TrackingStatus::Pending,
        Verdict::Failed(reason) => {
            next.row.status = TrackingStatus::Failed;
            next.row.last_error = Some(reason);
        }
        Verdict::Grace => next.row.status = TrackingStatus::PastDue,
        Verdict::Ended(cause) => {
            next.row.status = TrackingStatus::Canceled;
            if gives_current_plan {
                let ended = end_plan(holder, terms, cause, now);
                next.holder = ended.holder;
                next.turn_off = ended.turn_off;
                next.change = ended.change;
            }
        }
    }
    next
}

/// A plan's end: the holder after it, the terms turned off and the change to mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanEnd {
    pub holder: PlanHolder,
    pub turn_off: Vec<TermId>,
    /// None when the holder was not on a paid plan (only the subscription is forgotten).
    pub change: Option<PlanChange>,
}

/// Moves a paid holder to free: terms past the free limit off (newest first), the ended plan
/// remembered. A free holder only forgets its subscription.
pub fn end_plan(holder: &PlanHolder, terms: &[SearchTerm], cause: EndCause, now: DateTime<Utc>) -> PlanEnd {
    let mut next = holder.clone();
    next.subscription_id = None;
    if !holder.tier.is_paid() {
        return PlanEnd { holder: next, turn_off: Vec::new(), change: None };
    }
    let (deactivate, _) = terms_for_plan(terms, Tier::Free, holder.is_unlimited);
    let ended = PlanEnded { tier: holder.tier, ended_at: now, cause, inactive_terms: deactivate.len() };
    next.tier = Tier::Free;
    next.plan_ended = Some(ended.clone());
    PlanEnd { holder: next, turn_off: deactivate, change: Some(PlanChange::Ended(ended)) }
}

/// Formats cents as dollars: 500 → "$5.00".
pub fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("{sign}${}.{:02}", cents / 100, cents % 100)
}

/// The mail that reports a plan change: a receipt for an upgrade, a notice for an end.
pub fn plan_change_mail(context: &MailContext, to: &str, change: &PlanChange) -> RenderedMail {
    match change {
        PlanChange::Upgraded { from, to: tier, invoice, reactivated_terms } => {
            let subject = format!("Your Papertide {} plan is active", tier.label());
            let paid = match invoice {
                Some(invoice) if invoice.amount_paid > 0 => {
                    format!("We received your payment of {} (invoice {}).", dollars(invoice.amount_paid), invoice.id)
                }
                _ => String::from("Your payment is confirmed."),
            };
            let moved = if from.is_paid() { format!(" Your plan moved from {} to {}.", from.label(), tier.label()) } else { String::new() };
            let back = match reactivated_terms {
                0 => String::new(),
                1 => String::from(" One of your search terms is active again."),
                n => format!(" {n} of your search terms are active again."),
            };
            let intro = format!(
                "{paid}{moved} Your {label} plan gives you up to {limit} search terms, every source (PubMed, arXiv, bioRxiv and medRxiv) and the delivery day of your choice.{back}",
                label = tier.label(),
                limit = tier.search_term_limit(),
            );
            let link = format!("{}/dashboard", context.public_url);
            render_action_mail(
                context,
                to,
                ActionMail {
                    subject: &subject,
                    heading: &subject,
                    intro: &intro,
                    button: "Open your dashboard",
                    link: &link,
                    outro: &format!(
                        "The plan costs {} a month and renews each month. You can cancel any time from your dashboard.",
                        dollars(i64::from(tier.monthly_price_cents()))
                    ),
                },
            )
        }
        PlanChange::Ended(ended) => {
            let subject = format!("Your Papertide {} plan has ended", ended.tier.label());
            let why = match ended.cause {
                EndCause::Canceled => format!("Your {} subscription was canceled, and your account is on the Free plan now.", ended.tier.label()),
                EndCause::NotPaid => format!(
                    "We could not collect the payment for your {} subscription, so it has ended and your account is on the Free plan now.",
                    ended.tier.label()
                ),
            };
            let terms = match ended.inactive_terms {
                0 => String::new(),
                1 => String::from(" One search term is now inactive: the Free plan has one active term."),
                n => format!(" {n} search terms are now inactive: the Free plan has one active term."),
            };
            let intro = format!("{why} Your search terms, digests and settings are all kept.{terms}");
            let link = format!("{}/subscribe", context.public_url);
            render_action_mail(
                context,
                to,
                ActionMail {
                    subject: &subject,
                    heading: &subject,
                    intro: &intro,
                    button: "See the plans",
                    link: &link,
                    outro: "Upgrade again at any time and your inactive terms become active again.",
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search_term::TermId;
    use chrono::TimeZone;

    fn fixed_now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 24, 9, 0, 0).single().expect("a valid time")
    }

    fn state(status: ProviderStatus, tier: Option<Tier>, invoice_paid: Option<bool>, error: Option<&str>) -> SubscriptionState {
        SubscriptionState {
            id: "sub_1".into(),
            customer: "cus_1".into(),
            status,
            tier,
            latest_invoice: invoice_paid.map(|paid| InvoiceState {
                id: "in_1".into(),
                status: Some(if paid { "paid" } else { "open" }.into()),
                paid,
                amount_paid: if paid { 500 } else { 0 },
                amount_due: 500,
                currency: "usd".into(),
            }),
            payment_status: None,
            payment_error: error.map(str::to_owned),
        }
    }

    #[test]
    fn a_plan_goes_up_only_on_a_paid_invoice() {
        assert_eq!(verdict(&state(ProviderStatus::Active, Some(Tier::Pro), Some(true), None)), Verdict::Paid(Tier::Pro));
        assert_eq!(verdict(&state(ProviderStatus::Active, Some(Tier::Team), Some(false), None)), Verdict::Waiting);
        assert_eq!(verdict(&state(ProviderStatus::Incomplete, Some(Tier::Pro), Some(false), None)), Verdict::Waiting);
        assert_eq!(
            verdict(&state(ProviderStatus::Incomplete, Some(Tier::Pro), Some(false), Some("Your card was declined."))),
            Verdict::Failed("Your card was declined.".into())
        );
        assert_eq!(verdict(&state(ProviderStatus::Active, None, Some(true), None)), Verdict::Failed(MSG_PRICE_NOT_SOLD.into()));
    }

    #[test]
    fn a_plan_goes_down_only_when_the_subscription_is_over() {
        assert_eq!(verdict(&state(ProviderStatus::PastDue, Some(Tier::Pro), Some(false), None)), Verdict::Grace);
        assert_eq!(verdict(&state(ProviderStatus::Canceled, Some(Tier::Pro), Some(true), None)), Verdict::Ended(EndCause::Canceled));
        assert_eq!(verdict(&state(ProviderStatus::Canceled, Some(Tier::Pro), Some(false), None)), Verdict::Ended(EndCause::NotPaid));
        assert_eq!(verdict(&state(ProviderStatus::Unpaid, Some(Tier::Pro), Some(false), None)), Verdict::Ended(EndCause::NotPaid));
        assert!(matches!(verdict(&state(ProviderStatus::IncompleteExpired, Some(Tier::Pro), Some(false), None)), Verdict::Failed(_)));
    }

    #[test]
    fn the_status_page_state_follows_the_row() {
        let mut row = SubscriptionTracking::new(Uuid::nil(), UserId(Uuid::nil()), "sub_1", Tier::Pro, fixed_now());
        assert_eq!(row.state(), "pending");
        row.status = TrackingStatus::Active;
        assert_eq!(row.state(), "pending", "active but not yet given to the user");
        row.provisioned = true;
        assert_eq!(row.state(), "success");
        row.status = TrackingStatus::Failed;
        assert_eq!(row.state(), "failed");
    }

    fn terms(active: &[bool]) -> Vec<SearchTerm> {
        let now = fixed_now();
        active
            .iter()
            .enumerate()
            .map(|(index, &is_active)| {
                let mut term =
                    SearchTerm::new(TermId(Uuid::from_u128(index as u128 + 1)), UserId(Uuid::nil()), format!("topic {index}"), Tier::Team, now);
                term.is_active = is_active;
                term
            })
            .collect()
    }

    #[test]
    fn an_ended_plan_turns_off_the_newest_terms_and_an_upgrade_turns_the_oldest_back_on() {
        let five = terms(&[true; 5]);
        let (off, on) = terms_for_plan(&five, Tier::Free, false);
        assert_eq!(off, vec![five[4].id, five[3].id, five[2].id, five[1].id]);
        assert!(on.is_empty());

        let after = terms(&[true, false, false, false, false]);
        let (off, on) = terms_for_plan(&after, Tier::Pro, false);
        assert!(off.is_empty());
        assert_eq!(on, vec![after[1].id, after[2].id, after[3].id, after[4].id]);
        let (_, on) = terms_for_plan(&terms(&[true, false, false]), Tier::Free, false);
        assert!(on.is_empty(), "no room on free");
        let (off, on) = terms_for_plan(&terms(&[true, false]), Tier::Free, true);
        assert_eq!((off.len(), on.len()), (0, 1), "unlimited accounts keep every term");
    }

    #[test]
    fn plan_mails_say_what_happened() {
        let context = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@example.org".into() };
        let receipt = plan_change_mail(
            &context,
            "ada@example.org",
            &PlanChange::Upgraded {
                from: Tier::Free,
                to: Tier::Pro,
                invoice: state(ProviderStatus::Active, Some(Tier::Pro), Some(true), None).latest_invoice,
                reactivated_terms: 0,
            },
        );
        assert_eq!(receipt.subject, "Your Papertide Pro plan is active");
        assert!(receipt.text.contains("We received your payment of $5.00 (invoice in_1)."), "{}", receipt.text);
        assert!(receipt.text.contains("$5.00 a month"), "{}", receipt.text);
        let ended = plan_change_mail(
            &context,
            "ada@example.org",
            &PlanChange::Ended(PlanEnded { tier: Tier::Team, ended_at: fixed_now(), cause: EndCause::NotPaid, inactive_terms: 4 }),
        );
        assert_eq!(ended.subject, "Your Papertide Team plan has ended");
        assert!(ended.text.contains("We could not collect the payment"), "{}", ended.text);
        assert!(ended.text.contains("4 search terms are now inactive"), "{}", ended.text);
        assert_eq!(ended.action_url.as_deref(), Some("https://papers.example.org/subscribe"));
        assert_eq!(dollars(1234), "$12.34");
    }

    /// As the code stands (not a rule of the spec): a subscription moved from Team to Pro gives
    /// Pro at once but turns no term off, so the account keeps more active terms than Pro allows
    /// until the plan next ends.
    #[test]
    fn a_move_down_between_paid_plans_turns_no_terms_off() {
        let held = terms(&[true; 8]);
        let team = PlanHolder { tier: Tier::Team, subscription_id: Some("sub_1".into()), customer_id: None, plan_ended: None, is_unlimited: false };
        let to_pro = state(ProviderStatus::Active, Some(Tier::Pro), Some(true), None);
        let next = transition(&team, None, &to_pro, &held, fixed_now(), Uuid::nil(), UserId(Uuid::nil()));
        assert_eq!(next.holder.tier, Tier::Pro);
        assert!(next.turn_off.is_empty() && next.turn_on.is_empty());
        assert!(matches!(next.change, Some(PlanChange::Upgraded { from: Tier::Team, to: Tier::Pro, .. })));
    }

    /// Property tests of [`transition`] over sequences of subscription states, as webhook events
    /// bring them: twice, late, out of order, for two subscriptions of one user.
    mod transitions {
        use proptest::prelude::*;

        use super::*;

        const SUBSCRIPTIONS: [&str; 2] = ["sub_a", "sub_b"];

        fn provider_status() -> impl Strategy<Value = ProviderStatus> {
            prop_oneof![
                Just(ProviderStatus::Incomplete),
                Just(ProviderStatus::IncompleteExpired),
                Just(ProviderStatus::Trialing),
                Just(ProviderStatus::Active),
                Just(ProviderStatus::PastDue),
                Just(ProviderStatus::Canceled),
                Just(ProviderStatus::Unpaid),
                Just(ProviderStatus::Paused),
            ]
        }

        /// A state as the provider could report it; the prices this server sells are Pro and Team.
        fn subscription_state() -> impl Strategy<Value = SubscriptionState> {
            (
                0..SUBSCRIPTIONS.len(),
                provider_status(),
                prop_oneof![Just(None), Just(Some(Tier::Pro)), Just(Some(Tier::Team))],
                proptest::option::of(any::<bool>()),
                proptest::option::of(Just("Your card was declined.")),
                proptest::option::of(Just("requires_payment_method")),
            )
                .prop_map(|(subscription, status, tier, invoice_paid, error, payment_status)| SubscriptionState {
                    payment_status: payment_status.map(str::to_owned),
                    id: SUBSCRIPTIONS[subscription].to_owned(),
                    ..state(status, tier, invoice_paid, error)
                })
        }

        /// One user as the store keeps them: plan, rows, terms.
        #[derive(Debug, Clone, PartialEq)]
        struct Account {
            holder: PlanHolder,
            rows: Vec<SubscriptionTracking>,
            terms: Vec<SearchTerm>,
        }

        impl Account {
            fn free(is_unlimited: bool, term_count: usize) -> Account {
                let mut active = vec![false; term_count];
                if let Some(first) = active.first_mut() {
                    *first = true;
                }
                if is_unlimited {
                    active = vec![true; term_count];
                }
                Account {
                    holder: PlanHolder { tier: Tier::Free, subscription_id: None, customer_id: None, plan_ended: None, is_unlimited },
                    rows: Vec::new(),
                    terms: terms(&active),
                }
            }

            fn row(&self, id: &str) -> Option<&SubscriptionTracking> {
                self.rows.iter().find(|row| row.subscription_id == id)
            }

            /// Applies `state` as the store does; returns what was decided.
            fn apply(&mut self, state: &SubscriptionState, now: DateTime<Utc>) -> Transition {
                let next = transition(&self.holder, self.row(&state.id), state, &self.terms, now, Uuid::from_u128(99), UserId(Uuid::nil()));
                self.holder = next.holder.clone();
                self.rows.retain(|row| row.subscription_id != state.id);
                self.rows.push(next.row.clone());
                for term in &mut self.terms {
                    if next.turn_off.contains(&term.id) {
                        term.is_active = false;
                    }
                    if next.turn_on.contains(&term.id) {
                        term.is_active = true;
                    }
                }
                next
            }

            fn active_terms(&self) -> usize {
                self.terms.iter().filter(|term| term.is_active).count()
            }
        }

        fn account() -> impl Strategy<Value = Account> {
            (any::<bool>(), 0usize..12).prop_map(|(is_unlimited, term_count)| Account::free(is_unlimited, term_count))
        }

        proptest! {
            #[test]
            fn a_state_applied_again_changes_nothing(mut account in account(), states in proptest::collection::vec(subscription_state(), 1..12)) {
                let now = fixed_now();
                for state in &states {
                    account.apply(state, now);
                    let before = account.clone();
                    let again = account.apply(state, now);
                    prop_assert_eq!(&again.change, &None, "no second mail");
                    prop_assert!(again.turn_off.is_empty() && again.turn_on.is_empty());
                    prop_assert_eq!(&account, &before);
                }
            }

            #[test]
            fn the_plan_goes_up_only_on_a_paid_invoice_and_down_only_when_its_subscription_ends_or_moves(
                mut account in account(),
                states in proptest::collection::vec(subscription_state(), 1..16),
            ) {
                let now = fixed_now();
                for state in &states {
                    let before = account.holder.clone();
                    let next = account.apply(state, now);
                    let after = &account.holder;
                    if after.tier > before.tier {
                        prop_assert_eq!(verdict(state), Verdict::Paid(after.tier));
                    }
                    if after.tier < before.tier {
                        prop_assert_eq!(before.subscription_id.as_deref(), Some(state.id.as_str()), "only the subscription that gives the plan takes it away");
                        prop_assert!(matches!(verdict(state), Verdict::Ended(_) | Verdict::Paid(_)));
                    }
                    // A mail exactly when the plan changed.
                    prop_assert_eq!(next.change.is_some(), after.tier != before.tier);
                }
            }

            #[test]
            fn a_paid_plan_always_has_the_subscription_that_gives_it(
                mut account in account(),
                states in proptest::collection::vec(subscription_state(), 1..16),
            ) {
                let now = fixed_now();
                for state in &states {
                    account.apply(state, now);
                    let holder = &account.holder;
                    prop_assert_eq!(holder.tier.is_paid(), holder.subscription_id.is_some());
                    if let Some(id) = &holder.subscription_id {
                        // A later waiting or failed payment keeps the plan; only the end takes it.
                        let row = account.row(id).expect("the giving subscription has a row");
                        prop_assert!(row.status != TrackingStatus::Canceled);
                    }
                    prop_assert!(holder.plan_ended.is_none() || holder.tier == Tier::Free, "an ended plan is remembered only on free");
                }
            }

            #[test]
            fn an_ended_subscription_gives_no_paid_plan_until_paid_again(
                mut account in account(),
                states in proptest::collection::vec(subscription_state(), 1..16),
            ) {
                let now = fixed_now();
                let mut ended = std::collections::HashSet::new();
                for state in &states {
                    let next = account.apply(state, now);
                    match verdict(state) {
                        Verdict::Ended(_) => {
                            ended.insert(state.id.clone());
                            prop_assert!(account.holder.subscription_id.as_deref() != Some(state.id.as_str()));
                        }
                        Verdict::Paid(_) => {
                            ended.remove(&state.id);
                        }
                        _ => {}
                    }
                    if let Some(id) = &account.holder.subscription_id {
                        prop_assert!(!ended.contains(id), "a plan from a subscription that ended and was not paid since");
                    }
                    prop_assert_eq!(next.row.status == TrackingStatus::Canceled, matches!(verdict(state), Verdict::Ended(_)));
                }
            }

            #[test]
            fn the_row_follows_the_latest_state_of_its_subscription(
                mut account in account(),
                states in proptest::collection::vec(subscription_state(), 1..16),
            ) {
                let now = fixed_now();
                for state in &states {
                    account.apply(state, now);
                    let row = account.row(&state.id).expect("a row for every subscription seen");
                    let expected = match verdict(state) {
                        Verdict::Paid(_) => TrackingStatus::Active,
                        Verdict::Waiting => TrackingStatus::Pending,
                        Verdict::Failed(_) => TrackingStatus::Failed,
                        Verdict::Grace => TrackingStatus::PastDue,
                        Verdict::Ended(_) => TrackingStatus::Canceled,
                    };
                    prop_assert_eq!(row.status, expected);
                    if let Some(tier) = state.tier {
                        prop_assert_eq!(row.tier, tier);
                    }
                    prop_assert_eq!(row.state() == "success", expected == TrackingStatus::Active || (expected == TrackingStatus::PastDue && row.provisioned));
                }
            }

            #[test]
            fn active_terms_stay_within_the_plan_except_after_a_move_down_between_paid_plans(
                mut account in account(),
                states in proptest::collection::vec(subscription_state(), 1..16),
            ) {
                let now = fixed_now();
                let mut moved_down_while_paid = false;
                for state in &states {
                    let before = account.holder.tier;
                    account.apply(state, now);
                    let after = account.holder.tier;
                    moved_down_while_paid |= after.is_paid() && after < before;
                    if account.holder.is_unlimited {
                        prop_assert_eq!(account.active_terms(), account.terms.len(), "an unlimited account keeps every term");
                    } else if !moved_down_while_paid {
                        prop_assert!(account.active_terms() <= after.search_term_limit());
                    }
                    if after == Tier::Free && !account.holder.is_unlimited {
                        prop_assert!(account.active_terms() <= Tier::Free.search_term_limit());
                    }
                }
            }
        }
    }
}
