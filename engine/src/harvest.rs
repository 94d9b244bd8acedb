//! The harvest's bookkeeping, one [`HarvestState`] per source: which days are done (the
//! cursor), when to run next, and what the last runs did. Pure rules; the harvester actor and
//! `papertide harvest` pass the clock in and persist the state.
//!
//! Rules:
//! - A source is harvested **by day** (the source's own calendar day), oldest first. A day
//!   before yesterday (UTC), once fetched and indexed, is *complete*: the cursor moves onto it
//!   if it follows the cursor without a gap. Yesterday and today are fetched too but do not
//!   complete: papers still arrive for them (PubMed's days are US Eastern, behind UTC, and
//!   sources index late), so the next run fetches them again; deduplication makes the repeat
//!   harmless.
//! - The next automatic run covers the day after the cursor through today; with no cursor
//!   (first run) the last `lookback_days` days; never more than [`MAX_CATCH_UP_DAYS`] days (a
//!   service that was off for months catches up on the recent past; `papertide harvest --since`
//!   fills older gaps).
//! - Runs are daily at a configured UTC hour. A run that is due (no success since the last
//!   slot) starts at once, so a service started after its slot does not wait a day. A failed
//!   run is retried after a backoff that doubles from [`RETRY_BASE`] to [`RETRY_CAP`], but never
//!   later than the next daily slot.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, Utc};
use serde::{Deserialize, Serialize};

/// The most days one automatic run goes back.
pub const MAX_CATCH_UP_DAYS: u32 = 31;
/// The wait after a first failure.
pub const RETRY_BASE: Duration = Duration::minutes(2);
/// The longest wait between retries.
pub const RETRY_CAP: Duration = Duration::hours(6);
/// Error messages kept in the state are cut to this many characters.
const MAX_ERROR_CHARS: usize = 500;

/// What one source's harvest has done so far; persisted between runs and restarts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HarvestState {
    /// The last day known complete: every day up to it (since the first run) is in the index.
    pub cursor: Option<NaiveDate>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    /// Failed runs since the last success; drives the retry backoff.
    pub consecutive_failures: u32,
    /// The Monday of the week that `papers_this_week` counts.
    pub week_of: Option<NaiveDate>,
    /// New works this source brought into the index this week (ISO week, Monday first).
    pub papers_this_week: u64,
    /// Every record this source delivered, ever (including repeats and merges).
    pub records_total: u64,
    /// New works this source brought into the index, ever.
    pub papers_added_total: u64,
    /// Runs that failed, ever.
    pub failures_total: u64,
    /// The last day finished, with what it did.
    pub last_day: Option<DayReport>,
}

/// What harvesting one day did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayReport {
    pub day: NaiveDate,
    /// Records received (papers and unreadable records).
    pub received: u64,
    pub added: u64,
    pub merged: u64,
    pub unchanged: u64,
    /// Records that could not be read.
    pub rejected: u64,
}

impl HarvestState {
    /// The days the next automatic run should fetch, oldest first: the day after the cursor
    /// (or `lookback_days` back on a first run) through `today`, at most [`MAX_CATCH_UP_DAYS`].
    pub fn days_due(&self, today: NaiveDate, lookback_days: u32) -> (NaiveDate, NaiveDate) {
        let earliest = today - Duration::days(i64::from(MAX_CATCH_UP_DAYS.max(1) - 1));
        let first_run_start = today - Duration::days(i64::from(lookback_days.max(1) - 1));
        let from = match self.cursor {
            Some(cursor) if cursor < today => cursor + Duration::days(1),
            Some(_) => today,
            None => first_run_start,
        };
        (from.max(earliest), today)
    }

    /// Records a finished day: counts it, and moves the cursor onto it when it is complete
    /// (before yesterday) and follows the cursor without a gap.
    pub fn record_day(&mut self, report: DayReport, today: NaiveDate) {
        let follows_cursor = self.cursor.is_none_or(|cursor| report.day <= cursor + Duration::days(1));
        if report.day < today - Duration::days(1) && follows_cursor {
            self.cursor = Some(self.cursor.map_or(report.day, |cursor| cursor.max(report.day)));
        }
        let monday = week_of(today);
        if self.week_of != Some(monday) {
            self.week_of = Some(monday);
            self.papers_this_week = 0;
        }
        self.papers_this_week += report.added;
        self.papers_added_total += report.added;
        self.records_total += report.received;
        self.last_day = Some(report);
    }

