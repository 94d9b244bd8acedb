import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useSignals } from "@preact/signals-react/runtime";
import { loadAppConfig, resetAppConfig } from "@/state/config";
import { currentUser, setCurrentUser, type FreeDigests, type Tier } from "@/state/session";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, resetToasts, stubFetch } from "@/test/harness";
import { AccountStatusCard } from "./AccountStatusCard";
import type { EmailDigest, SearchTerm } from "./api";
import { digests, resetDashboard, searchTerms } from "./store";

const CANCEL_PATH = "/api/cancel-subscription";

function term(id: string, isActive = true): SearchTerm {
  return {
    id,
    userId: "u1",
    term: `topic ${id}`,
    isActive,
    isFree: false,
    status: "completed",
    lastProcessedAt: null,
    nextScheduledRun: null,
    createdAt: "2026-11-01T09:00:00Z",
  };
}

function digest(id: string, papersData: EmailDigest["papersData"] = []): EmailDigest {
  return { id, userId: "u1", digestType: "weekly", papersData, searchTerm: "topic", aiSummary: null, sentAt: "2026-11-14T06:00:00Z" };
}

/** The card for whoever is signed in, as the dashboard shows it: a new plan re-renders it. */
function SignedInCard() {
  useSignals();
  const user = currentUser.value;
  return user ? <AccountStatusCard user={user} /> : null;
}

function renderStatus(
  tier: Tier,
  { terms = [term("t1")], sent = [] as EmailDigest[], freeDigests = null as FreeDigests | null } = {},
) {
  setCurrentUser({ id: "u1", email: "ada@example.org", subscriptionTier: tier, freeDigests });
  searchTerms.value = terms;
  digests.value = sent;
  const user = userEvent.setup();
  renderRoute(<SignedInCard />, { at: "/dashboard", routePath: "/dashboard" });
  return user;
}

/** The value shown next to `label`. */
const valueOf = (label: string) => screen.getByText(label, { selector: "dt" }).nextElementSibling?.textContent;
const cancelButton = () => screen.getByRole("button", { name: "Cancel Subscription" });

/** Opens the confirmation and confirms. */
async function confirmCancel(user: ReturnType<typeof userEvent.setup>) {
  await user.click(cancelButton());
  const dialog = screen.getByRole("dialog", { name: "Cancel your subscription?" });
  await user.click(within(dialog).getByRole("button", { name: "Cancel Subscription" }));
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
  resetAppConfig();
  setCurrentUser(null);
});
afterEach(() => vi.unstubAllGlobals());

