import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { forgetSession, type CurrentUser } from "@/state/session";
import { callsTo, held, latestToast, polyfillBrowserApis, renderRoute, type Reply, requestBody, resetToasts, stubFetch } from "@/test/harness";
import { TestEmailPage } from "@/pages/TestEmail";
import { TestEmailScreen } from "./TestEmailScreen";

const ADA: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };
const PRO: CurrentUser = { id: "u3", email: "pat@example.org", subscriptionTier: "pro" };
const OPERATOR: CurrentUser = { id: "u2", email: "ops@example.org", subscriptionTier: "team", isAdmin: true };

type Handlers = Parameters<typeof stubFetch>[0];

function signedIn(user: CurrentUser, extra: Handlers = {}) {
  return stubFetch({ "GET /api/auth/me": { status: 200, body: { user } }, ...extra });
}

async function showScreen() {
  const user = userEvent.setup();
  renderRoute(<TestEmailScreen />, { at: "/test-email", routePath: "/test-email" });
  return user;
}

const emailInput = () => screen.getByRole("textbox", { name: "Email address" });
const button = (name: string) => screen.getByRole("button", { name });
/** A paid plan's actions; the free plan has the first two. */
const ACTIONS = ["Send Welcome Email", "Send Sample Digest", "Trigger Weekly Digest"];
const FREE_ACTIONS = ACTIONS.slice(0, 2);

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetToasts();
  forgetSession();
});
afterEach(() => vi.unstubAllGlobals());