    /// Records a run that fetched every day it set out to.
    pub fn record_success(&mut self, now: DateTime<Utc>) {
        self.last_success_at = Some(now);
        self.consecutive_failures = 0;
        if self.week_of != Some(week_of(now.date_naive())) {
            self.week_of = Some(week_of(now.date_naive()));
            self.papers_this_week = 0;
        }
    }

    /// Records a run that stopped on an error (the days finished before it stay recorded).
    pub fn record_failure(&mut self, now: DateTime<Utc>, error: &str) {
        self.last_error_at = Some(now);
        self.last_error = Some(error.chars().take(MAX_ERROR_CHARS).collect());
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        self.failures_total += 1;
    }

    /// New works this week as of `today`: none once a new week has begun without a harvest.
    pub fn papers_in_week_of(&self, today: NaiveDate) -> u64 {
        if self.week_of == Some(week_of(today)) {
            self.papers_this_week
        } else {
            0
        }
    }

    /// Whether the last run succeeded (or none has failed yet).
    pub fn is_healthy(&self) -> bool {
        self.consecutive_failures == 0
    }

    /// When the next run should start: at once if one is due, after the retry backoff if the
    /// last run failed, else at the next daily slot (`hour`, UTC).
    pub fn next_run_at(&self, now: DateTime<Utc>, hour: u32) -> DateTime<Utc> {
        let today_slot = slot(now.date_naive(), hour);
        let last_slot = if now >= today_slot { today_slot } else { today_slot - Duration::days(1) };
        let next_slot = last_slot + Duration::days(1);
        if self.consecutive_failures > 0 {
            let failed_at = self.last_error_at.unwrap_or(now);
            return (failed_at + retry_delay(self.consecutive_failures)).min(next_slot).max(now);
        }
        match self.last_success_at {
            Some(success) if success >= last_slot => next_slot,
            _ => now,
        }
    }
}

/// The wait before retry number `failures` (1 for the first): doubling from [`RETRY_BASE`],
/// capped at [`RETRY_CAP`].
pub fn retry_delay(failures: u32) -> Duration {
    // Both constants are positive and far below the limits: no conversion here fails.
    let (base, cap) = (RETRY_BASE.to_std().unwrap_or_default(), RETRY_CAP.to_std().unwrap_or_default());
    Duration::from_std(crate::backoff::doubling(base, cap, failures)).unwrap_or(RETRY_CAP)
}

/// The Monday of `day`'s ISO week.
pub fn week_of(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(day.weekday().num_days_from_monday()))
}

/// Every day from `from` to `to`, inclusive, oldest first.
pub fn days(from: NaiveDate, to: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    from.iter_days().take_while(move |day| *day <= to)
}

