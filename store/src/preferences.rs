//! Mail preferences per user (spec §3 `user_preferences`), created with the account.

use engine::{Preferences, UserId};

use crate::codec::{decode, encode};
use crate::{Accounts, Result};

impl Accounts<'_> {
    /// A user's preferences; the spec's defaults when none were stored.
    pub fn preferences(&self, user_id: UserId) -> Result<Preferences> {
        let stored = self.store.trees().preferences.get(user_id.as_bytes())?;
        Ok(stored.map(|bytes| decode("preferences", &bytes)).transpose()?.unwrap_or_default())
    }

    pub fn put_preferences(&self, user_id: UserId, preferences: &Preferences) -> Result<()> {
        let writer = self.store.writing()?;
        writer.preferences.insert(user_id.as_bytes(), encode("preferences", preferences)?)?;
        Ok(())
    }
}
