// Signed-out visitors: the landing page's topic hand-off, cookie consent, and the static pages.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { card, repoRoot, screenshot, startStack, verifiedPage } from "./harness.mjs";

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

test("a topic typed on the landing page waits on /auth as 'Ready to search'", async () => {
  const page = await stack.newPage();
  await page.goto("/");
  await page.getByRole("heading", { level: 1 }).waitFor();
  const start = page.getByRole("button", { name: "Start Discovery" });
  assert.equal(await start.isDisabled(), true, "a blank topic must not start anything");
  await screenshot(page, "landing");

  await page.getByLabel("Research topic").fill("  CRISPR base editing  ");
  await start.click();
  await page.waitForURL("**/auth");
  await page.getByText("Ready to search").waitFor();
  await page.getByText("CRISPR base editing").first().waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pendingSearch")), "CRISPR base editing");
  await screenshot(page, "auth-ready-to-search");

  await page.getByRole("button", { name: /Back to search/ }).click();
  await page.waitForURL((url) => url.pathname === "/");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pendingSearch")), null, "Back to search keeps the topic");
  await page.context().close();
});

test("the cookie banner: accepting stores consent, declining deletes analytics cookies", async () => {
  const page = await stack.newPage();
  await page.goto("/blog");
  const banner = page.getByText("We use cookies");
  await banner.waitFor();
  await screenshot(page, "cookie-banner");
  await page.getByRole("button", { name: "Accept all cookies" }).click();
  await banner.waitFor({ state: "hidden" });
  const accepted = await page.evaluate(() => [localStorage.getItem("cookieConsent"), localStorage.getItem("analyticsConsent")]);
  assert.deepEqual(accepted, ["accepted", "true"]);
  const scripts = await page.evaluate(() => [...document.scripts].map((script) => script.src).filter((src) => !src.includes("/assets/")));
  assert.deepEqual(scripts, [], "no analytics provider is configured, so nothing may load");
  await page.reload();
  await page.waitForTimeout(1500);
  assert.equal(await banner.count(), 0, "the banner came back after consent was given");

  const other = await stack.newPage();
  await other.context().addCookies([
    { name: "_ga", value: "1", url: stack.papertide.baseUrl },
    { name: "_pk_id", value: "1", url: stack.papertide.baseUrl },
    { name: "keep_me", value: "1", url: stack.papertide.baseUrl },
  ]);
  await other.goto("/terms");
  await other.getByText("We use cookies").waitFor();
  await other.getByRole("button", { name: "Essential only" }).click();
  const declined = await other.evaluate(() => [localStorage.getItem("cookieConsent"), localStorage.getItem("analyticsConsent")]);
  assert.deepEqual(declined, ["declined", "false"]);
  const names = (await other.context().cookies()).map((cookie) => cookie.name).sort();
  assert.deepEqual(names, ["keep_me"]);
  await screenshot(other, "cookie-declined");
  await page.context().close();
  await other.context().close();
});

test("blog, post, terms, privacy and 404 pages", async () => {
  const page = await stack.newPage();
  await page.goto("/blog");
  assert.equal(await page.getByRole("link", { name: /Read More/ }).count(), 4);
  await screenshot(page, "blog");

  await page.goto("/blog/how-to-write-review-article");
  await page.getByRole("link", { name: "Start Free Today" }).waitFor();
  const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
  assert.equal(canonical, `${stack.papertide.baseUrl}/blog/how-to-write-review-article`);
  assert.ok((await page.locator('meta[property="og:title"]').getAttribute("content"))?.length);
  await page.getByRole("button", { name: "Hide Sidebar" }).click();
  await page.getByRole("button", { name: "Show Sidebar" }).waitFor();
  await screenshot(page, "blog-post");

  await page.goto("/blog/no-such-post");
  await page.getByText("Post Not Found").waitFor();

  await page.goto("/terms");
  await page.getByText("August 11, 2025").first().waitFor();
  await screenshot(page, "terms");
  await page.goto("/privacy");
  await page.getByText("GDPR").first().waitFor();
  await page.getByText("CCPA").first().waitFor();
  await screenshot(page, "privacy");

  const response = await page.goto("/this/does/not/exist");
  assert.equal(response?.status(), 404, "an unknown path is the client's page with the status crawlers and monitors read");
  await page.getByText("Page Not Found").waitFor();
  await screenshot(page, "not-found");
  await page.context().close();
});

