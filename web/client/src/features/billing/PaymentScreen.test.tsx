import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { PaymentPage } from "@/pages/Payment";
import { resetAppConfig } from "@/state/config";
import { forgetSession, setCurrentUser } from "@/state/session";
import { callsTo, held, latestToast, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG, installFakeStripe, STRIPE_CONFIG } from "@/test/stripe";
import { STRIPE_SCRIPT_ATTRIBUTE } from "./stripe";

const CREATE = "/api/create-subscription";
const PRO_ADDRESS = "/payment?tier=pro&email=ada%40example.org";
const PRO_BUTTON = "Subscribe to Research Pro - $5/month";

const SETUP_ANSWER = { alreadyActive: false, tier: "pro", step: "setup", clientSecret: "seti_123_secret_abc", subscriptionId: null };
const subscribed = (clientSecret: string | null) => ({
  alreadyActive: false,
  tier: "pro",
  step: "subscription",
  subscriptionId: "sub_1",
  clientSecret,
});

/** The server's two steps: a SetupIntent first, then `second` once the card is confirmed. */
function serve(second: Reply = { status: 200, body: subscribed("pi_123_secret_def") }, first: Reply = { status: 200, body: SETUP_ANSWER }) {
  return stubFetch({
    "GET /api/config": BILLING_ON_CONFIG,
    [`POST ${CREATE}`]: (body) => ((body as { setupIntentId?: string }).setupIntentId ? second : first),
  });
}

async function renderPayment(at = PRO_ADDRESS, buttonName = PRO_BUTTON) {
  const user = userEvent.setup();
  renderRoute(<PaymentPage />, { at, routePath: "/payment" });
  const button = await screen.findByRole("button", { name: buttonName });
  return { user, button };
}

const location = () => screen.getByTestId("location").textContent;
const zipField = () => screen.getByLabelText("ZIP Code");

async function pay(user: ReturnType<typeof userEvent.setup>, zip = "02139") {
  await user.type(zipField(), zip);
  await user.click(screen.getByRole("button", { name: PRO_BUTTON }));
}

const ADA = { id: "u1", email: "ada@example.org", subscriptionTier: "free" as const };

beforeEach(() => {
  resetAppConfig();
  forgetSession();
  // Signed in as Ada, unless a test says otherwise.
  setCurrentUser(ADA);
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("/payment: its address", () => {
  it.each(["/payment?tier=gold&email=ada%40example.org", "/payment?email=ada%40example.org", "/payment?tier=free&email=a%40b.org"])(
    "%s: 'Invalid Plan' and back to /subscribe",
    async (at) => {
      installFakeStripe();
      serve();
      renderRoute(<PaymentPage />, { at, routePath: "/payment" });
      await waitFor(() => expect(location()).toBe("/subscribe"));
      expect(latestToast()).toMatchObject({ title: "Invalid Plan", description: "Please select a valid subscription plan." });
    },
  );

  it("without an email, signed in: the card form, never 'Authentication Required'", async () => {
    installFakeStripe();
    serve();
    renderRoute(<PaymentPage />, { at: "/payment?tier=team", routePath: "/payment" });
    expect(await screen.findByText("Subscribing as ada@example.org")).toBeInTheDocument();
    expect(location()).toBe("/payment?tier=team");
    expect(latestToast()).toBeUndefined();
  });

  it("without an email, signed out: 'Authentication Required' and sign-in that returns to the plans", async () => {
    installFakeStripe();
    forgetSession();
    stubFetch({ "GET /api/config": BILLING_ON_CONFIG, "GET /api/auth/me": { status: 401, body: { message: "Not signed in" } } });
    renderRoute(<PaymentPage />, { at: "/payment?tier=team", routePath: "/payment" });
    await waitFor(() => expect(location()).toBe("/auth?redirect=subscribe"));
    expect(latestToast()).toMatchObject({ title: "Authentication Required", description: "Please sign in to continue with your subscription." });
  });
});

describe("/payment: who is asking", () => {
  it("a signed-out visitor: 'Authentication Required' and sign-in that returns to the plans; no card form", async () => {
    installFakeStripe();
    forgetSession();
    stubFetch({ "GET /api/config": BILLING_ON_CONFIG, "GET /api/auth/me": { status: 401, body: { message: "Not signed in" } } });
    renderRoute(<PaymentPage />, { at: "/payment?tier=pro&email=someone%40example.org", routePath: "/payment" });
    await waitFor(() => expect(location()).toBe("/auth?redirect=subscribe"));
    expect(latestToast()).toMatchObject({ title: "Authentication Required", description: "Please sign in to continue with your subscription." });
    expect(screen.queryByText(/Subscribing as/)).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: PRO_BUTTON })).not.toBeInTheDocument();
  });

  it("subscribes as the signed-in user, whatever the address bar's email says", async () => {
    const { stripe } = installFakeStripe();
    serve();
    const { user } = await renderPayment("/payment?tier=pro&email=mallory%40example.org");
    expect(screen.getByText("Subscribing as ada@example.org")).toBeInTheDocument();
    expect(screen.queryByText(/Subscribing as mallory/)).not.toBeInTheDocument();
    await pay(user);
    await waitFor(() => expect(stripe.confirmCardSetup).toHaveBeenCalled());
    expect(JSON.stringify(stripe.confirmCardSetup.mock.calls[0])).toContain("ada@example.org");
    expect(JSON.stringify(stripe.confirmCardSetup.mock.calls[0])).not.toContain("mallory");
  });
});

