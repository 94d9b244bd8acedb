//! Where researchers already work, over HTTP: a term seeded from papers the researcher knows
//! (found in the index or at PubMed, replayed; refused whole when any line is bad), private Atom
//! feeds (conditional requests, renewal, refusals), citations (a paper, a digest, a term's
//! history, and the digest mail's link) and lab channels (posted once to a local receiver;
//! refused to other plans and private addresses). Each with anonymous, other-user and owner
//! calls, and bad input that changes nothing.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::{link_in, Client, TestServer};

const TOPIC: &str = "phthalate toxicity";
/// Two papers of the recorded batch about peroxisome proliferation, as a Zotero BibTeX export.
const BIBTEX: &str = r#"@article{conway1986,
  title = {Di-n-octyl phthalate ({DOP}), a relatively ineffective peroxisome inducing straight chain isomer},
  journal = {Toxicology},
  year = {1986},
  doi = {10.1016/0300-483x(86)90182-4},
}

@article{bronfman1984,
  title = {Induction of rat hepatic long-chain acyl-{CoA} hydrolases by various peroxisome proliferators},
  year = {1984},
  doi = {10.1016/0006-2952(84)90517-3},
}
"#;
/// Two more of the batch, by PMID.
const PMIDS: &str = "6677511\nPMID: 3383337\n";

async fn seeded_user(server: &TestServer, email: &str) -> Client {
    let client = server.client();
    server.verified_user(&client, email).await;
    client
}

fn seeds(ids: &str, file: Option<&str>) -> Value {
    json!({ "ids": ids, "file": file })
}

fn titles(answer: &Value) -> Vec<String> {
    answer["seeded"]
        .as_array()
        .map(|papers| papers.iter().map(|paper| paper["title"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

#[actix_web::test]
async fn a_term_seeded_from_a_bibtex_file_and_pmids_learns_from_its_first_digest_and_never_sends_them() {
    // With the model, as the service runs: the seeds move the topic's meaning.
    let server = TestServer::start_with_embedding_model().await;
    let papers = server.index_recorded_papers().await;
    let client = seeded_user(&server, "ada@example.org").await;
    crate::first_week::wait_for_embeddings(&client, papers).await;

    let answer =
        client.post("/api/immediate-search", json!({ "email": "ada@example.org", "searchTerm": TOPIC, "seeds": seeds(PMIDS, Some(BIBTEX)) })).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["seeded"].as_array().map(Vec::len), Some(4), "{}", answer.body);
    assert!(answer.body["seeded"].as_array().into_iter().flatten().all(|paper| paper["foundIn"] == "index"));
    assert!(titles(&answer.body).iter().any(|title| title.starts_with("Species differences")), "{:?}", titles(&answer.body));

    // The seeds are the term's ratings, marked seeded.
    let term_id = answer.body["termId"].as_str().expect("a term").to_owned();
    let ratings = client.get(&format!("/api/search-terms/{term_id}/ratings")).await;
    let ratings = ratings.body.as_array().cloned().unwrap_or_default();
    assert_eq!(ratings.len(), 4);
    assert!(ratings.iter().all(|rating| rating["seeded"] == true && rating["verdict"] == "relevant" && rating["digestId"].is_null()));

    // The first digest never sends a seed back, and says which papers the seeds moved.
    let digest = server.latest_digest_of("ada@example.org");
    let seed_keys: Vec<String> = ratings.iter().map(|rating| rating["paperKey"].as_str().unwrap_or_default().to_owned()).collect();
    assert!(!digest.papers_data.is_empty());
    assert!(digest.papers_data.iter().all(|entry| !entry.keys.iter().any(|key| seed_keys.contains(key))), "a seed was sent back");
    assert!(
        digest.papers_data.iter().any(|entry| entry.reason.contains("ranked higher by the papers you seeded it with")),
        "no reason names the seeds: {:?}",
        digest.papers_data.iter().map(|entry| &entry.reason).collect::<Vec<_>>()
    );

    // Removable like any rating; exported with the account.
    let key = seed_keys[0].clone();
    assert_eq!(client.delete(&format!("/api/search-terms/{term_id}/ratings?paperKey={key}")).await.status, 200);
    let export = client.get(&format!("/api/users/{}/export", "ada@example.org")).await;
    let exported = export.body["ratings"].as_array().cloned().unwrap_or_default();
    assert_eq!(exported.len(), 3);
    assert!(exported.iter().all(|rating| rating["seeded"] == true));
}

#[actix_web::test]
async fn a_bad_line_refuses_every_seed_and_makes_no_term() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let client = seeded_user(&server, "bob@example.org").await;
    let before = settled(&server).await;

    let answer = client
        .post(
            "/api/immediate-search",
            json!({ "email": "bob@example.org", "searchTerm": TOPIC, "seeds": seeds("6677511\nnot an id\n99999999", Some("just some text")) }),
        )
        .await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    let messages: Vec<&str> = answer.body["errors"].as_array().into_iter().flatten().filter_map(|error| error["message"].as_str()).collect();
    assert!(messages.iter().any(|message| message.starts_with("Line 2 (\"not an id\")")), "{messages:?}");
    assert!(messages.contains(&"The file is neither BibTeX nor RIS"), "{messages:?}");
    assert_eq!(settled(&server).await, before, "nothing is saved");

    // Readable lines, one paper not found (PubMed is not reachable in tests: no source is named).
    let answer = client
        .post("/api/immediate-search", json!({ "email": "bob@example.org", "searchTerm": TOPIC, "seeds": seeds("6677511\n99999999", None) }))
        .await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.body["errors"][0]["message"].as_str().unwrap_or_default().starts_with("Line 2 (\"99999999\")"), "{}", answer.body);
    assert_eq!(settled(&server).await, before, "nothing is saved");
    let user = server.state.store.accounts().user_by_email("bob@example.org").expect("db").expect("bob");
    assert!(server.state.store.terms().of_user(user.id).expect("db").is_empty());
}

#[actix_web::test]
async fn only_the_owner_seeds_a_term() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let owner = seeded_user(&server, "cy@example.org").await;
    let answer = owner.post("/api/immediate-search", json!({ "email": "cy@example.org", "searchTerm": TOPIC })).await;
    let term_id = answer.body["termId"].as_str().expect("a term").to_owned();
    let path = format!("/api/search-terms/{term_id}/seeds");

    let before = settled(&server).await;
    assert_eq!(server.client().post(&path, seeds(PMIDS, None)).await.status, 401);
    assert_eq!(settled(&server).await, before);
    let other = seeded_user(&server, "dee@example.org").await;
    let before_other = settled(&server).await;
    assert_eq!(other.post(&path, seeds(PMIDS, None)).await.status, 404);
    assert_eq!(settled(&server).await, before_other);

    let added = owner.post(&path, seeds(PMIDS, None)).await;
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(added.body["seeded"].as_array().map(Vec::len), Some(2));
    assert_eq!(owner.post(&path, json!({ "ids": "6677511", "extra": true })).await.status, 400, "unknown fields are refused");
    assert_eq!(owner.post(&path, seeds("", None)).await.status, 400, "nothing given");
}