describe("AccountStatusCard", () => {
  it("free plan: the plan, terms and digests, the free digests as the server counts them, and no cancel button", () => {
    stubFetch({});
    // Three digests listed, but two were empty-week notices: the server counts one used.
    const paper = { title: "P", url: null, authors: "", journal: null, abstract: "", source: "pubmed" as const, relevanceScore: 0.5 };
    renderStatus("free", { sent: [digest("d1", [paper]), digest("d2"), digest("d3")], freeDigests: { used: 1, total: 2 } });
    expect(screen.getByRole("heading", { name: "Account Status", level: 2 })).toBeInTheDocument();
    expect(valueOf("Plan")).toBe("Free");
    expect(valueOf("Search terms")).toBe("1 of 1");
    expect(valueOf("Active search terms")).toBe("1");
    expect(valueOf("Digests received")).toBe("3");
    expect(screen.getByText("Free digests: 1 of 2 used")).toBeInTheDocument();
    expect(screen.queryByRole("link")).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel Subscription" })).not.toBeInTheDocument();
  });

  it("free plan with both free digests used, billing off: the invitation leads to the page that explains this server's plans", () => {
    stubFetch({});
    renderStatus("free", { sent: [digest("d1")], freeDigests: { used: 2, total: 2 } });
    expect(screen.getByText("Free digests: 2 of 2 used")).toBeInTheDocument();
    expect(screen.getByText(/You have used your free digests\. Your search terms stay saved/)).toBeInTheDocument();
    expect(screen.queryByText(/Upgrade to Pro to keep/)).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Upgrade to Pro" })).toHaveAttribute("href", "/subscribe?tier=pro");
  });

  it("free plan with both free digests used, billing on: an invitation to upgrade to Pro", async () => {
    stubFetch({ "GET /api/config": { status: 200, body: { supportEmail: "help@example.org", analytics: null, billingEnabled: true } } });
    await loadAppConfig();
    renderStatus("free", { freeDigests: { used: 2, total: 2 } });
    expect(screen.getByText("You have used your free digests. Upgrade to Pro to keep your weekly digests coming.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Upgrade to Pro" })).toHaveAttribute("href", "/subscribe?tier=pro");
  });

  it("free plan without the server's count: no free digests line", () => {
    stubFetch({});
    renderStatus("free", { sent: [digest("d1"), digest("d2")] });
    expect(valueOf("Digests received")).toBe("2");
    expect(screen.queryByText(/Free digests/)).not.toBeInTheDocument();
  });

  it("shows placeholders until the lists are loaded", () => {
    stubFetch({});
    setCurrentUser({ id: "u1", email: "ada@example.org", subscriptionTier: "free" });
    renderRoute(<SignedInCard />, { at: "/dashboard", routePath: "/dashboard" });
    expect(valueOf("Search terms")).toBe("…");
    expect(valueOf("Digests received")).toBe("…");
    expect(screen.queryByText(/Free digests/)).not.toBeInTheDocument();
  });

  it.each([
    ["pro", "Pro", "2 of 5"],
    ["team", "Team", "2 of 10"],
  ] as const)("%s plan: its limit and a Cancel Subscription button", (tier, label, usage) => {
    stubFetch({});
    renderStatus(tier, { terms: [term("t1"), term("t2", false)] });
    expect(valueOf("Plan")).toBe(label);
    expect(valueOf("Search terms")).toBe(usage);
    expect(valueOf("Active search terms")).toBe("1");
    expect(cancelButton()).toBeEnabled();
    expect(screen.queryByText(/Free digests/)).not.toBeInTheDocument();
  });

  it("with more than one active term, cancelling is refused without asking the server", async () => {
    const fetchMock = stubFetch({});
    const user = renderStatus("pro", { terms: [term("t1"), term("t2"), term("t3"), term("t4", false)] });
    await user.click(cancelButton());
    expect(latestToast()).toMatchObject({
      title: "Cannot Cancel Subscription",
      description: "You have 3 active search terms. Please delete search terms until only 1 remains, then cancel your subscription.",
      variant: "destructive",
    });
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(callsTo(fetchMock, CANCEL_PATH)).toBe(0);
  });

  it("asks first, naming what the Free plan keeps; Keep Subscription changes nothing", async () => {
    const fetchMock = stubFetch({});
    const user = renderStatus("team");
    await user.click(cancelButton());
    const dialog = screen.getByRole("dialog", { name: "Cancel your subscription?" });
    expect(dialog).toHaveTextContent("Free plan: 1 search term, PubMed only, digests on Monday");
    await user.click(within(dialog).getByRole("button", { name: "Keep Subscription" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(callsTo(fetchMock, CANCEL_PATH)).toBe(0);
  });

  it("cancels, says so, and shows the account on the free plan", async () => {
    const fetchMock = stubFetch({
      [`POST ${CANCEL_PATH}`]: { status: 200, body: { message: "Subscription canceled", tier: "free" } },
      "GET /api/auth/me": { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: "free" } } },
      "GET /api/users/u1/search-terms": { status: 200, body: [term("t1")] },
      "GET /api/users/u1/preferences": { status: 200, body: { userId: "u1", locked: ["deliveryDay"] } },
    });
    const user = renderStatus("pro");
    await confirmCancel(user);

    await waitFor(() => expect(valueOf("Plan")).toBe("Free"));
    expect(latestToast()).toMatchObject({
      title: "Subscription Canceled",
      description: "Your subscription has been canceled. You remain on the free tier.",
      variant: "success",
    });
    expect(currentUser.value?.subscriptionTier).toBe("free");
    expect(callsTo(fetchMock, CANCEL_PATH)).toBe(1);
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(1);
    expect(callsTo(fetchMock, "/api/users/u1/search-terms")).toBe(1);
    expect(callsTo(fetchMock, "/api/users/u1/preferences")).toBe(1);
    expect(screen.queryByRole("button", { name: "Cancel Subscription" })).not.toBeInTheDocument();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("the server's requiresSearchDeletion: 'Cannot Cancel Subscription' with its count", async () => {
    stubFetch({
      [`POST ${CANCEL_PATH}`]: {
        status: 400,
        body: { message: "You have 4 active search terms.", requiresSearchDeletion: true, currentSearchCount: 4 },
      },
    });
    const user = renderStatus("pro");
    await confirmCancel(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Cannot Cancel Subscription"));
    expect(latestToast()?.description).toBe(
      "You have 4 active search terms. Please delete search terms until only 1 remains, then cancel your subscription.",
    );
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(valueOf("Plan")).toBe("Pro");
  });

  it("a server with billing off: 'Cancellation Failed' with its message", async () => {
    const message = "Billing is not enabled on this server. Plans on this Papertide installation are set by its operator.";
    const fetchMock = stubFetch({ [`POST ${CANCEL_PATH}`]: { status: 501, body: { message, billingEnabled: false } } });
    const user = renderStatus("team");
    await confirmCancel(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Cancellation Failed"));
    expect(latestToast()).toMatchObject({ description: message, variant: "destructive" });
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(0);
    expect(cancelButton()).toBeEnabled();
  });

  it("a failure without a message: a default text", async () => {
    stubFetch({ [`POST ${CANCEL_PATH}`]: { status: 500 } });
    const user = renderStatus("pro");
    await confirmCancel(user);
    await waitFor(() => expect(latestToast()?.title).toBe("Cancellation Failed"));
    expect(latestToast()?.description).toBe("Your subscription could not be canceled. Please try again.");
  });
});
