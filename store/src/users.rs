//! User accounts (every field of spec §3) and the unique-email index.

use chrono::{DateTime, Utc};
use engine::account::normalize_email;
use engine::mail::RenderedMail;
use engine::{Preferences, Tier, UserId};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use crate::codec::{decode, tx_decode, tx_encode};
use crate::error::{abort, StoreError};
use crate::mail_queue::tx_enqueue;
use crate::plan_history::{tx_record_plan_change, PlanReason};
use crate::secret::TokenHash;
use crate::tokens::{tx_put_token, TokenPurpose, TokenRecord};
use crate::{Accounts, Result};

/// A user account. Token fields hold hashes, never the tokens mailed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub id: UserId,
    /// Normalized (trimmed, lower-case); unique.
    pub email: String,
    #[serde(default)]
    pub research_field: Option<String>,
    pub password_hash: String,
    pub is_active: bool,
    #[serde(default)]
    pub is_unlimited: bool,
    #[serde(default)]
    pub is_email_verified: bool,
    /// Operators: may use the test-email page for any address. Set from the CLI.
    #[serde(default)]
    pub is_admin: bool,
    /// Hex SHA-256 of the current verification token.
    #[serde(default)]
    pub email_verification_token: Option<String>,
    /// Hex SHA-256 of the current password-reset token.
    #[serde(default)]
    pub password_reset_token: Option<String>,
    #[serde(default)]
    pub password_reset_token_expiry: Option<DateTime<Utc>>,
    #[serde(default)]
    pub stripe_customer_id: Option<String>,
    #[serde(default)]
    pub stripe_subscription_id: Option<String>,
    #[serde(default)]
    pub subscription_tier: Tier,
    /// The address the account was created from.
    #[serde(default)]
    pub ip_address: Option<String>,
    #[serde(default)]
    pub last_digest_sent_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub last_free_sent_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// Sessions created under an older epoch are void: a password reset bumps it, which signs
    /// the user out everywhere in the same write that changes the password.
    #[serde(default)]
    pub session_epoch: u32,
    /// The topic typed before signup, kept until it has been searched, so that verifying the
    /// address in any browser tab can run it.
    #[serde(default)]
    pub pending_search: Option<String>,
    /// The paid plan that ended, until the next upgrade: the dashboard says what happened.
    #[serde(default)]
    pub plan_ended: Option<engine::billing::PlanEnded>,
    /// When the last verification link mailed expires: an account still unverified then is
    /// removed.
    #[serde(default)]
    pub verification_expires_at: Option<DateTime<Utc>>,
    /// The papers given at signup to seed `pending_search`, found already: they become the
    /// term's seeds when it is made.
    #[serde(default)]
    pub pending_seeds: Vec<PendingSeed>,
    /// Which generation of private feed addresses is live: renewing the feeds counts it up, and
    /// every address of an older generation stops working (`engine::signed::FeedClaim`).
    #[serde(default)]
    pub feed_generation: u32,
}

/// A paper a topic is to be seeded from once it is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSeed {
    /// The paper's first dedup key (`Rating::paper_key`).
    pub paper_key: String,
    pub title: String,
}

impl User {
    /// A fresh, unverified free account with the spec's defaults.
    pub fn new(id: UserId, email: &str, password_hash: String, now: DateTime<Utc>) -> User {
        User {
            id,
            email: normalize_email(email),
            research_field: None,
            password_hash,
            is_active: true,
            is_unlimited: false,
            is_email_verified: false,
            is_admin: false,
            email_verification_token: None,
            password_reset_token: None,
            password_reset_token_expiry: None,
            stripe_customer_id: None,
            stripe_subscription_id: None,
            subscription_tier: Tier::Free,
            ip_address: None,
            last_digest_sent_at: None,
            last_free_sent_at: None,
            created_at: now,
            session_epoch: 0,
            pending_search: None,
            plan_ended: None,
            verification_expires_at: None,
            pending_seeds: Vec::new(),
            feed_generation: 0,
        }
    }
}

/// Everything a signup writes, in one transaction.
#[derive(Debug, Clone)]
pub struct NewAccount {
    pub user: User,
    pub preferences: Preferences,
    /// The verification token's hash and expiry.
    pub verification: Option<(TokenHash, DateTime<Utc>)>,
    /// The verification mail, queued with the account.
    pub mail: Option<RenderedMail>,
}

/// The meta key of the number of accounts (u64, big-endian).
pub(crate) const USER_COUNT_KEY: &[u8] = b"user_count";

fn count_of(bytes: &[u8]) -> u64 {
    <[u8; 8]>::try_from(bytes).map_or(0, u64::from_be_bytes)
}

