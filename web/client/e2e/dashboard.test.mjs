// The dashboard in the browser, against the real binary: its index filled by the real harvester
// from recorded PubMed responses (replay.mjs), its mail sent to maildev. The topic typed before
// signup becomes a mailed digest; terms are added, refused over the plan's limit, edited and
// deleted; preferences are locked on the free plan and free on pro (set by the operator's CLI);
// billing is off, and the dashboard says so; the unsubscribe link and the test-email page work.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, dismissCookieBanner, linkIn, screenshot, signUp, verifiedPage, waitFor } from "./harness.mjs";
import { startHarvestedStack } from "./replay.mjs";

/** What the recorded PubMed batch is about. */
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


/** The Add New Search Term card's input. */
const newTermInput = (page) => card(page, "Add New Search Term").getByLabel("Research topic");

/** Today as the dashboard writes dates, e.g. "November 22, 2026". */
const today = () => new Intl.DateTimeFormat("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" }).format(new Date());

async function openDashboard(page) {
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
}

/** Adds `term` on the dashboard and waits for its search to finish. */
async function addTerm(page, term) {
  const input = newTermInput(page);
  await input.fill(term);
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 20_000 });
}

/** The signed-in user's id, from the API with the page's session. */
async function userId(page) {
  const answer = await page.request.get("/api/auth/me");
  return (await answer.json()).user.id;
}

