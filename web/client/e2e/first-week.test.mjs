// A new user's first week in the browser, against the real binary with a recorded week of
// PubMed papers (phthalate toxicology, replay.mjs): the topic typed before signup, the
// verification link opened in a new tab, the first digest (relevant papers only, ordered by the
// score shown, "searched as" in words), a term edit, the weekly pass on the first delivery day
// and on the next (run by the operator's `papertide weekly --at`, as the service would run it
// then), the free plan's two digests used and then held on every path; and a topic the week
// does not cover, which gets an honest empty digest.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, dismissCookieBanner, linkIn, screenshot, signUp, verifiedPage } from "./harness.mjs";
import { startHarvestedStack } from "./replay.mjs";

const TOPIC = "phthalate liver toxicity";

let harvested;
let stack;
before(async () => {
  harvested = await startHarvestedStack();
  stack = harvested.stack;
});
after(async () => {
  await harvested?.stop();
});


/** A JSON answer of the API, with the page's session. */
const api = (page, path) => page.evaluate(async (address) => (await fetch(address, { credentials: "include" })).json(), path);

/** The first Monday, 09:00 UTC, at least three days after now: a new free account's first weekly slot. */
function firstWeeklySlot() {
  const earliest = Date.now() + 3 * 24 * 3600 * 1000;
  const slot = new Date(earliest);
  slot.setUTCHours(9, 0, 0, 0);
  // Past 09:00 on the third day the slot that day is still within the three days: the next one.
  while (slot.getUTCDay() !== 1 || slot.getTime() < earliest) slot.setUTCDate(slot.getUTCDate() + 1);
  return slot;
}

/** The relevance percents a text shows, in order. */
const percentsIn = (text, pattern) => [...text.matchAll(pattern)].map((match) => Number(match[1]));

