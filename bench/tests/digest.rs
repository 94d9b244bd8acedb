//! The `digest` scenario, small: every simulated user is due on the run's Monday and gets one
//! digest per term through the production weekly pass, and papers go out.

#[test]
fn every_user_gets_a_digest_per_term_on_their_delivery_day() -> anyhow::Result<()> {
    let run = bench::digest::run(12, 2_000)?;
    assert_eq!(run.users, 12);
    assert_eq!(run.digests, 36, "3 terms each: {run:?}");
    assert!(run.papers_sent > 0, "the generated week matches the simulated topics: {run:?}");
    Ok(())
}
