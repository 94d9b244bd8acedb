//! The `digest` scenario: N users with 3 search terms each over an index of M papers entered this
//! week; every user's digests built (expanded search, scoring, summaries), rendered and queued,
//! not sent — the weekly work of the scheduler, measured.

use std::time::Instant;

use actors::Digester;
use anyhow::Context;
use chrono::Utc;
use engine::mail::MailContext;
use engine::parse::parse_any;
use engine::{Preferences, Tier, UserId};
use index::PaperIndex;
use store::{NewAccount, Store, User};
use uuid::Uuid;

use crate::workload;

/// Topics the simulated users follow: words and phrases the generated week's papers use.
const TOPICS: &[&str] = &[
    "cancer", "tumor suppression", "gene expression", "protein folding", "cell proliferation", "RNA interference",
    "breast cancer", "signaling network", "histone methylation", "microRNA", "mass spectrometry", "neural networks",
    "deep learning", "quantum computing", "galaxy formation", "epidemiology", "vaccine", "immune response", "stem cells",
    "drug resistance", "genome sequencing", "machine learning", "climate", "diabetes", "Alzheimer's disease",
];

/// What a run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DigestRun {
    pub users: usize,
    pub papers: u64,
    pub digests: usize,
    pub papers_sent: usize,
    pub index_seconds: f64,
    pub digest_seconds: f64,
}

/// Builds an index of about `papers` papers entered today and `users` users with 3 terms each,
/// then every user's digests.
pub fn run(users: usize, papers: usize) -> anyhow::Result<DigestRun> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let index = PaperIndex::open_or_create(&dir.path().join("index")).context("the index")?;
    let started = Instant::now();
    let today = Utc::now().date_naive();
    {
        let threads = std::thread::available_parallelism().unwrap_or(std::num::NonZeroUsize::MIN);
        let mut writer = index.writer_with_threads(256 * 1024 * 1024, threads)?;
        for body in workload::build_week(papers).bodies {
            for mut paper in parse_any(&body).1.items {
                paper.entered = Some(today);
                writer.upsert(paper)?;
            }
        }
        writer.commit()?;
    }
    let index_seconds = started.elapsed().as_secs_f64();

    let store = Store::open(&dir.path().join("db")).context("the database")?;
    let now = Utc::now();
    let mut accounts: Vec<(User, Vec<&str>)> = Vec::with_capacity(users);
    for number in 0..users {
        let mut user = User::new(UserId(Uuid::new_v4()), &format!("user{number}@bench.example.org"), String::new(), now);
        user.is_email_verified = true;
        user.subscription_tier = if number % 4 == 0 { Tier::Pro } else { Tier::Free };
        let user = store.create_account(NewAccount { user, preferences: Preferences::default(), verification: None, mail: None }, now)?;
        let terms = (0..3).map(|offset| TOPICS[(number * 3 + offset) % TOPICS.len()]).collect();
        accounts.push((user, terms));
    }

    let mail = MailContext { public_url: "https://papers.example.org".into(), support_email: "help@papers.example.org".into() };
    let digester = Digester::new(store.clone(), index.clone(), mail);
    let started = Instant::now();
    let (mut digests, mut papers_sent) = (0, 0);
    for (user, terms) in &accounts {
        for term in terms {
            let digest = digester.run(user, term, "weekly", now)?;
            digests += 1;
            papers_sent += digest.papers_data.len();
        }
    }
    let digest_seconds = started.elapsed().as_secs_f64();
    Ok(DigestRun { users, papers: index.paper_count()?, digests, papers_sent, index_seconds, digest_seconds })
}
