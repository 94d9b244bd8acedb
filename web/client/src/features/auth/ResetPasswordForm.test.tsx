import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ResetPasswordForm } from "./ResetPasswordForm";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";

const location = () => screen.getByTestId("location").textContent;
/** The server's answer to a common password (the list stays on the server). */
const COMMON_PASSWORD = "This password is on a list of common or leaked passwords that attackers try first; please choose another";

function renderReset(at: string) {
  return renderRoute(<ResetPasswordForm />, { at, routePath: "/reset-password" });
}

async function fill(user: ReturnType<typeof userEvent.setup>, password: string, confirmation: string) {
  if (password) await user.type(screen.getByLabelText("New Password"), password);
  if (confirmation) await user.type(screen.getByLabelText("Confirm New Password"), confirmation);
  await user.click(screen.getByRole("button", { name: "Reset password" }));
}

beforeAll(polyfillBrowserApis);
beforeEach(resetToasts);
afterEach(() => vi.unstubAllGlobals());

describe("/reset-password", () => {
  it("without a token: toasts 'Invalid Reset Link' and goes to /auth", async () => {
    stubFetch({});
    renderReset("/reset-password");
    await screen.findByText("/auth page");
    expect(location()).toBe("/auth");
    expect(latestToast()).toMatchObject({
      title: "Invalid Reset Link",
      description: "This password reset link is invalid or expired.",
      variant: "destructive",
    });
  });

  it("applies the 8-character minimum, no composition rules, and 'Passwords do not match'", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderReset("/reset-password?token=t1");
    await fill(user, "", "");
    expect(screen.getByRole("alert")).toHaveTextContent("Password must be at least 8 characters long");
    expect(screen.queryByText(/must contain/)).not.toBeInTheDocument();
    await user.type(screen.getByLabelText("New Password"), "Secret-123");
    await user.type(screen.getByLabelText("Confirm New Password"), "Secret-12");
    expect(screen.getByText("Passwords do not match")).toBeInTheDocument();
    expect(screen.queryByText(/Password must/)).not.toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/reset-password")).toBe(0);
  });

  it("success: 'Password Reset Complete' and Sign In to the login tab", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/reset-password": { status: 200, body: { message: "done" } } });
    renderReset("/reset-password?token=t1");
    await fill(user, "Secret-123", "Secret-123");
    expect(await screen.findByRole("heading", { name: "Password Reset Complete" })).toBeVisible();
    expect(requestBody(fetchMock, "/api/reset-password")).toEqual({ token: "t1", password: "Secret-123", confirmPassword: "Secret-123" });
    await user.click(screen.getByRole("button", { name: "Sign In" }));
    expect(location()).toBe("/auth?tab=login");
  });

  it("failure: 'Password Reset Failed' with the server's message", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/reset-password": { status: 400, body: { message: "This password reset link is invalid or expired." } } });
    renderReset("/reset-password?token=t1");
    await fill(user, "Secret-123", "Secret-123");
    await waitFor(() =>
      expect(latestToast()).toMatchObject({ title: "Password Reset Failed", description: "This password reset link is invalid or expired." }),
    );
    expect(screen.queryByRole("heading", { name: "Password Reset Complete" })).not.toBeInTheDocument();
  });

  it("a password the server refuses: its message under the new password field", async () => {
    const user = userEvent.setup();
    stubFetch({
      "POST /api/reset-password": {
        status: 400,
        body: { message: COMMON_PASSWORD, code: "validation_failed", errors: [{ field: "password", message: COMMON_PASSWORD }] },
      },
    });
    renderReset("/reset-password?token=t1");
    await fill(user, "qwertyuiop", "qwertyuiop");
    expect(await screen.findByRole("alert")).toHaveTextContent(COMMON_PASSWORD);
    expect(screen.getByLabelText("New Password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("New Password")).toHaveAccessibleDescription(COMMON_PASSWORD);
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Password Reset Failed", description: COMMON_PASSWORD }));
    expect(screen.queryByRole("heading", { name: "Password Reset Complete" })).not.toBeInTheDocument();
  });

  it("failure without a message: the default text", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/reset-password": { status: 500 } });
    renderReset("/reset-password?token=t1");
    await fill(user, "Secret-123", "Secret-123");
    await waitFor(() =>
      expect(latestToast()).toMatchObject({ description: "Failed to reset password. The reset link may be invalid or expired." }),
    );
  });

  it("has a 'Back to sign in' link", () => {
    renderReset("/reset-password?token=t1");
    expect(screen.getByRole("link", { name: "Back to sign in" })).toHaveAttribute("href", "/auth?tab=login");
  });
});
