//! How a user record becomes its wire view ([`UserView`]): never a hash or a token.

use engine::digest::free_digests;
use store::User;

use crate::config::Settings;
use crate::error::ApiResult;
use crate::state::AppState;
pub use crate::wire::auth::UserView;

/// Whether `user` is an operator: granted from the CLI (`users grant-admin`), or named in the
/// settings' admin emails and verified — an address listed there gives nothing to whoever signs
/// it up before its owner, only to whoever proves they read its mail.
pub fn is_operator(user: &User, settings: &Settings) -> bool {
    user.is_admin || (user.is_email_verified && settings.is_admin_email(&user.email))
}

impl UserView {
    pub fn of(user: &User, settings: &Settings) -> UserView {
        UserView {
            id: user.id.0,
            email: user.email.clone(),
            research_field: user.research_field.clone(),
            subscription_tier: user.subscription_tier.into(),
            is_active: user.is_active,
            is_email_verified: user.is_email_verified,
            is_unlimited: user.is_unlimited,
            is_admin: is_operator(user, settings),
            stripe_customer_id: user.stripe_customer_id.clone(),
            last_digest_sent_at: user.last_digest_sent_at,
            last_free_sent_at: user.last_free_sent_at,
            created_at: user.created_at,
            pending_search: user.pending_search.clone(),
            free_digests: None,
            plan_ended: user.plan_ended.clone().map(Into::into),
        }
    }

    /// The view with what only the store knows: the free plan's digests used.
    pub fn of_account(user: &User, state: &AppState) -> ApiResult<UserView> {
        let mut view = UserView::of(user, &state.settings);
        let ledger = state.store.digests().signed_in_ledger(user.id)?;
        view.last_digest_sent_at = ledger.last_digest.or(user.last_digest_sent_at);
        view.last_free_sent_at = ledger.last_free.or(user.last_free_sent_at);
        if engine::digest::has_digest_allowance(user.subscription_tier) {
            view.free_digests = free_digests(user.subscription_tier, &ledger.history(user.created_at)).map(Into::into);
        }
        Ok(view)
    }
}
