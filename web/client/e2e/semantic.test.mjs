// Ranking by meaning in the browser, against the real binary with the all-MiniLM-L6-v2 model
// (PAPERTIDE_TEST_EMBED_MODEL_DIR, which the test command fetches) and a recorded week of PubMed
// papers (phthalate toxicology, replay.mjs): the service embeds the harvested papers in the
// background (/healthz counts them), a topic added on the dashboard is ranked by its words and
// its meaning (relevant papers only, each saying why, "searched as" never shows stems), and a
// topic the week does not cover gets an honest empty digest however close its nearest vectors.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { card, screenshot, verifiedPage, waitFor } from "./harness.mjs";
import { RECORDED_PAPERS, startHarvestedStack } from "./replay.mjs";

const MODEL_DIR = process.env.PAPERTIDE_TEST_EMBED_MODEL_DIR;

let harvested;
let stack;
before(async () => {
  assert.ok(MODEL_DIR, "PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model (the test command sets it)");
  harvested = await startHarvestedStack({ env: { PAPERTIDE_EMBED_MODEL_DIR: MODEL_DIR } });
  stack = harvested.stack;
});
after(async () => {
  await harvested?.stop();
});

/** The relevance percents a text shows, in order. */
const percentsIn = (text, pattern) => [...text.matchAll(pattern)].map((match) => Number(match[1]));

test("with the model, the harvested week is embedded in the background and a topic is ranked by words and meaning", async () => {
  await waitFor(
    async () => {
      const { embeddings } = await stack.papertide.health();
      return embeddings.papersEmbedded >= RECORDED_PAPERS && embeddings.papersWaiting === 0;
    },
    "the harvested papers embedded",
    180_000,
  );
  assert.equal((await stack.papertide.health()).embeddings.model, "all-minilm-l6-v2");

  const email = "meaning@example.org";
  const page = await verifiedPage(stack, email);
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill("liver toxicity of phthalate plasticizers");
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 60_000 });

  const digest = await stack.maildev.waitForEmail(email, "new papers on");
  const mailed = percentsIn(digest.text, /(\d+)% relevant/g);
  assert.ok(mailed.length >= 3 && mailed.every((percent) => percent >= 25), `relevant papers only: ${mailed}`);
  assert.deepEqual(mailed, [...mailed].sort((a, b) => b - a), "ordered by the score shown");
  assert.doesNotMatch(digest.text, /Why: \n/, "every paper says why it matched");
  assert.doesNotMatch(digest.text, /Searched as: .*\b(phthalat|toxic|plastic|studi|chemic)\b/, "no stems");

  await page.goto("/dashboard");
  const recent = card(page, "Recent Email Digests");
  await recent.getByRole("button").filter({ hasText: "liver toxicity of phthalate plasticizers" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("AI Research Summary").waitFor();
  const shown = percentsIn(await dialog.innerText(), /Relevance (\d+)%/g);
  assert.deepEqual(shown, mailed, "the dialog shows the mail's papers and scores");
  await screenshot(page, "semantic-01-digest-ranked-by-meaning");
  await page.keyboard.press("Escape");

  // A topic the week does not cover: the nearest vectors are not relevant papers.
  const other = await verifiedPage(stack, "unrelated@example.org");
  await other.goto("/dashboard");
  const otherInput = card(other, "Add New Search Term").getByLabel("Research topic");
  await otherInput.fill("dark matter halos in dwarf galaxies");
  await otherInput.press("Enter");
  const empty = await stack.maildev.waitForEmail("unrelated@example.org", "no new papers on");
  assert.match(empty.text, /Nothing published in the last 90 days matched "dark matter halos in dwarf galaxies" closely enough to send\./);
  await screenshot(other, "semantic-02-unrelated-topic-empty");
});

test("a researcher's second, overlapping topic gets only its own papers, and its reason lines name their evidence", async () => {
  await waitFor(async () => (await stack.papertide.health()).embeddings.papersWaiting === 0, "the harvested papers embedded", 180_000);
  const email = "two-topics@example.org";
  const page = await verifiedPage(stack, email);
  // A paid plan: two topics of one researcher, each with its own digest.
  await stack.papertide.runCli(["users", "set-tier", email, "pro"]);
  await page.goto("/dashboard");
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill("liver toxicity of phthalate plasticizers");
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 60_000 });
  await stack.maildev.waitForEmail(email, 'new papers on "liver toxicity of phthalate plasticizers"');

  // The second topic shares "phthalate" and the field with the first; its own concept is
  // oogenesis, which one paper of the week is about (DEHP and folliculogenesis in the mouse;
  // PubMed's indexers gave it the heading "Oogenesis"). The liver papers are close in meaning
  // and share "phthalate", and none of them may be sent for it.
  await page.goto("/dashboard");
  await input.fill("phthalate oogenesis");
  await input.press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 60_000 });
  await screenshot(page, "semantic-03-second-topic-searched");
  const digest = await stack.maildev.waitForEmail(email, 'on "phthalate oogenesis"');
  const titles = [...digest.text.matchAll(/^\d+\. (.+)$/gm)].map((match) => match[1]);
  assert.ok(titles.length >= 1, `a digest with papers: ${digest.text}`);
  for (const title of titles) assert.match(title, /follic|oocyte|ovar|oogenesis/i, `no paper of the first topic's liver toxicology: ${titles}`);
  const reasons = [...digest.text.matchAll(/^ {3}Why: (.+)$/gm)].map((match) => match[1]);
  assert.equal(reasons.length, titles.length, "every paper says why");
  for (const reason of reasons) assert.match(reason, /oogenesis/i, `each names its evidence for the topic's own concept: ${reasons}`);
  assert.doesNotMatch(digest.text, /in other words/, "nothing vouched for without evidence");

  await page.goto("/dashboard");
  const recent = card(page, "Recent Email Digests");
  await recent.getByRole("button").filter({ hasText: "phthalate oogenesis" }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText(reasons[0]).first().waitFor();
  await screenshot(page, "semantic-04-overlapping-topic-names-its-evidence");
  await page.keyboard.press("Escape");
});
