//! Ratings over HTTP: a term's owner rates the papers of its digests, lists and removes the
//! ratings, and edits the term's exclusion words; nobody else sees or touches them, and refused
//! calls write nothing. Rating links: looking at one changes nothing, confirming records it
//! (again: nothing more), and altered, expired and guessed tokens are refused.

use chrono::{Duration, Utc};
use engine::digest::{Digest, DigestEntry, DigestKind, DigestStatus};
use engine::paper::Source;
use engine::rating::Verdict;
use engine::search_term::{SearchTerm, TermId, TermStatus};
use engine::signed::RatingClaim;
use engine::{Tier, UserId};
use serde_json::json;
use uuid::Uuid;

use crate::common::{link_in, token_of, Client, TestServer};

fn entry(title: &str, key: &str) -> DigestEntry {
    DigestEntry {
        title: title.into(),
        url: Some(format!("https://example.org/{key}")),
        authors: "A. Author".into(),
        journal: Some("Journal".into()),
        abstract_text: "An abstract.".into(),
        source: Source::Pubmed,
        sources: vec![Source::Pubmed],
        relevance_score: 0.8,
        impact: 0.5,
        summary: "A summary.".into(),
        reason: "Matched".into(),
        retracted: false,
        keys: vec![key.into(), format!("title:{title}")],
        links: Vec::new(),
    }
}

/// A user signed in, with a term `text` and one digest of it (two papers) in the store.
struct Rater {
    client: Client,
    user_id: UserId,
    term: SearchTerm,
    digest: Digest,
}

async fn rater(server: &TestServer, email: &str, text: &str) -> Rater {
    let client = server.client();
    server.verified_user(&client, email).await;
    let user = server.state.store.accounts().user_by_email(email).expect("db").expect("user");
    let mut term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, text.into(), Tier::Free, Utc::now());
    term.status = TermStatus::Completed;
    server.state.store.terms().add(&term, Tier::Free, false).expect("added");
    let digest = Digest {
        id: Uuid::new_v4(),
        user_id: user.id,
        digest_type: DigestKind::Immediate,
        // The digest keeps the term as it was typed; any case matches.
        search_term: text.to_uppercase(),
        term_id: Some(term.id),
        searched_as: None,
        papers_data: vec![
            entry(&format!("{text}: first"), &format!("doi:10.1/{email}-1")),
            entry(&format!("{text}: second"), &format!("pmid:{}", text.len())),
        ],
        ai_summary: String::new(),
        subject: String::new(),
        status: DigestStatus::Sent,
        sent_at: Utc::now(),
        sent_before: 0,
        widened: None,
    };
    let mail = store::DigestMail { to: user.email.clone(), subject: "digest".into(), list_unsubscribe: None };
    server.state.store.record_digest(&digest, &mail, Utc::now()).expect("recorded");
    server.wait_for_empty_queue().await;
    Rater { client, user_id: user.id, term, digest }
}

fn ratings_path(term: &SearchTerm) -> String {
    format!("/api/search-terms/{}/ratings", term.id)
}

fn key_of(digest: &Digest, position: usize) -> String {
    digest.papers_data[position].keys[0].clone()
}

fn token(server: &TestServer, user_id: UserId, digest_id: Uuid, position: u16, verdict: Verdict, now: chrono::DateTime<Utc>) -> String {
    let key = server.state.store.ratings().link_key().expect("db");
    RatingClaim::new(user_id, digest_id, position, verdict, now).sign(&key)
}

