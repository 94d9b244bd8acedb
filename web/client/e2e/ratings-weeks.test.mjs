// Two weeks of a researcher who rates papers, in the browser against the real binary with the
// all-MiniLM-L6-v2 model (PAPERTIDE_TEST_EMBED_MODEL_DIR) and the recorded PubMed batch
// (phthalate toxicology) split into two weeks: the operator's `papertide import` adds the first
// half before anyone signs up and the second half after the first digests, as a harvest would.
// Rita follows "liver tumors in rats" on Pro: in her first digest's dialog she marks one paper
// "Relevant" and one "Not relevant", confirms a third paper's "More like this" link from the mail,
// and excludes the word "mice" on the dashboard. Carl follows the same topic and rates nothing.
// Their second digests (Trigger Weekly Digest, after the next papers arrived) differ: Carl's has
// papers about mice, Rita's none (in the mail, the dialog and the API), and a paper of hers says
// it was "ranked higher by your ratings" (or lower), which none of Carl's does.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { card, repoRoot, screenshot, startStack, verifiedPage, waitFor } from "./harness.mjs";

const MODEL_DIR = process.env.PAPERTIDE_TEST_EMBED_MODEL_DIR;
const TOPIC = "liver tumors in rats";
/** The word Rita excludes: in none of the topic's words, in some of the second week's papers. */
const EXCLUDED = "mice";
const mentionsExcluded = (text) => new RegExp(`\\b${EXCLUDED}\\b`, "i").test(text);

// The recorded batch's first week (by PMID): rat liver, hyperplasia and tumour papers without
// mice, and papers on other organs and chemicals. The other ten, several about mice, come later.
const FIRST_WEEK = ["10357793", "8761421", "14727734", "10485824", "3383337", "3709451", "6677511", "6143560", "3934796", "23625783"];

const EFETCH = fs.readFileSync(path.join(repoRoot, "engine", "fixtures", "pubmed", "efetch_batch_20_articles.xml"), "utf8");
const ARTICLES = EFETCH.match(/<PubmedArticle>[\s\S]*?<\/PubmedArticle>/g);
const pmidOf = (article) => article.match(/<PMID[^>]*>(\d+)<\/PMID>/)[1];

/** A PubMed XML file of the recorded articles `pick` keeps, entered (Entrez date) on `day` (yyyy-mm-dd). */
function recordedBatch(dir, name, pick, day) {
  const [year, month, dayOfMonth] = day.split("-").map(Number);
  const head = EFETCH.slice(0, EFETCH.indexOf("<PubmedArticle>"));
  const tail = EFETCH.slice(EFETCH.lastIndexOf("</PubmedArticle>") + "</PubmedArticle>".length);
  const body = (head + ARTICLES.filter((article) => pick(pmidOf(article))).join("\n") + tail).replace(
    /<PubMedPubDate PubStatus="entrez"><Year>\d+<\/Year><Month>\d+<\/Month><Day>\d+<\/Day>/g,
    `<PubMedPubDate PubStatus="entrez"><Year>${year}</Year><Month>${month}</Month><Day>${dayOfMonth}</Day>`,
  );
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}

let stack;
let batches;
const yesterday = new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 10);

/** Waits until the service embedded `papers` papers and none waits. */
const embedded = (papers) =>
  waitFor(
    async () => {
      const { embeddings } = await stack.papertide.health();
      return embeddings.papersEmbedded >= papers && embeddings.papersWaiting === 0;
    },
    `${papers} papers embedded`,
    180_000,
  );

before(async () => {
  assert.ok(MODEL_DIR, "PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model (the test command sets it)");
  assert.equal(ARTICLES.length, 20);
  batches = fs.mkdtempSync(path.join(os.tmpdir(), "papertide-weeks-"));
  stack = await startStack({ env: { PAPERTIDE_EMBED_MODEL_DIR: MODEL_DIR } });
  const imported = await stack.papertide.runCli(["import", recordedBatch(batches, "week-1.xml", (pmid) => FIRST_WEEK.includes(pmid), yesterday)]);
  assert.match(imported, /10 added/);
  await embedded(10);
});
after(async () => {
  await stack?.stop();
  if (batches) fs.rmSync(batches, { recursive: true, force: true });
});

/** A JSON answer of the API, with the page's session. */
const api = (page, address) => page.evaluate(async (url) => (await fetch(url, { credentials: "include" })).json(), address);

/** The mail's paper block (from "N. title" to the next paper) of the paper titled `title`. */
function paperBlockIn(mail, title) {
  const block = mail.text.split(/\n(?=\d+\. )/).find((part) => part.replace(/^\d+\. /, "").startsWith(title));
  if (!block) throw new Error(`no paper "${title}" in mail "${mail.subject}"`);
  return block;
}