#[actix_web::test]
async fn seeds_given_at_signup_wait_for_the_topic_and_then_seed_it() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let client = server.client();
    let mut body = crate::common::signup_body("eve@example.org", crate::common::PASSWORD);
    body["pendingSearch"] = json!(TOPIC);
    body["seeds"] = seeds(PMIDS, None);
    let answer = client.post("/api/signup", body.clone()).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.body["seeded"].as_array().map(Vec::len), Some(2));
    let user = server.state.store.accounts().user_by_email("eve@example.org").expect("db").expect("eve");
    assert_eq!(user.pending_seeds.len(), 2);

    // Seeds without a topic are refused.
    let mut without_topic = crate::common::signup_body("fay@example.org", crate::common::PASSWORD);
    without_topic["seeds"] = seeds(PMIDS, None);
    assert_eq!(client.post("/api/signup", without_topic).await.status, 400);

    let link = server.wait_for_mail_to("eve@example.org", "Verify").await;
    let verified = client.get(&format!("/api/verify-email?token={}", crate::common::token_of(&link_in(&link, "verify-email")))).await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    let searched = client.post("/api/immediate-search", json!({ "email": "eve@example.org", "searchTerm": TOPIC })).await;
    assert_eq!(searched.status, 200, "{}", searched.body);
    assert_eq!(searched.body["seeded"].as_array().map(Vec::len), Some(2));
    let user = server.state.store.accounts().user_by_email("eve@example.org").expect("db").expect("eve");
    assert!(user.pending_seeds.is_empty());
    let term_id = searched.body["termId"].as_str().expect("a term");
    let ratings = client.get(&format!("/api/search-terms/{term_id}/ratings")).await;
    assert_eq!(ratings.body.as_array().map(Vec::len), Some(2));
}

