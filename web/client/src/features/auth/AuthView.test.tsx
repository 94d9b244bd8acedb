import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { currentUser, forgetSession, setCurrentUser, signOut, type CurrentUser } from "@/state/session";
import { AuthView } from "./AuthView";
import { callsTo, latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch } from "@/test/harness";

const USER: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };

function renderAuth(at = "/auth") {
  return renderRoute(<AuthView />, { at, routePath: "/auth" });
}

const location = () => screen.getByTestId("location").textContent;

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  resetToasts();
  setCurrentUser(null);
});
afterEach(() => vi.unstubAllGlobals());

describe("/auth tabs", () => {
  it("opens the signup tab by default and for an unknown tab", () => {
    renderAuth();
    expect(screen.getByRole("tab", { name: "Sign up" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByText("Get started with your first search term free")).toBeVisible();
  });

  it("falls back to signup for an unknown tab value", () => {
    renderAuth("/auth?tab=bogus");
    expect(screen.getByText("Get started with your first search term free")).toBeVisible();
  });

  it("opens the tab named in the query", () => {
    renderAuth("/auth?tab=login");
    expect(screen.getByRole("tab", { name: "Sign in" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("heading", { name: "Welcome back" })).toBeVisible();
    expect(screen.queryByText("Get started with your first search term free")).not.toBeInTheDocument();
  });

  it("opens the forgot-password view from the query", () => {
    renderAuth("/auth?tab=forgot-password");
    expect(screen.getByRole("heading", { name: "Reset your password" })).toBeVisible();
  });

  it("writes the chosen tab into the URL, keeping other parameters", async () => {
    const user = userEvent.setup();
    renderAuth("/auth?redirect=subscribe");
    await user.click(screen.getByRole("tab", { name: "Sign in" }));
    expect(location()).toBe("/auth?redirect=subscribe&tab=login");
    expect(screen.getByRole("heading", { name: "Welcome back" })).toBeVisible();
    await user.click(screen.getByRole("tab", { name: "Sign up" }));
    expect(location()).toBe("/auth?redirect=subscribe&tab=signup");
  });

  it("goes from sign-in to forgot password and back", async () => {
    const user = userEvent.setup();
    renderAuth("/auth?tab=login");
    await user.click(screen.getByRole("link", { name: "Forgot password?" }));
    expect(location()).toBe("/auth?tab=forgot-password");
    expect(screen.getByRole("heading", { name: "Reset your password" })).toBeVisible();
    await user.click(screen.getByRole("link", { name: "Back to sign in" }));
    expect(location()).toBe("/auth?tab=login");
    expect(screen.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  });
});

describe("/auth for someone already signed in", () => {
  beforeEach(forgetSession);

  it("goes on to /dashboard?email=…", async () => {
    stubFetch({ "GET /api/auth/me": { status: 200, body: { user: USER } } });
    renderAuth("/auth?tab=login");
    expect(await screen.findByText("/dashboard page")).toBeInTheDocument();
    expect(location()).toBe("/dashboard?email=ada%40example.org");
  });

  it("carries the kept topic along: &pendingSearch=…", async () => {
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    stubFetch({ "GET /api/auth/me": { status: 200, body: { user: USER } } });
    renderAuth();
    await screen.findByText("/dashboard page");
    expect(location()).toBe("/dashboard?email=ada%40example.org&pendingSearch=CRISPR+base+editing");
  });

  it("goes to /subscribe when it was opened with redirect=subscribe", async () => {
    stubFetch({ "GET /api/auth/me": { status: 200, body: { user: USER } } });
    renderAuth("/auth?redirect=subscribe");
    expect(await screen.findByText("/subscribe page")).toBeInTheDocument();
  });

  it("a visitor (401) stays on the forms, and the page asks only once", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    renderAuth("/auth?tab=login");
    await waitFor(() => expect(callsTo(fetchMock, "/api/auth/me")).toBe(1));
    expect(screen.getByRole("heading", { name: "Welcome back" })).toBeVisible();
    expect(location()).toBe("/auth?tab=login");
  });

  it("after signing out the page does not send the user back", async () => {
    const fetchMock = stubFetch({ "POST /api/auth/logout": { status: 200, body: {} } });
    setCurrentUser(USER);
    await signOut();
    renderAuth("/auth");
    expect(screen.getByRole("heading", { name: "Create your account" })).toBeVisible();
    expect(location()).toBe("/auth");
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(0);
  });
});

describe("/auth pending search", () => {
  it("without a pending search: no banner, 'Back to home' to /", async () => {
    const user = userEvent.setup();
    renderAuth();
    expect(screen.queryByText("Ready to search")).not.toBeInTheDocument();
    expect(screen.queryByText(/Back to search/)).not.toBeInTheDocument();
    await user.click(screen.getByRole("link", { name: /Back to home/ }));
    expect(location()).toBe("/");
  });

  it("with a pending search: banner with the topic, 'Back to search' drops it and goes to /", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    renderAuth();
    const banner = screen.getByText("Ready to search").parentElement as HTMLElement;
    expect(within(banner).getByText("CRISPR base editing")).toBeInTheDocument();
    expect(screen.queryByText(/Back to home/)).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: /Back to search/ }));
    expect(location()).toBe("/");
    expect(sessionStorage.getItem("pendingSearch")).toBeNull();
  });

  it("also reads the pendingSearchTerm key", () => {
    sessionStorage.setItem("pendingSearchTerm", "dark matter");
    renderAuth();
    expect(screen.getByText("dark matter")).toBeInTheDocument();
  });
});

