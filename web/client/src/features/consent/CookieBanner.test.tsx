import { act, fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { CookieBanner } from "./CookieBanner";
import { clearAllCookies, cookieNames, setCookies } from "@/test/cookies";

function renderBanner(onChoice = vi.fn()) {
  render(
    <MemoryRouter future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
      <CookieBanner onChoice={onChoice} />
    </MemoryRouter>,
  );
  return onChoice;
}

function advance(ms: number) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

const bannerTitle = () => screen.queryByRole("heading", { name: "We use cookies" });

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
  clearAllCookies();
});

describe("CookieBanner", () => {
  it("appears 1000 ms after load when no consent is stored", () => {
    renderBanner();
    advance(999);
    expect(bannerTitle()).not.toBeInTheDocument();
    advance(1);
    expect(bannerTitle()).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy");
  });

  it.each(["accepted", "declined"])("never appears when consent is already %s", (stored) => {
    localStorage.setItem("cookieConsent", stored);
    renderBanner();
    advance(5000);
    expect(bannerTitle()).not.toBeInTheDocument();
  });

  it("'Accept all cookies' stores accepted and turns analytics on", () => {
    const onChoice = renderBanner();
    advance(1000);
    fireEvent.click(screen.getByRole("button", { name: "Accept all cookies" }));
    expect(localStorage.getItem("cookieConsent")).toBe("accepted");
    expect(localStorage.getItem("analyticsConsent")).toBe("true");
    expect(onChoice).toHaveBeenCalledWith(true);
    expect(bannerTitle()).not.toBeInTheDocument();
  });

  it("'Essential only' stores declined, turns analytics off and deletes analytics cookies", () => {
    setCookies("_ga=1", "_gid=1", "_pk_id=1", "other=1");
    const onChoice = renderBanner();
    advance(1000);
    fireEvent.click(screen.getByRole("button", { name: "Essential only" }));
    expect(localStorage.getItem("cookieConsent")).toBe("declined");
    expect(localStorage.getItem("analyticsConsent")).toBe("false");
    expect(cookieNames()).toEqual(["other"]);
    expect(onChoice).toHaveBeenCalledWith(false);
    expect(bannerTitle()).not.toBeInTheDocument();
  });

  it("closing the banner counts as declining", () => {
    setCookies("_ga=1", "other=1");
    renderBanner();
    advance(1000);
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(localStorage.getItem("cookieConsent")).toBe("declined");
    expect(localStorage.getItem("analyticsConsent")).toBe("false");
    expect(cookieNames()).toEqual(["other"]);
    expect(bannerTitle()).not.toBeInTheDocument();
  });
});
