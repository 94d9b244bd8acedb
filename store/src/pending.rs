//! Accounts still waiting for their address to be verified. Credentials belong to whoever
//! controls the mailbox: a later signup for the same address replaces the pending password (the
//! last signer wins, every earlier link dies), and an account nobody verifies goes away with its
//! verification window, with everything it holds.

use chrono::{DateTime, Duration, Utc};
use engine::account::normalize_email;
use engine::mail::RenderedMail;
use engine::UserId;
use sled::Transactional;

use crate::codec::{decode, tx_decode, tx_encode};
use crate::mail_queue::tx_enqueue;
use crate::secret::TokenHash;
use crate::tokens::{previous_token_hash, tx_put_token, TokenPurpose, TokenRecord};
use crate::users::User;
use crate::{Accounts, Result};

/// How long a verification link lives, and so how long an unverified account is kept after the
/// last one was mailed.
pub const VERIFICATION_WINDOW_HOURS: i64 = 48;

/// A signup for an address whose account is not verified yet: what it replaces.
#[derive(Debug, Clone)]
pub struct PendingSignup {
    pub password_hash: String,
    pub research_field: Option<String>,
    pub pending_search: Option<String>,
    /// The new verification token's hash and expiry.
    pub verification: (TokenHash, DateTime<Utc>),
    /// The verification mail, when the recipient's mail budget allows one.
    pub mail: Option<RenderedMail>,
}

/// What became of a signup for a taken address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignupRestart {
    /// The account was unverified: it now has the new signup's credentials and only its link.
    Restarted(User),
    /// The account is verified (or deactivated): nothing was changed.
    Unchanged(User),
    /// No account has the address (any more).
    Missing,
}

impl User {
    /// When the account's verification window closes: the expiry of the last verification link
    /// mailed (for records older than that field, 48 hours after the account was made).
    pub fn verification_deadline(&self) -> DateTime<Utc> {
        self.verification_expires_at.unwrap_or(self.created_at + Duration::hours(VERIFICATION_WINDOW_HOURS))
    }
}

impl Accounts<'_> {
    /// Gives the unverified account of `email` the credentials of a new signup, in one
    /// transaction: its password, research field and pending topic become the new signup's, its
    /// verification and reset tokens are voided, its sessions and device cookies end (the epoch
    /// moves), and a new verification token is stored with its mail. A verified or deactivated
    /// account is left as it is.
    pub fn restart_pending_signup(&self, email: &str, signup: PendingSignup, now: DateTime<Utc>) -> Result<SignupRestart> {
        let writer = self.store.writing()?;
        let email = normalize_email(email);
        let (token_hash, expires_at) = signup.verification;
        let trees = (&writer.users, &writer.users_by_email, &writer.tokens, &writer.mail_queue);
        let outcome = trees.transaction(|(users, emails, tokens, queue)| {
            let Some(id_bytes) = emails.get(email.as_bytes())? else {
                return Ok(SignupRestart::Missing);
            };
            let Some(user_bytes) = users.get(&id_bytes)? else {
                return Ok(SignupRestart::Missing);
            };
            let mut user: User = tx_decode("user", &user_bytes)?;
            if user.is_email_verified || !user.is_active {
                return Ok(SignupRestart::Unchanged(user));
            }
            for purpose in [TokenPurpose::EmailVerification, TokenPurpose::PasswordReset] {
                if let Some(previous) = previous_token_hash(&user, purpose) {
                    tokens.remove(previous.as_bytes().as_slice())?;
                }
            }
            user.password_hash = signup.password_hash.clone();
            user.research_field = signup.research_field.clone();
            user.pending_search = signup.pending_search.clone();
            user.password_reset_token = None;
            user.password_reset_token_expiry = None;
            user.session_epoch = user.session_epoch.wrapping_add(1);
            user.email_verification_token = Some(token_hash.to_hex());
            user.verification_expires_at = Some(expires_at);
            let record = TokenRecord { purpose: TokenPurpose::EmailVerification, user_id: user.id, created_at: now, expires_at };
            tx_put_token(tokens, &token_hash, &record)?;
            users.insert(&id_bytes, tx_encode("user", &user)?)?;
            if let Some(mail) = &signup.mail {
                tx_enqueue(queue, mail, None, now)?;
            }
            Ok(SignupRestart::Restarted(user))
        })?;
        if let SignupRestart::Restarted(user) = &outcome {
            self.delete_sessions_of(user.id)?;
        }
        Ok(outcome)
    }

    /// Removes every account whose address was never verified and whose verification window
    /// closed before `now`, with everything it holds; returns how many.
    pub fn remove_expired_unverified(&self, now: DateTime<Utc>) -> Result<usize> {
        let writer = self.store.writing()?;
        let mut expired = Vec::new();
        for bytes in writer.users.iter().values() {
            let user: User = decode("user", &bytes?)?;
            if !user.is_email_verified && user.verification_deadline() <= now {
                expired.push(user.id);
            }
        }
        let mut removed = 0;
        for id in expired {
            let is_still_expired = |user: &User| !user.is_email_verified && user.verification_deadline() <= now;
            if self.remove_account_if(id, is_still_expired)? {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Removes an account and everything kept of it, as [`Accounts::delete_account`] does (without
    /// a confirmation mail) — when `condition` still holds of it inside the transaction that
    /// removes it. Returns whether it was removed.
    pub(crate) fn remove_account_if(&self, id: UserId, condition: impl Fn(&User) -> bool) -> Result<bool> {
        let removed = self.purge_account(id, condition, None)?;
        if removed.is_some() {
            self.close_account_deletion(id)?;
        }
        Ok(removed.is_some())
    }
}
