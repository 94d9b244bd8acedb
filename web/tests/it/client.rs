//! The embedded web client: routes fall back to index.html, assets are cached, config is served.
//! Needs the built client (web/client/dist), which the README's test command builds first.

use crate::common::TestServer;

fn built_asset() -> String {
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("client/dist/assets");
    let entries = std::fs::read_dir(&assets).unwrap_or_else(|_| panic!("{} is missing: build the client first (make test does)", assets.display()));
    entries.filter_map(|entry| entry.ok()?.file_name().into_string().ok()).find(|name| name.ends_with(".js")).expect("a built script")
}

#[actix_web::test]
async fn client_routes_get_the_app_and_assets_are_cached_for_good() {
    let server = TestServer::start().await;
    let client = server.client();
    assert!(web::client::is_embedded(), "the client is not built: run make test");
    for (route, status) in [
        ("/", 200),
        ("/auth?tab=login", 200),
        ("/blog/how-to-write-review-article", 200),
        ("/no/such/page", 404),
        ("/dashboards", 404),
        ("/blog/nope", 404),
    ] {
        let page = client.get(route).await;
        assert_eq!(page.status, status, "{route}: the client's page, with the status crawlers and monitors read");
        assert!(page.body.as_str().is_some_and(|html| html.contains("<div id=\"root\">")), "{route}");
        assert_eq!(page.header("cache-control"), Some("no-cache"), "{route}");
    }
    let script = client.get(&format!("/assets/{}", built_asset())).await;
    assert_eq!(script.status, 200);
    assert_eq!(script.header("cache-control"), Some("public, max-age=31536000, immutable"));
    assert!(script.header("content-type").is_some_and(|kind| kind.contains("javascript")));

    let icon = client.get("/favicon.svg").await;
    assert_eq!(icon.header("content-type"), Some("image/svg+xml"));
    assert_eq!(icon.header("cache-control"), Some("public, max-age=3600"));

    assert_eq!(client.get("/assets/index-gone.js").await.status, 404, "a stale asset must not become HTML");
    assert_eq!(client.post("/dashboard", serde_json::json!({})).await.status, 405);
}

#[actix_web::test]
async fn config_names_no_analytics_unless_configured() {
    let server = TestServer::start().await;
    let config = server.client().get("/api/config").await;
    assert_eq!(config.status, 200);
    assert_eq!(config.body["analytics"], serde_json::Value::Null);
    assert_eq!(config.body["billingEnabled"], false);
    assert_eq!(config.body["supportEmail"], "support@localhost", "an IP public URL gives no mail domain");

    let with_analytics = TestServer::start_with(|serve| {
        serve.analytics_provider = Some("plausible".into());
        serve.analytics_site_id = Some("papers.example.org".into());
    })
    .await;
    let config = with_analytics.client().get("/api/config").await;
    assert_eq!(config.body["analytics"]["provider"], "plausible");
    assert_eq!(config.body["analytics"]["siteId"], "papers.example.org");
    assert_eq!(config.body["analytics"]["scriptUrl"], "https://plausible.io/js/script.js");
}

/// The plan cards promise paid plans "a more advanced AI model" only where there is one: a chat
/// model for paid plans other than the free plan's.
#[actix_web::test]
async fn config_says_whether_paid_plans_get_another_chat_model() {
    let advanced = |standard: &str, advanced: Option<&str>| {
        let (standard, advanced) = (standard.to_owned(), advanced.map(str::to_owned));
        move |serve: &mut web::config::ServeArgs| {
            serve.llm.llm_url = Some("http://127.0.0.1:9/v1".into());
            serve.llm.llm_model = Some(standard.clone());
            serve.llm.llm_model_advanced = advanced.clone();
        }
    };
    assert_eq!(TestServer::start().await.client().get("/api/config").await.body["advancedModel"], false, "no chat model at all");
    let same = TestServer::start_with(advanced("small", None)).await;
    assert_eq!(same.client().get("/api/config").await.body["advancedModel"], false, "one model for every plan");
    let same_named = TestServer::start_with(advanced("small", Some("small"))).await;
    assert_eq!(same_named.client().get("/api/config").await.body["advancedModel"], false, "the same model named twice");
    let other = TestServer::start_with(advanced("small", Some("large"))).await;
    assert_eq!(other.client().get("/api/config").await.body["advancedModel"], true);
}
