//! `DELETE /api/admin/users/{userId}`: an operator deletes a user's account and everything kept
//! of it, as the user's own "Delete my account" does ([`crate::rights::delete_user`]: a paid
//! subscription is canceled at Stripe first), without their password. An operator's own account
//! is refused here (409 `cannot_delete_self`): they delete it from their dashboard. An operator
//! named in `PAPERTIDE_ADMIN_EMAILS` is refused too (409 `operator_by_settings`): the settings
//! change first. An unknown user is 404.

use actix_web::web;

use crate::auth::Operator;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::Message;

const MSG_NO_USER: &str = "No such user.";
const MSG_SELF: &str = "You cannot delete your own account here. Use \"Delete my account\" on your dashboard.";

pub fn configure(routes: &mut ApiRoutes) {
    routes.delete("/admin/users/{user_id}", delete_user);
}

async fn delete_user(state: web::Data<AppState>, operator: Operator, user_id: web::Path<String>) -> ApiResult<web::Json<Message>> {
    let id = user_id.parse::<engine::UserId>().map_err(|_| ApiError::not_found(MSG_NO_USER))?;
    if operator.account().is_some_and(|account| account.id == id) {
        return Err(ApiError::new(ErrorCode::CannotDeleteSelf, MSG_SELF));
    }
    let user = state.store.accounts().user(id)?.ok_or_else(|| ApiError::not_found(MSG_NO_USER))?;
    super::users::refuse_operator_by_settings(&state, &user)?;
    crate::rights::delete_user(&state, &user).await?;
    let by = operator.account().map_or_else(|| "the local operator".to_owned(), |account| account.id.to_string());
    tracing::info!(user_id = %id, by = %by, "account deleted by an operator");
    Ok(web::Json(Message::new(format!("The account of {} has been deleted.", user.email))))
}
