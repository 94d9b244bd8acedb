//! The spec's validation rules (§5) with their exact messages, applied by the server to every
//! form it accepts. Each `validate_*` takes the raw submitted form and returns either the clean,
//! typed values or every problem found, in form order.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::account::{normalize_email, ResearchField};
use crate::error::ValidationErrors;
pub use crate::plain_text::{is_invisible, is_plain_text};

pub const MSG_INVALID_EMAIL: &str = "Please enter a valid email address";
pub const MSG_ENTER_PASSWORD: &str = "Please enter your password";
pub const MSG_PASSWORD_REQUIRED: &str = "Password is required";
pub const MSG_PASSWORD_MIN_8: &str = "Password must be at least 8 characters long";
pub const MSG_PASSWORD_TOO_LONG: &str = "Password must be at most 256 characters";
pub const MSG_PASSWORD_COMMON: &str = "This password is on a list of common or leaked passwords that attackers try first; please choose another";
pub const MSG_PASSWORD_IS_EMAIL: &str =
    "This password is your email address or the name before its @, which attackers try first; please choose another";
pub const MSG_PASSWORD_SITE_NAME: &str = "This password is built on the name Papertide, which attackers try first; please choose another";
pub const MSG_PASSWORD_REPETITIVE: &str =
    "This password repeats too few characters (like aaaa1111), which attackers try first; please choose another";
pub const MSG_PASSWORDS_DONT_MATCH: &str = "Passwords don't match";
pub const MSG_PASSWORDS_DO_NOT_MATCH: &str = "Passwords do not match";
pub const MSG_RESEARCH_FIELD_REQUIRED: &str = "Please enter your research field";
pub const MSG_RESEARCH_FIELD_TOO_LONG: &str = "Research field must be at most 100 characters";
pub const MSG_RESEARCH_FIELD_INVALID: &str = "Please select a valid research field";
pub const MSG_RESEARCH_FIELD_UNSUPPORTED: &str =
    "Research field contains unsupported characters: use letters, digits and ordinary punctuation, without < or >";
pub const MSG_AGREE_TERMS: &str = "You must agree to the Terms and Conditions";
pub const MSG_AGREE_PRIVACY: &str = "You must agree to the Privacy Policy";
pub const MSG_RESET_TOKEN_REQUIRED: &str = "Reset token is required";

/// The shortest password any form that sets one accepts.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// Long enough for any passphrase, short enough that hashing cannot be abused.
pub const MAX_PASSWORD_CHARS: usize = 256;
const MAX_EMAIL_CHARS: usize = 254;
const MAX_EMAIL_LOCAL_CHARS: usize = 64;
const MAX_RESEARCH_FIELD_CHARS: usize = 100;

/// Whether `email` (already trimmed) is an address mail can be sent to: a local part of
/// letters, digits and `_ ' + - .` (no leading, trailing or doubled dot), `@`, and a domain of
/// dot-separated labels ending in a top-level name of at least two letters.
pub fn is_valid_email(email: &str) -> bool {
    if email.chars().count() > MAX_EMAIL_CHARS {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    is_valid_local_part(local) && is_valid_domain(domain)
}

fn is_valid_local_part(local: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_'+-.".contains(c);
    !local.is_empty()
        && local.len() <= MAX_EMAIL_LOCAL_CHARS
        && local.chars().all(allowed)
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
}

fn is_valid_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let Some((top_level, names)) = labels.split_last() else {
        return false;
    };
    let is_valid_label = |label: &&str| {
        let mut chars = label.chars();
        matches!(chars.next(), Some(first) if first.is_ascii_alphanumeric()) && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    !names.is_empty() && names.iter().all(is_valid_label) && top_level.len() >= 2 && top_level.chars().all(|c| c.is_ascii_alphabetic())
}

/// Checks an email field: returns the normalized address or records the spec's message.
fn check_email(raw: Option<&str>, errors: &mut ValidationErrors) -> String {
    let trimmed = raw.unwrap_or_default().trim();
    if !is_valid_email(trimmed) {
        errors.add("email", MSG_INVALID_EMAIL);
    }
    normalize_email(trimmed)
}

/// The common and leaked passwords a new password may not be: one a line, lowercased, sorted.
/// `engine/data/PROVENANCE.md` says where the list comes from and how it was cut.
const COMMON_PASSWORDS: &str = include_str!("../data/common-passwords.txt");

/// The list as a set, built on first use.
fn common_passwords() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| COMMON_PASSWORDS.lines().collect())
}

