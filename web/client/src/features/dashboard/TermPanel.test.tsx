import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ChannelView } from "@/api/contract";
import { loadAppConfig, resetAppConfig } from "@/state/config";
import type { CurrentUser, Tier } from "@/state/session";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import type { Rating, SearchTerm } from "./api";
import { SearchQueueCard } from "./SearchQueueCard";
import { resetDashboard, searchTerms } from "./store";

type Handlers = Parameters<typeof stubFetch>[0];

const RATINGS_PATH = "/api/search-terms/t1/ratings";
const CHANNEL_PATH = "/api/search-terms/t1/channel";

const TERM: SearchTerm = {
  id: "t1",
  userId: "u1",
  term: "CRISPR base editing",
  isActive: true,
  isFree: false,
  status: "completed",
  lastProcessedAt: null,
  nextScheduledRun: null,
  createdAt: "2026-11-01T09:00:00Z",
};

const userOn = (tier: Tier, more: Partial<CurrentUser> = {}): CurrentUser => ({ id: "u1", email: "ada@example.org", subscriptionTier: tier, ...more });

function rating(paperKey: string, title: string, seeded = false): Rating {
  return { paperKey, title, verdict: "relevant", digestId: seeded ? null : "d1", ratedAt: "2026-11-21T08:00:00Z", seeded };
}

function renderQueue(user: CurrentUser, handlers: Handlers) {
  const mock = stubFetch(handlers);
  searchTerms.value = [TERM];
  const clicks = userEvent.setup();
  renderRoute(<SearchQueueCard user={user} />, { at: "/dashboard", routePath: "/dashboard" });
  return { mock, user: clicks };
}

const channelRegion = () => screen.findByRole("region", { name: "Lab channel of CRISPR base editing" });

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
  resetAppConfig();
});
afterEach(() => vi.unstubAllGlobals());

describe("a term's history as citations", () => {
  it("links the term's history as RIS and as BibTeX, for download", () => {
    renderQueue(userOn("free"), {});
    const ris = screen.getByRole("link", { name: "RIS export of the history of CRISPR base editing" });
    const bibtex = screen.getByRole("link", { name: "BibTeX export of the history of CRISPR base editing" });
    expect(ris).toHaveAttribute("href", "/api/search-terms/t1/citations?format=ris");
    expect(bibtex).toHaveAttribute("href", "/api/search-terms/t1/citations?format=bibtex");
    expect(ris).toHaveAttribute("download");
    expect(ris.closest("p")).toHaveTextContent("Export history: RIS · BibTeX");
  });
});