test("the Content-Security-Policy refuses injected and foreign scripts, and cannot be framed", async () => {
  const page = await stack.newPage();
  const response = await page.goto("/");
  const policy = response.headers()["content-security-policy"];
  assert.match(policy, /frame-ancestors 'none'/);
  await page.getByRole("heading", { level: 1 }).waitFor();
  assert.deepEqual(stack.takeCspViolations(), [], "the landing page itself loads under the policy");

  const ran = await page.evaluate(async () => {
    window.injectedRan = false;
    const inline = document.createElement("script");
    inline.textContent = "window.injectedRan = true";
    document.head.append(inline);
    const foreign = document.createElement("script");
    foreign.src = "https://scripts.invalid/steal.js";
    document.head.append(foreign);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return window.injectedRan;
  });
  assert.equal(ran, false, "an injected inline script does not run");
  const refused = stack.takeCspViolations().join("\n");
  assert.match(refused, /script-src/, refused);
  assert.match(refused, /scripts\.invalid/, refused);

  // Another site cannot frame a page: the frame stays empty.
  const framing = await stack.newPage();
  await framing.setContent(`<iframe id="papertide" src="${stack.papertide.baseUrl}/"></iframe>`);
  await framing.waitForTimeout(1000);
  const frame = framing.frames().find((candidate) => candidate.url().startsWith(stack.papertide.baseUrl));
  const framedHeading = frame ? await frame.locator("h1").count().catch(() => 0) : 0;
  assert.equal(framedHeading, 0, "the framed page must not render");
  stack.takeCspViolations();
  await page.context().close();
  await framing.context().close();
});

/** Whether two bounding boxes share any area. */
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** When the first digest comes, in the words the landing page, the dashboard and the welcome mail share. */
const FIRST_DIGEST = "Your first digest is emailed as soon as you add a search term; after that, a new one arrives every week on your delivery day.";

for (const [width, height] of [
  [1280, 800],
  [390, 844],
]) {
  test(`a first visit at ${width}×${height}: the cookie banner covers neither the topic field and its button nor the header`, async () => {
    const phone = width < 640;
    const context = await stack.browser.newContext({ baseURL: stack.papertide.baseUrl, viewport: { width, height }, isMobile: phone, hasTouch: phone });
    const page = await context.newPage();
    await page.goto("/");
    const banner = page.getByRole("region", { name: "We use cookies" });
    await banner.waitFor();
    const bannerBox = await banner.boundingBox();
    for (const [name, control] of [
      ["the topic field", page.getByLabel("Research topic")],
      ["Start Discovery", page.getByRole("button", { name: "Start Discovery" })],
      ["the header", page.locator("header").first()],
    ]) {
      const box = await control.boundingBox();
      assert.ok(!overlaps(bannerBox, box), `the banner ${JSON.stringify(bannerBox)} covers ${name} ${JSON.stringify(box)}`);
    }
    // The field is usable with the banner up.
    await page.getByLabel("Research topic").fill("CRISPR base editing");
    await page.getByRole("button", { name: "Start Discovery" }).click();
    await page.waitForURL("**/auth");
    await page.goto("/");
    await banner.waitFor();
    await page.screenshot({ path: `${artifacts()}/landing-cookie-banner-${width}x${height}.png` });
    await context.close();
  });
}

