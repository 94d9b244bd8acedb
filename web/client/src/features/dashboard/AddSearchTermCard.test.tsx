import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { trackEvent } from "@/lib/analytics";
import { resetAppConfig } from "@/state/config";
import type { Tier } from "@/state/session";
import { RESTORE_TOAST_DURATION_MS, QUEUED_TOAST_DURATION_MS, toasts, type ToastItem } from "@/state/toast";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import { AddSearchTermCard } from "./AddSearchTermCard";
import type { SearchTerm } from "./api";
import { SearchQueueCard } from "./SearchQueueCard";
import { digests, preferences, resetDashboard, searchTerms } from "./store";
import type { EmailDigest, Preferences } from "./api";

vi.mock("@/lib/analytics", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/analytics")>()),
  trackEvent: vi.fn(() => true),
}));

const TERM = "CRISPR base editing";
const TERMS_PATH = "/api/users/u1/search-terms";
const DIGESTS_PATH = "/api/users/u1/digests";

const userOn = (tier: Tier) => ({ id: "u1", email: "ada@example.org", subscriptionTier: tier });

function term(overrides: Partial<SearchTerm> = {}): SearchTerm {
  return {
    id: "t1",
    userId: "u1",
    term: TERM,
    isActive: true,
    isFree: true,
    status: "completed",
    lastProcessedAt: null,
    nextScheduledRun: null,
    createdAt: "2026-11-01T09:00:00Z",
    ...overrides,
  };
}

/** The add card above the queue, as on the dashboard. */
function renderCards({ tier = "free", at = "/dashboard", strict = false }: { tier?: Tier; at?: string; strict?: boolean } = {}) {
  const user = userEvent.setup();
  const signedIn = userOn(tier);
  renderRoute(
    <>
      <AddSearchTermCard user={signedIn} />
      <SearchQueueCard user={signedIn} />
    </>,
    { at, routePath: "/dashboard", strict },
  );
  return user;
}

/** Answers the immediate search with `reply` and the queue with what the server would then hold. */
function serveSearch(reply: Reply, termsAfter: SearchTerm[] = [], { billingEnabled = false } = {}) {
  return stubFetch({
    "GET /api/config": { status: 200, body: { supportEmail: "help@example.org", analytics: null, billingEnabled } },
    "POST /api/immediate-search": reply,
    [`GET ${TERMS_PATH}`]: { status: 200, body: termsAfter },
    [`GET ${DIGESTS_PATH}`]: { status: 200, body: [] },
  });
}

const input = () => screen.getByRole("textbox", { name: "Research topic" });
const location = () => screen.getByTestId("location").textContent;

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
  resetAppConfig();
});
afterEach(() => vi.unstubAllGlobals());

