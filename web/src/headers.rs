//! The security headers every answer carries: a Content-Security-Policy that allows the client's
//! own files and, when configured, Stripe.js and the analytics provider (nothing else); no
//! framing by other sites; HSTS when the public URL is https; and `Cache-Control: no-store` on
//! API answers, which carry personal data.
//!
//! Styles may be inline (`'unsafe-inline'` in `style-src` only): the dialog library the client
//! uses adds `<style>` elements while a dialog is open. Scripts are the client's own files and
//! the configured third parties' only, with no inline script and no `eval`.

use actix_web::middleware::DefaultHeaders;
use url::Url;

use crate::config::{Analytics, Settings};

/// What a page may load, for this installation's settings.
pub fn content_security_policy(settings: &Settings) -> String {
    let mut sources = Sources::default();
    if let Some(stripe) = &settings.stripe {
        sources.add_stripe(&stripe.js_url, &stripe.api_url);
    }
    if let Some(analytics) = &settings.analytics {
        sources.add_analytics(analytics);
    }
    let list = |extra: &[String]| extra.iter().map(|source| format!(" {source}")).collect::<String>();
    let frames = if sources.frame.is_empty() { " 'none'".to_owned() } else { list(&sources.frame) };
    [
        "default-src 'self'".to_owned(),
        format!("script-src 'self'{}", list(&sources.script)),
        "style-src 'self' 'unsafe-inline'".to_owned(),
        format!("img-src 'self' data:{}", list(&sources.image)),
        "font-src 'self'".to_owned(),
        format!("connect-src 'self'{}", list(&sources.connect)),
        format!("frame-src{frames}"),
        "frame-ancestors 'none'".to_owned(),
        "form-action 'self'".to_owned(),
        "base-uri 'none'".to_owned(),
        "object-src 'none'".to_owned(),
    ]
    .join("; ")
}

/// The third-party origins each directive allows beyond the service's own.
#[derive(Default)]
struct Sources {
    script: Vec<String>,
    connect: Vec<String>,
    frame: Vec<String>,
    image: Vec<String>,
}

impl Sources {
    /// Stripe.js, its frames (card fields, 3-D Secure, embedded Checkout) and the API it calls.
    /// Real Stripe spreads these over several hosts, as its CSP guidance lists; a Stripe stand-in
    /// (a test peer) serves everything from the configured addresses.
    fn add_stripe(&mut self, js_url: &Url, api_url: &Url) {
        let (js, api) = (origin(js_url), origin(api_url));
        if js_url.host_str() == Some("js.stripe.com") {
            let js_hosts = ["https://js.stripe.com".to_owned(), "https://*.js.stripe.com".to_owned()];
            self.script.extend(js_hosts.clone());
            self.frame.extend(js_hosts);
            self.frame.extend(["https://hooks.stripe.com".to_owned(), "https://checkout.stripe.com".to_owned()]);
            self.connect.extend(["https://api.stripe.com".to_owned(), "https://checkout.stripe.com".to_owned()]);
            self.image.push("https://*.stripe.com".to_owned());
        } else {
            self.script.push(js.clone());
            self.frame.push(js.clone());
            self.connect.push(js);
        }
        push_new(&mut self.connect, api);
    }

    /// The provider's script, and where it reports (its own origin; Google's hosts for GA4).
    fn add_analytics(&mut self, analytics: &Analytics) {
        let Ok(script_url) = Url::parse(&analytics.script_url) else { return };
        let script = origin(&script_url);
        push_new(&mut self.script, script.clone());
        push_new(&mut self.connect, script);
        if analytics.provider == "ga4" {
            let google = ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"];
            for host in google {
                push_new(&mut self.connect, host.to_owned());
                push_new(&mut self.image, host.to_owned());
            }
        }
    }
}

fn push_new(list: &mut Vec<String>, source: String) {
    if !list.contains(&source) {
        list.push(source);
    }
}

