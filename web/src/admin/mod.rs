//! The operator console's API, `/api/admin/...`: accounts (search, plan, operator, disabled,
//! verification mail, deletion), the service's counts, the sources and the index, the mail and billing, and backups.
//!
//! Every route takes the [`Operator`](crate::auth::Operator) extractor: a signed-in, verified
//! operator, or the local operator on the data directory's socket (`crate::local`); anyone
//! else gets 401 or 403 `operator_only` before anything is read. Bad input is refused with a
//! JSON error before anything is written.

mod backup;
mod billing;
mod delete;
mod mail;
mod sources;
mod stats;
mod users;

use engine::UserId;
use store::User;
use uuid::Uuid;

use crate::error::{ApiError, ApiResult};
use crate::routes::ApiRoutes;
use crate::state::AppState;

/// The answer for a user id that names no account.
const MSG_NO_SUCH_USER: &str = "There is no account with this id.";

pub fn configure(routes: &mut ApiRoutes) {
    stats::configure(routes);
    users::configure(routes);
    sources::configure(routes);
    mail::configure(routes);
    billing::configure(routes);
    delete::configure(routes);
    backup::configure(routes);
}

/// The account a path's `{user_id}` names: 400 for text that is not a uuid, 404 for an id of
/// no account.
fn user_of(state: &AppState, user_id: &str) -> ApiResult<User> {
    let id = Uuid::parse_str(user_id.trim()).map_err(|_| ApiError::bad_request("This is not a user id."))?;
    state.store.accounts().user(UserId(id))?.ok_or_else(|| ApiError::not_found(MSG_NO_SUCH_USER))
}