describe("/auth signup tab", () => {
  async function fillValidSignup(user: ReturnType<typeof userEvent.setup>) {
    await user.type(screen.getByLabelText("Email"), "ada@example.org");
    await user.type(screen.getByLabelText("Password"), "Secret-123");
    await user.type(screen.getByLabelText("Confirm password"), "Secret-123");
    await user.click(screen.getByRole("checkbox", { name: /Terms and Conditions/ }));
    await user.click(screen.getByRole("checkbox", { name: /Privacy Policy/ }));
  }

  it("shows every rule's message on an empty submit and sends nothing", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderAuth();
    await user.click(screen.getByRole("button", { name: "Create account" }));
    for (const message of [
      "Please enter a valid email address",
      "Password must be at least 8 characters long",
      "You must agree to the Terms and Conditions",
      "You must agree to the Privacy Policy",
    ]) {
      expect(screen.getByText(message)).toBeInTheDocument();
    }
    expect(screen.queryByText(/must contain/)).not.toBeInTheDocument();
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByRole("checkbox", { name: /Terms and Conditions/ })).toHaveAttribute("aria-invalid", "true");
    expect(callsTo(fetchMock, "/api/signup")).toBe(0);
  });

  it("updates the messages as the user fixes the fields", async () => {
    const user = userEvent.setup();
    stubFetch({});
    renderAuth();
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await user.type(screen.getByLabelText("Password"), "tide po");
    expect(screen.getByText("Password must be at least 8 characters long")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Password"), "ol");
    expect(screen.queryByText("Password must be at least 8 characters long")).not.toBeInTheDocument();
    expect(screen.getByText("Passwords don't match")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Confirm password"), "tide pool");
    expect(screen.queryByText("Passwords don't match")).not.toBeInTheDocument();
  });

  it("links the policies in new tabs", () => {
    renderAuth();
    const terms = screen.getByRole("link", { name: "Terms and Conditions" });
    expect(terms).toHaveAttribute("href", "/terms");
    expect(terms).toHaveAttribute("target", "_blank");
    const privacy = within(screen.getByRole("checkbox", { name: /Privacy Policy/ }).parentElement as HTMLElement).getByRole("link", {
      name: "Privacy Policy",
    });
    expect(privacy).toHaveAttribute("href", "/privacy");
    expect(privacy).toHaveAttribute("target", "_blank");
  });

  it("creates the account, toasts, shows 'check your email' and can resend the mail", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({
      "POST /api/signup": { status: 201, body: { message: "created", requiresVerification: true, user: USER } },
      "POST /api/auth/resend-verification": { status: 200, body: { message: "sent" } },
    });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("combobox", { name: /Research field/ }));
    await user.click(await screen.findByRole("option", { name: "Computer Science" }));
    await user.click(screen.getByRole("button", { name: "Create account" }));

    expect(await screen.findByRole("heading", { name: "Check your email" })).toBeVisible();
    expect(requestBody(fetchMock, "/api/signup")).toEqual({
      email: "ada@example.org",
      researchField: "computer-science",
      password: "Secret-123",
      confirmPassword: "Secret-123",
      agreeToTerms: true,
      agreeToPrivacy: true,
    });
    expect(latestToast()).toMatchObject({ title: "Account Created Successfully!" });
    expect(latestToast().description).toMatch(/check your email.*spam/i);

    await user.click(screen.getByRole("button", { name: "Resend verification email" }));
    await waitFor(() => expect(requestBody(fetchMock, "/api/auth/resend-verification")).toEqual({ email: "ada@example.org" }));
  });

  it("sends the topic kept before signing up, so the server keeps it with the account", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    const fetchMock = stubFetch({ "POST /api/signup": { status: 201, body: { message: "created", requiresVerification: true, user: USER } } });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("heading", { name: "Check your email" })).toBeVisible();
    expect(requestBody(fetchMock, "/api/signup")).toMatchObject({ email: "ada@example.org", pendingSearch: "CRISPR base editing" });
  });

  it("sends the seed papers beside the pending topic, only when some were given", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    const fetchMock = stubFetch({ "POST /api/signup": { status: 201, body: { message: "created", requiresVerification: true, user: USER } } });
    renderAuth();
    await fillValidSignup(user);
    const toggle = screen.getByRole("button", { name: "Seed it with papers you know (optional)" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.click(toggle);
    await user.type(screen.getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" }), "10.1038/x{Enter}34265844");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("heading", { name: "Check your email" })).toBeVisible();
    expect(requestBody(fetchMock, "/api/signup")).toMatchObject({
      pendingSearch: "CRISPR base editing",
      seeds: { ids: "10.1038/x\n34265844" },
    });
  });

  it("lists the server's word on each bad seed under them, and keeps the form", async () => {
    const user = userEvent.setup();
    const errors = ['Line 1 ("foo"): Not a DOI, PMID or arXiv id', "PMID 99999999 was not found"];
    stubFetch({
      "POST /api/signup": {
        status: 400,
        body: { code: "validation_failed", message: "Some seed papers could not be used.", errors: errors.map((message) => ({ field: "seeds", message })) },
      },
    });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("button", { name: "Seed it with papers you know (optional)" }));
    await user.type(screen.getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" }), "foo{Enter}99999999");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    const list = await screen.findByRole("list", { name: "Problems with the seed papers" });
    expect(within(list).getAllByRole("listitem").map((item) => item.textContent)).toEqual(errors);
    expect(list.closest("[role=alert]")).not.toBeNull();
    expect(screen.queryByRole("heading", { name: "Check your email" })).not.toBeInTheDocument();
  });

  it("disables the button while the account is being created", async () => {
    const user = userEvent.setup();
    let answer: (reply: { status: number; body: unknown }) => void = () => {};
    stubFetch({ "POST /api/signup": () => new Promise((resolve) => (answer = resolve)) });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("button", { name: "Creating account..." })).toBeDisabled();
    answer({ status: 201, body: { message: "created", requiresVerification: true, user: USER } });
    expect(await screen.findByRole("heading", { name: "Check your email" })).toBeVisible();
  });

  it("toasts the server's message when the email is taken", async () => {
    const user = userEvent.setup();
    const message = "An account with this email already exists. Please sign in instead.";
    stubFetch({ "POST /api/signup": { status: 409, body: { message, code: "email_taken" } } });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ description: message, variant: "destructive" }));
    expect(screen.queryByRole("heading", { name: "Check your email" })).not.toBeInTheDocument();
  });

  it("shows the server's field messages beside the fields", async () => {
    const user = userEvent.setup();
    stubFetch({
      "POST /api/signup": {
        status: 400,
        body: { message: "Please enter a valid email address", code: "validation_failed", errors: [{ field: "email", message: "Please enter a valid email address" }] },
      },
    });
    renderAuth();
    await fillValidSignup(user);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Please enter a valid email address");
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
  });

  it("shows the server's refusal of a common password under the password field", async () => {
    const user = userEvent.setup();
    const message = "This password is on a list of common or leaked passwords that attackers try first; please choose another";
    stubFetch({ "POST /api/signup": { status: 400, body: { message, code: "validation_failed", errors: [{ field: "password", message }] } } });
    renderAuth();
    await user.type(screen.getByLabelText("Email"), "ada@example.org");
    await user.type(screen.getByLabelText("Password"), "Password1");
    await user.type(screen.getByLabelText("Confirm password"), "Password1");
    await user.click(screen.getByRole("checkbox", { name: /Terms and Conditions/ }));
    await user.click(screen.getByRole("checkbox", { name: /Privacy Policy/ }));
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription(message);
    await waitFor(() => expect(latestToast()).toMatchObject({ description: message, variant: "destructive" }));
  });
});

