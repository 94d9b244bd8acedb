//! The `http` scenario's users made the size of a real dashboard: each on the Pro plan with
//! [`TERMS_PER_USER`] search terms and [`WEEKS`] weeks of weekly digests (one per term and week,
//! on top of the immediate search's), over papers generated for each of those weeks.
//!
//! The server is stopped meanwhile (the database is one process's): the papers are indexed,
//! the plans set and the terms added in this process, and the weeks served by the production
//! weekly pass on the system as `papertide weekly` starts it (`runtime::System`, the scheduler's
//! `serve_due_users`) on the Mondays after signup. The digests' mails are
//! queued as a pass queues them, and the server sends them to its outbox when it starts again.

use std::path::Path;

use actors::scheduler::serve_due_users;
use anyhow::{bail, Context};
use chrono::{Duration, Utc};
use engine::search_term::{SearchTerm, TermId};
use engine::{Tier, UserId};
use uuid::Uuid;

use crate::digest::{build_index_range, next_monday, settings, HOUR, TOPICS};

/// Search terms each user has: the Pro plan's limit.
pub const TERMS_PER_USER: usize = 5;
/// Weeks of weekly digests each user has: with the terms, 20 digests.
pub const WEEKS: usize = 4;
/// Papers generated for each week.
pub const PAPERS_PER_WEEK: usize = 500;

/// What the users were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filled {
    /// Weekly digests recorded, for every user together.
    pub weekly_digests: usize,
    pub papers: u64,
}

/// Gives each of `users` (ids as the server answered them) the Pro plan, terms up to
/// [`TERMS_PER_USER`] and [`WEEKS`] weeks of digests, in the data directory of a stopped server.
pub fn fill(data_dir: &Path, users: &[String]) -> anyhow::Result<Filled> {
    let runner = actix_rt::System::new();
    let system = runner
        .block_on(async { runtime::System::start(&settings(data_dir)?, runtime::Options::command()) })
        .context("the server's data directory")?;
    let (store, index) = (&system.store, &system.index);
    let now = Utc::now();
    for id in users {
        let user_id: UserId = id.parse().map_err(|_| anyhow::anyhow!("a user id the server answered: {id}"))?;
        store.billing().set_plan(user_id, Tier::Pro)?;
        let has = store.terms().of_user(user_id)?.len();
        // The topics from the eighth on, after the immediate search's term.
        for (offset, text) in TOPICS.iter().cycle().skip(7).take(TERMS_PER_USER.saturating_sub(has)).enumerate() {
            let term = SearchTerm::new(TermId(Uuid::new_v4()), user_id, (*text).to_owned(), Tier::Pro, now + Duration::seconds(offset as i64));
            store.terms().add(&term, Tier::Pro, false)?;
        }
    }
    // The first Monday that may carry a weekly digest after signup, then one a week.
    let first = next_monday(now + Duration::days(engine::digest::WEEKLY_GAP_DAYS + 1));
    let mut weekly_digests = 0;
    for week in 0..WEEKS {
        let monday = first + Duration::weeks(week as i64);
        let numbers = week * PAPERS_PER_WEEK..(week + 1) * PAPERS_PER_WEEK;
        build_index_range(index, numbers, monday.date_naive() - Duration::days(1))?;
        let served = runner.block_on(serve_due_users(store, &system.users, monday, HOUR));
        let served = served.map_err(|error| anyhow::anyhow!("the weekly pass: {error}"))?;
        if served != users.len() * TERMS_PER_USER {
            bail!("week {} of the dashboards served {served} digests, not {}", week + 1, users.len() * TERMS_PER_USER);
        }
        weekly_digests += served;
    }
    let papers = index.paper_count()?;
    runner.block_on(system.shutdown())?;
    Ok(Filled { weekly_digests, papers })
}