/// `scheme://host[:port]`, the form a CSP source takes.
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The headers every answer gets unless its handler set them (the fallback page sets its own
/// policy, which allows its inline script).
pub fn every_answer(settings: &Settings) -> DefaultHeaders {
    let headers = DefaultHeaders::new()
        .add(("Content-Security-Policy", content_security_policy(settings)))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("Referrer-Policy", "same-origin"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Permissions-Policy", "camera=(), microphone=(), geolocation=()"));
    if settings.public_url.scheme() == "https" {
        // A year; not includeSubDomains, since other services may share the domain.
        headers.add(("Strict-Transport-Security", "max-age=31536000"))
    } else {
        headers
    }
}

/// API answers, and health and metrics: never kept by a browser or a proxy.
pub fn not_stored() -> DefaultHeaders {
    DefaultHeaders::new().add(("Cache-Control", "no-store"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve, CommonArgs, FileConfig, ServeArgs, StripeArgs};

    fn settings(configure: impl FnOnce(&mut ServeArgs)) -> Settings {
        let mut serve = ServeArgs::default();
        configure(&mut serve);
        resolve(FileConfig::default(), &CommonArgs::default(), &serve).expect("valid settings")
    }

    fn directive<'a>(policy: &'a str, name: &str) -> &'a str {
        policy.split("; ").find(|part| part.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{name} in {policy}"))
    }

    #[test]
    fn without_billing_or_analytics_only_the_service_itself_is_allowed() {
        let policy = content_security_policy(&settings(|_| {}));
        assert_eq!(directive(&policy, "script-src"), "script-src 'self'");
        assert_eq!(directive(&policy, "connect-src"), "connect-src 'self'");
        assert_eq!(directive(&policy, "frame-src"), "frame-src 'none'");
        assert_eq!(directive(&policy, "frame-ancestors"), "frame-ancestors 'none'");
        assert!(!policy.contains("unsafe-eval") && !directive(&policy, "script-src").contains("unsafe-inline"));
    }

    #[test]
    fn real_stripe_gets_the_hosts_stripe_documents_and_a_stand_in_its_own_origin() {
        let stripe = |js: &str, api: &str| StripeArgs {
            stripe_secret_key: Some("sk_test_1".into()),
            stripe_publishable_key: Some("pk_test_1".into()),
            stripe_webhook_secret: Some("whsec_1".into()),
            stripe_api_url: Some(api.into()),
            stripe_js_url: Some(js.into()),
            stripe_price_pro: Some("price_pro".into()),
            stripe_price_team: Some("price_team".into()),
        };
        let real = content_security_policy(&settings(|serve| serve.stripe = stripe("https://js.stripe.com/v3/", "https://api.stripe.com/")));
        assert!(directive(&real, "script-src").contains("https://js.stripe.com"));
        assert!(directive(&real, "frame-src").contains("https://hooks.stripe.com"));
        assert_eq!(directive(&real, "connect-src"), "connect-src 'self' https://api.stripe.com https://checkout.stripe.com");

        let peer =
            content_security_policy(&settings(|serve| serve.stripe = stripe("http://127.0.0.1:8420/js.stripe.com/v3/", "http://127.0.0.1:8420/")));
        assert_eq!(directive(&peer, "script-src"), "script-src 'self' http://127.0.0.1:8420");
        assert_eq!(directive(&peer, "frame-src"), "frame-src http://127.0.0.1:8420");
        assert_eq!(directive(&peer, "connect-src"), "connect-src 'self' http://127.0.0.1:8420");
    }

    #[test]
    fn analytics_adds_its_script_origin_and_google_hosts_for_ga4() {
        let plausible = content_security_policy(&settings(|serve| {
            serve.analytics_provider = Some("plausible".into());
            serve.analytics_site_id = Some("papertide.example".into());
            serve.analytics_script_url = Some("https://plausible.io/js/script.js".into());
        }));
        assert_eq!(directive(&plausible, "script-src"), "script-src 'self' https://plausible.io");
        assert_eq!(directive(&plausible, "connect-src"), "connect-src 'self' https://plausible.io");
        let ga4 = content_security_policy(&settings(|serve| {
            serve.analytics_provider = Some("ga4".into());
            serve.analytics_site_id = Some("G-TEST".into());
            serve.analytics_script_url = Some("https://www.googletagmanager.com/gtag/js".into());
        }));
        assert!(directive(&ga4, "connect-src").contains("https://*.google-analytics.com"));
        assert!(directive(&ga4, "img-src").contains("https://*.googletagmanager.com"));
    }
}
