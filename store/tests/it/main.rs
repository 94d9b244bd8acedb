//! Integration tests of the store on real sled databases, temporary or on disk.

use std::sync::{Arc, Barrier};

use chrono::{DateTime, Duration, TimeZone, Utc};
use engine::mail::RenderedMail;
use engine::{DeliveryDay, Preferences, Tier, UserId};
use store::{NewAccount, Session, Store, StoreError, TokenHash, TokenPurpose, User};
use uuid::Uuid;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 2, 9, 0, 0).single().expect("valid time")
}

fn mail(to: &str, subject: &str) -> RenderedMail {
    RenderedMail { to: to.into(), subject: subject.into(), html: "<p>hi</p>".into(), text: "hi".into(), action_url: None, list_unsubscribe: None }
}

fn signup(store: &Store, email: &str, token: &str) -> Result<User, StoreError> {
    let user = User::new(UserId(Uuid::new_v4()), email, "hash".into(), now());
    store.accounts().create(
        NewAccount {
            user,
            preferences: Preferences::default(),
            verification: Some((TokenHash::of(token), now() + Duration::hours(48))),
            mail: Some(mail(email, "Verify")),
        },
        now(),
    )
}

fn session_for(user: &User, at: DateTime<Utc>) -> Session {
    Session { user_id: user.id, epoch: user.session_epoch, created_at: at, expires_at: at + Duration::days(30), ip_address: None }
}

#[test]
fn reopening_after_close_keeps_everything() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("db");
    let user_id = {
        let store = Store::open(&path)?;
        let user = signup(&store, "Ada@Example.org", "verify-1")?;
        let preferences = Preferences { delivery_day: DeliveryDay::Friday, ..Preferences::default() };
        store.accounts().put_preferences(user.id, &preferences)?;
        store.accounts().create_session(TokenHash::of("cookie"), &session_for(&user, now()))?;
        store.accounts().update_user(user.id, |user| user.subscription_tier = Tier::Pro)?;
        store.flush()?;
        user.id
    };
    let store = Store::open(&path)?;
    let user = store.accounts().user_by_email("ada@example.org")?.ok_or("user lost")?;
    assert_eq!(user.id, user_id);
    assert_eq!(user.subscription_tier, Tier::Pro);
    assert_eq!(store.accounts().preferences(user_id)?.delivery_day, DeliveryDay::Friday);
    assert!(store.accounts().session_user(TokenHash::of("cookie"), now())?.is_some());
    assert_eq!(store.mail().queued()?.len(), 1);
    assert!(store.accounts().verify_email(TokenHash::of("verify-1"), now(), |u| mail(&u.email, "Welcome"))?.is_some());
    Ok(())
}

#[test]
fn a_second_process_cannot_open_the_same_database() -> TestResult {
    let dir = tempfile::tempdir()?;
    let _first = Store::open(dir.path())?;
    let second = Store::open(dir.path());
    assert!(matches!(second, Err(StoreError::Locked { .. })), "got {:?}", second.err());
    Ok(())
}

#[test]
fn two_concurrent_signups_of_one_email_make_exactly_one_account() -> TestResult {
    for round in 0..20 {
        let store = Store::temporary()?;
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = ["race@example.org", " RACE@example.org "]
            .into_iter()
            .map(|email| {
                let (store, barrier) = (store.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    signup(&store, email, &format!("token-{round}-{email}"))
                })
            })
            .collect();
        let outcomes: Vec<_> = handles.into_iter().map(|handle| handle.join().expect("thread")).collect();
        let created = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
        let duplicates = outcomes.iter().filter(|outcome| matches!(outcome, Err(StoreError::DuplicateEmail))).count();
        assert_eq!((created, duplicates), (1, 1), "round {round}: {outcomes:?}");
        assert_eq!(store.accounts().user_count(), 1);
        assert_eq!(store.mail().queued()?.len(), 1, "the losing signup queued mail");
    }
    Ok(())
}

#[test]
fn a_duplicate_signup_writes_nothing() -> TestResult {
    let store = Store::temporary()?;
    signup(&store, "ada@example.org", "a")?;
    let duplicate = signup(&store, "ADA@example.org", "b");
    assert!(matches!(duplicate, Err(StoreError::DuplicateEmail)));
    assert_eq!(store.accounts().user_count(), 1);
    assert_eq!(store.mail().queued()?.len(), 1);
    assert!(store.accounts().verify_email(TokenHash::of("b"), now(), |u| mail(&u.email, "Welcome"))?.is_none());
    Ok(())
}

