//! The store by concern. `Store` itself opens, flushes, copies and compacts the database and
//! holds the write gate; what is kept in it is read and written through one view per concern,
//! each a borrowed `Store`:
//!
//! | view | trees | module |
//! |---|---|---|
//! | [`Store::accounts`] | users and their email index, pending signups, sessions, one-time tokens, preferences; a user's export and deletion | `users`, `pending`, `sessions`, `tokens`, `preferences`, `rights` |
//! | [`Store::terms`] | search terms and their per-user index | `search_terms` |
//! | [`Store::digests`] | digests as sent, their texts and entries, ledgers, sent papers, notices, summaries, unsubscribe links | `digests`, `ledger` |
//! | [`Store::billing`] | Stripe customers, subscription rows, applied webhook events, plan changes and their history | `billing`, `plan_history` |
//! | [`Store::ratings`] | ratings and the rating links' key | `ratings` |
//! | [`Store::mail`] | the outgoing-mail queue and the mail that failed for good | `mail_queue` |
//! | [`Store::channels`] | lab channels and their posts | `channels` |
//! | [`Store::papers`] | papers' embedding vectors, the sources' harvest state | `vectors`, `harvest` |
//!
//! Operators are a flag of the account (`User::is_operator`), so they are kept by `accounts`.
//! Every write of every view goes through [`Store::writing`], the only way to the writable trees.

use crate::Store;

macro_rules! views {
    ($($(#[$doc:meta])* $view:ident => $accessor:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $view<'s> {
            pub(crate) store: &'s Store,
        }

        impl Store {
            $(#[$doc])*
            pub fn $accessor(&self) -> $view<'_> {
                $view { store: self }
            }
        }
    )*};
}

views! {
    /// Accounts: users, pending signups, sessions, one-time tokens, preferences, export and deletion.
    Accounts => accounts;
    /// Search terms.
    Terms => terms;
    /// Digests as sent and each user's ledger of them.
    Digests => digests;
    /// Paid plans and their history.
    Billing => billing;
    /// Ratings of papers.
    Ratings => ratings;
    /// The outgoing-mail queue.
    Mail => mail;
    /// Lab channels and their posts.
    Channels => channels;
    /// Papers' embedding vectors and the sources' harvest state.
    Papers => papers;
}
