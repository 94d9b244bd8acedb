//! A new user's first week, path by path: the topic typed before signup is kept with the account,
//! the free plan's two digests count only digests with papers and hold on every path that makes
//! a digest, a week with nothing on the topic is an honest empty digest, and the weekly pass
//! leaves its terms complete.

use chrono::{Datelike, Duration, TimeZone, Utc};
use engine::Tier;
use serde_json::{json, Value};

use crate::common::{link_in, signup_body, token_of, Client, TestServer, PASSWORD};

/// A server whose index holds a week of phthalate toxicology, and Ada, verified and signed in.
async fn ada_on_a_phthalate_week() -> (TestServer, Client) {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    (server, ada)
}

fn search(email: &str, term: &str) -> Value {
    json!({ "email": email, "searchTerm": term })
}

async fn me(client: &Client) -> Value {
    client.get("/api/auth/me").await.body["user"].clone()
}

#[actix_web::test]
async fn the_topic_typed_before_signup_is_kept_with_the_account_until_it_is_searched() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let tab = server.client();
    let mut body = signup_body("ada@example.org", PASSWORD);
    body["pendingSearch"] = json!("phthalate liver toxicity");
    assert_eq!(tab.post("/api/signup", body).await.status, 201);
    let mail = server.wait_for_mail_to("ada@example.org", "Verify your email").await;

    // The mail client opens the link in a new tab: a browser with nothing of the first tab.
    let new_tab = server.client();
    let verified = new_tab.get(&format!("/api/verify-email?token={}", token_of(&link_in(&mail, "/verify-email?token=")))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    assert_eq!(verified.body["pendingSearch"], "phthalate liver toxicity");
    assert_eq!(me(&new_tab).await["pendingSearch"], "phthalate liver toxicity");

    let searched = new_tab.post("/api/immediate-search", search("ada@example.org", "Phthalate liver toxicity")).await;
    assert_eq!(searched.status, 200, "{}", searched.body);
    assert_eq!(me(&new_tab).await["pendingSearch"], Value::Null, "searched, so no longer pending");

    // A topic that is not a valid search term does not stop the signup; it is not kept.
    let mut body = signup_body("bob@example.org", PASSWORD);
    body["pendingSearch"] = json!("<script>alert(1)</script>");
    assert_eq!(server.client().post("/api/signup", body).await.status, 201);
    let bob = server.state.store.accounts().user_by_email("bob@example.org").expect("db").expect("bob");
    assert_eq!(bob.pending_search, None);
}

