// Where researchers already work, in the browser against the real binary with the model and a
// recorded week of PubMed papers (replay.mjs): a Team researcher seeds a new term from a BibTeX
// file and three PMIDs (two already in the index, one looked up at the replayed PubMed), gets a
// first digest ranked by them whose reason lines say so, subscribes to the term's private feed
// in a feed parser, downloads the digest's RIS, finds the papers' COinS in the digest dialog,
// and connects a lab channel (a local webhook receiver), which gets the term's digest and a test
// message; the plan cards list what the server says each plan gives.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import Parser from "rss-parser";
import { card, screenshot, verifiedPage, waitFor } from "./harness.mjs";
import { RECORDED_PAPERS, startHarvestedStack } from "./replay.mjs";

const TOPIC = "phthalate toxicity";
const MODEL_DIR = process.env.PAPERTIDE_TEST_EMBED_MODEL_DIR;
/** Two papers of the recorded week on peroxisome proliferation, as a reference manager exports them. */
const BIBTEX = `@article{conway1986,
  title = {Di-n-octyl phthalate ({DOP}), a relatively ineffective peroxisome inducing straight chain isomer},
  journal = {Toxicology},
  year = {1986},
  doi = {10.1016/0300-483x(86)90182-4},
}

@article{bronfman1984,
  title = {Induction of rat hepatic long-chain acyl-{CoA} hydrolases by various peroxisome proliferators},
  year = {1984},
  doi = {10.1016/0006-2952(84)90517-3},
}
`;
/** Two more of the week, and one only PubMed has (looked up there). */
const PMIDS = ["6677511", "3383337", "29186030"];

