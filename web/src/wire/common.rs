//! Wire counterparts of the domain's small value types (plans, verdicts, weekdays, statuses),
//! shared by several route groups, and the answer of calls that only say they worked.

use serde::{Deserialize, Serialize, Serializer};
use ts_rs::TS;
use utoipa::ToSchema;

/// A subscription plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Free,
    Pro,
    Team,
}

impl From<engine::Tier> for Tier {
    fn from(tier: engine::Tier) -> Tier {
        match tier {
            engine::Tier::Free => Tier::Free,
            engine::Tier::Pro => Tier::Pro,
            engine::Tier::Team => Tier::Team,
        }
    }
}

/// What a researcher says of a paper for one term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Relevant,
    NotRelevant,
    MoreLikeThis,
}

impl From<engine::rating::Verdict> for Verdict {
    fn from(verdict: engine::rating::Verdict) -> Verdict {
        match verdict {
            engine::rating::Verdict::Relevant => Verdict::Relevant,
            engine::rating::Verdict::NotRelevant => Verdict::NotRelevant,
            engine::rating::Verdict::MoreLikeThis => Verdict::MoreLikeThis,
        }
    }
}

impl From<Verdict> for engine::rating::Verdict {
    fn from(verdict: Verdict) -> engine::rating::Verdict {
        match verdict {
            Verdict::Relevant => engine::rating::Verdict::Relevant,
            Verdict::NotRelevant => engine::rating::Verdict::NotRelevant,
            Verdict::MoreLikeThis => engine::rating::Verdict::MoreLikeThis,
        }
    }
}

/// The weekday a digest is delivered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryDay {
    Sunday,
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
}

impl From<engine::DeliveryDay> for DeliveryDay {
    fn from(day: engine::DeliveryDay) -> DeliveryDay {
        match day {
            engine::DeliveryDay::Sunday => DeliveryDay::Sunday,
            engine::DeliveryDay::Monday => DeliveryDay::Monday,
            engine::DeliveryDay::Tuesday => DeliveryDay::Tuesday,
            engine::DeliveryDay::Wednesday => DeliveryDay::Wednesday,
            engine::DeliveryDay::Thursday => DeliveryDay::Thursday,
            engine::DeliveryDay::Friday => DeliveryDay::Friday,
            engine::DeliveryDay::Saturday => DeliveryDay::Saturday,
        }
    }
}

impl From<DeliveryDay> for engine::DeliveryDay {
    fn from(day: DeliveryDay) -> engine::DeliveryDay {
        match day {
            DeliveryDay::Sunday => engine::DeliveryDay::Sunday,
            DeliveryDay::Monday => engine::DeliveryDay::Monday,
            DeliveryDay::Tuesday => engine::DeliveryDay::Tuesday,
            DeliveryDay::Wednesday => engine::DeliveryDay::Wednesday,
            DeliveryDay::Thursday => engine::DeliveryDay::Thursday,
            DeliveryDay::Friday => engine::DeliveryDay::Friday,
            DeliveryDay::Saturday => engine::DeliveryDay::Saturday,
        }
    }
}

/// Where a paper came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Pubmed,
    Arxiv,
    Biorxiv,
    Medrxiv,
}

impl From<engine::paper::Source> for Source {
    fn from(source: engine::paper::Source) -> Source {
        match source {
            engine::paper::Source::Pubmed => Source::Pubmed,
            engine::paper::Source::Arxiv => Source::Arxiv,
            engine::paper::Source::Biorxiv => Source::Biorxiv,
            engine::paper::Source::Medrxiv => Source::Medrxiv,
        }
    }
}

/// `{ "success": true }`: the call did what it was asked.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct Done {
    #[ts(type = "true")]
    pub success: bool,
}

impl Done {
    pub const fn new() -> Done {
        Done { success: true }
    }
}

impl Default for Done {
    fn default() -> Done {
        Done::new()
    }
}

/// `{ "message": … }`: a call whose answer is a sentence for the user.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct Message {
    pub message: String,
}

impl Message {
    pub fn new(message: impl Into<String>) -> Message {
        Message { message: message.into() }
    }
}

/// `{ "success": true, "message": … }`.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
pub struct DoneWithMessage {
    pub message: String,
    #[ts(type = "true")]
    pub success: bool,
}

impl DoneWithMessage {
    pub fn new(message: impl Into<String>) -> DoneWithMessage {
        DoneWithMessage { message: message.into(), success: true }
    }
}

/// Serializes `value` with its object keys in alphabetical order, at every depth: the order
/// of the answers that nest a struct which elsewhere goes on the wire in its declared order
/// (the user inside a sign-in answer; the rating inside a confirmed link).
pub fn sorted_keys<T: Serialize, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    let sorted = serde_json::to_value(value).map_err(serde::ser::Error::custom)?;
    sorted.serialize(serializer)
}