#[test]
fn verification_tokens_work_once_and_queue_the_welcome_mail() -> TestResult {
    let store = Store::temporary()?;
    signup(&store, "ada@example.org", "verify")?;
    let verified = store.accounts().verify_email(TokenHash::of("verify"), now(), |u| mail(&u.email, "Welcome"))?;
    let verified = verified.ok_or("token rejected")?;
    assert!(verified.is_email_verified);
    assert_eq!(verified.email_verification_token, None);
    let subjects: Vec<String> = store.mail().queued()?.into_iter().map(|q| q.mail.subject).collect();
    assert_eq!(subjects, vec!["Verify", "Welcome"]);
    let reused = store.accounts().verify_email(TokenHash::of("verify"), now(), |u| mail(&u.email, "Welcome"))?;
    assert!(reused.is_none(), "a token worked twice");
    Ok(())
}

#[test]
fn expired_and_superseded_tokens_are_refused() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "first")?;
    let late = now() + Duration::hours(49);
    assert!(store.accounts().verify_email(TokenHash::of("first"), late, |u| mail(&u.email, "W"))?.is_none());

    store.accounts().issue_token(
        user.id,
        TokenPurpose::EmailVerification,
        TokenHash::of("second"),
        now() + Duration::hours(48),
        &mail("a", "V2"),
        now(),
    )?;
    store.accounts().issue_token(
        user.id,
        TokenPurpose::EmailVerification,
        TokenHash::of("third"),
        now() + Duration::hours(48),
        &mail("a", "V3"),
        now(),
    )?;
    assert!(store.accounts().verify_email(TokenHash::of("second"), now(), |u| mail(&u.email, "W"))?.is_none(), "superseded token worked");
    assert!(store.accounts().verify_email(TokenHash::of("third"), now(), |u| mail(&u.email, "W"))?.is_some());
    Ok(())
}

#[test]
fn a_reset_token_cannot_verify_and_a_reset_ends_every_session() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "verify")?;
    store.accounts().create_session(TokenHash::of("laptop"), &session_for(&user, now()))?;
    store.accounts().create_session(TokenHash::of("phone"), &session_for(&user, now()))?;
    store.accounts().issue_token(
        user.id,
        TokenPurpose::PasswordReset,
        TokenHash::of("reset"),
        now() + Duration::hours(1),
        &mail("a", "Reset"),
        now(),
    )?;
    assert!(store.accounts().verify_email(TokenHash::of("reset"), now(), |u| mail(&u.email, "W"))?.is_none());

    let changed = store.accounts().reset_password(TokenHash::of("reset"), "new-hash", now())?.ok_or("reset refused")?;
    assert_eq!(changed.password_hash, "new-hash");
    assert!(store.accounts().session_user(TokenHash::of("laptop"), now())?.is_none());
    assert!(store.accounts().session_user(TokenHash::of("phone"), now())?.is_none());
    assert!(store.accounts().reset_password(TokenHash::of("reset"), "again", now())?.is_none(), "reset token reused");

    let fresh = store.accounts().user(user.id)?.ok_or("user gone")?;
    store.accounts().create_session(TokenHash::of("new"), &session_for(&fresh, now()))?;
    assert!(store.accounts().session_user(TokenHash::of("new"), now())?.is_some());
    assert_eq!(store.accounts().purge_expired_sessions(now())?, 0, "void sessions were already dropped on lookup");
    Ok(())
}

#[test]
fn a_signed_in_read_sees_every_change_to_the_user_at_once() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "verify")?;
    store.accounts().create_session(TokenHash::of("cookie"), &session_for(&user, now()))?;
    let (_, read) = store.accounts().session_user(TokenHash::of("cookie"), now())?.ok_or("signed out")?;
    assert_eq!(read.subscription_tier, Tier::Free);
    // Read twice, so the decoded records are kept; each change must still show on the next read.
    store.accounts().session_user(TokenHash::of("cookie"), now())?.ok_or("signed out")?;
    store.billing().set_plan(user.id, Tier::Pro)?;
    let (_, read) = store.accounts().session_user(TokenHash::of("cookie"), now())?.ok_or("signed out")?;
    assert_eq!(read.subscription_tier, Tier::Pro, "a plan change shows on the next request");
    store.accounts().update_user(user.id, |user| user.session_epoch += 1)?;
    assert!(store.accounts().session_user(TokenHash::of("cookie"), now())?.is_none(), "a new epoch ends the session");
    let fresh = store.accounts().user(user.id)?.ok_or("user gone")?;
    store.accounts().create_session(TokenHash::of("again"), &session_for(&fresh, now()))?;
    store.accounts().session_user(TokenHash::of("again"), now())?.ok_or("signed out")?;
    store.accounts().update_user(user.id, |user| user.is_active = false)?;
    assert!(store.accounts().session_user(TokenHash::of("again"), now())?.is_none(), "a deactivated account is signed out");
    assert_eq!(store.digests().signed_in_ledger(user.id)?, store.digests().ledger(user.id)?);
    Ok(())
}