/// Whether `password`, trimmed and lowercased, is on the list of common and leaked passwords.
pub fn is_common_password(password: &str) -> bool {
    common_passwords().contains(password.trim().to_lowercase().as_str())
}

/// The rule for every password a person sets (both signups and the reset), after NIST SP
/// 800-63B: 8 to 256 characters, any characters at all, and not one that attackers try first:
/// a common or leaked password, the account's email address or the name before its @, or the
/// site's name padded with digits and signs. `email` is the account's address when the form
/// knows it. Returns the first problem's message.
pub fn new_password_problem(password: &str, email: Option<&str>) -> Option<&'static str> {
    let length = password.chars().count();
    if length < MIN_PASSWORD_CHARS {
        return Some(MSG_PASSWORD_MIN_8);
    }
    if length > MAX_PASSWORD_CHARS {
        return Some(MSG_PASSWORD_TOO_LONG);
    }
    let lowered = password.trim().to_lowercase();
    // A common password with digits or signs added at its end ("Password1!") is tried as early
    // as the password itself.
    let stem = lowered.trim_end_matches(|character: char| !character.is_alphabetic());
    if is_common_password(password) || common_passwords().contains(stem) {
        return Some(MSG_PASSWORD_COMMON);
    }
    let mut distinct: Vec<char> = lowered.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_DISTINCT_CHARS {
        return Some(MSG_PASSWORD_REPETITIVE);
    }
    if let Some(email) = email.map(normalize_email).filter(|email| !email.is_empty()) {
        let name = email.split('@').next().unwrap_or_default();
        if lowered == email || lowered == name {
            return Some(MSG_PASSWORD_IS_EMAIL);
        }
    }
    let letters: String = lowered.chars().filter(|character| character.is_alphabetic()).collect();
    if letters == SITE_NAME {
        return Some(MSG_PASSWORD_SITE_NAME);
    }
    None
}

/// Fewer different characters than this (letter case aside) make a repetitive password.
const MIN_DISTINCT_CHARS: usize = 5;

/// The site's name, as a password built on it would spell it once digits and signs are dropped.
const SITE_NAME: &str = "papertide";

fn check_new_password(password: &str, email: Option<&str>, errors: &mut ValidationErrors) {
    if let Some(message) = new_password_problem(password, email) {
        errors.add("password", message);
    }
}

/// The reset form does not carry the address; the server checks the new password against the
/// account's once the token has named it.
pub fn check_new_password_for_account(password: &str, email: &str) -> Result<(), ValidationErrors> {
    let mut errors = ValidationErrors::default();
    check_new_password(password, Some(email), &mut errors);
    errors.into_result(())
}

/// `POST /api/auth/login` — used by both sign-in forms.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginForm {
    pub email: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub email: String,
    pub password: String,
}

pub fn validate_login(form: &LoginForm) -> Result<Login, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let email = check_email(form.email.as_deref(), &mut errors);
    let password = form.password.clone().unwrap_or_default();
    if password.is_empty() {
        errors.add("password", MSG_PASSWORD_REQUIRED);
    } else if password.chars().count() > MAX_PASSWORD_CHARS {
        errors.add("password", MSG_PASSWORD_TOO_LONG);
    }
    errors.into_result(Login { email, password })
}

/// `POST /api/auth/signup` — the standalone form (spec §2 /signup).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StandaloneSignupForm {
    pub email: Option<String>,
    pub password: Option<String>,
    pub confirm_password: Option<String>,
    pub research_field: Option<String>,
    /// The topic typed before signup (kept with the account when it is a valid search term).
    pub pending_search: Option<String>,
}

/// A signup that passed validation, from either form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signup {
    pub email: String,
    pub password: String,
    pub research_field: Option<String>,
    /// The topic typed before signup, when it is a valid search term (one that is not is
    /// dropped: the signup itself must not fail for it).
    pub pending_search: Option<String>,
}

