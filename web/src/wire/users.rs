//! A user's own records: the mail preferences and the change the dashboard sends.

use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;
use uuid::Uuid;

use super::common::DeliveryDay;

/// `GET`/`PATCH /api/users/{userId}/preferences`: the preferences the service applies.
#[derive(Debug, Clone, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesView {
    /// The record's id (spec §3 user_preferences): a user has one record, under their own id.
    pub id: Uuid,
    pub user_id: Uuid,
    pub include_pubmed: bool,
    pub include_arxiv: bool,
    pub include_biorxiv: bool,
    pub weekly_digest: bool,
    pub daily_highlights: bool,
    pub delivery_day: DeliveryDay,
    /// The fields the user's plan does not let them change.
    pub locked: Vec<LockedPreference>,
}

/// A preference the free plan does not let its user change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum LockedPreference {
    IncludePubmed,
    IncludeArxiv,
    IncludeBiorxiv,
    DeliveryDay,
}

/// `PATCH /api/users/{userId}/preferences`: any of the fields.
#[derive(Debug, Clone, Default, Deserialize, TS, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreferencesChange {
    #[ts(optional = nullable)]
    pub include_pubmed: Option<bool>,
    #[ts(optional = nullable)]
    pub include_arxiv: Option<bool>,
    #[ts(optional = nullable)]
    pub include_biorxiv: Option<bool>,
    #[ts(optional = nullable)]
    pub weekly_digest: Option<bool>,
    #[ts(optional = nullable)]
    pub daily_highlights: Option<bool>,
    #[ts(optional = nullable)]
    pub delivery_day: Option<DeliveryDay>,
}

impl From<PreferencesChange> for engine::account::PreferencesChange {
    fn from(change: PreferencesChange) -> engine::account::PreferencesChange {
        engine::account::PreferencesChange {
            include_pubmed: change.include_pubmed,
            include_arxiv: change.include_arxiv,
            include_biorxiv: change.include_biorxiv,
            weekly_digest: change.weekly_digest,
            daily_highlights: change.daily_highlights,
            delivery_day: change.delivery_day.map(engine::DeliveryDay::from),
        }
    }
}
