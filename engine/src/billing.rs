//! Paid plans as plain code: what a subscription read from the payment provider means for the
//! user's plan ([`verdict`]), the tracking row of spec §3 (`subscription_tracking`), which terms a
//! plan change turns off or back on, and the mails that report a change.
//!
//! The rule everything rests on: a plan goes up only on a confirmed payment (the subscription is
//! active and its latest invoice paid), and down only when the subscription is over (canceled,
//! unpaid, expired) or the user cancels. A state read again gives the same verdict, so events
//! that come twice or out of order change nothing.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::mail::{render_action_mail, ActionMail, MailContext, RenderedMail};
use crate::search_term::SearchTerm;
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
pub fn terms_for_plan(terms: &[SearchTerm], tier: Tier, is_unlimited: bool) -> (Vec<crate::search_term::TermId>, Vec<crate::search_term::TermId>) {
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
}
