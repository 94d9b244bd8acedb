// The rough edges a walk through the service found, each held in the browser against the real
// binary with a recorded week of PubMed papers (replay.mjs) and billing off: rating buttons that
// read as buttons and fit a finger; toasts that never cover the control in use; no talk of buying
// where nothing is sold (no "By subscribing…", no "Upgrade your plan", mail from the public host);
// /subscribe/fix-payment a Page Not Found; no Trigger Weekly Digest on the free plan; the export's
// lastDigestAt; and the console's own row offering nothing the server refuses on oneself.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import { card, screenshot, verifiedPage } from "./harness.mjs";
import { startHarvestedStack } from "./replay.mjs";

const TOPIC = "phthalate liver toxicity";
const OPERATOR = "otto@example.org";
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let harvested;
let stack;
before(async () => {
  harvested = await startHarvestedStack({ env: { PAPERTIDE_ADMIN_EMAILS: OPERATOR, PAPERTIDE_RATE_LIMIT_SIGNUP: "50/1h" } });
  stack = harvested.stack;
});
after(async () => {
  await harvested?.stop();
});

/** Whether two bounding boxes share any area. */
const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** A JSON answer of the API, with the page's session. */
const api = (page, path) => page.evaluate(async (address) => (await fetch(address, { credentials: "include" })).json(), path);

/** Adds `term` on the dashboard and waits for its search to finish. */
async function addTerm(page, term) {
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill(term);
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 30_000 });
}

/** The visible toast (one at a time). */
const visibleToast = (page) => page.getByRole("region", { name: /Notifications/ }).locator("li").first();

for (const [name, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
]) {
  test(`rating buttons on a ${name}: the pressed one filled, ticked and at full strength, unlike a disabled one; at least 44 px tall on a phone`, async () => {
    const page = await verifiedPage(stack, `rater-${name}@example.org`);
    await page.setViewportSize(viewport);
    await addTerm(page, TOPIC);
    await page.goto("/dashboard");
    await card(page, "Recent Email Digests").getByRole("button").filter({ hasText: TOPIC }).first().click();
    const paper = page.getByRole("dialog").getByRole("group", { name: /^Rate / }).first();
    await paper.getByRole("button", { name: "Relevant", exact: true }).click();
    const pressed = paper.locator('button[aria-pressed="true"]');
    await pressed.waitFor();
    // Settled: the group is no longer busy.
    await paper.and(page.locator('[aria-busy="false"]')).waitFor();
    const looks = await paper.getByRole("button").evaluateAll((buttons) =>
      buttons.map((button) => {
        const style = getComputedStyle(button);
        return {
          pressed: button.getAttribute("aria-pressed") === "true",
          disabled: button.disabled,
          text: button.textContent,
          opacity: Number(style.opacity),
          background: style.backgroundColor,
          height: button.getBoundingClientRect().height,
        };
      }),
    );
    const [on] = looks.filter((look) => look.pressed);
    const off = looks.filter((look) => !look.pressed);
    assert.equal(looks.length, 3, JSON.stringify(looks));
    assert.equal(on.disabled, false, "a pressed button is not disabled");
    assert.equal(on.opacity, 1, `the pressed button is faded like a disabled one: ${JSON.stringify(on)}`);
    assert.match(on.text, /^✓/, "the pressed button is ticked");
    assert.ok(off.every((look) => look.background !== on.background && look.opacity === 1), JSON.stringify(looks));
    if (viewport === PHONE) {
      assert.ok(looks.every((look) => look.height >= 44), `rating buttons under 44 px on a phone: ${JSON.stringify(looks.map((look) => look.height))}`);
    }
    await screenshot(page, `walk-rating-buttons-${name}`);
    await page.context().close();
  });
}

test("billing off: no 'By subscribing…', and a full plan's toast without 'Upgrade your plan'", async () => {
  const email = "bill-off@example.org";
  const page = await verifiedPage(stack, email);

  await page.goto("/subscribe");
  await page.getByRole("heading", { name: "Choose Your Plan" }).waitFor();
  assert.doesNotMatch(await page.locator("main").innerText(), /By subscribing/, "nothing is sold, so no terms of subscribing");

  await addTerm(page, TOPIC);
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill("rat liver tumors");
  await input.press("Enter");
  await page.waitForURL("**/subscribe?tier=pro");
  const toast = visibleToast(page).filter({ hasText: "Subscription Required" });
  await toast.waitFor();
  const said = await toast.innerText();
  assert.doesNotMatch(said, /upgrade your plan/i, said);
  assert.match(said, /set by its operator/, said);
  await page.context().close();
});

