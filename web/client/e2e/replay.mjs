// A replay server for the browser tests: PubMed's E-utilities answered from the recorded
// responses in engine/fixtures/pubmed/, so the binary's real harvester fills its index.
//
// The recorded efetch batch (20 real records about phthalates and the liver) is served for one
// day, `papersDay`; every other day's search finds nothing. Its records' Entrez dates are moved
// to that day, so they count as this week's papers, the way the Rust tests set `entered` to
// today. Everything else in the responses is as recorded.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { repoRoot, startStack, waitFor } from "./harness.mjs";

const fixtures = path.join(repoRoot, "engine", "fixtures", "pubmed");
const ESEARCH = fs.readFileSync(path.join(fixtures, "esearch_xml_usehistory_webenv_reldate60_edat_retmax100.xml"), "utf8");
const EFETCH = fs.readFileSync(path.join(fixtures, "efetch_batch_20_articles.xml"), "utf8");
export const RECORDED_PAPERS = 20;
/**
 * Single recorded records, by PMID, for efetch by `id` (a seed looked up at PubMed). Papers of
 * other topics than the batch's, so that they are found only by asking PubMed for them.
 */
const BY_PMID = {
  29186030: "efetch_abstract_with_inline_markup_29186030.xml",
  21813367: "efetch_structured_abstract_21813367.xml",
};

/** yyyy/mm/dd → yyyy-mm-dd. */
const isoOf = (ncbiDate) => ncbiDate?.replaceAll("/", "-");

/** The esearch answer for a window: the recorded one, with the window's count. */
function esearchAnswer(count) {
  return ESEARCH.replace(/<Count>\d+<\/Count>/, `<Count>${count}</Count>`);
}

/** The efetch batch with every Entrez date set to `day` (yyyy-mm-dd). */
function efetchAnswer(day) {
  const [year, month, dayOfMonth] = day.split("-").map(Number);
  return EFETCH.replace(
    /<PubMedPubDate PubStatus="entrez"><Year>\d+<\/Year><Month>\d+<\/Month><Day>\d+<\/Day>/g,
    `<PubMedPubDate PubStatus="entrez"><Year>${year}</Year><Month>${month}</Month><Day>${dayOfMonth}</Day>`,
  );
}

/** The recorded records of `ids` (those there are) as one efetch answer. */
function efetchById(ids) {
  const articles = ids
    .filter((id) => BY_PMID[id])
    .map((id) => fs.readFileSync(path.join(fixtures, BY_PMID[id]), "utf8").match(/<PubmedArticle>[\s\S]*<\/PubmedArticle>/)?.[0] ?? "");
  return `<?xml version="1.0" ?>\n<PubmedArticleSet>\n${articles.join("\n")}\n</PubmedArticleSet>\n`;
}

/** Starts the server; `requests` lists the paths and queries asked for. */
export async function startReplay({ papersDay }) {
  const requests = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, "http://replay");
    requests.push(`${url.pathname}${url.search}`);
    const reply = (status, body) => {
      response.writeHead(status, { "Content-Type": "text/xml; charset=UTF-8" });
      response.end(body);
    };
    if (url.pathname === "/entrez/eutils/esearch.fcgi") {
      const [from, to] = [isoOf(url.searchParams.get("mindate")), isoOf(url.searchParams.get("maxdate"))];
      const holdsPapers = from && to && from <= papersDay && papersDay <= to;
      return reply(200, esearchAnswer(holdsPapers ? RECORDED_PAPERS : 0));
    }
    if (url.pathname === "/entrez/eutils/efetch.fcgi" && url.searchParams.has("id")) {
      return reply(200, efetchById(url.searchParams.get("id").split(",")));
    }
    if (url.pathname === "/entrez/eutils/efetch.fcgi") return reply(200, efetchAnswer(papersDay));
    reply(418, `no recorded response for ${url.pathname}`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    requests,
    /** The environment that points the binary's PubMed client here. */
    env: { PAPERTIDE_HARVEST_SOURCES: "pubmed", PAPERTIDE_PUBMED_URL: `${base}/entrez/eutils/`, PAPERTIDE_NCBI_EMAIL: "e2e@example.org" },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A stack whose index the real harvester filled with the recorded week (the papers entered
 * yesterday), and the replay server behind it; `stop` stops both.
 */
export async function startHarvestedStack({ env = {} } = {}) {
  const yesterday = new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 10);
  const replay = await startReplay({ papersDay: yesterday });
  const stack = await startStack({ env: { ...replay.env, ...env } });
  await waitFor(async () => (await stack.papertide.health()).sources.pubmed.papersAddedTotal >= RECORDED_PAPERS, "the harvest", 60_000);
  return {
    stack,
    async stop() {
      await stack.stop();
      await replay.stop();
    },
  };
}
