import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { polyfillBrowserApis, stubFetch } from "@/test/harness";
import routePatterns from "./routes.json";
import { AppRoutes, ROUTES } from "./routes";

/** An address a pattern matches: each `:param` filled in. */
const addressOf = (pattern: string) => pattern.replace(/:[^/]+/g, "example");

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
      <AppRoutes />
    </MemoryRouter>,
  );
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetAppConfig();
  forgetSession();
  // Every page may ask the server something; none of it matters here.
  stubFetch({});
});
afterEach(() => vi.unstubAllGlobals());

describe("routes.json (read by the server, which answers 404 for any other path)", () => {
  it("lists exactly the routes of the client's table, each once, without the catch-all", () => {
    expect(new Set(routePatterns).size).toBe(routePatterns.length);
    expect([...routePatterns].sort()).toEqual(Object.keys(ROUTES).sort());
    expect(routePatterns).not.toContain("*");
  });

  it.each(routePatterns)("%s is served by a page, not the 404", (pattern) => {
    renderAt(addressOf(pattern));
    expect(screen.queryByRole("heading", { name: "Page Not Found" })).not.toBeInTheDocument();
  });

  it("any other path is the 404 page, /subscribe/fix-payment included (spec §2: referenced, not registered)", () => {
    for (const path of ["/no/such/page", "/subscribe/fix-payment?subscriptionId=sub_9"]) {
      const { unmount } = renderAt(path);
      expect(screen.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeInTheDocument();
      unmount();
    }
  });

  it("the payment routes explain that billing is off, once the server's config says so", async () => {
    for (const path of ["/checkout", "/payment", "/payment-success", "/finalizing-subscription", "/debug-subscription"]) {
      const { unmount } = render(
        <MemoryRouter initialEntries={[path]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
          <AppRoutes />
        </MemoryRouter>,
      );
      expect(await screen.findByRole("heading", { level: 1, name: "Billing is not enabled on this server" })).toBeInTheDocument();
      unmount();
    }
  });

  it("/subscribe shows the plans and says that billing is off", async () => {
    renderAt("/subscribe");
    expect(await screen.findByRole("heading", { level: 1, name: "Choose Your Plan" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "Billing is not enabled on this server" })).toBeInTheDocument();
  });
});
