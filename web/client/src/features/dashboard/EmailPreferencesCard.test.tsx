import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { CurrentUser, Tier } from "@/state/session";
import { callsTo, held, latestToast, polyfillBrowserApis, renderRoute, type Reply, resetToasts, stubFetch } from "@/test/harness";
import type { Preferences } from "./api";
import { EmailPreferencesCard } from "./EmailPreferencesCard";
import { loadPreferences, preferences, resetDashboard } from "./store";

const PATH = "/api/users/u1/preferences";

const PRO: Preferences = {
  id: "u1",
  userId: "u1",
  includePubmed: true,
  includeArxiv: true,
  includeBiorxiv: false,
  weeklyDigest: true,
  dailyHighlights: false,
  deliveryDay: "wednesday",
  locked: [],
};

/** What the server reports for a free plan: PubMed only, Monday, whatever was stored. */
const FREE: Preferences = {
  ...PRO,
  includeArxiv: false,
  includeBiorxiv: false,
  deliveryDay: "monday",
  locked: ["includePubmed", "includeArxiv", "includeBiorxiv", "deliveryDay"],
};

type Handlers = Parameters<typeof stubFetch>[0];

async function showCard(tier: Tier, stored: Preferences, extra: Handlers = {}) {
  const user: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: tier };
  const fetchMock = stubFetch({ [`GET ${PATH}`]: { status: 200, body: stored }, ...extra });
  renderRoute(<EmailPreferencesCard user={user} />, { at: "/dashboard", routePath: "/dashboard" });
  await act(() => loadPreferences("u1"));
  return { fetchMock, user: userEvent.setup() };
}

/** A PATCH handler answering the stored preferences with the change applied. */
function accepts(stored: Preferences) {
  return (change: unknown): Reply => ({ status: 200, body: { ...stored, ...(change as object) } });
}

/** The JSON bodies of the PATCH requests to the preferences, in order. */
function patchBodies(fetchMock: ReturnType<typeof stubFetch>): unknown[] {
  return fetchMock.mock.calls
    .filter(([input, init]) => String(input) === PATH && init?.method === "PATCH")
    .map(([, init]) => JSON.parse(String(init?.body)));
}

