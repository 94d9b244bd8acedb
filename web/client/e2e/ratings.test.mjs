// Teaching a term which papers are wanted, in the browser against the real binary with a
// recorded week of PubMed papers (replay.mjs): a paper rated in the digest dialog shows in the
// term's ratings on the dashboard and is removed there; a rating link from the mail maildev
// received opens a confirmation page that records nothing until its button is pressed, and the
// confirmed rating shows on the dashboard.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, screenshot, verifiedPage } from "./harness.mjs";
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

/** The first rating link with `label` ("Relevant", "Not relevant", "More like this") in a mail's text. */
function ratingLinkIn(mail, label) {
  const match = mail.text.match(new RegExp(`^ {3}${label}: (https?://\\S*/rate\\?token=\\S+)$`, "m"));
  if (!match) throw new Error(`no "${label}" rating link in mail "${mail.subject}"`);
  return match[1];
}

test("a paper rated in the digest dialog shows in the term's ratings and is removed; a mailed rating link asks before it records", async () => {
  const email = "rater@example.org";
  const page = await verifiedPage(stack, email);
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill(TOPIC);
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 30_000 });
  const mail = await stack.maildev.waitForEmail(email, `new papers on "${TOPIC}"`);
  const { user } = await api(page, "/api/auth/me");
  const [term] = await api(page, `/api/users/${user.id}/search-terms`);
  const ratingsPath = `/api/search-terms/${term.id}/ratings`;

  // Rated in the digest dialog: the pressed button shows the verdict.
  await page.goto("/dashboard");
  await card(page, "Recent Email Digests").getByRole("button").filter({ hasText: TOPIC }).first().click();
  const dialog = page.getByRole("dialog");
  const firstPaper = dialog.getByRole("group", { name: /^Rate / }).first();
  const title = ((await firstPaper.getAttribute("aria-label")) ?? "").replace(/^Rate /, "");
  assert.ok(title.length > 0, "the paper's title names its buttons");
  await firstPaper.getByRole("button", { name: "Not relevant" }).click();
  await firstPaper.locator('button[aria-pressed="true"]', { hasText: "Not relevant" }).waitFor();
  await screenshot(page, "ratings-01-rated-in-the-dialog");
  const rated = await api(page, ratingsPath);
  assert.deepEqual(
    rated.map((rating) => [rating.title, rating.verdict]),
    [[title, "notRelevant"]],
  );
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });

  // The term's ratings on the dashboard, and one removed.
  const queue = card(page, "Your Search Queue");
  await queue.getByRole("button", { name: "Ratings (1)" }).click();
  const list = queue.getByRole("list", { name: `Ratings of ${TOPIC}` });
  await list.getByText(title).waitFor();
  await list.getByText("Not relevant", { exact: true }).waitFor();
  await screenshot(page, "ratings-02-the-terms-ratings");
  await list.getByRole("button", { name: `Remove rating of ${title}` }).click();
  await queue.getByRole("button", { name: "Ratings (0)" }).waitFor();
  assert.deepEqual(await api(page, ratingsPath), []);

  // The mail's link: opening it (and its page's GET) records nothing.
  const link = ratingLinkIn(mail, "More like this");
  assert.ok(link.startsWith(`${stack.papertide.baseUrl}/rate?token=`), link);
  const token = new URL(link).searchParams.get("token");
  const looked = await page.evaluate(async (address) => (await fetch(address)).status, `/api/ratings/link?token=${token}`);
  assert.equal(looked, 200);
  const mailTab = await page.context().newPage();
  await mailTab.goto(link);
  const confirm = mailTab.getByRole("button", { name: `Ask for more like this in “${TOPIC}”` });
  await confirm.waitFor();
  await screenshot(mailTab, "ratings-03-the-rating-links-page");
  assert.deepEqual(await api(page, ratingsPath), [], "opening the link recorded nothing");

  // Confirmed: thanked, and the rating shows on the dashboard.
  await confirm.click();
  await mailTab.getByText(`Thanks — your digests for “${TOPIC}” will learn from this.`).waitFor();
  await screenshot(mailTab, "ratings-04-confirmed");
  await mailTab.getByRole("link", { name: "Go to your dashboard" }).click();
  await mailTab.waitForURL("**/dashboard**");
  const mailQueue = card(mailTab, "Your Search Queue");
  await mailQueue.getByRole("button", { name: "Ratings (1)" }).click();
  await mailQueue.getByRole("list", { name: `Ratings of ${TOPIC}` }).getByText("More like this", { exact: true }).waitFor();
  const confirmed = await api(page, ratingsPath);
  assert.equal(confirmed.length, 1);
  assert.equal(confirmed[0].verdict, "moreLikeThis");
});