#[actix_web::test]
async fn an_unrelated_week_gives_an_honest_empty_digest_that_is_not_a_free_digest() {
    let (server, ada) = ada_on_a_phthalate_week().await;

    // Nothing on malaria vaccines; every paper is about rats. None may be sent as relevant.
    let answer = ada.post("/api/immediate-search", search("ada@example.org", "malaria vaccine in rats")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!((answer.body["papersFound"].as_u64(), answer.body["digestSent"].as_bool()), (Some(0), Some(true)), "{}", answer.body);
    // A first digest looks back 90 days before it says nothing matched.
    assert!(answer.message().starts_with("Nothing published in the last 90 days was relevant enough"), "{}", answer.body);
    let mail = server.wait_for_mail_to("ada@example.org", "Papertide: no new papers on").await;
    assert!(mail.contains("Nothing published in the last 90 days matched \"malaria vaccine in rats\" closely enough to send."), "{mail}");
    assert!(!mail.contains("AI Research Summary") && !mail.contains("Recurring themes"), "{mail}");
    // The dashboard's dialog says what the mail says.
    let ada_id = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada").id;
    let listed = ada.get(&format!("/api/users/{ada_id}/digests")).await;
    assert_eq!(
        listed.body[0]["emptyReason"], "Nothing published in the last 90 days matched \"malaria vaccine in rats\" closely enough to send.",
        "{}",
        listed.body
    );
    let searched_as = server.latest_digest_of("ada@example.org").searched_as.unwrap_or_default();
    assert!(!searched_as.contains("phthalate") && !searched_as.contains("dose"), "the week's words did not join the topic: {searched_as}");
    assert_eq!(me(&ada).await["freeDigests"], json!({ "used": 0, "total": 2 }), "an empty week is not a free digest");
}

#[actix_web::test]
async fn relevant_papers_are_listed_by_the_score_shown_with_readable_reasons() {
    let (server, ada) = ada_on_a_phthalate_week().await;
    let answer = ada.post("/api/immediate-search", search("ada@example.org", "phthalate liver toxicity")).await;
    assert!(answer.body["papersFound"].as_u64().is_some_and(|found| found >= 2), "{}", answer.body);
    let digest = server.latest_digest_of("ada@example.org");
    let scores: Vec<u8> = digest.papers_data.iter().map(|paper| paper.for_mail().relevance_percent).collect();
    assert!(scores.windows(2).all(|pair| pair[0] >= pair[1]), "ordered by the score shown: {scores:?}");
    assert!(digest.papers_data.iter().all(|paper| paper.relevance_score >= engine::digest::MIN_RELEVANCE));
    for paper in &digest.papers_data {
        assert!(!paper.reason.is_empty(), "every sent paper says why it matched: {}", paper.title);
        assert!(!paper.reason.contains("phthalat,") && !paper.reason.ends_with("phthalat"), "words, not stems: {}", paper.reason);
    }
    let searched_as = digest.searched_as.unwrap_or_default();
    for stem in ["phthalat", "toxic,", "studi", "chemic"] {
        assert!(!searched_as.split(", ").any(|word| word == stem.trim_end_matches(',')), "searched as shows words, not stems: {searched_as}");
    }
    let mail = server.wait_for_mail_to("ada@example.org", "Papertide: ").await;
    assert!(mail.contains("Your digest for \"phthalate liver toxicity\"") && !mail.contains("Your weekly digest"), "{mail}");
}

#[actix_web::test]
async fn once_the_free_digests_are_used_no_path_sends_another_until_the_plan_changes() {
    let (server, ada) = ada_on_a_phthalate_week().await;
    let first = ada.post("/api/immediate-search", search("ada@example.org", "phthalate liver toxicity")).await;
    assert_eq!(first.body["digestSent"], true, "{}", first.body);
    let ada_user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada");
    let template = server.latest_digest_of("ada@example.org");
    server.use_up_free_digests("ada@example.org", &template, Utc::now());
    assert_eq!(me(&ada).await["freeDigests"], json!({ "used": 2, "total": 2 }));
    let digest_count = || server.state.store.digests().of_user(ada_user.id).expect("db").len();
    let before = digest_count();
    server.wait_for_empty_queue().await;
    let mails_before = server.outbox().len();

    // The term deleted and another added: the term is saved, no digest.
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    let term_id = terms[0]["id"].as_str().expect("an id").to_owned();
    assert_eq!(ada.delete(&format!("/api/search-terms/{term_id}")).await.status, 200);
    let other = ada.post("/api/immediate-search", search("ada@example.org", "peroxisome proliferation")).await;
    assert_eq!((other.status, other.body["digestSent"].as_bool()), (200, Some(false)), "{}", other.body);
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    assert_eq!(terms[0]["term"], "peroxisome proliferation");
    assert_eq!(terms[0]["nextScheduledRun"], Value::Null, "no weekly digest is coming");
    // Trigger Weekly Digest: refused on the free plan, and says why.
    let triggered = ada.post("/api/trigger-digest", json!({})).await;
    assert_eq!((triggered.status, triggered.body["code"].as_str()), (403, Some("trigger_needs_paid_plan")), "{}", triggered.body);
    // The weekly pass on her Mondays: one invitation, never a digest.
    let users = server.state.users.clone();
    let today = Utc::now().date_naive();
    let next_monday = today + Duration::days(i64::from((7 - today.weekday().num_days_from_monday()) % 7) + 7);
    for week in 0..2 {
        let at = Utc.from_utc_datetime(&(next_monday + Duration::days(7 * week)).and_hms_opt(10, 0, 0).expect("a time"));
        actors::scheduler::serve_due_users(&server.state.store, &users, at, 8).await.expect("a pass");
    }
    assert_eq!(digest_count(), before, "no path made a digest");
    server.wait_for_empty_queue().await;
    let new_mails: Vec<String> = server.outbox().into_iter().skip(mails_before).collect();
    assert_eq!(new_mails.len(), 1, "only the invitation: {new_mails:?}");
    assert!(new_mails[0].contains("Your free Papertide digests are used up"), "{}", new_mails[0]);

    // The operator's set-tier (or a paid plan) lifts it.
    server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.subscription_tier = Tier::Pro).expect("pro");
    let lifted = ada.post("/api/immediate-search", search("ada@example.org", "liver toxicity of phthalates")).await;
    assert_eq!(lifted.body["digestSent"], true, "{}", lifted.body);
    assert_eq!(me(&ada).await["freeDigests"], Value::Null);
}