describe("/test-email", () => {
  it("shows a spinner while checking who is signed in", async () => {
    stubFetch({ "GET /api/auth/me": () => new Promise<Reply>(() => {}) });
    await showScreen();
    expect(screen.getByRole("heading", { name: "Email testing", level: 1 })).toBeInTheDocument();
    expect(screen.getByRole("status", { name: "Checking your sign-in" })).toBeInTheDocument();
  });

  it("asks a visitor to sign in", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    const user = await showScreen();
    const signIn = await screen.findByRole("link", { name: "Sign in" });
    expect(signIn).toHaveAttribute("href", "/auth?tab=login");
    expect(screen.queryByRole("textbox")).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Send Welcome Email" })).not.toBeInTheDocument();
    await user.click(signIn);
    expect(screen.getByTestId("location")).toHaveTextContent("/auth?tab=login");
    expect(callsTo(fetchMock, "/api/test-email")).toBe(0);
  });

  it("says so when the sign-in check fails, and tries again on request", async () => {
    let answer: Reply = { status: 500, body: { message: "Database unavailable" } };
    stubFetch({ "GET /api/auth/me": () => answer });
    const user = await showScreen();
    expect(await screen.findByRole("alert")).toHaveTextContent("We could not check whether you are signed in.");
    answer = { status: 200, body: { user: ADA } };
    await user.click(button("Try again"));
    expect(await screen.findByRole("textbox", { name: "Email address" })).toHaveValue("ada@example.org");
  });

  it("a signed-in user gets their address prefilled, the three actions and the own-address rule", async () => {
    signedIn(PRO);
    await showScreen();
    expect(await screen.findByRole("textbox", { name: "Email address" })).toHaveValue("pat@example.org");
    for (const name of ACTIONS) expect(button(name)).toBeEnabled();
    expect(screen.getByText("Test mail goes to your own address.")).toBeInTheDocument();
    expect(screen.queryByText(/as an operator/)).not.toBeInTheDocument();
  });

  it("tells an operator that any address may be used", async () => {
    signedIn(OPERATOR);
    await showScreen();
    expect(await screen.findByRole("textbox", { name: "Email address" })).toHaveValue("ops@example.org");
    expect(screen.getByText(/as an operator you may send it to any address/)).toBeInTheDocument();
  });

  it("an empty address: 'Please enter an email address' and no request", async () => {
    const fetchMock = signedIn(ADA);
    const user = await showScreen();
    await user.clear(await screen.findByRole("textbox", { name: "Email address" }));
    await user.type(emailInput(), "   ");
    await user.click(button("Send Welcome Email"));
    expect(screen.getByRole("alert")).toHaveTextContent("Please enter an email address");
    expect(emailInput()).toHaveAttribute("aria-invalid", "true");
    await user.click(button("Send Sample Digest"));
    expect(callsTo(fetchMock, "/api/test-email")).toBe(0);
    expect(latestToast()).toBeUndefined();

    await user.type(emailInput(), "ada@example.org");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("sends the welcome mail to the own address: buttons disabled meanwhile, then 'Test Email Sent' with the server's message", async () => {
    const welcome = held({ status: 200, body: { success: true, message: "Test mail queued for ada@example.org." } });
    const fetchMock = signedIn(ADA, { "POST /api/test-email": welcome.handler });
    const user = await showScreen();
    await user.type(await screen.findByRole("textbox", { name: "Email address" }), "  ");
    await user.click(button("Send Welcome Email"));
    for (const name of FREE_ACTIONS) expect(button(name)).toBeDisabled();
    expect(requestBody(fetchMock, "/api/test-email")).toEqual({ email: "ada@example.org", type: "welcome" });
    welcome.release();
    await waitFor(() => expect(latestToast()?.title).toBe("Test Email Sent"));
    expect(latestToast()?.description).toBe("Test mail queued for ada@example.org.");
    for (const name of FREE_ACTIONS) expect(button(name)).toBeEnabled();
  });

  it("sends a sample digest with type digest", async () => {
    const fetchMock = signedIn(ADA, { "POST /api/test-email": { status: 200, body: { success: true, message: "Test mail queued for ada@example.org." } } });
    const user = await showScreen();
    await user.click(await screen.findByRole("button", { name: "Send Sample Digest" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Test Email Sent"));
    expect(requestBody(fetchMock, "/api/test-email")).toEqual({ email: "ada@example.org", type: "digest" });
  });

  it("a sample digest before any digest: 'Failed to send test email' with the server's reason", async () => {
    const reason = "There is no digest to send yet: add a search term first, and the sample shows its latest results.";
    signedIn(ADA, { "POST /api/test-email": { status: 400, body: { message: reason } } });
    const user = await showScreen();
    await user.click(await screen.findByRole("button", { name: "Send Sample Digest" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Failed to send test email"));
    expect(latestToast()?.description).toBe(reason);
    expect(latestToast()?.variant).toBe("destructive");
    for (const name of FREE_ACTIONS) expect(button(name)).toBeEnabled();
  });

  it("another address is refused for a user who is not an operator", async () => {
    const fetchMock = signedIn(ADA, {
      "POST /api/test-email": (body) =>
        (body as { email: string }).email === "ada@example.org"
          ? { status: 200, body: { success: true, message: "Test mail queued for ada@example.org." } }
          : { status: 403, body: { message: "Test mail goes only to your own address." } },
    });
    const user = await showScreen();
    await user.clear(await screen.findByRole("textbox", { name: "Email address" }));
    await user.type(emailInput(), "grace@example.org");
    await user.click(button("Send Welcome Email"));
    await waitFor(() => expect(latestToast()?.title).toBe("Failed to send test email"));
    expect(latestToast()?.description).toBe("Test mail goes only to your own address.");
    expect(requestBody(fetchMock, "/api/test-email")).toEqual({ email: "grace@example.org", type: "welcome" });
  });

  it("an operator may send to another address", async () => {
    const fetchMock = signedIn(OPERATOR, {
      "POST /api/test-email": { status: 200, body: { success: true, message: "Test mail queued for grace@example.org." } },
    });
    const user = await showScreen();
    await user.clear(await screen.findByRole("textbox", { name: "Email address" }));
    await user.type(emailInput(), "grace@example.org{Enter}");
    await waitFor(() => expect(latestToast()?.title).toBe("Test Email Sent"));
    expect(latestToast()?.description).toBe("Test mail queued for grace@example.org.");
    expect(requestBody(fetchMock, "/api/test-email")).toEqual({ email: "grace@example.org", type: "welcome" });
  });

  it("a rate-limited request shows the server's message", async () => {
    signedIn(ADA, { "POST /api/test-email": { status: 429, body: { message: "Too many test mails. Please try again later." } } });
    const user = await showScreen();
    await user.click(await screen.findByRole("button", { name: "Send Welcome Email" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Failed to send test email"));
    expect(latestToast()?.description).toBe("Too many test mails. Please try again later.");
  });

  it("triggers the weekly digest: buttons disabled meanwhile, then 'Weekly Digest Triggered'", async () => {
    const trigger = held({ status: 200, body: { success: true, digests: 2, papersFound: 7 } });
    const fetchMock = signedIn(PRO, { "POST /api/trigger-digest": trigger.handler });
    const user = await showScreen();
    await user.click(await screen.findByRole("button", { name: "Trigger Weekly Digest" }));
    for (const name of ACTIONS) expect(button(name)).toBeDisabled();
    expect(requestBody(fetchMock, "/api/trigger-digest")).toEqual({});
    trigger.release();
    await waitFor(() => expect(latestToast()?.title).toBe("Weekly Digest Triggered"));
    expect(latestToast()?.description).toBe("2 digests with 7 papers on the way to pat@example.org.");
    for (const name of ACTIONS) expect(button(name)).toBeEnabled();
    expect(callsTo(fetchMock, "/api/test-email")).toBe(0);
  });

  it("the page asks who is signed in once: the header and the form share the answer", async () => {
    const fetchMock = signedIn(ADA);
    renderRoute(<TestEmailPage />, { at: "/test-email", routePath: "/test-email" });
    expect(await screen.findByRole("textbox", { name: "Email address" })).toHaveValue("ada@example.org");
    expect(screen.getByRole("link", { name: "Dashboard" })).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(1);
  });

  it("a free user is not offered Trigger Weekly Digest, which the server refuses on the free plan", async () => {
    signedIn(ADA);
    await showScreen();
    expect(await screen.findByRole("button", { name: "Send Sample Digest" })).toBeEnabled();
    expect(screen.queryByRole("button", { name: "Trigger Weekly Digest" })).not.toBeInTheDocument();
    expect(screen.getByText(/none is built on demand/)).toBeInTheDocument();
  });

  it("a digest that cannot be triggered: 'Failed to trigger digest' with the server's message", async () => {
    signedIn(PRO, {
      "POST /api/trigger-digest": { status: 400, body: { message: "Add a search term first: the weekly digest covers your active terms." } },
    });
    const user = await showScreen();
    await user.click(await screen.findByRole("button", { name: "Trigger Weekly Digest" }));
    await waitFor(() => expect(latestToast()?.title).toBe("Failed to trigger digest"));
    expect(latestToast()?.description).toBe("Add a search term first: the weekly digest covers your active terms.");
    expect(latestToast()?.variant).toBe("destructive");
  });
});
