import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StandaloneSignup } from "./StandaloneSignup";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";

const USER = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };
const CREATED = { status: 201, body: { message: "created", requiresVerification: true, user: USER } };
const location = () => screen.getByTestId("location").textContent;
/** The server's answer to a common password (the list stays on the server). */
const COMMON_PASSWORD = "This password is on a list of common or leaked passwords that attackers try first; please choose another";

function renderSignup(at = "/signup") {
  return renderRoute(<StandaloneSignup />, { at, routePath: "/signup" });
}

async function fill(user: ReturnType<typeof userEvent.setup>, values: Partial<Record<string, string>> = {}) {
  const all = { Email: "ada@example.org", "Research field": "Neuroscience", Password: "secret-1", "Confirm password": "secret-1", ...values };
  for (const [label, value] of Object.entries(all)) {
    if (value) await user.type(screen.getByLabelText(label), value);
  }
  await user.click(screen.getByRole("button", { name: "Create account" }));
}

beforeAll(polyfillBrowserApis);
beforeEach(resetToasts);
afterEach(() => vi.unstubAllGlobals());

describe("/signup", () => {
  it("shows each rule's message and sends nothing", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderSignup();
    await fill(user, { Email: "ada@", "Research field": "", Password: "12345", "Confirm password": "12346" });
    expect(screen.getByText("Please enter a valid email address")).toBeInTheDocument();
    expect(screen.getByText("Password must be at least 8 characters long")).toBeInTheDocument();
    expect(screen.getByText("Passwords don't match")).toBeInTheDocument();
    expect(screen.getByText("Please enter your research field")).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/auth/signup")).toBe(0);
  });

  it.each(["123456", "1234567"])("%s: the 8-character minimum at the field, before anything is sent", async (password) => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/auth/signup": CREATED });
    renderSignup();
    await fill(user, { Password: password, "Confirm password": password });
    const field = screen.getByLabelText("Password");
    expect(screen.getByRole("alert")).toHaveTextContent("Password must be at least 8 characters long");
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(field).toHaveAttribute("aria-describedby", "password-error");
    expect(callsTo(fetchMock, "/api/auth/signup")).toBe(0);
    expect(location()).toBe("/signup");
  });

  it("accepts 8 characters of any kind", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/signup": CREATED });
    renderSignup();
    await fill(user, { Password: "lab-book", "Confirm password": "lab-book" });
    await screen.findByText("/login page");
  });

  it("shows the server's refusal of a common password under the password field", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({
      "POST /api/auth/signup": {
        status: 400,
        body: { message: COMMON_PASSWORD, code: "validation_failed", errors: [{ field: "password", message: COMMON_PASSWORD }] },
      },
    });
    renderSignup();
    await fill(user, { Password: "iloveyou", "Confirm password": "iloveyou" });
    expect(callsTo(fetchMock, "/api/auth/signup")).toBe(1);
    expect(await screen.findByRole("alert")).toHaveTextContent(COMMON_PASSWORD);
    const field = screen.getByLabelText("Password");
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(field).toHaveAccessibleDescription(COMMON_PASSWORD);
    await waitFor(() => expect(latestToast()).toMatchObject({ description: COMMON_PASSWORD, variant: "destructive" }));
    expect(location()).toBe("/signup");
  });

  it("creates the account and goes to /login", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/auth/signup": CREATED });
    renderSignup();
    await fill(user);
    await screen.findByText("/login page");
    expect(location()).toBe("/login");
    expect(latestToast()).toMatchObject({ title: "Account created successfully!" });
    expect(requestBody(fetchMock, "/api/auth/signup")).toEqual({
      email: "ada@example.org",
      password: "secret-1",
      confirmPassword: "secret-1",
      researchField: "Neuroscience",
    });
  });

  it("sends the topic kept before signing up, so the server keeps it with the account", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    const fetchMock = stubFetch({ "POST /api/auth/signup": CREATED });
    renderSignup();
    await fill(user);
    await screen.findByText("/login page");
    expect(requestBody(fetchMock, "/api/auth/signup")).toMatchObject({ email: "ada@example.org", pendingSearch: "CRISPR base editing" });
  });

  it("goes to /login?redirect=subscribe when it came with redirect=subscribe", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/signup": CREATED });
    renderSignup("/signup?redirect=subscribe");
    await fill(user);
    await screen.findByText("/login page");
    expect(location()).toBe("/login?redirect=subscribe");
  });

  it("toasts the server's message and shows its field message", async () => {
    const user = userEvent.setup();
    const message = "Research field contains unsupported characters";
    stubFetch({
      "POST /api/auth/signup": { status: 400, body: { message, code: "validation_failed", errors: [{ field: "researchField", message }] } },
    });
    renderSignup();
    await fill(user);
    await waitFor(() => expect(latestToast()).toMatchObject({ description: message, variant: "destructive" }));
    expect(screen.getByRole("alert")).toHaveTextContent(message);
    expect(screen.getByLabelText("Research field")).toHaveAttribute("aria-invalid", "true");
    expect(location()).toBe("/signup");
  });

  it("defaults to 'Failed to create account' when the server gives no message", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/signup": { status: 500 } });
    renderSignup();
    await fill(user);
    await waitFor(() => expect(latestToast()).toMatchObject({ description: "Failed to create account" }));
  });

  it("says 'Something went wrong. Please try again.' when the network fails", async () => {
    const user = userEvent.setup();
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    renderSignup();
    await fill(user);
    await waitFor(() => expect(latestToast()).toMatchObject({ description: "Something went wrong. Please try again." }));
  });
});
