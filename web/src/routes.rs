//! The API's route table: every `/api` route is registered through [`ApiRoutes`], which adds it
//! to actix and records its method, its path and its wire types (what it reads, what it
//! answers). The record answers what actix cannot: a known path called with another method gets
//! 405 with `Allow` (actix would answer 404); the published contract (`GET /api/contract`) is
//! read from it, so the contract lists exactly the routes there are; and the list of every
//! route is there for the tests that must cover each one.

use std::marker::PhantomData;
use std::sync::Arc;

use actix_web::cookie::Cookie;
use actix_web::dev::ResourceDef;
use actix_web::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use actix_web::http::{Method, StatusCode};
use actix_web::{body::BoxBody, web, FromRequest, Handler, HttpRequest, HttpResponse, Responder};
use serde::Serialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

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

/// A route's wire types, taken from its handler's signature: the request it reads (a
/// `web::Json` body or a `web::Query` string among its arguments), if any, and the answer of
/// its success (the handler's output type).
#[derive(Debug, Clone, Copy)]
pub struct WireTypes {
    pub request: Option<WireRequest>,
    pub answer: WireAnswer,
}

impl WireTypes {
    /// The request type's name in the TypeScript, if the route reads one.
    pub fn request_name(&self) -> Option<String> {
        self.request.map(|request| request.body.name())
    }

    /// The answer type's name in the TypeScript.
    pub fn answer_name(&self) -> String {
        self.answer.body.name()
    }
}

/// A type on the wire: its name in the generated TypeScript and its schema in the OpenAPI
/// document, both from the one Rust type.
#[derive(Clone, Copy)]
pub struct WireType {
    name: fn() -> String,
    schema: fn() -> RefOr<Schema>,
    named_schemas: fn(&mut Vec<(String, RefOr<Schema>)>),
}

impl WireType {
    pub fn of<T: TS + ToSchema>() -> WireType {
        WireType { name: <T as TS>::name, schema: <T as utoipa::PartialSchema>::schema, named_schemas: <T as ToSchema>::schemas }
    }

    /// Its name in the TypeScript (`SearchTermView`, `Array<RatingView>`, `string`).
    pub fn name(&self) -> String {
        (self.name)()
    }

    /// Its own schema, with the named types it uses as references.
    pub fn schema(&self) -> RefOr<Schema> {
        (self.schema)()
    }

    /// The named types its schema refers to, each with its schema (and theirs, at every depth).
    pub fn named_schemas(&self) -> Vec<(String, RefOr<Schema>)> {
        let mut schemas = Vec::new();
        (self.named_schemas)(&mut schemas);
        schemas
    }
}

impl std::fmt::Debug for WireType {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.name())
    }
}

/// Where a route's request is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestPlace {
    /// A JSON body (`web::Json<T>`).
    Body,
    /// The query string (`web::Query<T>`).
    Query,
}

/// What a route reads besides its path and its session.
#[derive(Debug, Clone, Copy)]
pub struct WireRequest {
    pub place: RequestPlace,
    pub body: WireType,
}

/// What a route answers when it succeeds: its status, its media type and its body's type.
#[derive(Debug, Clone, Copy)]
pub struct WireAnswer {
    pub status: StatusCode,
    /// `application/json`, or the media types of an answer that is not JSON.
    pub media_types: &'static [&'static str],
    pub body: WireType,
}

impl WireAnswer {
    /// A JSON answer of `T` with `status`.
    pub fn json<T: TS + ToSchema>(status: StatusCode) -> WireAnswer {
        WireAnswer { status, media_types: &[JSON], body: WireType::of::<T>() }
    }

    /// Whether the answer is JSON.
    pub fn is_json(&self) -> bool {
        self.media_types == [JSON]
    }
}

const JSON: &str = "application/json";

/// A handler's output whose wire type is known: a route's answer type is its handler's.
pub trait Answers {
    fn wire_answer() -> WireAnswer;
}

impl<T: Answers> Answers for Result<T, ApiError> {
    fn wire_answer() -> WireAnswer {
        T::wire_answer()
    }
}

