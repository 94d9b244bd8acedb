import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import type { EmailDigest, Rating, SearchTerm } from "./api";
import { DigestDialog } from "./DigestDialog";
import { SearchQueueCard, parseExcludeWords } from "./SearchQueueCard";
import { resetDashboard, searchTerms } from "./store";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "pro" as const };
const RATINGS_PATH = "/api/search-terms/t1/ratings";

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
  exclude: ["mouse"],
};

const DIGEST: EmailDigest = {
  id: "d1",
  userId: "u1",
  digestType: "immediate",
  searchTerm: "crispr  BASE editing",
  termId: "t1",
  aiSummary: null,
  sentAt: "2026-11-20T08:00:00Z",
  papersData: [
    { title: "Base editors in vivo", url: null, authors: "A", journal: null, abstract: "", source: "pubmed", relevanceScore: 0.9, paperKey: "doi:10.1/a" },
    { title: "Prime editing reach", url: null, authors: "B", journal: null, abstract: "", source: "arxiv", relevanceScore: 0.7, paperKey: "arxiv:2401.1" },
  ],
};

function rating(paperKey: string, title: string, verdict: Rating["verdict"]): Rating {
  return { paperKey, title, verdict, digestId: "d1", ratedAt: "2026-11-21T08:00:00Z", seeded: false };
}