/** A local incoming webhook: every JSON body posted to it. */
async function startReceiver() {
  const bodies = [];
  const server = http.createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      try {
        bodies.push(JSON.parse(text));
      } catch {
        bodies.push({ unreadable: text });
      }
      response.writeHead(200, { "Content-Type": "text/plain" });
      response.end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks/lab`,
    bodies,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let harvested;
let stack;
let receiver;
before(async () => {
  assert.ok(MODEL_DIR, "PAPERTIDE_TEST_EMBED_MODEL_DIR names the fetched model (the test command sets it)");
  receiver = await startReceiver();
  // The receiver is on loopback: the operator allows private addresses, as a lab's own Mattermost.
  harvested = await startHarvestedStack({ env: { PAPERTIDE_EMBED_MODEL_DIR: MODEL_DIR, PAPERTIDE_CHANNELS_ALLOW_PRIVATE: "true" } });
  stack = harvested.stack;
});
after(async () => {
  await harvested?.stop();
  await receiver?.stop();
});

/** A JSON answer of the API, with the page's session. */
const api = (page, path) => page.evaluate(async (address) => (await fetch(address, { credentials: "include" })).json(), path);

test("a term seeded from a BibTeX file and three PMIDs: its first digest, its feed, its RIS and its lab channel", async () => {
  await waitFor(
    async () => {
      const { embeddings } = await stack.papertide.health();
      return embeddings.papersEmbedded >= RECORDED_PAPERS && embeddings.papersWaiting === 0;
    },
    "the harvested papers embedded",
    180_000,
  );
  const email = "lab@example.org";
  const page = await verifiedPage(stack, email);
  await stack.papertide.runCli(["users", "set-tier", email, "team"]);

  // Seeded as the term is added.
  await page.goto("/dashboard");
  const add = card(page, "Add New Search Term");
  await add.getByLabel("Research topic").fill(TOPIC);
  await add.getByRole("button", { name: "Seed it with papers you know (optional)" }).click();
  await add.getByLabel("DOIs, PMIDs or arXiv ids, one per line").fill(PMIDS.join("\n"));
  await add.getByLabel("Or a BibTeX or RIS file").setInputFiles({ name: "library.bib", mimeType: "application/x-bibtex", buffer: Buffer.from(BIBTEX) });
  await add.getByText("Chosen file: library.bib").waitFor();
  await screenshot(page, "workflows-01-seeds-given");
  await add.getByLabel("Research topic").press("Enter");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 90_000 });
  const found = add.getByRole("list", { name: "Seed papers found" });
  await found.waitFor();
  assert.equal(await found.getByRole("listitem").count(), 5);
  await add.getByText("Seeded from 5 papers:").waitFor();
  await found.getByText("(looked up at PubMed)").waitFor();
  await screenshot(page, "workflows-02-seeds-found");

  // The first digest: ranked by the seeds, which it never sends back.
  const mail = await stack.maildev.waitForEmail(email, "new papers on");
  assert.match(mail.text, /ranked higher by the papers you seeded it with/, "a reason line names the seeds");
  assert.doesNotMatch(mail.text, /Species differences in di-\(2-ethylhexyl\) phthalate-induced hepatic peroxisome/, "a seed is not sent back");
  const { user } = await api(page, "/api/auth/me");
  const [term] = await api(page, `/api/users/${user.id}/search-terms`);
  const ratings = await api(page, `/api/search-terms/${term.id}/ratings`);
  assert.equal(ratings.filter((rating) => rating.seeded).length, 5);

  // The term lists its seed papers.
  await page.goto("/dashboard");
  const queue = card(page, "Your Search Queue");
  await queue.getByRole("button", { name: "Seed papers (5)" }).click();
  await queue.getByRole("list", { name: `Seed papers of ${TOPIC}` }).waitFor();
  await screenshot(page, "workflows-03-seed-papers");

  // The term's private feed, read by a feed parser as a feed reader would, and polled cheaply.
  const feeds = page.getByRole("region", { name: "Feeds" });
  const feedUrl = await feeds.getByRole("textbox", { name: TOPIC }).inputValue();
  assert.ok(feedUrl.startsWith(`${stack.papertide.baseUrl}/feeds/`), feedUrl);
  const response = await fetch(feedUrl);
  assert.equal(response.status, 200);
  const feed = await new Parser().parseString(await response.text());
  assert.equal(feed.title, `Papertide: ${TOPIC}`);
  assert.ok(feed.items.length >= 1, "the digest's papers are entries");
  for (const item of feed.items) {
    assert.ok(item.title && item.link, "each entry has a title and a link");
    assert.match(item.contentSnippet ?? item.content ?? item.summary ?? "", /\d+% relevant\./, "each entry has its percent and reason");
  }
  const unchanged = await fetch(feedUrl, { headers: { "If-None-Match": response.headers.get("etag") } });
  assert.equal(unchanged.status, 304);
  await screenshot(page, "workflows-04-feeds");

  // The digest's RIS, downloaded from the list of digests.
  const recent = card(page, "Recent Email Digests");
  const [download] = await Promise.all([page.waitForEvent("download"), recent.getByRole("link", { name: /^RIS citations of / }).first().click()]);
  assert.match(download.suggestedFilename(), /^papertide-phthalate-toxicity-\d{4}-\d{2}-\d{2}\.ris$/);
  const ris = await new Response(await download.createReadStream()).text();
  assert.equal((ris.match(/^TY {2}- /gm) ?? []).length, feed.items.length, "one record per paper of the digest");
  assert.match(ris, /^ER {2}- /m);

  // The digest dialog carries each paper's COinS for reference managers' connectors.
  await recent.getByRole("button").filter({ hasText: TOPIC }).first().click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("AI Research Summary").waitFor();
  const coins = await dialog.locator("span.Z3988").evaluateAll((spans) => spans.map((span) => span.getAttribute("title")));
  assert.equal(coins.length, feed.items.length);
  for (const kev of coins) {
    const fields = new URLSearchParams(kev);
    assert.equal(fields.get("ctx_ver"), "Z39.88-2004");
    assert.ok(fields.get("rft.atitle"), "the title is in the COinS");
  }
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });

  // The lab channel: connected, tested, then the next digest is posted to it once.
  const channel = page.getByRole("region", { name: `Lab channel of ${TOPIC}` });
  await channel.getByLabel("Slack or Mattermost incoming webhook URL").fill(receiver.url);
  await channel.getByRole("button", { name: `Connect the lab channel of ${TOPIC}` }).click();
  await channel.getByText("Posting to 127.0.0.1").waitFor();
  await channel.getByRole("button", { name: `Send test message to the lab channel of ${TOPIC}` }).click();
  await waitFor(async () => receiver.bodies.some((body) => String(body.text ?? "").includes(TOPIC)), "the test message", 15_000);
  await screenshot(page, "workflows-05-lab-channel");
  // Connecting posted the term's latest digest, once.
  const [latest] = await api(page, `/api/users/${user.id}/digests`);
  await waitFor(async () => receiver.bodies.some((body) => Array.isArray(body.blocks)), "the digest posted to the channel", 30_000);
  const post = receiver.bodies.find((body) => Array.isArray(body.blocks));
  assert.ok(post.text.includes(latest.papersData[0].title.slice(0, 40)), `the post names the digest's papers: ${post.text}`);
  await new Promise((resolve) => setTimeout(resolve, 6000));
  assert.equal(receiver.bodies.filter((body) => Array.isArray(body.blocks)).length, 1, "posted once");

  // The plan cards list what the server says each plan gives.
  const config = await api(page, "/api/config");
  await page.goto("/subscribe");
  const lines = {
    seeds: "Seed topics with papers you know",
    feeds: "Private Atom feeds",
    citations: "Citations for Zotero, Mendeley and EndNote",
    labChannels: "Digests posted to your lab's Slack or Mattermost",
  };
  assert.equal(config.plans.length, 3);
  for (const plan of config.plans) {
    const label = plan.tier[0].toUpperCase() + plan.tier.slice(1);
    const listed = await page.getByRole("list", { name: `What the ${label} plan includes` }).innerText();
    for (const [entitlement, line] of Object.entries(lines)) {
      assert.equal(listed.includes(line), plan[entitlement], `${label}: "${line}" listed ${listed.includes(line)}, given ${plan[entitlement]}`);
    }
  }
  await screenshot(page, "workflows-06-plan-cards");
});