describe("/auth login tab", () => {
  async function signIn(user: ReturnType<typeof userEvent.setup>, email = "ada@example.org") {
    await user.type(screen.getByLabelText("Email"), email);
    await user.type(screen.getByLabelText("Password"), "Secret-123");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
  }

  it("requires a valid email and a password", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderAuth("/auth?tab=login");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(screen.getByText("Please enter a valid email address")).toBeInTheDocument();
    expect(screen.getByText("Password is required")).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/auth/login")).toBe(0);
  });

  it("goes to /dashboard?email=… and remembers the user", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/auth/login": { status: 200, body: { message: "ok", user: USER } } });
    renderAuth("/auth?tab=login");
    await signIn(user);
    expect(await screen.findByText("/dashboard page")).toBeInTheDocument();
    expect(location()).toBe("/dashboard?email=ada%40example.org");
    expect(requestBody(fetchMock, "/api/auth/login")).toEqual({ email: "ada@example.org", password: "Secret-123" });
    expect(latestToast()).toMatchObject({ title: "Welcome back!" });
    expect(currentUser.value?.email).toBe("ada@example.org");
  });

  it("carries the pending search to the dashboard", async () => {
    const user = userEvent.setup();
    sessionStorage.setItem("pendingSearch", "CRISPR base editing");
    stubFetch({ "POST /api/auth/login": { status: 200, body: { message: "ok", user: USER } } });
    renderAuth("/auth?tab=login");
    await signIn(user);
    await screen.findByText("/dashboard page");
    const query = new URLSearchParams(location()?.split("?")[1]);
    expect(query.get("email")).toBe("ada@example.org");
    expect(query.get("pendingSearch")).toBe("CRISPR base editing");
  });

  it("goes to /subscribe when it was opened with redirect=subscribe", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 200, body: { message: "ok", user: USER } } });
    renderAuth("/auth?tab=login&redirect=subscribe");
    await signIn(user);
    await screen.findByText("/subscribe page");
    expect(location()).toBe("/subscribe");
  });

  it("toasts 'Login Failed' with the server's message and stays", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 429, body: { message: "Too many attempts. Please try again in 5 minutes." } } });
    renderAuth("/auth?tab=login");
    await signIn(user);
    await waitFor(() =>
      expect(latestToast()).toMatchObject({ title: "Login Failed", description: "Too many attempts. Please try again in 5 minutes." }),
    );
    expect(location()).toBe("/auth?tab=login");
  });

  it("defaults to 'Invalid email or password'", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/auth/login": { status: 502, body: "Bad gateway" } });
    renderAuth("/auth?tab=login");
    await signIn(user);
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Login Failed", description: "Invalid email or password" }));
  });

  it("offers to resend the verification mail to an unverified account", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({
      "POST /api/auth/login": {
        status: 403,
        body: { code: "email_not_verified", requiresVerification: true, message: "Please verify your email address before signing in." },
      },
      "POST /api/auth/resend-verification": { status: 200, body: { message: "sent" } },
    });
    renderAuth("/auth?tab=login");
    await signIn(user);
    await user.click(await screen.findByRole("button", { name: "Resend verification email" }));
    await waitFor(() => expect(requestBody(fetchMock, "/api/auth/resend-verification")).toEqual({ email: "ada@example.org" }));
  });
});

