//! The published API contract: `GET /api/contract` lists every route the router has, with its
//! wire types, and every error code with its status; `GET /api/contract.ts` serves the checked-in
//! TypeScript. Both are public documentation: anyone may read them, signed in or not.

use crate::common::TestServer;

#[actix_web::test]
async fn the_contract_lists_every_route_and_error_code_for_anyone() {
    let server = TestServer::start().await;
    let anonymous = server.client();
    let answer = anonymous.get("/api/contract").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("cache-control"), Some("no-store"), "an /api answer like the others");

    let listed = answer.body["routes"].as_array().expect("a list of routes");
    let table = web::app::api_route_table();
    assert_eq!(listed.len(), table.routes().len(), "one entry per registered route");
    for route in table.routes() {
        let entry = listed
            .iter()
            .find(|entry| entry["method"] == route.method.as_str() && entry["path"] == route.path.as_str())
            .unwrap_or_else(|| panic!("{} {} is missing from the contract", route.method, route.path));
        let answer_type = entry["answer"].as_str().unwrap_or_default();
        assert!(!answer_type.is_empty(), "{} {} names its answer type", route.method, route.path);
    }
    let login = listed.iter().find(|entry| entry["path"] == "/api/auth/login").expect("the sign-in route");
    assert_eq!((login["request"].as_str(), login["answer"].as_str()), (Some("LoginRequest"), Some("LoginAnswer")));
    let terms = listed.iter().find(|entry| entry["path"] == "/api/users/{user_id}/search-terms").expect("the terms route");
    assert_eq!((terms["request"].as_str(), terms["answer"].as_str()), (None, Some("Array<SearchTermView>")));

    let codes = answer.body["errorCodes"].as_array().expect("a list of error codes");
    let status_of = |name: &str| codes.iter().find(|entry| entry["code"] == name).map(|entry| entry["status"].clone());
    assert_eq!(status_of("validation_failed"), Some(serde_json::json!(400)));
    assert_eq!(status_of("email_taken"), Some(serde_json::json!(409)));
    assert_eq!(status_of("rate_limited"), Some(serde_json::json!(429)));
    assert_eq!(status_of("http_error"), Some(serde_json::Value::Null), "the HTTP layer's refusals keep their own status");
    assert_eq!(answer.body["typescript"], "/api/contract.ts");
}

#[actix_web::test]
async fn the_typescript_is_served_as_checked_in_and_declares_every_named_type() {
    let server = TestServer::start().await;
    let anonymous = server.client();
    let typescript = anonymous.get("/api/contract.ts").await;
    assert_eq!(typescript.status, 200);
    assert!(typescript.header("content-type").is_some_and(|kind| kind.starts_with("text/plain")), "{:?}", typescript.header("content-type"));
    let text = typescript.body.as_str().expect("text");
    assert_eq!(text, web::contract::TYPESCRIPT);
    assert!(text.contains("export type ErrorCode = \"bad_request\""), "the error codes are one union");

    let contract = anonymous.get("/api/contract").await;
    let names = contract.body["routes"]
        .as_array()
        .expect("routes")
        .iter()
        .flat_map(|entry| [entry["request"].as_str(), entry["answer"].as_str()])
        .flatten()
        .flat_map(|expression| {
            expression.split(|c: char| !c.is_alphanumeric()).filter(|name| !name.is_empty()).map(str::to_owned).collect::<Vec<_>>()
        });
    for name in names.filter(|name| !["Array", "string"].contains(&name.as_str())) {
        assert!(text.contains(&format!("export type {name} =")), "{name} is declared in the served TypeScript");
    }
}

#[actix_web::test]
async fn error_bodies_carry_the_codes_the_contract_lists() {
    let server = TestServer::start().await;
    let anonymous = server.client();
    let contract = anonymous.get("/api/contract").await;
    let listed: Vec<&str> = contract.body["errorCodes"].as_array().expect("codes").iter().filter_map(|entry| entry["code"].as_str()).collect();
    let refused = anonymous.get("/api/auth/me").await;
    assert_eq!(refused.status, 401);
    assert_eq!(refused.body["code"], "unauthorized");
    let invalid = anonymous.post("/api/auth/login", serde_json::json!({ "email": "not an address", "password": "x" })).await;
    assert_eq!(invalid.status, 400);
    assert_eq!(invalid.body["code"], "validation_failed");
    assert!(invalid.body["errors"].as_array().is_some_and(|errors| !errors.is_empty()), "{}", invalid.body);
    for body in [&refused.body, &invalid.body] {
        let code = body["code"].as_str().unwrap_or_default();
        assert!(listed.contains(&code), "{code} is in the contract");
    }
}
