//! The service in numbers: accounts by state and plan, operators, active terms, digests, and
//! sign-ups and digests by ISO week.

use actix_web::web;
use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use engine::Tier;

use crate::auth::{is_operator, Operator};
use crate::error::ApiResult;
use crate::routes::ApiRoutes;
use crate::state::AppState;
use crate::wire::admin::{AdminStats, WeekCount};

/// How many ISO weeks the counts by week cover, the current one included.
pub const WEEKS_SHOWN: usize = 12;

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/admin/stats", stats);
}

/// `GET /api/admin/stats`.
async fn stats(state: web::Data<AppState>, _operator: Operator) -> ApiResult<web::Json<AdminStats>> {
    let stats = web::block(move || count(&state, Utc::now())).await??;
    Ok(web::Json(stats))
}

/// Reads every account once (and every digest's key): run off the async threads.
fn count(state: &AppState, now: DateTime<Utc>) -> ApiResult<AdminStats> {
    let users = state.store.accounts().users()?;
    let mut digests_sent = 0;
    for user in &users {
        digests_sent += state.store.digests().ledger(user.id)?.received;
    }
    let on_plan = |tier: Tier| users.iter().filter(|user| user.subscription_tier == tier).count() as u64;
    let signups = users.iter().map(|user| user.created_at);
    let digests = state.store.digests().digest_sent_times()?;
    Ok(AdminStats {
        users: users.len() as u64,
        verified: users.iter().filter(|user| user.is_email_verified).count() as u64,
        disabled: users.iter().filter(|user| !user.is_active).count() as u64,
        free: on_plan(Tier::Free),
        pro: on_plan(Tier::Pro),
        team: on_plan(Tier::Team),
        operators: users.iter().filter(|user| is_operator(user, &state.settings)).count() as u64,
        active_terms: state.store.terms().active_term_count()?,
        digests_sent,
        signups_by_week: by_week(signups, now),
        digests_by_week: by_week(digests.into_iter(), now),
    })
}

/// The last [`WEEKS_SHOWN`] ISO weeks up to `now`'s, oldest first, each with how many of `times`
/// fall in it (none: 0).
pub fn by_week(times: impl Iterator<Item = DateTime<Utc>>, now: DateTime<Utc>) -> Vec<WeekCount> {
    let this_monday = monday_of(now.date_naive());
    let first_monday = this_monday - Duration::weeks(WEEKS_SHOWN as i64 - 1);
    let mut counts = vec![0u64; WEEKS_SHOWN];
    for at in times {
        let monday = monday_of(at.date_naive());
        if monday < first_monday || monday > this_monday {
            continue;
        }
        let week = usize::try_from((monday - first_monday).num_weeks()).unwrap_or(0);
        if let Some(count) = counts.get_mut(week) {
            *count += 1;
        }
    }
    counts
        .into_iter()
        .enumerate()
        .map(|(week, count)| {
            let monday = first_monday + Duration::weeks(week as i64);
            let iso = monday.iso_week();
            WeekCount { week: format!("{}-W{:02}", iso.year(), iso.week()), count }
        })
        .collect()
}

fn monday_of(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(day.weekday().num_days_from_monday()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().expect("a time")
    }

    #[test]
    fn weeks_are_iso_weeks_oldest_first_with_empty_ones() {
        // 2026-11-28 is a Saturday of ISO week 48.
        let now = at("2026-11-28T12:00:00Z");
        let times = ["2026-11-23T00:00:00Z", "2026-11-29T23:59:59Z", "2026-11-16T08:00:00Z", "2026-09-07T00:00:00Z", "2026-09-06T23:00:00Z"];
        let weeks = by_week(times.iter().map(|text| at(text)), now);
        assert_eq!(weeks.len(), WEEKS_SHOWN);
        assert_eq!(weeks[0], WeekCount { week: "2026-W37".into(), count: 1 }, "Monday 7 September opens week 37; the Sunday before is out");
        assert_eq!(weeks[10], WeekCount { week: "2026-W47".into(), count: 1 });
        assert_eq!(weeks[11], WeekCount { week: "2026-W48".into(), count: 2 }, "Monday 00:00 to Sunday 23:59 of the current week");
        assert_eq!(weeks.iter().map(|week| week.count).sum::<u64>(), 4);
    }

    #[test]
    fn weeks_cross_the_new_year_by_iso_year() {
        let weeks = by_week(std::iter::once(at("2027-01-01T10:00:00Z")), at("2027-01-05T00:00:00Z"));
        assert_eq!(weeks[11].week, "2027-W01");
        assert_eq!(weeks[10], WeekCount { week: "2026-W53".into(), count: 1 }, "1 January 2027 is a Friday of 2026's week 53");
    }
}