test("a topic typed before signup becomes a digest of this week's papers, in the mailbox and on the dashboard", async () => {
  const email = "ada@example.org";
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await page.getByLabel("Research topic").fill(TOPIC);
  await page.getByRole("button", { name: "Start Discovery" }).click();
  await page.waitForURL("**/auth");
  await page.getByText("Ready to search").waitFor();
  await signUp(page, email, { openForm: false });

  const verification = await stack.maildev.waitForEmail(email, "Verify your email");
  await page.goto(linkIn(verification, "/verify-email?token="));
  await page.getByRole("button", { name: "Process Search & Continue" }).click();
  await page.getByText("Processing Your Search").waitFor();
  await page.getByRole("dialog").getByText("Check your email for the research digest!").waitFor({ timeout: 20_000 });
  await screenshot(page, "dashboard-01-signup-search-complete");
  await page.waitForURL("**/dashboard?email=**", { timeout: 15_000 });

  const digest = await stack.maildev.waitForEmail(email, `new papers on "${TOPIC}"`);
  assert.match(digest.subject, /^Papertide: \d+ new papers? on "phthalate liver toxicity"$/);
  assert.match(digest.text, /AI Research Summary/);
  assert.match(digest.text, /\d+% relevant/);
  assert.match(digest.text, /phthalate/i);

  const queue = card(page, "Your Search Queue");
  await queue.getByText(TOPIC).waitFor();
  await queue.getByText("Complete", { exact: true }).waitFor();
  await queue.getByText("Active", { exact: true }).waitFor();
  const recent = card(page, "Recent Email Digests");
  await recent.getByText(today()).first().waitFor();
  assert.equal(await page.getByText(/Your first digest/).count(), 0, "no 'first digest' promise once a digest arrived");
  await screenshot(page, "dashboard-02-after-first-digest");

  await recent.getByRole("button").filter({ hasText: TOPIC }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("AI Research Summary").waitFor();
  await dialog.getByText("Statistics").waitFor();
  await dialog.getByText(/PubMed/).first().waitFor();
  const paperLinks = dialog.locator('a[href*="pubmed.ncbi.nlm.nih.gov"]');
  assert.ok((await paperLinks.count()) >= 1, "each paper links to its PubMed record");
  await dialog.getByText(/\d+%/).first().waitFor();
  const mailedPapers = Number(digest.subject.match(/(\d+) new paper/)[1]);
  assert.equal(await paperLinks.count() >= mailedPapers, true, "the dialog lists every mailed paper");
  await screenshot(page, "dashboard-03-digest-dialog");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await page.context().close();
});

test("a free plan's terms: a second term leads to a page that explains this server's plans, and is not offered again; edit and delete", async () => {
  const page = await verifiedPage(stack, "bea@example.org");
  await openDashboard(page);
  const queue = card(page, "Your Search Queue");
  await queue.getByText("No search terms yet").waitFor();
  await screenshot(page, "dashboard-04-empty");

  await addTerm(page, "peroxisome proliferation");
  await queue.getByText("peroxisome proliferation").waitFor();
  await queue.getByText("Complete", { exact: true }).waitFor();

  await newTermInput(page).fill("rat liver tumors");
  await card(page, "Add New Search Term").getByRole("button", { name: "Add", exact: true }).click();
  await page.waitForURL("**/subscribe?tier=pro");
  await page.getByText("Subscription Required").first().waitFor();
  await page.getByText("Billing is not enabled on this server").first().waitFor();
  await page.getByText(/2 free digests/).first().waitFor();
  const explained = await page.locator("main").innerText();
  assert.doesNotMatch(explained, /set-tier|papertide users/, "no command line for end users");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pendingSearch")), null, "a term that cannot be added is not kept");
  await screenshot(page, "dashboard-05-subscribe-billing-off");

  await openDashboard(page);
  assert.equal(await newTermInput(page).inputValue(), "", "the refused term is not offered again");
  await screenshot(page, "dashboard-06-back-without-the-term");

  await queue.getByRole("button", { name: "Edit peroxisome proliferation" }).click();
  const editor = queue.getByLabel("New text for peroxisome proliferation");
  await editor.fill("something else");
  await queue.getByRole("button", { name: "Cancel" }).click();
  await queue.getByText("peroxisome proliferation").waitFor();

  await queue.getByRole("button", { name: "Edit peroxisome proliferation" }).click();
  await editor.fill("a");
  await queue.getByRole("button", { name: "Save" }).click();
  await page.getByText("Update Failed").first().waitFor();
  await page.getByText("Search term must be at least 3 characters").first().waitFor();
  await screenshot(page, "dashboard-07-edit-refused");
  await editor.fill("peroxisome proliferators in rodents");
  await queue.getByRole("button", { name: "Save" }).click();
  await page.getByText("Search Term Updated").first().waitFor();
  await queue.getByText("peroxisome proliferators in rodents").waitFor();
  await queue.getByText("Pending", { exact: true }).waitFor();
  await screenshot(page, "dashboard-08-edited");

  await queue.getByRole("button", { name: "Delete peroxisome proliferators in rodents" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await page.getByText("Search Term Deleted").first().waitFor();
  await queue.getByText("No search terms yet").waitFor();
  const terms = await (await page.request.get(`/api/users/${await userId(page)}/search-terms`)).json();
  assert.deepEqual(terms, []);
  await page.context().close();
});

test("preferences are locked on the free plan and free on pro; cancelling says billing is off, or asks to delete terms", async () => {
  const email = "grace@example.org";
  const page = await verifiedPage(stack, email);
  await openDashboard(page);
  const preferences = card(page, "Email Preferences");
  await preferences.getByRole("switch", { name: /arXiv/ }).waitFor();
  assert.equal(await preferences.getByRole("switch", { name: /arXiv/ }).isDisabled(), true);
  assert.equal(await preferences.getByRole("switch", { name: /arXiv/ }).getAttribute("aria-checked"), "false");
  assert.equal(await preferences.getByRole("combobox").isDisabled(), true);
  assert.equal(await preferences.getByRole("combobox").inputValue(), "monday");
  assert.equal(await preferences.getByRole("switch", { name: /Weekly digest/i }).isDisabled(), false);
  assert.equal(await card(page, "Account Status").getByRole("button", { name: "Cancel Subscription" }).count(), 0);
  await screenshot(page, "dashboard-09-preferences-free");

  const output = await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  assert.match(output, /pro/);
  await openDashboard(page);
  await page.getByText("Pro", { exact: true }).first().waitFor();
  const arxiv = preferences.getByRole("switch", { name: /arXiv/ });
  await waitFor(async () => !(await arxiv.isDisabled()), "arXiv unlocked");
  assert.equal(await arxiv.getAttribute("aria-checked"), "true", "a paid plan gets every source by default");
  await arxiv.click();
  await page.getByText("Preferences Updated").first().waitFor();
  await preferences.getByRole("combobox").selectOption("friday");
  await waitFor(async () => (await page.getByText("Preferences Updated").count()) > 0, "the day saved");
  await openDashboard(page);
  await waitFor(async () => (await preferences.getByRole("combobox").inputValue()) === "friday", "friday kept");
  assert.equal(await preferences.getByRole("switch", { name: /arXiv/ }).getAttribute("aria-checked"), "false", "arXiv stays off");
  await screenshot(page, "dashboard-10-preferences-pro");

  const account = card(page, "Account Status");
  await account.getByRole("button", { name: "Cancel Subscription" }).click();
  await page.getByRole("dialog").getByRole("button", { name: /Cancel Subscription|Yes/ }).click();
  await page.getByText("Cancellation Failed").first().waitFor();
  await page.getByText(/Billing is not enabled on this server/).first().waitFor();
  await screenshot(page, "dashboard-11-cancel-billing-off");

  await addTerm(page, "phthalate exposure");
  await addTerm(page, "hepatocyte proliferation");
  // Refused at once, before any confirmation: nothing to confirm that would fail.
  await account.getByRole("button", { name: "Cancel Subscription" }).click();
  await page.getByText("Cannot Cancel Subscription").first().waitFor();
  assert.equal(await page.getByRole("dialog").count(), 0);
  await page.getByText(/2 active search terms/).first().waitFor();
  await screenshot(page, "dashboard-12-cancel-needs-deletion");
  await page.context().close();
});

// Bug: a paid plan that ended left "Free digests: 2 of 2 used" whatever the free plan had used,
// since the paid plan's digests were counted against it.
test("a paid plan that ends leaves the free digests the free plan had not used", async () => {
  const email = "kit@example.org";
  const page = await verifiedPage(stack, email);
  await openDashboard(page);
  await addTerm(page, TOPIC);
  const status = card(page, "Account Status");
  await status.getByText("Free digests: 1 of 2 used").waitFor();

  // On pro: a digest with papers that a free plan would have counted.
  await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  await openDashboard(page);
  await addTerm(page, "DEHP carcinogenicity in rodents");
  const id = await userId(page);
  const digests = await (await page.request.get(`/api/users/${id}/digests`)).json();
  assert.equal(digests.length, 2);
  assert.ok(digests.every((digest) => digest.papersData.length > 0), "both digests had papers");

  // The plan ends: one free digest is left.
  await stack.papertide.runCli(["users", "set-tier", email, "free"]);
  await openDashboard(page);
  await status.getByText("Free digests: 1 of 2 used").waitFor();
  await screenshot(page, "dashboard-free-digests-after-a-paid-plan");
  await page.context().close();
});

// Bug: typing a topic one follows already (another letter case, spaces around) searched and
// mailed it again, and nothing said it was there.
test("a topic typed again on the dashboard is refused with a message, and mailed once", async () => {
  const email = "gus@example.org";
  const page = await verifiedPage(stack, email);
  await openDashboard(page);
  await addTerm(page, TOPIC);
  await stack.maildev.waitForEmail(email, `on "${TOPIC}"`);

  const input = newTermInput(page);
  await input.fill(`  ${TOPIC.toUpperCase()} `);
  await input.press("Enter");
  const message = `You already follow “${TOPIC}”: it is in your search terms.`;
  await card(page, "Add New Search Term").getByRole("alert").getByText(message).waitFor();
  await page.getByText("Already in Your Search Terms").first().waitFor();
  await screenshot(page, "dashboard-topic-already-followed");
  assert.equal(await page.getByText("Search Complete!").count(), 0, "no second search");

  // The refusal came before any search: one term, one digest, one mail.
  const id = await userId(page);
  const terms = await (await page.request.get(`/api/users/${id}/search-terms`)).json();
  assert.deepEqual(terms.map((term) => term.term), [TOPIC]);
  const digests = await (await page.request.get(`/api/users/${id}/digests`)).json();
  assert.equal(digests.length, 1);
  const mails = (await stack.maildev.emails()).filter((mail) => mail.to.some((r) => r.address === email) && mail.subject.includes(`on "${TOPIC}"`));
  assert.equal(mails.length, 1, "mailed once");
  await page.context().close();
});

test("the unsubscribe link of a digest mail turns weekly digests off", async () => {
  const email = "hal@example.org";
  const page = await verifiedPage(stack, email);
  await openDashboard(page);
  await addTerm(page, TOPIC);
  const digest = await stack.maildev.waitForEmail(email, `on "${TOPIC}"`);
  const weekly = card(page, "Email Preferences").getByRole("switch", { name: /Weekly digest/i });
  assert.equal(await weekly.getAttribute("aria-checked"), "true");

  const visitor = await stack.newPage();
  await visitor.goto(linkIn(digest, "/unsubscribe?token="));
  await visitor.getByText(/unsubscribed from weekly digests/).first().waitFor();
  await visitor.getByRole("link", { name: /home/i }).first().waitFor();
  await screenshot(visitor, "unsubscribe-success");
  await visitor.goto("/unsubscribe");
  await visitor.getByText("Invalid unsubscribe link. Please check your email for the correct link.").waitFor();
  await screenshot(visitor, "unsubscribe-no-token");
  await visitor.goto("/unsubscribe?token=not-a-real-token");
  await visitor.getByText("Invalid unsubscribe link. Please check your email for the correct link.").waitFor();
  await screenshot(visitor, "unsubscribe-bad-token");
  await visitor.context().close();

  await openDashboard(page);
  await waitFor(async () => (await weekly.getAttribute("aria-checked")) === "false", "weekly digests off on the dashboard");
  await page.context().close();
});

test("the test-email page mails a welcome and a sample digest to one's own address; Trigger Weekly Digest is not offered on the free plan and builds the digest on pro", async () => {
  const email = "ida@example.org";
  const page = await verifiedPage(stack, email);
  await openDashboard(page);
  await addTerm(page, TOPIC);
  await stack.maildev.waitForEmail(email, `on "${TOPIC}"`);

  await page.goto("/test-email");
  const address = page.getByLabel("Email address");
  await waitFor(async () => (await address.inputValue()) === email, "the address filled in");
  await address.fill("");
  await page.getByRole("button", { name: "Send Welcome Email" }).click();
  await page.getByText("Please enter an email address").first().waitFor();
  await screenshot(page, "test-email-missing-address");

  await address.fill("someone-else@example.org");
  await page.getByRole("button", { name: "Send Welcome Email" }).click();
  await page.getByText("Failed to send test email").first().waitFor();

  await address.fill(email);
  await page.getByRole("button", { name: "Send Welcome Email" }).click();
  await stack.maildev.waitForEmail(email, "Welcome to Papertide");
  await page.getByRole("button", { name: "Send Sample Digest" }).click();
  await stack.maildev.waitForEmail(email, `on "${TOPIC}"`, { count: 2 });
  // On the free plan a triggered digest would spend a free digest: not offered.
  const me = () => page.evaluate(async () => (await (await fetch("/api/auth/me", { credentials: "include" })).json()).user);
  const allowance = (await me()).freeDigests;
  assert.deepEqual(allowance, { used: 1, total: 2 });
  assert.equal(await page.getByRole("button", { name: "Trigger Weekly Digest" }).count(), 0, "Trigger Weekly Digest offered on the free plan");
  await screenshot(page, "test-email-trigger-free-plan");
  assert.deepEqual((await me()).freeDigests, allowance, "the free digests are left as they were");
  const topicMails = (await stack.maildev.emails()).filter((mail) => mail.to.some((r) => r.address === email) && mail.subject.includes(`on "${TOPIC}"`));
  assert.equal(topicMails.length, 2, "the first digest and the sample only");
  // On a paid plan it builds the weekly digest now.
  await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  await page.goto("/test-email");
  await page.getByRole("button", { name: "Trigger Weekly Digest" }).click();
  await stack.maildev.waitForEmail(email, `on "${TOPIC}"`, { count: 3 });
  await screenshot(page, "test-email-sent");
  const all = await stack.maildev.emails();
  assert.equal(all.filter((mail) => mail.to.some((r) => r.address === "someone-else@example.org")).length, 0, "no mail to another address");
  await page.context().close();
});
