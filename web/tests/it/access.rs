//! The access-control matrix: every API route the router registers, called by an anonymous
//! caller, by another user, by an operator and by the owner (an operator route: by the
//! operator), naming the owner's records by id and by email. A route missing from [`RULES`]
//! fails the test, so a new route cannot be left out.
//! Every refused call is checked to have written nothing (the database's content digest is the
//! same before and after); the owner's call is checked to get through.
//!
//! Billing is on (localstripe), so the billing routes are reached past their "billing is off"
//! answer, and the owner has a real subscription, checkout session and unsubscribe link.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{link_in, token_of, Answer, Client, PASSWORD};
use crate::payments::{event, Billing, CARD_OK, WEBHOOK_SECRET};

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Access {
    /// Anyone; what it does depends only on what the request says (sign-up, sign-in, config).
    Public,
    /// A caller who holds a secret the owner was sent (an unsubscribe, verification or reset
    /// token) or Stripe's signature; without it, refused.
    Secret,
    /// The signed-in owner only: records of anyone else answer as if they were not there, and
    /// operators get nothing more.
    Owner,
    /// The signed-in owner, and an operator may do more (test mail to another address).
    OwnerOrOperator,
    /// A verified operator only (`/api/admin/...`): anonymous 401, any other user 403
    /// `operator_only`; the row's call is the operator's.
    Operator,
}

/// The owner's records a request names.
struct Target {
    id: String,
    email: String,
    term_id: String,
    subscription_id: String,
    checkout_session_id: String,
    unsubscribe_token: String,
    reset_token: String,
    verification_token: String,
    /// Ada's digest of her term, a paper of it, and a rating link to it.
    digest_id: String,
    paper_key: String,
    rating_token: String,
    /// The digest mail's link to its citations.
    citation_token: String,
    /// Dan, a user an operator's row may delete.
    spare_id: String,
    /// Bob, another user, whom the operator rows act on (leaving him as he is).
    other_id: String,
    /// An account whose address is not verified, for the operator's resend.
    unverified_id: String,
}

/// A request's path and JSON body.
type Request = (String, Option<Value>);

/// One route's rule: who may call it, and the request its matrix row sends, for each form of
/// naming the owner (by id, by email) where the route names a user.
struct Rule {
    method: &'static str,
    path: &'static str,
    access: Access,
    /// The requests naming the owner's records (several where the user can be named by id and by
    /// email); their path and body.
    requests: fn(&Target) -> Vec<Request>,
    /// The owner's (or the secret holder's) status for the first request.
    owner_status: u16,
}

fn no_body(path: &str) -> Vec<Request> {
    vec![(path.to_owned(), None)]
}

fn with_body(path: &str, body: Value) -> Vec<Request> {
    vec![(path.to_owned(), Some(body))]
}

/// The user named by id, and the same path with the email (and its upper case) in its place.
fn by_id_and_email(target: &Target, path: impl Fn(&str) -> String, body: Option<Value>) -> Vec<Request> {
    [target.id.clone(), target.email.clone(), target.email.to_uppercase()].iter().map(|user| (path(user), body.clone())).collect()
}