const toggle = (name: string) => screen.getByRole("switch", { name });
const daySelect = () => screen.getByRole("combobox", { name: "Delivery day" });

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("EmailPreferencesCard", () => {
  it("shows a spinner until the preferences are loaded", () => {
    renderRoute(<EmailPreferencesCard user={{ id: "u1", email: "ada@example.org", subscriptionTier: "pro" }} />, {
      at: "/dashboard",
      routePath: "/dashboard",
    });
    expect(screen.getByRole("heading", { name: "Email Preferences" })).toBeInTheDocument();
    expect(screen.getByRole("status", { name: "Loading your email preferences" })).toBeInTheDocument();
  });

  it("says why when the preferences could not be loaded", async () => {
    await showCard("pro", PRO, { [`GET ${PATH}`]: { status: 500, body: { message: "Database unavailable" } } });
    expect(screen.getByRole("alert")).toHaveTextContent("Database unavailable");
    expect(screen.queryByRole("switch")).not.toBeInTheDocument();
  });

  it("a paid plan sees its stored choices, every control enabled, no upgrade note", async () => {
    await showCard("pro", PRO);
    expect(toggle("Weekly digest")).toBeChecked();
    expect(toggle("PubMed")).toBeChecked();
    expect(toggle("arXiv")).toBeChecked();
    expect(toggle("bioRxiv / medRxiv")).not.toBeChecked();
    expect(daySelect()).toHaveValue("wednesday");
    expect(screen.getAllByRole("option").map((option) => option.textContent)).toEqual([
      "Sunday",
      "Monday",
      "Tuesday",
      "Wednesday",
      "Thursday",
      "Friday",
      "Saturday",
    ]);
    for (const name of ["Weekly digest", "PubMed", "arXiv", "bioRxiv / medRxiv"]) expect(toggle(name)).toBeEnabled();
    expect(daySelect()).toBeEnabled();
    expect(screen.queryByRole("link", { name: /Upgrade/ })).not.toBeInTheDocument();
  });

  it("saves a switched source at once: PATCH body, the answer stored, 'Preferences Updated'", async () => {
    const patch = held({ status: 200, body: { ...PRO, includeBiorxiv: true } });
    const { fetchMock, user } = await showCard("pro", PRO, { [`PATCH ${PATH}`]: patch.handler });
    await user.click(toggle("bioRxiv / medRxiv"));
    // Shown at once, and not switchable again until the server answered.
    expect(toggle("bioRxiv / medRxiv")).toBeChecked();
    expect(toggle("bioRxiv / medRxiv")).toBeDisabled();
    expect(patchBodies(fetchMock)[0]).toEqual({ includeBiorxiv: true });
    patch.release();
    await waitFor(() => expect(latestToast()?.title).toBe("Preferences Updated"));
    expect(toggle("bioRxiv / medRxiv")).toBeChecked();
    expect(toggle("bioRxiv / medRxiv")).toBeEnabled();
    expect(preferences.value?.includeBiorxiv).toBe(true);
    expect(patchBodies(fetchMock)).toHaveLength(1);
  });

  it("saves a new delivery day", async () => {
    const { fetchMock, user } = await showCard("team", PRO, { [`PATCH ${PATH}`]: accepts(PRO) });
    await user.selectOptions(daySelect(), "Friday");
    await waitFor(() => expect(latestToast()?.title).toBe("Preferences Updated"));
    expect(patchBodies(fetchMock)[0]).toEqual({ deliveryDay: "friday" });
    expect(daySelect()).toHaveValue("friday");
    expect(preferences.value?.deliveryDay).toBe("friday");
  });

  it("a refused change says 'Update Failed' with the server's message and shows the stored value again", async () => {
    const { user } = await showCard("pro", { ...PRO, includeArxiv: false }, {
      [`PATCH ${PATH}`]: { status: 400, body: { message: "Choose at least one source for your digests." } },
    });
    await user.click(toggle("PubMed"));
    await waitFor(() => expect(latestToast()?.title).toBe("Update Failed"));
    expect(latestToast()?.description).toBe("Choose at least one source for your digests.");
    expect(latestToast()?.variant).toBe("destructive");
    expect(toggle("PubMed")).toBeChecked();
    expect(toggle("PubMed")).toBeEnabled();
    expect(preferences.value?.includePubmed).toBe(true);
  });

  it("a failed day change returns the select to the stored day", async () => {
    const { user } = await showCard("pro", PRO, { [`PATCH ${PATH}`]: { status: 500, body: "Internal Server Error" } });
    await user.selectOptions(daySelect(), "Sunday");
    await waitFor(() => expect(latestToast()?.title).toBe("Update Failed"));
    expect(latestToast()?.description).toBe("Your preferences could not be saved. Please try again.");
    expect(daySelect()).toHaveValue("wednesday");
  });

  it("a free plan sees Monday and PubMed only, locked, with an upgrade link", async () => {
    const { fetchMock, user } = await showCard("free", FREE);
    expect(toggle("PubMed")).toBeChecked();
    expect(toggle("arXiv")).not.toBeChecked();
    expect(toggle("bioRxiv / medRxiv")).not.toBeChecked();
    expect(daySelect()).toHaveValue("monday");
    for (const name of ["PubMed", "arXiv", "bioRxiv / medRxiv"]) expect(toggle(name)).toBeDisabled();
    expect(daySelect()).toBeDisabled();

    await user.click(toggle("arXiv"));
    expect(toggle("arXiv")).not.toBeChecked();
    expect(callsTo(fetchMock, PATH)).toBe(1); // the GET only

    const upgrade = screen.getByRole("link", { name: "Upgrade to choose your sources and delivery day" });
    expect(upgrade).toHaveAttribute("href", "/subscribe?tier=pro");
    await user.click(upgrade);
    expect(screen.getByTestId("location")).toHaveTextContent("/subscribe?tier=pro");
  });

  it("a free plan can still turn the weekly digest off", async () => {
    const { fetchMock, user } = await showCard("free", FREE, { [`PATCH ${PATH}`]: accepts(FREE) });
    expect(toggle("Weekly digest")).toBeEnabled();
    await user.click(toggle("Weekly digest"));
    await waitFor(() => expect(latestToast()?.title).toBe("Preferences Updated"));
    expect(patchBodies(fetchMock)[0]).toEqual({ weeklyDigest: false });
    expect(toggle("Weekly digest")).not.toBeChecked();
  });
});