/// A user with a digest of [`TOPIC`] (the recorded batch indexed).
async fn user_with_digest(server: &TestServer, email: &str) -> (Client, String, String) {
    let client = seeded_user(server, email).await;
    let answer = client.post("/api/immediate-search", json!({ "email": email, "searchTerm": TOPIC })).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let term_id = answer.body["termId"].as_str().expect("a term").to_owned();
    let digest_id = answer.body["digestId"].as_str().expect("a digest").to_owned();
    (client, term_id, digest_id)
}

#[actix_web::test]
async fn private_feeds_answer_their_owner_cheaply_until_renewed() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let (client, term_id, _) = user_with_digest(&server, "gus@example.org").await;
    assert_eq!(server.client().get("/api/feeds").await.status, 401);

    let feeds = client.get("/api/feeds").await;
    assert_eq!(feeds.status, 200, "{}", feeds.body);
    let digests_url = feeds.body["digestsUrl"].as_str().expect("a url").to_owned();
    let term_url = feeds.body["terms"][0]["url"].as_str().expect("a term feed").to_owned();
    assert!(term_url.ends_with(&format!("/terms/{term_id}.atom")));
    let reader = reqwest::Client::new();

    let feed = reader.get(&digests_url).send().await.expect("answers");
    assert_eq!(feed.status(), 200);
    assert_eq!(feed.headers()["content-type"], "application/atom+xml; charset=utf-8");
    let etag = feed.headers()["etag"].to_str().expect("ascii").to_owned();
    let modified = feed.headers()["last-modified"].to_str().expect("ascii").to_owned();
    let xml = feed.text().await.expect("text");
    let digest = server.latest_digest_of("gus@example.org");
    assert!(xml.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\""), "{xml}");
    assert_eq!(xml.matches("<entry>").count(), digest.papers_data.len());
    assert!(xml.contains("% relevant."), "the percent and reason are in each entry");

    // A reader's conditional requests: 304 while nothing changed.
    let again = reader.get(&digests_url).header("If-None-Match", &etag).send().await.expect("answers");
    assert_eq!(again.status(), 304);
    let since = reader.get(&digests_url).header("If-Modified-Since", &modified).send().await.expect("answers");
    assert_eq!(since.status(), 304);
    assert_eq!(reader.get(&term_url).send().await.expect("answers").status(), 200);

    // Another user's term through one's own token, and a bent token: not there.
    let (_, other_term, _) = user_with_digest(&server, "hal@example.org").await;
    let foreign = term_url.replace(&term_id, &other_term);
    assert_eq!(reader.get(&foreign).send().await.expect("answers").status(), 404);
    let bent = digests_url.replace("/feeds/", "/feeds/00");
    assert_eq!(reader.get(&bent).send().await.expect("answers").status(), 404);

    // Renewing ends the old addresses.
    let renewed = client.post("/api/feeds/renew", json!({})).await;
    assert_eq!(renewed.status, 200);
    let new_url = renewed.body["digestsUrl"].as_str().expect("a url").to_owned();
    assert_ne!(new_url, digests_url);
    assert_eq!(reader.get(&digests_url).send().await.expect("answers").status(), 404);
    assert_eq!(reader.get(&new_url).send().await.expect("answers").status(), 200);

    // A disabled account's feeds stop.
    let user = server.state.store.accounts().user_by_email("gus@example.org").expect("db").expect("gus");
    server.state.store.accounts().update_user(user.id, |user| user.is_active = false).expect("disabled");
    assert_eq!(reader.get(&new_url).send().await.expect("answers").status(), 404);
}

