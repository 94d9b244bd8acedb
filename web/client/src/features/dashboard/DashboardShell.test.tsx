import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { DashboardPage } from "@/pages/Dashboard";
import { resetAppConfig } from "@/state/config";
import { setCurrentUser, type Tier } from "@/state/session";
import { toasts } from "@/state/toast";

type Reply = { status: number; body: unknown };

/** Answers the API by "METHOD path"; anything unlisted is a 404. */
function serveApi(routes: Record<string, Reply>) {
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const reply = routes[`${init?.method ?? "GET"} ${url}`] ?? { status: 404, body: { message: "not found" } };
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

const PAID_PREFERENCES = {
  userId: "u1",
  includePubmed: true,
  includeArxiv: true,
  includeBiorxiv: true,
  weeklyDigest: true,
  dailyHighlights: false,
  deliveryDay: "sunday",
  locked: [],
};

/** What the server answers for each plan: a free plan gets PubMed only on Monday, locked. */
const PREFERENCES: Record<Tier, unknown> = {
  free: { ...PAID_PREFERENCES, includeArxiv: false, includeBiorxiv: false, deliveryDay: "monday", locked: ["includePubmed", "includeArxiv", "includeBiorxiv", "deliveryDay"] },
  pro: PAID_PREFERENCES,
  team: PAID_PREFERENCES,
};

function signedIn(tier: Tier, extra: Record<string, Reply> = {}) {
  return serveApi({
    "GET /api/auth/me": { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: tier } } },
    "GET /api/config": { status: 200, body: { supportEmail: "help@example.org", analytics: null, billingEnabled: true } },
    "GET /api/users/u1/search-terms": { status: 200, body: [] },
    "GET /api/users/u1/digests": { status: 200, body: [] },
    "GET /api/users/u1/preferences": { status: 200, body: PREFERENCES[tier] },
    "GET /api/feeds": { status: 200, body: { digestsUrl: "https://papertide.test/feeds/tok/digests.atom", terms: [] } },
    ...extra,
  });
}

