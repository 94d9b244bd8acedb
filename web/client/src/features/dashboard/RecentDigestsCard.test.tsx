import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { trackEvent } from "@/lib/analytics";
import type { CurrentUser } from "@/state/session";
import { Toaster } from "@/components/ui/Toaster";
import { callsTo, held, latestToast, polyfillBrowserApis, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";
import { widenedNote, type DigestPaper, type EmailDigest } from "./api";
import { RecentDigestsCard } from "./RecentDigestsCard";
import { loadDigests, resetDashboard } from "./store";

vi.mock("@/lib/analytics", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/analytics")>()),
  trackEvent: vi.fn(() => true),
}));

const USER: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: "pro" };

function paper(overrides: Partial<DigestPaper>): DigestPaper {
  return {
    title: "A paper",
    url: "https://example.org/paper",
    authors: "A. Author",
    journal: null,
    abstract: "An abstract.",
    source: "pubmed",
    sources: ["pubmed"],
    relevanceScore: 0.5,
    summary: "",
    reason: "",
    retracted: false,
    links: [],
    ...overrides,
  };
}

const PAPERS: DigestPaper[] = [
  paper({
    title: "Base editing in primary T cells",
    url: "https://doi.org/10.1000/base-editing",
    authors: "Ada Lovelace, Grace Hopper",
    journal: "Nature Biotechnology",
    relevanceScore: 0.874,
    summary: "Base editors corrected the mutation in most cells.",
    reason: "Matches 'base editing' in the title.",
    links: [
      ["DOI", "https://doi.org/10.1000/base-editing"],
      ["PubMed", "https://pubmed.ncbi.nlm.nih.gov/123/"],
    ],
  }),
  paper({ title: "Prime editing off-target effects", source: "pubmed", relevanceScore: 0.61, retracted: true }),
  paper({ title: "A CRISPR screen preprint", source: "arxiv", sources: ["arxiv"], relevanceScore: 0.455 }),
  paper({ title: "Guide RNA design for medRxiv", source: "medrxiv", sources: ["medrxiv"], relevanceScore: 0.2, url: null }),
];

function digest(overrides: Partial<EmailDigest>): EmailDigest {
  return {
    id: "d1",
    userId: "u1",
    digestType: "weekly",
    papersData: PAPERS,
    searchTerm: "CRISPR base editing",
    searchedAs: "CRISPR base editing OR base editor OR prime editing",
    aiSummary: "Base editing moves into primary cells.\n\nOff-target effects remain the main concern.",
    subject: "Your weekly digest",
    status: "sent",
    sentAt: "2026-11-21T09:00:00Z",
    ...overrides,
  };
}

/** Five digests, newest first, as the server lists them. */
const FIVE: EmailDigest[] = [
  digest({ id: "d5", searchTerm: "CRISPR base editing", sentAt: "2026-11-21T09:00:00Z" }),
  digest({ id: "d4", searchTerm: "protein folding", digestType: "immediate", sentAt: "2026-11-14T09:00:00Z", papersData: JSON.stringify(PAPERS.slice(0, 1)) }),
  digest({ id: "d3", searchTerm: "sleep and memory", sentAt: "2026-03-02T23:30:00Z", papersData: [] }),
  digest({ id: "d2", searchTerm: "older term", sentAt: "2026-02-01T09:00:00Z" }),
  digest({ id: "d1", searchTerm: "oldest term", sentAt: "2026-01-01T09:00:00Z" }),
];

type Handlers = Parameters<typeof stubFetch>[0];

async function showCard(digestsReply: Handlers[string], extra: Handlers = {}, { withToaster = false } = {}) {
  const fetchMock = stubFetch({ "GET /api/users/u1/digests": digestsReply, ...extra });
  render(
    <>
      <RecentDigestsCard user={USER} />
      {withToaster ? <Toaster /> : null}
    </>,
  );
  await act(() => loadDigests("u1"));
  return { fetchMock, user: userEvent.setup() };
}

async function openDigest(user: ReturnType<typeof userEvent.setup>, term: string) {
  await user.click(screen.getByRole("button", { name: new RegExp(term) }));
  return screen.findByRole("dialog", { name: term });
}

