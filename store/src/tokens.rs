//! One-time tokens (email verification, password reset): stored by hash with an expiry, used
//! once, and only the newest of each purpose per user is valid. Using a token and applying its
//! effect is one transaction.

use chrono::{DateTime, Utc};
use engine::mail::RenderedMail;
use engine::UserId;
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};
use sled::Transactional;

use crate::codec::{decode, tx_decode, tx_encode};
use crate::error::{abort, StoreError};
use crate::mail_queue::tx_enqueue;
use crate::secret::TokenHash;
use crate::users::User;
use crate::{Accounts, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenPurpose {
    EmailVerification,
    PasswordReset,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TokenRecord {
    pub purpose: TokenPurpose,
    pub user_id: UserId,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

type TxError = ConflictableTransactionError<StoreError>;

pub(crate) fn tx_put_token(tokens: &TransactionalTree, hash: &TokenHash, record: &TokenRecord) -> Result<(), TxError> {
    tokens.insert(hash.as_bytes().as_slice(), tx_encode("token", record)?)?;
    Ok(())
}

/// The user-record field that names the current token of a purpose.
fn current_token_field(user: &mut User, purpose: TokenPurpose) -> &mut Option<String> {
    match purpose {
        TokenPurpose::EmailVerification => &mut user.email_verification_token,
        TokenPurpose::PasswordReset => &mut user.password_reset_token,
    }
}

pub(crate) fn previous_token_hash(user: &User, purpose: TokenPurpose) -> Option<TokenHash> {
    let hex = match purpose {
        TokenPurpose::EmailVerification => user.email_verification_token.as_deref(),
        TokenPurpose::PasswordReset => user.password_reset_token.as_deref(),
    }?;
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|start| hex.get(start..start + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect::<Option<Vec<u8>>>()?;
    TokenHash::from_slice(&bytes)
}

impl Accounts<'_> {
    /// Issues a new token of `purpose` for a user, voiding the previous one, and queues `mail`
    /// (which carries the token) in the same write.
    pub fn issue_token(
        &self,
        user_id: UserId,
        purpose: TokenPurpose,
        hash: TokenHash,
        expires_at: DateTime<Utc>,
        mail: &RenderedMail,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let writer = self.store.writing()?;
        let user_key = *user_id.as_bytes();
        (&writer.users, &writer.tokens, &writer.mail_queue).transaction(|(users, tokens, queue)| {
            let bytes = users.get(user_key)?.ok_or_else(|| abort(StoreError::UserNotFound))?;
            let mut user: User = tx_decode("user", &bytes)?;
            if let Some(previous) = previous_token_hash(&user, purpose) {
                tokens.remove(previous.as_bytes().as_slice())?;
            }
            *current_token_field(&mut user, purpose) = Some(hash.to_hex());
            match purpose {
                TokenPurpose::PasswordReset => user.password_reset_token_expiry = Some(expires_at),
                TokenPurpose::EmailVerification => user.verification_expires_at = Some(expires_at),
            }
            let record = TokenRecord { purpose, user_id, created_at: now, expires_at };
            tx_put_token(tokens, &hash, &record)?;
            users.insert(&user_key, tx_encode("user", &user)?)?;
            tx_enqueue(queue, mail, None, now)?;
            Ok(())
        })?;
        Ok(())
    }

    /// Whether `hash` is a token of `purpose` that [`Accounts::reset_password`] or
    /// [`Accounts::verify_email`] would accept now: known, the user's current one, unexpired, and
    /// the user active. Reads only; lets a caller skip costly work for a token that would fail.
    pub fn token_is_usable(&self, hash: TokenHash, purpose: TokenPurpose, now: DateTime<Utc>) -> Result<bool> {
        Ok(self.usable_token_user(hash, purpose, now)?.is_some())
    }

    /// The user of a token that [`Accounts::token_is_usable`] finds usable, `None` otherwise. Reads
    /// only: a caller can check the request against the account (a new password against its
    /// address) before using the token.
    pub fn usable_token_user(&self, hash: TokenHash, purpose: TokenPurpose, now: DateTime<Utc>) -> Result<Option<User>> {
        let Some(bytes) = self.store.trees().tokens.get(hash.as_bytes())? else {
            return Ok(None);
        };
        let record: TokenRecord = decode("token", &bytes)?;
        if record.purpose != purpose || record.expires_at <= now {
            return Ok(None);
        }
        let Some(user_bytes) = self.store.trees().users.get(record.user_id.as_bytes())? else {
            return Ok(None);
        };
        let user: User = decode("user", &user_bytes)?;
        Ok((user.is_active && previous_token_hash(&user, purpose) == Some(hash)).then_some(user))
    }

    /// Uses a verification token: marks the email verified and queues the mail `welcome` makes.
    /// `None` when the token is unknown, used, superseded or expired.
    pub fn verify_email(&self, hash: TokenHash, now: DateTime<Utc>, welcome: impl Fn(&User) -> RenderedMail) -> Result<Option<User>> {
        self.consume_token(hash, TokenPurpose::EmailVerification, now, |user| {
            user.is_email_verified = true;
            Some(welcome(user))
        })
    }

    /// Uses a reset token: sets the new password hash, voids every session of the user, and
    /// (since the mail reached them) marks the email verified. `None` when the token is invalid.
    pub fn reset_password(&self, hash: TokenHash, new_password_hash: &str, now: DateTime<Utc>) -> Result<Option<User>> {
        self.consume_token(hash, TokenPurpose::PasswordReset, now, |user| {
            user.password_hash = new_password_hash.to_owned();
            user.password_reset_token_expiry = None;
            user.session_epoch = user.session_epoch.wrapping_add(1);
            user.is_email_verified = true;
            None
        })
    }

    /// Removes the token (whether or not it is still valid) and, when it is valid, applies
    /// `effect` to its user and queues the mail the effect returns — all in one transaction.
    fn consume_token(
        &self,
        hash: TokenHash,
        purpose: TokenPurpose,
        now: DateTime<Utc>,
        effect: impl Fn(&mut User) -> Option<RenderedMail>,
    ) -> Result<Option<User>> {
        let token_key = *hash.as_bytes();
        let writer = self.store.writing()?;
        let outcome = (&writer.users, &writer.tokens, &writer.mail_queue).transaction(|(users, tokens, queue)| {
            let Some(bytes) = tokens.get(token_key)? else {
                return Ok(None);
            };
            let record: TokenRecord = tx_decode("token", &bytes)?;
            if record.purpose != purpose {
                return Ok(None);
            }
            tokens.remove(&token_key)?;
            let user_key = *record.user_id.as_bytes();
            let Some(user_bytes) = users.get(user_key)? else {
                return Ok(None);
            };
            let mut user: User = tx_decode("user", &user_bytes)?;
            let is_current = previous_token_hash(&user, purpose) == Some(hash);
            if is_current {
                *current_token_field(&mut user, purpose) = None;
            }
            let is_usable = is_current && record.expires_at > now && user.is_active;
            if !is_usable {
                users.insert(&user_key, tx_encode("user", &user)?)?;
                return Ok(None);
            }
            let mail = effect(&mut user);
            users.insert(&user_key, tx_encode("user", &user)?)?;
            if let Some(mail) = &mail {
                tx_enqueue(queue, mail, None, now)?;
            }
            Ok(Some(user))
        })?;
        Ok(outcome)
    }

    /// Deletes tokens past their expiry; returns how many.
    pub fn purge_expired_tokens(&self, now: DateTime<Utc>) -> Result<usize> {
        let writer = self.store.writing()?;
        let mut purged = 0;
        for entry in writer.tokens.iter() {
            let (key, bytes) = entry?;
            let record: TokenRecord = decode("token", &bytes)?;
            if record.expires_at <= now {
                writer.tokens.remove(key)?;
                purged += 1;
            }
        }
        Ok(purged)
    }
}
