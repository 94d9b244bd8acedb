//! Accounts and plans: user ids, subscription tiers with their limits, research fields, delivery
//! days and the default mail preferences of spec §3 and §6.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::paper::Source;

/// The id of a user account (a UUID, spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UserId(pub Uuid);

impl UserId {
    pub fn as_bytes(&self) -> &[u8; 16] {
        self.0.as_bytes()
    }

    pub fn from_slice(bytes: &[u8]) -> Option<UserId> {
        Uuid::from_slice(bytes).ok().map(UserId)
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(formatter)
    }
}

impl FromStr for UserId {
    type Err = uuid::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(text).map(UserId)
    }
}

/// A subscription plan (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    #[default]
    Free,
    Pro,
    Team,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Free, Tier::Pro, Tier::Team];

    /// How many search terms the plan allows; past the team limit users contact support.
    pub fn search_term_limit(self) -> usize {
        match self {
            Tier::Free => 1,
            Tier::Pro => 5,
            Tier::Team => 10,
        }
    }

    /// Monthly price in US cents.
    pub fn monthly_price_cents(self) -> u32 {
        match self {
            Tier::Free => 0,
            Tier::Pro => 500,
            Tier::Team => 1000,
        }
    }

    pub fn is_paid(self) -> bool {
        self != Tier::Free
    }

    /// What the plan gives beyond its terms and digests. Seeds, feeds and citations are how a
    /// researcher starts and keeps up, so every plan has them; posting digests to a lab's chat
    /// is the Team plan's.
    pub fn entitlements(self) -> Entitlements {
        Entitlements { seeds: true, feeds: true, citations: true, lab_channels: self == Tier::Team }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Free => "free",
            Tier::Pro => "pro",
            Tier::Team => "team",
        }
    }

    /// The name shown on badges: Free, Pro or Team.
    pub fn label(self) -> &'static str {
        match self {
            Tier::Free => "Free",
            Tier::Pro => "Pro",
            Tier::Team => "Team",
        }
    }
}

/// What a plan gives beyond its terms and digests ([`Tier::entitlements`]): the plan cards, the
/// payment page and the README list these, and the service checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entitlements {
    /// Seeding a term from papers the researcher knows.
    pub seeds: bool,
    /// Private Atom feeds of the digests.
    pub feeds: bool,
    /// BibTeX and RIS downloads of papers, digests and a term's history.
    pub citations: bool,
    /// Posting each digest of a term to a lab's Slack or Mattermost channel.
    pub lab_channels: bool,
}

impl fmt::Display for Tier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// The text was not one of the names of a closed set (tier, research field, weekday).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{given}' is not one of: {allowed}")]
pub struct UnknownName {
    pub given: String,
    pub allowed: &'static str,
}

impl FromStr for Tier {
    type Err = UnknownName;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "free" => Ok(Tier::Free),
            "pro" => Ok(Tier::Pro),
            "team" => Ok(Tier::Team),
            _ => Err(UnknownName { given: text.to_owned(), allowed: "free, pro, team" }),
        }
    }
}

/// The research fields offered by the combined signup form (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResearchField {
    Medicine,
    Biology,
    Physics,
    Chemistry,
    ComputerScience,
    Mathematics,
    Psychology,
    Engineering,
    Other,
}

impl ResearchField {
    pub const ALL: [ResearchField; 9] = [
        ResearchField::Medicine,
        ResearchField::Biology,
        ResearchField::Physics,
        ResearchField::Chemistry,
        ResearchField::ComputerScience,
        ResearchField::Mathematics,
        ResearchField::Psychology,
        ResearchField::Engineering,
        ResearchField::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ResearchField::Medicine => "medicine",
            ResearchField::Biology => "biology",
            ResearchField::Physics => "physics",
            ResearchField::Chemistry => "chemistry",
            ResearchField::ComputerScience => "computer-science",
            ResearchField::Mathematics => "mathematics",
            ResearchField::Psychology => "psychology",
            ResearchField::Engineering => "engineering",
            ResearchField::Other => "other",
        }
    }
}

impl FromStr for ResearchField {
    type Err = UnknownName;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ResearchField::ALL.into_iter().find(|field| field.as_str() == text).ok_or_else(|| UnknownName {
            given: text.to_owned(),
            allowed: "medicine, biology, physics, chemistry, computer-science, mathematics, \
                          psychology, engineering, other",
        })
    }
}

/// The weekday a digest is delivered on; monday unless the user (on a paid plan) chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryDay {
    Sunday,
    #[default]
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
}

