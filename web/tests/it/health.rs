//! `/healthz` and `/metrics`.

use crate::common::TestServer;

#[actix_web::test]
async fn healthz_reports_the_database_mail_and_actors() {
    let server = TestServer::start().await;
    let client = server.client();
    server.verified_user(&client, "ada@example.org").await;
    server.wait_for_outbox(2).await;
    server.wait_for_empty_queue().await;
    server.wait_for_mailer_processed(2).await;
    let health = client.get("/healthz").await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["status"], "ok");
    assert_eq!(health.body["users"], 1);
    assert_eq!(health.body["schemaVersion"], store::SCHEMA_VERSION);
    assert_eq!(health.body["mail"]["transport"], "outbox");
    assert_eq!(health.body["mail"]["queued"], 0);
    let mailer = &health.body["actors"]["mailer"];
    assert!(mailer["processedTotal"].as_u64().is_some_and(|sent| sent >= 2), "{mailer}");
    assert!(mailer["lastSuccessAt"].is_string());
    assert_eq!(mailer["restarts"], 0);
    assert!(health.body["actors"]["janitor"].is_object());
}

#[actix_web::test]
async fn metrics_are_prometheus_text() {
    let server = TestServer::start().await;
    let client = server.client();
    server.sign_up(&client, "ada@example.org").await;
    server.wait_for_empty_queue().await;
    server.wait_for_mailer_processed(1).await;
    let metrics = client.get("/metrics").await;
    assert_eq!(metrics.status, 200);
    let text = metrics.body.as_str().expect("text body");
    assert!(text.contains("# TYPE papertide_users gauge\npapertide_users 1\n"), "{text}");
    assert!(text.contains("papertide_mail_queue_depth 0"));
    assert!(text.contains("papertide_actor_processed_total{actor=\"mailer\"} 1"), "{text}");
}

#[actix_web::test]
async fn without_an_embedding_model_healthz_says_ranking_is_lexical() {
    let server = TestServer::start().await;
    let client = server.client();
    let health = client.get("/healthz").await;
    assert_eq!(health.status, 200);
    assert_eq!(health.body["embeddings"], serde_json::json!({ "model": null, "ranking": "lexical" }));
    assert!(health.body["actors"].get("vectorizer").is_none(), "nothing embeds: {}", health.body["actors"]);
    let metrics = client.get("/metrics").await;
    let text = metrics.body.as_str().expect("text body");
    assert!(text.contains("\npapertide_papers_embedded 0\n"), "{text}");
    assert!(text.contains("\npapertide_papers_waiting_for_embedding 0\n"), "{text}");
}

/// Anyone may read `/healthz`: the model's name, runtime and fingerprint, the paper counts and
/// the vectorizer's rate are no user's data.
#[actix_web::test]
async fn with_an_embedding_model_healthz_and_metrics_report_it_and_the_papers_embedded() {
    let server = TestServer::start_with_embedding_model().await;
    server.index_recorded_papers().await;
    let papers = server.state.index.paper_count().expect("count");
    let anonymous = server.client();

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let embeddings = loop {
        let health = anonymous.get("/healthz").await;
        assert_eq!(health.status, 200);
        let embeddings = health.body["embeddings"].clone();
        if embeddings["papersEmbedded"] == papers && embeddings["papersWaiting"] == 0 {
            break embeddings;
        }
        assert!(std::time::Instant::now() < deadline, "the recorded papers were not embedded: {embeddings}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!(embeddings["model"], "all-minilm-l6-v2");
    assert_eq!(embeddings["fingerprint"], embed::package::WEIGHTS_SHA256[..16]);
    assert_eq!(embeddings["runtime"], "onnx-int8", "ONNX Runtime's library is beside the model, as `papertide model fetch` puts it");
    assert!(embeddings["papersPerSecond"].as_f64().is_some_and(|rate| rate > 0.0), "{embeddings}");
    assert_eq!(embeddings["hoursLeft"], 0.0, "nothing waits: {embeddings}");
    assert_eq!(embeddings.as_object().map(|fields| fields.len()), Some(7), "{embeddings}");

    let text = anonymous.get("/metrics").await.body.as_str().map(str::to_owned).expect("text body");
    assert!(text.contains(&format!("# TYPE papertide_papers_embedded gauge\npapertide_papers_embedded {papers}\n")), "{text}");
    assert!(text.contains("\npapertide_papers_waiting_for_embedding 0\n"), "{text}");
    let vectorizer = &anonymous.get("/healthz").await.body["actors"]["vectorizer"];
    assert_eq!((vectorizer["processedTotal"].as_u64(), vectorizer["failedTotal"].as_u64()), (Some(papers), Some(0)), "{vectorizer}");
}