const RULES: &[Rule] = &[
    Rule { method: "GET", path: "/api/config", access: Access::Public, requests: |_| no_body("/api/config"), owner_status: 200 },
    Rule { method: "GET", path: "/api/contract", access: Access::Public, requests: |_| no_body("/api/contract"), owner_status: 200 },
    Rule { method: "GET", path: "/api/contract.ts", access: Access::Public, requests: |_| no_body("/api/contract.ts"), owner_status: 200 },
    Rule { method: "GET", path: "/api/openapi.json", access: Access::Public, requests: |_| no_body("/api/openapi.json"), owner_status: 200 },
    Rule {
        method: "POST",
        path: "/api/admin/backup",
        access: Access::Operator,
        requests: |_| with_body("/api/admin/backup", json!({})),
        owner_status: 200,
    },
    Rule { method: "GET", path: "/api/auth/me", access: Access::Owner, requests: |_| no_body("/api/auth/me"), owner_status: 200 },
    Rule { method: "GET", path: "/api/auth/user", access: Access::Owner, requests: |_| no_body("/api/auth/user"), owner_status: 200 },
    Rule {
        method: "POST",
        path: "/api/auth/login",
        access: Access::Public,
        requests: |target| with_body("/api/auth/login", json!({ "email": target.email, "password": PASSWORD })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/auth/signup",
        access: Access::Public,
        requests: |_| with_body("/api/auth/signup", crate::common::standalone_signup_body("erin@example.org", PASSWORD)),
        owner_status: 201,
    },
    Rule { method: "POST", path: "/api/auth/logout", access: Access::Public, requests: |_| no_body("/api/auth/logout"), owner_status: 200 },
    Rule {
        method: "POST",
        path: "/api/auth/resend-verification",
        access: Access::Public,
        requests: |target| with_body("/api/auth/resend-verification", json!({ "email": target.email })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/signup",
        access: Access::Public,
        requests: |_| with_body("/api/signup", crate::common::signup_body("frank@example.org", PASSWORD)),
        owner_status: 201,
    },
    Rule {
        method: "POST",
        path: "/api/forgot-password",
        access: Access::Public,
        // Another account's address: a new reset link for the owner would void the one the
        // reset-password row uses.
        requests: |_| with_body("/api/forgot-password", json!({ "email": "bob@example.org" })),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/verify-email",
        access: Access::Secret,
        requests: |target| no_body(&format!("/api/verify-email?token={}", target.verification_token)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/users/{user_id}/preferences",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/preferences"), None),
        owner_status: 200,
    },
    Rule {
        method: "PATCH",
        path: "/api/users/{user_id}/preferences",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/preferences"), Some(json!({ "deliveryDay": "friday" }))),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/users/{user_id}/export",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/export"), None),
        owner_status: 200,
    },
    Rule {
        // The owner's row sends a wrong password (403, nothing deleted): the rows after it need
        // the account.
        method: "POST",
        path: "/api/users/{user_id}/delete",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/delete"), Some(json!({ "password": "Not-the-password-1" }))),
        owner_status: 403,
    },
    Rule {
        // After verify-email, which signs Dan in.
        method: "DELETE",
        path: "/api/admin/users/{user_id}",
        access: Access::Operator,
        requests: |target| no_body(&format!("/api/admin/users/{}", target.spare_id)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/users/{user_email}",
        access: Access::Owner,
        requests: |target| {
            let mut requests = by_id_and_email(target, |user| format!("/api/users/{user}"), None);
            requests.rotate_left(1);
            requests
        },
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/users/{user_id}/search-terms",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/search-terms"), None),
        owner_status: 200,
    },
    // The rating routes run before the term is renamed or deleted (its digest is of its text).
    Rule {
        method: "GET",
        path: "/api/search-terms/{term_id}/ratings",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/ratings", target.term_id)),
        owner_status: 200,
    },
    Rule {
        method: "PUT",
        path: "/api/search-terms/{term_id}/ratings",
        access: Access::Owner,
        requests: |target| {
            let body = json!({ "digestId": target.digest_id, "paperKey": target.paper_key, "verdict": "notRelevant" });
            with_body(&format!("/api/search-terms/{}/ratings", target.term_id), body)
        },
        owner_status: 200,
    },
    Rule {
        method: "DELETE",
        path: "/api/search-terms/{term_id}/ratings",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/ratings?paperKey={}", target.term_id, target.paper_key)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/ratings/link",
        access: Access::Secret,
        requests: |target| no_body(&format!("/api/ratings/link?token={}", target.rating_token)),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/ratings/link",
        access: Access::Secret,
        requests: |target| with_body("/api/ratings/link", json!({ "token": target.rating_token })),
        owner_status: 200,
    },
    // Seeds, feeds, citations and lab channels, before the term is renamed or deleted.
    Rule {
        // The owner's row sends a line that is no identifier: refused after the term is found.
        method: "POST",
        path: "/api/search-terms/{term_id}/seeds",
        access: Access::Owner,
        requests: |target| with_body(&format!("/api/search-terms/{}/seeds", target.term_id), json!({ "ids": "not an identifier" })),
        owner_status: 400,
    },
    Rule { method: "GET", path: "/api/feeds", access: Access::Owner, requests: |_| no_body("/api/feeds"), owner_status: 200 },
    Rule { method: "POST", path: "/api/feeds/renew", access: Access::Owner, requests: |_| no_body("/api/feeds/renew"), owner_status: 200 },
    Rule {
        method: "GET",
        path: "/api/papers/citation",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/papers/citation?key={}&format=bibtex", target.paper_key)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/digests/{digest_id}/citations",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/digests/{}/citations?format=ris", target.digest_id)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/search-terms/{term_id}/citations",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/citations", target.term_id)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/citations/link",
        access: Access::Secret,
        requests: |target| no_body(&format!("/api/citations/link?token={}", target.citation_token)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/search-terms/{term_id}/channel",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/channel", target.term_id)),
        owner_status: 200,
    },
    Rule {
        // Ada is on the Pro plan: lab channels are the Team plan's.
        method: "PUT",
        path: "/api/search-terms/{term_id}/channel",
        access: Access::Owner,
        requests: |target| with_body(&format!("/api/search-terms/{}/channel", target.term_id), json!({ "url": "https://hooks.example.org/x" })),
        owner_status: 403,
    },
    Rule {
        method: "POST",
        path: "/api/search-terms/{term_id}/channel/test",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/channel/test", target.term_id)),
        owner_status: 403,
    },
    Rule {
        // Ada's term has no channel.
        method: "DELETE",
        path: "/api/search-terms/{term_id}/channel",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}/channel", target.term_id)),
        owner_status: 404,
    },
    Rule { method: "GET", path: "/api/admin/channels", access: Access::Operator, requests: |_| no_body("/api/admin/channels"), owner_status: 200 },
    Rule {
        method: "PATCH",
        path: "/api/search-terms/{term_id}",
        access: Access::Owner,
        requests: |target| with_body(&format!("/api/search-terms/{}", target.term_id), json!({ "term": "kidney organoid growth" })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/immediate-search",
        access: Access::Owner,
        requests: |target| {
            let search =
                |email: &str| ("/api/immediate-search".to_owned(), Some(json!({ "email": email, "searchTerm": "kidney organoid maturation" })));
            vec![search(&target.email), search(&target.email.to_uppercase())]
        },
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/resend-email",
        access: Access::Owner,
        requests: |_| with_body("/api/resend-email", json!({ "searchTerm": "kidney organoid maturation" })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/test-email",
        access: Access::OwnerOrOperator,
        requests: |target| with_body("/api/test-email", json!({ "email": target.email, "type": "welcome" })),
        owner_status: 200,
    },
    Rule { method: "POST", path: "/api/trigger-digest", access: Access::Owner, requests: |_| no_body("/api/trigger-digest"), owner_status: 200 },
    Rule {
        method: "GET",
        path: "/api/users/{user_id}/digests",
        access: Access::Owner,
        requests: |target| by_id_and_email(target, |user| format!("/api/users/{user}/digests"), None),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/unsubscribe/{token}",
        access: Access::Secret,
        requests: |target| no_body(&format!("/api/unsubscribe/{}", target.unsubscribe_token)),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/unsubscribe/{token}",
        access: Access::Secret,
        requests: |target| no_body(&format!("/api/unsubscribe/{}", target.unsubscribe_token)),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/create-subscription",
        access: Access::Owner,
        requests: |_| with_body("/api/create-subscription", json!({ "tier": "pro" })),
        owner_status: 200,
    },
    Rule {
        // The owner is on a paid plan: Checkout cannot change it, and the answer says so.
        method: "POST",
        path: "/api/create-checkout-session",
        access: Access::Owner,
        requests: |_| with_body("/api/create-checkout-session", json!({ "tier": "team" })),
        owner_status: 409,
    },
    Rule {
        method: "GET",
        path: "/api/session-status",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/session-status?session_id={}", target.checkout_session_id)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/subscriptions/{subscription_id}/status",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/subscriptions/{}/status", target.subscription_id)),
        owner_status: 200,
    },
    Rule {
        method: "GET",
        path: "/api/debug-webhook-status",
        access: Access::Owner,
        requests: |_| no_body("/api/debug-webhook-status"),
        owner_status: 200,
    },
    Rule { method: "POST", path: "/api/fix-subscription", access: Access::Owner, requests: |_| no_body("/api/fix-subscription"), owner_status: 200 },
    Rule {
        method: "POST",
        path: "/api/admin/users/{user_id}/repair-subscription",
        access: Access::Operator,
        requests: |target| no_body(&format!("/api/admin/users/{}/repair-subscription", target.id)),
        owner_status: 200,
    },
    Rule { method: "GET", path: "/api/admin/stats", access: Access::Operator, requests: |_| no_body("/api/admin/stats"), owner_status: 200 },
    Rule {
        method: "GET",
        path: "/api/admin/users",
        access: Access::Operator,
        requests: |_| no_body("/api/admin/users?q=example&plan=pro&verified=true&page=1"),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/admin/users/{user_id}/plan",
        access: Access::Operator,
        requests: |target| with_body(&format!("/api/admin/users/{}/plan", target.other_id), json!({ "plan": "free" })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/admin/users/{user_id}/operator",
        access: Access::Operator,
        requests: |target| with_body(&format!("/api/admin/users/{}/operator", target.other_id), json!({ "operator": false })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/admin/users/{user_id}/disabled",
        access: Access::Operator,
        requests: |target| with_body(&format!("/api/admin/users/{}/disabled", target.other_id), json!({ "disabled": false })),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/admin/users/{user_id}/resend-verification",
        access: Access::Operator,
        requests: |target| no_body(&format!("/api/admin/users/{}/resend-verification", target.unverified_id)),
        owner_status: 200,
    },
    Rule { method: "GET", path: "/api/admin/sources", access: Access::Operator, requests: |_| no_body("/api/admin/sources"), owner_status: 200 },
    Rule {
        // This server harvests no source: the operator gets through to "not harvested here".
        method: "POST",
        path: "/api/admin/sources/{source}/harvest",
        access: Access::Operator,
        requests: |_| no_body("/api/admin/sources/pubmed/harvest"),
        owner_status: 404,
    },
    Rule { method: "GET", path: "/api/admin/mail", access: Access::Operator, requests: |_| no_body("/api/admin/mail"), owner_status: 200 },
    Rule {
        // No mail was given up here: the operator gets through to "no such mail" (tests::admin
        // retries a real one).
        method: "POST",
        path: "/api/admin/mail/dead/{mail_id}/retry",
        access: Access::Operator,
        requests: |_| no_body("/api/admin/mail/dead/4242/retry"),
        owner_status: 404,
    },
    Rule {
        method: "DELETE",
        path: "/api/admin/mail/dead/{mail_id}",
        access: Access::Operator,
        requests: |_| no_body("/api/admin/mail/dead/4242"),
        owner_status: 404,
    },
    Rule { method: "GET", path: "/api/admin/billing", access: Access::Operator, requests: |_| no_body("/api/admin/billing"), owner_status: 200 },
    Rule {
        method: "POST",
        path: "/api/stripe/webhook",
        access: Access::Secret,
        requests: |target| {
            let object = json!({ "id": target.subscription_id, "object": "subscription" });
            with_body("/api/stripe/webhook", event("evt_matrix_1", "customer.subscription.updated", object))
        },
        owner_status: 200,
    },
    Rule {
        method: "DELETE",
        path: "/api/search-terms/{term_id}",
        access: Access::Owner,
        requests: |target| no_body(&format!("/api/search-terms/{}", target.term_id)),
        owner_status: 200,
    },
    Rule {
        method: "POST",
        path: "/api/cancel-subscription",
        access: Access::Owner,
        requests: |_| no_body("/api/cancel-subscription"),
        owner_status: 200,
    },
    Rule {
        // Last: a reset ends the owner's sessions.
        method: "POST",
        path: "/api/reset-password",
        access: Access::Secret,
        requests: |target| {
            let password = "Another-456";
            with_body("/api/reset-password", json!({ "token": target.reset_token, "password": password, "confirmPassword": password }))
        },
        owner_status: 200,
    },
];

struct Matrix {
    billing: Billing,
    ada: Client,
    bob: Client,
    carol: Client,
    anonymous: Client,
    target: Target,
    /// The backup folder the server is configured with (outside its data directory).
    _backups: tempfile::TempDir,
}

impl Matrix {
    /// Ada (the owner: pro plan, one term, a digest, a checkout session), Bob (another user),
    /// Carol (an operator), and the secrets Ada was mailed.
    async fn start() -> Matrix {
        let backups = tempfile::tempdir().expect("a backup folder");
        let billing = Billing::start_with(|serve| {
            serve.admin_emails = Some(vec!["carol@example.org".into()]);
            serve.backup_dir = Some(backups.path().to_owned());
        })
        .await;
        let server = &billing.server;
        let ada = billing.user("ada@example.org", 1).await;
        let checkout = ada.post("/api/create-checkout-session", json!({ "tier": "pro" })).await;
        assert_eq!(checkout.status, 200, "{}", checkout.body);
        let paid = billing.pay(&ada, "pro", CARD_OK).await;
        assert_eq!(paid.status, 200, "{}", paid.body);
        billing.wait_for_tier("ada@example.org", engine::Tier::Pro).await;
        // localstripe delivers its own webhooks for the payment about two seconds later.
        tokio::time::sleep(Duration::from_millis(3000)).await;
        let bob = billing.user("bob@example.org", 1).await;
        let carol = billing.user("carol@example.org", 0).await;
        server.sign_up(&server.client(), "gina@example.org").await;

        let user = billing.user_record("ada@example.org");
        let term = server.state.store.terms().of_user(user.id).expect("db").into_iter().next().expect("Ada's term");
        let anonymous = server.client();
        assert_eq!(anonymous.post("/api/forgot-password", json!({ "email": "ada@example.org" })).await.status, 200);
        let reset_mail = server.wait_for_mail_to("ada@example.org", "Reset").await;
        let dan = server.client();
        let verification_link = server.sign_up(&dan, "dan@example.org").await;
        let digest = digest_with_a_paper(server, &user, &term.term).await;
        let paper_key = digest.papers_data[0].keys[0].clone();
        let rating_key = server.state.store.ratings().link_key().expect("db");
        let claim = engine::signed::RatingClaim::new(user.id, digest.id, 0, engine::rating::Verdict::Relevant, chrono::Utc::now());
        let target = Target {
            id: user.id.to_string(),
            email: user.email.clone(),
            term_id: term.id.to_string(),
            subscription_id: paid.body["subscriptionId"].as_str().expect("a subscription").to_owned(),
            checkout_session_id: checkout_session_id(&checkout),
            unsubscribe_token: server.state.store.digests().unsubscribe_token(user.id).expect("db"),
            reset_token: token_of(&link_in(&reset_mail, "token=")),
            verification_token: token_of(&verification_link),
            digest_id: digest.id.to_string(),
            paper_key,
            rating_token: claim.sign(&rating_key),
            citation_token: engine::signed::CitationClaim { user_id: user.id, digest_id: digest.id }.sign(&rating_key),
            spare_id: billing.user_record("dan@example.org").id.to_string(),
            other_id: billing.user_record("bob@example.org").id.to_string(),
            unverified_id: billing.user_record("gina@example.org").id.to_string(),
        };
        Matrix { billing, ada, bob, carol, anonymous, target, _backups: backups }
    }

    /// Every entry of the database once it has settled: the mail queue drained, and no write for
    /// 300 ms (a call's mail, Stripe's webhooks and digests run after the answer).
    async fn settled_entries(&self) -> Vec<store::RawEntry> {
        let server = &self.billing.server;
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            server.wait_for_empty_queue().await;
            let first = server.state.store.raw_entries().expect("the database reads");
            tokio::time::sleep(Duration::from_millis(300)).await;
            let second = server.state.store.raw_entries().expect("the database reads");
            if first == second || Instant::now() > deadline {
                return second;
            }
        }
    }

    /// Sends `request` as `caller` and checks it was refused with `expected` and wrote nothing.
    async fn refused(&self, rule: &Rule, who: &str, caller: &Client, path: &str, body: Option<&Value>, expected: &[u16]) -> Answer {
        let before = self.settled_entries().await;
        let answer = caller.send(rule.method, path, body).await;
        assert!(expected.contains(&answer.status), "{} {path} as {who}: {} {}", rule.method, answer.status, answer.body);
        assert!(answer.message().len() > 3, "{} {path} as {who}: a message: {}", rule.method, answer.body);
        let after = self.settled_entries().await;
        let changed = after.iter().filter(|entry| !before.contains(entry)).chain(before.iter().filter(|entry| !after.contains(entry)));
        // localstripe delivers webhooks for the owner's payment whenever it likes; the log of
        // events applied is theirs, not the refused call's. Likewise the janitor's compaction
        // clears the erasure mark an earlier deletion left, whenever it runs.
        let is_background = |(tree, key, _): &&store::RawEntry| tree == "stripe_events" || (tree == "meta" && key.as_slice() == b"erasure_pending");
        let written: BTreeSet<&str> = changed.filter(|entry| !is_background(entry)).map(|(tree, ..)| tree.as_str()).collect();
        assert!(written.is_empty(), "{} {path} as {who} was refused but wrote to {written:?}", rule.method);
        answer
    }
}

#[actix_web::test]
async fn every_route_lets_only_its_owner_through_and_refusals_write_nothing() {
    let matrix = Matrix::start().await;
    let table = web::app::api_route_table();
    for route in table.routes() {
        let has_rule = RULES.iter().any(|rule| rule.method == route.method.as_str() && rule.path == route.path);
        assert!(has_rule, "{} {} has no rule in the access matrix: add one", route.method, route.path);
    }
    assert_eq!(RULES.len(), table.routes().len(), "every rule names a route the router has");

    let target = &matrix.target;
    for rule in RULES {
        let requests = (rule.requests)(target);
        match rule.access {
            Access::Owner | Access::OwnerOrOperator => {
                for (path, body) in &requests {
                    matrix.refused(rule, "anonymous", &matrix.anonymous, path, body.as_ref(), &[401]).await;
                }
                if names_the_owner(target, &requests) {
                    for (who, caller) in [("another user", &matrix.bob), ("an operator", &matrix.carol)] {
                        if who == "an operator" && rule.access == Access::OwnerOrOperator {
                            continue;
                        }
                        for (path, body) in &requests {
                            matrix.refused(rule, who, caller, path, body.as_ref(), &[403, 404]).await;
                        }
                    }
                } else {
                    // The route acts on the caller's own account: another user gets their own,
                    // never a trace of the owner's.
                    let (path, body) = &requests[0];
                    let answer = matrix.bob.send(rule.method, path, body.as_ref()).await;
                    let text = answer.body.to_string();
                    for secret in [&target.email, &target.id, &target.subscription_id] {
                        assert!(!text.contains(secret.as_str()), "{} {path} as another user shows the owner's {secret}: {text}", rule.method);
                    }
                }
            }
            Access::Secret => {
                let (path, body) = &requests[0];
                let (forged_path, forged_body) = forged(rule, path, body.as_ref());
                matrix
                    .refused(rule, "a caller without the secret", &matrix.anonymous, &forged_path, forged_body.as_ref(), &[400, 401, 403, 404])
                    .await;
            }
            Access::Operator => {
                for (path, body) in &requests {
                    matrix.refused(rule, "anonymous", &matrix.anonymous, path, body.as_ref(), &[401]).await;
                    for (who, caller) in [("another user", &matrix.bob), ("the owner", &matrix.ada)] {
                        let answer = matrix.refused(rule, who, caller, path, body.as_ref(), &[403]).await;
                        assert_eq!(answer.body["code"], "operator_only", "{} {path} as {who}: {}", rule.method, answer.body);
                    }
                }
            }
            Access::Public => {}
        }
        if rule.access == Access::OwnerOrOperator {
            let (path, body) = &requests[0];
            let answer = matrix.carol.send(rule.method, path, body.as_ref()).await;
            assert_eq!(answer.status, 200, "{} {path} as an operator: {}", rule.method, answer.body);
        }
        let (path, body) = &requests[0];
        // Public and secret calls go out from a new browser each, so a sign-in they make stays there.
        let stranger = matrix.billing.server.client();
        let caller = match rule.access {
            Access::Public | Access::Secret => &stranger,
            Access::Owner | Access::OwnerOrOperator => &matrix.ada,
            Access::Operator => &matrix.carol,
        };
        let answer = if rule.path == "/api/stripe/webhook" {
            matrix.billing.webhook(body.as_ref().expect("an event"), chrono::Utc::now().timestamp(), WEBHOOK_SECRET).await
        } else {
            caller.send(rule.method, path, body.as_ref()).await
        };
        assert_eq!(answer.status, rule.owner_status, "{} {path} as the owner: {}", rule.method, answer.body);
    }
}

/// The Checkout Session's id, the part of its client secret before `_secret_`.
fn checkout_session_id(answer: &Answer) -> String {
    let secret = answer.body["clientSecret"].as_str().expect("a Checkout client secret");
    secret.split("_secret_").next().unwrap_or_default().to_owned()
}

/// Whether the requests name one of the owner's records (rather than act on the caller's own
/// account).
fn names_the_owner(target: &Target, requests: &[Request]) -> bool {
    let records = [&target.id, &target.email, &target.term_id, &target.subscription_id, &target.checkout_session_id];
    requests.iter().any(|(path, body)| {
        let text = format!("{path} {}", body.as_ref().map(Value::to_string).unwrap_or_default());
        records.iter().any(|record| text.contains(record.as_str()))
    })
}

/// Records a digest of `term` with one paper for `user`, as if it was mailed: made for the
/// user's stored term of that text, if there is one.
pub(crate) async fn digest_with_a_paper(server: &crate::common::TestServer, user: &store::User, term: &str) -> engine::digest::Digest {
    let stored = server.state.store.terms().of_user(user.id).expect("terms").into_iter().find(|stored| stored.term == term);
    let entry = engine::digest::DigestEntry {
        title: "Kidney organoids mature".into(),
        url: None,
        authors: "A. Author".into(),
        journal: None,
        abstract_text: String::new(),
        source: engine::paper::Source::Pubmed,
        sources: vec![engine::paper::Source::Pubmed],
        relevance_score: 0.8,
        impact: 0.5,
        summary: String::new(),
        reason: String::new(),
        retracted: false,
        keys: vec!["pmid:31415".into()],
        links: Vec::new(),
    };
    let digest = engine::digest::Digest {
        id: uuid::Uuid::new_v4(),
        user_id: user.id,
        digest_type: engine::digest::DigestKind::Immediate,
        search_term: term.to_owned(),
        term_id: stored.map(|stored| stored.id),
        searched_as: None,
        papers_data: vec![entry],
        ai_summary: String::new(),
        subject: String::new(),
        status: engine::digest::DigestStatus::Sent,
        sent_at: chrono::Utc::now(),
        sent_before: 0,
        widened: None,
    };
    let mail = store::DigestMail { to: user.email.clone(), subject: "digest".into(), list_unsubscribe: None };
    server.state.store.record_digest(&digest, &mail, chrono::Utc::now()).expect("recorded");
    server.wait_for_empty_queue().await;
    digest
}

/// The request with its secret replaced by a well-formed guess (or, for the webhook, no
/// signature).
fn forged(rule: &Rule, path: &str, body: Option<&Value>) -> (String, Option<Value>) {
    let guess = "A".repeat(43);
    match rule.path {
        "/api/reset-password" => {
            let mut body = body.cloned().expect("a body");
            body["token"] = json!(guess);
            (path.to_owned(), Some(body))
        }
        "/api/verify-email" => (format!("/api/verify-email?token={guess}"), None),
        "/api/unsubscribe/{token}" => (format!("/api/unsubscribe/{guess}"), None),
        "/api/ratings/link" if body.is_some() => (path.to_owned(), Some(json!({ "token": guess }))),
        "/api/ratings/link" => (format!("/api/ratings/link?token={guess}"), None),
        "/api/citations/link" => (format!("/api/citations/link?token={guess}"), None),
        _ => (path.to_owned(), body.cloned()),
    }
}
