import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";
import type { SearchTerm } from "./api";
import { SearchQueueCard, statusLabel } from "./SearchQueueCard";
import { loadError, resetDashboard, searchTerms } from "./store";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "pro" as const };
const TERMS_PATH = "/api/users/u1/search-terms";

function term(overrides: Partial<SearchTerm> = {}): SearchTerm {
  return {
    id: "t1",
    userId: "u1",
    term: "CRISPR base editing",
    isActive: true,
    isFree: false,
    status: "completed",
    lastProcessedAt: null,
    nextScheduledRun: null,
    createdAt: "2026-11-01T09:00:00Z",
    ...overrides,
  };
}

function renderQueue(terms: SearchTerm[] | null) {
  searchTerms.value = terms;
  const user = userEvent.setup();
  renderRoute(<SearchQueueCard user={USER} />, { at: "/dashboard", routePath: "/dashboard" });
  return user;
}

/** Requests that would change something (the rows load each term's ratings with GETs). */
const changesSent = (mock: ReturnType<typeof stubFetch>) => mock.mock.calls.filter(([, init]) => (init?.method ?? "GET") !== "GET").length;

const rowOf = (text: string) => screen.getByText(text).closest("li") as HTMLElement;

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetDashboard();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("statusLabel", () => {
  it.each([
    ["processing", "Searching..."],
    ["completed", "Complete"],
    ["failed", "Failed"],
    ["pending", "Pending"],
    ["queued", "Pending"],
    ["", "Pending"],
  ])("%j reads as %s", (status, label) => {
    expect(statusLabel(status)).toBe(label);
  });
});

