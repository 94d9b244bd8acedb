//! The API's route table: every `/api` route is registered through [`ApiRoutes`], which adds it
//! to actix and records its method, its path and its wire types (what it reads, what it
//! answers). The record answers what actix cannot: a known path called with another method gets
//! 405 with `Allow` (actix would answer 404); the published contract (`GET /api/contract`) is
//! read from it, so the contract lists exactly the routes there are; and the list of every
//! route is there for the tests that must cover each one.

use std::sync::Arc;

use actix_web::dev::ResourceDef;
use actix_web::http::Method;
use actix_web::{web, FromRequest, Handler, HttpRequest, HttpResponse, Responder};

use crate::error::{ApiError, ErrorCode};

/// One registered API route: its method, its full path pattern (`/api/search-terms/{term_id}`)
/// and its wire types.
#[derive(Debug, Clone)]
pub struct ApiRoute {
    pub method: Method,
    pub path: String,
    pub wire: WireTypes,
    pattern: ResourceDef,
}

/// A route's wire types, by their names in the generated TypeScript: the request it reads (its
/// JSON body, or for a `GET` or `DELETE` its query string), if any, and the answer of its success.
#[derive(Debug, Clone, Copy)]
pub struct WireTypes {
    request: Option<fn() -> String>,
    answer: fn() -> String,
}

impl WireTypes {
    /// A route that reads nothing but its path (and its session) and answers `Answer`.
    pub fn answer<Answer: ts_rs::TS>() -> WireTypes {
        WireTypes { request: None, answer: Answer::name }
    }

    /// A route that reads `Request` and answers `Answer`.
    pub fn of<Request: ts_rs::TS, Answer: ts_rs::TS>() -> WireTypes {
        WireTypes { request: Some(Request::name), answer: Answer::name }
    }

    /// The request type's name, if the route reads one.
    pub fn request_name(&self) -> Option<String> {
        self.request.map(|name| name())
    }

    pub fn answer_name(&self) -> String {
        (self.answer)()
    }
}

/// Every API route, in registration order.
#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    routes: Vec<ApiRoute>,
}

impl RouteTable {
    pub fn routes(&self) -> &[ApiRoute] {
        &self.routes
    }

    /// The methods registered for paths that match `path`, in registration order, each once.
    pub fn methods_for(&self, path: &str) -> Vec<Method> {
        let mut methods: Vec<Method> = Vec::new();
        for route in self.routes.iter().filter(|route| route.pattern.is_match(path)) {
            if !methods.contains(&route.method) {
                methods.push(route.method.clone());
            }
        }
        methods
    }
}

/// Registers routes under a scope and records them in a [`RouteTable`].
pub struct ApiRoutes<'a> {
    config: &'a mut web::ServiceConfig,
    table: &'a mut RouteTable,
    prefix: &'static str,
}

impl<'a> ApiRoutes<'a> {
    /// Routes registered under the scope mounted at `prefix` (e.g. `/api`).
    pub fn new(config: &'a mut web::ServiceConfig, table: &'a mut RouteTable, prefix: &'static str) -> ApiRoutes<'a> {
        ApiRoutes { config, table, prefix }
    }

    pub fn get<F, Args>(&mut self, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::GET, path, handler, wire)
    }

    pub fn post<F, Args>(&mut self, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::POST, path, handler, wire)
    }

    pub fn put<F, Args>(&mut self, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::PUT, path, handler, wire)
    }

    pub fn patch<F, Args>(&mut self, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::PATCH, path, handler, wire)
    }

    pub fn delete<F, Args>(&mut self, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.add(Method::DELETE, path, handler, wire)
    }

    fn add<F, Args>(&mut self, method: Method, path: &str, handler: F, wire: WireTypes) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.config.route(path, web::method(method.clone()).to(handler));
        let full_path = format!("{}{path}", self.prefix);
        self.table.routes.push(ApiRoute { method, pattern: ResourceDef::new(full_path.as_str()), path: full_path, wire });
        self
    }
}

/// The answer to an API request no route took: 405 with `Allow` when the path is known under
/// other methods, else 404.
pub async fn unmatched(request: HttpRequest, table: web::Data<Arc<RouteTable>>) -> Result<HttpResponse, ApiError> {
    let allowed = table.methods_for(request.path());
    if allowed.is_empty() {
        return Err(ApiError::not_found("Not found"));
    }
    let allow = allowed.iter().map(Method::as_str).collect::<Vec<_>>().join(", ");
    let message = format!("{} is not allowed here; this address accepts {allow}.", request.method());
    Err(ApiError::new(ErrorCode::MethodNotAllowed, message).with_header("Allow", allow))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn nothing() -> HttpResponse {
        HttpResponse::Ok().finish()
    }

    #[test]
    fn methods_are_found_by_path_pattern() {
        let mut table = RouteTable::default();
        let _ = web::scope("/api").configure(|config| {
            ApiRoutes::new(config, &mut table, "/api")
                .patch("/search-terms/{term_id}", nothing, WireTypes::answer::<String>())
                .delete("/search-terms/{term_id}", nothing, WireTypes::answer::<String>())
                .get("/unsubscribe/{token}", nothing, WireTypes::answer::<String>())
                .post("/unsubscribe/{token}", nothing, WireTypes::answer::<String>());
        });
        assert_eq!(table.routes().len(), 4);
        assert_eq!(table.methods_for("/api/search-terms/42"), vec![Method::PATCH, Method::DELETE]);
        assert_eq!(table.methods_for("/api/unsubscribe/abc"), vec![Method::GET, Method::POST]);
        assert!(table.methods_for("/api/search-terms/42/more").is_empty());
        assert!(table.methods_for("/api/nothing").is_empty());
    }
}