describe("AddSearchTermCard", () => {
  it("says how much of the plan is used", () => {
    stubFetch({});
    searchTerms.value = [term()];
    renderCards();
    expect(screen.getByRole("heading", { name: "Add New Search Term", level: 2 })).toBeInTheDocument();
    expect(screen.getByText("1 of 1 search terms used on the Free plan")).toBeInTheDocument();
  });

  describe("when the first digest comes", () => {
    const FIRST_DIGEST = /^Your first digest is emailed as soon as you add a search term; after that, a new one arrives every/;

    it("without a digest yet: at once for a new term, then weekly on the delivery day", () => {
      stubFetch({});
      digests.value = [];
      preferences.value = { deliveryDay: "monday" } as Preferences;
      renderCards();
      expect(screen.getByText(FIRST_DIGEST)).toHaveTextContent(
        "Your first digest is emailed as soon as you add a search term; after that, a new one arrives every Monday.",
      );
      expect(screen.queryByText(/within a week/)).not.toBeInTheDocument();
    });

    it("says 'on your delivery day' until the preferences are loaded", () => {
      stubFetch({});
      digests.value = [];
      renderCards();
      expect(screen.getByText(FIRST_DIGEST)).toHaveTextContent("every week on your delivery day.");
    });

    it("is gone once the user has a digest, and while the digests are loading", () => {
      stubFetch({});
      renderCards();
      expect(screen.queryByText(FIRST_DIGEST)).not.toBeInTheDocument();
      act(() => {
        digests.value = [{ id: "d1" } as EmailDigest];
      });
      expect(screen.queryByText(FIRST_DIGEST)).not.toBeInTheDocument();
      act(() => {
        digests.value = [];
      });
      expect(screen.getByText(FIRST_DIGEST)).toBeInTheDocument();
    });
  });

  it("counts the active terms against the paid plan's limit", () => {
    stubFetch({});
    searchTerms.value = [term(), term({ id: "t2", term: "prime editing" }), term({ id: "t3", term: "base editors", isActive: false })];
    renderCards({ tier: "pro" });
    expect(screen.getByText("2 of 5 search terms used on the Pro plan")).toBeInTheDocument();
  });

  it("ignores a blank term: Add is disabled and Enter sends nothing", async () => {
    const fetchMock = stubFetch({});
    const user = renderCards();
    expect(screen.getByRole("button", { name: "Add" })).toBeDisabled();
    await user.type(input(), "   {Enter}");
    expect(screen.getByRole("button", { name: "Add" })).toBeDisabled();
    expect(callsTo(fetchMock, "/api/immediate-search")).toBe(0);
    expect(latestToast()).toBeUndefined();
  });

  it("does not cap the length, so the server's own message can be shown", () => {
    stubFetch({});
    renderCards();
    expect(input()).not.toHaveAttribute("maxLength");
  });

  it("Enter searches at once; the queue shows 'Searching...' until the search completes", async () => {
    let finishSearch: (reply: Reply) => void = () => {};
    let serverTerms: SearchTerm[] = [];
    const fetchMock = stubFetch({
      "POST /api/immediate-search": () => {
        serverTerms = [term({ status: "processing" })];
        return new Promise<Reply>((resolve) => {
          finishSearch = resolve;
        });
      },
      [`GET ${TERMS_PATH}`]: () => ({ status: 200, body: serverTerms }),
      [`GET ${DIGESTS_PATH}`]: { status: 200, body: [] },
    });
    searchTerms.value = [];
    const user = renderCards();
    await user.type(input(), `  ${TERM} {Enter}`);

    expect(requestBody(fetchMock, "/api/immediate-search")).toEqual({ email: "ada@example.org", searchTerm: TERM });
    expect(latestToast()).toMatchObject({ title: "Search Queued", durationMs: QUEUED_TOAST_DURATION_MS });
    expect(latestToast()?.description).toMatch(/email you the digest/);
    expect(input()).toHaveValue("");
    expect(screen.getByRole("button", { name: "Searching..." })).toBeDisabled();
    expect(await screen.findByText("Searching...", { selector: "span" })).toBeInTheDocument();
    expect(screen.getByText(TERM)).toBeInTheDocument();

    serverTerms = [term({ status: "completed", lastProcessedAt: "2026-11-14T06:00:00Z" })];
    finishSearch({ status: 200, body: { success: true, searchTerm: TERM, papersFound: 12 } });

    expect(await screen.findByText("Complete")).toBeInTheDocument();
    expect(latestToast()).toMatchObject({ title: "Search Complete!", description: "Check your email for the research digest!", variant: "success" });
    expect(screen.getByRole("button", { name: "Add" })).toBeInTheDocument();
    expect(vi.mocked(trackEvent)).toHaveBeenCalledWith("search_added");
    await waitFor(() => expect(callsTo(fetchMock, DIGESTS_PATH)).toBe(1));
  });

  it("the Add button submits too", async () => {
    const fetchMock = serveSearch({ status: 200, body: { success: true } }, [term()]);
    const user = renderCards();
    await user.type(input(), TERM);
    await user.click(screen.getByRole("button", { name: "Add" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Search Complete!"));
    expect(callsTo(fetchMock, "/api/immediate-search")).toBe(1);
  });

  it("403 requiresSupport: 'Maximum Searches Reached' with the server's message", async () => {
    const message = "You have reached the maximum of 10 search terms on the Team plan. Contact support to add more.";
    const fetchMock = serveSearch({ status: 403, body: { message, requiresSupport: true } });
    const user = renderCards({ tier: "team" });
    await user.type(input(), `${TERM}{Enter}`);

    await waitFor(() => expect(latestToast()?.title).toBe("Maximum Searches Reached"));
    expect(latestToast()).toMatchObject({ description: message, variant: "destructive" });
    expect(input()).toHaveValue(TERM);
    expect(location()).toBe("/dashboard");
    await waitFor(() => expect(callsTo(fetchMock, TERMS_PATH)).toBeGreaterThanOrEqual(2));
  });

  it.each([
    [1, "pro"],
    [4, "pro"],
    [5, "team"],
  ])("billing on, 402 requiresPayment with %i terms: keeps the term and goes to /subscribe?tier=%s", async (currentCount, tier) => {
    const message = "Your Free plan includes 1 search term. Upgrade your plan to add more.";
    serveSearch({ status: 402, body: { message, requiresPayment: true, currentCount } }, [], { billingEnabled: true });
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);

    expect(await screen.findByRole("heading", { name: "/subscribe page" })).toBeInTheDocument();
    expect(location()).toBe(`/subscribe?tier=${tier}`);
    expect(sessionStorage.getItem("pendingSearch")).toBe(TERM);
    expect(latestToast()).toMatchObject({ title: "Subscription Required", description: message, variant: "destructive" });
  });

  it("billing off, 402: goes to /subscribe, and the refused term is not offered again on coming back", async () => {
    const message = "Your Free plan includes 1 search term.";
    serveSearch({ status: 402, body: { message, requiresPayment: true, currentCount: 1 } });
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);

    expect(await screen.findByRole("heading", { name: "/subscribe page" })).toBeInTheDocument();
    expect(location()).toBe("/subscribe?tier=pro");
    expect(latestToast()).toMatchObject({ title: "Subscription Required", description: message });
    expect(sessionStorage.getItem("pendingSearch")).toBeNull();
    expect(sessionStorage.getItem("pendingSearchTerm")).toBeNull();

    cleanup();
    resetToasts();
    renderCards();
    expect(input()).toHaveValue("");
    expect(latestToast()).toBeUndefined();
  });

  it("free digests used: 'Search Term Saved' with the server's message, not 'Search Complete!'", async () => {
    const message = "Your search term is saved. Your free plan's 2 digests have been used, so no digest was sent.";
    serveSearch({ status: 200, body: { success: true, searchTerm: TERM, termId: "t1", digestId: null, papersFound: 0, digestSent: false, message } }, [
      term(),
    ]);
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);
    await waitFor(() => expect(latestToast()?.title).toBe("Search Term Saved"));
    expect(latestToast()?.description).toBe(message);
    expect(await screen.findByText("Complete")).toBeInTheDocument();
  });

  it("a week without papers: 'Search Complete!' with the server's words", async () => {
    const message = "No new papers about CRISPR base editing this week.";
    serveSearch({ status: 200, body: { success: true, searchTerm: TERM, termId: "t1", digestId: "d1", papersFound: 0, digestSent: true, message } });
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Search Complete!", description: message }));
  });

  it("asks who is signed in again after a search, so the free digests count follows", async () => {
    const fetchMock = serveSearch({ status: 200, body: { success: true, searchTerm: TERM, papersFound: 3, digestSent: true, message: "ok" } });
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);
    await waitFor(() => expect(callsTo(fetchMock, "/api/auth/me")).toBe(1));
  });

  it("a term the server refuses as text: its message at the field, tied to the input", async () => {
    const message = "Search term contains invalid characters or patterns";
    serveSearch({ status: 400, body: { message, code: "validation_failed", errors: [{ field: "searchTerm", message }] } });
    const user = renderCards();
    // A term the page's own rules let through (the server has the last word).
    await user.type(input(), "cancer screening{Enter}");

    const fieldMessage = await screen.findByRole("alert");
    expect(fieldMessage).toHaveTextContent(message);
    expect(input()).toHaveValue("cancer screening");
    expect(input()).toHaveAttribute("aria-invalid", "true");
    expect(input()).toHaveAttribute("aria-describedby", fieldMessage.id);
    expect(latestToast()).toMatchObject({ title: "Search Failed", description: message });

    await user.type(input(), "x");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(input()).not.toHaveAttribute("aria-invalid");
  });

  it("a topic the user follows already (409): the server's message at the field and in a toast, no digest", async () => {
    const message = `You already follow “${TERM}”: it is in your search terms.`;
    const fetchMock = serveSearch({ status: 409, body: { message, code: "term_already_followed", termId: "t1" } });
    const user = renderCards();
    await user.type(input(), `  ${TERM.toUpperCase()} {Enter}`);

    const fieldMessage = await screen.findByRole("alert");
    expect(fieldMessage).toHaveTextContent(message);
    expect(latestToast()).toMatchObject({ title: "Already in Your Search Terms", description: message });
    expect(latestToast()?.title).not.toBe("Search Complete!");
    expect(callsTo(fetchMock, DIGESTS_PATH)).toBe(0);
    expect(vi.mocked(trackEvent)).not.toHaveBeenCalled();
  });

  it.each([
    ["<b>x</b>", "Search term contains invalid characters or patterns"],
    ["ab", "Search term must be at least 3 characters"],
    ["50% survival", "Search term contains unsupported characters"],
  ])("a term the rules refuse (%j): their message at the field, and nothing is sent", async (typed, message) => {
    const fetchMock = serveSearch({ status: 200, body: { success: true } });
    const user = renderCards();
    await user.type(input(), `${typed}{Enter}`);
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
    expect(input()).toHaveValue(typed);
    expect(callsTo(fetchMock, "/api/immediate-search")).toBe(0);
  });

  it("a kept term the rules refuse comes back with their message at the field, not 'Search term restored'", () => {
    stubFetch({});
    sessionStorage.setItem("pendingSearch", "<b>x</b>");
    renderCards();
    expect(input()).toHaveValue("<b>x</b>");
    expect(screen.getByRole("alert")).toHaveTextContent("Search term contains invalid characters or patterns");
    expect(latestToast()).toBeUndefined();
  });

  it("any other failure: 'Search Failed' with the server's message, the term back in the input and the queue reloaded", async () => {
    const fetchMock = serveSearch({ status: 400, body: { message: "Search term contains invalid characters or patterns" } }, [
      term({ status: "failed" }),
    ]);
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);

    await waitFor(() => expect(latestToast()?.title).toBe("Search Failed"));
    expect(latestToast()).toMatchObject({ description: "Search term contains invalid characters or patterns", variant: "destructive" });
    expect(input()).toHaveValue(TERM);
    expect(await screen.findByText("Failed")).toBeInTheDocument();
    expect(callsTo(fetchMock, DIGESTS_PATH)).toBe(0);
    expect(vi.mocked(trackEvent)).not.toHaveBeenCalled();
  });

  it("a failure without a message: 'Failed to perform search'", async () => {
    serveSearch({ status: 502 });
    const user = renderCards();
    await user.type(input(), `${TERM}{Enter}`);
    await waitFor(() => expect(latestToast()?.title).toBe("Search Failed"));
    expect(latestToast()?.description).toBe("Failed to perform search");
  });

  describe("restoring a pending term", () => {
    it.each(["pendingSearch", "pendingSearchTerm"])("from session storage under %s", (key) => {
      stubFetch({});
      sessionStorage.setItem(key, TERM);
      renderCards();
      expect(input()).toHaveValue(TERM);
      // Kept until it is added, so that a trip away (to pay for a plan) and back restores it again.
      expect(sessionStorage.getItem("pendingSearch")).toBe(TERM);
      expect(latestToast()).toMatchObject({
        title: "Search term restored",
        description: `Click Add to search for "${TERM}".`,
        durationMs: RESTORE_TOAST_DURATION_MS,
      });
      expect(RESTORE_TOAST_DURATION_MS).toBe(8000);
    });

    it("from ?pendingSearch=, which is then dropped from the address", async () => {
      stubFetch({});
      renderCards({ at: `/dashboard?email=ada%40example.org&pendingSearch=${encodeURIComponent(TERM)}` });
      expect(input()).toHaveValue(TERM);
      expect(latestToast()).toMatchObject({ title: "Search term restored", durationMs: 8000 });
      await waitFor(() => expect(location()).toBe("/dashboard?email=ada%40example.org"));
    });

    it("once, under StrictMode", async () => {
      stubFetch({});
      const shown: ToastItem[] = [];
      const stopWatching = toasts.subscribe((items) => shown.push(...items.filter((item) => !shown.some((seen) => seen.id === item.id))));
      renderCards({ at: `/dashboard?pendingSearch=${encodeURIComponent(TERM)}`, strict: true });
      await waitFor(() => expect(location()).toBe("/dashboard"));
      stopWatching();
      expect(shown.map((item) => item.title)).toEqual(["Search term restored"]);
      expect(input()).toHaveValue(TERM);
    });

    it("kept as edited until it is added; emptied, it is dropped", async () => {
      serveSearch({ status: 200, body: { success: true, searchTerm: "CRISPR prime editing", digestSent: true, papersFound: 3 } }, []);
      sessionStorage.setItem("pendingSearch", TERM);
      const user = renderCards();
      await user.clear(input());
      expect(sessionStorage.getItem("pendingSearch")).toBeNull();
      await user.type(input(), "CRISPR prime editing");
      expect(sessionStorage.getItem("pendingSearch")).toBe("CRISPR prime editing");
      await user.click(screen.getByRole("button", { name: "Add" }));
      await waitFor(() => expect(latestToast()?.title).toBe("Search Complete!"));
      expect(sessionStorage.getItem("pendingSearch")).toBeNull();
    });

    it("left without adding it: the toast goes with the card, and the next visit restores the term again", async () => {
      stubFetch({});
      sessionStorage.setItem("pendingSearch", TERM);
      renderCards();
      expect(latestToast()).toMatchObject({ title: "Search term restored", open: true });
      cleanup();
      await waitFor(() => expect(latestToast()?.open).toBe(false));
      resetToasts();
      renderCards();
      expect(input()).toHaveValue(TERM);
      expect(latestToast()).toMatchObject({ title: "Search term restored", open: true });
    });

    it("nothing pending: an empty input and no toast", () => {
      stubFetch({});
      renderCards();
      expect(input()).toHaveValue("");
      expect(latestToast()).toBeUndefined();
    });
  });
});

