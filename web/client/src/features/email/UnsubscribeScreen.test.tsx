import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { resetAppConfig } from "@/state/config";
import { callsTo, renderRoute, stubFetch, type Reply } from "@/test/harness";
import { forgetOnceRequests } from "@/lib/api";
import { UnsubscribeScreen } from "./UnsubscribeScreen";

const CONFIG: Reply = { status: 200, body: { supportEmail: "help@example.org", analytics: null, billingEnabled: false } };
const UNSUBSCRIBED: Reply = {
  status: 200,
  body: { success: true, message: "You have been unsubscribed from weekly digests. You can turn them back on in your dashboard." },
};
const INVALID_LINK = "Invalid unsubscribe link. Please check your email for the correct link.";
const FAILED = "Failed to unsubscribe. Please try again later.";

type Handlers = Parameters<typeof stubFetch>[0];

function serve(unsubscribe?: Handlers[string]) {
  return stubFetch({ "GET /api/config": CONFIG, ...(unsubscribe ? { "GET /api/unsubscribe/tok-123": unsubscribe } : {}) });
}

function showScreen(at: string, strict = false) {
  renderRoute(<UnsubscribeScreen />, { at, routePath: "/unsubscribe", strict });
  return userEvent.setup();
}

/** Both outcomes offer the homepage and the installation's support address. */
async function expectHelpLinks() {
  expect(screen.getByRole("link", { name: "Go to homepage" })).toHaveAttribute("href", "/");
  expect(await screen.findByRole("link", { name: "Contact support" })).toHaveAttribute("href", "mailto:help@example.org");
}

beforeEach(() => {
  resetAppConfig();
  forgetOnceRequests();
});
afterEach(() => vi.unstubAllGlobals());

describe("/unsubscribe", () => {
  it.each([
    ["no token", "/unsubscribe"],
    ["a blank token", "/unsubscribe?token=%20%20"],
  ])("with %s: the invalid-link error and no request", async (_case, at) => {
    const fetchMock = serve(UNSUBSCRIBED);
    showScreen(at);
    expect(screen.getByRole("heading", { name: "We could not unsubscribe you" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent(new RegExp(`^${INVALID_LINK}$`));
    await expectHelpLinks();
    expect(fetchMock.mock.calls.filter(([input]) => String(input).startsWith("/api/unsubscribe"))).toHaveLength(0);
  });

  it("shows a spinner while unsubscribing", () => {
    serve(() => new Promise<Reply>(() => {}));
    showScreen("/unsubscribe?token=tok-123");
    expect(screen.getByRole("status", { name: "Unsubscribing" })).toBeInTheDocument();
    expect(screen.queryByRole("heading")).not.toBeInTheDocument();
  });

  it("success: 'You're unsubscribed' with the server's message", async () => {
    const fetchMock = serve(UNSUBSCRIBED);
    const user = showScreen("/unsubscribe?token=tok-123");
    expect(await screen.findByRole("heading", { name: "You're unsubscribed" })).toBeInTheDocument();
    expect(screen.getByText("You have been unsubscribed from weekly digests. You can turn them back on in your dashboard.")).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Unsubscribing" })).not.toBeInTheDocument();
    await expectHelpLinks();
    expect(callsTo(fetchMock, "/api/unsubscribe/tok-123")).toBe(1);
    expect(fetchMock).toHaveBeenCalledWith("/api/unsubscribe/tok-123", expect.objectContaining({ method: "GET", credentials: "include" }));
    await user.click(screen.getByRole("link", { name: "Go to homepage" }));
    expect(screen.getByTestId("location")).toHaveTextContent(/^\/$/);
  });

  it("a token with reserved characters stays one path segment", async () => {
    const fetchMock = stubFetch({ "GET /api/config": CONFIG, "GET /api/unsubscribe/a%2Fb%3Fc": UNSUBSCRIBED });
    showScreen("/unsubscribe?token=a%2Fb%3Fc");
    expect(await screen.findByRole("heading", { name: "You're unsubscribed" })).toBeInTheDocument();
    expect(String(fetchMock.mock.calls.find(([input]) => String(input).startsWith("/api/unsubscribe"))?.[0])).toBe("/api/unsubscribe/a%2Fb%3Fc");
  });

  it("a 404 (no such token) is an invalid link, in the spec's words", async () => {
    serve({ status: 404, body: { message: "Not found" } });
    showScreen("/unsubscribe?token=tok-123");
    expect(await screen.findByRole("heading", { name: "We could not unsubscribe you" })).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("Invalid unsubscribe link. Please check your email for the correct link.");
    await expectHelpLinks();
  });

  it("any other failure: 'Failed to unsubscribe. Please try again later.', not the server's text", async () => {
    serve({ status: 500, body: { message: "sled: io error" } });
    showScreen("/unsubscribe?token=tok-123");
    expect(await screen.findByRole("alert")).toHaveTextContent(new RegExp(`^${FAILED}$`));
    expect(screen.queryByText(/sled/)).not.toBeInTheDocument();
    await expectHelpLinks();
  });

  it("asks the server exactly once under StrictMode", async () => {
    const fetchMock = serve(UNSUBSCRIBED);
    showScreen("/unsubscribe?token=tok-123", true);
    expect(await screen.findByRole("heading", { name: "You're unsubscribed" })).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/unsubscribe/tok-123")).toBe(1);
  });
});
