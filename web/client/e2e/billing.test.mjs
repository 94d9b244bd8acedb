// Billing in the browser, against the real binary with Stripe on and localstripe as the Stripe
// peer (stripe.mjs: its Stripe.js stand-in renders the card element as plain inputs in the page
// and asks for 3-D Secure in a dialog of its own), delivering its webhooks to the binary. A free
// user upgrades to Pro by card from the dashboard's Upgrade, then to Team in place, then cancels;
// 3-D Secure passed and failed; declined cards; a payment whose webhook was lost, repaired on
// /debug-subscription; the embedded Checkout. Then a second binary with billing off, and the
// plans page on a phone.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, screenshot, startPapertide, startStack, verifiedPage } from "./harness.mjs";
import { cards, startLocalStripe } from "./stripe.mjs";

const WEBHOOK_SECRET = "whsec_papertide_e2e";
/** The operator whose console's Billing tab is read at the end. */
const OPERATOR = "olive-ops@example.org";
/** A card's expiry as the stand-in takes it (month, two-digit year), its CVC and our ZIP field. */
const EXPIRY = { month: "12", year: "34" };
const CVC = "123";
const ZIP = "12345";

let stripe;
let stack;
let webhookUrl;
before(async () => {
  stripe = await startLocalStripe();
  stack = await startStack({
    env: {
      PAPERTIDE_STRIPE_SECRET_KEY: stripe.secretKey,
      PAPERTIDE_STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      PAPERTIDE_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAPERTIDE_STRIPE_API_URL: stripe.apiUrl,
      PAPERTIDE_STRIPE_JS_URL: stripe.jsUrl,
      PAPERTIDE_STRIPE_PRICE_PRO: stripe.planPro,
      PAPERTIDE_STRIPE_PRICE_TEAM: stripe.planTeam,
      // This file signs up more users from one address than the default allows in an hour.
      PAPERTIDE_RATE_LIMIT_SIGNUP: "50/1h",
      PAPERTIDE_ADMIN_EMAILS: OPERATOR,
    },
  });
  webhookUrl = `${stack.papertide.baseUrl}/api/stripe/webhook`;
  await stripe.registerWebhook(webhookUrl, WEBHOOK_SECRET);
});
after(async () => {
  await stack?.stop();
  if (stripe) await stripe.stop();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON answer of the API, with the page's session. */
const api = (page, path) => page.evaluate(async (address) => (await fetch(address, { credentials: "include" })).json(), path);

/** The signed-in user's plan, as the server has it. */
const serverTier = async (page) => (await api(page, "/api/auth/me")).user.subscriptionTier;

/** The user's subscriptions at Stripe, newest first (customer from the debug call). */
async function stripeSubscriptions(page) {
  const debug = await api(page, "/api/debug-webhook-status");
  const customer = debug.user.stripeCustomerId ?? debug.stripe.customerId;
  assert.ok(customer, `no Stripe customer for ${debug.user.email}`);
  return (await stripe.api(`/v1/subscriptions?customer=${customer}&status=all`)).data;
}

/** The dashboard header's plan badge. */
const badge = (page, label) => page.getByLabel(`Plan: ${label}`, { exact: true });

/** Waits for the dashboard and its plan badge `label` ("Free", "Pro", "Team"). */
async function expectDashboardTier(page, label, { timeout = 10_000 } = {}) {
  await page.waitForURL((url) => url.pathname === "/dashboard", { timeout });
  await badge(page, label).waitFor({ timeout });
  await card(page, "Account Status").getByText(label, { exact: true }).waitFor();
}

async function openDashboard(page) {
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
}

/** The stand-in's card element, inside the payment form's card group. */
const cardGroup = (page) => page.getByRole("group", { name: /Card Number/ });

/** Fills the card element (the stand-in's inputs: number, exp_month, exp_year, cvc) and the ZIP field. */
async function fillCard(page, number) {
  const group = cardGroup(page);
  await group.getByPlaceholder("number", { exact: true }).fill(number);
  await group.getByPlaceholder("exp_month", { exact: true }).fill(EXPIRY.month);
  await group.getByPlaceholder("exp_year", { exact: true }).fill(EXPIRY.year);
  await group.getByPlaceholder("cvc", { exact: true }).fill(CVC);
  await page.getByLabel("ZIP Code").fill(ZIP);
}

/** Opens the card form for `tier` and waits for the stand-in's card element. */
async function openPayment(page, tier, email) {
  await page.goto(`/payment?${new URLSearchParams({ tier, email })}`);
  await page.getByRole("heading", { name: "Complete Your Subscription" }).waitFor();
  await cardGroup(page).getByPlaceholder("number", { exact: true }).waitFor();
}

/** The stand-in's 3-D Secure dialog: waits for it and answers. */
async function answer3DSecure(page, pass, screenshotName) {
  const button = page.getByRole("button", { name: pass ? "Complete authentication" : "Fail authentication", exact: true });
  await button.waitFor();
  await page.getByText("3D Secure").first().waitFor();
  if (screenshotName) await screenshot(page, screenshotName);
  await button.click();
  await button.waitFor({ state: "detached" });
}

/** A toast, by title and description. */
async function expectToast(page, title, description) {
  const toast = page.locator("li").filter({ hasText: title }).filter({ hasText: description });
  await toast.first().waitFor();
  return toast.first();
}

/** Waits until localstripe's webhooks (about a second after each event) have had time to arrive. */
const webhooksDelivered = () => sleep(2_000);

let ada;
const ADA = "ada-billing@example.org";

test("a free user: dashboard Upgrade → plans → Checkout → the card form → 4242 → finalizing → Pro on the dashboard, and the receipt", async () => {
  const page = await verifiedPage(stack, ADA);
  ada = page;
  await openDashboard(page);
  await badge(page, "Free").waitFor();
  await page.locator("header").getByRole("link", { name: "Upgrade", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/subscribe");

  await page.getByRole("heading", { name: "Choose Your Plan" }).waitFor();
  for (const plan of ["Free", "Pro", "Team"]) await card(page, plan).waitFor();
  assert.equal((await page.getByText("Current plan:").innerText()).replace(/\s+/g, " ").trim(), "Current plan: Free");
  assert.equal(await card(page, "Free").getByRole("button", { name: "Current Plan" }).isDisabled(), true);
  await card(page, "Pro").getByText("$5", { exact: true }).waitFor();
  await card(page, "Team").getByText("$10", { exact: true }).waitFor();
  assert.equal(await page.getByText("Billing is not enabled on this server").count(), 0, "billing is on here");
  await screenshot(page, "billing-01-subscribe-free");

  await card(page, "Pro").getByRole("button", { name: "Upgrade to Pro" }).click();
  await page.waitForURL((url) => url.pathname === "/checkout" && url.searchParams.get("tier") === "pro");
  await page.getByRole("heading", { name: "Subscribe to Research Pro" }).waitFor();
  // The stand-in's embedded Checkout, mounted: 5.00 a month.
  await page.locator("#checkout").getByText("5.00 USD per period").waitFor();
  await screenshot(page, "billing-02-checkout-pro");

  await page.getByRole("link", { name: "Pay with a card on this page instead" }).click();
  await page.waitForURL((url) => url.pathname === "/payment");
  const address = new URL(page.url());
  assert.equal(address.searchParams.get("tier"), "pro");
  assert.equal(address.searchParams.get("email"), ADA);
  await page.getByText(`Subscribing as ${ADA}`).waitFor();
  await cardGroup(page).getByPlaceholder("number", { exact: true }).waitFor();
  await fillCard(page, cards.ok);
  await screenshot(page, "billing-03-payment-card-filled");

  await page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" }).click();
  await page.waitForURL((url) => url.pathname === "/finalizing-subscription" && url.searchParams.get("subscriptionId")?.startsWith("sub_"));
  await page.getByRole("heading", { name: "Subscription Activated!" }).waitFor({ timeout: 15_000 });
  await screenshot(page, "billing-04-finalizing-activated");
  // The page moves on after 2 s.
  await expectDashboardTier(page, "Pro", { timeout: 4_000 });
  assert.equal(await serverTier(page), "pro");
  await page.locator("header").getByRole("link", { name: "Upgrade to Team" }).waitFor();
  await screenshot(page, "billing-05-dashboard-pro");

  const receipt = await stack.maildev.waitForEmail(ADA, "Your Papertide Pro plan is active");
  assert.ok(receipt, "the receipt is mailed");
  const subscriptions = await stripeSubscriptions(page);
  assert.deepEqual(
    subscriptions.map((s) => s.status),
    ["active"],
    "one active subscription at Stripe",
  );
});

test("3-D Secure: the stand-in's dialog at setup and again at payment, passed → Pro", async () => {
  const email = "bea-3ds@example.org";
  const page = await verifiedPage(stack, email);
  await openPayment(page, "pro", email);
  await fillCard(page, cards.threeDSecure);
  await page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" }).click();
  await page.getByRole("button", { name: "Processing Payment..." }).waitFor();
  await answer3DSecure(page, true, "billing-06-3ds-dialog-setup");
  await answer3DSecure(page, true, "billing-07-3ds-dialog-payment");
  await page.waitForURL((url) => url.pathname === "/finalizing-subscription");
  await page.getByRole("heading", { name: "Subscription Activated!" }).waitFor({ timeout: 15_000 });
  await expectDashboardTier(page, "Pro", { timeout: 4_000 });
  assert.equal(await serverTier(page), "pro");
  await screenshot(page, "billing-08-3ds-dashboard-pro");
  await page.context().close();
});

test("3-D Secure failed, at setup and then at payment: 'Payment Failed' each time, on /payment, and the plan stays Free", async () => {
  const email = "cy-3ds-fail@example.org";
  const page = await verifiedPage(stack, email);
  await openPayment(page, "pro", email);
  await fillCard(page, cards.threeDSecure);
  const subscribe = page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" });

  await subscribe.click();
  await answer3DSecure(page, false);
  const setupFailed = await expectToast(page, "Payment Failed", "authentication failed");
  await screenshot(page, "billing-09-3ds-failed-at-setup");
  await setupFailed.getByRole("button", { name: "Close" }).click();
  await setupFailed.waitFor({ state: "detached" });

  // The form is usable again: the same card, the challenge passed at setup and failed at payment.
  await subscribe.click();
  await answer3DSecure(page, true);
  await answer3DSecure(page, false);
  await expectToast(page, "Payment Failed", "The provided PaymentMethod has failed authentication.");
  assert.equal(new URL(page.url()).pathname, "/payment");
  await subscribe.waitFor();
  assert.equal(await subscribe.isEnabled(), true, "the form can be sent again");
  await screenshot(page, "billing-10-3ds-failed-at-payment");

  await webhooksDelivered();
  assert.equal(await serverTier(page), "free");
  await openDashboard(page);
  await badge(page, "Free").waitFor();
  await page.context().close();
});

test("declined cards: at setup (0002) and on charge (0341) → 'Payment Failed' with Stripe's message, on /payment, plan Free", async () => {
  const email = "dee-declined@example.org";
  const page = await verifiedPage(stack, email);
  await openPayment(page, "pro", email);
  await fillCard(page, cards.declined);
  const subscribe = page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" });
  await subscribe.click();
  const declined = await expectToast(page, "Payment Failed", "Your card was declined.");
  assert.equal(new URL(page.url()).pathname, "/payment");
  // Stripe's word is in the form too, under the card, where the user looks.
  const formSays = page.locator("form").getByRole("alert").filter({ hasText: "Your card was declined." });
  await formSays.waitFor();
  const [cardBox, errorBox] = [await cardGroup(page).boundingBox(), await formSays.boundingBox()];
  assert.ok(errorBox.y >= cardBox.y + cardBox.height - 1, `the error is under the card: ${JSON.stringify({ cardBox, errorBox })}`);
  await screenshot(page, "billing-11-declined");
  await declined.getByRole("button", { name: "Close" }).click();
  await declined.waitFor({ state: "detached" });

  await cardGroup(page).getByPlaceholder("number", { exact: true }).fill(cards.declinedOnCharge);
  await subscribe.click();
  await expectToast(page, "Payment Failed", "Your card was declined.");
  assert.equal(new URL(page.url()).pathname, "/payment");
  // The subscription Stripe made with the card declined on charge was cancelled by the server.
  const subscriptions = await stripeSubscriptions(page);
  assert.equal(subscriptions.length, 1, JSON.stringify(subscriptions.map((s) => s.status)));
  assert.equal(subscriptions[0].status, "canceled");

  await webhooksDelivered();
  assert.equal(await serverTier(page), "free");
  await openDashboard(page);
  await badge(page, "Free").waitFor();
  await page.context().close();
});

test("Pro → Team: the plans page's Team button → the card form → Team on the dashboard, no Upgrade button left", async () => {
  assert.ok(ada, "needs the Pro user of the first scenario");
  const page = ada;
  await openDashboard(page);
  await badge(page, "Pro").waitFor();
  await page.goto("/subscribe");
  await page.getByRole("heading", { name: "Choose Your Plan" }).waitFor();
  assert.equal((await page.getByText("Current plan:").innerText()).replace(/\s+/g, " ").trim(), "Current plan: Pro");
  assert.equal(await card(page, "Pro").getByRole("button", { name: "Current Plan" }).isDisabled(), true);
  assert.equal(await card(page, "Free").getByRole("button", { name: "Downgrade Not Available" }).isDisabled(), true);
  await screenshot(page, "billing-12-subscribe-pro");

  await card(page, "Team").getByRole("button", { name: "Upgrade to Team" }).click();
  await page.waitForURL((url) => url.pathname === "/payment" && url.searchParams.get("tier") === "team" && url.searchParams.get("email") === ADA);
  await cardGroup(page).getByPlaceholder("number", { exact: true }).waitFor();
  await fillCard(page, cards.ok);
  await page.getByRole("button", { name: "Subscribe to Research Team - $10/month" }).click();
  await page.waitForURL((url) => url.pathname === "/finalizing-subscription");
  await page.getByRole("heading", { name: "Subscription Activated!" }).waitFor({ timeout: 15_000 });
  await expectDashboardTier(page, "Team", { timeout: 4_000 });
  assert.equal(await serverTier(page), "team");
  assert.equal(await page.locator("header").getByRole("link", { name: /Upgrade/ }).count(), 0, "no upgrade above Team");
  await screenshot(page, "billing-13-dashboard-team");

  // The plan changed in place: still one subscription, now on the Team price.
  const subscriptions = await stripeSubscriptions(page);
  assert.deepEqual(subscriptions.map((s) => [s.status, s.items.data[0].plan.id]), [["active", stripe.planTeam]]);
});

test("a Pro user at the plan's limit: the sixth term → 'Subscription Required' → Team by card → the term back in the dashboard's field", async () => {
  const email = "gus-pending@example.org";
  const page = await verifiedPage(stack, email);
  await openPayment(page, "pro", email);
  await fillCard(page, cards.ok);
  await page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" }).click();
  await expectDashboardTier(page, "Pro", { timeout: 20_000 });
  // The plan's five terms, added through the API.
  for (const term of ["CRISPR base editing", "protein folding", "gut microbiome", "malaria vaccines", "sleep spindles"]) {
    const status = await page.evaluate(
      async ([address, searchTerm]) =>
        (await fetch("/api/immediate-search", { method: "POST", credentials: "include", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: address, searchTerm }) })).status,
      [email, term],
    );
    assert.equal(status, 200, `adding ${term}`);
  }
  await openDashboard(page);
  const sixth = "coral reef bleaching";
  await page.locator("#new-search-term").fill(sixth);
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expectToast(page, "Subscription Required", "");
  await page.waitForURL((url) => url.pathname === "/subscribe" && url.searchParams.get("tier") === "team");
  // Back to the dashboard first: the term is put back into the field…
  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard");
  await expectToast(page, "Search term restored", sixth);
  assert.equal(await page.locator("#new-search-term").inputValue(), sixth);
  // …and then, without adding it, on to Team from the header.
  await page.locator("header").getByRole("link", { name: "Upgrade to Team" }).click();
  await page.waitForURL((url) => url.pathname === "/subscribe");
  await card(page, "Team").getByRole("button", { name: "Upgrade to Team" }).click();
  await page.waitForURL((url) => url.pathname === "/payment" && url.searchParams.get("tier") === "team");
  await cardGroup(page).getByPlaceholder("number", { exact: true }).waitFor();
  await fillCard(page, cards.ok);
  await page.getByRole("button", { name: "Subscribe to Research Team - $10/month" }).click();
  await page.getByRole("heading", { name: "Subscription Activated!" }).waitFor({ timeout: 15_000 });
  await expectDashboardTier(page, "Team", { timeout: 4_000 });
  const field = page.locator("#new-search-term");
  await expectToast(page, "Search term restored", sixth);
  assert.equal(await field.inputValue(), sixth, "the term typed before the upgrade is back in the field");
  await screenshot(page, "billing-25-team-term-restored");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await card(page, "Your Search Queue").getByText(sixth).waitFor();
  await page.context().close();
});

test("cancel: Account Status → Cancel Subscription → confirm → 'Subscription Canceled' → Free, and cancelled at Stripe", async () => {
  assert.ok(ada, "needs the Team user of the earlier scenarios");
  const page = ada;
  await openDashboard(page);
  await badge(page, "Team").waitFor();
  const account = card(page, "Account Status");
  await account.getByRole("button", { name: "Cancel Subscription" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Cancel your subscription?").waitFor();
  await screenshot(page, "billing-14-cancel-confirm");
  await dialog.getByRole("button", { name: "Cancel Subscription" }).click();
  await expectToast(page, "Subscription Canceled", "You remain on the free tier.");
  await badge(page, "Free").waitFor();
  await account.getByText("Free", { exact: true }).waitFor();
  await page.locator("header").getByRole("link", { name: "Upgrade", exact: true }).waitFor();
  assert.equal(await account.getByRole("button", { name: "Cancel Subscription" }).count(), 0);
  await screenshot(page, "billing-15-canceled-free");
  assert.equal(await serverTier(page), "free");
  const subscriptions = await stripeSubscriptions(page);
  assert.deepEqual(subscriptions.map((s) => s.status), ["canceled"]);
  await webhooksDelivered();
  assert.equal(await serverTier(page), "free", "the deletion webhook changes nothing more");
  await page.context().close();
});

test("embedded Checkout: a free user → /checkout?tier=team → Pay → /payment-success → Team on the dashboard", async () => {
  const email = "fay-checkout@example.org";
  const page = await verifiedPage(stack, email);
  await page.goto("/checkout?tier=team");
  await page.getByRole("heading", { name: "Subscribe to Research Team" }).waitFor();
  await page.locator("#checkout").getByText("10.00 USD per period").waitFor();
  await screenshot(page, "billing-16-checkout-team");
  await page.locator("#checkout").getByRole("button", { name: "Pay", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/payment-success");
  await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
  await page.getByText("Redirecting to dashboard...").waitFor({ timeout: 10_000 });
  assert.equal(new URL(page.url()).searchParams.has("session_id"), false, "the session id is removed from the address bar");
  await screenshot(page, "billing-17-payment-success");
  await expectDashboardTier(page, "Team", { timeout: 5_000 });
  assert.equal(await serverTier(page), "team");
  assert.equal(await page.locator("header").getByRole("link", { name: /Upgrade/ }).count(), 0);
  await screenshot(page, "billing-18-checkout-dashboard-team");
  await page.context().close();
});

test("a lost webhook: paid with 3-D Secure while no webhook arrives → /debug-subscription shows it paid → Fix My Subscription → Pro", async () => {
  const email = "eve-repair@example.org";
  const page = await verifiedPage(stack, email);
  await stripe.unregisterWebhooks();
  try {
    await openPayment(page, "pro", email);
    await fillCard(page, cards.threeDSecure);
    await page.getByRole("button", { name: "Subscribe to Research Pro - $5/month" }).click();
    await answer3DSecure(page, true);
    await answer3DSecure(page, true);
    // Away at once: the finalizing page would have the server read a subscription pending for 6 s.
    await page.waitForURL((url) => url.pathname === "/finalizing-subscription");
    await page.goto("/dashboard");
    await badge(page, "Free").waitFor();
    await webhooksDelivered();
    assert.equal(await serverTier(page), "free", "no webhook arrived, so the plan did not follow the payment");

    await page.goto("/debug-subscription");
    await page.getByRole("heading", { name: "Fix Subscription" }).waitFor();
    await page.getByRole("button", { name: "Check Payment Status" }).click();
    const details = page.getByRole("region", { name: "Payment Details" });
    await details.waitFor();
    await details.getByText(email).waitFor();
    await details.getByRole("list", { name: "Subscriptions" }).getByText("Pro · active").waitFor();
    // One invoice, paid: status paid, Paid Yes, $5.00 paid of $5.00 due.
    const invoices = details.getByRole("row").filter({ has: page.getByRole("cell") });
    await invoices.first().waitFor();
    assert.equal(await invoices.count(), 1);
    const cells = (await invoices.first().getByRole("cell").allInnerTexts()).map((text) => text.trim());
    assert.deepEqual(cells.slice(1), ["paid", "Yes", "$5.00", "$5.00"], cells.join(" | "));
    await screenshot(page, "billing-19-debug-status");

    await page.getByRole("button", { name: "Fix My Subscription" }).click();
    await expectToast(page, "Subscription Fixed", "updated to pro");
    await page.getByText("Your plan is now Pro. Redirecting to dashboard...").waitFor();
    await screenshot(page, "billing-20-debug-fixed");
    await expectDashboardTier(page, "Pro", { timeout: 5_000 });
    assert.equal(await serverTier(page), "pro");
    await screenshot(page, "billing-21-debug-dashboard-pro");
  } finally {
    await stripe.registerWebhook(webhookUrl, WEBHOOK_SECRET);
  }
  await page.context().close();
});

test("who may pay: a signed-out visitor is sent to sign in; a signed-in user subscribes as themself; /payment-success claims nothing unpaid", async () => {
  const context = await stack.browser.newContext({ baseURL: stack.papertide.baseUrl, viewport: { width: 1280, height: 800 } });
  const visitor = await context.newPage();
  await visitor.goto("/");
  await visitor.evaluate(() => localStorage.setItem("cookieConsent", "declined"));
  await visitor.goto("/payment?tier=pro&email=someone%40example.org");
  await expectToast(visitor, "Authentication Required", "Please sign in to continue with your subscription.");
  await visitor.waitForURL((url) => url.pathname === "/auth" && url.searchParams.get("redirect") === "subscribe");
  assert.equal(await visitor.getByText(/Subscribing as/).count(), 0, "no card form for a visitor");
  await screenshot(visitor, "billing-26-payment-signed-out");
  await visitor.goto("/payment-success");
  await visitor.getByRole("heading", { name: "No Payment to Confirm" }).waitFor();
  assert.equal(await visitor.getByText("Payment Successful!").count(), 0);
  await context.close();

  const email = "hal-never-paid@example.org";
  const page = await verifiedPage(stack, email);
  await openPayment(page, "pro", "mallory@example.org");
  await page.getByText(`Subscribing as ${email}`).waitFor();
  assert.equal(await page.getByText("mallory@example.org").count(), 0, "the address bar's email is not shown");

  await page.goto("/payment-success");
  await page.getByRole("heading", { name: "No Payment to Confirm" }).waitFor();
  await page.getByRole("link", { name: "Go to Dashboard" }).waitFor();
  assert.equal(await page.getByText("Payment Successful!").count(), 0);
  await screenshot(page, "billing-27-payment-success-nothing");

  await page.goto("/payment-success?tier=pro");
  await page.getByRole("heading", { name: "Confirming Your Payment" }).waitFor();
  await page.getByText("Still processing your subscription upgrade").waitFor({ timeout: 12_000 });
  assert.equal(await page.getByText("Payment Successful!").count(), 0, "a free user who never paid is not told it worked");
  assert.equal(await serverTier(page), "free");
  await page.context().close();
});

test("a Pro user opening the Team card form without an email in the address is never told to sign in", async () => {
  const email = "paz-pro@example.org";
  const page = await verifiedPage(stack, email);
  await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  await page.goto("/payment?tier=team");
  await page.getByRole("heading", { name: "Complete Your Subscription" }).waitFor();
  await page.getByText(`Subscribing as ${email}`).waitFor();
  await cardGroup(page).getByPlaceholder("number", { exact: true }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/payment", "sent away");
  assert.equal(await page.getByText("Authentication Required").count(), 0, "a signed-in Pro user is asked to sign in");
  await page.context().close();
});

test("the console's Billing tab: 'Paid users' lists paying accounts only, the canceled ones apart", async () => {
  const page = await verifiedPage(stack, OPERATOR);
  await page.goto("/admin");
  await page.getByRole("tab", { name: "Billing" }).click();
  const paid = page.getByRole("table", { name: "Paid users" });
  await paid.waitFor();
  const rows = await paid.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => Array.from(tr.cells, (cell) => cell.textContent.trim())));
  assert.ok(rows.length >= 1, "a paying user is listed");
  for (const [email, plan, , , status] of rows) {
    assert.ok(plan === "pro" || plan === "team", `${email} on ${plan} listed as paid`);
    assert.notEqual(status, "canceled", `${email}, canceled, listed as paid`);
  }
  const paidEmails = rows.map(([email]) => email);
  assert.ok(!paidEmails.includes(ADA), "ada canceled: she is not a paid user");
  const others = page.getByRole("table", { name: /^Other subscriptions on record/ });
  await others.getByRole("cell", { name: ADA, exact: true }).waitFor();
  await screenshot(page, "billing-28-console-billing");
  await page.context().close();
});

test("the plans page on a phone is one column", async () => {
  const context = await stack.browser.newContext({ baseURL: stack.papertide.baseUrl, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto("/");
  await page.evaluate(() => localStorage.setItem("cookieConsent", "declined"));
  await page.goto("/subscribe");
  await page.getByRole("heading", { name: "Choose Your Plan" }).waitFor();
  const boxes = [];
  for (const plan of ["Free", "Pro", "Team"]) boxes.push(await card(page, plan).boundingBox());
  for (let index = 1; index < boxes.length; index += 1) {
    assert.ok(Math.abs(boxes[index].x - boxes[0].x) < 1, `the ${index + 1}. plan is not below the first: ${JSON.stringify(boxes)}`);
    assert.ok(boxes[index].y >= boxes[index - 1].y + boxes[index - 1].height, `the plans overlap: ${JSON.stringify(boxes)}`);
  }
  assert.ok(boxes[0].width > 300, `a plan takes the phone's width: ${boxes[0].width}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  await screenshot(page, "billing-22-subscribe-phone");
  await context.close();
});

test("billing off (no Stripe settings): /subscribe shows the plans and how they are set; /payment says billing is not enabled", async () => {
  const papertide = await startPapertide({ smtpUrl: stack.maildev.smtpUrl });
  const context = await stack.browser.newContext({ baseURL: papertide.baseUrl, viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto("/");
    await page.evaluate(() => localStorage.setItem("cookieConsent", "declined"));
    const config = await api(page, "/api/config");
    assert.equal(config.stripe, null);

    await page.goto("/subscribe");
    await page.getByRole("heading", { name: "Choose Your Plan" }).waitFor();
    for (const plan of ["Free", "Pro", "Team"]) {
      await card(page, plan).waitFor();
      await card(page, plan).getByText("Set by this server's operator").waitFor();
      assert.equal(await card(page, plan).getByRole("button").count(), 0, `no way to buy ${plan} here`);
    }
    await page.getByRole("heading", { name: "Billing is not enabled on this server" }).waitFor();
    await page.getByText("plans are set by the server's operator").first().waitFor();
    assert.equal(await page.getByText(/processed by Stripe/).count(), 0, "nothing is paid here, through Stripe or otherwise");
    await screenshot(page, "billing-23-off-subscribe");

    await page.goto("/payment?tier=pro&email=x");
    await page.getByRole("heading", { name: "Billing is not enabled on this server" }).waitFor();
    await page.getByRole("list", { name: "The Free plan" }).waitFor();
    assert.equal(await page.getByRole("button", { name: /Subscribe to/ }).count(), 0, "no card form");
    assert.equal(await page.locator("script[data-papertide-stripe]").count(), 0, "no Stripe.js loaded");
    await screenshot(page, "billing-24-off-payment");
  } finally {
    await context.close();
    await papertide.stop();
  }
});