impl DeliveryDay {
    pub const ALL: [DeliveryDay; 7] = [
        DeliveryDay::Sunday,
        DeliveryDay::Monday,
        DeliveryDay::Tuesday,
        DeliveryDay::Wednesday,
        DeliveryDay::Thursday,
        DeliveryDay::Friday,
        DeliveryDay::Saturday,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryDay::Sunday => "sunday",
            DeliveryDay::Monday => "monday",
            DeliveryDay::Tuesday => "tuesday",
            DeliveryDay::Wednesday => "wednesday",
            DeliveryDay::Thursday => "thursday",
            DeliveryDay::Friday => "friday",
            DeliveryDay::Saturday => "saturday",
        }
    }
}

impl FromStr for DeliveryDay {
    type Err = UnknownName;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lowered = text.trim().to_ascii_lowercase();
        DeliveryDay::ALL
            .into_iter()
            .find(|day| day.as_str() == lowered)
            .ok_or_else(|| UnknownName { given: text.to_owned(), allowed: "sunday, monday, tuesday, wednesday, thursday, friday, saturday" })
    }
}

/// A user's mail preferences with the defaults of spec §3 (`deliveryDay` monday everywhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    pub include_pubmed: bool,
    pub include_arxiv: bool,
    pub include_biorxiv: bool,
    pub weekly_digest: bool,
    pub daily_highlights: bool,
    pub delivery_day: DeliveryDay,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences {
            include_pubmed: true,
            include_arxiv: true,
            include_biorxiv: true,
            weekly_digest: true,
            daily_highlights: false,
            delivery_day: DeliveryDay::Monday,
        }
    }
}

/// What a free plan may not choose (spec §5 and §6: PubMed only, Monday).
pub const MSG_FREE_PLAN_LOCKED: &str = "Free plans receive PubMed papers on Mondays. Upgrade to Pro or Team to choose your sources and delivery day.";
/// A change that would leave no source to search.
pub const MSG_NO_SOURCE: &str = "Choose at least one source for your digests.";

/// A change to a user's preferences, as the dashboard sends it: any of the fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreferencesChange {
    pub include_pubmed: Option<bool>,
    pub include_arxiv: Option<bool>,
    pub include_biorxiv: Option<bool>,
    pub weekly_digest: Option<bool>,
    pub daily_highlights: Option<bool>,
    pub delivery_day: Option<DeliveryDay>,
}

impl Preferences {
    /// The preferences the service applies on `tier`: a free plan gets PubMed only, on Mondays,
    /// whatever was stored (a downgrade keeps the paid choices for a later upgrade).
    pub fn effective(&self, tier: Tier) -> Preferences {
        if tier.is_paid() {
            return self.clone();
        }
        Preferences { include_pubmed: true, include_arxiv: false, include_biorxiv: false, delivery_day: DeliveryDay::Monday, ..self.clone() }
    }

    /// The sources these preferences search (bioRxiv and medRxiv go together).
    pub fn sources(&self) -> Vec<Source> {
        let mut sources = Vec::new();
        if self.include_pubmed {
            sources.push(Source::Pubmed);
        }
        if self.include_arxiv {
            sources.push(Source::Arxiv);
        }
        if self.include_biorxiv {
            sources.extend([Source::Biorxiv, Source::Medrxiv]);
        }
        sources
    }

    /// These preferences with `change` applied, if `tier` allows it: a free plan cannot choose
    /// sources or the day (sending the values it already has is fine), and some source must stay.
    pub fn changed(&self, change: &PreferencesChange, tier: Tier) -> Result<Preferences, &'static str> {
        let current = self.effective(tier);
        let next = Preferences {
            include_pubmed: change.include_pubmed.unwrap_or(current.include_pubmed),
            include_arxiv: change.include_arxiv.unwrap_or(current.include_arxiv),
            include_biorxiv: change.include_biorxiv.unwrap_or(current.include_biorxiv),
            weekly_digest: change.weekly_digest.unwrap_or(current.weekly_digest),
            daily_highlights: change.daily_highlights.unwrap_or(current.daily_highlights),
            delivery_day: change.delivery_day.unwrap_or(current.delivery_day),
        };
        if !tier.is_paid() && next.effective(tier) != next {
            return Err(MSG_FREE_PLAN_LOCKED);
        }
        if !(next.include_pubmed || next.include_arxiv || next.include_biorxiv) {
            return Err(MSG_NO_SOURCE);
        }
        Ok(next)
    }
}

