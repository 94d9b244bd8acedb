//! How far back a digest looks: a week, widened for an immediate digest whose week has too few
//! papers, and what a widened digest says of it.

use serde::{Deserialize, Serialize};

/// How far back a digest looks for new papers: a week.
pub const WINDOW_DAYS: i64 = 7;
/// The windows an immediate digest widens to, in turn, when its week has fewer than
/// [`ENOUGH_PAPERS`] papers to send: the first digest of a topic is never empty when the
/// literature has matches. Weekly digests stay "new this week".
pub const WIDER_WINDOWS_DAYS: [i64; 2] = [30, 90];
/// An immediate digest with fewer papers than this to send looks further back.
pub const ENOUGH_PAPERS: usize = 3;

/// How far an immediate digest looked back, and how many of its papers were the week's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Widened {
    /// 30 or 90 ([`WIDER_WINDOWS_DAYS`]).
    pub days: i64,
    pub new_this_week: usize,
}

impl Widened {
    /// What the digest says first: "Nothing new this week; the most relevant from the last 30
    /// days." (or how many of its papers are this week's, when some are).
    pub fn note(&self) -> String {
        let days = self.days;
        match self.new_this_week {
            0 => format!("Nothing new this week; the most relevant from the last {days} days."),
            1 => format!("Only one new paper this week; with it, the most relevant from the last {days} days."),
            many => format!("Only {many} new papers this week; with them, the most relevant from the last {days} days."),
        }
    }
}