test("toasts cover no header or form control: a bottom corner on a desktop, a compact dismissible bar on a phone", async () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    const page = await verifiedPage(stack, `toast-place-${width}@example.org`);
    await page.setViewportSize({ width, height });
    await page.goto("/dashboard");
    await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
    await page.locator("#new-search-term").fill(width > 640 ? "CRISPR base editing" : "tau protein aggregation");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    // 'Search Queued', or already the search's outcome (one toast at a time).
    const toast = page.getByRole("region", { name: /Notifications/ }).locator("li").first();
    await toast.waitFor();
    const toastBox = await boxOf(toast);
    const header = page.locator("header").first();
    const addForm = page.locator("form").filter({ has: page.locator("#new-search-term") });
    const controls = [
      header,
      page.locator("#new-search-term"),
      addForm.getByRole("button", { name: "Add", exact: true }),
      addForm.getByRole("button", { name: "Seed it with papers you know (optional)" }),
    ];
    for (const control of controls) {
      const box = await boxOf(control);
      assert.ok(!overlaps(toastBox, box), `the toast ${JSON.stringify(toastBox)} covers ${JSON.stringify(box)} at ${width}px`);
    }
    assert.ok(toastBox.y + toastBox.height <= height + 1 && toastBox.y > height / 2, `at the bottom: ${JSON.stringify(toastBox)} at ${width}px`);
    if (width > 640) {
      assert.ok(toastBox.x > width / 2 && toastBox.width <= 420, `in the bottom-right corner: ${JSON.stringify(toastBox)}`);
    } else {
      assert.ok(toastBox.height <= 120, `a compact bar on a phone: ${JSON.stringify(toastBox)}`);
    }
    // The header answers clicks while the toast shows: what is under each control is the control.
    for (const link of await header.locator("a, button").all()) {
      const box = await link.boundingBox();
      const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest("header") !== null, [box.x + box.width / 2, box.y + box.height / 2]);
      assert.ok(hit, `a header control is covered at ${width}px`);
    }
    await page.screenshot({ path: `${artifacts()}/toast-${width}x${height}.png` });
    // Dismissible: the search's outcome replaces 'Search Queued'; its close button takes it away.
    const outcome = page.locator("li").filter({ hasText: /Search Complete!|Search Term Saved/ }).first();
    await outcome.waitFor({ timeout: 20_000 });
    await outcome.getByRole("button", { name: "Close" }).click();
    await outcome.waitFor({ state: "detached" });
    await page.context().close();
  }
});

test("the landing page, the dashboard and the welcome mail say the same about when digests come", async () => {
  const landing = await stack.newPage();
  await landing.goto("/");
  await landing.getByRole("heading", { level: 1 }).waitFor();
  const landingText = (await landing.locator("main").innerText()).replace(/\s+/g, " ");
  assert.ok(landingText.includes(FIRST_DIGEST), landingText);
  assert.doesNotMatch(landingText, /within a week/);
  await landing.context().close();

  const email = "timing@example.org";
  const page = await verifiedPage(stack, email);
  await page.goto("/dashboard");
  const note = card(page, "Add New Search Term").getByText(/^Your first digest is emailed as soon as you add a search term; after that, a new one arrives every /);
  await note.waitFor();
  // The free plan's delivery day is Monday.
  assert.equal(await note.innerText(), FIRST_DIGEST.replace("every week on your delivery day", "every Monday"));
  await screenshot(page, "dashboard-first-digest-note");
  const welcome = await stack.maildev.waitForEmail(email, "Welcome to Papertide");
  const mailText = welcome.text.replace(/\s+/g, " ");
  assert.ok(mailText.includes(FIRST_DIGEST), mailText);
  assert.doesNotMatch(mailText, /within a week/);
  await page.context().close();
});

/**
 * The bounding box of what `locator` finds, asked again if the element was swapped for another
 * meanwhile (a toast replaced by the next, a button relabelled).
 */
async function boxOf(locator) {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    await locator.waitFor();
    const box = await locator.boundingBox();
    if (box) return box;
  }
  throw new Error(`no box for ${locator}`);
}

function artifacts() {
  const directory = path.join(repoRoot, "test-artifacts", "e2e");
  fs.mkdirSync(directory, { recursive: true });
  return directory;
}
