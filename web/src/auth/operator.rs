//! The extractor of the operator routes (`/api/admin/...`): a verified operator signed in, or the
//! local operator on the service's Unix socket (whoever can open the data directory).

use std::future::{ready, Ready};

use actix_web::{FromRequest, HttpRequest};
use store::User;

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// Marks the app that serves the data directory's Unix socket: every request it serves comes
/// from the local operator.
#[derive(Debug, Clone, Copy)]
pub struct LocalOperator;

/// Who is operating: a signed-in operator, or `None` for the local operator.
pub struct Operator {
    pub user: Option<User>,
}

impl Operator {
    /// The operator's own account, when signed in; the local operator has none.
    pub fn account(&self) -> Option<&User> {
        self.user.as_ref()
    }
}

/// The contract names nothing a session reads.
impl crate::routes::Reads for Operator {}

impl FromRequest for Operator {
    type Error = ApiError;
    type Future = Ready<Result<Operator, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        ready(operator(request))
    }
}

fn operator(request: &HttpRequest) -> Result<Operator, ApiError> {
    if request.app_data::<LocalOperator>().is_some() {
        return Ok(Operator { user: None });
    }
    let signed_in = super::session::signed_in(request)?;
    let state = request.app_data::<actix_web::web::Data<AppState>>().ok_or_else(|| ApiError::internal("application state missing"))?;
    if signed_in.user.is_email_verified && super::is_operator(&signed_in.user, &state.settings) {
        Ok(Operator { user: Some(signed_in.user) })
    } else {
        Err(ApiError::new(ErrorCode::OperatorOnly, "This page is for the service's operators."))
    }
}