describe("/payment: the page", () => {
  it("shows the plan, the card fields, the ZIP code, the renewal note and the Team button", async () => {
    const { constructor, elements, card } = installFakeStripe();
    serve();
    await renderPayment("/payment?tier=team&email=ada%40example.org", "Subscribe to Research Team - $10/month");
    const plan = screen.getByRole("region", { name: "Research Team" });
    expect(plan).toHaveTextContent("$10/month");
    expect(within(plan).getAllByRole("listitem").map((item) => item.textContent?.replace("✓", ""))).toEqual([
      "10 search terms",
      "Weekly email digests",
      "4 research sources: PubMed, arXiv, bioRxiv and medRxiv",
      "Priority email support",
    ]);
    expect(await within(plan).findByRole("link", { name: "help@example.org" })).toHaveAttribute("href", "mailto:help@example.org");

    const cardGroup = screen.getByRole("group", { name: "Card Number Expiry Date CVC" });
    await waitFor(() => expect(card.mount).toHaveBeenCalledTimes(1));
    expect(constructor).toHaveBeenCalledWith(STRIPE_CONFIG.publishableKey);
    expect(elements.create).toHaveBeenCalledWith("card", { hidePostalCode: true });
    expect(cardGroup).toContainElement(card.mount.mock.calls[0][0] as HTMLElement);

    expect(zipField()).toHaveAttribute("placeholder", "12345");
    expect(zipField()).toBeRequired();
    expect(screen.getByText("Your subscription renews each month. You can cancel anytime from your dashboard.")).toBeInTheDocument();
  });

  it("lists the plan's workflows as the server's plans say: Team's lab channels", async () => {
    installFakeStripe();
    const plans = [
      { tier: "pro", maxSearchTerms: 5, seeds: true, feeds: true, citations: true, labChannels: false },
      { tier: "team", maxSearchTerms: 10, seeds: true, feeds: true, citations: true, labChannels: true },
    ];
    stubFetch({ "GET /api/config": { ...BILLING_ON_CONFIG, body: { ...BILLING_ON_CONFIG.body, plans } } });
    await renderPayment("/payment?tier=team&email=ada%40example.org", "Subscribe to Research Team - $10/month");
    const plan = screen.getByRole("region", { name: "Research Team" });
    expect(within(plan).getAllByRole("listitem").map((item) => item.textContent?.replace("✓", ""))).toEqual([
      "10 search terms",
      "Weekly email digests",
      "4 research sources: PubMed, arXiv, bioRxiv and medRxiv",
      "Seed topics with papers you know",
      "Private Atom feeds",
      "Citations for Zotero, Mendeley and EndNote",
      "Digests posted to your lab's Slack or Mattermost",
      "Priority email support",
    ]);
  });

  it("a blank ZIP code: 'Missing Information', and nothing is asked", async () => {
    installFakeStripe();
    const fetchMock = serve();
    const { user } = await renderPayment();
    await pay(user, "   ");
    expect(latestToast()).toMatchObject({ title: "Missing Information", description: "Please enter your ZIP code." });
    expect(callsTo(fetchMock, CREATE)).toBe(0);
  });
  it("what the card element finds wrong is said under the card, and goes when it is fixed", async () => {
    const { card } = installFakeStripe();
    serve();
    await renderPayment();
    await waitFor(() => expect(card.on).toHaveBeenCalledWith("change", expect.any(Function)));
    const onChange = card.on.mock.calls[0][1] as (event: { error?: { message: string } }) => void;
    act(() => onChange({ error: { message: "Your card number is incomplete." } }));
    expect(screen.getByRole("alert")).toHaveTextContent("Your card number is incomplete.");
    act(() => onChange({}));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });
});