impl Accounts<'_> {
    /// Creates an account, its preferences, its verification token and its queued mail at once.
    /// Fails with [`StoreError::DuplicateEmail`] when the normalized email is taken, even when
    /// two signups race.
    pub fn create(&self, account: NewAccount, now: DateTime<Utc>) -> Result<User> {
        let writer = self.store.writing()?;
        let mut user = account.user;
        user.email = normalize_email(&user.email);
        if let Some((hash, expires_at)) = &account.verification {
            user.email_verification_token = Some(hash.to_hex());
            user.verification_expires_at = Some(*expires_at);
        }
        let user_key = *user.id.as_bytes();
        let trees = (&writer.users, &writer.users_by_email, &writer.preferences, &writer.tokens, &writer.mail_queue, &writer.meta);
        trees.transaction(|(users, emails, preferences, tokens, queue, meta)| {
            if emails.get(user.email.as_bytes())?.is_some() {
                return Err(abort(StoreError::DuplicateEmail));
            }
            let count = meta.get(USER_COUNT_KEY)?.as_deref().map_or(0, count_of);
            meta.insert(USER_COUNT_KEY, &(count + 1).to_be_bytes())?;
            emails.insert(user.email.as_bytes(), &user_key)?;
            users.insert(&user_key, tx_encode("user", &user)?)?;
            preferences.insert(&user_key, tx_encode("preferences", &account.preferences)?)?;
            if let Some((hash, expires_at)) = &account.verification {
                let record = TokenRecord { purpose: TokenPurpose::EmailVerification, user_id: user.id, created_at: now, expires_at: *expires_at };
                tx_put_token(tokens, hash, &record)?;
            }
            if let Some(mail) = &account.mail {
                tx_enqueue(queue, mail, None, now)?;
            }
            Ok(())
        })?;
        Ok(user)
    }

    pub fn user(&self, id: UserId) -> Result<Option<User>> {
        self.store.trees().users.get(id.as_bytes())?.map(|bytes| decode("user", &bytes)).transpose()
    }

    /// Looks a user up by email, trimmed and case-insensitively.
    pub fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let normalized = normalize_email(email);
        let Some(id_bytes) = self.store.trees().users_by_email.get(normalized.as_bytes())? else {
            return Ok(None);
        };
        let Some(id) = UserId::from_slice(&id_bytes) else {
            return Ok(None);
        };
        self.user(id)
    }

    /// Every account, oldest first.
    pub fn users(&self) -> Result<Vec<User>> {
        let mut users = self.store.trees().users.iter().values().map(|bytes| decode::<User>("user", &bytes?)).collect::<Result<Vec<User>>>()?;
        users.sort_by_key(|user| user.created_at);
        Ok(users)
    }

    /// How many accounts there are: kept with every account made (in the same transaction), so
    /// reading it reads one record, not every account.
    pub fn user_count(&self) -> usize {
        match self.store.trees().meta.get(USER_COUNT_KEY) {
            Ok(Some(bytes)) => usize::try_from(count_of(&bytes)).unwrap_or(usize::MAX),
            _ => self.store.trees().users.len(),
        }
    }

    /// Stores the number of accounts once, for a database made before it was kept.
    pub(crate) fn count_users_once(&self) -> Result<()> {
        if self.store.trees().meta.get(USER_COUNT_KEY)?.is_none() {
            let count = self.store.trees().users.len() as u64;
            // Two opens at once store the same count; an account made meanwhile waits for it.
            let _ = self.store.writing()?.meta.compare_and_swap(USER_COUNT_KEY, None as Option<&[u8]>, Some(&count.to_be_bytes()[..]))?;
        }
        Ok(())
    }

    /// Changes a user with `change` atomically and returns the new record. The email, id and
    /// creation time cannot be changed this way; a plan changed this way is recorded in the plan
    /// history (reason `other`).
    pub fn update_user(&self, id: UserId, change: impl Fn(&mut User)) -> Result<User> {
        let writer = self.store.writing()?;
        let key = *id.as_bytes();
        let now = Utc::now();
        let updated = (&writer.users, &writer.plan_history).transaction(|(users, history)| {
            let bytes = users.get(key)?.ok_or_else(|| abort(StoreError::UserNotFound))?;
            let mut user: User = tx_decode("user", &bytes)?;
            let (email, created_at, tier) = (user.email.clone(), user.created_at, user.subscription_tier);
            change(&mut user);
            tx_record_plan_change(history, id, tier, user.subscription_tier, PlanReason::Other, now)?;
            user.id = id;
            user.email = email;
            user.created_at = created_at;
            users.insert(&key, tx_encode("user", &user)?)?;
            Ok(user)
        })?;
        Ok(updated)
    }

    /// Disables an account (it cannot sign in, and its sessions and device cookies end at once:
    /// the session epoch moves on and the session records go) or enables it again.
    pub fn set_disabled(&self, id: UserId, disabled: bool) -> Result<User> {
        let user = self.update_user(id, |user| {
            if disabled && user.is_active {
                user.session_epoch = user.session_epoch.wrapping_add(1);
            }
            user.is_active = !disabled;
        })?;
        if disabled {
            self.delete_sessions_of(id)?;
        }
        Ok(user)
    }

    /// [`Accounts::update_user`] by email.
    pub fn update_user_by_email(&self, email: &str, change: impl Fn(&mut User)) -> Result<User> {
        let user = self.user_by_email(email)?.ok_or(StoreError::UserNotFound)?;
        self.update_user(user.id, change)
    }
}