#[actix_web::test]
async fn citations_download_for_their_owner_and_from_the_digest_mail() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let (client, term_id, digest_id) = user_with_digest(&server, "ida@example.org").await;
    let digest = server.latest_digest_of("ida@example.org");
    let count = digest.papers_data.len();

    let ris = client.get(&format!("/api/digests/{digest_id}/citations?format=ris")).await;
    assert_eq!(ris.status, 200);
    assert!(ris.header("content-disposition").is_some_and(|value| value.starts_with("attachment; filename=\"papertide-phthalate-toxicity-")));
    let text = ris.body.as_str().unwrap_or_default().to_owned();
    assert_eq!(text.matches("TY  - ").count(), count, "{text}");
    assert_eq!(text.matches("ER  - ").count(), count);
    let bibtex = client.get(&format!("/api/digests/{digest_id}/citations?format=bibtex")).await;
    assert_eq!(bibtex.body.as_str().unwrap_or_default().matches("\n@").count() + 1, count, "{}", bibtex.body);

    let key = digest.papers_data[0].keys[0].clone();
    let one = client.get(&format!("/api/papers/citation?key={key}&format=ris")).await;
    assert_eq!(one.status, 200);
    assert!(one.body.as_str().unwrap_or_default().contains(&digest.papers_data[0].title));
    let history = client.get(&format!("/api/search-terms/{term_id}/citations?format=ris")).await;
    assert_eq!(history.body.as_str().unwrap_or_default().matches("TY  - ").count(), count);
    assert_eq!(client.get(&format!("/api/digests/{digest_id}/citations?format=word")).await.status, 400);
    assert_eq!(client.get("/api/papers/citation?key=pmid:1&format=ris").await.status, 404, "not in the user's digests");

    // Nobody else gets them.
    assert_eq!(server.client().get(&format!("/api/digests/{digest_id}/citations")).await.status, 401);
    let other = seeded_user(&server, "jo@example.org").await;
    assert_eq!(other.get(&format!("/api/digests/{digest_id}/citations")).await.status, 404);
    assert_eq!(other.get(&format!("/api/search-terms/{term_id}/citations")).await.status, 404);
    assert_eq!(other.get(&format!("/api/papers/citation?key={key}")).await.status, 404);

    // The mail's link works without signing in; a bent one is refused.
    let mail = server.wait_for_mail_to("ida@example.org", "Papertide: ").await;
    let link = link_in(&mail, "/api/citations/link");
    let path = link.trim_start_matches(server.base.as_str()).to_owned();
    let anonymous = server.client();
    let from_mail = anonymous.get(&path).await;
    assert_eq!(from_mail.status, 200, "{path}");
    assert_eq!(from_mail.body.as_str().unwrap_or_default().matches("TY  - ").count(), count);
    let bent = anonymous.get(&path.replace("token=", "token=00")).await;
    assert_eq!(bent.status, 400);
}

/// A local webhook receiver: every body it was posted, answered with `status`.
pub(crate) struct Receiver {
    pub(crate) url: String,
    pub(crate) bodies: Arc<Mutex<Vec<Value>>>,
    pub(crate) status: Arc<Mutex<u16>>,
}

