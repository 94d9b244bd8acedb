import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { currentUser, setCurrentUser } from "@/state/session";
import { forgetOnceRequests } from "@/lib/api";
import { callsTo, polyfillBrowserApis, renderRoute, resetToasts, stubFetch } from "@/test/harness";
import { VerifyEmail } from "./VerifyEmail";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };
const VERIFIED = { status: 200, body: { success: true, message: "Email verified successfully", user: USER } };
const location = () => screen.getByTestId("location").textContent;

function renderVerify(at: string, strict = false) {
  return renderRoute(<VerifyEmail />, { at, routePath: "/verify-email", strict });
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetToasts();
  forgetOnceRequests();
  setCurrentUser(null);
});
afterEach(() => vi.unstubAllGlobals());

describe("/verify-email", () => {
  it("without a token: 'Invalid Verification Link' and Return Home", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderVerify("/verify-email");
    expect(screen.getByRole("heading", { name: "Invalid Verification Link" })).toBeVisible();
    expect(screen.getByText("No verification token provided")).toBeVisible();
    await user.click(screen.getByRole("button", { name: "Return Home" }));
    expect(location()).toBe("/");
    expect(callsTo(fetchMock, "/api/verify-email")).toBe(0);
  });

  it("shows a spinner while verifying", async () => {
    stubFetch({ "GET /api/verify-email": () => new Promise(() => {}) });
    renderVerify("/verify-email?token=slow");
    expect(screen.getByRole("status", { name: "Verifying your email" })).toBeInTheDocument();
  });

  it("failed: the server's message and Create New Account", async () => {
    const user = userEvent.setup();
    stubFetch({ "GET /api/verify-email": { status: 400, body: { success: false, message: "This link was already used." } } });
    renderVerify("/verify-email?token=used");
    expect(await screen.findByRole("heading", { name: "Verification Failed" })).toBeVisible();
    expect(screen.getByText("This link was already used.")).toBeVisible();
    await user.click(screen.getByRole("button", { name: "Create New Account" }));
    expect(location()).toBe("/signup");
  });

  it("failed without a message: the default text", async () => {
    stubFetch({ "GET /api/verify-email": { status: 502 } });
    renderVerify("/verify-email?token=broken");
    expect(await screen.findByRole("heading", { name: "Verification Failed" })).toBeVisible();
    expect(screen.getByText("The verification link is invalid or has expired.")).toBeVisible();
  });

  it("success without a pending search: signs the user in and continues to the dashboard", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "GET /api/verify-email": VERIFIED });
    renderVerify("/verify-email?token=good");
    expect(await screen.findByRole("heading", { name: "Email Verified Successfully!" })).toBeVisible();
    expect(screen.queryByRole("button", { name: "Process Search & Continue" })).not.toBeInTheDocument();
    expect(currentUser.value?.email).toBe("ada@example.org");
    expect(String(fetchMock.mock.calls[0][0])).toBe("/api/verify-email?token=good");
    expect(screen.getByText("Your account is ready and you are signed in.")).toBeVisible();
    expect(screen.queryByRole("button", { name: /Sign In/i })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Continue to Dashboard" }));
    expect(location()).toBe("/dashboard?email=ada%40example.org");
  });

  it("success with the topic the server kept (a new tab, nothing in session storage): 'Process Search & Continue' searches it", async () => {
    const user = userEvent.setup();
    stubFetch({ "GET /api/verify-email": { status: 200, body: { ...VERIFIED.body, pendingSearch: "tau propagation" } } });
    renderVerify("/verify-email?token=good");
    await user.click(await screen.findByRole("button", { name: "Process Search & Continue" }));
    expect(await screen.findByRole("dialog", { name: "Processing Your Search" })).toHaveTextContent("tau propagation");
    expect(screen.queryByRole("button", { name: "Continue to Dashboard" })).not.toBeInTheDocument();
  });

  it("the server's topic comes before the one in session storage", async () => {
    sessionStorage.setItem("pendingSearch", "older topic");
    stubFetch({ "GET /api/verify-email": { status: 200, body: { ...VERIFIED.body, pendingSearch: "tau propagation" } } });
    renderVerify("/verify-email?token=good");
    expect(await screen.findByRole("heading", { name: "Email Verified Successfully!" })).toBeVisible();
    expect(screen.getByText("tau propagation")).toBeVisible();
    expect(screen.queryByText("older topic")).not.toBeInTheDocument();
  });

  it("pendingSearch null from the server falls back to session storage", async () => {
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    stubFetch({ "GET /api/verify-email": { status: 200, body: { ...VERIFIED.body, pendingSearch: null } } });
    renderVerify("/verify-email?token=good");
    expect(await screen.findByRole("button", { name: "Process Search & Continue" })).toBeVisible();
    expect(screen.getByText("CRISPR base editing")).toBeVisible();
  });

  it("success with a pending search: 'Process Search & Continue' opens the progress dialog", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    stubFetch({ "GET /api/verify-email": VERIFIED });
    renderVerify("/verify-email?token=good");
    await user.click(await screen.findByRole("button", { name: "Process Search & Continue" }));
    const dialog = await screen.findByRole("dialog", { name: "Processing Your Search" });
    expect(dialog).toHaveTextContent("CRISPR base editing");
    expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "10");
    expect(screen.queryByRole("button", { name: "Continue to Dashboard" })).not.toBeInTheDocument();
  });

  it("verifies a token only once under StrictMode", async () => {
    const fetchMock = stubFetch({ "GET /api/verify-email": VERIFIED });
    renderVerify("/verify-email?token=once", true);
    expect(await screen.findByRole("heading", { name: "Email Verified Successfully!" })).toBeVisible();
    expect(callsTo(fetchMock, "/api/verify-email")).toBe(1);
  });
});
