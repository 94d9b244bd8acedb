// Every page at a phone's width (390 × 844), against the real binary with a harvested week: no
// page scrolls sideways, public or signed in, the dashboard with a digest's cards and the
// operator console's every tab included.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, dismissCookieBanner, screenshot, verifiedPage } from "./harness.mjs";
import { startHarvestedStack } from "./replay.mjs";

const OPERATOR = "opal@example.org";
const PHONE = { width: 390, height: 844 };

let harvested;
let stack;
before(async () => {
  harvested = await startHarvestedStack({ env: { PAPERTIDE_ADMIN_EMAILS: OPERATOR } });
  stack = harvested.stack;
});
after(async () => {
  await harvested?.stop();
});

/** A fresh phone-sized context's page. */
async function phonePage() {
  const context = await stack.browser.newContext({ baseURL: stack.papertide.baseUrl, viewport: PHONE, isMobile: true, hasTouch: true });
  return context.newPage();
}

/** How far the document is wider than the window, in pixels (0 when it fits). */
const sidewaysOverflow = (page) => page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));

/** Opens `path`, waits for `ready` (a locator of `page`), and fails when the page scrolls sideways. */
async function expectFits(page, path, ready, name) {
  await page.goto(path);
  await ready(page).first().waitFor();
  await page.waitForLoadState("networkidle");
  const overflow = await sidewaysOverflow(page);
  if (overflow > 0) await screenshot(page, `phone-width-overflow-${name}`);
  assert.equal(overflow, 0, `${path} scrolls sideways by ${overflow} px at ${PHONE.width} px`);
}

const heading = (name) => (page) => page.getByRole("heading", { name });
const text = (words) => (page) => page.getByText(words);

test("no public page scrolls sideways on a phone", async () => {
  const page = await phonePage();
  await page.goto("/");
  await dismissCookieBanner(page);
  const pages = [
    ["/", (p) => p.getByRole("button", { name: "Start Discovery" }), "landing"],
    ["/auth", (p) => p.locator("#signup-email"), "auth"],
    ["/auth?tab=login", (p) => p.locator("#login-email"), "auth-login"],
    ["/login", (p) => p.getByRole("button", { name: /Sign in/ }), "login"],
    ["/signup", (p) => p.getByRole("button", { name: /Create account/ }), "signup"],
    ["/verify-email?token=nonsense", text(/invalid|expired/i), "verify-email"],
    ["/reset-password?token=nonsense", (p) => p.locator("main"), "reset-password"],
    ["/terms", heading(/Terms/), "terms"],
    ["/privacy", heading(/Privacy/), "privacy"],
    ["/blog", (p) => p.getByRole("article"), "blog"],
    ["/blog/how-to-write-review-article", (p) => p.getByRole("article"), "blog-post"],
    ["/unsubscribe?token=nonsense", (p) => p.locator("main"), "unsubscribe"],
    ["/rate?token=nonsense", (p) => p.locator("main"), "rate"],
    ["/subscribe", (p) => p.locator("main"), "subscribe-signed-out"],
    ["/no-such-page", text("Page Not Found"), "not-found"],
  ];
  for (const [path, ready, name] of pages) await expectFits(page, path, ready, name);
  await page.context().close();
});

test("no signed-in page scrolls sideways on a phone: the dashboard with a digest, billing pages, the console's tabs", async () => {
  const page = await verifiedPage(stack, OPERATOR, await phonePage());

  // A term whose search found papers, so the queue, the digests and the cards are full.
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill("phthalate liver toxicity");
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 20_000 });
  await card(page, "Recent Email Digests").getByRole("button").first().waitFor();
  await expectFits(page, "/dashboard", (p) => card(p, "Recent Email Digests").getByRole("button"), "dashboard");
  await screenshot(page, "phone-width-dashboard");

  for (const [path, ready, name] of [
    ["/subscribe", (p) => p.locator("main"), "subscribe"],
    ["/subscribe?tier=pro", (p) => p.locator("main"), "subscribe-pro"],
    ["/checkout?tier=pro", (p) => p.locator("main"), "checkout"],
    ["/payment?tier=pro", (p) => p.locator("main"), "payment"],
    ["/payment-success", (p) => p.locator("main"), "payment-success"],
    ["/debug-subscription", (p) => p.locator("main"), "debug-subscription"],
    ["/test-email", (p) => p.locator("main"), "test-email"],
  ]) {
    await expectFits(page, path, ready, name);
  }

  await expectFits(page, "/admin", (p) => p.getByRole("tab", { name: "Users" }), "admin-users");
  const tabs = await page.getByRole("tab").allInnerTexts();
  assert.ok(tabs.length >= 5, `the console shows its tabs (${tabs.join(", ")})`);
  for (const tab of tabs) {
    await page.getByRole("tab", { name: tab }).click();
    await page.getByRole("tabpanel").waitFor();
    await page.waitForLoadState("networkidle");
    const overflow = await sidewaysOverflow(page);
    if (overflow > 0) await screenshot(page, `phone-width-overflow-admin-${tab}`);
    assert.equal(overflow, 0, `the console's ${tab} tab scrolls sideways by ${overflow} px`);
  }
  await page.context().close();
});