/// Bug: a cancelled paid plan left "Free digests: 2 of 2 used" whatever the free plan had used,
/// since the paid plan's digests were counted against it.
#[actix_web::test]
async fn a_paid_plan_that_ends_leaves_the_free_digests_the_free_plan_had_not_used() {
    let (server, ada) = ada_on_a_phthalate_week().await;
    let first = ada.post("/api/immediate-search", search("ada@example.org", "phthalate liver toxicity")).await;
    assert!(first.body["papersFound"].as_u64().is_some_and(|found| found > 0), "{}", first.body);
    assert_eq!(me(&ada).await["freeDigests"], json!({ "used": 1, "total": 2 }));

    // Upgraded: digests with papers, more than the free plan had left.
    let ada_user = server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.subscription_tier = Tier::Pro).expect("pro");
    let template = server.latest_digest_of("ada@example.org");
    let paid = ada.post("/api/immediate-search", search("ada@example.org", "peroxisome proliferation")).await;
    assert_eq!((paid.status, paid.body["digestSent"].as_bool()), (200, Some(true)), "{}", paid.body);
    for _ in 0..2 {
        let digest = engine::digest::Digest { id: uuid::Uuid::new_v4(), user_id: ada_user.id, sent_at: Utc::now(), ..template.clone() };
        let mail = store::DigestMail { to: ada_user.email.clone(), subject: digest.subject.clone(), list_unsubscribe: None };
        server.state.store.record_digest(&digest, &mail, Utc::now()).expect("recorded");
    }
    assert_eq!(me(&ada).await["freeDigests"], Value::Null, "no allowance on a paid plan");

    // Cancelled: back on the free plan with its one term, and the one free digest it had left.
    server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.subscription_tier = Tier::Free).expect("free");
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    let second_term = terms[1]["id"].as_str().expect("an id").to_owned();
    assert_eq!(ada.delete(&format!("/api/search-terms/{second_term}")).await.status, 200);
    assert_eq!(me(&ada).await["freeDigests"], json!({ "used": 1, "total": 2 }), "the paid plan's digests are not free ones");
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    assert!(terms[0]["nextScheduledRun"].is_string(), "a weekly digest is still coming: {terms}");

    let before = server.state.store.digests().of_user(ada_user.id).expect("db").len();
    server.use_up_free_digests("ada@example.org", &template, Utc::now());
    assert_eq!(server.state.store.digests().of_user(ada_user.id).expect("db").len(), before + 1, "exactly one more free digest");
    assert_eq!(me(&ada).await["freeDigests"], json!({ "used": 2, "total": 2 }));
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    let term_id = terms[0]["id"].as_str().expect("an id").to_owned();
    assert_eq!(ada.delete(&format!("/api/search-terms/{term_id}")).await.status, 200);
    let none = ada.post("/api/immediate-search", search("ada@example.org", "cancer cells")).await;
    assert_eq!((none.status, none.body["digestSent"].as_bool()), (200, Some(false)), "then none: {}", none.body);
}

