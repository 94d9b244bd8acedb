//! A user's own record and mail preferences: owner-only (anonymous 401, anyone else 404), the
//! plan rules (free: PubMed on Mondays, locked; paid: any day and source), and bad input.

use engine::Tier;
use serde_json::json;

use crate::common::{Client, TestServer};

async fn user_id(client: &Client) -> String {
    let me = client.get("/api/auth/user").await;
    me.body["id"].as_str().expect("an id").to_owned()
}

#[actix_web::test]
async fn preferences_are_the_owners_alone() {
    let server = TestServer::start().await;
    let (ada, bob) = (server.client(), server.client());
    server.verified_user(&ada, "ada@example.org").await;
    server.verified_user(&bob, "bob@example.org").await;
    let ada_id = user_id(&ada).await;
    let path = format!("/api/users/{ada_id}/preferences");

    let own = ada.get(&path).await;
    assert_eq!(own.status, 200, "{}", own.body);
    assert_eq!(own.body["userId"], ada_id.as_str());
    assert_eq!(own.body["id"], ada_id.as_str(), "spec §3: the preferences record has an id (one per user, the user's)");
    assert_eq!((own.body["deliveryDay"].as_str(), own.body["weeklyDigest"].as_bool()), (Some("monday"), Some(true)));

    let anonymous = server.client();
    assert_eq!(anonymous.get(&path).await.status, 401);
    assert_eq!(anonymous.patch(&path, json!({ "weeklyDigest": false })).await.status, 401);
    let other = bob.get(&path).await;
    assert_eq!(other.status, 404, "another user's preferences are not there for bob: {}", other.body);
    assert_eq!(bob.patch(&path, json!({ "weeklyDigest": false })).await.status, 404);
    assert_eq!(bob.get("/api/users/not-a-uuid/preferences").await.status, 404);
    assert_eq!(ada.get(&path).await.body["weeklyDigest"], true, "nothing changed");
}

#[actix_web::test]
async fn free_plans_are_locked_to_pubmed_on_mondays_and_paid_plans_choose() {
    let server = TestServer::start().await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    let path = format!("/api/users/{}/preferences", user_id(&ada).await);

    let free = ada.get(&path).await.body;
    assert_eq!((free["includeArxiv"].as_bool(), free["includeBiorxiv"].as_bool()), (Some(false), Some(false)));
    assert_eq!(free["locked"], json!(["includePubmed", "includeArxiv", "includeBiorxiv", "deliveryDay"]));
    let refused = ada.patch(&path, json!({ "deliveryDay": "friday" })).await;
    assert_eq!(refused.status, 403);
    assert!(refused.body["message"].as_str().is_some_and(|message| message.starts_with("Free plans receive PubMed papers on Mondays")));
    assert_eq!(ada.patch(&path, json!({ "includeArxiv": true })).await.status, 403);
    let allowed = ada.patch(&path, json!({ "weeklyDigest": false, "deliveryDay": "monday" })).await;
    assert_eq!((allowed.status, allowed.body["weeklyDigest"].as_bool()), (200, Some(false)));

    server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.subscription_tier = Tier::Pro).expect("upgraded");
    let chosen = ada.patch(&path, json!({ "deliveryDay": "friday", "includeArxiv": true, "includePubmed": false })).await;
    assert_eq!(chosen.status, 200, "{}", chosen.body);
    let read = ada.get(&path).await.body;
    assert_eq!(
        (read["deliveryDay"].as_str(), read["includePubmed"].as_bool(), read["weeklyDigest"].as_bool()),
        (Some("friday"), Some(false), Some(false))
    );
    assert_eq!(read["locked"], json!([]));
    let stored =
        server.state.store.accounts().preferences(server.state.store.accounts().user_by_email("ada@example.org").expect("db").expect("ada").id);
    assert_eq!(stored.expect("stored").delivery_day, engine::DeliveryDay::Friday);
}

#[actix_web::test]
async fn bad_preference_changes_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let ada = server.client();
    server.verified_user(&ada, "ada@example.org").await;
    server.state.store.accounts().update_user_by_email("ada@example.org", |user| user.subscription_tier = Tier::Team).expect("upgraded");
    let path = format!("/api/users/{}/preferences", user_id(&ada).await);
    for body in [
        json!({ "deliveryDay": "funday" }),
        json!({ "weeklyDigest": "yes" }),
        json!({ "isUnlimited": true }),
        json!({ "includePubmed": false, "includeArxiv": false, "includeBiorxiv": false }),
    ] {
        let answer = ada.patch(&path, body.clone()).await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.body);
        assert!(answer.body["message"].is_string());
    }
    let read = ada.get(&path).await.body;
    assert_eq!((read["deliveryDay"].as_str(), read["includePubmed"].as_bool()), (Some("monday"), Some(true)));
}

#[actix_web::test]
async fn a_user_record_is_read_by_its_own_email_only() {
    let server = TestServer::start().await;
    let (ada, bob) = (server.client(), server.client());
    server.verified_user(&ada, "ada@example.org").await;
    server.verified_user(&bob, "bob@example.org").await;

    let own = ada.get("/api/users/ADA@example.org").await;
    assert_eq!(own.status, 200, "{}", own.body);
    assert_eq!((own.body["email"].as_str(), own.body["subscriptionTier"].as_str()), (Some("ada@example.org"), Some("free")));
    assert!(own.body["id"].is_string() && own.body.get("passwordHash").is_none());
    assert_eq!(bob.get("/api/users/ada@example.org").await.status, 404);
    assert_eq!(bob.get("/api/users/nobody@example.org").await.status, 404, "unknown and foreign addresses look alike");
    assert_eq!(server.client().get("/api/users/ada@example.org").await.status, 401);
}
