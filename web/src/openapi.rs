//! The OpenAPI 3.1 document of the API, `GET /api/openapi.json`: built from the route table
//! ([`crate::routes`]) and the wire types' schemas (`utoipa::ToSchema`, derived beside
//! `ts_rs::TS` on every wire type), so it lists exactly the routes there are, each with its path
//! parameters, its request body or query string, its success answer and the error body.
//!
//! Public documentation, like `/api/contract`: anyone may read it, signed in or not.

use std::sync::Arc;

use actix_web::web;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItem};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ComponentsBuilder, ObjectBuilder, Schema};
use utoipa::openapi::{ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, Ref, RefOr, Required, ResponseBuilder, ResponsesBuilder};
use utoipa::{PartialSchema, ToSchema};

use crate::error::ErrorBody;
use crate::routes::{ApiRoutes, RequestPlace, RouteTable, WireType};

/// Where the document is served.
pub const PATH: &str = "/api/openapi.json";

pub fn configure(routes: &mut ApiRoutes) {
    routes.get("/openapi.json", openapi_json);
}

/// `GET /api/openapi.json`.
async fn openapi_json(table: web::Data<Arc<RouteTable>>) -> web::Json<OpenApiDocument> {
    web::Json(OpenApiDocument(openapi_document(&table)))
}

/// The OpenAPI document as an answer: an object, to the contract.
#[derive(Clone, serde::Serialize, ts_rs::TS)]
pub struct OpenApiDocument(#[ts(type = "Record<string, unknown>")] pub OpenApi);

impl PartialSchema for OpenApiDocument {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().description(Some("An OpenAPI 3.1 document.")).into()
    }
}

impl ToSchema for OpenApiDocument {}

/// The document of the routes in `table`.
pub fn openapi_document(table: &RouteTable) -> OpenApi {
    let mut named: Vec<(String, RefOr<Schema>)> = Vec::new();
    let error_body = reference(&WireType::of::<ErrorBody>(), &mut named);
    let mut paths = PathsBuilder::new();
    for route in table.routes() {
        let mut operation = OperationBuilder::new()
            .operation_id(Some(operation_id(route.method.as_str(), &route.path)))
            .tag(route.path.trim_start_matches("/api/").split('/').next().unwrap_or_default().to_owned());
        for name in path_parameters(&route.path) {
            let parameter =
                ParameterBuilder::new().name(name).parameter_in(ParameterIn::Path).required(Required::True).schema(Some(String::schema()));
            operation = operation.parameter(parameter);
        }
        match route.wire.request {
            Some(request) if request.place == RequestPlace::Body => {
                let body = reference(&request.body, &mut named);
                let content = ContentBuilder::new().schema(Some(body)).build();
                operation = operation
                    .request_body(Some(RequestBodyBuilder::new().content("application/json", content).required(Some(Required::True)).build()));
            }
            Some(request) => {
                for parameter in query_parameters(&request.body, &mut named) {
                    operation = operation.parameter(parameter);
                }
            }
            None => {}
        }
        let answer = route.wire.answer;
        let answer_schema = reference(&answer.body, &mut named);
        let mut success = ResponseBuilder::new().description(answer.status.canonical_reason().unwrap_or("Success"));
        for media_type in answer.media_types {
            success = success.content(*media_type, ContentBuilder::new().schema(Some(answer_schema.clone())).build());
        }
        let failure = ResponseBuilder::new()
            .description("An error: its code and message.")
            .content("application/json", ContentBuilder::new().schema(Some(error_body.clone())).build());
        let responses = ResponsesBuilder::new().response(answer.status.as_str(), success.build()).response("default", failure.build()).build();
        let operation = operation.responses(responses).build();
        paths = paths.path(route.path.clone(), PathItem::new(http_method(&route.method), operation));
    }
    named.sort_by(|left, right| left.0.cmp(&right.0));
    named.dedup_by(|left, right| left.0 == right.0);
    let components = ComponentsBuilder::new().schemas_from_iter(named).build();
    let info = InfoBuilder::new()
        .title("Papertide API")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some("The JSON API of a Papertide server. The same contract as TypeScript: /api/contract.ts."));
    OpenApiBuilder::new().info(info.build()).paths(paths.build()).components(Some(components)).build()
}

/// The schema of `wire` as a route uses it: a reference to its named schema when it has a name
/// of its own (`SearchTermView`), else inline (`Array<…>`, `string`); every named schema it
/// uses is added to `named`.
fn reference(wire: &WireType, named: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    named.extend(wire.named_schemas());
    let name = wire.name();
    let is_named = name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().all(|c| c.is_ascii_alphanumeric()) && name != "Array";
    if !is_named {
        return wire.schema();
    }
    named.push((name.clone(), wire.schema()));
    RefOr::Ref(Ref::from_schema_name(name))
}

/// A query type's fields, each a query parameter.
fn query_parameters(query: &WireType, named: &mut Vec<(String, RefOr<Schema>)>) -> Vec<utoipa::openapi::path::Parameter> {
    named.extend(query.named_schemas());
    let RefOr::T(Schema::Object(object)) = query.schema() else {
        return Vec::new();
    };
    object
        .properties
        .iter()
        .map(|(name, schema)| {
            let required = if object.required.contains(name) { Required::True } else { Required::False };
            ParameterBuilder::new().name(name).parameter_in(ParameterIn::Query).required(required).schema(Some(schema.clone())).build()
        })
        .collect()
}

/// The `{name}` parameters of a path pattern, in order.
pub fn path_parameters(path: &str) -> Vec<String> {
    path.split('{').skip(1).filter_map(|part| part.split_once('}')).map(|(name, _)| name.split(':').next().unwrap_or(name).to_owned()).collect()
}

/// `get_search_terms_term_id`: the method and the path's words.
fn operation_id(method: &str, path: &str) -> String {
    let words: Vec<&str> = path.trim_start_matches("/api/").split(|c: char| !c.is_ascii_alphanumeric()).filter(|word| !word.is_empty()).collect();
    format!("{}_{}", method.to_ascii_lowercase(), words.join("_"))
}

fn http_method(method: &actix_web::http::Method) -> HttpMethod {
    match method.as_str() {
        "POST" => HttpMethod::Post,
        "PUT" => HttpMethod::Put,
        "PATCH" => HttpMethod::Patch,
        "DELETE" => HttpMethod::Delete,
        "HEAD" => HttpMethod::Head,
        "OPTIONS" => HttpMethod::Options,
        _ => HttpMethod::Get,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_read_from_the_pattern() {
        assert_eq!(path_parameters("/api/search-terms/{term_id}/ratings"), vec!["term_id"]);
        assert_eq!(path_parameters("/api/admin/mail/dead/{mail_id}/retry"), vec!["mail_id"]);
        assert!(path_parameters("/api/config").is_empty());
    }
}