describe("/payment: the card flow", () => {
  it("setup, then the subscription, then 3-D Secure, then the finalizing page", async () => {
    const { stripe, card } = installFakeStripe();
    const fetchMock = serve();
    const { user } = await renderPayment();
    await waitFor(() => expect(card.mount).toHaveBeenCalled());
    await pay(user);

    await waitFor(() => expect(location()).toBe("/finalizing-subscription?subscriptionId=sub_1"));
    expect(stripe.confirmCardSetup).toHaveBeenCalledWith("seti_123_secret_abc", {
      payment_method: { card, billing_details: { email: "ada@example.org", address: { postal_code: "02139" } } },
    });
    expect(callsTo(fetchMock, CREATE)).toBe(2);
    const bodies = fetchMock.mock.calls.filter(([url]) => String(url) === CREATE).map(([, init]) => JSON.parse(String(init?.body)));
    expect(bodies).toEqual([{ tier: "pro" }, { tier: "pro", setupIntentId: "seti_123" }]);
    expect(stripe.confirmCardPayment).toHaveBeenCalledWith("pi_123_secret_def");
  });

  it("says 'Processing Payment...' while it works", async () => {
    installFakeStripe();
    const first = held({ status: 200, body: { ...SETUP_ANSWER, alreadyActive: true } });
    stubFetch({ "GET /api/config": BILLING_ON_CONFIG, [`POST ${CREATE}`]: first.handler });
    const { user } = await renderPayment();
    await pay(user);
    const busy = await screen.findByRole("button", { name: "Processing Payment..." });
    expect(busy).toBeDisabled();
    first.release();
    await waitFor(() => expect(location()).toBe("/dashboard"));
  });

  it("no customer action needed: straight to the finalizing page, no 3-D Secure", async () => {
    const { stripe } = installFakeStripe();
    serve({ status: 200, body: subscribed(null) });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(location()).toBe("/finalizing-subscription?subscriptionId=sub_1"));
    expect(stripe.confirmCardPayment).not.toHaveBeenCalled();
  });

  it("a payment not settled after 3-D Secure: the success page with the tier", async () => {
    const { stripe } = installFakeStripe();
    stripe.confirmCardPayment.mockResolvedValueOnce({ paymentIntent: { id: "pi_123", status: "processing" } });
    serve();
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(location()).toBe("/payment-success?tier=pro"));
  });

  it("a card declined at setup: 'Payment Failed' with Stripe's message; no subscription is asked for", async () => {
    const { stripe } = installFakeStripe();
    stripe.confirmCardSetup.mockResolvedValueOnce({ error: { type: "card_error", message: "Your card was declined." } });
    const fetchMock = serve();
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Payment Failed"));
    expect(latestToast()).toMatchObject({ description: "Your card was declined.", variant: "destructive" });
    // The form says it too, under the card.
    expect(screen.getByRole("alert")).toHaveTextContent("Your card was declined.");
    expect(screen.getByRole("group", { name: /Card Number/ })).toHaveAccessibleDescription("Your card was declined.");
    expect(callsTo(fetchMock, CREATE)).toBe(1);
    expect(screen.getByRole("button", { name: PRO_BUTTON })).toBeEnabled();
    expect(location()).toBe(PRO_ADDRESS);
  });

  it("a setup error without a message: the default text", async () => {
    const { stripe } = installFakeStripe();
    stripe.confirmCardSetup.mockResolvedValueOnce({ error: {} });
    serve();
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Payment Failed"));
    expect(latestToast()?.description).toBe("An error occurred processing your payment.");
  });

  it("a card declined on charge (402 card_declined): 'Payment Failed' with the server's message", async () => {
    const { stripe } = installFakeStripe();
    serve({ status: 402, body: { code: "card_declined", message: "Your card has insufficient funds.", subscriptionId: "sub_1" } });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Payment Failed"));
    expect(latestToast()?.description).toBe("Your card has insufficient funds.");
    expect(stripe.confirmCardPayment).not.toHaveBeenCalled();
    expect(location()).toBe(PRO_ADDRESS);
  });

  it("3-D Secure refused: 'Payment Failed' with Stripe's message", async () => {
    const { stripe } = installFakeStripe();
    stripe.confirmCardPayment.mockResolvedValueOnce({ error: { message: "We are unable to authenticate your payment method." } });
    serve();
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Payment Failed"));
    expect(latestToast()?.description).toBe("We are unable to authenticate your payment method.");
    expect(location()).toBe(PRO_ADDRESS);
  });

  it("already on the plan: 'Subscription Already Active' and the dashboard, without touching the card", async () => {
    const { stripe } = installFakeStripe();
    serve(undefined, { status: 200, body: { alreadyActive: true, tier: "pro", clientSecret: null, subscriptionId: "sub_0" } });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(location()).toBe("/dashboard"));
    expect(latestToast()).toMatchObject({ title: "Subscription Already Active", description: "You already have an active pro subscription." });
    expect(stripe.confirmCardSetup).not.toHaveBeenCalled();
  });

  it("a server error: 'Subscription Error' with its message", async () => {
    installFakeStripe();
    const fetchMock = serve(undefined, { status: 400, body: { code: "downgrade_not_offered", message: "Downgrades are not offered." } });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Subscription Error"));
    expect(latestToast()?.description).toBe("Downgrades are not offered.");
    expect(requestBody(fetchMock, CREATE)).toEqual({ tier: "pro" });
  });

  it("a server error without a message: the default text", async () => {
    installFakeStripe();
    serve(undefined, { status: 502 });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Subscription Error"));
    expect(latestToast()?.description).toBe("Failed to create subscription. Please try again.");
  });

  it("a session that ended meanwhile (401): 'Authentication Required' and sign-in", async () => {
    installFakeStripe();
    serve(undefined, { status: 401, body: { message: "Not authenticated" } });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(location()).toBe("/auth?redirect=subscribe"));
    expect(latestToast()).toMatchObject({ title: "Authentication Required", description: "Please sign in to continue with your subscription." });
  });

  it("a setup answer without a secret: 'No payment client secret received'", async () => {
    const { stripe } = installFakeStripe();
    serve(undefined, { status: 200, body: { ...SETUP_ANSWER, clientSecret: null } });
    const { user } = await renderPayment();
    await pay(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Payment Failed"));
    expect(latestToast()?.description).toBe("No payment client secret received. Please try again.");
    expect(stripe.confirmCardSetup).not.toHaveBeenCalled();
  });
});

describe("/payment without Stripe.js", () => {
  it("loads the script from the configured address; until it is there, 'Payment Error'", async () => {
    installFakeStripe();
    vi.stubGlobal("Stripe", undefined);
    const fetchMock = serve();
    const { user } = await renderPayment();
    await waitFor(() => expect(document.head.querySelector(`script[${STRIPE_SCRIPT_ATTRIBUTE}]`)).toHaveAttribute("src", STRIPE_CONFIG.jsUrl));
    await pay(user);
    expect(latestToast()).toMatchObject({ title: "Payment Error", description: "Stripe is not loaded properly. Please refresh and try again." });
    expect(callsTo(fetchMock, CREATE)).toBe(0);
  });

  it("a card element that could not be made: 'Payment Error'", async () => {
    const { elements, constructor } = installFakeStripe();
    elements.create.mockImplementation(() => {
      throw new Error("Can only create one Element of type card");
    });
    const fetchMock = serve();
    const { user } = await renderPayment();
    await waitFor(() => expect(constructor).toHaveBeenCalled());
    await pay(user);
    expect(latestToast()).toMatchObject({ title: "Payment Error", description: "Card number element not found. Please refresh and try again." });
    expect(callsTo(fetchMock, CREATE)).toBe(0);
  });
});