/// Normalizes an email address for identity: trimmed, ASCII letters lower-cased. Two addresses
/// that normalize alike are one account. Valid addresses are ASCII
/// (`validation::is_valid_email`); other characters are kept as they are, so a lookalike such as
/// the Kelvin sign (which Unicode lower-cases to `k`) never becomes another account's address.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kelvin_sign_was_folded_into_an_ascii_address() {
        assert_eq!(normalize_email(" Kate@Example.ORG "), "kate@example.org");
        assert_eq!(normalize_email("\u{212a}ate@example.org"), "\u{212a}ate@example.org");
        assert_eq!(normalize_email("KAT\u{130}@example.org"), "kat\u{130}@example.org");
    }

    #[test]
    fn tiers_parse_and_carry_their_limits() {
        assert_eq!("Pro".parse::<Tier>(), Ok(Tier::Pro));
        assert_eq!(" team ".parse::<Tier>(), Ok(Tier::Team));
        assert!("gold".parse::<Tier>().is_err());
        let limits: Vec<usize> = Tier::ALL.iter().map(|tier| tier.search_term_limit()).collect();
        assert_eq!(limits, vec![1, 5, 10]);
        assert_eq!(Tier::Team.monthly_price_cents(), 1000);
    }

    #[test]
    fn research_fields_use_the_spec_names() {
        assert_eq!("computer-science".parse::<ResearchField>(), Ok(ResearchField::ComputerScience));
        assert!("Computer Science".parse::<ResearchField>().is_err());
        for field in ResearchField::ALL {
            assert_eq!(field.as_str().parse::<ResearchField>(), Ok(field));
        }
    }

    #[test]
    fn default_preferences_deliver_on_monday_from_all_sources() {
        let preferences = Preferences::default();
        assert_eq!(preferences.delivery_day, DeliveryDay::Monday);
        assert!(preferences.include_pubmed && preferences.include_arxiv && preferences.include_biorxiv);
        assert!(preferences.weekly_digest);
        assert!(!preferences.daily_highlights);
    }

    #[test]
    fn emails_normalize_by_trimming_and_lowercasing() {
        assert_eq!(normalize_email("  Ada@Example.ORG "), "ada@example.org");
    }

    #[test]
    fn free_plans_get_pubmed_on_mondays_whatever_was_stored() {
        let stored = Preferences { include_arxiv: true, delivery_day: DeliveryDay::Friday, ..Preferences::default() };
        let free = stored.effective(Tier::Free);
        assert_eq!((free.include_pubmed, free.include_arxiv, free.include_biorxiv, free.delivery_day), (true, false, false, DeliveryDay::Monday));
        assert_eq!(stored.effective(Tier::Pro), stored);
        assert_eq!(free.sources(), vec![Source::Pubmed]);
        assert_eq!(Preferences::default().sources(), Source::ALL.to_vec());
    }

    #[test]
    fn preference_changes_follow_the_plan() {
        let stored = Preferences::default();
        let change = |json: &str| serde_json::from_str::<PreferencesChange>(json).expect("a change");
        let paid = stored.changed(&change(r#"{"deliveryDay":"friday","includePubmed":false}"#), Tier::Pro).expect("paid plans choose");
        assert_eq!((paid.delivery_day, paid.include_pubmed, paid.include_arxiv), (DeliveryDay::Friday, false, true));

        assert_eq!(stored.changed(&change(r#"{"deliveryDay":"friday"}"#), Tier::Free), Err(MSG_FREE_PLAN_LOCKED));
        assert_eq!(stored.changed(&change(r#"{"includeArxiv":true}"#), Tier::Free), Err(MSG_FREE_PLAN_LOCKED));
        assert_eq!(stored.changed(&change(r#"{"includePubmed":false}"#), Tier::Free), Err(MSG_FREE_PLAN_LOCKED));
        let free = stored.changed(&change(r#"{"weeklyDigest":false,"deliveryDay":"monday","includeArxiv":false}"#), Tier::Free).expect("allowed");
        assert!(!free.weekly_digest);

        let none = change(r#"{"includePubmed":false,"includeArxiv":false,"includeBiorxiv":false}"#);
        assert_eq!(stored.changed(&none, Tier::Team), Err(MSG_NO_SOURCE));
        assert!(serde_json::from_str::<PreferencesChange>(r#"{"deliveryDay":"funday"}"#).is_err());
        assert!(serde_json::from_str::<PreferencesChange>(r#"{"isUnlimited":true}"#).is_err(), "unknown fields are refused");
    }
}