#[actix_web::test]
async fn the_owner_rates_lists_changes_and_removes() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let path = ratings_path(&ada.term);
    assert_eq!(ada.client.get(&path).await.body, json!([]));
    let listed = ada.client.get(&format!("/api/users/{}/digests", ada.user_id)).await;
    assert_eq!(listed.body[0]["papersData"][1]["paperKey"], key_of(&ada.digest, 1).as_str(), "the dashboard names papers as ratings do");

    let first = key_of(&ada.digest, 0);
    let rated = ada.client.send("PUT", &path, Some(&json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "notRelevant" }))).await;
    assert_eq!(rated.status, 200, "{}", rated.body);
    let second = key_of(&ada.digest, 1);
    let rated = ada.client.send("PUT", &path, Some(&json!({ "digestId": ada.digest.id, "paperKey": second, "verdict": "moreLikeThis" }))).await;
    assert_eq!(rated.status, 200, "{}", rated.body);

    let listed = ada.client.get(&path).await;
    assert_eq!(listed.status, 200);
    assert_eq!(listed.body.as_array().map(Vec::len), Some(2));
    assert_eq!(
        (listed.body[0]["paperKey"].as_str(), listed.body[0]["verdict"].as_str()),
        (Some(second.as_str()), Some("moreLikeThis")),
        "newest first"
    );
    assert_eq!(listed.body[1]["title"], "CRISPR base editing: first", "the title is the digest's");
    assert_eq!(listed.body[1]["digestId"], ada.digest.id.to_string().as_str());
    assert!(listed.body[1]["ratedAt"].is_string());

    let changed = ada.client.send("PUT", &path, Some(&json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "relevant" }))).await;
    assert_eq!(changed.status, 200);
    let listed = ada.client.get(&path).await.body;
    assert_eq!((listed.as_array().map(Vec::len), listed[0]["verdict"].as_str()), (Some(2), Some("relevant")), "a new verdict replaces the old");

    let removed = ada.client.delete(&format!("{path}?paperKey={}", urlencode(&first))).await;
    assert_eq!(removed.status, 200, "{}", removed.body);
    assert_eq!(ada.client.delete(&format!("{path}?paperKey={}", urlencode(&first))).await.status, 404, "already removed");
    let listed = ada.client.get(&path).await.body;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));

    // Deleting the term deletes its ratings.
    assert_eq!(ada.client.delete(&format!("/api/search-terms/{}", ada.term.id)).await.status, 200);
    assert!(server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db").is_empty());
}

#[actix_web::test]
async fn bad_ratings_are_refused_with_a_message_and_write_nothing() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let path = ratings_path(&ada.term);
    let first = key_of(&ada.digest, 0);
    // Another of Ada's terms, with a digest of its own.
    let mut other = SearchTerm::new(TermId(Uuid::new_v4()), ada.user_id, "gene drive".into(), Tier::Team, Utc::now());
    other.status = TermStatus::Completed;
    server.state.store.terms().add(&other, Tier::Team, false).expect("added");
    let cases = [
        (json!({ "digestId": ada.digest.id, "paperKey": "doi:10.9/not-there", "verdict": "relevant" }), 400, "not in that digest"),
        (json!({ "digestId": Uuid::new_v4(), "paperKey": first, "verdict": "relevant" }), 404, "Digest not found"),
        (
            json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "maybe" }),
            400,
            "expected one of `relevant`, `notRelevant`, `moreLikeThis`",
        ),
        (json!({ "digestId": "not-an-id", "paperKey": first, "verdict": "relevant" }), 400, "UUID parsing failed"),
        (json!({ "paperKey": first, "verdict": "relevant" }), 400, "digestId"),
    ];
    for (body, status, says) in cases {
        let answer = ada.client.send("PUT", &path, Some(&body)).await;
        assert_eq!(answer.status, status, "{body}: {}", answer.body);
        assert!(answer.message().contains(says), "{body}: {}", answer.body);
    }
    let wrong_term =
        ada.client.send("PUT", &ratings_path(&other), Some(&json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "relevant" }))).await;
    assert_eq!((wrong_term.status, wrong_term.message()), (404, "Digest not found"), "a digest of another term");
    let no_key = ada.client.delete(&path).await;
    assert_eq!((no_key.status, no_key.message()), (400, "paperKey is required"));
    assert!(server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db").is_empty());
    assert!(server.state.store.ratings().of_term(ada.user_id, other.id).expect("db").is_empty());
}

