//! The one retry backoff: a wait that doubles with each failure in a row, up to a cap.
//!
//! Every retrying part of Papertide (the sources' HTTP client, the mailer, the vectorizer, the
//! harvest schedule) takes its wait from [`doubling`] with its own base and cap, and adds its own
//! jitter where many clients could retry together.

use std::time::Duration;

/// The wait after `failures` failures in a row (1 for the first; 0 waits as 1): `base · 2^(failures-1)`,
/// never more than `cap`. Saturates instead of overflowing for any `failures`.
pub fn doubling(base: Duration, cap: Duration, failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(31);
    base.saturating_mul(1u32 << doublings).min(cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_millis(100);
    const CAP: Duration = Duration::from_secs(2);

    #[test]
    fn the_wait_doubles_from_the_base_then_stays_at_the_cap() {
        let waits: Vec<u128> = (1..=6).map(|failures| doubling(BASE, CAP, failures).as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 2000]);
        assert_eq!(doubling(BASE, CAP, 0), BASE, "no failure yet waits as the first");
    }

    #[test]
    fn huge_failure_counts_and_bases_saturate_at_the_cap() {
        assert_eq!(doubling(BASE, CAP, u32::MAX), CAP);
        assert_eq!(doubling(Duration::MAX, Duration::MAX, 40), Duration::MAX);
    }
}
