//! Request-level protections: the same-origin check on state-changing requests and the client
//! address the rate limits ([`crate::limiter`]) are keyed by.

use std::net::IpAddr;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, ResponseError};
use url::Url;

use crate::address::address_group;
use crate::error::ApiError;
use crate::state::AppState;

/// Whether a request may change state: it comes from our own pages, or from a client that is
/// not a browser.
///
/// - An `Origin` must be ours, and a `Sec-Fetch-Site` must say `same-origin` (or `none`, a
///   navigation the user made): either one saying otherwise refuses the request, whatever the
///   other says.
/// - A request with neither header is not from a current browser (they send at least one on
///   every cross-origin POST): curl, scripts, Stripe's webhooks. It passes unless it carries a
///   body a cross-site HTML form could send (`application/x-www-form-urlencoded`,
///   `multipart/form-data`, `text/plain`), which no call of ours takes; a JSON body cannot come
///   from another site without a CORS preflight, which this server never grants.
///
/// Only the configured public URL's origin is ours (scheme, host and port); when the public URL
/// is a loopback address, so are its loopback equivalents on the same scheme and port
/// (`localhost`, `127.0.0.1`, `[::1]`), so that the default `http://localhost:PORT` also works
/// from a browser at `127.0.0.1:PORT`. The request's own `Host` counts for nothing: it is
/// whatever the caller wrote.
pub fn is_same_origin(request: &HttpRequest, public_url: &Url) -> bool {
    is_allowed_origin(request, public_url, false)
}

/// [`is_same_origin`], with `forms_welcome`: a request with neither header may carry a form body
/// (for calls a secret in their address authorizes, not a cookie: RFC 8058's one-click
/// unsubscribe, which mail providers send as a form from their own servers).
fn is_allowed_origin(request: &HttpRequest, public_url: &Url, forms_welcome: bool) -> bool {
    let header = |name: &str| request.headers().get(name).and_then(|value| value.to_str().ok());
    let site = header("sec-fetch-site");
    if site.is_some_and(|site| !matches!(site, "same-origin" | "none")) {
        return false;
    }
    let Some(origin) = header("origin") else {
        return site.is_some() || forms_welcome || !is_form_body(header("content-type"));
    };
    Url::parse(origin).is_ok_and(|origin| is_public_origin(&origin, public_url))
}

/// Whether `origin` is the public URL's origin, or a loopback equivalent of a loopback one.
fn is_public_origin(origin: &Url, public_url: &Url) -> bool {
    let same_scheme_and_port = origin.scheme() == public_url.scheme() && origin.port_or_known_default() == public_url.port_or_known_default();
    let (Some(host), Some(public_host)) = (origin.host(), public_url.host()) else {
        return false;
    };
    let same_host = host == public_host || (is_loopback(&public_host) && is_loopback(&host));
    same_scheme_and_port && same_host
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(address) => address.is_loopback(),
        url::Host::Ipv6(address) => address.is_loopback(),
    }
}

/// Whether a content type is one of those an HTML form on any site can send without asking.
fn is_form_body(content_type: Option<&str>) -> bool {
    let Some(content_type) = content_type else {
        return false;
    };
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    matches!(essence.as_str(), "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain")
}

/// Does a request need the same-origin check? Every state-changing method, and the
/// verification link's API call, which signs the user in.
fn needs_origin_check(request: &ServiceRequest) -> bool {
    let is_safe_method = matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    !is_safe_method || request.path() == "/api/verify-email"
}

/// Middleware (`from_fn`) that refuses cross-site state changes with 403.
pub async fn same_origin_guard(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let state = request.app_data::<web::Data<AppState>>().cloned();
    let forms_welcome = request.path().starts_with("/api/unsubscribe/");
    let is_allowed = state.is_some_and(|state| is_allowed_origin(request.request(), &state.settings.public_url, forms_welcome));
    if needs_origin_check(&request) && !is_allowed {
        tracing::warn!(path = request.path(), "cross-site request refused");
        let refusal = ApiError::new(crate::error::ErrorCode::CrossSiteRequest, "Cross-site request refused.").error_response();
        return Ok(request.into_response(refusal).map_into_right_body());
    }
    let response = next.call(request).await?;
    Ok(response.map_into_left_body())
}

/// The client's address as every per-address limit counts it: the TCP peer, or behind a trusted
/// reverse proxy the last X-Forwarded-For hop (the one the proxy added, which the client cannot
/// forge); grouped by [`address_group`] under the configured IPv6 prefix. The one place
/// addresses are keyed.
pub fn client_ip(request: &HttpRequest, trust_proxy: bool) -> String {
    let ipv6_prefix = request.app_data::<web::Data<AppState>>().map_or(crate::config::DEFAULT_IPV6_PREFIX, |state| state.settings.ipv6_prefix);
    if trust_proxy {
        let forwarded = request.headers().get("x-forwarded-for").and_then(|value| value.to_str().ok());
        if let Some(last_hop) = forwarded.and_then(|hops| hops.rsplit(',').next()).map(str::trim) {
            if !last_hop.is_empty() {
                return last_hop.parse().map_or_else(|_| last_hop.to_owned(), |address| address_key(address, ipv6_prefix));
            }
        }
    }
    request.peer_addr().map_or_else(|| "unknown".to_owned(), |address| address_key(address.ip(), ipv6_prefix))
}