#[actix_web::test]
async fn nobody_else_sees_or_rates_a_term() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let bob = rater(&server, "bob@example.org", "dark matter").await;
    let path = ratings_path(&ada.term);
    let first = key_of(&ada.digest, 0);
    let body = json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "relevant" });
    assert_eq!(ada.client.send("PUT", &path, Some(&body)).await.status, 200);
    let anonymous = server.client();
    let delete_path = format!("{path}?paperKey={}", urlencode(&first));
    for caller in [&anonymous, &bob.client] {
        let expected = if std::ptr::eq(caller, &anonymous) { 401 } else { 404 };
        assert_eq!(caller.get(&path).await.status, expected);
        assert_eq!(
            caller.send("PUT", &path, Some(&json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "notRelevant" }))).await.status,
            expected
        );
        assert_eq!(caller.delete(&delete_path).await.status, expected);
    }
    // Bob names Ada's digest on his own term: not his digest.
    let stolen =
        bob.client.send("PUT", &ratings_path(&bob.term), Some(&json!({ "digestId": ada.digest.id, "paperKey": first, "verdict": "relevant" }))).await;
    assert_eq!(stolen.status, 404, "{}", stolen.body);
    let kept = server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db");
    assert_eq!((kept.len(), kept[0].verdict), (1, Verdict::Relevant));
    assert!(server.state.store.ratings().of_term(bob.user_id, bob.term.id).expect("db").is_empty());
}

#[actix_web::test]
async fn exclusion_words_are_edited_with_the_term() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let path = format!("/api/search-terms/{}", ada.term.id);
    let changed = ada.client.patch(&path, json!({ "exclude": ["  Mouse ", "mouse", "in-vitro"] })).await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    assert_eq!(changed.body["exclude"], json!(["mouse", "in-vitro"]));
    assert_eq!(changed.body["status"], "completed", "the text did not change, so no new search");
    let listed = ada.client.get(&format!("/api/users/{}/search-terms", ada.user_id)).await;
    assert_eq!(listed.body[0]["exclude"], json!(["mouse", "in-vitro"]));

    for (body, message) in [
        (json!({ "exclude": ["x"] }), "Each excluded word must be at least 2 characters"),
        (json!({ "exclude": ["two words"] }), "Excluded words may only contain letters, digits and hyphens"),
        (json!({ "exclude": (0..11).map(|index| format!("word{index}")).collect::<Vec<_>>() }), "A search term can exclude at most 10 words"),
        (json!({ "exclude": "mouse" }), "expected a sequence"),
        (json!({}), "Send a new term"),
    ] {
        let refused = ada.client.patch(&path, body.clone()).await;
        assert_eq!(refused.status, 400, "{body}: {}", refused.body);
        assert!(refused.message().contains(message), "{body}: {}", refused.body);
    }
    let renamed = ada.client.patch(&path, json!({ "term": "prime editing", "exclude": [] })).await;
    assert_eq!((renamed.body["term"].as_str(), renamed.body["exclude"].clone()), (Some("prime editing"), json!([])));
    let stored = server.state.store.terms().get(ada.term.id).expect("db").expect("there");
    assert!(stored.exclude.is_empty());
}

#[actix_web::test]
async fn a_rating_link_is_looked_at_without_change_and_confirmed_once() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let token = token(&server, ada.user_id, ada.digest.id, 1, Verdict::NotRelevant, Utc::now());
    let stranger = server.client();

    let looked = stranger.get(&format!("/api/ratings/link?token={token}")).await;
    assert_eq!(looked.status, 200, "{}", looked.body);
    assert_eq!(
        (looked.body["term"].as_str(), looked.body["title"].as_str(), looked.body["verdict"].as_str()),
        (Some("CRISPR base editing"), Some("CRISPR base editing: second"), Some("notRelevant"))
    );
    assert!(server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db").is_empty(), "looking changes nothing");

    for _ in 0..2 {
        let confirmed = stranger.post("/api/ratings/link", json!({ "token": token })).await;
        assert_eq!(confirmed.status, 200, "{}", confirmed.body);
    }
    let ratings = server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db");
    assert_eq!(ratings.len(), 1, "confirming twice records one rating");
    assert_eq!(
        (ratings[0].paper_key.as_str(), ratings[0].verdict, ratings[0].digest_id),
        (key_of(&ada.digest, 1).as_str(), Verdict::NotRelevant, Some(ada.digest.id))
    );
    let listed = ada.client.get(&ratings_path(&ada.term)).await;
    assert_eq!(listed.body[0]["verdict"], "notRelevant");
}