#[test]
fn sessions_expire_and_purge() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "verify")?;
    store.accounts().create_session(TokenHash::of("s1"), &session_for(&user, now()))?;
    store.accounts().create_session(TokenHash::of("s2"), &session_for(&user, now() - Duration::days(31)))?;
    assert_eq!(store.accounts().session_count(user.id), 2);
    assert_eq!(store.accounts().purge_expired_sessions(now())?, 1);
    assert_eq!(store.accounts().session_count(user.id), 1);
    assert!(store.accounts().session_user(TokenHash::of("s1"), now() + Duration::days(31))?.is_none());
    assert_eq!(store.accounts().delete_sessions_of(user.id)?, 0);
    Ok(())
}

#[test]
fn the_mail_queue_is_fifo_with_retries_and_a_dead_letter_tree() -> TestResult {
    let store = Store::temporary()?;
    let first = store.mail().enqueue(&mail("a@x.org", "one"), now())?;
    let second = store.mail().enqueue(&mail("b@x.org", "two"), now())?;
    assert!(first < second);
    let due: Vec<u64> = store.mail().due(now(), 10)?.into_iter().map(|q| q.id).collect();
    assert_eq!(due, vec![first, second]);

    store.mail().mark_failed(first, "connection refused", now() + Duration::minutes(1))?;
    let due: Vec<u64> = store.mail().due(now(), 10)?.into_iter().map(|q| q.id).collect();
    assert_eq!(due, vec![second]);
    assert_eq!(store.mail().next_attempt_at()?, Some(now()));

    assert_eq!(store.mail().make_all_due(now())?, 1);
    assert_eq!(store.mail().due(now(), 10)?.len(), 2);
    store.mail().mark_sent(second)?;
    store.mail().move_to_dead(first, "550 no such user")?;
    assert_eq!(store.mail().queue_len(), 0);
    let dead = store.mail().dead()?;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].attempts, 2);
    assert_eq!(dead[0].last_error.as_deref(), Some("550 no such user"));
    Ok(())
}

#[test]
fn a_dead_mail_goes_back_to_the_queue_whole_or_is_dropped_once() -> TestResult {
    let store = Store::temporary()?;
    let kept = store.mail().enqueue(&mail("a@x.org", "one"), now())?;
    let dropped = store.mail().enqueue(&mail("b@x.org", "two"), now())?;
    store.mail().move_to_dead(kept, "550 no such user")?;
    store.mail().move_to_dead(dropped, "550 no such user")?;
    assert_eq!(store.mail().dead_by_id(kept)?.map(|dead| dead.mail.subject), Some("one".to_owned()));

    let later = now() + Duration::hours(2);
    assert!(store.mail().retry_dead(kept, later)?);
    let queued = store.mail().due(later, 10)?;
    assert_eq!(queued.iter().map(|queued| queued.id).collect::<Vec<_>>(), vec![kept], "the same id: the same Message-ID");
    assert_eq!((queued[0].attempts, queued[0].next_attempt_at), (0, later), "due now, its attempts counted afresh");
    assert_eq!(queued[0].last_error.as_deref(), Some("550 no such user"), "the last reason stays until the next attempt");
    assert!(store.mail().dead_by_id(kept)?.is_none());
    assert!(!store.mail().retry_dead(kept, later)?, "not dead any more");

    assert!(store.mail().drop_dead(dropped)?);
    assert!(!store.mail().drop_dead(dropped)?, "dropped once");
    assert_eq!((store.mail().dead_len(), store.mail().queue_len()), (0, 1));
    Ok(())
}

