//! The published API contract: `GET /api/contract` lists every route the router has, with its
//! wire types, and every error code with its status; `GET /api/contract.ts` serves the checked-in
//! TypeScript; `GET /api/openapi.json` the OpenAPI 3.1 document of the same routes and types. All
//! are public documentation: anyone may read them, signed in or not. Every request type refuses
//! fields it does not know.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use web::routes::RequestPlace;

use crate::common::TestServer;

/// The OpenAPI 3.1 meta-schema (see `web/tests/fixtures/openapi/PROVENANCE.md`).
const OPENAPI_SCHEMA: &str = include_str!("../fixtures/openapi/schema-3.1.json");

/// A path of the route table with a value in each `{parameter}`.
fn concrete(path: &str) -> String {
    let mut concrete = String::new();
    for (index, part) in path.split('{').enumerate() {
        match part.split_once('}') {
            Some((_, rest)) if index > 0 => {
                concrete.push_str("00000000-0000-4000-8000-000000000000");
                concrete.push_str(rest);
            }
            _ => concrete.push_str(part),
        }
    }
    concrete
}

#[actix_web::test]
async fn the_openapi_document_validates_and_matches_the_route_table() {
    let server = TestServer::start().await;
    let answer = server.client().get("/api/openapi.json").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let document = answer.body;
    assert_eq!(document["openapi"], "3.1.0");

    let meta_schema: Value = serde_json::from_str(OPENAPI_SCHEMA).expect("the meta-schema is JSON");
    let validator = jsonschema::validator_for(&meta_schema).expect("the meta-schema compiles");
    let errors: Vec<String> = validator.iter_errors(&document).map(|error| format!("{} at {}", error, error.instance_path())).collect();
    assert!(errors.is_empty(), "the document is not valid OpenAPI 3.1: {errors:#?}");

    let table = web::app::api_route_table();
    let in_table: BTreeSet<(String, String)> =
        table.routes().iter().map(|route| (route.method.as_str().to_ascii_lowercase(), route.path.clone())).collect();
    let paths = document["paths"].as_object().expect("paths");
    let mut in_document = BTreeSet::new();
    for (path, item) in paths {
        for method in item.as_object().expect("a path item").keys() {
            in_document.insert((method.clone(), path.clone()));
        }
    }
    let missing: Vec<_> = in_table.difference(&in_document).collect();
    let extra: Vec<_> = in_document.difference(&in_table).collect();
    assert!(missing.is_empty() && extra.is_empty(), "routes missing from the document: {missing:?}; documented but not routed: {extra:?}");

    // Every reference points at a schema the document has.
    let schemas = document["components"]["schemas"].as_object().expect("schemas");
    let text = document.to_string();
    for reference in text.split("\"#/components/schemas/").skip(1).filter_map(|rest| rest.split_once('"')).map(|(name, _)| name) {
        assert!(schemas.contains_key(reference), "{reference} is referred to but not declared");
    }
    let terms = &paths["/api/search-terms/{term_id}"]["patch"];
    assert_eq!(terms["parameters"][0]["name"], "term_id");
    assert_eq!(terms["requestBody"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/TermChange");
    assert_eq!(terms["responses"]["200"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/SearchTermView");
    assert_eq!(terms["responses"]["default"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody");
    let signup = &paths["/api/signup"]["post"]["responses"];
    assert!(signup["201"].is_object(), "a sign-up answers 201: {signup}");
    let status = &schemas["SubscriptionStatusAnswer"]["properties"]["state"];
    assert_eq!(status["$ref"], "#/components/schemas/PaymentState", "closed sets are enums: {status}");
}

/// Every JSON body and query string a route reads refuses a field it does not know, with the
/// validation answer naming it.
#[actix_web::test]
async fn every_request_type_refuses_unknown_fields() {
    let server = TestServer::start().await;
    let operator = server.operator().await;
    let table = web::app::api_route_table();
    let mut checked = 0;
    for route in table.routes() {
        let Some(request) = route.wire.request else { continue };
        let path = concrete(&route.path);
        let answer = match request.place {
            RequestPlace::Body => operator.send(route.method.as_str(), &path, Some(&json!({ "papertideUnknown": 1 }))).await,
            RequestPlace::Query => operator.send(route.method.as_str(), &format!("{path}?papertideUnknown=1"), None).await,
        };
        let context = format!("{} {}: {}", route.method, route.path, answer.body);
        assert_eq!(answer.status, 400, "{context}");
        assert_eq!(answer.body["code"], "validation_failed", "{context}");
        assert_eq!(answer.body["errors"][0]["field"], "papertideUnknown", "{context}");
        checked += 1;
    }
    assert!(checked >= 25, "every route that reads a body or a query: {checked}");
}

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
