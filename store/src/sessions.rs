//! Sign-in sessions, stored by the hash of the cookie that carries them. A session is valid while
//! unexpired, while its user is active, and while its epoch matches the user's (a password reset
//! bumps the epoch and so ends every session at once).

use chrono::{DateTime, Utc};
use engine::UserId;
use serde::{Deserialize, Serialize};
use sled::Transactional;

use crate::codec::{decode, tx_encode};
use crate::secret::TokenHash;
use crate::users::User;
use crate::{Accounts, Result};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub user_id: UserId,
    pub epoch: u32,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    #[serde(default)]
    pub ip_address: Option<String>,
}

/// The meta key of the device cookies' secret.
const DEVICE_COOKIE_KEY: &[u8] = b"device_cookie_key";

fn user_session_key(user_id: UserId, hash: &TokenHash) -> Vec<u8> {
    let mut key = Vec::with_capacity(48);
    key.extend_from_slice(user_id.as_bytes());
    key.extend_from_slice(hash.as_bytes());
    key
}

impl Accounts<'_> {
    pub fn create_session(&self, hash: TokenHash, session: &Session) -> Result<()> {
        let writer = self.store.writing()?;
        let by_user_key = user_session_key(session.user_id, &hash);
        (&writer.sessions, &writer.sessions_by_user).transaction(|(sessions, by_user)| {
            sessions.insert(hash.as_bytes().as_slice(), tx_encode("session", session)?)?;
            by_user.insert(by_user_key.as_slice(), &[])?;
            Ok(())
        })?;
        Ok(())
    }

    /// Deletes a session found void while reading it; with the disk full it stays, void all the
    /// same, so reading a session never fails for want of space.
    fn forget_session(&self, hash: TokenHash) -> Result<()> {
        match self.delete_session(hash) {
            Err(error) if error.is_disk_full() => Ok(()),
            other => other,
        }
    }

    /// The signed-in user of a session cookie, if the session is still valid.
    ///
    /// Read on every signed-in request: the session and the user are read from the database each
    /// time and decoded only when their bytes changed since the last read ([`crate::decoded`]).
    pub fn session_user(&self, hash: TokenHash, now: DateTime<Utc>) -> Result<Option<(Session, User)>> {
        let Some(bytes) = self.store.trees().sessions.get(hash.as_bytes())? else {
            return Ok(None);
        };
        let session = self.store.signed_in.sessions.get(hash.as_bytes(), bytes)?;
        if session.expires_at <= now {
            self.forget_session(hash)?;
            return Ok(None);
        }
        let Some(bytes) = self.store.trees().users.get(session.user_id.as_bytes())? else {
            return Ok(None);
        };
        let user = self.store.signed_in.users.get(session.user_id.as_bytes(), bytes)?;
        if user.session_epoch != session.epoch || !user.is_active {
            self.forget_session(hash)?;
            return Ok(None);
        }
        Ok(Some((Session::clone(&session), User::clone(&user))))
    }

    pub fn delete_session(&self, hash: TokenHash) -> Result<()> {
        let writer = self.store.writing()?;
        let Some(bytes) = writer.sessions.remove(hash.as_bytes())? else {
            return Ok(());
        };
        self.store.signed_in.sessions.forget(hash.as_bytes());
        let session: Session = decode("session", &bytes)?;
        writer.sessions_by_user.remove(user_session_key(session.user_id, &hash))?;
        Ok(())
    }

    /// Whether the user has a live session (unexpired, of their current epoch) started from
    /// `ip_address`: an address they signed in from, which a guesser elsewhere cannot claim.
    pub fn has_session_from(&self, user: &User, ip_address: &str, now: DateTime<Utc>) -> Result<bool> {
        for entry in self.store.trees().sessions_by_user.scan_prefix(user.id.as_bytes()) {
            let (key, _) = entry?;
            let Some(hash) = key.get(16..).and_then(TokenHash::from_slice) else { continue };
            let Some(bytes) = self.store.trees().sessions.get(hash.as_bytes())? else { continue };
            let session: Session = decode("session", &bytes)?;
            let is_live = session.expires_at > now && session.epoch == user.session_epoch;
            if is_live && session.ip_address.as_deref() == Some(ip_address) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The key that signs device cookies (a browser that signed in to an account before): made
    /// once per database and kept in `meta`, so only this database can make or check one.
    pub fn device_cookie_key(&self) -> Result<Vec<u8>> {
        self.store.secret_key(DEVICE_COOKIE_KEY)
    }

    /// How many sessions a user has; void ones count until they are purged.
    #[cfg(any(test, feature = "testsuite"))]
    pub fn session_count(&self, user_id: UserId) -> usize {
        self.store.trees().sessions_by_user.scan_prefix(user_id.as_bytes()).count()
    }

    /// Deletes the stored sessions of a user (sign out everywhere).
    pub fn delete_sessions_of(&self, user_id: UserId) -> Result<usize> {
        let writer = self.store.writing()?;
        let mut deleted = 0;
        for entry in writer.sessions_by_user.scan_prefix(user_id.as_bytes()) {
            let (key, _) = entry?;
            if let Some(hash) = key.get(16..).and_then(TokenHash::from_slice) {
                self.delete_session(hash)?;
                deleted += 1;
            }
        }
        Ok(deleted)
    }

    /// Deletes expired sessions and sessions voided by a newer epoch; returns how many.
    pub fn purge_expired_sessions(&self, now: DateTime<Utc>) -> Result<usize> {
        let writer = self.store.writing()?;
        let mut purged = 0;
        for entry in writer.sessions.iter() {
            let (key, bytes) = entry?;
            let session: Session = decode("session", &bytes)?;
            let current_epoch = self.user(session.user_id)?.map(|user| user.session_epoch);
            let is_void = session.expires_at <= now || current_epoch != Some(session.epoch);
            if let (true, Some(hash)) = (is_void, TokenHash::from_slice(&key)) {
                self.delete_session(hash)?;
                purged += 1;
            }
        }
        Ok(purged)
    }
}