#[actix_web::test]
async fn the_first_weekly_digest_waits_past_signup_day_and_leaves_its_term_complete() {
    let (server, ada) = ada_on_a_phthalate_week().await;
    assert_eq!(ada.post("/api/immediate-search", search("ada@example.org", "phthalate liver toxicity")).await.status, 200);
    let ada_user = server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada");
    let users = server.state.users.clone();
    let store = server.state.store.clone();
    let pass = |at| {
        let (store, users) = (store.clone(), users.clone());
        async move { actors::scheduler::serve_due_users(&store, &users, at, 8).await.expect("a pass") }
    };
    // Today, on any weekday and at any hour, the weekly digest does not follow the first one.
    let late_today = Utc.from_utc_datetime(&Utc::now().date_naive().and_hms_opt(23, 0, 0).expect("a time"));
    assert_eq!(pass(late_today).await, 0);
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    let next: chrono::DateTime<Utc> = terms[0]["nextScheduledRun"].as_str().expect("a next run").parse().expect("a time");
    assert!(next >= ada_user.created_at + Duration::days(engine::digest::WEEKLY_GAP_DAYS), "{next}");
    assert_eq!(next.weekday(), chrono::Weekday::Mon, "free plans: Mondays");
    // On that Monday it goes out, and the term reads complete with its next run a week later.
    assert_eq!(pass(next + Duration::hours(1)).await, 1);
    let terms = ada.get(&format!("/api/users/{}/search-terms", ada_user.id)).await.body;
    assert_eq!(terms[0]["status"], "completed", "{terms}");
    assert!(terms[0]["lastProcessedAt"].is_string());
}

#[actix_web::test]
async fn a_first_digest_of_a_week_without_new_papers_looks_back_a_month_and_shows_words_never_stems() {
    let server = TestServer::start().await;
    // The recorded papers, entered a month ago: the index knows the topic, this week has nothing.
    let mut papers = engine::parse::pubmed::parse_efetch(include_str!("../../../engine/fixtures/pubmed/efetch_batch_20_articles.xml")).items;
    for paper in &mut papers {
        paper.entered = Some(Utc::now().date_naive() - Duration::days(25));
    }
    server.state.indexer.send(actors::Ingest(papers)).await.expect("indexer alive").expect("indexed");
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let answer = ada.post("/api/immediate-search", search("ada@example.org", "phthalate liver toxicity")).await;
    let found = answer.body["papersFound"].as_u64().unwrap_or(0);
    assert!(found > 0, "{}", answer.body);
    assert!(answer.message().starts_with("Nothing new this week; the most relevant from the last 30 days."), "{}", answer.body);
    let digest = server.latest_digest_of("ada@example.org");
    assert_eq!(digest.widened, Some(engine::digest::Widened { days: 30, new_this_week: 0 }));
    let papers = if found == 1 { "1 paper".to_owned() } else { format!("{found} papers") };
    let subject = format!("Papertide: {papers} on \"phthalate liver toxicity\" from the last 30 days");
    let mail = server.wait_for_mail_to("ada@example.org", &subject).await;
    assert!(!mail.contains("new paper"), "none of them is this week's: {mail}");
    assert!(mail.contains("Nothing new this week; the most relevant from the last 30 days."), "{mail}");
    // "Searched as" shows whole words as the papers spell them, never the index's stems.
    let searched_as = digest.searched_as.unwrap_or_default();
    for word in searched_as.split(", ") {
        assert!(!["toxic", "phthalat", "studi", "chemic", "techniqu"].contains(&word), "a stem shown: {searched_as}");
    }

    // The weekly digest of the same topic stays the week's: nothing new, nothing resent.
    let weekly = server
        .state
        .users
        .digest(
            server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada"),
            "phthalate liver toxicity".into(),
            engine::digest::DigestKind::Weekly,
            Utc::now(),
        )
        .await;
    let Ok(actors::DigestOutcome::Sent(weekly)) = weekly else { panic!("a weekly digest: {weekly:?}") };
    assert!(weekly.papers_data.is_empty() && weekly.widened.is_none(), "{weekly:?}");
}

