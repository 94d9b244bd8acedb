//! Accounts over HTTP: signup (both forms), email verification, sign-in and out, the current
//! user, forgotten and reset passwords, and re-sending the verification mail (spec §7).

pub mod device;
pub mod handlers;
mod operator;
pub mod password;
pub mod session;
mod view;

pub use operator::{LocalOperator, Operator};
pub use session::SignedIn;
pub use view::{is_operator, UserView};