impl<T: Serialize + TS + ToSchema> Answers for web::Json<T> {
    fn wire_answer() -> WireAnswer {
        WireAnswer::json::<T>(StatusCode::OK)
    }
}

/// A JSON answer with a status other than 200 (`STATUS`), cookies or headers. The status is
/// part of the type, so the route table reads it: `ApiResult<Created<SignupAnswer>>`.
#[derive(Debug)]
pub struct Answer<T, const STATUS: u16 = 200> {
    body: T,
    cookies: Vec<Cookie<'static>>,
    headers: Vec<(HeaderName, String)>,
}

/// A `201 Created` JSON answer.
pub type Created<T> = Answer<T, 201>;

/// A `202 Accepted` JSON answer: the work goes on after it.
pub type Accepted<T> = Answer<T, 202>;

impl<T, const STATUS: u16> Answer<T, STATUS> {
    pub fn new(body: T) -> Answer<T, STATUS> {
        Answer { body, cookies: Vec::new(), headers: Vec::new() }
    }

    /// The answer, setting `cookie` in the browser.
    pub fn cookie(mut self, cookie: Cookie<'static>) -> Answer<T, STATUS> {
        self.cookies.push(cookie);
        self
    }

    /// The answer with the header `name: value`.
    pub fn header(mut self, name: HeaderName, value: impl Into<String>) -> Answer<T, STATUS> {
        self.headers.push((name, value.into()));
        self
    }
}

impl<T: Serialize + TS + ToSchema, const STATUS: u16> Answers for Answer<T, STATUS> {
    fn wire_answer() -> WireAnswer {
        WireAnswer::json::<T>(status_of(STATUS))
    }
}

impl<T: Serialize, const STATUS: u16> Responder for Answer<T, STATUS> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        let mut response = HttpResponse::build(status_of(STATUS));
        for cookie in self.cookies {
            response.cookie(cookie);
        }
        for (name, value) in self.headers {
            response.insert_header((name, value));
        }
        response.json(self.body)
    }
}

/// A text answer that is not JSON, of the media type `M` names (the TypeScript as text, a
/// citation file): its wire type is `string`.
#[derive(Debug)]
pub struct Text<M: TextMedia> {
    body: String,
    content_type: &'static str,
    headers: Vec<(HeaderName, String)>,
    media: PhantomData<M>,
}

/// The media types a [`Text`] answer may have.
pub trait TextMedia {
    const MEDIA_TYPES: &'static [&'static str];
}

impl<M: TextMedia> Text<M> {
    /// `body`, answered as `content_type` (one of `M`'s media types, with its parameters).
    pub fn new(content_type: &'static str, body: String) -> Text<M> {
        Text { body, content_type, headers: Vec::new(), media: PhantomData }
    }

    pub fn header(mut self, name: HeaderName, value: impl Into<String>) -> Text<M> {
        self.headers.push((name, value.into()));
        self
    }
}

impl<M: TextMedia> Answers for Text<M> {
    fn wire_answer() -> WireAnswer {
        WireAnswer { status: StatusCode::OK, media_types: M::MEDIA_TYPES, body: WireType::of::<String>() }
    }
}

impl<M: TextMedia> Responder for Text<M> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        let mut response = HttpResponse::Ok();
        response.insert_header((CONTENT_TYPE, HeaderValue::from_static(self.content_type)));
        for (name, value) in self.headers {
            response.insert_header((name, value));
        }
        response.body(self.body)
    }
}

