//! Errors of the domain: validation failures carry the field and the spec's exact message.

use std::fmt;

/// One rejected field with the message a user reads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

/// All the problems of one submitted form, in the order the form lists its fields.
///
/// The first message is the one a client shows when it shows only one.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors {
    pub errors: Vec<FieldError>,
}

impl ValidationErrors {
    pub fn add(&mut self, field: &'static str, message: impl Into<String>) {
        self.errors.push(FieldError { field, message: message.into() });
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The first message, which is what a one-line error display shows.
    pub fn first_message(&self) -> &str {
        self.errors.first().map(|error| error.message.as_str()).unwrap_or("Invalid request")
    }

    /// Messages for one field, for tests and for clients that show errors inline.
    pub fn messages_for(&self, field: &str) -> Vec<&str> {
        self.errors.iter().filter(|error| error.field == field).map(|error| error.message.as_str()).collect()
    }

    /// `Ok(value)` when nothing was rejected.
    pub fn into_result<T>(self, value: T) -> Result<T, ValidationErrors> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.first_message())
    }
}
