import type { AnalyticsConfig } from "@/state/config";
import { loadAnalytics, resetAnalyticsForTests, trackEvent, trackPageView } from "./analytics";

const ga4: AnalyticsConfig = { provider: "ga4", scriptUrl: "https://www.googletagmanager.com/gtag/js", siteId: "G-TEST123" };
const plausible: AnalyticsConfig = { provider: "plausible", scriptUrl: "https://plausible.io/js/script.js", siteId: "papertide.example.org" };
const umami: AnalyticsConfig = { provider: "umami", scriptUrl: "https://umami.example.org/script.js", siteId: "abc-123" };

function injectedScripts(): HTMLScriptElement[] {
  return Array.from(document.querySelectorAll("script"));
}

/** The gtag calls in the data layer, as plain arrays. */
function gtagCalls(): unknown[][] {
  return (window.dataLayer ?? []).map((entry) => Array.from(entry as ArrayLike<unknown>));
}

function consent(value: "true" | "false") {
  localStorage.setItem("analyticsConsent", value);
}

afterEach(() => resetAnalyticsForTests());

describe("loadAnalytics", () => {
  it("injects nothing without consent", () => {
    expect(loadAnalytics(ga4)).toBe(false);
    consent("false");
    expect(loadAnalytics(ga4)).toBe(false);
    expect(injectedScripts()).toHaveLength(0);
    expect(window.gtag).toBeUndefined();
  });

  it("injects nothing without a provider, even with consent", () => {
    consent("true");
    expect(loadAnalytics(null)).toBe(false);
    expect(loadAnalytics(undefined)).toBe(false);
    expect(injectedScripts()).toHaveLength(0);
  });

  it("injects the GA4 script exactly once with consent and a provider", () => {
    consent("true");
    expect(loadAnalytics(ga4)).toBe(true);
    expect(loadAnalytics(ga4)).toBe(true);
    const scripts = injectedScripts();
    expect(scripts).toHaveLength(1);
    expect(scripts[0].src).toBe("https://www.googletagmanager.com/gtag/js?id=G-TEST123");
    expect(gtagCalls()).toContainEqual(["config", "G-TEST123", { send_page_view: false }]);
  });

  it("tags the Plausible and Umami scripts with the site id", () => {
    consent("true");
    loadAnalytics(plausible);
    expect(injectedScripts()[0].getAttribute("data-domain")).toBe("papertide.example.org");
    expect(injectedScripts()[0].src).toBe("https://plausible.io/js/script.js");
    resetAnalyticsForTests();
    loadAnalytics(umami);
    expect(injectedScripts()[0].getAttribute("data-website-id")).toBe("abc-123");
    expect(injectedScripts()[0].getAttribute("data-auto-track")).toBe("false");
  });
});

describe("trackEvent", () => {
  it("sends nothing before a provider is loaded", () => {
    consent("true");
    expect(trackEvent("login")).toBe(false);
    expect(window.dataLayer).toBeUndefined();
  });

  it("sends an event with consent and a loaded provider", () => {
    consent("true");
    loadAnalytics(ga4);
    expect(trackEvent("search_added", { term: "crispr" })).toBe(true);
    expect(gtagCalls()).toContainEqual(["event", "search_added", { term: "crispr" }]);
  });

  it("stops sending once consent is withdrawn", () => {
    consent("true");
    loadAnalytics(ga4);
    consent("false");
    expect(trackEvent("login")).toBe(false);
    expect(trackPageView("/blog")).toBe(false);
    expect(gtagCalls().some((call) => call[0] === "event")).toBe(false);
  });

  it("queues Plausible events until its script runs", () => {
    consent("true");
    loadAnalytics(plausible);
    trackEvent("sign_up", { plan: "free" });
    expect(window.plausible?.q).toEqual([["sign_up", { props: { plan: "free" } }]]);
  });

  it("queues Umami calls until its script has loaded", () => {
    consent("true");
    loadAnalytics(umami);
    trackEvent("login");
    trackPageView("/dashboard");
    const track = vi.fn();
    window.umami = { track };
    injectedScripts()[0].dispatchEvent(new Event("load"));
    expect(track).toHaveBeenCalledWith("login", undefined);
    const pageView = track.mock.calls[1][0] as (props: Record<string, unknown>) => Record<string, unknown>;
    expect(pageView({ website: "abc-123" })).toEqual({ website: "abc-123", url: "/dashboard" });
  });
});

describe("trackPageView", () => {
  it("reports the path to GA4", () => {
    consent("true");
    loadAnalytics(ga4);
    expect(trackPageView("/blog?tag=ai")).toBe(true);
    expect(gtagCalls()).toContainEqual([
      "event",
      "page_view",
      expect.objectContaining({ page_path: "/blog?tag=ai", page_location: `${window.location.origin}/blog?tag=ai` }),
    ]);
  });

  it("leaves page views to Plausible's standard script, which counts them itself", () => {
    consent("true");
    loadAnalytics(plausible);
    expect(trackPageView("/blog")).toBe(false);
    expect(window.plausible?.q ?? []).toEqual([]);
  });

  it("sends page views to Plausible's manual script", () => {
    consent("true");
    loadAnalytics({ ...plausible, scriptUrl: "https://plausible.io/js/script.manual.js" });
    expect(trackPageView("/blog")).toBe(true);
    expect(window.plausible?.q).toEqual([["pageview", { u: `${window.location.origin}/blog` }]]);
  });
});