fn status_of(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A handler argument (an extractor) and what it reads of the request for the contract: a
/// `web::Json<T>` or `web::Query<T>` reads `T`; the path, the state, the session read nothing
/// the contract names.
pub trait Reads {
    fn wire_request() -> Option<WireRequest> {
        None
    }
}

impl<T: TS + ToSchema> Reads for web::Json<T> {
    fn wire_request() -> Option<WireRequest> {
        Some(WireRequest { place: RequestPlace::Body, body: WireType::of::<T>() })
    }
}

impl<T: TS + ToSchema> Reads for web::Query<T> {
    fn wire_request() -> Option<WireRequest> {
        Some(WireRequest { place: RequestPlace::Query, body: WireType::of::<T>() })
    }
}

impl<T> Reads for web::Path<T> {}
impl<T: ?Sized> Reads for web::Data<T> {}
impl Reads for HttpRequest {}
impl Reads for web::Bytes {}

/// A handler's arguments, a tuple of [`Reads`]: the request of the route is the one that reads
/// one (a handler reads at most one body or query type).
pub trait ReadsAll {
    fn wire_request() -> Option<WireRequest>;
}

macro_rules! reads_all {
    ($($argument:ident),*) => {
        impl<$($argument: Reads),*> ReadsAll for ($($argument,)*) {
            fn wire_request() -> Option<WireRequest> {
                None$(.or_else($argument::wire_request))*
            }
        }
    };
}

reads_all!();
reads_all!(A);
reads_all!(A, B);
reads_all!(A, B, C);
reads_all!(A, B, C, D);
reads_all!(A, B, C, D, E);
reads_all!(A, B, C, D, E, G);

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

    pub fn get<F, Args>(&mut self, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        self.add(Method::GET, path, handler)
    }

    pub fn post<F, Args>(&mut self, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        self.add(Method::POST, path, handler)
    }

    pub fn put<F, Args>(&mut self, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        self.add(Method::PUT, path, handler)
    }

    pub fn patch<F, Args>(&mut self, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        self.add(Method::PATCH, path, handler)
    }

    pub fn delete<F, Args>(&mut self, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        self.add(Method::DELETE, path, handler)
    }

    fn add<F, Args>(&mut self, method: Method, path: &str, handler: F) -> &mut Self
    where
        F: Handler<Args>,
        Args: FromRequest + ReadsAll + 'static,
        F::Output: Responder + Answers + 'static,
    {
        let wire = WireTypes { request: Args::wire_request(), answer: F::Output::wire_answer() };
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
    use crate::error::ApiResult;

    async fn nothing() -> web::Json<String> {
        web::Json(String::new())
    }

    #[derive(serde::Deserialize, TS, ToSchema)]
    struct Change {
        #[allow(dead_code)]
        name: String,
    }

    async fn change(_: web::Path<String>, _: web::Json<Change>, _: HttpRequest) -> ApiResult<Created<String>> {
        Ok(Created::new(String::new()))
    }

    #[test]
    fn wire_types_are_read_from_the_handler() {
        let mut table = RouteTable::default();
        let _ = web::scope("/api").configure(|config| {
            ApiRoutes::new(config, &mut table, "/api").get("/nothing", nothing).post("/things/{id}", change);
        });
        let [nothing, change] = table.routes() else { panic!("two routes") };
        assert!(nothing.wire.request.is_none());
        assert_eq!((nothing.wire.answer.status, nothing.wire.answer_name()), (StatusCode::OK, "string".to_owned()));
        let request = change.wire.request.expect("the change reads a body");
        assert_eq!((request.place, request.body.name()), (RequestPlace::Body, "Change".to_owned()));
        assert_eq!(change.wire.answer.status, StatusCode::CREATED);
    }

    #[test]
    fn methods_are_found_by_path_pattern() {
        let mut table = RouteTable::default();
        let _ = web::scope("/api").configure(|config| {
            ApiRoutes::new(config, &mut table, "/api")
                .patch("/search-terms/{term_id}", nothing)
                .delete("/search-terms/{term_id}", nothing)
                .get("/unsubscribe/{token}", nothing)
                .post("/unsubscribe/{token}", nothing);
        });
        assert_eq!(table.routes().len(), 4);
        assert_eq!(table.methods_for("/api/search-terms/42"), vec![Method::PATCH, Method::DELETE]);
        assert_eq!(table.methods_for("/api/unsubscribe/abc"), vec![Method::GET, Method::POST]);
        assert!(table.methods_for("/api/search-terms/42/more").is_empty());
        assert!(table.methods_for("/api/nothing").is_empty());
    }
}