describe("/auth forgot-password view", () => {
  it("requires a valid email", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({});
    renderAuth("/auth?tab=forgot-password");
    await user.type(screen.getByLabelText("Email"), "ada@");
    await user.click(screen.getByRole("button", { name: "Send reset link" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Please enter a valid email address");
    expect(callsTo(fetchMock, "/api/forgot-password")).toBe(0);
  });

  it("toasts 'Password Reset Email Sent' without repeating what the server said", async () => {
    const user = userEvent.setup();
    const fetchMock = stubFetch({ "POST /api/forgot-password": { status: 200, body: { message: "server text" } } });
    renderAuth("/auth?tab=forgot-password");
    await user.type(screen.getByLabelText("Email"), "ada@example.org");
    await user.click(screen.getByRole("button", { name: "Send reset link" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ title: "Password Reset Email Sent" }));
    expect(latestToast().description).toMatch(/^If an account exists/);
    expect(requestBody(fetchMock, "/api/forgot-password")).toEqual({ email: "ada@example.org" });
  });

  it("defaults its error to 'Failed to send password reset email'", async () => {
    const user = userEvent.setup();
    stubFetch({ "POST /api/forgot-password": { status: 500 } });
    renderAuth("/auth?tab=forgot-password");
    await user.type(screen.getByLabelText("Email"), "ada@example.org");
    await user.click(screen.getByRole("button", { name: "Send reset link" }));
    await waitFor(() => expect(latestToast()).toMatchObject({ description: "Failed to send password reset email", variant: "destructive" }));
  });
});
