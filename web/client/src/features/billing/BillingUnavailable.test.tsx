import { screen, within } from "@testing-library/react";
import { CheckoutPage } from "@/pages/Checkout";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { renderRoute, stubFetch } from "@/test/harness";

function serveConfig(config: { supportEmail: string | null; billingEnabled: boolean }) {
  return stubFetch({
    "GET /api/config": { status: 200, body: { analytics: null, ...config } },
    "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } },
  });
}

/** A payment page (they all share this explanation; /subscribe shows the plans with it). */
function renderBilling(at = "/checkout?tier=pro") {
  return renderRoute(<CheckoutPage />, { at, routePath: "/checkout" });
}

beforeEach(() => {
  resetAppConfig();
  forgetSession();
});
afterEach(() => vi.unstubAllGlobals());

describe("payment pages with billing off", () => {
  it("explain the free plan's limits and that paid plans are not sold here", async () => {
    const fetchMock = serveConfig({ supportEmail: "help@example.org", billingEnabled: false });
    renderBilling();
    expect(await screen.findByRole("heading", { level: 1, name: "Billing is not enabled on this server" })).toBeInTheDocument();
    // Nothing is asked of a server that sells nothing.
    expect(fetchMock.mock.calls.map(([url]) => String(url))).not.toContain("/api/create-checkout-session");
    const main = screen.getByRole("main");
    expect(main).toHaveTextContent("Paid plans are not sold on this Papertide server");
    const plan = within(main).getByRole("list", { name: "The Free plan" });
    expect(within(plan).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "1 search term",
      "PubMed only",
      "Digests delivered on Mondays",
      "2 free digests",
    ]);
    expect(await within(main).findByRole("link", { name: "help@example.org" })).toHaveAttribute("href", "mailto:help@example.org");
  });

  it("never tell the user to run a command", async () => {
    serveConfig({ supportEmail: "help@example.org", billingEnabled: false });
    renderBilling();
    await screen.findByRole("link", { name: "help@example.org" });
    expect(screen.getByRole("main")).not.toHaveTextContent(/set-tier|papertide users|command/i);
  });

  it("without a support address: 'the operator of this server', and no mail link", async () => {
    const fetchMock = serveConfig({ supportEmail: null, billingEnabled: false });
    renderBilling();
    await screen.findByRole("heading", { level: 1, name: "Billing is not enabled on this server" });
    expect(fetchMock.mock.calls.some(([url]) => String(url) === "/api/config")).toBe(true);
    const main = screen.getByRole("main");
    expect(main).toHaveTextContent("please write to the operator of this server.");
    expect(within(main).queryByRole("link", { name: /@/ })).not.toBeInTheDocument();
  });

  it("lead back to the dashboard", async () => {
    serveConfig({ supportEmail: "help@example.org", billingEnabled: false });
    renderBilling();
    await screen.findByRole("heading", { level: 1, name: "Billing is not enabled on this server" });
    const back = within(screen.getByRole("main")).getByRole("link", { name: "Back to dashboard" });
    expect(back).toHaveAttribute("href", "/dashboard");
  });
});