describe("a term's seed papers", () => {
  /** A fake server keeping the term's ratings, seeds among them. */
  function serveRatings(initial: Rating[], seedReply: (body: unknown) => Reply) {
    let stored = [...initial];
    const handlers: Handlers = {
      [`GET ${RATINGS_PATH}`]: () => ({ status: 200, body: stored }),
      "POST /api/search-terms/t1/seeds": (body) => {
        const reply = seedReply(body);
        if (reply.status === 200) stored = [rating("doi:10.1/new", "Prime editing reach", true), ...stored];
        return reply;
      },
      [`DELETE ${RATINGS_PATH}`]: () => {
        stored = stored.filter((kept) => kept.paperKey !== "doi:10.1/seed");
        return { status: 200, body: { success: true } };
      },
    };
    return handlers;
  }

  it("lists the seeds apart from the ratings, and removes one", async () => {
    const { mock, user } = renderQueue(
      userOn("pro"),
      serveRatings([rating("doi:10.1/rated", "Base editors in vivo"), rating("doi:10.1/seed", "A seed paper I know", true)], () => ({ status: 500 })),
    );
    expect(await screen.findByRole("button", { name: "Ratings (1)" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Seed papers (1)" }));
    const seeds = screen.getByRole("list", { name: "Seed papers of CRISPR base editing" });
    expect(within(seeds).getAllByRole("listitem").map((item) => item.textContent)).toEqual([expect.stringContaining("A seed paper I knowSeed paper")]);

    await user.click(screen.getByRole("button", { name: "Ratings (1)" }));
    const rated = screen.getByRole("list", { name: "Ratings of CRISPR base editing" });
    expect(within(rated).queryByText("A seed paper I know")).toBeNull();

    await user.click(within(seeds).getByRole("button", { name: "Remove seed paper A seed paper I know" }));
    expect(await screen.findByRole("button", { name: "Seed papers (0)" })).toBeInTheDocument();
    const removal = mock.mock.calls.find(([, init]) => init?.method === "DELETE");
    expect(String(removal?.[0])).toBe(`${RATINGS_PATH}?paperKey=doi%3A10.1%2Fseed`);
    expect(latestToast()).toMatchObject({ title: "Seed Paper Removed", description: '"A seed paper I know" no longer seeds "CRISPR base editing".' });
    expect(screen.getByText(/No seed papers yet/)).toBeInTheDocument();
  });

  it("adds seed papers from pasted identifiers, lists what was found and refreshes the list", async () => {
    const seeded = [{ givenAs: "10.1/new", paperKey: "doi:10.1/new", title: "Prime editing reach", authors: "B", year: 2024, source: "biorxiv", foundIn: "source" }];
    const { mock, user } = renderQueue(userOn("free"), serveRatings([], () => ({ status: 200, body: { seeded } })));
    await user.click(await screen.findByRole("button", { name: "Seed papers (0)" }));
    const form = screen.getByRole("form", { name: "Add seed papers to CRISPR base editing" });
    const add = within(form).getByRole("button", { name: "Add seed papers" });
    expect(add).toBeDisabled();
    await user.type(within(form).getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" }), "10.1/new");
    await user.click(add);

    expect(await screen.findByText("Seeded from 1 paper:")).toBeInTheDocument();
    expect(requestBody(mock, "/api/search-terms/t1/seeds")).toEqual({ ids: "10.1/new" });
    expect(screen.getByText("(looked up at bioRxiv)")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: "Seed papers (1)" })).toBeInTheDocument();
    expect(within(screen.getByRole("list", { name: "Seed papers of CRISPR base editing" })).getByText("Prime editing reach")).toBeInTheDocument();
    expect(callsTo(mock, RATINGS_PATH)).toBe(2);
    expect(within(form).getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" })).toHaveValue("");
  });

  it("a refused seed: each of the server's messages listed, nothing added", async () => {
    const errors = ['Line 1 ("10.1/nope"): Not a DOI, PMID or arXiv id'];
    const { user } = renderQueue(
      userOn("free"),
      serveRatings([], () => ({ status: 400, body: { code: "validation_failed", message: "Some seed papers could not be used.", errors: [{ field: "seeds", message: errors[0] }] } })),
    );
    await user.click(await screen.findByRole("button", { name: "Seed papers (0)" }));
    await user.type(screen.getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" }), "10.1/nope");
    await user.click(screen.getByRole("button", { name: "Add seed papers" }));
    const list = await screen.findByRole("list", { name: "Problems with the seed papers" });
    expect(within(list).getAllByRole("listitem").map((item) => item.textContent)).toEqual(errors);
    expect(screen.getByRole("button", { name: "Seed papers (0)" })).toBeInTheDocument();
    expect(screen.queryByText(/Seeded from/)).toBeNull();
  });
});

describe("a term's lab channel", () => {
  const CONNECTED: ChannelView = {
    host: "hooks.slack.com",
    connectedAt: "2026-11-20T08:00:00Z",
    lastPostedAt: "2026-11-27T06:00:00Z",
    failures: 0,
    lastError: null,
  };

  it.each([["free"], ["pro"]] as const)("%s plan: one line inviting to the Team plan, and no request", async (tier) => {
    const { mock } = renderQueue(userOn(tier), { [`GET ${RATINGS_PATH}`]: { status: 200, body: [] } });
    const invitation = screen.getByText(/Post each digest to your lab's Slack or Mattermost channel with the/);
    expect(invitation).toHaveTextContent("Post each digest to your lab's Slack or Mattermost channel with the Team plan.");
    expect(within(invitation).getByRole("link", { name: "Team plan" })).toHaveAttribute("href", "/subscribe");
    expect(screen.queryByRole("region", { name: /Lab channel of/ })).toBeNull();
    expect(callsTo(mock, CHANNEL_PATH)).toBe(0);
  });

  it("follows the plans the server lists: a Pro plan with lab channels gets them", async () => {
    stubFetch({
      "GET /api/config": {
        status: 200,
        body: { plans: [{ tier: "pro", maxSearchTerms: 5, seeds: true, feeds: true, citations: true, labChannels: true }] },
      },
    });
    await loadAppConfig();
    renderQueue(userOn("pro"), { [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: null } } });
    expect(await channelRegion()).toBeInTheDocument();
  });

  it("Team plan without a channel: connects one, then shows where it posts", async () => {
    const { mock, user } = renderQueue(userOn("team"), {
      [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: null } },
      [`PUT ${CHANNEL_PATH}`]: { status: 200, body: { ...CONNECTED, lastPostedAt: null } },
    });
    const region = within(await channelRegion());
    const url = await region.findByRole("textbox", { name: "Slack or Mattermost incoming webhook URL" });
    const connect = region.getByRole("button", { name: "Connect the lab channel of CRISPR base editing" });
    expect(connect).toHaveTextContent("Connect");
    expect(connect).toBeDisabled();
    await user.type(url, " https://hooks.slack.com/services/T0/B0/secret ");
    await user.click(connect);

    expect(await region.findByText("hooks.slack.com")).toBeInTheDocument();
    expect(region.getByText(/Posting to/)).toHaveTextContent("Posting to hooks.slack.com");
    expect(region.getByText("Nothing posted yet")).toBeInTheDocument();
    const put = mock.mock.calls.find(([, init]) => init?.method === "PUT");
    expect(JSON.parse(String(put?.[1]?.body))).toEqual({ url: "https://hooks.slack.com/services/T0/B0/secret" });
    expect(screen.queryByText(/secret/)).toBeNull();
    expect(latestToast()).toMatchObject({ title: "Lab Channel Connected", variant: "success" });
  });

  it("a refused webhook address: the server's message at the field", async () => {
    const message = "The webhook must be an https address that is not on a private network.";
    const { user } = renderQueue(userOn("team"), {
      [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: null } },
      [`PUT ${CHANNEL_PATH}`]: { status: 400, body: { code: "validation_failed", message, errors: [{ field: "url", message }] } },
    });
    const region = within(await channelRegion());
    const url = await region.findByRole("textbox", { name: "Slack or Mattermost incoming webhook URL" });
    await user.type(url, "http://10.0.0.5/hook");
    await user.click(region.getByRole("button", { name: /^Connect/ }));
    expect(await region.findByRole("alert")).toHaveTextContent(message);
    expect(url).toHaveAttribute("aria-invalid", "true");
    expect(url).toHaveAccessibleDescription(message);
    expect(region.queryByText(/Posting to/)).toBeNull();
  });

  it("Team plan with a failing channel: its failures and last error, a test message and a disconnect", async () => {
    const failing = { ...CONNECTED, failures: 3, lastError: "HTTP 404: no_service" };
    const { mock, user } = renderQueue(userOn("team"), {
      [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: failing } },
      [`POST ${CHANNEL_PATH}/test`]: { status: 502, body: { code: "webhook_failed", message: "The webhook answered HTTP 404: no_service" } },
      [`DELETE ${CHANNEL_PATH}`]: { status: 200, body: { success: true } },
    });
    const region = within(await channelRegion());
    expect(await region.findByText("Last posted: November 27, 2026")).toBeInTheDocument();
    expect(region.getByText("Failures in a row: 3")).toBeInTheDocument();
    expect(region.getByText("Last error: HTTP 404: no_service")).toBeInTheDocument();

    await user.click(region.getByRole("button", { name: "Send test message to the lab channel of CRISPR base editing" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Test Message Failed", description: "The webhook answered HTTP 404: no_service" }));
    expect(callsTo(mock, `${CHANNEL_PATH}/test`)).toBe(1);

    await user.click(region.getByRole("button", { name: "Disconnect the lab channel of CRISPR base editing" }));
    expect(await region.findByRole("textbox", { name: "Slack or Mattermost incoming webhook URL" })).toBeInTheDocument();
    expect(latestToast()).toMatchObject({ title: "Lab Channel Disconnected" });
  });

  it("a healthy channel shows no failures, and a test message says so", async () => {
    const { user } = renderQueue(userOn("team"), {
      [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: CONNECTED } },
      [`POST ${CHANNEL_PATH}/test`]: { status: 200, body: { success: true } },
    });
    const region = within(await channelRegion());
    await region.findByText("hooks.slack.com");
    expect(region.queryByText(/Failures/)).toBeNull();
    await user.click(region.getByRole("button", { name: /^Send test message/ }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Test Message Sent", variant: "success" }));
  });

  it("an operator on the free plan has lab channels too", async () => {
    const { mock } = renderQueue(userOn("free", { isAdmin: true }), { [`GET ${CHANNEL_PATH}`]: { status: 200, body: { channel: null } } });
    expect(await (await channelRegion()).querySelector("input")).not.toBeNull();
    expect(callsTo(mock, CHANNEL_PATH)).toBe(1);
    expect(screen.queryByText(/with the Team plan/)).toBeNull();
  });

  it("the server's requires_upgrade: the invitation instead", async () => {
    renderQueue(userOn("team"), { [`GET ${CHANNEL_PATH}`]: { status: 403, body: { code: "requires_upgrade", message: "Lab channels come with the Team plan." } } });
    expect(await screen.findByRole("link", { name: "Team plan" })).toHaveAttribute("href", "/subscribe");
    expect(screen.queryByRole("region", { name: /Lab channel of/ })).toBeNull();
  });
});
