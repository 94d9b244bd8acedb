//! The retry arithmetic, as pure functions: capped exponential backoff with jitter, and the
//! `Retry-After` header.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// The wait before retry number `retry` (1 for the first): the [`engine::backoff::doubling`]
/// step from `base` to `cap`, of which the upper half is scaled by `unit_random` (in
/// `0.0..=1.0`), so that clients that failed together do not all come back together ("equal
/// jitter": never less than half the exponential step).
pub fn backoff_delay(base: Duration, cap: Duration, retry: u32, unit_random: f64) -> Duration {
    let step = engine::backoff::doubling(base, cap, retry);
    let half = step / 2;
    let jitter = half.mul_f64(unit_random.clamp(0.0, 1.0));
    half + jitter
}

/// How long a `Retry-After` header asks to wait: delay-seconds (`120`) or an HTTP date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`), relative to `now`. `None` for anything else; a date in the
/// past is no wait.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let trimmed = value.trim();
    if let Ok(seconds) = trimmed.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = DateTime::parse_from_rfc2822(trimmed).ok()?.with_timezone(&Utc);
    Some((date - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    const BASE: Duration = Duration::from_millis(100);
    const CAP: Duration = Duration::from_secs(2);

    #[test]
    fn backoff_doubles_then_stays_at_the_cap() {
        let most = |retry| backoff_delay(BASE, CAP, retry, 1.0);
        let least = |retry| backoff_delay(BASE, CAP, retry, 0.0);
        assert_eq!([most(1), most(2), most(3), most(4)].map(|delay| delay.as_millis()), [100, 200, 400, 800]);
        assert_eq!(most(6), CAP);
        assert_eq!(most(40), CAP, "large retry numbers must not overflow");
        assert_eq!(least(1), Duration::from_millis(50));
        assert_eq!(least(40), CAP / 2);
    }

    #[test]
    fn jitter_stays_within_half_a_step() {
        for tenth in 0..=10 {
            let delay = backoff_delay(BASE, CAP, 3, f64::from(tenth) / 10.0);
            assert!((Duration::from_millis(200)..=Duration::from_millis(400)).contains(&delay), "{delay:?}");
        }
        assert_eq!(backoff_delay(BASE, CAP, 3, 7.0), Duration::from_millis(400), "out-of-range randomness is clamped");
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = Utc.with_ymd_and_hms(2015, 10, 21, 7, 27, 0).single().expect("a date");
        assert_eq!(parse_retry_after(" 1 ", now), Some(Duration::from_secs(1)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(Duration::from_secs(60)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }
}
