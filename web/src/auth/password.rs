//! Password hashing with argon2id (the crate's recommended parameters) off the async threads.

use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::error::{ApiError, ApiResult};

/// Hashes a password into a PHC string (`$argon2id$v=19$...`).
pub async fn hash_password(password: String) -> ApiResult<String> {
    actix_web::web::block(move || hash_now(&password)).await?
}

fn hash_now(password: &str) -> ApiResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(ApiError::internal)
}

/// Checks a password against a stored hash. With no account (`stored_hash` is `None`) it checks
/// against a decoy hash, so "no such user" takes as long as "wrong password".
pub async fn verify_password(stored_hash: Option<String>, password: String) -> ApiResult<bool> {
    actix_web::web::block(move || {
        let hash = stored_hash.as_deref().unwrap_or_else(|| decoy_hash());
        let is_match = PasswordHash::new(hash)
            .map(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
            .unwrap_or(false);
        is_match && stored_hash.is_some()
    })
    .await
    .map_err(ApiError::from)
}

fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_now("decoy password never used").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn hashes_verify_only_their_password() -> ApiResult<()> {
        let hash = hash_password("Secret-123".into()).await?;
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password(Some(hash.clone()), "Secret-123".into()).await?);
        assert!(!verify_password(Some(hash), "Secret-124".into()).await?);
        assert!(!verify_password(None, "decoy password never used".into()).await?);
        assert!(!verify_password(Some("not a hash".into()), "x".into()).await?);
        Ok(())
    }
}
