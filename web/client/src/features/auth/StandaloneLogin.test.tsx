import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { currentUser, setCurrentUser } from "@/state/session";
import { StandaloneLogin } from "./StandaloneLogin";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };
const location = () => screen.getByTestId("location").textContent;

function renderLogin(at = "/login") {
  return renderRoute(<StandaloneLogin />, { at, routePath: "/login" });
}

async function signIn(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText("Email"), "ada@example.org");
  await user.type(screen.getByLabelText("Password"), "Secret-123");
  await user.click(screen.getByRole("button", { name: "Sign in" }));
}

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetToasts();
  setCurrentUser(null);
});
afterEach(() => vi.unstubAllGlobals());

describe("/login", () => {
  it("asks for a valid email and a password", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderLogin();
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByText("Please enter a valid email address")).toBeInTheDocument();
    expect(screen.getByText("Please enter your password")).toBeInTheDocument();
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription("Please enter your password");
    expect(callsTo(fetchMock, "/api/auth/login")).toBe(0);
  });

  it("links to /signup", () => {
    renderLogin();
    expect(screen.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/signup");
  });

  it("goes to /dashboard?email=… after 'Login Successful!'", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/auth/login": { status: 200, body: { message: "ok", user: USER } } });
    renderLogin();
    await signIn(user);
    await screen.findByText("/dashboard page");
    expect(location()).toBe("/dashboard?email=ada%40example.org");
    expect(latestToast()).toMatchObject({ title: "Login Successful!" });
    expect(requestBody(fetchMock, "/api/auth/login")).toEqual({ email: "ada@example.org", password: "Secret-123" });
    expect(currentUser.value?.id).toBe("u1");
  });

  it("goes to /subscribe with redirect=subscribe", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 200, body: { message: "ok", user: USER } } });
    renderLogin("/login?redirect=subscribe");
    await signIn(user);
    await screen.findByText("/subscribe page");
    expect(location()).toBe("/subscribe");
  });

  it("toasts 'Login failed' with the server's message", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 401, body: { message: "Invalid email or password" } } });
    renderLogin();
    await signIn(user);
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Login failed", description: "Invalid email or password" }));
    expect(location()).toBe("/login");
  });

  it("defaults to 'Login failed. Please check your credentials.'", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 500 } });
    renderLogin();
    await signIn(user);
    await waitFor(() =>
      expect(latestToast()).toMatchObject({ title: "Login failed", description: "Login failed. Please check your credentials." }),
    );
  });

  it("disables the button while signing in", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": () => new Promise(() => {}) });
    renderLogin();
    await signIn(user);
    expect(await screen.findByRole("button", { name: "Signing in..." })).toBeDisabled();
  });
});
