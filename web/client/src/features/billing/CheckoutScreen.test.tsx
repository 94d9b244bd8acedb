import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CheckoutPage } from "@/pages/Checkout";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { callsTo, latestToast, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG, installFakeStripe } from "@/test/stripe";

const SESSION = "/api/create-checkout-session";
const SIGNED_IN: Reply = { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: "free" } } };

function serve(session: Reply = { status: 200, body: { clientSecret: "cs_test_secret" } }, me: Reply = SIGNED_IN) {
  return stubFetch({ "GET /api/config": BILLING_ON_CONFIG, "GET /api/auth/me": me, [`POST ${SESSION}`]: session });
}

function renderCheckout(at = "/checkout?tier=team") {
  const user = userEvent.setup();
  const view = renderRoute(<CheckoutPage />, { at, routePath: "/checkout" });
  return { user, ...view };
}

const location = () => screen.getByTestId("location").textContent;

beforeEach(() => {
  resetAppConfig();
  forgetSession();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("/checkout", () => {
  it("a visitor is sent to sign in, returning to the plans", async () => {
    installFakeStripe();
    const fetchMock = serve(undefined, { status: 401, body: { message: "Not authenticated" } });
    renderCheckout();
    await waitFor(() => expect(location()).toBe("/auth?redirect=subscribe"));
    expect(callsTo(fetchMock, SESSION)).toBe(0);
  });

  it("shows the plan, its price and the secure-payment note, and mounts Stripe's embedded Checkout", async () => {
    const { stripe, checkout } = installFakeStripe();
    const fetchMock = serve();
    renderCheckout();
    expect(await screen.findByRole("heading", { level: 1, name: "Subscribe to Research Team" })).toBeInTheDocument();
    expect(screen.getByRole("main")).toHaveTextContent("$10/month");
    expect(screen.getByText(/Secure payment: your card details go straight to Stripe/)).toBeInTheDocument();
    await waitFor(() => expect(checkout.mount).toHaveBeenCalledTimes(1));
    expect(requestBody(fetchMock, SESSION)).toEqual({ tier: "team" });
    const { fetchClientSecret } = stripe.initEmbeddedCheckout.mock.calls[0][0];
    await expect(fetchClientSecret()).resolves.toBe("cs_test_secret");
    expect(screen.getByRole("main")).toContainElement(checkout.mount.mock.calls[0][0] as HTMLElement);
    expect(screen.queryByRole("status", { name: "Loading secure checkout" })).not.toBeInTheDocument();
  });

  it("offers the card form instead, and the way back to the plans", async () => {
    installFakeStripe();
    serve();
    renderCheckout();
    expect(await screen.findByRole("link", { name: "Pay with a card on this page instead" })).toHaveAttribute(
      "href",
      "/payment?tier=team&email=ada%40example.org",
    );
    expect(screen.getByRole("link", { name: "Back to Plans" })).toHaveAttribute("href", "/subscribe");
  });

  it.each(["/checkout", "/checkout?tier=free", "/checkout?tier=enterprise"])("%s: the Pro plan", async (at) => {
    installFakeStripe();
    const fetchMock = serve();
    renderCheckout(at);
    expect(await screen.findByRole("heading", { level: 1, name: "Subscribe to Research Pro" })).toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetchMock, SESSION)).toBe(1));
    expect(requestBody(fetchMock, SESSION)).toEqual({ tier: "pro" });
  });

  it("a failed session: the 'Checkout Error' card with the server's message and 'Return to Plans'", async () => {
    const { stripe } = installFakeStripe();
    serve({ status: 502, body: { message: "The payment provider did not answer." } });
    const { user } = renderCheckout();
    const card = await screen.findByRole("alert");
    expect(within(card).getByRole("heading", { name: "Checkout Error" })).toBeInTheDocument();
    expect(card).toHaveTextContent("The payment provider did not answer.");
    expect(stripe.initEmbeddedCheckout).not.toHaveBeenCalled();
    await user.click(within(card).getByRole("link", { name: "Return to Plans" }));
    expect(location()).toBe("/subscribe");
  });

  it("a failed session without a message: 'Failed to create checkout session'", async () => {
    installFakeStripe();
    serve({ status: 500 });
    renderCheckout();
    expect(await screen.findByRole("alert")).toHaveTextContent("Failed to create checkout session");
  });

  it("a Pro user (409 use_card_form) is sent to the card form, which changes the plan in place", async () => {
    installFakeStripe();
    serve({ status: 409, body: { code: "use_card_form", message: "Use the card form." } });
    renderCheckout();
    await waitFor(() => expect(location()).toBe("/payment?tier=team&email=ada%40example.org"));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("already on the plan (409 already_active): 'Subscription Already Active' and the dashboard", async () => {
    installFakeStripe();
    serve({ status: 409, body: { code: "already_active", message: "Already on Team." } });
    renderCheckout();
    await waitFor(() => expect(location()).toBe("/dashboard"));
    expect(latestToast()).toMatchObject({ title: "Subscription Already Active", description: "You already have an active team subscription." });
  });

  it("leaving the page removes the embedded Checkout", async () => {
    const { checkout } = installFakeStripe();
    serve();
    const { unmount } = renderCheckout();
    await waitFor(() => expect(checkout.mount).toHaveBeenCalled());
    unmount();
    expect(checkout.destroy).toHaveBeenCalledTimes(1);
  });
});