fn slot(day: NaiveDate, hour: u32) -> DateTime<Utc> {
    let time = NaiveTime::from_hms_opt(hour.min(23), 0, 0).unwrap_or(NaiveTime::MIN);
    day.and_time(time).and_utc()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().expect("a date")
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().expect("a timestamp")
    }

    fn report(text: &str, added: u64) -> DayReport {
        DayReport { day: day(text), received: added, added, ..DayReport::default() }
    }

    #[test]
    fn a_first_run_looks_back_and_later_runs_start_after_the_cursor() {
        let state = HarvestState::default();
        assert_eq!(state.days_due(day("2026-11-22"), 7), (day("2026-11-16"), day("2026-11-22")));
        assert_eq!(state.days_due(day("2026-11-22"), 1), (day("2026-11-22"), day("2026-11-22")));
        let state = HarvestState { cursor: Some(day("2026-11-20")), ..HarvestState::default() };
        assert_eq!(state.days_due(day("2026-11-22"), 7), (day("2026-11-21"), day("2026-11-22")));
        let caught_up = HarvestState { cursor: Some(day("2026-11-22")), ..HarvestState::default() };
        assert_eq!(caught_up.days_due(day("2026-11-22"), 7), (day("2026-11-22"), day("2026-11-22")));
        let months_behind = HarvestState { cursor: Some(day("2026-01-01")), ..HarvestState::default() };
        assert_eq!(months_behind.days_due(day("2026-11-22"), 7), (day("2026-10-23"), day("2026-11-22")));
    }

    #[test]
    fn the_cursor_moves_over_complete_days_without_gaps_and_never_onto_the_last_two() {
        let today = day("2026-11-22");
        let mut state = HarvestState::default();
        state.record_day(report("2026-11-19", 3), today);
        assert_eq!(state.cursor, Some(day("2026-11-19")));
        state.record_day(report("2026-11-20", 2), today);
        assert_eq!(state.cursor, Some(day("2026-11-20")));
        state.record_day(report("2026-11-21", 4), today);
        state.record_day(report("2026-11-22", 4), today);
        assert_eq!(state.cursor, Some(day("2026-11-20")), "yesterday and today are not complete");
        state.record_day(report("2026-11-10", 1), today);
        assert_eq!(state.cursor, Some(day("2026-11-20")), "an older day does not move the cursor back");

        let mut gap = HarvestState { cursor: Some(day("2026-11-01")), ..HarvestState::default() };
        gap.record_day(report("2026-11-10", 1), today);
        assert_eq!(gap.cursor, Some(day("2026-11-01")), "a day after a gap does not move the cursor");
        assert_eq!((gap.papers_this_week, gap.records_total), (1, 1));
    }

    #[test]
    fn the_weekly_count_starts_again_on_monday() {
        let mut state = HarvestState::default();
        state.record_day(report("2026-11-21", 5), day("2026-11-22"));
        state.record_day(report("2026-11-22", 2), day("2026-11-22"));
        assert_eq!((state.week_of, state.papers_this_week), (Some(day("2026-11-16")), 7));
        state.record_day(report("2026-11-23", 4), day("2026-11-23"));
        assert_eq!((state.week_of, state.papers_this_week, state.papers_added_total), (Some(day("2026-11-23")), 4, 11));
        assert_eq!(state.papers_in_week_of(day("2026-11-29")), 4);
        assert_eq!(state.papers_in_week_of(day("2026-11-30")), 0, "a week without a harvest counts none");
    }

    #[test]
    fn runs_are_daily_at_the_slot_and_a_missed_slot_runs_at_once() {
        let never_run = HarvestState::default();
        assert_eq!(never_run.next_run_at(at("2026-11-22T01:00:00Z"), 4), at("2026-11-22T01:00:00Z"));

        let ran_after_slot = HarvestState { last_success_at: Some(at("2026-11-22T04:05:00Z")), ..HarvestState::default() };
        assert_eq!(ran_after_slot.next_run_at(at("2026-11-22T10:00:00Z"), 4), at("2026-11-23T04:00:00Z"));

        let ran_yesterday = HarvestState { last_success_at: Some(at("2026-11-21T04:05:00Z")), ..HarvestState::default() };
        assert_eq!(ran_yesterday.next_run_at(at("2026-11-22T02:00:00Z"), 4), at("2026-11-22T04:00:00Z"));
        assert_eq!(ran_yesterday.next_run_at(at("2026-11-22T06:00:00Z"), 4), at("2026-11-22T06:00:00Z"), "missed slot: due now");
    }

    #[test]
    fn failures_back_off_doubling_but_never_past_the_next_slot() {
        assert_eq!(retry_delay(1), Duration::minutes(2));
        assert_eq!(retry_delay(2), Duration::minutes(4));
        assert_eq!(retry_delay(5), Duration::minutes(32));
        assert_eq!(retry_delay(40), RETRY_CAP);

        let mut state = HarvestState::default();
        state.record_failure(at("2026-11-22T04:00:00Z"), "PubMed: HTTP 500");
        assert_eq!(state.next_run_at(at("2026-11-22T04:00:01Z"), 4), at("2026-11-22T04:02:00Z"));
        state.record_failure(at("2026-11-22T04:02:00Z"), "PubMed: HTTP 500");
        assert_eq!(state.next_run_at(at("2026-11-22T04:02:01Z"), 4), at("2026-11-22T04:06:00Z"));
        assert!(!state.is_healthy());
        for _ in 0..10 {
            state.record_failure(at("2026-11-23T01:00:00Z"), "down");
        }
        assert_eq!(state.next_run_at(at("2026-11-23T01:00:00Z"), 4), at("2026-11-23T04:00:00Z"), "capped by the next slot");

        state.record_success(at("2026-11-23T04:01:00Z"));
        assert!(state.is_healthy());
        assert_eq!(state.failures_total, 12);
        assert_eq!(state.last_error.as_deref(), Some("down"), "the last error stays visible after recovery");
    }

    #[test]
    fn long_errors_are_cut() {
        let mut state = HarvestState::default();
        state.record_failure(at("2026-11-22T04:00:00Z"), &"x".repeat(2_000));
        assert_eq!(state.last_error.map(|error| error.len()), Some(MAX_ERROR_CHARS));
    }

    #[test]
    fn days_are_listed_inclusively() {
        let listed: Vec<NaiveDate> = days(day("2026-11-29"), day("2026-12-02")).collect();
        assert_eq!(listed, vec![day("2026-11-29"), day("2026-11-30"), day("2026-12-01"), day("2026-12-02")]);
        assert_eq!(days(day("2026-11-22"), day("2026-11-21")).count(), 0);
    }
}
