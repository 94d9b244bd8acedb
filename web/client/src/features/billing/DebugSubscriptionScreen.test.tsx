import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { DebugSubscriptionPage } from "@/pages/DebugSubscription";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, resetToasts, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG } from "@/test/stripe";
import { formatAmount } from "./DebugSubscriptionScreen";

const DEBUG = "/api/debug-webhook-status";
const FIX = "/api/fix-subscription";
const SIGNED_IN: Reply = { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: "free" } } };

const DEBUG_STATUS = {
  user: { email: "ada@example.org", subscriptionTier: "free", stripeCustomerId: "cus_42" },
  stripe: {
    customerId: "cus_42",
    subscriptions: [{ id: "sub_1", status: "active", tier: "team" }],
    invoices: [
      { id: "in_1", status: "paid", paid: true, amount_paid: 1000, amount_due: 1000, currency: "usd", created: 1767225600 },
      { id: "in_2", status: "open", paid: false, amount_paid: 0, amount_due: 499, currency: "usd", created: 1767225700 },
    ],
  },
};

function serve(handlers: Record<string, Reply> = {}, me: Reply = SIGNED_IN) {
  return stubFetch({ "GET /api/config": BILLING_ON_CONFIG, "GET /api/auth/me": me, ...handlers });
}

async function renderDebug(at = "/debug-subscription") {
  const user = userEvent.setup();
  renderRoute(<DebugSubscriptionPage />, { at, routePath: "/debug-subscription" });
  await screen.findByRole("heading", { level: 1, name: "Fix Subscription" });
  return user;
}

const location = () => screen.getByTestId("location").textContent;

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetAppConfig();
  forgetSession();
  resetToasts();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("formatAmount", () => {
  it("shows cents as dollars", () => {
    expect(formatAmount(1000, "usd")).toBe("$10.00");
    expect(formatAmount(499)).toBe("$4.99");
    expect(formatAmount(0, "usd")).toBe("$0.00");
  });
});

describe("/debug-subscription", () => {
  it("a visitor is sent to sign in", async () => {
    serve({}, { status: 401, body: { message: "Not authenticated" } });
    renderRoute(<DebugSubscriptionPage />, { at: "/debug-subscription", routePath: "/debug-subscription" });
    await waitFor(() => expect(location()).toBe("/auth"));
  });

  it("'Check Payment Status': 'Status Checked' and the account, its subscriptions and invoices with amounts in dollars", async () => {
    serve({ [`GET ${DEBUG}`]: { status: 200, body: DEBUG_STATUS } });
    const user = await renderDebug();
    await user.click(screen.getByRole("button", { name: "Check Payment Status" }));
    const panel = await screen.findByRole("region", { name: "Payment Details" });
    expect(latestToast()).toMatchObject({ title: "Status Checked", variant: "success" });
    const value = (label: string) => within(panel).getByText(label, { selector: "dt" }).nextElementSibling?.textContent;
    expect(value("Email")).toBe("ada@example.org");
    expect(value("Plan")).toBe("Free");
    expect(value("Payment customer")).toBe("cus_42");
    const subscriptions = within(panel).getByRole("list", { name: "Subscriptions" });
    expect(within(subscriptions).getByRole("listitem")).toHaveTextContent("sub_1");
    expect(within(subscriptions).getByRole("listitem")).toHaveTextContent("Team · active");
    const rows = within(panel).getAllByRole("row").slice(1).map((row) => within(row).getAllByRole("cell").map((cell) => cell.textContent));
    expect(rows).toEqual([
      ["in_1", "paid", "Yes", "$10.00", "$10.00"],
      ["in_2", "open", "No", "$0.00", "$4.99"],
    ]);
  });

  it("a failed check: 'Check Failed' with the server's message", async () => {
    serve({ [`GET ${DEBUG}`]: { status: 502, body: { message: "The payment provider did not answer." } } });
    const user = await renderDebug();
    await user.click(screen.getByRole("button", { name: "Check Payment Status" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Check Failed"));
    expect(latestToast()).toMatchObject({ description: "The payment provider did not answer.", variant: "destructive" });
    expect(screen.queryByRole("region", { name: "Payment Details" })).not.toBeInTheDocument();
  });

  it("a failed check without a message: a text that names the support address", async () => {
    serve({ [`GET ${DEBUG}`]: { status: 500 } });
    const user = await renderDebug();
    await user.click(screen.getByRole("button", { name: "Check Payment Status" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Check Failed"));
    expect(latestToast()?.description).toBe("We could not check your payment status. Please try again or contact support at help@example.org.");
  });

  it("'Fix My Subscription': 'Subscription Fixed' with the new tier, then the dashboard after 2 s", async () => {
    const fetchMock = serve({ [`POST ${FIX}`]: { status: 200, body: { tier: "team", changed: true } } });
    await renderDebug();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Fix My Subscription" }));
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(callsTo(fetchMock, FIX)).toBe(1);
    expect(latestToast()).toMatchObject({
      title: "Subscription Fixed",
      description: "Your subscription tier has been updated to team. Please refresh your dashboard.",
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1999);
    });
    expect(location()).toBe("/debug-subscription");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(location()).toBe("/dashboard");
  });

  it("a failed fix: 'Fix Failed' with the server's message, and the page stays", async () => {
    serve({ [`POST ${FIX}`]: { status: 404, body: { message: "No subscription was found for your account." } } });
    const user = await renderDebug();
    await user.click(screen.getByRole("button", { name: "Fix My Subscription" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Fix Failed"));
    expect(latestToast()?.description).toBe("No subscription was found for your account.");
    expect(screen.getByRole("button", { name: "Fix My Subscription" })).toBeEnabled();
    expect(location()).toBe("/debug-subscription");
  });

  it("a failed fix without a message: a text that names the support address", async () => {
    serve({ [`POST ${FIX}`]: { status: 500 } });
    const user = await renderDebug();
    await user.click(screen.getByRole("button", { name: "Fix My Subscription" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Fix Failed"));
    expect(latestToast()?.description).toBe("We could not fix your subscription. Please try again or contact support at help@example.org.");
  });
});
