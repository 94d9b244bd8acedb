//! Session cookies and the extractor that turns one into the signed-in user.

use std::future::{ready, Ready};

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::{web, FromRequest, HttpRequest};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{Duration, Utc};
use rand::RngCore;
use store::{Session, TokenHash, User};

use crate::config::Settings;
use crate::error::ApiError;
use crate::state::AppState;

/// The session cookie's name on an `http` public URL.
pub const SESSION_COOKIE: &str = "papertide_session";
/// Its name on an `https` one: the `__Host-` prefix makes a browser take it only when it is
/// Secure, for `Path=/` and without a `Domain`, so no other host or plain-http page can set it.
pub const SESSION_COOKIE_HTTPS: &str = "__Host-papertide_session";
pub const SESSION_TTL_DAYS: i64 = 30;

/// A fresh 256-bit secret, URL-safe (43 characters): session cookies and mailed tokens.
pub fn new_secret_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Starts a session for `user` and returns the cookie that carries it.
pub fn start_session(state: &AppState, user: &User, ip_address: Option<String>) -> Result<Cookie<'static>, ApiError> {
    let token = new_secret_token();
    let now = Utc::now();
    let session =
        Session { user_id: user.id, epoch: user.session_epoch, created_at: now, expires_at: now + Duration::days(SESSION_TTL_DAYS), ip_address };
    state.store.accounts().create_session(TokenHash::of(&token), &session)?;
    Ok(session_cookie(state, token, time::Duration::days(SESSION_TTL_DAYS)))
}

/// A cookie that removes the session cookie from the browser.
pub fn removal_cookie(state: &AppState) -> Cookie<'static> {
    session_cookie(state, String::new(), time::Duration::ZERO)
}

/// The session cookie's name under these settings; only this name is read.
pub fn session_cookie_name(settings: &Settings) -> &'static str {
    if settings.is_https() {
        SESSION_COOKIE_HTTPS
    } else {
        SESSION_COOKIE
    }
}

fn session_cookie(state: &AppState, value: String, max_age: time::Duration) -> Cookie<'static> {
    Cookie::build(session_cookie_name(&state.settings), value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(state.settings.is_https())
        .max_age(max_age)
        .finish()
}

/// The hash of the session cookie the request carries, if any (by the name of the public URL's
/// scheme: on https a cookie without the `__Host-` prefix is not read).
pub fn session_hash(request: &HttpRequest) -> Option<TokenHash> {
    let state = request.app_data::<web::Data<AppState>>()?;
    let cookie = request.cookie(session_cookie_name(&state.settings))?;
    let value = cookie.value();
    (!value.is_empty()).then(|| TokenHash::of(value))
}

/// The signed-in user; extracting it answers 401 when there is none.
pub struct SignedIn {
    pub user: User,
    pub session_hash: TokenHash,
}

impl SignedIn {
    /// Passes when `user_id` (a path segment) names the signed-in user; anything else gets the
    /// 404 of a record that is not there, so other users' ids cannot be probed.
    pub fn require_owner(&self, user_id: &str) -> Result<(), ApiError> {
        match user_id.parse::<engine::UserId>() {
            Ok(id) if id == self.user.id => Ok(()),
            _ => Err(ApiError::not_found("Not found")),
        }
    }
}

/// The contract names nothing a session reads.
impl crate::routes::Reads for SignedIn {}

impl FromRequest for SignedIn {
    type Error = ApiError;
    type Future = Ready<Result<SignedIn, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        ready(signed_in(request))
    }
}

pub(super) fn signed_in(request: &HttpRequest) -> Result<SignedIn, ApiError> {
    let state = request.app_data::<web::Data<AppState>>().ok_or_else(|| ApiError::internal("application state missing"))?;
    let not_signed_in = || ApiError::unauthorized("Not authenticated");
    let hash = session_hash(request).ok_or_else(not_signed_in)?;
    let (_, user) = state.store.accounts().session_user(hash, Utc::now())?.ok_or_else(not_signed_in)?;
    Ok(SignedIn { user, session_hash: hash })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_tokens_are_256_bit_and_distinct() {
        let first = new_secret_token();
        let decoded = URL_SAFE_NO_PAD.decode(&first).expect("base64url");
        assert_eq!(decoded.len(), 32);
        assert_ne!(first, new_secret_token());
    }
}