test("a new user's first week: topic before signup, verification in a new tab, the first digest, an edit, two weekly passes, and the free digests held on every path", async () => {
  const email = "first-week@example.org";
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await page.getByLabel("Research topic").fill(TOPIC);
  await page.getByRole("button", { name: "Start Discovery" }).click();
  await page.waitForURL("**/auth");
  await page.getByText("Ready to search").waitFor();
  await screenshot(page, "first-week-01-topic-before-signup");
  await signUp(page, email, { openForm: false });

  // The mail client opens the verification link in a new tab, whose session storage is empty.
  const mail = await stack.maildev.waitForEmail(email, "Verify your email");
  const tab = await page.context().newPage();
  await tab.goto(linkIn(mail, "/verify-email?token="));
  await tab.getByText("Email Verified Successfully!").waitFor();
  assert.equal(await tab.evaluate(() => sessionStorage.getItem("pendingSearch")), null, "nothing carried over in the browser");
  await screenshot(tab, "first-week-02-verified-in-a-new-tab");
  await tab.getByRole("button", { name: "Process Search & Continue" }).click();
  await tab.waitForURL("**/dashboard?email=**", { timeout: 30_000 });

  // The first digest: relevant papers, ordered by the score shown, searched as words.
  const digest = await stack.maildev.waitForEmail(email, `new papers on "${TOPIC}"`);
  assert.match(digest.text, new RegExp(`^Your digest for "${TOPIC}"`, "m"), "the first digest is not called weekly");
  const mailed = percentsIn(digest.text, /(\d+)% relevant/g);
  assert.ok(mailed.length >= 1 && mailed.every((percent) => percent >= 25), `relevant papers only: ${mailed}`);
  assert.deepEqual(mailed, [...mailed].sort((a, b) => b - a), "ordered by the score shown");
  const searchedAs = digest.text.match(/Searched as: (.*)/)?.[1] ?? "";
  assert.doesNotMatch(searchedAs, /\b(phthalat|studi|chemic|techniqu)\b/, `words, not stems: ${searchedAs}`);
  assert.doesNotMatch(digest.text, /Why: \n/, "every paper says why it matched");

  const recent = card(tab, "Recent Email Digests");
  await recent.getByRole("button").filter({ hasText: TOPIC }).first().click();
  const dialog = tab.getByRole("dialog");
  await dialog.getByText("AI Research Summary").waitFor();
  await screenshot(tab, "first-week-03-first-digest");
  const shown = percentsIn(await dialog.innerText(), /Relevance (\d+)%/g);
  assert.deepEqual(shown, [...shown].sort((a, b) => b - a), `the dialog lists papers by the score it shows: ${shown}`);
  await tab.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal(await tab.getByText(/Your first digest/).count(), 0, "no 'first digest' promise after the first digest");

  // An edit of the term.
  const queue = card(tab, "Your Search Queue");
  await queue.getByRole("button", { name: `Edit ${TOPIC}` }).click();
  await queue.getByLabel(`New text for ${TOPIC}`).fill("peroxisome proliferation");
  await queue.getByRole("button", { name: "Save" }).click();
  await tab.getByText("Search Term Updated").first().waitFor();
  await screenshot(tab, "first-week-04-term-edited");
  const { user } = await api(tab, "/api/auth/me");
  assert.equal(user.pendingSearch, null, "the topic typed before signup was searched");

  // The weekly pass on the first delivery day (never the day of signup).
  const slot = firstWeeklySlot();
  const weekly = await stack.papertide.runCli(["weekly", "--at", slot.toISOString()]);
  assert.match(weekly, /: 1 digest\(s\) built/);
  await stack.maildev.waitForEmail(email, '"peroxisome proliferation"');
  await tab.goto("/dashboard");
  await card(tab, "Your Search Queue").getByText("Complete", { exact: true }).waitFor();
  const digests = await api(tab, `/api/users/${user.id}/digests`);
  assert.equal(digests[0].digestType, "weekly");
  await screenshot(tab, "first-week-05-after-the-first-weekly-digest");

  // When the weekly digest found nothing new (its week ended before the recorded papers did),
  // the second free digest comes from a new term instead.
  let { user: afterWeekly } = await api(tab, "/api/auth/me");
  if (afterWeekly.freeDigests.used < 2) {
    await card(tab, "Your Search Queue").getByRole("button", { name: "Delete peroxisome proliferation" }).click();
    await tab.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await tab.getByText("Search Term Deleted").first().waitFor();
    const input = card(tab, "Add New Search Term").getByLabel("Research topic");
    await input.fill("DEHP carcinogenicity in rodents");
    await input.press("Enter");
    await tab.getByText("Search Complete!").first().waitFor({ timeout: 30_000 });
    ({ user: afterWeekly } = await api(tab, "/api/auth/me"));
  }
  assert.deepEqual(afterWeekly.freeDigests, { used: 2, total: 2 });
  const digestsUsed = (await api(tab, `/api/users/${user.id}/digests`)).length;

  // The next delivery day: one invitation, no digest.
  const next = new Date(slot.getTime() + 7 * 24 * 3600 * 1000);
  assert.match(await stack.papertide.runCli(["weekly", "--at", next.toISOString()]), /: 0 digest\(s\) built/);
  await stack.maildev.waitForEmail(email, "Your free Papertide digests are used up");
  await tab.goto("/dashboard");
  await card(tab, "Account Status").getByText("Free digests: 2 of 2 used").waitFor();
  await screenshot(tab, "first-week-06-free-digests-used");

  // Held on every path: the term typed again (refused: she follows it), and Trigger Weekly Digest.
  const term = (await api(tab, `/api/users/${user.id}/search-terms`))[0].term;
  const input = card(tab, "Add New Search Term").getByLabel("Research topic");
  await input.fill(term);
  await input.press("Enter");
  await tab.getByText(`You already follow “${term}”: it is in your search terms.`).first().waitFor({ timeout: 20_000 });
  await screenshot(tab, "first-week-07-no-digest-after-the-free-ones");
  await tab.goto("/test-email");
  await tab.getByRole("button", { name: "Send Sample Digest" }).waitFor();
  assert.equal(await tab.getByRole("button", { name: "Trigger Weekly Digest" }).count(), 0, "Trigger Weekly Digest offered on the free plan");
  await screenshot(tab, "first-week-08-no-trigger-on-free");
  // The page does not offer it, and the server refuses it when asked directly.
  const refused = await tab.evaluate(async () => {
    const response = await fetch("/api/trigger-digest", { method: "POST", credentials: "include", headers: { "Content-Type": "application/json" }, body: "{}" });
    return { status: response.status, body: await response.json() };
  });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.match(refused.body.message, /Triggering a weekly digest is for paid plans/);
  assert.equal((await api(tab, `/api/users/${user.id}/digests`)).length, digestsUsed, "no path sent another digest");
  await page.context().close();
});

test("a topic the week does not cover gets an honest empty digest", async () => {
  const email = "unrelated-week@example.org";
  const page = await verifiedPage(stack, email);
  await page.getByRole("button", { name: "Continue to Dashboard" }).click();
  await page.waitForURL("**/dashboard**");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill("malaria vaccine in rats");
  await input.press("Enter");
  await page.getByText(/Nothing published in the last 90 days was relevant enough/).first().waitFor({ timeout: 20_000 });
  const mail = await stack.maildev.waitForEmail(email, 'no new papers on "malaria vaccine in rats"');
  assert.match(mail.text, /Nothing published in the last 90 days matched "malaria vaccine in rats" closely enough to send/);
  assert.doesNotMatch(mail.text, /% relevant/);
  await card(page, "Recent Email Digests").getByText("No new papers in the last 90 days").first().waitFor();
  const { user } = await api(page, "/api/auth/me");
  assert.deepEqual(user.freeDigests, { used: 0, total: 2 }, "an empty week is not one of the free digests");
  await screenshot(page, "first-week-09-unrelated-week");
  await page.context().close();
});
