//! The validation rules the browser mirrors, checked against one table shared with the client
//! (`validation-cases.json`, read by `web/client/src/test/validationDrift.test.ts` too): a rule
//! changed on either side fails that side's test until the table, and the other side, follow.

use std::collections::BTreeMap;

use engine::validation::{
    is_valid_email, new_password_problem, validate_combined_signup, validate_email_form, validate_login, validate_reset_password,
    validate_standalone_signup, CombinedSignupForm, EmailForm, LoginForm, ResetPasswordForm, StandaloneSignupForm,
};
use engine::ValidationErrors;
use serde::Deserialize;
use serde_json::Value;

const CASES: &str = include_str!("validation-cases.json");

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cases {
    email: Vec<TextCase>,
    new_password: Vec<TextCase>,
    search_term: Vec<TextCase>,
    forms: Vec<FormCase>,
}

/// One input of a rule on text; `valid` for a yes/no rule, `message` (none when it passes) for
/// the others.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextCase {
    input: String,
    repeat: Option<usize>,
    valid: Option<bool>,
    message: Option<String>,
    #[serde(default)]
    server_only: bool,
}

impl TextCase {
    fn text(&self) -> String {
        self.input.repeat(self.repeat.unwrap_or(1))
    }
}

/// One submitted form and its messages per field, as the client sends it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FormCase {
    form: String,
    values: Value,
    errors: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    server_only_errors: BTreeMap<String, Vec<String>>,
}

fn cases() -> Cases {
    serde_json::from_str(CASES).expect("validation-cases.json is a table of cases")
}

#[test]
fn email_addresses_are_judged_as_the_table_says() {
    let cases = cases().email;
    assert!(cases.len() > 10, "the table has email cases");
    for case in cases {
        let expected = case.valid.expect("an email case says whether it is valid");
        assert_eq!(is_valid_email(&case.text()), expected, "is_valid_email({:?})", case.input);
    }
}

#[test]
fn new_passwords_get_the_messages_of_the_table() {
    let cases = cases().new_password;
    assert!(cases.iter().any(|case| case.server_only), "the table shows the rules only the server checks");
    for case in cases {
        assert_eq!(new_password_problem(&case.text(), None), case.message.as_deref(), "new_password_problem({:?})", case.input);
    }
}

#[test]
fn search_terms_get_the_messages_of_the_table() {
    for case in cases().search_term {
        let problem = engine::search_term::validate_search_term(&case.text()).err();
        assert_eq!(problem, case.message.as_deref(), "validate_search_term({:?})", case.input);
    }
}

#[test]
fn forms_get_the_messages_of_the_table_per_field() {
    for case in cases().forms {
        let mut expected = case.errors.clone();
        for (field, messages) in &case.server_only_errors {
            expected.entry(field.clone()).or_default().extend(messages.iter().cloned());
        }
        let errors = validate_form(&case.form, case.values.clone());
        assert_eq!(by_field(&errors), expected, "{} {}", case.form, case.values);
    }
}

/// The server's validation of `form` (the client's name for it) with `values`.
fn validate_form(form: &str, values: Value) -> ValidationErrors {
    fn parse<T: serde::de::DeserializeOwned>(values: Value) -> T {
        serde_json::from_value(values).expect("the case's values are the form's fields")
    }
    let outcome = match form {
        "combinedSignup" => validate_combined_signup(&parse::<CombinedSignupForm>(values)).map(drop),
        "standaloneSignup" => validate_standalone_signup(&parse::<StandaloneSignupForm>(values)).map(drop),
        "login" => validate_login(&parse::<LoginForm>(values)).map(drop),
        "forgotPassword" => validate_email_form(&parse::<EmailForm>(values)).map(drop),
        "resetPassword" => {
            // The token comes from the link, not from a field the user fills.
            let mut values = values;
            values["token"] = Value::String("a-token-from-the-link".into());
            validate_reset_password(&parse::<ResetPasswordForm>(values)).map(drop)
        }
        other => panic!("no form named {other} in the table"),
    };
    outcome.err().unwrap_or_default()
}

fn by_field(errors: &ValidationErrors) -> BTreeMap<String, Vec<String>> {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for error in &errors.errors {
        fields.entry(error.field.to_owned()).or_default().push(error.message.clone());
    }
    fields
}