#[test]
fn disabling_an_account_ends_its_sessions_and_enabling_keeps_them_ended() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "verify")?;
    store.accounts().create_session(TokenHash::of("laptop"), &session_for(&user, now()))?;
    let disabled = store.accounts().set_disabled(user.id, true)?;
    assert!(!disabled.is_active);
    assert_eq!(store.accounts().session_count(user.id), 0);
    assert!(store.accounts().session_user(TokenHash::of("laptop"), now())?.is_none());
    let enabled = store.accounts().set_disabled(user.id, false)?;
    assert!(enabled.is_active);
    assert_eq!(enabled.session_epoch, disabled.session_epoch, "enabling signs nobody back in");
    store.accounts().create_session(TokenHash::of("laptop"), &session_for(&user, now()))?;
    assert!(store.accounts().session_user(TokenHash::of("laptop"), now())?.is_none(), "a session of the old epoch stays void");
    Ok(())
}

#[test]
fn update_user_cannot_change_identity() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "v")?;
    let changed = store.accounts().update_user(user.id, |user| {
        user.email = "mallory@example.org".into();
        user.is_admin = true;
    })?;
    assert_eq!(changed.email, "ada@example.org");
    assert!(changed.is_admin);
    assert!(store.accounts().user_by_email("mallory@example.org")?.is_none());
    assert!(matches!(store.accounts().update_user(UserId(Uuid::new_v4()), |_| {}), Err(StoreError::UserNotFound)));
    Ok(())
}

#[test]
fn a_token_is_usable_exactly_when_using_it_would_work_and_asking_uses_nothing() -> TestResult {
    let store = Store::temporary()?;
    let user = signup(&store, "ada@example.org", "verify")?;
    let reset = TokenPurpose::PasswordReset;
    let hour = now() + Duration::hours(1);
    store.accounts().issue_token(user.id, reset, TokenHash::of("old"), hour, &mail("a", "Reset 1"), now())?;
    store.accounts().issue_token(user.id, reset, TokenHash::of("new"), hour, &mail("a", "Reset 2"), now())?;
    assert!(!store.accounts().token_is_usable(TokenHash::of("made up"), reset, now())?);
    assert!(!store.accounts().token_is_usable(TokenHash::of("old"), reset, now())?, "superseded");
    assert!(!store.accounts().token_is_usable(TokenHash::of("verify"), reset, now())?, "another purpose");
    assert!(store.accounts().token_is_usable(TokenHash::of("verify"), TokenPurpose::EmailVerification, now())?);
    assert!(!store.accounts().token_is_usable(TokenHash::of("new"), reset, hour)?, "expired");
    assert!(store.accounts().token_is_usable(TokenHash::of("new"), reset, now())?);
    assert!(store.accounts().token_is_usable(TokenHash::of("new"), reset, now())?, "asking twice uses nothing");
    assert_eq!(store.accounts().usable_token_user(TokenHash::of("new"), reset, now())?.map(|owner| owner.email), Some("ada@example.org".to_owned()));
    assert!(store.accounts().usable_token_user(TokenHash::of("old"), reset, now())?.is_none(), "superseded");
    assert!(store.accounts().reset_password(TokenHash::of("new"), "new-hash", now())?.is_some());
    assert!(!store.accounts().token_is_usable(TokenHash::of("new"), reset, now())?, "used");
    Ok(())
}

fn queued_ids(store: &Store) -> Result<Vec<u64>, StoreError> {
    Ok(store.mail().queued()?.into_iter().map(|queued| queued.id).collect())
}

/// The child half of [`a_mail_handed_over_just_before_the_process_dies_is_not_sent_again`]:
/// run only when that test starts this binary again with the database's path.
#[test]
fn child_hands_over_mails_and_dies_before_any_flush() -> TestResult {
    let Some(path) = std::env::var_os("PAPERTIDE_TEST_SENT_JOURNAL_CHILD") else { return Ok(()) };
    let store = Store::open(std::path::Path::new(&path))?;
    let queued = store.mail().queued()?;
    let [handed_over, interrupted, _] = queued.as_slice() else { return Err(format!("three queued mails expected, found {}", queued.len()).into()) };
    store.mail().mark_handing_over(handed_over.id);
    store.mail().mark_sent(handed_over.id)?;
    store.mail().mark_handing_over(interrupted.id);
    // Another request's flush, while the second mail goes to the server.
    store.flush()?;
    // As a SIGKILL would: no destructor runs.
    std::process::abort();
}

