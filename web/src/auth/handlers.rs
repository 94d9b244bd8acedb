//! The auth endpoints. Each handler: rate limit, validate (engine), do the work (store), answer.

use actix_web::{web, HttpRequest};
use chrono::{Duration, Utc};
use engine::mail::{account_exists_mail, password_reset_mail, verification_mail, welcome_mail};
use engine::validation::{
    check_new_password_for_account, validate_combined_signup, validate_email_form, validate_login, validate_reset_password,
    validate_standalone_signup, EmailForm, Signup,
};
use engine::{Preferences, UserId};
use store::{NewAccount, PendingSignup, SignupRestart, TokenHash, TokenPurpose, User, VERIFICATION_WINDOW_HOURS};
use uuid::Uuid;

use super::device::{device_cookie, trusted_device};
use super::session::{new_secret_token, removal_cookie, session_hash, start_session, SignedIn};
use super::view::UserView;
use crate::error::{ApiError, ApiResult, ErrorCode, ErrorDetails};
use crate::routes::{Answer, ApiRoutes, Created};
use crate::security::client_ip;
use crate::state::AppState;
use crate::wire::auth::{
    CombinedSignupRequest, EmailRequest, LoginAnswer, LoginRequest, MeAnswer, ResetPasswordRequest, SignupAnswer, StandaloneSignupRequest,
    VerifyEmailAnswer, VerifyEmailQuery,
};
use crate::wire::Message;

pub const RESET_TTL_HOURS: i64 = 1;

const MSG_INVALID_CREDENTIALS: &str = "Invalid email or password";
const MSG_NOT_VERIFIED: &str = "Please verify your email address before signing in. Check your inbox (and spam folder) for the verification link.";
const MSG_DEACTIVATED: &str = "This account has been deactivated. Please contact support.";
const MSG_VERIFY_NO_TOKEN: &str = "No verification token provided";
const MSG_VERIFY_INVALID: &str = "The verification link is invalid or has expired.";
const MSG_RESET_INVALID: &str = "This password reset link is invalid or expired.";
const MSG_FORGOT_SENT: &str = "If an account exists for that email, a password reset link is on its way.";
const MSG_RESEND_SENT: &str = "If that account is waiting for verification, a new verification link is on its way.";

pub fn configure(routes: &mut ApiRoutes) {
    routes
        .get("/auth/me", me)
        .get("/auth/user", current_user)
        .post("/auth/login", login)
        .post("/auth/signup", standalone_signup)
        .post("/auth/logout", logout)
        .post("/auth/resend-verification", resend_verification)
        .post("/signup", combined_signup)
        .post("/forgot-password", forgot_password)
        .post("/reset-password", reset_password)
        .get("/verify-email", verify_email);
}

