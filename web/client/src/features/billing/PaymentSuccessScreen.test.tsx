import { act, fireEvent, screen } from "@testing-library/react";
import { PaymentSuccessPage } from "@/pages/PaymentSuccess";
import { resetAppConfig } from "@/state/config";
import { currentUser, forgetSession, type Tier } from "@/state/session";
import { callsTo, renderRoute, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG } from "@/test/stripe";

const ME = "/api/auth/me";
const SESSION_STATUS = "/api/session-status";

const user = (tier: Tier): Reply => ({ status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: tier } } });

/** The user's plan as the server tells it (`account.tier`, changed by the test), and the session's status. */
const account = { tier: "free" as Tier };

function serve({ session = { status: "open", subscription_id: null } as Record<string, unknown> } = {}) {
  return stubFetch({
    "GET /api/config": BILLING_ON_CONFIG,
    [`GET ${ME}`]: () => user(account.tier),
    [`GET ${SESSION_STATUS}`]: { status: 200, body: session },
  });
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function renderSuccess(at: string) {
  renderRoute(<PaymentSuccessPage />, { at, routePath: "/payment-success" });
  await advance(0);
  await advance(0);
}

const location = () => screen.getByTestId("location").textContent;

beforeEach(() => {
  account.tier = "free";
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  resetAppConfig();
  forgetSession();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("/payment-success", () => {
  it("removes the payment parameters from the address bar and keeps the rest", async () => {
    serve();
    await renderSuccess(
      "/payment-success?session_id=cs_1&payment_intent=pi_1&payment_intent_client_secret=pi_1_secret_x&redirect_status=succeeded&tier=pro",
    );
    expect(location()).toBe("/payment-success?tier=pro");
    // An open session and a free user: nothing confirmed yet, so no success is claimed.
    expect(screen.getByRole("heading", { level: 1, name: "Confirming Your Payment" })).toBeInTheDocument();
    expect(screen.queryByText("Payment Successful!")).not.toBeInTheDocument();
  });

  it("'Payment Successful!' only once the server confirms the plan paid for", async () => {
    serve();
    await renderSuccess("/payment-success?tier=pro");
    expect(screen.queryByText("Payment Successful!")).not.toBeInTheDocument();
    account.tier = "pro";
    await advance(2000);
    expect(screen.getByRole("heading", { level: 1, name: "Payment Successful!" })).toBeInTheDocument();
    expect(screen.getByText("Thank you for subscribing to Research Pro.")).toBeInTheDocument();
  });

  it("a Pro user on the page for Team is not confirmed by being Pro", async () => {
    account.tier = "pro";
    serve();
    await renderSuccess("/payment-success?tier=team");
    await advance(7000);
    expect(screen.queryByText("Payment Successful!")).not.toBeInTheDocument();
    expect(screen.getByText("Still processing your subscription upgrade")).toBeInTheDocument();
  });

  it.each<Tier>(["free", "pro", "team"])("nothing to confirm (no session, no plan), a %s user: no success claimed, and the ways on", async (tier) => {
    account.tier = tier;
    const fetchMock = serve();
    await renderSuccess("/payment-success");
    await advance(3000);
    expect(screen.getByRole("heading", { level: 1, name: "No Payment to Confirm" })).toBeInTheDocument();
    expect(screen.queryByText("Payment Successful!")).not.toBeInTheDocument();
    expect(screen.queryByText("Redirecting to dashboard...")).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.getByRole("link", { name: "View Plans" })).toHaveAttribute("href", "/subscribe");
    expect(location()).toBe("/payment-success");
    expect(fetchMock.mock.calls.some(([url]) => String(url).startsWith(SESSION_STATUS))).toBe(false);
  });

  it("a complete session with a subscription: the status is asked, the user again, then the dashboard after 1 s", async () => {
    const fetchMock = serve({ session: { status: "complete", subscription_id: "sub_1", payment_status: "paid" } });
    await renderSuccess("/payment-success?session_id=cs_1");
    const urls = fetchMock.mock.calls.map(([url]) => String(url));
    expect(urls.filter((url) => url.startsWith(SESSION_STATUS))).toEqual(["/api/session-status?session_id=cs_1"]);
    // The user is asked again after the session (whose subscription the server applies at once).
    expect(urls.lastIndexOf(ME)).toBeGreaterThan(urls.indexOf("/api/session-status?session_id=cs_1"));
    expect(screen.getByText("Redirecting to dashboard...")).toBeInTheDocument();
    await advance(999);
    expect(location()).toBe("/payment-success");
    await advance(1);
    expect(location()).toBe("/dashboard");
  });

  it("an incomplete session waits", async () => {
    serve({ session: { status: "open", subscription_id: null } });
    await renderSuccess("/payment-success?session_id=cs_1");
    expect(screen.queryByText("Redirecting to dashboard...")).not.toBeInTheDocument();
    expect(screen.getByText("Waiting for webhook confirmation... 7s")).toBeInTheDocument();
  });

  it("asks for the user every 2 s and leaves once the plan is no longer free", async () => {
    const fetchMock = serve();
    await renderSuccess("/payment-success?tier=pro");
    expect(fetchMock.mock.calls.some(([url]) => String(url).startsWith(SESSION_STATUS))).toBe(false);
    // The page's own question (the header asks once more for the whole page).
    const asked = callsTo(fetchMock, ME);
    await advance(1999);
    expect(callsTo(fetchMock, ME)).toBe(asked);
    await advance(1);
    expect(callsTo(fetchMock, ME)).toBe(asked + 1);
    expect(screen.queryByText("Redirecting to dashboard...")).not.toBeInTheDocument();
    account.tier = "pro";
    await advance(2000);
    expect(callsTo(fetchMock, ME)).toBe(asked + 2);
    expect(currentUser.value?.subscriptionTier).toBe("pro");
    expect(screen.getByText("Redirecting to dashboard...")).toBeInTheDocument();
    await advance(1000);
    expect(location()).toBe("/dashboard");
  });

  it("counts 7 seconds down; at zero it stops asking, says it is still processing, and offers 'Check Again'", async () => {
    const fetchMock = serve();
    await renderSuccess("/payment-success?tier=team");
    expect(screen.getByText("Waiting for webhook confirmation... 7s")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Go to Dashboard" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Check Again" })).not.toBeInTheDocument();
    await advance(3000);
    expect(screen.getByText("Waiting for webhook confirmation... 4s")).toBeInTheDocument();
    await advance(4000);
    expect(screen.getByText("Still processing your subscription upgrade")).toBeInTheDocument();
    expect(screen.queryByText(/Waiting for webhook confirmation/)).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Check Again" })).toBeInTheDocument();
    const asked = callsTo(fetchMock, ME);
    await advance(10_000);
    expect(callsTo(fetchMock, ME)).toBe(asked);
    expect(location()).toBe("/payment-success?tier=team");
  });

  it("'Check Again' asks at once and waits another 7 seconds", async () => {
    const fetchMock = serve();
    await renderSuccess("/payment-success?tier=team");
    await advance(7000);
    const asked = callsTo(fetchMock, ME);
    fireEvent.click(screen.getByRole("button", { name: "Check Again" }));
    await advance(0);
    expect(callsTo(fetchMock, ME)).toBe(asked + 1);
    expect(screen.getByText("Waiting for webhook confirmation... 7s")).toBeInTheDocument();
    account.tier = "team";
    await advance(1999);
    expect(screen.queryByText("Redirecting to dashboard...")).not.toBeInTheDocument();
    await advance(1);
    expect(screen.getByText("Redirecting to dashboard...")).toBeInTheDocument();
  });

  it("'Go to Dashboard' leaves at once", async () => {
    serve();
    await renderSuccess("/payment-success?tier=pro");
    fireEvent.click(screen.getByRole("button", { name: "Go to Dashboard" }));
    expect(location()).toBe("/dashboard");
  });
});