/// `POST /api/auth/signup`: the new-password rule, then the free-text research field.
pub fn validate_standalone_signup(form: &StandaloneSignupForm) -> Result<Signup, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let email = check_email(form.email.as_deref(), &mut errors);
    let password = form.password.clone().unwrap_or_default();
    check_new_password(&password, Some(&email), &mut errors);
    if let Some(confirmation) = &form.confirm_password {
        if *confirmation != password {
            errors.add("confirmPassword", MSG_PASSWORDS_DONT_MATCH);
        }
    }
    let research_field = form.research_field.as_deref().unwrap_or_default().trim().to_owned();
    if research_field.is_empty() {
        errors.add("researchField", MSG_RESEARCH_FIELD_REQUIRED);
    } else if research_field.chars().count() > MAX_RESEARCH_FIELD_CHARS {
        errors.add("researchField", MSG_RESEARCH_FIELD_TOO_LONG);
    } else if !is_plain_text(&research_field) {
        errors.add("researchField", MSG_RESEARCH_FIELD_UNSUPPORTED);
    }
    let pending_search = valid_pending_search(form.pending_search.as_deref());
    errors.into_result(Signup { email, password, research_field: Some(research_field), pending_search })
}

/// `POST /api/signup` — the combined form on /auth.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CombinedSignupForm {
    pub email: Option<String>,
    pub research_field: Option<String>,
    pub password: Option<String>,
    pub confirm_password: Option<String>,
    pub agree_to_terms: Option<bool>,
    pub agree_to_privacy: Option<bool>,
    /// The topic typed before signup (kept with the account when it is a valid search term).
    pub pending_search: Option<String>,
}

pub fn validate_combined_signup(form: &CombinedSignupForm) -> Result<Signup, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let email = check_email(form.email.as_deref(), &mut errors);
    let research_field = match form.research_field.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(name) => match name.parse::<ResearchField>() {
            Ok(field) => Some(field.as_str().to_owned()),
            Err(_) => {
                errors.add("researchField", MSG_RESEARCH_FIELD_INVALID);
                None
            }
        },
    };
    let password = form.password.clone().unwrap_or_default();
    check_new_password(&password, Some(&email), &mut errors);
    if form.confirm_password.as_deref().unwrap_or_default() != password {
        errors.add("confirmPassword", MSG_PASSWORDS_DONT_MATCH);
    }
    if form.agree_to_terms != Some(true) {
        errors.add("agreeToTerms", MSG_AGREE_TERMS);
    }
    if form.agree_to_privacy != Some(true) {
        errors.add("agreeToPrivacy", MSG_AGREE_PRIVACY);
    }
    let pending_search = valid_pending_search(form.pending_search.as_deref());
    errors.into_result(Signup { email, password, research_field, pending_search })
}

fn valid_pending_search(topic: Option<&str>) -> Option<String> {
    topic.filter(|topic| !topic.trim().is_empty()).and_then(|topic| crate::search_term::validate_search_term(topic).ok())
}

/// `POST /api/forgot-password` and the re-send of a verification mail: an email only.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EmailForm {
    pub email: Option<String>,
}

pub fn validate_email_form(form: &EmailForm) -> Result<String, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let email = check_email(form.email.as_deref(), &mut errors);
    errors.into_result(email)
}

/// `POST /api/reset-password`. The new-password rule without the account's address, which
/// [`check_new_password_for_account`] adds once the token names the account.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetPasswordForm {
    pub token: Option<String>,
    pub password: Option<String>,
    pub confirm_password: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResetPassword {
    pub token: String,
    pub password: String,
}

