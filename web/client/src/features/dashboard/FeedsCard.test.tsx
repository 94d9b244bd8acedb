import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, resetToasts, stubFetch } from "@/test/harness";
import type { FeedsView, SearchTerm } from "./api";
import { FeedsCard } from "./FeedsCard";
import { resetDashboard, searchTerms } from "./store";

const FEEDS: FeedsView = {
  digestsUrl: "https://papertide.test/feeds/old-token/digests.atom",
  terms: [
    { termId: "t1", term: "CRISPR base editing", url: "https://papertide.test/feeds/old-token/terms/t1.atom" },
    { termId: "t2", term: "protein folding", url: "https://papertide.test/feeds/old-token/terms/t2.atom" },
  ],
};

const RENEWED: FeedsView = {
  digestsUrl: "https://papertide.test/feeds/new-token/digests.atom",
  terms: FEEDS.terms.map((feed) => ({ ...feed, url: feed.url.replace("old-token", "new-token") })),
};

function renderCard(handlers: Parameters<typeof stubFetch>[0] = {}) {
  const mock = stubFetch({ "GET /api/feeds": { status: 200, body: FEEDS }, ...handlers });
  // userEvent.setup() puts its own clipboard on navigator; the test reads it back.
  const user = userEvent.setup();
  renderRoute(<FeedsCard />, { at: "/dashboard", routePath: "/dashboard" });
  return { mock, user };
}

const card = () => screen.getByRole("region", { name: "Feeds" });

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("FeedsCard", () => {
  it("shows every feed's address, read-only, and says they are private", async () => {
    renderCard();
    const all = await within(card()).findByRole("textbox", { name: "All your digests" });
    expect(all).toHaveValue(FEEDS.digestsUrl);
    expect(all).toHaveAttribute("readonly");
    expect(within(card()).getByRole("textbox", { name: "CRISPR base editing" })).toHaveValue(FEEDS.terms[0].url);
    expect(within(card()).getByRole("textbox", { name: "protein folding" })).toHaveValue(FEEDS.terms[1].url);
    expect(card()).toHaveTextContent("These feeds are private: anyone with an address can read its feed, so keep them to yourself.");
  });

  it("copies an address to the clipboard", async () => {
    const { user } = renderCard();
    await user.click(await within(card()).findByRole("button", { name: "Copy the feed address of CRISPR base editing" }));
    expect(await navigator.clipboard.readText()).toBe(FEEDS.terms[0].url);
    expect(latestToast()).toMatchObject({ title: "Feed Address Copied", variant: "success" });
    await user.click(within(card()).getByRole("button", { name: "Copy the feed address of All your digests" }));
    expect(await navigator.clipboard.readText()).toBe(FEEDS.digestsUrl);
  });

  it("a clipboard that refuses: says so and selects the address to copy by hand", async () => {
    const { user } = renderCard();
    const field = (await within(card()).findByRole("textbox", { name: "protein folding" })) as HTMLInputElement;
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new Error("denied"));
    await user.click(within(card()).getByRole("button", { name: "Copy the feed address of protein folding" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Copy Failed", variant: "destructive" }));
    expect(field.selectionStart).toBe(0);
    expect(field.selectionEnd).toBe(FEEDS.terms[1].url.length);
  });

  it("renews the addresses only once confirmed, saying the old ones stop working", async () => {
    const { mock, user } = renderCard({ "POST /api/feeds/renew": { status: 200, body: RENEWED } });
    await user.click(await within(card()).findByRole("button", { name: "Renew feed addresses" }));
    const dialog = screen.getByRole("dialog", { name: "Renew your feed addresses?" });
    expect(dialog).toHaveTextContent("the old addresses stop working");

    await user.click(within(dialog).getByRole("button", { name: "Keep addresses" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(callsTo(mock, "/api/feeds/renew")).toBe(0);

    await user.click(within(card()).getByRole("button", { name: "Renew feed addresses" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Renew addresses" }));
    await waitFor(() => expect(within(card()).getByRole("textbox", { name: "All your digests" })).toHaveValue(RENEWED.digestsUrl));
    expect(within(card()).getByRole("textbox", { name: "CRISPR base editing" })).toHaveValue(RENEWED.terms[0].url);
    expect(callsTo(mock, "/api/feeds/renew")).toBe(1);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(latestToast()).toMatchObject({ title: "Feed Addresses Renewed", variant: "success" });
  });

  it("a refused renewal keeps the addresses and says why", async () => {
    const { user } = renderCard({ "POST /api/feeds/renew": { status: 503, body: { code: "busy", message: "The server is busy." } } });
    await user.click(await within(card()).findByRole("button", { name: "Renew feed addresses" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Renew addresses" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Renew Failed", description: "The server is busy." }));
    expect(within(card()).getByRole("textbox", { name: "All your digests" })).toHaveValue(FEEDS.digestsUrl);
  });

  it("says why the feeds could not be loaded", async () => {
    renderCard({ "GET /api/feeds": { status: 500, body: { message: "Database unavailable" } } });
    expect(await within(card()).findByRole("alert")).toHaveTextContent("Database unavailable");
    expect(within(card()).queryByRole("button", { name: "Renew feed addresses" })).toBeNull();
  });

  it("reloads the feeds when the search terms change", async () => {
    const { mock } = renderCard();
    await within(card()).findByRole("textbox", { name: "All your digests" });
    expect(callsTo(mock, "/api/feeds")).toBe(1);
    act(() => {
      searchTerms.value = [{ id: "t3", term: "sleep" } as SearchTerm];
    });
    await waitFor(() => expect(callsTo(mock, "/api/feeds")).toBe(2));
  });
});