/** The value shown under a statistic's label. */
function statistic(dialog: HTMLElement, label: string) {
  return within(within(dialog).getByRole("region", { name: "Statistics" })).getByText(label).nextElementSibling?.textContent;
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("RecentDigestsCard", () => {
  it("shows a spinner until the digests are loaded", () => {
    render(<RecentDigestsCard user={USER} />);
    expect(screen.getByRole("heading", { name: "Recent Email Digests" })).toBeInTheDocument();
    expect(screen.getByRole("status", { name: "Loading your digests" })).toBeInTheDocument();
  });

  it("says why when the digests could not be loaded", async () => {
    await showCard({ status: 500, body: { message: "Database unavailable" } });
    expect(await screen.findByRole("alert")).toHaveTextContent("Database unavailable");
    expect(screen.queryByRole("status", { name: "Loading your digests" })).not.toBeInTheDocument();
  });

  it("without digests: says a term's first digest is emailed at once", async () => {
    await showCard({ status: 200, body: [] });
    expect(await screen.findByText("No digests yet")).toBeInTheDocument();
    expect(screen.getByText("When you add a search term, its first digest is emailed at once and listed here.")).toBeInTheDocument();
    expect(screen.queryByText(/within a week/)).not.toBeInTheDocument();
  });

  it("lists the newest 3 of 5 digests with papers, newest first, with date, paper count and type", async () => {
    await showCard({ status: 200, body: FIVE });
    const items = await screen.findAllByRole("listitem");
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent("CRISPR base editing");
    expect(items[0]).toHaveTextContent("November 21, 2026");
    expect(items[0]).toHaveTextContent("4 papers");
    expect(items[0]).toHaveTextContent("Weekly");
    // papersData as a JSON string counts the same.
    expect(items[1]).toHaveTextContent("protein folding");
    expect(items[1]).toHaveTextContent("November 14, 2026");
    expect(items[1]).toHaveTextContent("1 paper");
    expect(items[1]).toHaveTextContent("Immediate");
    // The empty-week notice between them does not push an older digest with papers out.
    expect(items[2]).toHaveTextContent("older term");
    expect(screen.queryByText("sleep and memory")).not.toBeInTheDocument();
    expect(screen.queryByText("oldest term")).not.toBeInTheDocument();
  });

  it("shows every digest, the notices included, on asking, and fewer again", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    await user.click(await screen.findByRole("button", { name: "Show all 5 digests (1 without new papers)" }));
    const items = screen.getAllByRole("listitem");
    expect(items).toHaveLength(5);
    ["CRISPR base editing", "protein folding", "sleep and memory", "older term", "oldest term"].forEach((term, index) => expect(items[index]).toHaveTextContent(term));
    // Dates are the UTC day, whatever the reader's zone.
    expect(items[2]).toHaveTextContent("March 2, 2026");
    // A digest without papers is the empty-week notice, not a digest of 0 papers.
    expect(items[2]).toHaveTextContent("No new papers this week");
    expect(items[2]).not.toHaveTextContent("0 papers");
    await user.click(screen.getByRole("button", { name: "Show only the latest digests" }));
    expect(screen.getAllByRole("listitem")).toHaveLength(3);
  });

  it("while no digest has papers, lists the latest three notices with no button", async () => {
    const notices = [1, 2, 3].map((n) => digest({ id: `n${n}`, searchTerm: `quiet topic ${n}`, papersData: [] }));
    await showCard({ status: 200, body: notices });
    expect(await screen.findAllByRole("listitem")).toHaveLength(3);
    expect(screen.queryByRole("button", { name: /Show all/ })).not.toBeInTheDocument();
  });

  it("opens the digest dialog and reports email_digest_viewed", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    expect(trackEvent).not.toHaveBeenCalled();
    const dialog = await openDigest(user, "CRISPR base editing");
    expect(trackEvent).toHaveBeenCalledTimes(1);
    expect(trackEvent).toHaveBeenCalledWith("email_digest_viewed");
    expect(dialog).toHaveTextContent("Searched as: CRISPR base editing OR base editor OR prime editing");

    const summary = within(dialog).getByRole("region", { name: "AI Research Summary" });
    expect(within(summary).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Base editing moves into primary cells.",
      "Off-target effects remain the main concern.",
    ]);

    const sources = within(dialog).getByRole("region", { name: "Sources" });
    expect(within(sources).getAllByRole("listitem").map((item) => item.textContent)).toEqual(["PubMed: 2", "arXiv: 1", "medRxiv: 1"]);

    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.getByRole("button", { name: /CRISPR base editing/ })).toHaveFocus();
  });

  it("shows each paper: linked title in a new tab, authors, journal, relevance percent, summary, reason, retraction", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    const dialog = await openDigest(user, "CRISPR base editing");

    const first = within(dialog).getByRole("article", { name: "Base editing in primary T cells" });
    const link = within(first).getByRole("link", { name: "Base editing in primary T cells" });
    expect(link).toHaveAttribute("href", "https://doi.org/10.1000/base-editing");
    expect(link).toHaveAttribute("target", "_blank");
    expect(link.getAttribute("rel")).toContain("noopener");
    expect(first).toHaveTextContent("Ada Lovelace, Grace Hopper");
    expect(first).toHaveTextContent("Nature Biotechnology");
    expect(first).toHaveTextContent("Relevance 87%");
    expect(first).toHaveTextContent("Base editors corrected the mutation in most cells.");
    expect(first).toHaveTextContent("Matches 'base editing' in the title.");
    expect(within(first).queryByText("Retracted")).not.toBeInTheDocument();
    // The other links, without repeating the title's.
    expect(within(first).getByRole("link", { name: "PubMed" })).toHaveAttribute("href", "https://pubmed.ncbi.nlm.nih.gov/123/");
    expect(within(first).queryByRole("link", { name: "DOI" })).not.toBeInTheDocument();

    const retracted = within(dialog).getByRole("article", { name: "Prime editing off-target effects" });
    expect(within(retracted).getByText("Retracted")).toBeInTheDocument();
    expect(retracted).toHaveTextContent("Relevance 61%");
    expect(within(dialog).getByRole("article", { name: "A CRISPR screen preprint" })).toHaveTextContent("Relevance 46%");

    const withoutUrl = within(dialog).getByRole("article", { name: "Guide RNA design for medRxiv" });
    expect(within(withoutUrl).queryByRole("link")).not.toBeInTheDocument();
  });

  it("shows the statistics: papers found, average and highest relevance, sent date", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    const dialog = await openDigest(user, "CRISPR base editing");
    expect(statistic(dialog, "Papers found")).toBe("4");
    // (0.874 + 0.61 + 0.455 + 0.2) / 4 = 0.53475
    expect(statistic(dialog, "Average relevance")).toBe("53%");
    expect(statistic(dialog, "Highest relevance")).toBe("87%");
    expect(statistic(dialog, "Sent")).toBe("November 21, 2026");
  });

  it("reads papersData sent as a JSON string", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    const dialog = await openDigest(user, "protein folding");
    expect(within(dialog).getByRole("link", { name: "Base editing in primary T cells" })).toBeInTheDocument();
    expect(within(within(dialog).getByRole("region", { name: "Sources" })).getByRole("listitem")).toHaveTextContent("PubMed: 1");
    expect(statistic(dialog, "Papers found")).toBe("1");
  });

  it("a digest without papers shows its summary and says no new papers matched", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    await user.click(await screen.findByRole("button", { name: /Show all/ }));
    const dialog = await openDigest(user, "sleep and memory");
    expect(within(dialog).getByText("Base editing moves into primary cells.")).toBeInTheDocument();
    expect(within(dialog).getByText("No new papers matched this week.")).toBeInTheDocument();
    expect(within(dialog).queryByRole("region", { name: "Sources" })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole("article")).not.toBeInTheDocument();
    expect(statistic(dialog, "Papers found")).toBe("0");
    expect(statistic(dialog, "Average relevance")).toBe("—");
  });

  it("a digest without papers says why in its mail's words when the server gives them", async () => {
    const reason = 'The 4 papers of the last 7 days that matched "sleep and memory" were all in your earlier digests, so there is nothing new to send.';
    const { user } = await showCard({ status: 200, body: [digest({ searchTerm: "sleep and memory", papersData: [], emptyReason: reason })] });
    const dialog = await openDigest(user, "sleep and memory");
    expect(within(dialog).getByText(reason)).toBeInTheDocument();
    expect(within(dialog).queryByText("No new papers matched this week.")).not.toBeInTheDocument();
  });

  it("a digest that looked past a quiet week says so first; a week's digest does not", async () => {
    const { user } = await showCard({ status: 200, body: [digest({ widened: { days: 30, newThisWeek: 0 } })] });
    const dialog = await openDigest(user, "CRISPR base editing");
    expect(within(dialog).getByRole("note")).toHaveTextContent("Nothing new this week; the most relevant from the last 30 days.");
    expect(widenedNote({ days: 90, newThisWeek: 2 })).toBe("Only 2 new papers this week; with them, the most relevant from the last 90 days.");
    expect(widenedNote({ days: 30, newThisWeek: 1 })).toBe("Only one new paper this week; with it, the most relevant from the last 30 days.");
    expect(widenedNote(null)).toBeNull();
  });

  it("a widened digest counts its papers as its mail does, never calling the month's papers this week's", async () => {
    const widened = [
      digest({ id: "w1", searchTerm: "gut flora", widened: { days: 90, newThisWeek: 2 } }),
      digest({ id: "w2", searchTerm: "sleep spindles", widened: { days: 30, newThisWeek: 0 } }),
      digest({ id: "w3", searchTerm: "dark matter halos", papersData: [], aiSummary: null, widened: { days: 90, newThisWeek: 0 } }),
    ];
    const { user } = await showCard({ status: 200, body: widened });
    await user.click(await screen.findByRole("button", { name: "Show all 3 digests (1 without new papers)" }));
    const items = await screen.findAllByRole("listitem");
    expect(items[0]).toHaveTextContent("4 papers (2 new this week)");
    expect(items[1]).toHaveTextContent("4 papers from the last 30 days");
    expect(items[2]).toHaveTextContent("No new papers in the last 90 days");
    expect(items[2]).not.toHaveTextContent("this week");

    const dialog = await openDigest(user, "gut flora");
    expect(within(dialog).getByRole("note")).toHaveTextContent("Only 2 new papers this week; with them, the most relevant from the last 90 days.");
    expect(statistic(dialog, "Papers found")).toBe("4");
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    const empty = await openDigest(user, "dark matter halos");
    expect(within(empty).getByText("No new papers matched in the last 90 days.")).toBeInTheDocument();
    expect(within(empty).queryByText("No new papers matched this week.")).not.toBeInTheDocument();
  });

  it("a week's digest has no note about the window", async () => {
    const { user } = await showCard({ status: 200, body: [digest({ widened: null })] });
    const dialog = await openDigest(user, "CRISPR base editing");
    expect(within(dialog).queryByRole("note")).not.toBeInTheDocument();
  });

  it("omits 'searched as' when the digest has none", async () => {
    const { user } = await showCard({ status: 200, body: [digest({ searchedAs: null })] });
    const dialog = await openDigest(user, "CRISPR base editing");
    expect(dialog).not.toHaveTextContent("Searched as");
  });

  it("resends the digest: 'Email Resent' and a reminder to check spam", async () => {
    let release: () => void = () => {};
    const { user, fetchMock } = await showCard(
      { status: 200, body: FIVE },
      {
        "POST /api/resend-email": () =>
          new Promise<Reply>((resolve) => {
            release = () => resolve({ status: 200, body: { success: true, searchTerm: "CRISPR base editing" } });
          }),
      },
    );
    const dialog = await openDigest(user, "CRISPR base editing");
    await user.click(within(dialog).getByRole("button", { name: "Resend email" }));
    const busy = within(dialog).getByRole("button", { name: "Sending..." });
    expect(busy).toHaveAttribute("aria-disabled", "true");
    await user.click(busy);
    release();
    await waitFor(() => expect(latestToast()?.title).toBe("Email Resent"));
    expect(latestToast()?.description).toBe("Check your inbox, and your spam folder if it does not arrive.");
    expect(requestBody(fetchMock, "/api/resend-email")).toEqual({ searchTerm: "CRISPR base editing" });
    expect(callsTo(fetchMock, "/api/resend-email")).toBe(1);
    expect(within(dialog).getByRole("button", { name: "Resend email" })).not.toHaveAttribute("aria-disabled", "true");
  });

  it("after a resend the focus stays on Resend email, and Escape still closes the dialog under the toast", async () => {
    const sending = held({ status: 200, body: { success: true, searchTerm: "CRISPR base editing" } });
    const { user } = await showCard({ status: 200, body: FIVE }, { "POST /api/resend-email": sending.handler }, { withToaster: true });
    const dialog = await openDigest(user, "CRISPR base editing");
    await user.click(within(dialog).getByRole("button", { name: "Resend email" }));
    // A disabled button would drop the focus to the page behind the dialog (browsers blur it).
    const busy = within(dialog).getByRole("button", { name: "Sending..." });
    expect(busy).toBeEnabled();
    expect(busy).toHaveFocus();
    sending.release();
    expect(await screen.findByText("Email Resent")).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole("button", { name: "Resend email" })).toHaveFocus());

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.getByRole("button", { name: /CRISPR base editing/ })).toHaveFocus();
  });

  it("keeps the dialog's actions at the bottom left, out of the toasts' bottom-right corner", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    const dialog = await openDigest(user, "CRISPR base editing");
    const actions = within(dialog).getByRole("button", { name: "Resend email" }).parentElement as HTMLElement;
    expect(actions).toHaveClass("justify-start");
    expect(actions).not.toHaveClass("justify-end");
  });

  it("a refused resend says 'Resend Failed' with the server's message", async () => {
    const { user } = await showCard(
      { status: 200, body: FIVE },
      { "POST /api/resend-email": { status: 429, body: { message: "Too many requests. Please wait a minute." } } },
    );
    const dialog = await openDigest(user, "protein folding");
    await user.click(within(dialog).getByRole("button", { name: "Resend email" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Resend Failed"));
    expect(latestToast()?.description).toBe("Too many requests. Please wait a minute.");
    expect(latestToast()?.variant).toBe("destructive");
  });
});

describe("citations of digests", () => {
  const COINS = "ctx_ver=Z39.88-2004&rft_val_fmt=info%3Aofi%2Ffmt%3Akev%3Amtx%3Ajournal&rft.atitle=Base+editing";

  it("lists 'Download citations: RIS · BibTeX' under each digest with papers, and none under a notice", async () => {
    const { user } = await showCard({ status: 200, body: FIVE });
    await screen.findAllByRole("listitem");
    const ris = screen.getByRole("link", { name: "RIS citations of CRISPR base editing (November 21, 2026)" });
    expect(ris).toHaveAttribute("href", "/api/digests/d5/citations?format=ris");
    expect(ris).toHaveAttribute("download");
    expect(screen.getByRole("link", { name: "BibTeX citations of CRISPR base editing (November 21, 2026)" })).toHaveAttribute(
      "href",
      "/api/digests/d5/citations?format=bibtex",
    );
    expect(ris.closest("p")).toHaveTextContent("Download citations: RIS · BibTeX");
    expect(screen.getByRole("link", { name: "RIS citations of protein folding (November 14, 2026)" })).toHaveAttribute(
      "href",
      "/api/digests/d4/citations?format=ris",
    );

    await user.click(screen.getByRole("button", { name: "Show all 5 digests (1 without new papers)" }));
    expect(screen.queryByRole("link", { name: /citations of sleep and memory/ })).toBeNull();
  });

  it("in the dialog: the digest's citations, each paper's own, and each paper's COinS for reference managers", async () => {
    const withKeys = digest({
      id: "d9",
      papersData: [
        paper({ title: "Base editing in primary T cells", paperKey: "doi:10.1000/base-editing", coins: COINS }),
        paper({ title: "A paper without a key" }),
      ],
    });
    const { user } = await showCard({ status: 200, body: [withKeys] });
    const dialog = within(await openDigest(user, "CRISPR base editing"));
    expect(dialog.getByRole("link", { name: "BibTeX citations of CRISPR base editing (November 21, 2026)" })).toHaveAttribute(
      "href",
      "/api/digests/d9/citations?format=bibtex",
    );

    const first = within(dialog.getByRole("article", { name: "Base editing in primary T cells" }));
    expect(first.getByRole("link", { name: "RIS citation of Base editing in primary T cells" })).toHaveAttribute(
      "href",
      "/api/papers/citation?key=doi%3A10.1000%2Fbase-editing&format=ris",
    );
    expect(first.getByRole("link", { name: "BibTeX citation of Base editing in primary T cells" })).toHaveAttribute(
      "href",
      "/api/papers/citation?key=doi%3A10.1000%2Fbase-editing&format=bibtex",
    );
    const coins = dialog.getByRole("article", { name: "Base editing in primary T cells" }).querySelector("span.Z3988");
    expect(coins).toHaveAttribute("title", COINS);
    expect(coins).toHaveAttribute("aria-hidden", "true");
    expect(coins).toBeEmptyDOMElement();

    const second = dialog.getByRole("article", { name: "A paper without a key" });
    expect(within(second).queryByRole("link", { name: /citation of/ })).toBeNull();
    expect(second.querySelector("span.Z3988")).toBeNull();
  });
});
