//! Billing calls on a server with billing off: every call checks who is asking (401 for a
//! visitor) and what was asked, then answers 501 "Billing is not enabled on this server";
//! cancelling applies the plan rules first (nothing to cancel on free; at most one active term).

use chrono::Utc;
use engine::search_term::{SearchTerm, TermId};
use engine::Tier;
use serde_json::json;
use uuid::Uuid;

use crate::common::{Client, TestServer};

const DISABLED: &str = "Billing is not enabled on this server";

/// Signs `email` up and in on `tier`, with `terms` active search terms.
async fn subscriber(server: &TestServer, client: &Client, email: &str, tier: Tier, terms: usize) {
    server.verified_user(client, email).await;
    let user = server.state.store.accounts().update_user_by_email(email, |user| user.subscription_tier = tier).expect("tier set");
    for index in 0..terms {
        let term = SearchTerm::new(TermId(Uuid::new_v4()), user.id, format!("topic number {index}"), tier, Utc::now());
        server.state.store.terms().add(&term, tier, false).expect("added");
    }
}

#[actix_web::test]
async fn cancelling_checks_the_plan_and_the_active_terms_before_saying_billing_is_off() {
    let server = TestServer::start().await;
    assert_eq!(server.client().post("/api/cancel-subscription", json!({})).await.status, 401);

    let free = server.client();
    subscriber(&server, &free, "free@example.org", Tier::Free, 1).await;
    let answer = free.post("/api/cancel-subscription", json!({})).await;
    assert_eq!((answer.status, answer.message()), (400, "You are on the Free plan: there is no subscription to cancel."));

    let pro = server.client();
    subscriber(&server, &pro, "pro@example.org", Tier::Pro, 3).await;
    let blocked = pro.post("/api/cancel-subscription", json!({})).await;
    assert_eq!(blocked.status, 400, "{}", blocked.body);
    assert_eq!((blocked.body["requiresSearchDeletion"].as_bool(), blocked.body["currentSearchCount"].as_u64()), (Some(true), Some(3)));
    assert!(blocked.message().contains("delete search terms until only 1 remains"), "{}", blocked.body);

    let team = server.client();
    subscriber(&server, &team, "team@example.org", Tier::Team, 1).await;
    let off = team.post("/api/cancel-subscription", json!({})).await;
    assert_eq!(off.status, 501, "{}", off.body);
    assert!(off.message().starts_with(DISABLED), "{}", off.body);
    assert_eq!(off.body["billingEnabled"], false);
    let user = server.state.store.accounts().user_by_email("team@example.org").expect("db").expect("user");
    assert_eq!(user.subscription_tier, Tier::Team, "nothing changed");
}

#[actix_web::test]
async fn every_billing_call_needs_a_session_and_answers_that_billing_is_off() {
    let server = TestServer::start().await;
    let visitor = server.client();
    let ada = server.client();
    subscriber(&server, &ada, "ada@example.org", Tier::Free, 0).await;

    for path in ["/api/session-status?session_id=cs_1", "/api/subscriptions/sub_1/status", "/api/debug-webhook-status"] {
        assert_eq!(visitor.get(path).await.status, 401, "{path}");
        let answer = ada.get(path).await;
        assert_eq!(answer.status, 501, "{path}: {}", answer.body);
        assert!(answer.message().starts_with(DISABLED), "{path}: {}", answer.body);
    }
    assert_eq!(visitor.post("/api/fix-subscription", json!({})).await.status, 401);
    assert_eq!(ada.post("/api/fix-subscription", json!({})).await.status, 501);

    for path in ["/api/create-subscription", "/api/create-checkout-session"] {
        assert_eq!(visitor.post(path, json!({ "tier": "pro" })).await.status, 401, "{path}");
        for bad in [json!({ "tier": "free" }), json!({ "tier": "gold" }), json!({})] {
            let answer = ada.post(path, bad.clone()).await;
            assert_eq!((answer.status, answer.message()), (400, "Please select a valid subscription plan."), "{path} {bad}");
        }
        let answer = ada.post(path, json!({ "tier": "team" })).await;
        assert_eq!(answer.status, 501, "{path}: {}", answer.body);
        assert!(answer.message().starts_with(DISABLED));
    }
}