#[actix_web::test]
async fn altered_expired_and_orphaned_links_are_refused() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let bob = rater(&server, "bob@example.org", "dark matter").await;
    let stranger = server.client();
    let genuine = token(&server, ada.user_id, ada.digest.id, 0, Verdict::Relevant, Utc::now());

    // Bob's digest id put into Ada's token (or Bob's user and digest): the MAC no longer fits.
    let ada_digest_hex = hex(ada.digest.id.as_bytes());
    let with_bobs_digest = genuine.replacen(&ada_digest_hex, &hex(bob.digest.id.as_bytes()), 1);
    let with_bob = with_bobs_digest.replacen(&hex(ada.user_id.as_bytes()), &hex(bob.user_id.as_bytes()), 1);
    assert_ne!(with_bobs_digest, genuine);
    let mut flipped = genuine.clone().into_bytes();
    let last = flipped.len() - 1;
    flipped[last] = if flipped[last] == b'0' { b'1' } else { b'0' };
    let flipped = String::from_utf8(flipped).expect("ascii");
    for forged in [with_bobs_digest.as_str(), with_bob.as_str(), flipped.as_str(), "not-a-token", ""] {
        let looked = stranger.get(&format!("/api/ratings/link?token={forged}")).await;
        assert_eq!((looked.status, looked.message()), (400, "This rating link is not valid."), "{forged}");
        let confirmed = stranger.post("/api/ratings/link", json!({ "token": forged })).await;
        assert_eq!((confirmed.status, confirmed.message()), (400, "This rating link is not valid."), "{forged}");
    }
    // A position past the digest's papers, signed: still not a paper.
    let past_end = token(&server, ada.user_id, ada.digest.id, 2, Verdict::Relevant, Utc::now());
    assert_eq!(stranger.post("/api/ratings/link", json!({ "token": past_end })).await.status, 400);

    let expired = token(&server, ada.user_id, ada.digest.id, 0, Verdict::Relevant, Utc::now() - Duration::days(91));
    let answer = stranger.post("/api/ratings/link", json!({ "token": expired })).await;
    assert_eq!((answer.status, answer.message()), (410, "This rating link has expired."));

    // Bob's own link works for Bob's term only; Ada's term deleted, her link says so.
    assert_eq!(ada.client.delete(&format!("/api/search-terms/{}", ada.term.id)).await.status, 200);
    let orphaned = stranger.get(&format!("/api/ratings/link?token={genuine}")).await;
    assert_eq!((orphaned.status, orphaned.message()), (410, "The search term this link rates was deleted."));
    assert!(server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db").is_empty());
    assert!(server.state.store.ratings().of_term(bob.user_id, bob.term.id).expect("db").is_empty());
}