#[test]
fn a_mail_handed_over_just_before_the_process_dies_is_not_sent_again() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("db");
    let (handed_over, interrupted, waiting) = {
        let store = Store::open(&path)?;
        let ids = (
            store.mail().enqueue(&mail("a@x.org", "one"), now())?,
            store.mail().enqueue(&mail("b@x.org", "two"), now())?,
            store.mail().enqueue(&mail("c@x.org", "three"), now())?,
        );
        store.flush()?;
        ids
    };
    let child = std::process::Command::new(std::env::current_exe()?)
        .args(["--exact", "child_hands_over_mails_and_dies_before_any_flush", "--nocapture", "--test-threads=1"])
        .env("PAPERTIDE_TEST_SENT_JOURNAL_CHILD", &path)
        .output()?;
    assert!(!child.status.success(), "the child was to abort: {}", String::from_utf8_lossy(&child.stdout));
    let journal = std::fs::read(dir.path().join("db.mail-sent"))?;
    assert_eq!(journal.len(), 24, "the hand-over in progress kept the journal through the flush");

    let store = Store::open(&path)?;
    assert_eq!(queued_ids(&store)?, [waiting], "the handed-over and the interrupted mails left the queue; the other stays");
    let dead = store.mail().dead()?;
    assert_eq!(dead.iter().map(|queued| queued.id).collect::<Vec<_>>(), [interrupted], "the interrupted mail is kept aside, not sent again");
    assert_eq!(dead[0].last_error.as_deref(), Some(store::MSG_HAND_OVER_INTERRUPTED));
    assert!(!dead.iter().any(|queued| queued.id == handed_over));
    assert!(std::fs::read(dir.path().join("db.mail-sent"))?.is_empty(), "the journal is emptied once the queue is durable");
    drop(store);
    let store = Store::open(&path)?;
    assert_eq!(store.mail().dead_len(), 1, "a second start finds nothing more to do");
    assert_eq!(store.mail().queue_len(), 1);
    Ok(())
}

#[test]
fn a_failed_hand_over_leaves_the_mail_queued_across_a_reopen() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("db");
    let store = Store::open(&path)?;
    let id = store.mail().enqueue(&mail("a@x.org", "one"), now())?;
    store.mail().mark_handing_over(id);
    store.mail().mark_not_handed_over(id);
    drop(store);
    let store = Store::open(&path)?;
    assert_eq!(queued_ids(&store)?, [id]);
    assert_eq!(store.mail().dead_len(), 0);
    Ok(())
}

#[test]
fn a_flush_empties_the_journal_and_an_unsent_mail_survives_a_reopen() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("db");
    let store = Store::open(&path)?;
    let sent = store.mail().enqueue(&mail("a@x.org", "one"), now())?;
    let kept = store.mail().enqueue(&mail("b@x.org", "two"), now())?;
    store.mail().mark_sent(sent)?;
    assert_eq!(std::fs::read(dir.path().join("db.mail-sent"))?.len(), 8);
    store.flush()?;
    assert!(std::fs::read(dir.path().join("db.mail-sent"))?.is_empty());
    drop(store);
    let store = Store::open(&path)?;
    assert_eq!(queued_ids(&store)?, [kept]);
    Ok(())
}

#[test]
fn the_number_of_accounts_is_kept_with_each_account_and_survives_a_reopen() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("db");
    {
        let store = Store::open(&path)?;
        assert_eq!(store.accounts().user_count(), 0);
        signup(&store, "ada@example.org", "t1")?;
        signup(&store, "bob@example.org", "t2")?;
        assert!(matches!(signup(&store, "ADA@example.org", "t3"), Err(StoreError::DuplicateEmail)));
        assert_eq!(store.accounts().user_count(), 2, "a refused signup is not counted");
        store.flush()?;
    }
    let store = Store::open(&path)?;
    assert_eq!(store.accounts().user_count(), 2);
    Ok(())
}

fn pending(password_hash: &str, token: &str, at: DateTime<Utc>) -> store::PendingSignup {
    store::PendingSignup {
        password_hash: password_hash.into(),
        research_field: Some("physics".into()),
        pending_search: Some("dark matter".into()),
        verification: (TokenHash::of(token), at + Duration::hours(48)),
        mail: Some(mail("victim@example.org", "Verify again")),
    }
}

