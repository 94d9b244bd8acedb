import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { currentUser, setCurrentUser } from "@/state/session";
import { latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";
import { DashboardHeader } from "./DashboardHeader";
import { YourDataCard } from "./YourDataCard";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "pro" as const };
const EXPORT = { exportedAt: "2026-11-28T04:00:00Z", account: { email: "ada@example.org" }, searchTerms: [{ term: "CRISPR" }] };

function renderCard() {
  setCurrentUser(USER);
  const user = userEvent.setup();
  renderRoute(<YourDataCard user={USER} />, { at: "/dashboard", routePath: "/dashboard" });
  return user;
}

/** Captures what the card offers as a download: the link's name and the Blob's text. */
function watchDownloads() {
  const saved: Array<{ name: string; blob: Blob }> = [];
  const blobs = new Map<string, Blob>();
  const { createObjectURL, revokeObjectURL } = URL;
  URL.createObjectURL = (blob: Blob) => {
    const url = `blob:test/${blobs.size}`;
    blobs.set(url, blob);
    return url;
  };
  URL.revokeObjectURL = () => {};
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: blobs.get(this.href) as Blob });
  });
  const restore = () => {
    click.mockRestore();
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = revokeObjectURL;
  };
  return { saved, restore };
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetToasts();
  setCurrentUser(null);
});
afterEach(() => vi.unstubAllGlobals());

describe("YourDataCard", () => {
  it("downloads the user's data as the file the server names", async () => {
    const mock = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
      new Response(JSON.stringify(EXPORT), {
        status: 200,
        headers: { "Content-Type": "application/json", "Content-Disposition": 'attachment; filename="papertide-data-2026-11-28.json"' },
      }),
    );
    vi.stubGlobal("fetch", mock);
    const downloads = watchDownloads();
    const user = renderCard();
    await user.click(screen.getByRole("button", { name: "Download my data" }));
    await waitFor(() => expect(downloads.saved).toHaveLength(1));
    downloads.restore();
    expect(String(mock.mock.calls[0]?.[0])).toBe("/api/users/u1/export");
    expect(downloads.saved[0].name).toBe("papertide-data-2026-11-28.json");
    expect(JSON.parse(await downloads.saved[0].blob.text())).toEqual(EXPORT);
    expect(screen.getByRole("button", { name: "Download my data" })).toBeEnabled();
  });

  it("says why a download failed", async () => {
    stubFetch({ "GET /api/users/u1/export": { status: 503, body: { code: "busy", message: "The server is busy. Please try again in a minute." } } });
    const user = renderCard();
    await user.click(screen.getByRole("button", { name: "Download my data" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Download Failed", description: "The server is busy. Please try again in a minute." }));
  });

  it("keeps the account on a wrong password and shows why in the dialog", async () => {
    stubFetch({ "POST /api/users/u1/delete": { status: 403, body: { code: "wrong_password", message: "That password is not right." } } });
    const user = renderCard();
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    const dialog = screen.getByRole("dialog", { name: "Delete your account?" });
    expect(dialog).toHaveTextContent("cannot be undone");
    expect(dialog).toHaveTextContent("A paid plan is cancelled");
    expect(dialog).toHaveTextContent("one mail");
    await user.type(within(dialog).getByLabelText("Your password"), "not-it");
    await user.click(within(dialog).getByRole("button", { name: "Delete my account" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("That password is not right.");
    expect(screen.getByRole("dialog")).toBeInTheDocument();
    expect(currentUser.value?.email).toBe("ada@example.org");
    expect(screen.getByTestId("location")).toHaveTextContent("/dashboard");
  });

  it("deletes the account with the password, ends the session and goes to the landing page", async () => {
    const mock = stubFetch({ "POST /api/users/u1/delete": { status: 200, body: { message: "Your account has been deleted." } } });
    const user = renderCard();
    await user.click(screen.getByRole("button", { name: "Delete my account" }));
    const dialog = screen.getByRole("dialog", { name: "Delete your account?" });
    await user.type(within(dialog).getByLabelText("Your password"), "Secret-123");
    await user.click(within(dialog).getByRole("button", { name: "Delete my account" }));
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/$/));
    expect(requestBody(mock, "/api/users/u1/delete")).toEqual({ password: "Secret-123" });
    expect(currentUser.value).toBeNull();
    expect(latestToast()).toMatchObject({ variant: "success", description: "Your account has been deleted." });
  });
});

describe("DashboardHeader", () => {
  it("links to the operator console only for an operator", () => {
    stubFetch({});
    const { unmount } = renderRoute(<DashboardHeader user={USER} />, { at: "/dashboard", routePath: "/dashboard" });
    expect(screen.queryByRole("link", { name: "Operator console" })).toBeNull();
    unmount();
    renderRoute(<DashboardHeader user={{ ...USER, isAdmin: true }} />, { at: "/dashboard", routePath: "/dashboard" });
    expect(screen.getByRole("link", { name: "Operator console" })).toHaveAttribute("href", "/admin");
  });
});
