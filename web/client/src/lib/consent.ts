// The visitor's cookie choice (spec §3, §4), kept in localStorage:
//   cookieConsent    = "accepted" | "declined"  (absent until the visitor chose)
//   analyticsConsent = "true" | "false"
// These functions are the only writers. Declining also deletes analytics cookies already set.
import { ANALYTICS_CONSENT_KEY, hasAnalyticsConsent, loadAnalytics } from "@/lib/analytics";
import type { AppConfig } from "@/state/config";

export type CookieConsent = "accepted" | "declined";

export const COOKIE_CONSENT_KEY = "cookieConsent";

/** The banner waits this long after load before asking (spec §9). */
export const COOKIE_BANNER_DELAY_MS = 1000;

/** Cookies set by analytics and ad providers (Google Analytics, Matomo, Meta). */
export const ANALYTICS_COOKIE_PREFIXES = ["_ga", "_gid", "_gat", "_pk_", "_fbp", "_fbc"] as const;

export function readCookieConsent(): CookieConsent | null {
  const stored = localStorage.getItem(COOKIE_CONSENT_KEY);
  return stored === "accepted" || stored === "declined" ? stored : null;
}

/** Stores the choice; declining removes the analytics cookies already in the browser. */
export function saveCookieConsent(allowAnalytics: boolean) {
  localStorage.setItem(COOKIE_CONSENT_KEY, allowAnalytics ? "accepted" : "declined");
  localStorage.setItem(ANALYTICS_CONSENT_KEY, allowAnalytics ? "true" : "false");
  if (!allowAnalytics) deleteAnalyticsCookies();
}

/** Loads the analytics provider when the stored choice allows it; returns whether it is loaded. */
export function startAnalyticsIfAllowed(config: AppConfig): boolean {
  if (readCookieConsent() !== "accepted" || !hasAnalyticsConsent()) return false;
  return loadAnalytics(config.analytics);
}

/**
 * Expires every cookie whose name begins with one of ANALYTICS_COOKIE_PREFIXES. A cookie is
 * only removed by a write with the same path and domain it was set with, so each is expired
 * for path / on the host itself and on every parent domain (providers such as Google Analytics
 * set theirs on the registrable domain, e.g. .example.org for app.example.org).
 */
export function deleteAnalyticsCookies() {
  const names = document.cookie
    .split(";")
    .map((entry) => entry.split("=")[0].trim())
    .filter((name) => ANALYTICS_COOKIE_PREFIXES.some((prefix) => name.startsWith(prefix)));
  const domains = cookieDomainsFor(window.location.hostname);

  for (const name of names) {
    const expired = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; max-age=0; path=/`;
    document.cookie = expired;
    for (const domain of domains) document.cookie = `${expired}; domain=${domain}`;
  }
}

/** The host and its parent domains, each also with a leading dot: a.b.org → a.b.org, .a.b.org, b.org, .b.org. */
function cookieDomainsFor(hostname: string): string[] {
  if (!hostname) return [];
  const labels = hostname.split(".");
  const domains: string[] = [hostname, `.${hostname}`];
  for (let first = 1; first <= labels.length - 2; first += 1) {
    const parent = labels.slice(first).join(".");
    domains.push(parent, `.${parent}`);
  }
  return domains;
}
