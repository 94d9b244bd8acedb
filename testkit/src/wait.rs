//! Polling until something holds: the one way the suites wait for an asynchronous effect (a
//! mail, a drained queue, a server that answers), each with a limit so a test fails instead of
//! hanging.

use std::future::Future;
use std::time::{Duration, Instant};

/// Calls `check` every `every` until it answers `Some`, and answers that; `None` when `limit`
/// passed first (`check` runs at least once, and once more after the last sleep).
pub async fn until<T>(limit: Duration, every: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = check() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(every).await;
    }
}

/// [`until`] with a check that is itself asynchronous (an HTTP request).
pub async fn until_async<T, F, Fut>(limit: Duration, every: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = check().await {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(every).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn answers_the_first_value_found_or_none_after_the_limit() {
        let mut calls = 0;
        let found = until(Duration::from_secs(5), Duration::from_millis(1), || {
            calls += 1;
            (calls == 3).then_some(calls)
        })
        .await;
        assert_eq!(found, Some(3));
        let started = Instant::now();
        let never: Option<()> = until_async(Duration::from_millis(30), Duration::from_millis(5), || async { None }).await;
        assert_eq!(never, None);
        assert!(started.elapsed() >= Duration::from_millis(30));
    }
}