pub fn validate_reset_password(form: &ResetPasswordForm) -> Result<ResetPassword, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let token = form.token.as_deref().unwrap_or_default().trim().to_owned();
    if token.is_empty() {
        errors.add("token", MSG_RESET_TOKEN_REQUIRED);
    }
    let password = form.password.clone().unwrap_or_default();
    check_new_password(&password, None, &mut errors);
    if form.confirm_password.as_deref().unwrap_or_default() != password {
        errors.add("confirmPassword", MSG_PASSWORDS_DO_NOT_MATCH);
    }
    errors.into_result(ResetPassword { token, password })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain_text::INVISIBLE;

    fn combined(email: &str, password: &str, confirm: &str) -> CombinedSignupForm {
        CombinedSignupForm {
            email: Some(email.into()),
            research_field: None,
            password: Some(password.into()),
            confirm_password: Some(confirm.into()),
            agree_to_terms: Some(true),
            agree_to_privacy: Some(true),
            pending_search: None,
        }
    }

    #[test]
    fn a_pending_topic_is_kept_when_it_is_a_valid_term_and_dropped_otherwise() -> Result<(), ValidationErrors> {
        let with_topic = |topic: &str| CombinedSignupForm { pending_search: Some(topic.into()), ..combined("a@b.org", "Secret-123!", "Secret-123!") };
        assert_eq!(validate_combined_signup(&with_topic("  malaria vaccine "))?.pending_search.as_deref(), Some("malaria vaccine"));
        assert_eq!(validate_combined_signup(&with_topic("<script>"))?.pending_search, None, "the signup goes through without it");
        assert_eq!(validate_combined_signup(&with_topic("   "))?.pending_search, None);
        Ok(())
    }

    #[test]
    fn accepts_ordinary_addresses() {
        for email in ["ada@example.org", "a.b+tag@lab.uni-x.ac.uk", "o'neil@example.com", "x_y@a1.io"] {
            assert!(is_valid_email(email), "{email} should be valid");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        let bad = [
            "",
            "plain",
            "@example.org",
            "ada@",
            "ada@example",
            "ada@@example.org",
            "ada@example.c",
            ".ada@example.org",
            "ada.@example.org",
            "a..da@example.org",
            "ada@-example.org",
            "ada @example.org",
            "ada@example.org.",
            "ada@exa_mple.org",
            "ada@example.o2",
        ];
        for email in bad {
            assert!(!is_valid_email(email), "{email:?} should be invalid");
        }
        let long_local = format!("{}@example.org", "a".repeat(65));
        assert!(!is_valid_email(&long_local));
    }

    #[test]
    fn the_issues_four_examples() {
        // On the list of common passwords (the top of the leaked-password ranking).
        assert_eq!(new_password_problem("password", None), Some(MSG_PASSWORD_COMMON));
        assert_eq!(new_password_problem("12345678", None), Some(MSG_PASSWORD_COMMON));
        // Not on the list itself ('password1!' ranks about 203,000th in the leaked corpus, past
        // the 100,000 the list keeps), but a listed password with digits and signs added.
        assert_eq!(new_password_problem("Password1!", None), Some(MSG_PASSWORD_COMMON));
        // Not among the million most common at all, but three different characters.
        assert_eq!(new_password_problem("Aa1!aaaa", None), Some(MSG_PASSWORD_REPETITIVE));
        assert_eq!(new_password_problem("abab1212", None), Some(MSG_PASSWORD_REPETITIVE));
        // Anything else of 8 characters passes: no composition rules.
        assert_eq!(new_password_problem("tide-pool", None), None);
        assert_eq!(new_password_problem("Sunshine-Forest-42", None), None, "a listed word inside a longer password is fine");
    }

    #[test]
    fn common_passwords_are_refused_whatever_their_case_and_surrounding_spaces() {
        for common in ["qwertyuiop", "iloveyou", "PASSWORD", "  PassWord  ", "Sunshine", "trustno1", "letmein123", "Password1", "\tfootball\n"] {
            assert!(is_common_password(common), "{common:?}");
            assert_eq!(new_password_problem(common, None), Some(MSG_PASSWORD_COMMON), "{common:?}");
        }
        assert!(!is_common_password("Choose-a-g00d-one"));
        assert!(!is_common_password("pass word"), "inner spaces are kept");
    }

    #[test]
    fn the_shipped_list_is_lowercased_sorted_unique_and_only_long_enough_entries() {
        let entries: Vec<&str> = COMMON_PASSWORDS.lines().collect();
        assert_eq!(entries.len(), 38_452, "the count engine/data/PROVENANCE.md gives");
        assert_eq!(common_passwords().len(), entries.len());
        assert!(entries.windows(2).all(|pair| pair[0] < pair[1]), "sorted, no repeats");
        for entry in entries {
            assert!(entry.chars().count() >= MIN_PASSWORD_CHARS, "{entry:?}: the length rule refuses it already");
            assert_eq!(entry, entry.trim().to_lowercase(), "{entry:?}: looked up trimmed and lowercased");
        }
    }

    #[test]
    fn a_new_password_is_8_to_256_characters_of_anything() {
        assert_eq!(new_password_problem("", None), Some(MSG_PASSWORD_MIN_8));
        assert_eq!(new_password_problem("Zq4!xw7", None), Some(MSG_PASSWORD_MIN_8));
        assert_eq!(new_password_problem("Zq4!xw7k", None), None);
        assert_eq!(new_password_problem("ééééééé", None), Some(MSG_PASSWORD_MIN_8), "characters, not bytes");
        assert_eq!(new_password_problem(&"éa1-z".repeat(51), None), None, "255 characters");
        assert_eq!(new_password_problem(&"x".repeat(257), None), Some(MSG_PASSWORD_TOO_LONG));
        // No composition rules: no uppercase, digit or sign is asked for.
        for password in [
            "correct horse battery staple",
            "alllowercaseletters",
            "ALLUPPERCASELETTERS",
            "84719305162",
            "mot de passe très long",
            "пароль-которого-нет",
        ] {
            assert_eq!(new_password_problem(password, None), None, "{password:?}");
        }
    }

    #[test]
    fn a_password_made_from_the_account_or_the_site_is_refused() {
        let email = Some("Ada.Lovelace@Example.org");
        assert_eq!(new_password_problem("ada.lovelace@example.org", email), Some(MSG_PASSWORD_IS_EMAIL));
        assert_eq!(new_password_problem("ADA.LOVELACE", email), Some(MSG_PASSWORD_IS_EMAIL), "the name before the @");
        assert_eq!(new_password_problem(" ada.lovelace ", email), Some(MSG_PASSWORD_IS_EMAIL));
        assert_eq!(new_password_problem("ada.lovelace-1815", email), None, "more than the name");
        assert_eq!(new_password_problem("ada.lovelace", None), None, "a form without the address cannot tell");
        for site in ["papertide", "Papertide1!", "PAPERTIDE2026", "paper-tide!", "2026papertide"] {
            assert_eq!(new_password_problem(site, None), Some(MSG_PASSWORD_SITE_NAME), "{site:?}");
        }
        assert_eq!(new_password_problem("papertide is my reading list", None), None);
        assert_eq!(
            check_new_password_for_account("ADA.LOVELACE", "ada.lovelace@example.org").map_err(|errors| errors.messages_for("password").join("")),
            Err(MSG_PASSWORD_IS_EMAIL.to_owned())
        );
        assert_eq!(check_new_password_for_account("Correct-Horse-9", "ada.lovelace@example.org"), Ok(()));
    }

    #[test]
    fn every_form_that_sets_a_password_applies_the_same_rule() {
        let standalone = |password: &str| StandaloneSignupForm {
            email: Some("grace@example.org".into()),
            password: Some(password.into()),
            confirm_password: None,
            research_field: Some("Biology".into()),
            pending_search: None,
        };
        let reset =
            |password: &str| ResetPasswordForm { token: Some("t".into()), password: Some(password.into()), confirm_password: Some(password.into()) };
        let cases = [
            ("1234567", Some(MSG_PASSWORD_MIN_8)),
            ("password", Some(MSG_PASSWORD_COMMON)),
            ("12345678", Some(MSG_PASSWORD_COMMON)),
            ("Password1!", Some(MSG_PASSWORD_COMMON)),
            ("Aa1!aaaa", Some(MSG_PASSWORD_REPETITIVE)),
            ("Papertide!", Some(MSG_PASSWORD_SITE_NAME)),
            ("correct horse battery staple", None),
        ];
        for (password, expected) in cases {
            let messages = |errors: Option<ValidationErrors>| {
                errors.map(|errors| errors.messages_for("password").iter().map(|m| m.to_string()).collect::<Vec<_>>()).unwrap_or_default()
            };
            let expected: Vec<String> = expected.into_iter().map(str::to_owned).collect();
            assert_eq!(messages(validate_standalone_signup(&standalone(password)).err()), expected, "standalone {password:?}");
            assert_eq!(
                messages(validate_combined_signup(&combined("grace@example.org", password, password)).err()),
                expected,
                "combined {password:?}"
            );
            assert_eq!(messages(validate_reset_password(&reset(password)).err()), expected, "reset {password:?}");
        }
        let own_name =
            validate_combined_signup(&combined("grace.hopper@example.org", "Grace.Hopper", "Grace.Hopper")).expect_err("the address's name");
        assert_eq!(own_name.messages_for("password"), vec![MSG_PASSWORD_IS_EMAIL]);
        let own_address = validate_standalone_signup(&StandaloneSignupForm { password: Some("grace@example.org".into()), ..standalone("") })
            .expect_err("the address");
        assert_eq!(own_address.messages_for("password"), vec![MSG_PASSWORD_IS_EMAIL]);
    }

    #[test]
    fn signing_in_takes_any_password_an_old_account_may_have() {
        for password in ["password", "1234", "Papertide"] {
            let login = validate_login(&LoginForm { email: Some("ada@example.org".into()), password: Some(password.into()) });
            assert_eq!(login.map(|login| login.password), Ok(password.to_owned()));
        }
    }

    #[test]
    fn combined_signup_normalizes_and_checks_agreements() {
        let signup = validate_combined_signup(&combined(" Ada@Example.org ", "Secret-123", "Secret-123"));
        assert_eq!(signup.map(|s| s.email), Ok("ada@example.org".to_owned()));

        let mut form = combined("ada@example.org", "Secret-123", "Secret-124");
        form.agree_to_terms = Some(false);
        form.agree_to_privacy = None;
        form.research_field = Some("astrology".into());
        let errors = validate_combined_signup(&form).expect_err("form is invalid");
        assert_eq!(errors.messages_for("confirmPassword"), vec![MSG_PASSWORDS_DONT_MATCH]);
        assert_eq!(errors.messages_for("agreeToTerms"), vec![MSG_AGREE_TERMS]);
        assert_eq!(errors.messages_for("agreeToPrivacy"), vec![MSG_AGREE_PRIVACY]);
        assert_eq!(errors.messages_for("researchField"), vec![MSG_RESEARCH_FIELD_INVALID]);
        assert_eq!(errors.first_message(), MSG_RESEARCH_FIELD_INVALID);
    }

    fn standalone(password: &str, field: &str) -> StandaloneSignupForm {
        StandaloneSignupForm {
            email: Some("ada@example.org".into()),
            password: Some(password.into()),
            confirm_password: None,
            research_field: Some(field.into()),
            pending_search: None,
        }
    }

    #[test]
    fn standalone_signup_asks_8_characters_and_a_plain_research_field() {
        let short = validate_standalone_signup(&standalone("12345", "biology")).expect_err("too short");
        assert_eq!(short.messages_for("password"), vec![MSG_PASSWORD_MIN_8]);
        let no_field = validate_standalone_signup(&standalone("secret-12", "  ")).expect_err("no field");
        assert_eq!(no_field.messages_for("researchField"), vec![MSG_RESEARCH_FIELD_REQUIRED]);
        for hostile in ["bio\0logy", "biology\r\nBcc: x@example.org", "abc\u{202E}fed", "<script>alert(1)</script>", "a\u{2066}b"] {
            let refused = validate_standalone_signup(&standalone("secret-12", hostile)).expect_err(hostile);
            assert_eq!(refused.messages_for("researchField"), vec![MSG_RESEARCH_FIELD_UNSUPPORTED], "{hostile:?}");
        }
        let accepted = validate_standalone_signup(&standalone("secret-12", "Cell & molecular biology (RNA), Zürich")).expect("plain");
        assert_eq!(accepted.research_field.as_deref(), Some("Cell & molecular biology (RNA), Zürich"));
        assert!(validate_standalone_signup(&standalone("secret-12", "Neuroscience")).is_ok());
    }

    /// One character of each invisible class, between letters as someone hiding text would put it.
    fn hidden_in(character: char) -> String {
        format!("bio{character}logy")
    }

    #[test]
    fn the_research_field_refuses_every_format_character() {
        let format_characters = [
            '\u{00AD}',
            '\u{0600}',
            '\u{0605}',
            '\u{061C}',
            '\u{06DD}',
            '\u{070F}',
            '\u{0890}',
            '\u{0891}',
            '\u{08E2}',
            '\u{180E}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{206A}',
            '\u{206F}',
            '\u{FEFF}',
            '\u{FFF9}',
            '\u{FFFB}',
            '\u{110BD}',
            '\u{110CD}',
            '\u{13430}',
            '\u{1343F}',
            '\u{1BCA0}',
            '\u{1BCA3}',
            '\u{1D173}',
            '\u{1D17A}',
            '\u{E0001}',
            '\u{E0020}',
            '\u{E0041}',
            '\u{E007F}',
        ];
        for character in format_characters {
            assert!(is_invisible(character), "U+{:04X}", u32::from(character));
            let refused = validate_standalone_signup(&standalone("secret-12", &hidden_in(character))).expect_err("hidden");
            assert_eq!(refused.messages_for("researchField"), vec![MSG_RESEARCH_FIELD_UNSUPPORTED], "U+{:04X}", u32::from(character));
        }
        let smuggled: String = "biology".chars().chain("ignore all".chars().map(|c| char::from_u32(0xE0000 + u32::from(c)).unwrap_or('?'))).collect();
        assert!(!is_plain_text(&smuggled), "text written in tag letters");
    }

    #[test]
    fn the_research_field_refuses_line_and_paragraph_separators() {
        for character in ['\u{2028}', '\u{2029}'] {
            assert!(!is_plain_text(&hidden_in(character)), "U+{:04X}", u32::from(character));
        }
    }

    #[test]
    fn the_research_field_refuses_the_grapheme_joiner_and_hangul_fillers() {
        for character in ['\u{034F}', '\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'] {
            assert!(!is_plain_text(&hidden_in(character)), "U+{:04X}", u32::from(character));
            assert!(!is_plain_text(&character.to_string()), "alone, U+{:04X} would look like an empty field", u32::from(character));
        }
    }

    #[test]
    fn visible_text_in_any_script_stays_plain() {
        for text in [
            "Zürich",
            "naïve Bayes",
            "علم الأحياء",
            "생물학",
            "神经科学",
            "Ψυχολογία",
            "e\u{0301}tude",
            "\u{2800}",
            "gene\u{00A0}editing",
            "a\u{2010}b",
            "x\u{2030}",
        ] {
            assert!(is_plain_text(text), "{text:?}");
        }
        for character in ['\u{2010}', '\u{2027}', '\u{202F}', '\u{2065}', '\u{2070}', '\u{FFF8}', '\u{FFFC}', '\u{E0000}', '\u{E0080}'] {
            assert!(!is_invisible(character), "U+{:04X} is next to a range but outside it", u32::from(character));
        }
    }

    #[test]
    fn the_invisible_ranges_are_ordered_and_apart() {
        assert!(INVISIBLE.iter().all(|(first, last)| first <= last));
        assert!(INVISIBLE.windows(2).all(|pair| u32::from(pair[0].1) + 1 < u32::from(pair[1].0)));
    }

    #[test]
    fn login_requires_a_password_and_valid_email() {
        let errors = validate_login(&LoginForm { email: Some("nope".into()), password: None }).expect_err("invalid");
        assert_eq!(errors.messages_for("email"), vec![MSG_INVALID_EMAIL]);
        assert_eq!(errors.messages_for("password"), vec![MSG_PASSWORD_REQUIRED]);
    }

    #[test]
    fn reset_requires_token_and_uses_its_own_mismatch_message() {
        let form = ResetPasswordForm { token: Some(" ".into()), password: Some("Secret-123".into()), confirm_password: Some("Secret-321".into()) };
        let errors = validate_reset_password(&form).expect_err("invalid");
        assert_eq!(errors.messages_for("token"), vec![MSG_RESET_TOKEN_REQUIRED]);
        assert_eq!(errors.messages_for("confirmPassword"), vec![MSG_PASSWORDS_DO_NOT_MATCH]);
    }
}
