import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { callsTo, renderRoute, stubFetch, type Reply } from "@/test/harness";
import { RateLinkScreen, confirmLabel } from "./RateLinkScreen";

const LINK = { term: "CRISPR base editing", termId: "t1", title: "Base editors in vivo", paperKey: "doi:10.1/a", verdict: "notRelevant" as const, citation: [] as Array<[string, string]> };

function show(at: string) {
  renderRoute(<RateLinkScreen />, { at, routePath: "/rate" });
  return userEvent.setup();
}

afterEach(() => vi.unstubAllGlobals());

describe("/rate", () => {
  it.each([
    ["relevant", "Mark as relevant to “CRISPR base editing”"],
    ["notRelevant", "Mark as not relevant to “CRISPR base editing”"],
    ["moreLikeThis", "Ask for more like this in “CRISPR base editing”"],
  ] as const)("a %s link's button reads %s", (verdict, label) => {
    expect(confirmLabel({ ...LINK, verdict })).toBe(label);
  });

  it("asks first, records nothing until the button is pressed, then thanks", async () => {
    const mock = stubFetch({
      "GET /api/ratings/link": { status: 200, body: LINK },
      "POST /api/ratings/link": (body) => ({ status: 200, body: { success: true, rating: LINK, sent: body } }),
    });
    const user = show("/rate?token=abc123");
    const confirm = await screen.findByRole("button", { name: "Mark as not relevant to “CRISPR base editing”" });
    expect(screen.getByText("Base editors in vivo")).toBeInTheDocument();
    expect(mock.mock.calls.filter(([, init]) => init?.method === "POST")).toHaveLength(0);
    await user.click(confirm);
    expect(await screen.findByText("Thanks — your digests for “CRISPR base editing” will learn from this.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to your dashboard" })).toHaveAttribute("href", "/dashboard");
    const post = mock.mock.calls.find(([, init]) => init?.method === "POST");
    expect(JSON.parse(String(post?.[1]?.body))).toEqual({ token: "abc123" });
  });

  it.each([
    ["an invalid link", { status: 400, body: { message: "This rating link is not valid." } }, "This rating link is not valid."],
    ["an expired link", { status: 410, body: { message: "This rating link has expired." } }, "This rating link has expired."],
    ["a deleted term", { status: 410, body: { message: "The search term this link rates was deleted." } }, "The search term this link rates was deleted."],
    ["a server failure", { status: 500, body: { message: "Internal" } }, "The rating could not be saved. Please try again later."],
  ] as Array<[string, Reply, string]>)("%s: the server's word, and no button", async (_case, reply, message) => {
    stubFetch({ "GET /api/ratings/link": reply });
    show("/rate?token=abc123");
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
  });

  it("without a token: not valid, and no request", () => {
    const mock = stubFetch({});
    show("/rate");
    expect(screen.getByRole("alert")).toHaveTextContent("This rating link is not valid.");
    expect(callsTo(mock, "/api/ratings/link")).toBe(0);
  });
});

describe("/rate: the paper's citation for reference managers", () => {
  const CITATION: Array<[string, string]> = [
    ["citation_title", "Base editors in vivo"],
    ["citation_author", "Lovelace, Ada"],
    ["citation_author", "Hopper, Grace"],
    ["citation_doi", "10.1/a"],
  ];
  const citationTags = () =>
    Array.from(document.head.querySelectorAll("meta")).filter((meta) => meta.getAttribute("name")?.startsWith("citation_")).map((meta) => [meta.getAttribute("name"), meta.getAttribute("content")]);

  it("puts the citation into the head as meta tags while the paper shows, and takes them out on leaving", async () => {
    stubFetch({
      "GET /api/ratings/link": { status: 200, body: { ...LINK, citation: CITATION } },
      "POST /api/ratings/link": { status: 200, body: { success: true, rating: { ...LINK, citation: CITATION } } },
    });
    expect(citationTags()).toEqual([]);
    const { unmount } = renderRoute(<RateLinkScreen />, { at: "/rate?token=abc123", routePath: "/rate" });
    const user = userEvent.setup();
    const confirm = await screen.findByRole("button", { name: "Mark as not relevant to “CRISPR base editing”" });
    expect(citationTags()).toEqual(CITATION);
    await user.click(confirm);
    await screen.findByText("Rating saved");
    // Still the paper's page once rated: the tags stay, once each.
    expect(citationTags()).toEqual(CITATION);
    unmount();
    expect(citationTags()).toEqual([]);
  });

  it("a link that cannot rate a paper puts nothing in the head", async () => {
    stubFetch({ "GET /api/ratings/link": { status: 410, body: { message: "This rating link has expired." } } });
    show("/rate?token=abc123");
    await screen.findByRole("alert");
    expect(citationTags()).toEqual([]);
  });
});