/// The text key of an address's group: `192.0.2.1`, `2001:db8:1:2::/64`.
fn address_key(address: IpAddr, ipv6_prefix: u8) -> String {
    match address_group(address, ipv6_prefix) {
        IpAddr::V6(group) if ipv6_prefix < 128 => format!("{group}/{ipv6_prefix}"),
        group => group.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn addresses_are_grouped_by_their_network() {
        let group = |text: &str, prefix: u8| address_key(text.parse().expect("an address"), prefix);
        assert_eq!(group("192.0.2.7", 64), "192.0.2.7");
        assert_eq!(group("::ffff:192.0.2.7", 64), "192.0.2.7", "an IPv4-mapped address is its IPv4 address");
        assert_eq!(group("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64), "2001:db8:1:2::/64");
        assert_eq!(group("2001:db8:1:2:ffff::1", 64), group("2001:db8:1:2::9", 64), "one /64 is one client");
        assert_ne!(group("2001:db8:1:3::1", 64), group("2001:db8:1:2::1", 64));
        assert_eq!(group("2001:db8:1:2:aaaa::1", 48), "2001:db8:1::/48");
        assert_eq!(group("2001:db8::1", 128), "2001:db8::1");
        let request = TestRequest::get().peer_addr("[2001:db8:5:6:7:8:9:a]:4000".parse().expect("addr")).to_http_request();
        assert_eq!(client_ip(&request, false), "2001:db8:5:6::/64", "the default prefix without settings");
    }

    #[test]
    fn origins() {
        let public = Url::parse("https://papers.example.org").expect("url");
        let check = |headers: &[(&str, &str)]| {
            let mut request = TestRequest::post().uri("/api/auth/login");
            for header in headers {
                request = request.insert_header(*header);
            }
            is_same_origin(&request.to_http_request(), &public)
        };
        assert!(check(&[]), "non-browser clients pass");
        assert!(check(&[("content-type", "application/json")]), "a JSON body without either header is not from a browser form");
        for form in ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "Text/Plain;charset=UTF-8"] {
            assert!(!check(&[("content-type", form)]), "what a cross-site form sends is refused without either header: {form}");
        }
        assert!(check(&[("sec-fetch-site", "same-origin")]));
        assert!(
            !check(&[("sec-fetch-site", "same-origin"), ("origin", "https://evil.example")]),
            "a foreign Origin is refused whatever Sec-Fetch-Site says"
        );
        assert!(!check(&[("sec-fetch-site", "cross-site"), ("origin", "https://papers.example.org")]), "and the other way round");
        assert!(check(&[("sec-fetch-site", "same-origin"), ("origin", "https://papers.example.org")]));
        assert!(!check(&[("sec-fetch-site", "cross-site")]));
        assert!(!check(&[("sec-fetch-site", "same-site")]));
        assert!(check(&[("origin", "https://papers.example.org")]));
        assert!(!check(&[("origin", "http://papers.example.org")]), "scheme must match");
        assert!(!check(&[("origin", "https://evil.example")]));
        assert!(!check(&[("origin", "https://papers.example.org:8443")]), "port must match");
        assert!(!check(&[("origin", "https://127.0.0.1:8080"), ("host", "127.0.0.1:8080")]), "the request's own Host is not ours");
        assert!(!check(&[("origin", "http://evil.example"), ("host", "evil.example")]));
        assert!(!check(&[("origin", "https://localhost")]), "loopback equivalents only for a loopback public URL");
        assert!(!check(&[("origin", "null")]));
    }

    #[test]
    fn a_loopback_public_url_accepts_its_loopback_equivalents_only() {
        let public = Url::parse("http://localhost:8080").expect("url");
        let check = |origin: &str| is_same_origin(&TestRequest::post().insert_header(("origin", origin)).to_http_request(), &public);
        for same in ["http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080", "http://LOCALHOST:8080"] {
            assert!(check(same), "{same}");
        }
        for other in
            ["https://localhost:8080", "http://127.0.0.1:8081", "http://localhost", "http://papers.example.org:8080", "http://192.168.1.2:8080"]
        {
            assert!(!check(other), "{other}");
        }
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let request = TestRequest::get()
            .peer_addr("10.0.0.1:5000".parse().expect("addr"))
            .insert_header(("x-forwarded-for", "6.6.6.6, 203.0.113.9"))
            .to_http_request();
        assert_eq!(client_ip(&request, false), "10.0.0.1");
        assert_eq!(client_ip(&request, true), "203.0.113.9");
    }
}