describe("SearchQueueCard", () => {
  it("shows a spinner until the terms are loaded", () => {
    stubFetch({});
    renderQueue(null);
    expect(screen.getByRole("heading", { name: "Your Search Queue", level: 2 })).toBeInTheDocument();
    expect(screen.getByRole("status", { name: "Loading your search terms" })).toBeInTheDocument();
  });

  it("says why the terms could not be loaded", () => {
    stubFetch({});
    loadError.value = { searchTerms: "Your search terms could not be loaded." };
    renderQueue(null);
    expect(screen.getByRole("alert")).toHaveTextContent("Your search terms could not be loaded.");
    expect(screen.queryByRole("status", { name: "Loading your search terms" })).not.toBeInTheDocument();
  });

  it("has an empty state", () => {
    stubFetch({});
    renderQueue([]);
    expect(screen.getByText("No search terms yet. Add one above to get your first digest.")).toBeInTheDocument();
  });

  it("shows each term with its status, whether it is active and its dates", () => {
    stubFetch({});
    renderQueue([
      term({ lastProcessedAt: "2026-11-14T06:00:00Z", nextScheduledRun: "2026-11-21T06:00:00Z" }),
      term({ id: "t2", term: "tau propagation", status: "processing", isActive: false }),
      term({ id: "t3", term: "gut microbiome", status: "failed" }),
      term({ id: "t4", term: "sleep spindles", status: "pending" }),
    ]);
    const first = rowOf("CRISPR base editing");
    expect(first).toHaveTextContent("Complete");
    expect(first).toHaveTextContent("Active");
    expect(within(first).getByText("Last searched: November 14, 2026")).toBeInTheDocument();
    expect(within(first).getByText("Next digest: November 21, 2026")).toBeInTheDocument();

    const second = rowOf("tau propagation");
    expect(second).toHaveTextContent("Searching...");
    expect(second).toHaveTextContent("Inactive");
    expect(second).not.toHaveTextContent("Last searched");
    expect(second).not.toHaveTextContent("Next digest");

    expect(rowOf("gut microbiome")).toHaveTextContent("Failed");
    expect(rowOf("sleep spindles")).toHaveTextContent("Pending");
  });

  describe("inline edit", () => {
    it("Save sends the new text, says so and shows the reloaded queue", async () => {
      const fetchMock = stubFetch({
        "PATCH /api/search-terms/t1": { status: 200, body: term({ term: "prime editing", status: "pending" }) },
        [`GET ${TERMS_PATH}`]: { status: 200, body: [term({ term: "prime editing", status: "pending" })] },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      const input = screen.getByRole("textbox", { name: "New text for CRISPR base editing" });
      expect(input).toHaveValue("CRISPR base editing");
      expect(input).toHaveFocus();
      await user.clear(input);
      await user.type(input, "  prime editing ");
      await user.click(screen.getByRole("button", { name: "Save" }));

      expect(await screen.findByText("prime editing")).toBeInTheDocument();
      expect(requestBody(fetchMock, "/api/search-terms/t1")).toEqual({ term: "prime editing" });
      expect(latestToast()).toMatchObject({ title: "Search Term Updated", variant: "success" });
      expect(rowOf("prime editing")).toHaveTextContent("Pending");
      expect(screen.queryByRole("textbox")).not.toBeInTheDocument();
      expect(callsTo(fetchMock, TERMS_PATH)).toBe(1);
    });

    it("Enter saves", async () => {
      const fetchMock = stubFetch({
        "PATCH /api/search-terms/t1": { status: 200, body: term({ term: "prime editing" }) },
        [`GET ${TERMS_PATH}`]: { status: 200, body: [term({ term: "prime editing" })] },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      await user.clear(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }));
      await user.type(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }), "prime editing{Enter}");
      expect(await screen.findByText("prime editing")).toBeInTheDocument();
      expect(callsTo(fetchMock, "/api/search-terms/t1")).toBe(1);
      expect(latestToast()?.title).toBe("Search Term Updated");
    });

    it("Save is disabled, and Enter does nothing, while the text is blank", async () => {
      const fetchMock = stubFetch({});
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      await user.clear(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }));
      expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
      await user.type(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }), "   {Enter}");
      expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
      expect(screen.getByRole("textbox", { name: "New text for CRISPR base editing" })).toBeInTheDocument();
      expect(callsTo(fetchMock, "/api/search-terms/t1")).toBe(0);
    });

    it.each([
      ["Escape", async (user: ReturnType<typeof userEvent.setup>) => user.keyboard("{Escape}")],
      ["Cancel", async (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole("button", { name: "Cancel" }))],
    ])("%s leaves the term as it was", async (_how, leave) => {
      const fetchMock = stubFetch({});
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      await user.type(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }), " and more");
      await leave(user);
      expect(screen.queryByRole("textbox")).not.toBeInTheDocument();
      expect(screen.getByText("CRISPR base editing")).toBeInTheDocument();
      expect(changesSent(fetchMock)).toBe(0);
    });

    it("Save without a change just closes the editor", async () => {
      const fetchMock = stubFetch({});
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      await user.click(screen.getByRole("button", { name: "Save" }));
      expect(screen.queryByRole("textbox")).not.toBeInTheDocument();
      expect(changesSent(fetchMock)).toBe(0);
      expect(latestToast()).toBeUndefined();
    });

    it("a refused change says 'Update Failed' with the server's message and stays in edit mode", async () => {
      const fetchMock = stubFetch({
        "PATCH /api/search-terms/t1": { status: 400, body: { message: "Search term must be at least 3 characters" } },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      await user.clear(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }));
      await user.type(screen.getByRole("textbox", { name: "New text for CRISPR base editing" }), "ab{Enter}");

      expect(await screen.findByRole("button", { name: "Save" })).toBeEnabled();
      expect(latestToast()).toMatchObject({
        title: "Update Failed",
        description: "Search term must be at least 3 characters",
        variant: "destructive",
      });
      expect(screen.getByRole("textbox", { name: "New text for CRISPR base editing" })).toHaveValue("ab");
      expect(callsTo(fetchMock, TERMS_PATH)).toBe(0);
    });
    it("text the server refuses: its message at the input, tied to it, and focus back there to correct it", async () => {
      const message = "Search term must be at least 3 characters";
      stubFetch({
        "PATCH /api/search-terms/t1": { status: 400, body: { message, code: "validation_failed", errors: [{ field: "term", message }] } },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Edit CRISPR base editing" }));
      const input = screen.getByRole("textbox", { name: "New text for CRISPR base editing" });
      await user.clear(input);
      await user.type(input, "ab{Enter}");

      const fieldMessage = await screen.findByRole("alert");
      expect(fieldMessage).toHaveTextContent(message);
      expect(input).toHaveAttribute("aria-invalid", "true");
      expect(input).toHaveAttribute("aria-describedby", fieldMessage.id);
      expect(input).toHaveFocus();
      expect(latestToast()).toMatchObject({ title: "Update Failed", description: message });

      await user.type(input, "c");
      expect(screen.queryByRole("alert")).not.toBeInTheDocument();
      expect(input).not.toHaveAttribute("aria-invalid");
    });
  });

  describe("delete", () => {
    it("asks first, then deletes, says so and reloads the queue", async () => {
      const fetchMock = stubFetch({
        "DELETE /api/search-terms/t1": { status: 200, body: { success: true, id: "t1" } },
        [`GET ${TERMS_PATH}`]: { status: 200, body: [] },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Delete CRISPR base editing" }));
      const dialog = screen.getByRole("dialog", { name: "Delete this search term?" });
      expect(dialog).toHaveTextContent("CRISPR base editing");
      expect(callsTo(fetchMock, "/api/search-terms/t1")).toBe(0);

      await user.click(within(dialog).getByRole("button", { name: "Delete" }));
      expect(await screen.findByText("No search terms yet. Add one above to get your first digest.")).toBeInTheDocument();
      expect(fetchMock).toHaveBeenCalledWith("/api/search-terms/t1", expect.objectContaining({ method: "DELETE" }));
      expect(latestToast()).toMatchObject({ title: "Search Term Deleted", variant: "success" });
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    });

    it("Cancel keeps the term", async () => {
      const fetchMock = stubFetch({});
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Delete CRISPR base editing" }));
      await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
      expect(screen.getByText("CRISPR base editing")).toBeInTheDocument();
      expect(changesSent(fetchMock)).toBe(0);
    });

    it("a refused delete says 'Delete Failed' with the server's message", async () => {
      stubFetch({
        "DELETE /api/search-terms/t1": { status: 500, body: { message: "Database unavailable" } },
        [`GET ${TERMS_PATH}`]: { status: 200, body: [term()] },
      });
      const user = renderQueue([term()]);
      await user.click(screen.getByRole("button", { name: "Delete CRISPR base editing" }));
      await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Delete" }));
      expect(await screen.findByRole("button", { name: "Delete CRISPR base editing" })).toBeInTheDocument();
      expect(latestToast()).toMatchObject({ title: "Delete Failed", description: "Database unavailable", variant: "destructive" });
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    });
  });
});