describe("AddSearchTermCard: seed papers", () => {
  const SEEDED = [
    { givenAs: "10.1/a", paperKey: "doi:10.1/a", title: "Base editors in vivo", authors: "A", year: 2024, source: "pubmed", foundIn: "index" },
    { givenAs: "2106.09685", paperKey: "arxiv:2106.09685", title: "Prime editing reach", authors: "B", year: 2021, source: "arxiv", foundIn: "source" },
  ];
  const seedsToggle = () => screen.getByRole("button", { name: "Seed it with papers you know (optional)" });
  const seedIds = () => screen.getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" });

  it("is folded away, and sends no seeds when none were given", async () => {
    const fetchMock = serveSearch({ status: 200, body: { success: true, seeded: [] } }, [term()]);
    const user = renderCards();
    expect(seedsToggle()).toHaveAttribute("aria-expanded", "false");
    await user.click(seedsToggle());
    await user.type(input(), `${TERM}{Enter}`);
    await waitFor(() => expect(latestToast()?.title).toBe("Search Complete!"));
    expect(requestBody(fetchMock, "/api/immediate-search")).toEqual({ email: "ada@example.org", searchTerm: TERM });
    expect(screen.queryByText(/Seeded from/)).toBeNull();
  });

  it("sends the pasted identifiers and the file's text as seeds, then lists what was found", async () => {
    const fetchMock = serveSearch({ status: 200, body: { success: true, searchTerm: TERM, papersFound: 3, seeded: SEEDED } }, [term()]);
    const user = renderCards();
    await user.click(seedsToggle());
    await user.type(seedIds(), "10.1/a{Enter}2106.09685");
    await user.upload(screen.getByLabelText("Or a BibTeX or RIS file"), new File(["TY  - JOUR\nDO  - 10.1/b\nER  - \n"], "refs.ris"));
    await screen.findByText("refs.ris");
    await user.type(input(), `${TERM}{Enter}`);

    const found = (await screen.findByText("Seeded from 2 papers:")).closest("[role=status]") as HTMLElement;
    expect(requestBody(fetchMock, "/api/immediate-search")).toEqual({
      email: "ada@example.org",
      searchTerm: TERM,
      seeds: { ids: "10.1/a\n2106.09685", file: "TY  - JOUR\nDO  - 10.1/b\nER  - \n" },
    });
    expect(found).toHaveTextContent("Seeded from 2 papers:");
    expect(within(found).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Base editors in vivo(found in Papertide)",
      "Prime editing reach(looked up at arXiv)",
    ]);
    // Given once: the next term starts without them.
    expect(seedIds()).toHaveValue("");
    expect(screen.queryByText(/Chosen file:/)).toBeNull();
  });

  it("a bad seed refuses the term: each message listed under the seeds, the term and seeds kept to correct", async () => {
    const errors = ['Line 2 ("foo"): Not a DOI, PMID or arXiv id', "PMID 99999999 was not found"];
    const fetchMock = serveSearch({
      status: 400,
      body: { code: "validation_failed", message: "Some seed papers could not be used.", errors: errors.map((message) => ({ field: "seeds", message })) },
    });
    const user = renderCards();
    await user.click(seedsToggle());
    await user.type(seedIds(), "10.1/a{Enter}foo{Enter}99999999");
    await user.type(input(), `${TERM}{Enter}`);

    const list = await screen.findByRole("list", { name: "Problems with the seed papers" });
    expect(list.closest("[role=alert]")).not.toBeNull();
    expect(within(list).getAllByRole("listitem").map((item) => item.textContent)).toEqual(errors);
    expect(latestToast()).toMatchObject({ title: "Search Failed", description: "Some seed papers could not be used.", variant: "destructive" });
    expect(input()).toHaveValue(TERM);
    expect(seedIds()).toHaveValue("10.1/a\nfoo\n99999999");
    expect(seedIds()).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByText(/Seeded from/)).toBeNull();
    expect(callsTo(fetchMock, "/api/immediate-search")).toBe(1);
  });
});
