import { deleteAnalyticsCookies, readCookieConsent, saveCookieConsent, startAnalyticsIfAllowed } from "./consent";
import { resetAnalyticsForTests } from "@/lib/analytics";
import { DEFAULT_CONFIG } from "@/state/config";
import { clearAllCookies, cookieNames, setCookies } from "@/test/cookies";

const ga4Config = {
  ...DEFAULT_CONFIG,
  analytics: { provider: "ga4" as const, scriptUrl: "https://www.googletagmanager.com/gtag/js", siteId: "G-TEST" },
};

afterEach(() => {
  clearAllCookies();
  resetAnalyticsForTests();
});

describe("cookie consent storage", () => {
  it("is unset until the visitor chooses", () => {
    expect(readCookieConsent()).toBeNull();
    localStorage.setItem("cookieConsent", "maybe");
    expect(readCookieConsent()).toBeNull();
  });

  it("stores accepted/true and declined/false", () => {
    saveCookieConsent(true);
    expect(localStorage.getItem("cookieConsent")).toBe("accepted");
    expect(localStorage.getItem("analyticsConsent")).toBe("true");
    saveCookieConsent(false);
    expect(localStorage.getItem("cookieConsent")).toBe("declined");
    expect(localStorage.getItem("analyticsConsent")).toBe("false");
  });
});

describe("deleteAnalyticsCookies", () => {
  it("deletes only cookies with an analytics prefix", () => {
    setCookies("_ga=1", "_ga_ABC=1", "_gid=1", "_gat_UA=1", "_pk_id=1", "_fbp=1", "_fbc=1", "other=1");
    deleteAnalyticsCookies();
    expect(cookieNames()).toEqual(["other"]);
  });

  it("runs when the visitor declines", () => {
    setCookies("_ga=1", "_gid=1", "_pk_id=1", "other=1");
    saveCookieConsent(false);
    expect(cookieNames()).toEqual(["other"]);
  });

  it("keeps the cookies when the visitor accepts", () => {
    setCookies("_ga=1", "other=1");
    saveCookieConsent(true);
    expect(cookieNames()).toEqual(["_ga", "other"]);
  });
});

describe("startAnalyticsIfAllowed", () => {
  it("loads the provider only after an accepted choice", () => {
    expect(startAnalyticsIfAllowed(ga4Config)).toBe(false);
    saveCookieConsent(false);
    expect(startAnalyticsIfAllowed(ga4Config)).toBe(false);
    expect(document.querySelectorAll("script")).toHaveLength(0);
    saveCookieConsent(true);
    expect(startAnalyticsIfAllowed(ga4Config)).toBe(true);
    expect(document.querySelectorAll("script")).toHaveLength(1);
  });

  it("loads nothing when the installation has no provider", () => {
    saveCookieConsent(true);
    expect(startAnalyticsIfAllowed(DEFAULT_CONFIG)).toBe(false);
    expect(document.querySelectorAll("script")).toHaveLength(0);
  });
});