pub(crate) async fn receiver() -> Receiver {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let status = Arc::new(Mutex::new(200u16));
    let (kept, answer) = (bodies.clone(), status.clone());
    let server = actix_web::HttpServer::new(move || {
        let (kept, answer) = (kept.clone(), answer.clone());
        actix_web::App::new().default_service(actix_web::web::to(move |body: actix_web::web::Bytes| {
            let (kept, answer) = (kept.clone(), answer.clone());
            async move {
                if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                    kept.lock().expect("lock").push(value);
                }
                let status = *answer.lock().expect("lock");
                actix_web::HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("a status")).body("ok")
            }
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .expect("bind");
    let address = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    Receiver { url: format!("http://{address}/hooks/lab"), bodies, status }
}

#[actix_web::test]
async fn a_team_term_posts_each_digest_to_its_lab_channel_once() {
    let server = TestServer::start_with(|serve| serve.channels_allow_private = Some(true)).await;
    server.index_recorded_papers().await;
    let hook = receiver().await;
    let client = seeded_user(&server, "kim@example.org").await;
    let user = server.state.store.accounts().user_by_email("kim@example.org").expect("db").expect("kim");
    let answer = client.post("/api/immediate-search", json!({ "email": "kim@example.org", "searchTerm": TOPIC })).await;
    let term_id = answer.body["termId"].as_str().expect("a term").to_owned();
    let path = format!("/api/search-terms/{term_id}/channel");

    // Not on the Team plan: refused, nothing written.
    let refused = client.send("PUT", &path, Some(&json!({ "url": hook.url }))).await;
    assert_eq!((refused.status, refused.body["code"].as_str()), (403, Some("requires_upgrade")));
    server.state.store.accounts().update_user(user.id, |user| user.subscription_tier = engine::Tier::Team).expect("team");

    assert_eq!(client.send("PUT", &path, Some(&json!({ "url": "ftp://example.org/x" }))).await.status, 400);
    let connected = client.send("PUT", &path, Some(&json!({ "url": hook.url }))).await;
    assert_eq!(connected.status, 200, "{}", connected.body);
    assert_eq!(connected.body["host"], "127.0.0.1");
    assert!(!connected.body.to_string().contains("/hooks/lab"), "the webhook's address is never shown back");
    let other = seeded_user(&server, "lee@example.org").await;
    assert_eq!(other.get(&path).await.status, 404);
    assert_eq!(server.client().get(&path).await.status, 401);

    // The test message.
    assert_eq!(client.post(&format!("{path}/test"), json!({})).await.status, 200);
    assert!(hook.bodies.lock().expect("lock").iter().any(|body| body["text"].as_str().is_some_and(|text| text.contains(TOPIC))));

    // Connecting posted the term's latest digest at once; the next digest is posted once too.
    let blocks = |hook: &Receiver| hook.bodies.lock().expect("lock").iter().filter(|body| body["blocks"].is_array()).cloned().collect::<Vec<_>>();
    let digest = server.latest_digest_of("kim@example.org");
    assert!(wait_for(|| blocks(&hook).len() == 1).await, "the latest digest was posted on connecting");
    assert!(blocks(&hook)[0]["text"].as_str().is_some_and(|text| text.contains(&digest.papers_data[0].title)), "{}", blocks(&hook)[0]);
    let next = engine::digest::Digest { id: uuid::Uuid::new_v4(), sent_at: chrono::Utc::now(), ..digest };
    let mail = store::DigestMail { to: user.email.clone(), subject: "next".into(), list_unsubscribe: None };
    server.state.store.record_digest(&next, &mail, chrono::Utc::now()).expect("recorded");
    assert!(wait_for(|| blocks(&hook).len() == 2).await, "the next digest was posted");
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    assert_eq!(blocks(&hook).len(), 2, "each posted once");
    let view = client.get(&path).await;
    assert!(view.body["channel"]["lastPostedAt"].is_string(), "{}", view.body);

    // A failing webhook is counted, shown, and listed in the console.
    *hook.status.lock().expect("lock") = 500;
    let failing = engine::digest::Digest { id: uuid::Uuid::new_v4(), sent_at: chrono::Utc::now(), ..next };
    server.state.store.record_digest(&failing, &mail, chrono::Utc::now()).expect("recorded");
    assert!(wait_for(|| server.state.store.channels().all().expect("db").first().is_some_and(|channel| channel.failures == 1)).await);
    let view = client.get(&path).await;
    assert_eq!(view.body["channel"]["failures"], 1);
    assert!(view.body["channel"]["lastError"].as_str().is_some_and(|error| error.contains("500")), "{}", view.body);
    let operator = server.operator().await;
    let console = operator.get("/api/admin/channels").await;
    assert_eq!(console.body["channels"][0]["failures"], 1, "{}", console.body);
    assert_eq!(console.body["channels"][0]["pending"], 1, "waiting for its retry");
    assert_eq!(client.get("/api/admin/channels").await.status, 403);

    assert_eq!(client.delete(&path).await.status, 200);
    assert!(server.state.store.channels().posts().expect("db").is_empty(), "disconnecting drops the waiting post");
}

#[actix_web::test]
async fn a_webhook_on_a_private_address_is_refused_unless_the_operator_allows_it() {
    let server = TestServer::start().await;
    server.index_recorded_papers().await;
    let client = seeded_user(&server, "max@example.org").await;
    let user = server.state.store.accounts().user_by_email("max@example.org").expect("db").expect("max");
    server.state.store.accounts().update_user(user.id, |user| user.subscription_tier = engine::Tier::Team).expect("team");
    let answer = client.post("/api/immediate-search", json!({ "email": "max@example.org", "searchTerm": TOPIC })).await;
    let path = format!("/api/search-terms/{}/channel", answer.body["termId"].as_str().expect("a term"));
    for url in ["https://127.0.0.1/hook", "https://10.0.0.8/hook", "https://localhost/hook", "http://hooks.example.org/x"] {
        let refused = client.send("PUT", &path, Some(&json!({ "url": url }))).await;
        assert_eq!(refused.status, 400, "{url}: {}", refused.body);
    }
    assert!(server.state.store.channels().all().expect("db").is_empty());
}

/// Every entry of the database once the mail queue is drained and nothing changed for 300 ms.
async fn settled(server: &TestServer) -> Vec<store::RawEntry> {
    loop {
        server.wait_for_empty_queue().await;
        let first = server.state.store.raw_entries().expect("db");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let second = server.state.store.raw_entries().expect("db");
        if first == second {
            return second;
        }
    }
}

async fn wait_for(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..300 {
        if done() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}
