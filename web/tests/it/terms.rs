//! Search terms over HTTP: listed, renamed (with the §5 schema's messages) and deleted by their
//! owner only; anonymous callers get 401, other users the 404 of a missing term, and refused
//! changes change nothing.

use chrono::Datelike;
use chrono::Utc;
use engine::search_term::{SearchTerm, TermId, TermStatus};
use engine::Tier;
use serde_json::json;
use uuid::Uuid;

use crate::common::{Client, TestServer};

/// Signs `email` up and in, and gives them a completed term `text` straight in the store.
async fn user_with_term(server: &TestServer, client: &Client, email: &str, text: &str) -> (String, SearchTerm) {
    server.verified_user(client, email).await;
    let user = server.state.store.accounts().user_by_email(email).expect("db").expect("user");
    let mut term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, text.into(), Tier::Free, Utc::now());
    term.status = TermStatus::Completed;
    server.state.store.terms().add(&term, Tier::Free, false).expect("added");
    (user.id.to_string(), term)
}

#[actix_web::test]
async fn terms_are_listed_renamed_and_deleted_by_their_owner() {
    let server = TestServer::start().await;
    let ada = server.client();
    let (ada_id, term) = user_with_term(&server, &ada, "ada@example.org", "CRISPR base editing").await;

    let listed = ada.get(&format!("/api/users/{ada_id}/search-terms")).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.body[0]["term"], "CRISPR base editing");
    assert_eq!((listed.body[0]["status"].as_str(), listed.body[0]["isActive"].as_bool()), (Some("completed"), Some(true)));
    assert_eq!(listed.body[0]["id"], term.id.to_string().as_str());
    // A free plan's next weekly digest: a Monday at the digest hour (8 UTC), not within three days
    // of signup, and within the week after those three days.
    let next = listed.body[0]["nextScheduledRun"].as_str().expect("the next weekly run");
    let next: chrono::DateTime<chrono::Utc> = next.parse().expect("a time");
    let now = chrono::Utc::now();
    let gap = chrono::Duration::days(engine::digest::WEEKLY_GAP_DAYS);
    assert!(next >= now + gap - chrono::Duration::minutes(1) && next <= now + gap + chrono::Duration::days(7), "{next}");
    assert!(next.weekday() == chrono::Weekday::Mon || next <= now + chrono::Duration::minutes(1), "{next}");

    let path = format!("/api/search-terms/{}", term.id);
    let renamed = ada.patch(&path, json!({ "term": "  prime editing  " })).await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!((renamed.body["term"].as_str(), renamed.body["status"].as_str()), (Some("prime editing"), Some("pending")));

    let deleted = ada.delete(&path).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(ada.delete(&path).await.status, 404, "a deleted term is gone");
    assert_eq!(ada.get(&format!("/api/users/{ada_id}/search-terms")).await.body, json!([]));
}

#[actix_web::test]
async fn nobody_else_sees_or_touches_a_term() {
    let server = TestServer::start().await;
    let (ada, bob) = (server.client(), server.client());
    let (ada_id, term) = user_with_term(&server, &ada, "ada@example.org", "CRISPR base editing").await;
    server.verified_user(&bob, "bob@example.org").await;
    let path = format!("/api/search-terms/{}", term.id);

    assert_eq!(bob.get(&format!("/api/users/{ada_id}/search-terms")).await.status, 404);
    assert_eq!(bob.patch(&path, json!({ "term": "stolen topic" })).await.status, 404);
    assert_eq!(bob.delete(&path).await.status, 404);
    let anonymous = server.client();
    assert_eq!(anonymous.get(&format!("/api/users/{ada_id}/search-terms")).await.status, 401);
    assert_eq!(anonymous.patch(&path, json!({ "term": "stolen topic" })).await.status, 401);
    assert_eq!(anonymous.delete(&path).await.status, 401);
    assert_eq!(bob.delete(&format!("/api/search-terms/{}", Uuid::new_v4())).await.status, 404);
    assert_eq!(bob.delete("/api/search-terms/not-an-id").await.status, 404);

    let kept = server.state.store.terms().get(term.id).expect("db").expect("still there");
    assert_eq!((kept.term.as_str(), kept.status), ("CRISPR base editing", TermStatus::Completed));
}

#[actix_web::test]
async fn renames_are_checked_with_the_spec_messages_and_change_nothing_when_refused() {
    let server = TestServer::start().await;
    let ada = server.client();
    let (_, term) = user_with_term(&server, &ada, "ada@example.org", "CRISPR base editing").await;
    let path = format!("/api/search-terms/{}", term.id);
    for (text, message) in [
        ("ab", "Search term must be at least 3 characters"),
        (&"a".repeat(201)[..], "Search term must be less than 200 characters"),
        ("cancer'; DROP TABLE users", "Search term contains invalid characters or patterns"),
        ("cancer!", "Search term contains unsupported characters"),
    ] {
        let answer = ada.patch(&path, json!({ "term": text })).await;
        assert_eq!((answer.status, answer.body["message"].as_str()), (400, Some(message)), "{text}");
    }
    assert_eq!(ada.patch(&path, json!({ "text": "other" })).await.status, 400, "the field is `term`");
    let kept = server.state.store.terms().get(term.id).expect("db").expect("there");
    assert_eq!(kept.term, "CRISPR base editing");
}