test("/subscribe/fix-payment is the spec's Page Not Found, at both widths", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const context = await stack.browser.newContext({ baseURL: stack.papertide.baseUrl, viewport });
    const page = await context.newPage();
    const answer = await page.goto("/subscribe/fix-payment?subscriptionId=sub_1");
    assert.equal(answer.status(), 404);
    await page.getByRole("heading", { level: 1, name: "Page Not Found" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/subscribe/fix-payment", "no redirect elsewhere");
    await context.close();
  }
});

test("Trigger Weekly Digest is offered on a paid plan only; the export says when the last digest went out", async () => {
  const email = "trig@example.org";
  const page = await verifiedPage(stack, email);
  await addTerm(page, TOPIC);
  await page.goto("/test-email");
  await page.getByRole("button", { name: "Send Sample Digest" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Trigger Weekly Digest" }).count(), 0, "offered to a free user, only to fail");

  await page.goto("/dashboard");
  const [download] = await Promise.all([page.waitForEvent("download"), card(page, "Your Data").getByRole("button", { name: "Download my data" }).click()]);
  const data = JSON.parse(fs.readFileSync(await download.path(), "utf8"));
  assert.ok(data.digests.length >= 1, "a digest went out");
  assert.equal(data.account.lastDigestAt, data.digests[0].sentAt, "the export's lastDigestAt is the newest digest's");

  await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  await page.goto("/test-email");
  await page.getByRole("button", { name: "Trigger Weekly Digest" }).click();
  await page.getByText("Weekly Digest Triggered").first().waitFor({ timeout: 30_000 });
  await page.context().close();
});

test("the console: its operator's own row offers no Remove operator, Disable or Delete; a toast covers no control of the row in use", async () => {
  const others = [];
  for (let index = 0; index < 12; index += 1) {
    const other = await verifiedPage(stack, `row${String(index).padStart(2, "0")}@example.org`);
    others.push(other);
  }
  for (const other of others) await other.context().close();
  const page = await verifiedPage(stack, OPERATOR);
  await page.goto("/admin");
  const ownRow = page.locator("tr", { has: page.getByRole("cell", { name: OPERATOR, exact: true }) });
  await ownRow.waitFor();
  for (const name of ["Remove operator", "Disable", "Delete"]) {
    assert.equal(await ownRow.getByRole("button", { name }).count(), 0, `${name} offered on the operator's own row`);
  }
  await ownRow.getByText("Your account").waitFor();

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ]) {
    await page.setViewportSize(viewport);
    await page.goto("/admin");
    // The last row listed, scrolled to the window's bottom edge, where a toast shows.
    const lastRow = page.locator("tbody tr").filter({ hasText: /row\d\d@example.org/ }).last();
    await lastRow.waitFor();
    await lastRow.evaluate((row) => row.scrollIntoView({ block: "end" }));
    const plan = lastRow.getByRole("combobox");
    const next = (await plan.inputValue()) === "pro" ? "team" : "pro";
    // As a user's click does: the select has the focus when it changes.
    await plan.focus();
    await plan.selectOption(next);
    const toast = visibleToast(page).filter({ hasText: "Plan Changed" });
    await toast.waitFor();
    // Let the page settle (a lift is one scroll, in the next frame).
    await page.waitForTimeout(300);
    const toastBox = await toast.boundingBox();
    for (const control of [plan, ...(await lastRow.getByRole("button").all())]) {
      const box = await control.boundingBox();
      assert.ok(box, `a control of the row is gone on a ${name}`);
      assert.ok(!overlaps(toastBox, box), `the toast ${JSON.stringify(toastBox)} covers a control ${JSON.stringify(box)} of the row in use on a ${name}`);
    }
    await screenshot(page, `walk-console-toast-${name}`);
    await toast.getByRole("button", { name: "Close" }).click();
    await toast.waitFor({ state: "detached" });
  }
  await page.context().close();
});

test("a signed-in user's header and pages never ask them to sign in", async () => {
  const page = await verifiedPage(stack, "pat-pro@example.org");
  await stack.papertide.runCli(["users", "set-tier", "pat-pro@example.org", "pro"]);
  for (const path of ["/subscribe", "/subscribe?tier=team", "/test-email", "/dashboard"]) {
    await page.goto(path);
    await page.locator("main").first().waitFor();
    await page.waitForLoadState("networkidle");
    const text = await page.locator("body").innerText();
    assert.doesNotMatch(text, /Authentication Required|Please sign in/, `${path} asks a signed-in user to sign in`);
  }
  assert.equal((await api(page, "/api/auth/me")).user.subscriptionTier, "pro");
  await page.context().close();
});