/// `GET /api/auth/me` → `{ user }`.
async fn me(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<MeAnswer>> {
    Ok(web::Json(MeAnswer { user: UserView::of_account(&signed_in.user, &state)? }))
}

/// `GET /api/auth/user` → the user itself.
async fn current_user(state: web::Data<AppState>, signed_in: SignedIn) -> ApiResult<web::Json<UserView>> {
    Ok(web::Json(UserView::of_account(&signed_in.user, &state)?))
}

/// `POST /api/signup`: the combined form on /auth.
async fn combined_signup(
    state: web::Data<AppState>,
    request: HttpRequest,
    form: web::Json<CombinedSignupRequest>,
) -> ApiResult<Created<SignupAnswer>> {
    let ip = check_signup_rates(&state, &request)?;
    let form = form.into_inner();
    let seeds = form.seeds.clone().filter(|seeds| !seeds.is_empty());
    let signup = validate_combined_signup(&form.into())?;
    // The papers are found before the account is written: a line refused leaves no account.
    let found = match &seeds {
        Some(_) if signup.pending_search.is_none() => return Err(crate::terms::term_error("seeds", MSG_SEEDS_NEED_TOPIC)),
        Some(seeds) => crate::seeds::find_seeds(&state, seeds).await?,
        None => Vec::new(),
    };
    create_account(state, signup, ip, &found).await
}

/// Seeds given at signup without the topic they are for.
pub const MSG_SEEDS_NEED_TOPIC: &str = "Type the topic these papers are for";

/// `POST /api/auth/signup`: the standalone form on /signup.
async fn standalone_signup(
    state: web::Data<AppState>,
    request: HttpRequest,
    form: web::Json<StandaloneSignupRequest>,
) -> ApiResult<Created<SignupAnswer>> {
    let ip = check_signup_rates(&state, &request)?;
    let signup = validate_standalone_signup(&form.into_inner().into())?;
    create_account(state, signup, ip, &[]).await
}

/// Signups per client address, then from everyone together (`signup_global`, which an operator
/// sets for the whole server); returns the client's address.
fn check_signup_rates(state: &AppState, request: &HttpRequest) -> ApiResult<String> {
    let ip = client_ip(request, state.settings.trust_proxy);
    state.limiter.check("signup", &ip, state.settings.rate_limits.signup)?;
    state.limiter.check("signup-global", "", state.settings.rate_limits.signup_global)?;
    Ok(ip)
}

/// Whether one more mail that a stranger can cause (a verification or reset link, the note that
/// an account exists) may go to `email` now: one budget for all of them, counted when a mail is
/// queued, so nobody can flood an inbox however they combine the forms.
fn may_mail_recipient(state: &AppState, email: &str) -> bool {
    state.limiter.check("recipient-mail", email, state.settings.rate_limits.recipient).is_ok()
}

/// Writes the account, its preferences, its verification token and the verification mail in
/// one transaction, makes it durable, and only then answers.
///
/// An address that already has an account gets the same answer after the same work (a password
/// hash and a durable write), so the form cannot tell who has an account. When that account is
/// still unverified, the new signup's credentials replace its pending ones: whoever controls
/// the mailbox decides the password, so nobody can sign an address up before its owner and keep
/// a way in ([`store::Accounts::restart_pending_signup`]). A verified account's owner is told
/// instead ([`note_signup_of_verified_address`]).
async fn create_account(
    state: web::Data<AppState>,
    signup: Signup,
    ip: String,
    seeds: &[crate::seeds::FoundSeed],
) -> ApiResult<Created<SignupAnswer>> {
    let is_taken = state.store.accounts().user_by_email(&signup.email)?.is_some();
    let password_hash = state.hasher.hash(signup.password).await?;
    let now = Utc::now();
    let mut user = User::new(UserId(Uuid::new_v4()), &signup.email, password_hash, now);
    user.research_field = signup.research_field;
    user.pending_search = signup.pending_search;
    user.pending_seeds = crate::seeds::pending_seeds(seeds);
    user.ip_address = Some(ip);
    let token = new_secret_token();
    let verification = (TokenHash::of(&token), now + Duration::hours(VERIFICATION_WINDOW_HOURS));
    // Every signup mails its address once (a verification link, or the note that the account
    // exists), so it spends the recipient's budget once, whichever it turns out to be.
    let may_mail = may_mail_recipient(&state, &user.email);
    let mail = may_mail.then(|| verification_mail(&state.mail_context(), &user.email, &token));
    let restart = if is_taken {
        let pending = PendingSignup {
            password_hash: user.password_hash.clone(),
            research_field: user.research_field.clone(),
            pending_search: user.pending_search.clone(),
            verification,
            mail: mail.clone(),
        };
        state.store.accounts().restart_pending_signup(&user.email, pending, now)?
    } else {
        SignupRestart::Missing
    };
    match restart {
        SignupRestart::Restarted(restarted) => tracing::info!(user_id = %restarted.id, "pending signup restarted"),
        SignupRestart::Unchanged(owner) => note_signup_of_verified_address(&state, &owner, may_mail, now)?,
        SignupRestart::Missing => match write_account(&state, user.clone(), verification, mail, now) {
            Ok(created) => {
                tracing::info!(user_id = %created.id, "account created");
                user = created;
            }
            // Taken between the look and the write: its owner is told as above.
            Err(store::StoreError::DuplicateEmail) => {
                if let Some(owner) = state.store.accounts().user_by_email(&user.email)? {
                    note_signup_of_verified_address(&state, &owner, may_mail, now)?;
                }
            }
            Err(error) => return Err(error.into()),
        },
    }
    state.store.flush_async().await?;
    state.poke_mailer();
    Ok(Created::new(SignupAnswer {
        message: "Account created successfully! Please check your email (and spam folder) to verify your account.".to_owned(),
        requires_verification: true,
        seeded: seeds.iter().map(crate::seeds::FoundSeed::view).collect(),
        user: UserView::of(&user, &state.settings),
    }))
}

/// The account, its preferences, its verification token and mail, in one transaction.
fn write_account(
    state: &AppState,
    user: User,
    verification: (TokenHash, chrono::DateTime<Utc>),
    mail: Option<engine::mail::RenderedMail>,
    now: chrono::DateTime<Utc>,
) -> Result<User, store::StoreError> {
    let account = NewAccount { mail, verification: Some(verification), preferences: Preferences::default(), user };
    state.store.accounts().create(account, now)
}

/// A signup for an address whose account is verified (or deactivated) changes nothing of it: the
/// attempt is recorded, and an active account's owner is told that they already have one when
/// `may_mail` (the recipient's mail budget allowed it).
fn note_signup_of_verified_address(state: &AppState, owner: &User, may_mail: bool, now: chrono::DateTime<Utc>) -> Result<(), store::StoreError> {
    state.store.digests().record_notice(owner.id, "signup-attempt", now)?;
    if may_mail && owner.is_active && owner.is_email_verified {
        state.store.mail().enqueue(&account_exists_mail(&state.mail_context(), &owner.email), now)?;
    }
    Ok(())
}

/// `GET /api/verify-email?token=`: verifies the address and signs the user in.
async fn verify_email(state: web::Data<AppState>, request: HttpRequest, query: web::Query<VerifyEmailQuery>) -> ApiResult<Answer<VerifyEmailAnswer>> {
    let token = query.token.as_deref().map(str::trim).unwrap_or_default();
    if token.is_empty() {
        return Err(ApiError::bad_request(MSG_VERIFY_NO_TOKEN).with_details(not_a_success()));
    }
    let ip = client_ip(&request, state.settings.trust_proxy);
    let guesses = state.settings.rate_limits.link_guesses;
    state.limiter.check_not_over("link-guess", &ip, guesses)?;
    let context = state.mail_context();
    let verified = state.store.accounts().verify_email(TokenHash::of(token), Utc::now(), |user| welcome_mail(&context, &user.email))?;
    let Some(user) = verified else {
        state.limiter.check("link-guess", &ip, guesses)?;
        return Err(ApiError::new(ErrorCode::InvalidToken, MSG_VERIFY_INVALID).with_details(not_a_success()));
    };
    let cookie = start_session(&state, &user, Some(ip))?;
    let device = device_cookie(&state, &user, Utc::now())?;
    state.store.flush_async().await?;
    state.poke_mailer();
    tracing::info!(user_id = %user.id, "email verified");
    Ok(Answer::new(VerifyEmailAnswer {
        message: "Email verified successfully".to_owned(),
        pending_search: user.pending_search.clone(),
        success: true,
        user: UserView::of_account(&user, &state)?,
    })
    .cookie(cookie)
    .cookie(device))
}

/// The verification link's refusals say `success: false`.
fn not_a_success() -> ErrorDetails {
    ErrorDetails { success: Some(false), ..ErrorDetails::default() }
}

/// `POST /api/auth/login`. Guessing is limited before anything is hashed (see
/// [`check_login_rates`]); a successful sign-in also gives the browser a device cookie.
async fn login(state: web::Data<AppState>, request: HttpRequest, form: web::Json<LoginRequest>) -> ApiResult<Answer<LoginAnswer>> {
    let ip = client_ip(&request, state.settings.trust_proxy);
    // The form first: an address that is not one (over 254 characters, say) is refused before
    // anything is counted or kept.
    let credentials = validate_login(&form.into_inner().into())?;
    let user = state.store.accounts().user_by_email(&credentials.email)?;
    check_login_rates(&state, &request, &ip, &credentials.email, user.as_ref())?;
    let stored_hash = user.as_ref().map(|user| user.password_hash.clone());
    let is_match = state.hasher.verify(stored_hash, credentials.password).await?;
    let user = match user {
        Some(user) if is_match => user,
        _ => return Err(ApiError::unauthorized(MSG_INVALID_CREDENTIALS)),
    };
    if !user.is_active {
        return Err(ApiError::new(ErrorCode::AccountDeactivated, MSG_DEACTIVATED));
    }
    if !user.is_email_verified {
        let details = ErrorDetails { requires_verification: Some(true), ..ErrorDetails::default() };
        return Err(ApiError::new(ErrorCode::EmailNotVerified, MSG_NOT_VERIFIED).with_details(details));
    }
    if let Some(previous) = session_hash(&request) {
        state.store.accounts().delete_session(previous)?;
    }
    let cookie = start_session(&state, &user, Some(ip))?;
    let device = device_cookie(&state, &user, Utc::now())?;
    tracing::info!(user_id = %user.id, "signed in");
    Ok(Answer::new(LoginAnswer { message: "Login successful".to_owned(), user: UserView::of_account(&user, &state)? }).cookie(cookie).cookie(device))
}

/// Sign-in's limits (OWASP ASVS 2.2.1), each answering 429 with `Retry-After`:
/// - a browser with a device cookie of the account (it signed in to it before) has a limit of
///   its own, the login rate, and no other: nobody elsewhere can use it up;
/// - any other caller is limited per address and email (the login rate), per address (five
///   times that: one address guessing many accounts), and per account across every address
///   (`login_account`: many addresses guessing one account) — except from an address the
///   account has a live session from, so its owner at home still signs in during an attack.
///
/// The answers are the same whether or not the account exists (an unknown email is counted
/// under its own name like any other).
fn check_login_rates(state: &AppState, request: &HttpRequest, ip: &str, email: &str, account: Option<&User>) -> ApiResult<()> {
    let limiter = &state.limiter;
    let limits = &state.settings.rate_limits;
    let now = Utc::now();
    let device = match account {
        Some(user) => trusted_device(state, request, user, now)?,
        None => None,
    };
    if let Some(device) = device {
        return limiter.check("login-device", &device.key, limits.login);
    }
    // Per address before per (address, email): one address can make at most five times the
    // login rate of the finer counters in a window.
    let per_address = crate::config::Rate { max: limits.login.max.saturating_mul(5), window: limits.login.window };
    limiter.check("login-address", ip, per_address)?;
    limiter.check("login", &format!("{ip} {email}"), limits.login)?;
    let is_known_address = match account {
        Some(user) => state.store.accounts().has_session_from(user, ip, now)?,
        None => false,
    };
    if is_known_address {
        return Ok(());
    }
    limiter.check("login-account", email, limits.login_account)
}

/// `POST /api/auth/logout`: ends this session (if any) and clears the cookie.
async fn logout(state: web::Data<AppState>, request: HttpRequest) -> ApiResult<Answer<Message>> {
    if let Some(hash) = session_hash(&request) {
        state.store.accounts().delete_session(hash)?;
    }
    Ok(Answer::new(Message::new("Logged out")).cookie(removal_cookie(&state)))
}

/// `POST /api/forgot-password`: the same answer whether or not the account exists.
async fn forgot_password(state: web::Data<AppState>, request: HttpRequest, form: web::Json<EmailRequest>) -> ApiResult<web::Json<Message>> {
    answer_link_request(state, &request, &form.into_inner().into(), TokenPurpose::PasswordReset).await
}

/// `POST /api/reset-password`: sets the new password and signs the user out everywhere. The
/// cheap checks come first — the client's rate, the form, the token, the new password against
/// the account's address — and the password is hashed only for a token that can be used; using
/// it is checked again in the write.
async fn reset_password(state: web::Data<AppState>, request: HttpRequest, form: web::Json<ResetPasswordRequest>) -> ApiResult<Answer<Message>> {
    let ip = client_ip(&request, state.settings.trust_proxy);
    state.limiter.check("reset-password", &ip, state.settings.rate_limits.reset_password)?;
    let reset = validate_reset_password(&form.into_inner().into())?;
    let token = TokenHash::of(&reset.token);
    let invalid_token = || ApiError::new(ErrorCode::InvalidToken, MSG_RESET_INVALID);
    let Some(account) = state.store.accounts().usable_token_user(token, TokenPurpose::PasswordReset, Utc::now())? else {
        return Err(invalid_token());
    };
    check_new_password_for_account(&reset.password, &account.email)?;
    let password_hash = state.hasher.hash(reset.password).await?;
    let Some(user) = state.store.accounts().reset_password(token, &password_hash, Utc::now())? else {
        return Err(invalid_token());
    };
    state.store.accounts().delete_sessions_of(user.id)?;
    state.store.flush_async().await?;
    tracing::info!(user_id = %user.id, "password reset");
    Ok(Answer::new(Message::new("Password reset successful. You can now sign in with your new password.")).cookie(removal_cookie(&state)))
}

/// `POST /api/auth/resend-verification`: a new link for an account still waiting for one.
async fn resend_verification(state: web::Data<AppState>, request: HttpRequest, form: web::Json<EmailRequest>) -> ApiResult<web::Json<Message>> {
    answer_link_request(state, &request, &form.into_inner().into(), TokenPurpose::EmailVerification).await
}

/// Both "mail me a link" endpoints: rate limited per client address and, silently, by the
/// recipient's mail budget (so nobody can flood an inbox from many addresses); the same answer
/// whatever the account's state; the token is issued after answering.
async fn answer_link_request(
    state: web::Data<AppState>,
    request: &HttpRequest,
    form: &EmailForm,
    purpose: TokenPurpose,
) -> ApiResult<web::Json<Message>> {
    let limits = &state.settings.rate_limits;
    let (action, rate, answer) = match purpose {
        TokenPurpose::PasswordReset => ("forgot-password", limits.forgot_password, MSG_FORGOT_SENT),
        TokenPurpose::EmailVerification => ("resend-verification", limits.resend, MSG_RESEND_SENT),
    };
    let ip = client_ip(request, state.settings.trust_proxy);
    state.limiter.check(action, &ip, rate)?;
    let email = validate_email_form(form)?;
    let state = state.into_inner();
    actix_web::rt::spawn(async move {
        if let Err(error) = mail_token(&state, &email, purpose).await {
            tracing::error!(%error, ?purpose, "mailing a one-time link");
        }
    });
    Ok(web::Json(Message::new(answer)))
}

/// Issues a fresh token of `purpose` to the account of `email`, if there is one that can use
/// it (active; for verification, not yet verified), and queues the mail that carries it. Runs
/// after the answer was sent, so the answer's timing does not tell whether the account exists.
async fn mail_token(state: &AppState, email: &str, purpose: TokenPurpose) -> Result<(), store::StoreError> {
    let is_eligible = |user: &User| match purpose {
        TokenPurpose::PasswordReset => user.is_active,
        TokenPurpose::EmailVerification => user.is_active && !user.is_email_verified,
    };
    let Some(user) = state.store.accounts().user_by_email(email)?.filter(is_eligible) else {
        return Ok(());
    };
    if !may_mail_recipient(state, &user.email) {
        return Ok(());
    }
    issue_link(state, &user, purpose).await
}

/// The operator's resend: a fresh verification link to `user` and its mail queued, as
/// `resend-verification` does, but without its rate limits (the operator decided to send it).
pub(crate) async fn mail_verification_link(state: &AppState, user: &User) -> Result<(), store::StoreError> {
    issue_link(state, user, TokenPurpose::EmailVerification).await
}

/// Issues a fresh token of `purpose` to `user`, queues the mail that carries it, makes both
/// durable and pokes the mailer.
async fn issue_link(state: &AppState, user: &User, purpose: TokenPurpose) -> Result<(), store::StoreError> {
    let token = new_secret_token();
    let now = Utc::now();
    let (mail, expires_at) = match purpose {
        TokenPurpose::PasswordReset => (password_reset_mail(&state.mail_context(), &user.email, &token), now + Duration::hours(RESET_TTL_HOURS)),
        TokenPurpose::EmailVerification => {
            (verification_mail(&state.mail_context(), &user.email, &token), now + Duration::hours(VERIFICATION_WINDOW_HOURS))
        }
    };
    state.store.accounts().issue_token(user.id, purpose, TokenHash::of(&token), expires_at, &mail, now)?;
    state.store.flush_async().await?;
    state.poke_mailer();
    Ok(())
}
