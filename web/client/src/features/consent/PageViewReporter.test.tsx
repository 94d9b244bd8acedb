import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Link, MemoryRouter, Route, Routes } from "react-router-dom";
import { resetAnalyticsForTests } from "@/lib/analytics";
import { resetAppConfig, type AnalyticsConfig } from "@/state/config";
import { PageViewReporter } from "./PageViewReporter";

const ga4: AnalyticsConfig = { provider: "ga4", scriptUrl: "https://www.googletagmanager.com/gtag/js", siteId: "G-TEST" };

function serveConfig(analytics: AnalyticsConfig | null) {
  const fetchMock = vi.fn(async () =>
    new Response(JSON.stringify({ supportEmail: "help@example.org", analytics, billingEnabled: false }), { status: 200 }),
  );
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function renderApp() {
  render(
    <MemoryRouter initialEntries={["/"]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
      <PageViewReporter />
      <Routes>
        <Route path="/" element={<Link to="/blog?tag=ai">Read the blog</Link>} />
        <Route path="/blog" element={<h1>Blog</h1>} />
      </Routes>
    </MemoryRouter>,
  );
}

/** The paths reported to GA4 as page views. */
function reportedPageViews(): unknown[] {
  return (window.dataLayer ?? [])
    .map((entry) => Array.from(entry as ArrayLike<unknown>))
    .filter((call) => call[0] === "event" && call[1] === "page_view")
    .map((call) => (call[2] as { page_path: string }).page_path);
}

function storeConsent(choice: "accepted" | "declined") {
  localStorage.setItem("cookieConsent", choice);
  localStorage.setItem("analyticsConsent", choice === "accepted" ? "true" : "false");
}

beforeEach(() => {
  resetAppConfig();
});

afterEach(() => {
  resetAnalyticsForTests();
  vi.unstubAllGlobals();
});

describe("PageViewReporter", () => {
  it("loads analytics at once when consent was stored, and reports every route change", async () => {
    storeConsent("accepted");
    const fetchMock = serveConfig(ga4);
    renderApp();
    await waitFor(() => expect(reportedPageViews()).toEqual(["/"]));
    expect(fetchMock).toHaveBeenCalledWith("/api/config", expect.anything());
    expect(document.querySelectorAll("script")).toHaveLength(1);

    await userEvent.click(screen.getByRole("link", { name: "Read the blog" }));
    await screen.findByRole("heading", { name: "Blog" });
    expect(reportedPageViews()).toEqual(["/", "/blog?tag=ai"]);
  });

  it("loads and reports nothing when the visitor declined", async () => {
    storeConsent("declined");
    const fetchMock = serveConfig(ga4);
    renderApp();
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await userEvent.click(screen.getByRole("link", { name: "Read the blog" }));
    await screen.findByRole("heading", { name: "Blog" });
    expect(document.querySelectorAll("script")).toHaveLength(0);
    expect(reportedPageViews()).toEqual([]);
  });

  it("loads and reports nothing when no provider is configured, even with consent", async () => {
    storeConsent("accepted");
    const fetchMock = serveConfig(null);
    renderApp();
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await userEvent.click(screen.getByRole("link", { name: "Read the blog" }));
    await screen.findByRole("heading", { name: "Blog" });
    expect(document.querySelectorAll("script")).toHaveLength(0);
    expect(window.dataLayer).toBeUndefined();
  });

  it("starts analytics when the visitor accepts in the banner, counting the current page", async () => {
    serveConfig(ga4);
    renderApp();
    await userEvent.click(screen.getByRole("link", { name: "Read the blog" }));
    expect(document.querySelectorAll("script")).toHaveLength(0);
    expect(reportedPageViews()).toEqual([]);

    const accept = await screen.findByRole("button", { name: "Accept all cookies" }, { timeout: 2000 });
    await userEvent.click(accept);
    await waitFor(() => expect(reportedPageViews()).toEqual(["/blog?tag=ai"]));
    expect(document.querySelectorAll("script")).toHaveLength(1);
  });
});