/// Bug: a widened first digest said "Only 2 new papers this week; with them, the most relevant
/// from the last 30 days", then "3 new papers matched … this week", under a subject of "3 new
/// papers". Its subject, its note, its summary and the digest list now count alike.
#[actix_web::test]
async fn a_widened_digest_counts_its_papers_alike_in_its_subject_note_and_summary() {
    let server = TestServer::start().await;
    // A month of phthalate toxicology, two papers of it this week.
    let this_week = ["Species differences in di-(2-ethylhexyl) phthalate", "The carcinogenicity of di(2-ethylhexyl) phthalate"];
    let mut papers = engine::parse::pubmed::parse_efetch(include_str!("../../../engine/fixtures/pubmed/efetch_batch_20_articles.xml")).items;
    for paper in &mut papers {
        let is_this_week = this_week.iter().any(|title| paper.title.starts_with(title));
        paper.entered = Some(Utc::now().date_naive() - Duration::days(if is_this_week { 1 } else { 25 }));
    }
    server.state.indexer.send(actors::Ingest(papers)).await.expect("indexer alive").expect("indexed");
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let term = "DEHP phthalate hepatic peroxisome proliferation";
    let answer = ada.post("/api/immediate-search", search("ada@example.org", term)).await;
    let found = answer.body["papersFound"].as_u64().unwrap_or(0) as usize;
    let digest = server.latest_digest_of("ada@example.org");
    let Some(widened) = digest.widened else { panic!("a thin week looks back: {}", answer.body) };
    assert!(widened.new_this_week >= 1 && widened.new_this_week < found, "{widened:?} of {found}: {}", answer.body);
    let week_titles = digest.papers_data.iter().filter(|paper| this_week.iter().any(|title| paper.title.starts_with(title))).count();
    assert_eq!(widened.new_this_week, week_titles, "the papers it calls new this week are the week's");

    let subject = format!("Papertide: {found} papers on \"{term}\" ({} new this week)", widened.new_this_week);
    assert_eq!(digest.subject, subject);
    let mail = server.wait_for_mail_to("ada@example.org", &subject).await;
    let mail = crate::common::decode_quoted_printable(&mail);
    assert!(mail.contains(&widened.note()) && answer.message().starts_with(&widened.note()), "{mail}");
    let count_line = format!("{found} papers matched \"{term}\" in the last {} days.", widened.days);
    assert!(digest.ai_summary.starts_with(&count_line), "{}", digest.ai_summary);
    assert!(mail.contains(&count_line), "{mail}");
    assert!(!mail.contains(&format!("{found} new papers")), "the month's papers are not called the week's: {mail}");
    // The dashboard reads the same digest: its subject, counts and summary.
    let listed = &ada.get(&format!("/api/users/{}/digests", digest.user_id.0)).await.body[0];
    assert_eq!((listed["subject"].as_str(), listed["papersData"].as_array().map(Vec::len)), (Some(subject.as_str()), Some(found)));
    assert_eq!(listed["widened"], json!({ "days": widened.days, "newThisWeek": widened.new_this_week }));
}

/// Waits (at most 2 minutes) until the service has embedded every indexed paper.
pub(crate) async fn wait_for_embeddings(client: &Client, papers: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let embeddings = client.get("/healthz").await.body["embeddings"].clone();
        if embeddings["papersEmbedded"] == papers as u64 && embeddings["papersWaiting"] == 0 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "the papers were not embedded: {embeddings}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn with_the_model_the_service_embeds_its_papers_and_ranks_a_topic_by_words_and_meaning() {
    let server = TestServer::start_with_embedding_model().await;
    let papers = server.index_recorded_papers().await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    wait_for_embeddings(&ada, papers).await;

    // Ranked by words and meaning: the phthalate toxicology papers.
    let answer = ada.post("/api/immediate-search", search("ada@example.org", "liver toxicity of phthalates")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let digest = server.latest_digest_of("ada@example.org");
    let titles: Vec<String> = digest.papers_data.iter().map(|paper| paper.title.to_lowercase()).collect();
    // In this index of 20 phthalate papers "liver" and "toxicity" are the topic's key concepts (the
    // rarest here), and a paper is sent only if it shows both: by its words, or "hepatic" for the
    // liver.
    assert!(titles.len() >= 4 && titles.first().is_some_and(|title| title.contains("phthalate") && title.contains("toxicity")), "{titles:?}");
    for paper in &digest.papers_data {
        assert!(paper.relevance_score >= engine::digest::MIN_RELEVANCE && !paper.reason.is_empty(), "{paper:?}");
    }
    assert_eq!(digest.searched_as, None, "no stems, no expansion words: the topic as typed");

    // A topic the week does not cover: nearest vectors are not relevant papers.
    let bob = server.client();
    server.verified_user(&bob, "bob@example.org").await;
    let answer = bob.post("/api/immediate-search", search("bob@example.org", "dark matter halos")).await;
    assert_eq!(answer.body["papersFound"], 0, "{}", answer.body);
}