/// A link rates the term its digest was made for, not whichever term has its text now: the same
/// topic deleted and added again is a new term, which the old digest's links and ratings do not
/// reach. A digest without a term id (its term was gone when the upgrade to schema 3 bound every
/// digest to its term) rates none, even a term of its text.
#[actix_web::test]
async fn a_term_deleted_and_added_again_is_not_rated_by_the_old_digests_links() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let mut untagged = ada.digest.clone();
    untagged.id = Uuid::new_v4();
    untagged.term_id = None;
    let mail = store::DigestMail { to: "ada@example.org".into(), subject: "digest".into(), list_unsubscribe: None };
    server.state.store.record_digest(&untagged, &mail, Utc::now()).expect("recorded");
    let tagged_link = token(&server, ada.user_id, ada.digest.id, 0, Verdict::Relevant, Utc::now());
    let untagged_link = token(&server, ada.user_id, untagged.id, 0, Verdict::Relevant, Utc::now());
    let stranger = server.client();
    assert_eq!(stranger.get(&format!("/api/ratings/link?token={tagged_link}")).await.status, 200, "it rates the term while it lives");
    let unbound = stranger.get(&format!("/api/ratings/link?token={untagged_link}")).await;
    assert_eq!((unbound.status, unbound.message()), (410, "The search term this link rates was deleted."), "{}", unbound.body);

    assert_eq!(ada.client.delete(&format!("/api/search-terms/{}", ada.term.id)).await.status, 200);
    let mut again = SearchTerm::new(TermId(Uuid::new_v4()), ada.user_id, "crispr base editing".into(), Tier::Free, Utc::now());
    again.status = TermStatus::Completed;
    server.state.store.terms().add(&again, Tier::Free, false).expect("added again");

    for link in [&tagged_link, &untagged_link] {
        let confirmed = stranger.post("/api/ratings/link", json!({ "token": link })).await;
        assert_eq!((confirmed.status, confirmed.message()), (410, "The search term this link rates was deleted."), "{}", confirmed.body);
    }
    for digest in [&ada.digest, &untagged] {
        let body = json!({ "digestId": digest.id, "paperKey": key_of(digest, 0), "verdict": "relevant" });
        let rated = ada.client.send("PUT", &format!("/api/search-terms/{}/ratings", again.id), Some(&body)).await;
        assert_eq!(rated.status, 404, "an old digest is not the new term's: {}", rated.body);
    }
    assert!(server.state.store.ratings().of_term(ada.user_id, again.id).expect("db").is_empty(), "the new term learned nothing from old links");
}

#[actix_web::test]
async fn the_digest_mail_links_each_paper_to_its_rating_page() {
    let server = TestServer::start().await;
    let ada = rater(&server, "ada@example.org", "CRISPR base editing").await;
    let mail = server.wait_for_mail_to("ada@example.org", "Papertide: 2 new papers").await;
    let text = mail.split("Content-Type: text/html").next().expect("the text part");
    let not_relevant = link_in(&text[text.find("   Not relevant: ").expect("a Not relevant link")..], "/rate?token=");
    let link = not_relevant.as_str();
    assert!(link.starts_with(&format!("{}/rate?token=", server.base)), "{link}");
    let looked = server.client().get(&format!("/api/ratings/link?token={}", token_of(link))).await;
    assert_eq!(looked.status, 200, "{}", looked.body);
    assert_eq!((looked.body["title"].as_str(), looked.body["verdict"].as_str()), (Some("CRISPR base editing: first"), Some("notRelevant")));
    let second_paper = &text[text.find("2. CRISPR base editing: second").expect("the second paper")..];
    let more = link_in(&second_paper[second_paper.find("   More like this: ").expect("a More like this link")..], "/rate?token=");
    let looked = server.client().get(&format!("/api/ratings/link?token={}", token_of(&more))).await;
    assert_eq!((looked.body["title"].as_str(), looked.body["verdict"].as_str()), (Some("CRISPR base editing: second"), Some("moreLikeThis")));
    assert!(mail.contains(r#"">Relevant</a>"#), "the HTML part links too");
    assert!(server.state.store.ratings().of_term(ada.user_id, ada.term.id).expect("db").is_empty(), "links looked at record nothing");
}

#[actix_web::test]
async fn guesses_at_rating_links_count_against_the_link_guesses() {
    let server = TestServer::start_with(|serve| serve.rate_limit_link_guesses = Some("3/1h".into())).await;
    let client = server.client();
    for guess in 0..3 {
        assert_eq!(client.get(&format!("/api/ratings/link?token=guess{guess}")).await.status, 400);
    }
    let over = client.post("/api/ratings/link", json!({ "token": "guess4" })).await;
    assert_eq!(over.status, 429, "{}", over.body);
    assert_eq!(client.get("/api/verify-email?token=guess5").await.status, 429, "one budget for every kind of link");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn urlencode(text: &str) -> String {
    text.bytes().map(|byte| if byte.is_ascii_alphanumeric() { (byte as char).to_string() } else { format!("%{byte:02X}") }).collect()
}