/** A fake server keeping the term's ratings. */
function serveRatings(initial: Rating[]) {
  let stored = [...initial];
  const mock = stubFetch({
    [`GET ${RATINGS_PATH}`]: () => ({ status: 200, body: stored }),
    [`PUT ${RATINGS_PATH}`]: (body) => {
      const { paperKey, verdict } = body as { paperKey: string; verdict: Rating["verdict"] };
      const title = paperKey === "doi:10.1/a" ? "Base editors in vivo" : "Prime editing reach";
      stored = [rating(paperKey, title, verdict), ...stored.filter((kept) => kept.paperKey !== paperKey)];
      return { status: 200, body: stored[0] };
    },
    [`DELETE ${RATINGS_PATH}`]: (): Reply => {
      const removed = mock.mock.calls.at(-1)?.[0];
      const paperKey = new URL(String(removed), "http://localhost").searchParams.get("paperKey");
      stored = stored.filter((kept) => kept.paperKey !== paperKey);
      return { status: 200, body: { success: true } };
    },
  });
  return { mock, stored: () => stored };
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("rating papers in the digest dialog", () => {
  it("shows the term's verdict pressed, records another, and removes it when pressed again", async () => {
    const server = serveRatings([rating("doi:10.1/a", "Base editors in vivo", "relevant")]);
    searchTerms.value = [TERM];
    const user = userEvent.setup();
    renderRoute(<DigestDialog digest={DIGEST} open onOpenChange={() => {}} />, { at: "/dashboard", routePath: "/dashboard" });

    const first = within(await screen.findByRole("group", { name: "Rate Base editors in vivo" }));
    await waitFor(() => expect(first.getByRole("button", { name: "Relevant" })).toHaveAttribute("aria-pressed", "true"));
    expect(first.getByRole("button", { name: "Not relevant" })).toHaveAttribute("aria-pressed", "false");

    const second = within(screen.getByRole("group", { name: "Rate Prime editing reach" }));
    await user.click(second.getByRole("button", { name: "More like this" }));
    await waitFor(() => expect(second.getByRole("button", { name: "More like this" })).toHaveAttribute("aria-pressed", "true"));
    const put = server.mock.mock.calls.find(([, init]) => init?.method === "PUT");
    expect(JSON.parse(String(put?.[1]?.body))).toEqual({ digestId: "d1", paperKey: "arxiv:2401.1", verdict: "moreLikeThis" });

    await user.click(first.getByRole("button", { name: "Relevant" }));
    await waitFor(() => expect(first.getByRole("button", { name: "Relevant" })).toHaveAttribute("aria-pressed", "false"));
    expect(server.stored().map((kept) => kept.paperKey)).toEqual(["arxiv:2401.1"]);
  });

  it("offers no buttons for a digest whose term is gone", async () => {
    stubFetch({});
    searchTerms.value = [];
    renderRoute(<DigestDialog digest={DIGEST} open onOpenChange={() => {}} />, { at: "/dashboard", routePath: "/dashboard" });
    expect(await screen.findByText("Base editors in vivo")).toBeInTheDocument();
    expect(screen.queryByRole("group", { name: /^Rate / })).not.toBeInTheDocument();
  });

  it("offers no buttons when the term of that text is another one (deleted and added again)", async () => {
    stubFetch({});
    searchTerms.value = [{ ...TERM, id: "t2" }];
    renderRoute(<DigestDialog digest={DIGEST} open onOpenChange={() => {}} />, { at: "/dashboard", routePath: "/dashboard" });
    expect(await screen.findByText("Base editors in vivo")).toBeInTheDocument();
    expect(screen.queryByRole("group", { name: /^Rate / })).not.toBeInTheDocument();
  });

  it("says so when a rating is refused", async () => {
    stubFetch({ [`GET ${RATINGS_PATH}`]: { status: 200, body: [] }, [`PUT ${RATINGS_PATH}`]: { status: 404, body: { message: "Digest not found" } } });
    searchTerms.value = [TERM];
    const user = userEvent.setup();
    renderRoute(<DigestDialog digest={DIGEST} open onOpenChange={() => {}} />, { at: "/dashboard", routePath: "/dashboard" });
    const first = within(await screen.findByRole("group", { name: "Rate Base editors in vivo" }));
    await user.click(first.getByRole("button", { name: "Not relevant" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Rating Failed"));
    expect(latestToast()?.description).toBe("Digest not found");
    expect(first.getByRole("button", { name: "Not relevant" })).toHaveAttribute("aria-pressed", "false");
  });
});

describe("a term's ratings on the dashboard", () => {
  it("lists them under 'Ratings (n)' and removes one", async () => {
    serveRatings([rating("arxiv:2401.1", "Prime editing reach", "notRelevant"), rating("doi:10.1/a", "Base editors in vivo", "relevant")]);
    searchTerms.value = [TERM];
    const user = userEvent.setup();
    renderRoute(<SearchQueueCard user={USER} />, { at: "/dashboard", routePath: "/dashboard" });
    expect(screen.getByText("Excludes: mouse")).toBeInTheDocument();

    await user.click(await screen.findByRole("button", { name: "Ratings (2)" }));
    const list = within(screen.getByRole("list", { name: "Ratings of CRISPR base editing" }));
    expect(list.getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      expect.stringContaining("Prime editing reachNot relevant"),
      expect.stringContaining("Base editors in vivoRelevant"),
    ]);
    await user.click(list.getByRole("button", { name: "Remove rating of Prime editing reach" }));
    expect(await screen.findByRole("button", { name: "Ratings (1)" })).toBeInTheDocument();
    expect(latestToast()?.title).toBe("Rating Removed");
  });
});

describe("exclusion words in the term's edit form", () => {
  it("parses words at commas and spaces", () => {
    expect(parseExcludeWords(" mouse, in-vitro  zebrafish,,")).toEqual(["mouse", "in-vitro", "zebrafish"]);
    expect(parseExcludeWords("   ")).toEqual([]);
  });

  it("sends only the exclusion words when only they changed, and shows the server's message at the field", async () => {
    let answer: Reply = { status: 400, body: { message: "Each excluded word must be at least 2 characters", errors: [{ field: "exclude", message: "Each excluded word must be at least 2 characters" }] } };
    const mock = stubFetch({
      [`GET ${RATINGS_PATH}`]: { status: 200, body: [] },
      "PATCH /api/search-terms/t1": () => answer,
      "GET /api/users/u1/search-terms": { status: 200, body: [{ ...TERM, exclude: ["mouse", "rat"] }] },
    });
    searchTerms.value = [TERM];
    const user = userEvent.setup();
    renderRoute(<SearchQueueCard user={USER} />, { at: "/dashboard", routePath: "/dashboard" });
    await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
    const field = screen.getByRole("textbox", { name: "Exclude words" });
    expect(field).toHaveValue("mouse");
    await user.clear(field);
    await user.type(field, "mouse, x");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Each excluded word must be at least 2 characters");
    expect(requestBody(mock, "/api/search-terms/t1")).toEqual({ exclude: ["mouse", "x"] });

    answer = { status: 200, body: { ...TERM, exclude: ["mouse", "rat"] } };
    await user.clear(field);
    await user.type(field, "mouse rat");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Excludes: mouse, rat")).toBeInTheDocument();
  });
});
