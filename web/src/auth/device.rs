//! Device cookies: a browser that signed in to an account gets a cookie naming that account,
//! signed with this database's key, so that later it can be told from a guesser. Sign-in's
//! per-account limit, which counts attempts from every address together, leaves such a browser
//! alone (it has a limit of its own instead): an attack on an account from many addresses cannot
//! lock its owner out of their own browser.
//!
//! The cookie is `USERID.ISSUED.MAC`: the user id (32 hex digits), the Unix second it was issued
//! and an HMAC-SHA-256 (hex) of both with the user's session epoch. It is valid for a year, and
//! a password reset (which bumps the epoch) voids it. It is sent only to the sign-in call.

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::HttpRequest;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use store::User;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::config::Settings;
use crate::error::ApiError;
use crate::state::AppState;

/// The device cookie's name on an `http` public URL.
pub const DEVICE_COOKIE: &str = "papertide_device";
/// Its name on an `https` one (`__Host-`: Secure, `Path=/`, no `Domain`).
pub const DEVICE_COOKIE_HTTPS: &str = "__Host-papertide_device";
pub const DEVICE_TTL_DAYS: i64 = 365;
/// On http only the sign-in call reads it and no other request carries it; on https the
/// `__Host-` prefix requires `Path=/` (it is still read only by the sign-in call).
const DEVICE_COOKIE_PATH: &str = "/api/auth/login";

/// The device cookie's name and path under these settings; only this name is read.
fn device_cookie_name_and_path(settings: &Settings) -> (&'static str, &'static str) {
    if settings.is_https() {
        (DEVICE_COOKIE_HTTPS, "/")
    } else {
        (DEVICE_COOKIE, DEVICE_COOKIE_PATH)
    }
}

/// A valid device cookie of the account being signed in to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedDevice {
    /// The cookie's MAC in hex: the key of this device's own sign-in limit.
    pub key: String,
}

/// A fresh device cookie for `user`, issued `now`.
pub fn device_cookie(state: &AppState, user: &User, now: DateTime<Utc>) -> Result<Cookie<'static>, ApiError> {
    let issued = now.timestamp();
    let mac = device_mac(&state.store.accounts().device_cookie_key()?, user, issued);
    let value = format!("{}.{issued}.{}", user.id.0.simple(), hex::encode(mac));
    let (name, path) = device_cookie_name_and_path(&state.settings);
    Ok(Cookie::build(name, value)
        .path(path)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(state.settings.is_https())
        .max_age(time::Duration::days(DEVICE_TTL_DAYS))
        .finish())
}

/// The request's device cookie, if it is valid for `user` at `now`.
pub fn trusted_device(state: &AppState, request: &HttpRequest, user: &User, now: DateTime<Utc>) -> Result<Option<TrustedDevice>, ApiError> {
    let (name, _) = device_cookie_name_and_path(&state.settings);
    let Some(cookie) = request.cookie(name) else {
        return Ok(None);
    };
    let Some((user_id, issued, mac)) = parse(cookie.value()) else {
        return Ok(None);
    };
    let age_secs = now.timestamp().saturating_sub(issued);
    let is_current = (0..DEVICE_TTL_DAYS * 86_400).contains(&age_secs);
    if user_id != user.id.0 || !is_current {
        return Ok(None);
    }
    let expected = device_mac(&state.store.accounts().device_cookie_key()?, user, issued);
    // Compared in constant time, so timing tells nothing about a forged MAC.
    let is_genuine: bool = mac.as_slice().ct_eq(expected.as_slice()).into();
    Ok(is_genuine.then(|| TrustedDevice { key: hex::encode(mac) }))
}

fn parse(value: &str) -> Option<(Uuid, i64, Vec<u8>)> {
    let mut parts = value.split('.');
    let (user_id, issued, mac) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    Some((Uuid::try_parse(user_id).ok()?, issued.parse().ok()?, hex::decode(mac).ok()?))
}

fn device_mac(key: &[u8], user: &User, issued: i64) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"device:");
    mac.update(user.id.as_bytes());
    mac.update(&user.session_epoch.to_be_bytes());
    mac.update(&issued.to_be_bytes());
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookie_values_parse_only_in_their_own_shape() {
        let id = Uuid::new_v4();
        let value = format!("{}.1700000000.{}", id.simple(), "ab".repeat(32));
        let (user_id, issued, mac) = parse(&value).expect("parses");
        assert_eq!((user_id, issued, mac.len()), (id, 1_700_000_000, 32));
        assert!(parse("").is_none());
        assert!(parse(&format!("{value}.extra")).is_none());
        assert!(parse(&format!("{}.soon.{}", id.simple(), "ab".repeat(32))).is_none());
        assert!(parse(&format!("{}.1.zz", id.simple())).is_none());
    }
}