/// Whoever signs up last for an unverified address holds its credentials: the earlier signer's
/// password, link and sessions are gone, and only the newest link verifies.
#[test]
fn a_signup_for_an_unverified_address_replaces_its_pending_credentials() -> TestResult {
    let store = Store::temporary()?;
    let attacker = signup(&store, "victim@example.org", "attacker-link")?;
    store.accounts().create_session(TokenHash::of("attacker-session"), &session_for(&attacker, now()))?;
    let later = now() + Duration::hours(1);
    let restarted = store.accounts().restart_pending_signup("Victim@Example.org", pending("victim-hash", "victim-link", later), later)?;
    let store::SignupRestart::Restarted(user) = restarted else { panic!("the unverified account is restarted: {restarted:?}") };
    assert_eq!(user.id, attacker.id, "the same account, new credentials");
    assert_eq!(user.password_hash, "victim-hash");
    assert_eq!((user.research_field.as_deref(), user.pending_search.as_deref()), (Some("physics"), Some("dark matter")));
    assert_eq!(user.verification_expires_at, Some(later + Duration::hours(48)));
    assert!(store.accounts().session_user(TokenHash::of("attacker-session"), later)?.is_none(), "the earlier signer's session ended");
    assert_eq!(store.mail().due(later, 10)?.iter().filter(|queued| queued.mail.subject == "Verify again").count(), 1);
    assert!(
        store.accounts().verify_email(TokenHash::of("attacker-link"), later, |user| mail(&user.email, "Welcome"))?.is_none(),
        "the first link is void"
    );
    let verified =
        store.accounts().verify_email(TokenHash::of("victim-link"), later, |user| mail(&user.email, "Welcome"))?.expect("the newest link verifies");
    assert_eq!(verified.password_hash, "victim-hash");

    // Once verified, a signup changes nothing.
    let again = store.accounts().restart_pending_signup("victim@example.org", pending("third-hash", "third-link", later), later)?;
    assert!(matches!(again, store::SignupRestart::Unchanged(ref user) if user.password_hash == "victim-hash"), "{again:?}");
    assert!(!store.accounts().token_is_usable(TokenHash::of("third-link"), TokenPurpose::EmailVerification, later)?);
    assert_eq!(store.accounts().restart_pending_signup("nobody@example.org", pending("h", "t", later), later)?, store::SignupRestart::Missing);
    Ok(())
}

/// An account nobody verifies goes away when its window closes, with everything it holds, and
/// its address can be signed up afresh; verified accounts and open windows stay.
#[test]
fn unverified_accounts_are_removed_with_everything_when_their_window_closes() -> TestResult {
    let store = Store::temporary()?;
    let before = store.raw_entries()?;
    let count_before = store.accounts().user_count();
    let trap = signup(&store, "trap@example.org", "trap-link")?;
    store.digests().record_notice(trap.id, "signup-attempt", now())?;
    let kept = signup(&store, "kept@example.org", "kept-link")?;
    store.accounts().verify_email(TokenHash::of("kept-link"), now(), |user| mail(&user.email, "Welcome"))?.expect("verified");
    let fresh_at = now() + Duration::hours(47);
    let fresh = {
        let user = User::new(UserId(Uuid::new_v4()), "fresh@example.org", "hash".into(), fresh_at);
        let verification = Some((TokenHash::of("fresh-link"), fresh_at + Duration::hours(48)));
        store.accounts().create(NewAccount { user, preferences: Preferences::default(), verification, mail: None }, fresh_at)?
    };
    assert_eq!(store.accounts().remove_expired_unverified(now() + Duration::hours(47))?, 0, "within the window nothing goes");
    assert_eq!(store.accounts().remove_expired_unverified(now() + Duration::hours(48))?, 1);
    assert!(store.accounts().user(trap.id)?.is_none() && store.accounts().user_by_email("trap@example.org")?.is_none());
    assert!(store.accounts().user(kept.id)?.is_some(), "a verified account stays");
    assert!(store.accounts().user(fresh.id)?.is_some(), "an account in its window stays");
    assert_eq!(store.accounts().user_count(), count_before + 2);
    assert!(!store.accounts().token_is_usable(TokenHash::of("trap-link"), TokenPurpose::EmailVerification, now())?);
    // Nothing of the removed account is left in any tree.
    let trap_key = trap.id.as_bytes().to_vec();
    for (tree, key, value) in store.raw_entries()?.into_iter().filter(|entry| !before.contains(entry)) {
        assert!(!key.windows(16).any(|window| window == trap_key.as_slice()), "{tree} keeps a key of the removed account");
        assert!(!value.windows(16).any(|window| window == trap_key.as_slice()), "{tree} keeps a value naming the removed account");
        assert!(!String::from_utf8_lossy(&value).contains("trap@example.org"), "{tree} keeps mail to the removed account");
    }
    let again = signup(&store, "trap@example.org", "new-link")?;
    assert_ne!(again.id, trap.id, "the address can be signed up afresh");
    Ok(())
}
