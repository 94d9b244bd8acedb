// Privacy-first analytics (spec §4, §7). Nothing is loaded or sent unless BOTH hold:
//   1. the operator configured a provider (GET /api/config → analytics, null by default), and
//   2. the visitor consented: localStorage analyticsConsent === "true".
// `loadAnalytics` injects the provider's script at most once; `trackEvent` and `trackPageView`
// send only after it did. Calls made before the script finished loading are queued (Plausible's
// and gtag's own queue stubs, our own queue for Umami), so no event is lost in between.
import type { AnalyticsConfig } from "@/state/config";

export type AnalyticsEvent = "sign_up" | "login" | "search_added" | "email_digest_viewed" | "page_view";

/** localStorage key holding "true" or "false" (spec §3). */
export const ANALYTICS_CONSENT_KEY = "analyticsConsent";

/** Marks the one script element this module injects. */
const SCRIPT_MARKER_ATTRIBUTE = "data-papertide-analytics";

type QueuedCall = unknown[];

interface PlausibleFunction {
  (...args: unknown[]): void;
  q?: QueuedCall[];
}

interface UmamiTracker {
  track: (...args: unknown[]) => unknown;
}

declare global {
  interface Window {
    dataLayer?: unknown[];
    gtag?: (...args: unknown[]) => void;
    plausible?: PlausibleFunction;
    umami?: UmamiTracker;
  }
}

/** The provider whose script was injected; null until `loadAnalytics` succeeded. */
let loadedConfig: AnalyticsConfig | null = null;
/** Umami defines `window.umami` only once its script ran; calls wait here until then. */
let pendingUmamiCalls: Array<(umami: UmamiTracker) => void> = [];

export function hasAnalyticsConsent(): boolean {
  return localStorage.getItem(ANALYTICS_CONSENT_KEY) === "true";
}

export function isAnalyticsLoaded(): boolean {
  return loadedConfig !== null;
}

/**
 * Injects the configured provider's script, once. Returns whether analytics is now loaded;
 * false (and nothing injected) without a provider or without consent.
 */
export function loadAnalytics(config: AnalyticsConfig | null | undefined): boolean {
  if (!config || !config.scriptUrl || !config.siteId) return false;
  if (!hasAnalyticsConsent()) return false;
  if (loadedConfig) return true;

  const script = document.createElement("script");
  script.async = true;
  script.defer = true;
  script.setAttribute(SCRIPT_MARKER_ATTRIBUTE, config.provider);

  switch (config.provider) {
    case "plausible":
      installPlausibleQueue();
      script.src = config.scriptUrl;
      script.setAttribute("data-domain", config.siteId);
      break;
    case "umami":
      script.src = config.scriptUrl;
      script.setAttribute("data-website-id", config.siteId);
      // Page views are reported by the router (PageViewReporter), so each is counted once.
      script.setAttribute("data-auto-track", "false");
      script.addEventListener("load", flushUmamiQueue);
      break;
    case "ga4":
      installGtag(config.siteId);
      script.src = withQueryParameter(config.scriptUrl, "id", config.siteId);
      break;
    default:
      return false;
  }

  document.head.appendChild(script);
  loadedConfig = config;
  return true;
}

/** Sends an event; does nothing without consent or before a provider was loaded. */
export function trackEvent(name: AnalyticsEvent, params?: Record<string, string>): boolean {
  if (!hasAnalyticsConsent() || !loadedConfig) return false;
  if (name === "page_view") return sendPageView(loadedConfig, params?.path ?? currentPath());

  switch (loadedConfig.provider) {
    case "plausible":
      window.plausible?.(name, params ? { props: params } : undefined);
      return true;
    case "umami":
      callUmami((umami) => umami.track(name, params));
      return true;
    case "ga4":
      window.gtag?.("event", name, params ?? {});
      return true;
  }
}

/** Reports a page view for `path` (pathname plus query), with the same rules as `trackEvent`. */
export function trackPageView(path: string): boolean {
  return trackEvent("page_view", { path });
}

/** For tests: remove the injected script and every trace of a provider. */
export function resetAnalyticsForTests() {
  document.querySelectorAll(`script[${SCRIPT_MARKER_ATTRIBUTE}]`).forEach((script) => script.remove());
  loadedConfig = null;
  pendingUmamiCalls = [];
  delete window.dataLayer;
  delete window.gtag;
  delete window.plausible;
  delete window.umami;
}

function sendPageView(config: AnalyticsConfig, path: string): boolean {
  switch (config.provider) {
    case "plausible":
      // Plausible's standard script counts SPA page views itself (it follows history changes);
      // only its "manual" variant expects them from us. Sending both would count each twice.
      if (!config.scriptUrl.includes("manual")) return false;
      window.plausible?.("pageview", { u: absoluteUrl(path) });
      return true;
    case "umami":
      callUmami((umami) => umami.track((props: Record<string, unknown>) => ({ ...props, url: path })));
      return true;
    case "ga4":
      window.gtag?.("event", "page_view", {
        page_path: path,
        page_location: absoluteUrl(path),
        page_title: document.title,
      });
      return true;
  }
}

/** Plausible's documented stub: calls made before the script loads wait in `plausible.q`. */
function installPlausibleQueue() {
  if (window.plausible) return;
  const queueingPlausible: PlausibleFunction = (...args: unknown[]) => {
    (queueingPlausible.q ??= []).push(args);
  };
  window.plausible = queueingPlausible;
}

/** Google's gtag bootstrap; the automatic page view is off because the router reports them. */
function installGtag(measurementId: string) {
  window.dataLayer = window.dataLayer ?? [];
  // gtag.js expects the Arguments object itself in the data layer, not an array copy.
  window.gtag = function gtag() {
    // eslint-disable-next-line prefer-rest-params
    window.dataLayer?.push(arguments);
  };
  window.gtag("js", new Date());
  window.gtag("config", measurementId, { send_page_view: false });
}

function callUmami(call: (umami: UmamiTracker) => void) {
  if (window.umami) call(window.umami);
  else pendingUmamiCalls.push(call);
}

function flushUmamiQueue() {
  const umami = window.umami;
  if (!umami) return;
  const calls = pendingUmamiCalls;
  pendingUmamiCalls = [];
  for (const call of calls) call(umami);
}

function withQueryParameter(url: string, name: string, value: string): string {
  const separator = url.includes("?") ? "&" : "?";
  return `${url}${separator}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
}

function currentPath(): string {
  return `${window.location.pathname}${window.location.search}`;
}

function absoluteUrl(path: string): string {
  return new URL(path, window.location.origin).toString();
}
