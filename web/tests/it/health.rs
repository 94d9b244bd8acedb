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