function renderDashboard() {
  render(
    <MemoryRouter initialEntries={["/dashboard"]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
      <Routes>
        <Route path="/dashboard" element={<DashboardPage />} />
        <Route path="/auth" element={<h1>Auth page</h1>} />
      </Routes>
    </MemoryRouter>,
  );
  return userEvent.setup();
}

beforeEach(() => {
  setCurrentUser(null);
  resetAppConfig();
  toasts.value = [];
});

afterEach(() => vi.unstubAllGlobals());

describe("DashboardPage", () => {
  it("shows a spinner while asking who is signed in", async () => {
    signedIn("free");
    renderDashboard();
    expect(screen.getByRole("status", { name: "Loading your dashboard" })).toBeInTheDocument();
    await screen.findByText("ada@example.org");
    expect(screen.queryByRole("status", { name: "Loading your dashboard" })).not.toBeInTheDocument();
  });

  it("sends a visitor to /auth when /api/auth/me answers 401", async () => {
    serveApi({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    renderDashboard();
    expect(await screen.findByRole("heading", { name: "Auth page" })).toBeInTheDocument();
  });

  it("sends the visitor to /auth when the user check fails", async () => {
    serveApi({ "GET /api/auth/me": { status: 500, body: { message: "boom" } } });
    renderDashboard();
    expect(await screen.findByRole("heading", { name: "Auth page" })).toBeInTheDocument();
  });

  it("does not trust a user left over in memory: a 401 still redirects", async () => {
    setCurrentUser({ id: "old", email: "old@example.org", subscriptionTier: "pro" });
    serveApi({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    renderDashboard();
    expect(await screen.findByRole("heading", { name: "Auth page" })).toBeInTheDocument();
    expect(screen.queryByText("old@example.org")).not.toBeInTheDocument();
  });

  it("shows the title, the user's email, the plan badge and the first-digest note", async () => {
    signedIn("pro");
    renderDashboard();
    expect(await screen.findByText("ada@example.org")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Papertide", level: 1 })).toBeInTheDocument();
    expect(screen.getByLabelText("Plan: Pro")).toHaveTextContent("Pro");
    expect(
      await screen.findByText("Your first digest is emailed as soon as you add a search term; after that, a new one arrives every Sunday."),
    ).toBeInTheDocument();
    expect(await screen.findByText("No search terms yet. Add one above to get your first digest.")).toBeInTheDocument();
  });

  it.each([
    ["free", "Free", "Upgrade", "/subscribe"],
    ["pro", "Pro", "Upgrade to Team", "/subscribe?tier=team"],
  ] as const)("offers a %s user the %s → '%s' upgrade", async (tier, badge, label, href) => {
    signedIn(tier);
    renderDashboard();
    await screen.findByText("ada@example.org");
    expect(screen.getByLabelText(`Plan: ${badge}`)).toBeInTheDocument();
    // The header's offer; cards may invite a free plan to upgrade too.
    const upgradeLinks = within(screen.getByRole("banner")).getAllByRole("link", { name: /^Upgrade/ });
    expect(upgradeLinks).toHaveLength(1);
    expect(upgradeLinks[0]).toHaveTextContent(new RegExp(`^${label}$`));
    expect(upgradeLinks[0]).toHaveAttribute("href", href);
  });

  it("shows the Feeds card beside Your Data", async () => {
    signedIn("free");
    renderDashboard();
    const feeds = await screen.findByRole("region", { name: "Feeds" });
    expect(await within(feeds).findByRole("textbox", { name: "All your digests" })).toHaveValue("https://papertide.test/feeds/tok/digests.atom");
    expect(screen.getByRole("region", { name: "Your Data" }).nextElementSibling).toBe(feeds);
  });

  it("offers a team user no upgrade", async () => {
    signedIn("team");
    renderDashboard();
    await screen.findByText("ada@example.org");
    expect(screen.getByLabelText("Plan: Team")).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: /Upgrade/ })).not.toBeInTheDocument();
  });

  it("a plan that ended: when, how many terms went inactive, and the way to upgrade again", async () => {
    signedIn("free", {
      "GET /api/auth/me": {
        status: 200,
        body: {
          user: {
            id: "u1",
            email: "ada@example.org",
            subscriptionTier: "free",
            planEnded: { tier: "pro", endedAt: "2026-11-21T10:00:00Z", inactiveTerms: 4 },
          },
        },
      },
    });
    renderDashboard();
    const notice = await screen.findByRole("region", { name: "Your plan ended" });
    expect(notice).toHaveTextContent("Your Pro plan ended on November 21, 2026. 4 search terms are now inactive; upgrade to reactivate them.");
    expect(within(notice).getByRole("link", { name: "Upgrade to reactivate" })).toHaveAttribute("href", "/subscribe?tier=pro");
  });

  it("no notice without an ended plan", async () => {
    signedIn("free");
    renderDashboard();
    await screen.findByText("ada@example.org");
    expect(screen.queryByRole("region", { name: "Your plan ended" })).not.toBeInTheDocument();
  });

  it("logs out, says so and goes to /auth", async () => {
    const fetchMock = signedIn("free", { "POST /api/auth/logout": { status: 200, body: {} } });
    const user = renderDashboard();
    await user.click(await screen.findByRole("button", { name: "Logout" }));
    expect(await screen.findByRole("heading", { name: "Auth page" })).toBeInTheDocument();
    expect(fetchMock).toHaveBeenCalledWith("/api/auth/logout", expect.objectContaining({ method: "POST" }));
    expect(toasts.value.map((item) => item.title)).toEqual(["Logged Out"]);
  });

  it("stays and says 'Logout Failed' when the server refuses", async () => {
    signedIn("free", { "POST /api/auth/logout": { status: 500, body: { message: "Database unavailable" } } });
    const user = renderDashboard();
    await user.click(await screen.findByRole("button", { name: "Logout" }));
    await waitFor(() => expect(toasts.value.map((item) => item.title)).toEqual(["Logout Failed"]));
    expect(toasts.value[0].description).toBe("Database unavailable");
    expect(screen.getByText("ada@example.org")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Logout" })).toBeEnabled();
  });
});