/** The rating link with `label` of the paper titled `title` in a mail's text. */
function ratingLinkFor(mail, title, label) {
  const match = paperBlockIn(mail, title).match(new RegExp(`^ {3}${label}: (https?://\\S*/rate\\?token=\\S+)$`, "m"));
  if (!match) throw new Error(`no "${label}" link for "${title}" in mail "${mail.subject}"`);
  return match[1];
}

/** A new verified user following TOPIC, with their first digest mailed; returns the page, user and mail. */
async function followTopic(email) {
  const page = await verifiedPage(stack, email);
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill(TOPIC);
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 60_000 });
  const mail = await stack.maildev.waitForEmail(email, `new papers on "${TOPIC}"`);
  const { user } = await api(page, "/api/auth/me");
  return { page, user, mail };
}

/** Presses Trigger Weekly Digest on the test-email page and waits for the mail: the second digest. */
async function triggerWeeklyDigest(page, email) {
  await page.goto("/test-email");
  await page.getByRole("button", { name: "Trigger Weekly Digest" }).click();
  return stack.maildev.waitForEmail(email, `on "${TOPIC}"`, { count: 2 });
}

test("two weeks of a researcher who rates papers and excludes a word: the second digest leaves out what she excluded, unlike a colleague's who rated nothing", async (t) => {
  const rita = await followTopic("rita@example.org");
  const carl = await followTopic("carl@example.org");
  const firstTitles = (digest) => digest.papersData.map((paper) => paper.title);
  const [ritaFirst] = await api(rita.page, `/api/users/${rita.user.id}/digests`);
  const [carlFirst] = await api(carl.page, `/api/users/${carl.user.id}/digests`);
  assert.deepEqual(firstTitles(ritaFirst), firstTitles(carlFirst), "the same topic and week: the same first digest");
  assert.ok(ritaFirst.papersData.length >= 3, `three papers to rate: ${firstTitles(ritaFirst)}`);
  assert.ok(!ritaFirst.papersData.some((paper) => mentionsExcluded(`${paper.title} ${paper.abstract}`)), "the first week has no papers about mice");

  // Week 1: rated in the digest dialog.
  const { page } = rita;
  await page.goto("/dashboard");
  await card(page, "Recent Email Digests").getByRole("button").filter({ hasText: TOPIC }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("AI Research Summary").waitFor();
  await screenshot(page, "ratings-weeks-01-first-digest");
  const groups = dialog.getByRole("group", { name: /^Rate / });
  const titleOf = async (group) => ((await group.getAttribute("aria-label")) ?? "").replace(/^Rate /, "");
  const liked = groups.first();
  const rejected = groups.last();
  const [likedTitle, rejectedTitle] = [await titleOf(liked), await titleOf(rejected)];
  await liked.getByRole("button", { name: "Relevant", exact: true }).click();
  await liked.locator('button[aria-pressed="true"]', { hasText: "Relevant" }).waitFor();
  await rejected.getByRole("button", { name: "Not relevant" }).click();
  await rejected.locator('button[aria-pressed="true"]', { hasText: "Not relevant" }).waitFor();
  await screenshot(page, "ratings-weeks-02-rated-in-the-dialog");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });

  // Week 1: a third paper's "More like this", from the mail, confirmed.
  const mailedTitle = firstTitles(ritaFirst).find((title) => title !== likedTitle && title !== rejectedTitle);
  const mailTab = await page.context().newPage();
  await mailTab.goto(ratingLinkFor(rita.mail, mailedTitle, "More like this"));
  await mailTab.getByRole("button", { name: `Ask for more like this in “${TOPIC}”` }).click();
  await mailTab.getByText(`Thanks — your digests for “${TOPIC}” will learn from this.`).waitFor();
  await screenshot(mailTab, "ratings-weeks-03-mail-link-confirmed");
  await mailTab.close();

  // Week 1: the exclusion word, through the term's edit on the dashboard.
  await page.goto("/dashboard");
  const queue = card(page, "Your Search Queue");
  await queue.getByRole("button", { name: `Edit ${TOPIC}` }).click();
  await queue.getByLabel("Exclude words").fill(EXCLUDED);
  await queue.getByRole("button", { name: "Save" }).click();
  await page.getByText("Search Term Updated").first().waitFor();
  await queue.getByText(`Excludes: ${EXCLUDED}`).waitFor();
  await queue.getByRole("button", { name: "Ratings (3)" }).click();
  await screenshot(page, "ratings-weeks-04-ratings-and-exclusion");
  const [term] = await api(page, `/api/users/${rita.user.id}/search-terms`);
  assert.deepEqual(term.exclude, [EXCLUDED]);
  const ratings = await api(page, `/api/search-terms/${term.id}/ratings`);
  assert.deepEqual(
    Object.fromEntries(ratings.map((rating) => [rating.title, rating.verdict])),
    { [likedTitle]: "relevant", [rejectedTitle]: "notRelevant", [mailedTitle]: "moreLikeThis" },
  );

  // Week 2: both on Pro (Trigger Weekly Digest is for paid plans), and the next papers arrive.
  for (const email of ["rita@example.org", "carl@example.org"]) await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  const imported = await stack.papertide.runCli(["import", recordedBatch(batches, "week-2.xml", (pmid) => !FIRST_WEEK.includes(pmid), yesterday)]);
  assert.match(imported, /10 added/);
  await embedded(20);
  const ritaMail = await triggerWeeklyDigest(page, "rita@example.org");
  const carlMail = await triggerWeeklyDigest(carl.page, "carl@example.org");
  const [ritaSecond] = await api(page, `/api/users/${rita.user.id}/digests`);
  const [carlSecond] = await api(carl.page, `/api/users/${carl.user.id}/digests`);
  const describe = (digest) => digest.papersData.map((paper) => `${Math.round(paper.relevanceScore * 100)}% ${paper.title} | ${paper.reason}`).join("\n");
  for (const line of `Rita's second digest:\n${describe(ritaSecond)}\nCarl's second digest:\n${describe(carlSecond)}`.split("\n")) t.diagnostic(line);
  assert.equal(ritaSecond.digestType, "weekly");
  assert.equal(carlSecond.digestType, "weekly");

  // The colleague who rated nothing gets papers about mice; Rita none, and not the same digest.
  const aboutMice = (digest) => digest.papersData.filter((paper) => mentionsExcluded(`${paper.title} ${paper.abstract}`)).map((paper) => paper.title);
  assert.ok(aboutMice(carlSecond).length >= 1, `the week has papers about mice for the topic:\n${describe(carlSecond)}`);
  assert.deepEqual(aboutMice(ritaSecond), [], "no paper with the excluded word is sent");
  assert.ok(ritaSecond.papersData.length >= 1, "the rest of the week still comes");
  assert.notDeepEqual(firstTitles(ritaSecond), firstTitles(carlSecond), "the ratings changed the digest");
  for (const title of aboutMice(carlSecond)) assert.ok(!ritaMail.text.includes(title), `not mailed to Rita: ${title}`);
  assert.ok(!mentionsExcluded(ritaMail.text), "nothing about mice in Rita's mail");
  assert.ok(aboutMice(carlSecond).every((title) => carlMail.text.includes(title)), "Carl's mail has them");
  // The ratings moved a paper, and its reason says so (only in the rated term's digest).
  const moved = ritaSecond.papersData.filter((paper) => /ranked (higher|lower) by your ratings/.test(paper.reason));
  assert.ok(moved.length >= 1, `a paper the ratings moved says so:\n${describe(ritaSecond)}`);
  assert.ok(ritaMail.text.includes(`Why: ${moved[0].reason}`), "the mail says why");
  assert.ok(!carlSecond.papersData.some((paper) => /by your ratings/.test(paper.reason)), "nothing moved for Carl, who rated nothing");
  const firstWeek = new Set(firstTitles(ritaFirst));
  assert.ok(!ritaSecond.papersData.some((paper) => firstWeek.has(paper.title)), "no paper is sent twice");

  // The second digest's dialog shows the same papers, none about mice.
  await page.goto("/dashboard");
  await card(page, "Recent Email Digests").getByRole("button").filter({ hasText: TOPIC }).first().click();
  const second = page.getByRole("dialog");
  await second.getByText("AI Research Summary").waitFor();
  const shownTitles = await Promise.all((await second.getByRole("group", { name: /^Rate / }).all()).map(titleOf));
  assert.deepEqual(shownTitles, firstTitles(ritaSecond), "the dialog shows the second digest");
  assert.ok(!mentionsExcluded(await second.innerText()), "nothing about mice in the dialog");
  await second.getByText(/ranked (higher|lower) by your ratings/).first().waitFor();
  await screenshot(page, "ratings-weeks-05-second-digest");
  await page.keyboard.press("Escape");
  await carl.page.goto("/dashboard");
  await card(carl.page, "Recent Email Digests").getByRole("button").filter({ hasText: TOPIC }).first().click();
  await carl.page.getByRole("dialog").getByText("AI Research Summary").waitFor();
  await screenshot(carl.page, "ratings-weeks-06-colleagues-second-digest");
  await rita.page.context().close();
  await carl.page.context().close();
});
