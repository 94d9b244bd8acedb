import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AdminChannel, AdminMail, AdminSources, AdminStats, AdminUser, BackupReport } from "@/api/contract";
import { AdminPage } from "@/pages/Admin";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { latestToast, polyfillBrowserApis, renderRoute, requestBody, resetToasts, stubFetch, type Reply } from "@/test/harness";

type Handlers = Parameters<typeof stubFetch>[0];

const OPERATOR = { id: "op", email: "op@example.org", subscriptionTier: "free", isAdmin: true, isEmailVerified: true };

const weeks = (counts: number[]) => counts.map((count, index) => ({ week: `2026-W${String(36 + index).padStart(2, "0")}`, count }));

const STATS: AdminStats = {
  users: 3,
  verified: 2,
  disabled: 0,
  free: 2,
  pro: 1,
  team: 0,
  operators: 1,
  activeTerms: 4,
  digestsSent: 17,
  signupsByWeek: weeks([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]),
  digestsByWeek: weeks([0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 4, 5]),
};

function adminUser(email: string, change: Partial<AdminUser> = {}): AdminUser {
  return {
    id: email.split("@")[0],
    email,
    plan: "free",
    verified: true,
    operator: false,
    operatorGranted: false,
    operatorByEmail: false,
    disabled: false,
    createdAt: "2026-11-02T10:00:00Z",
    activeTerms: 1,
    terms: 1,
    digestsSent: 2,
    lastDigestAt: null,
    stripeCustomerId: null,
    ...change,
  };
}

const BOB = adminUser("bob@example.org");
const CAROL = adminUser("carol@example.org", { verified: false });
const OP = adminUser("op@example.org", { operator: true, operatorByEmail: true });

const page = (users: AdminUser[]) => ({ status: 200, body: { users, total: users.length, page: 1, pageSize: 50 } });

function operatorApi(extra: Handlers = {}, { billing = false } = {}) {
  return stubFetch({
    "GET /api/auth/me": { status: 200, body: { user: OPERATOR } },
    "GET /api/config": { status: 200, body: { billingEnabled: billing } },
    "GET /api/admin/stats": { status: 200, body: STATS },
    "GET /api/admin/users": page([OP, BOB, CAROL]),
    ...extra,
  });
}

function renderConsole() {
  const user = userEvent.setup();
  renderRoute(<AdminPage />, { at: "/admin", routePath: "/admin" });
  return user;
}

const row = (email: string) => screen.getByText(email, { selector: "td" }).closest("tr") as HTMLElement;
const calls = (mock: ReturnType<typeof stubFetch>, method: string, path: string) =>
  mock.mock.calls.filter(([input, init]) => (init?.method ?? "GET") === method && new URL(String(input), "http://localhost").pathname === path);

beforeAll(polyfillBrowserApis);
beforeEach(() => {
  forgetSession();
  resetAppConfig();
  resetToasts();
});
afterEach(() => vi.unstubAllGlobals());

describe("the operator console", () => {
  it("sends an anonymous visitor to sign in", async () => {
    stubFetch({ "GET /api/auth/me": { status: 401, body: { code: "unauthorized", message: "Please sign in." } } });
    renderConsole();
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent("/auth"));
  });

  it("tells a signed-in user who is not an operator that the page is not theirs, and asks nothing more", async () => {
    const mock = stubFetch({ "GET /api/auth/me": { status: 200, body: { user: { ...OPERATOR, isAdmin: false } } } });
    renderConsole();
    expect(await screen.findByText("This page is for the service's operators.")).toBeInTheDocument();
    expect(screen.queryByRole("tab")).toBeNull();
    expect(calls(mock, "GET", "/api/admin/stats")).toHaveLength(0);
  });

  it("refuses an operator whose email is not verified", async () => {
    stubFetch({ "GET /api/auth/me": { status: 200, body: { user: { ...OPERATOR, isEmailVerified: false } } } });
    renderConsole();
    expect(await screen.findByText("This page is for the service's operators.")).toBeInTheDocument();
  });

  it("shows the server's message when a tab's call is refused", async () => {
    operatorApi({
      "GET /api/admin/stats": { status: 403, body: { code: "operator_only", message: "This page is for the service's operators." } },
      "GET /api/admin/mail": { status: 503, body: { code: "busy", message: "The server is busy. Please try again in a minute." } },
    });
    const user = renderConsole();
    const numbers = await screen.findByRole("region", { name: "Numbers" });
    expect(await within(numbers).findByRole("alert")).toHaveTextContent("This page is for the service's operators.");
    await user.click(screen.getByRole("tab", { name: "Mail" }));
    expect(await within(screen.getByRole("region", { name: "Mail" })).findByRole("alert")).toHaveTextContent("The server is busy.");
  });

  it("shows the numbers, the weeks as bars and the users with their state", async () => {
    operatorApi();
    renderConsole();
    const numbers = await screen.findByRole("region", { name: "Numbers" });
    expect((await within(numbers).findByText("Digests sent")).nextElementSibling).toHaveTextContent("17");
    expect(within(numbers).getByText("Users").nextElementSibling).toHaveTextContent("3");
    const signups = within(numbers).getByRole("list", { name: "Signups per week" });
    expect(within(signups).getAllByRole("listitem")).toHaveLength(12);
    expect(within(signups).getAllByRole("listitem")[11]).toHaveTextContent("2026-W472");
    expect(within(numbers).getByRole("list", { name: "Digests per week" })).toBeInTheDocument();

    await screen.findByText("bob@example.org", { selector: "td" });
    expect(within(row("carol@example.org")).getByRole("button", { name: "Resend verification" })).toBeInTheDocument();
    expect(within(row("bob@example.org")).queryByRole("button", { name: "Resend verification" })).toBeNull();
    // The signed-in operator's own row offers nothing the server refuses on oneself.
    for (const name of ["Remove operator", "Disable", "Delete"]) {
      expect(within(row("op@example.org")).queryByRole("button", { name })).toBeNull();
    }
    expect(within(row("op@example.org")).getByText("Your account")).toBeInTheDocument();
    expect(screen.getByText("Page 1 of 1 · 3 users")).toBeInTheDocument();
    expect(screen.getAllByRole("tab").map((tab) => tab.textContent)).toEqual(["Users", "Sources", "Mail", "Channels", "Backup"]);
  });

  it("searches by part of the email with the plan and verification filters", async () => {
    const mock = operatorApi();
    const user = renderConsole();
    await screen.findByText("bob@example.org", { selector: "td" });
    await user.selectOptions(screen.getByLabelText("Plan"), "team");
    await user.selectOptions(screen.getByLabelText("Verification"), "false");
    await user.type(screen.getByLabelText("Email contains"), "BOB");
    await user.click(screen.getByRole("button", { name: "Search" }));
    await waitFor(() => {
      const last = calls(mock, "GET", "/api/admin/users").at(-1);
      const query = new URL(String(last?.[0]), "http://localhost").searchParams;
      expect(Object.fromEntries(query)).toEqual({ q: "BOB", plan: "team", verified: "false", page: "1" });
    });
  });

  it("pages through the users", async () => {
    const mock = operatorApi({ "GET /api/admin/users": { status: 200, body: { users: [BOB], total: 120, page: 1, pageSize: 50 } } });
    const user = renderConsole();
    await screen.findByText("Page 1 of 3 · 120 users");
    expect(screen.getByRole("button", { name: "Previous" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => {
      const last = calls(mock, "GET", "/api/admin/users").at(-1);
      expect(new URL(String(last?.[0]), "http://localhost").searchParams.get("page")).toBe("2");
    });
  });

  it("sets a plan, makes an operator, disables and re-sends verification, showing each answer", async () => {
    const mock = operatorApi({
      "POST /api/admin/users/bob/plan": (body) => ({ status: 200, body: adminUser("bob@example.org", { plan: (body as { plan: AdminUser["plan"] }).plan }) }),
      "POST /api/admin/users/bob/operator": { status: 200, body: adminUser("bob@example.org", { plan: "team", operator: true }) },
      "POST /api/admin/users/bob/disabled": { status: 200, body: adminUser("bob@example.org", { plan: "team", operator: true, disabled: true }) },
      "POST /api/admin/users/carol/resend-verification": { status: 200, body: { message: "A new verification link was sent to carol@example.org." } },
    });
    const user = renderConsole();
    await screen.findByText("bob@example.org", { selector: "td" });

    await user.selectOptions(screen.getByLabelText("Plan of bob@example.org"), "team");
    await waitFor(() => expect(latestToast()?.title).toBe("Plan Changed"));
    expect(requestBody(mock, "/api/admin/users/bob/plan")).toEqual({ plan: "team" });
    expect(screen.getByLabelText("Plan of bob@example.org")).toHaveValue("team");

    await user.click(within(row("bob@example.org")).getByRole("button", { name: "Make operator" }));
    expect(await within(row("bob@example.org")).findByRole("button", { name: "Remove operator" })).toBeInTheDocument();
    expect(requestBody(mock, "/api/admin/users/bob/operator")).toEqual({ operator: true });

    await user.click(within(row("bob@example.org")).getByRole("button", { name: "Disable" }));
    expect(await within(row("bob@example.org")).findByRole("button", { name: "Enable" })).toBeInTheDocument();
    expect(requestBody(mock, "/api/admin/users/bob/disabled")).toEqual({ disabled: true });

    await user.click(within(row("carol@example.org")).getByRole("button", { name: "Resend verification" }));
    await waitFor(() => expect(latestToast()?.description).toBe("A new verification link was sent to carol@example.org."));
    // Each change rereads the numbers.
    expect(calls(mock, "GET", "/api/admin/stats").length).toBeGreaterThanOrEqual(4);
  });

  it("shows the server's refusal by its message, under a title that says what failed", async () => {
    const ANN = adminUser("ann@example.org", { operator: true, operatorByEmail: true });
    operatorApi({
      "GET /api/admin/users": page([OP, ANN, BOB]),
      "POST /api/admin/users/bob/disabled": {
        status: 409,
        body: { code: "busy", message: "The server is busy. Please try again in a minute." },
      },
    });
    const user = renderConsole();
    await screen.findByText("bob@example.org", { selector: "td" });
    // Another operator by the settings cannot be removed here.
    expect(within(row("ann@example.org")).getByRole("button", { name: "Remove operator" })).toBeDisabled();
    await user.click(within(row("bob@example.org")).getByRole("button", { name: "Disable" }));
    await waitFor(() =>
      expect(latestToast()).toMatchObject({
        title: "Could Not Disable User",
        variant: "destructive",
        description: "The server is busy. Please try again in a minute.",
      }),
    );
    expect(within(row("bob@example.org")).getByRole("button", { name: "Disable" })).toBeEnabled();
  });

  it("deletes a user only once their email is typed", async () => {
    let deleted = false;
    const mock = operatorApi({
      "GET /api/admin/users": () => page(deleted ? [OP, CAROL] : [OP, BOB, CAROL]),
      "DELETE /api/admin/users/bob": () => {
        deleted = true;
        return { status: 200, body: { message: "bob@example.org has been deleted." } };
      },
    });
    const user = renderConsole();
    await screen.findByText("bob@example.org", { selector: "td" });
    await user.click(within(row("bob@example.org")).getByRole("button", { name: "Delete" }));
    const dialog = screen.getByRole("dialog", { name: "Delete this user?" });
    const confirm = within(dialog).getByRole("button", { name: "Delete user" });
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Type bob@example.org to confirm"), "bob@example.com");
    expect(confirm).toBeDisabled();
    await user.clear(within(dialog).getByLabelText("Type bob@example.org to confirm"));
    await user.type(within(dialog).getByLabelText("Type bob@example.org to confirm"), "bob@example.org");
    await user.click(confirm);
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls(mock, "DELETE", "/api/admin/users/bob")).toHaveLength(1);
    await waitFor(() => expect(screen.queryByText("bob@example.org", { selector: "td" })).toBeNull());
    expect(latestToast()?.description).toBe("bob@example.org has been deleted.");
  });

  it("shows the sources and the index, and starts a harvest", async () => {
    const sources: AdminSources = {
      sources: [
        {
          source: "pubmed",
          enabled: true,
          cursor: "2026/11/27",
          lastSuccessAt: "2026-11-27T02:00:00Z",
          lastErrorAt: "2026-11-26T02:00:00Z",
          lastError: "timed out",
          papersDatedLast7Days: 412,
          nextRunAt: "2026-11-28T02:00:00Z",
          running: false,
        },
        { source: "arxiv", enabled: true, cursor: null, lastSuccessAt: null, lastErrorAt: null, lastError: null, papersDatedLast7Days: 0, nextRunAt: null, running: true },
      ],
      index: { papers: 1500, bySource: { pubmed: 1200, arxiv: 300, biorxiv: 0, medrxiv: 0 }, vectors: { model: "all-MiniLM-L6-v2", runtime: "onnx-int8", embedded: 1200, waiting: 300, hoursLeft: 0.5 } },
    };
    const mock = operatorApi({
      "GET /api/admin/sources": { status: 200, body: sources },
      "POST /api/admin/sources/pubmed/harvest": { status: 202, body: { message: "PubMed harvest started." } },
    });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Sources" }));
    const table = await screen.findByRole("table", { name: "Sources" });
    const pubmed = within(table).getByText("PubMed").closest("tr") as HTMLElement;
    expect(pubmed).toHaveTextContent("412");
    expect(pubmed).toHaveTextContent("timed out");
    expect(within(table).getByRole("button", { name: "Harvest arXiv now" })).toBeDisabled();
    const index = screen.getByRole("region", { name: "Index" });
    expect(within(index).getByText("Vector coverage").nextElementSibling).toHaveTextContent("80.0% (1,200 of 1,500)");
    expect(within(index).getByText("all-MiniLM-L6-v2")).toBeInTheDocument();
    expect(within(index).getByText("Runtime").nextElementSibling).toHaveTextContent("onnx-int8");
    expect(within(index).getByText("Time left").nextElementSibling).toHaveTextContent("about 30 minutes");

    await user.click(within(table).getByRole("button", { name: "Harvest PubMed now" }));
    await waitFor(() => expect(latestToast()?.description).toBe("PubMed harvest started."));
    expect(calls(mock, "POST", "/api/admin/sources/pubmed/harvest")).toHaveLength(1);
  });

  it("lists the lab channels, failing ones (3 failures or more) marked and first", async () => {
    const channel = (userEmail: string, failures: number, change: Partial<AdminChannel> = {}): AdminChannel => ({
      userEmail,
      term: `topic of ${userEmail.split("@")[0]}`,
      host: "hooks.slack.com",
      failures,
      lastError: failures > 0 ? `HTTP 404 for ${userEmail}` : null,
      lastPostedAt: "2026-11-27T06:00:00Z",
      pending: failures,
      ...change,
    });
    // In an order the console must not rely on: a failing channel after healthy ones.
    const channels = [
      channel("ann@example.org", 0),
      channel("bea@example.org", 2),
      channel("cid@example.org", 3, { host: "chat.lab.example" }),
      channel("dot@example.org", 0, { lastPostedAt: null }),
      channel("eve@example.org", 7),
    ];
    operatorApi({ "GET /api/admin/channels": { status: 200, body: { channels } } });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Channels" }));
    const table = await screen.findByRole("table", { name: "Lab channels" });
    expect(within(table).getAllByRole("columnheader").map((header) => header.textContent)).toEqual([
      "User",
      "Term",
      "Host",
      "Failures",
      "Last error",
      "Last posted",
      "Pending",
    ]);
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((tableRow) => within(tableRow).getAllByRole("cell")[0].textContent)).toEqual([
      "eve@example.org",
      "cid@example.org",
      "ann@example.org",
      "bea@example.org",
      "dot@example.org",
    ]);
    expect(rows.map((tableRow) => within(tableRow).queryByText("Failing") !== null)).toEqual([true, true, false, false, false]);
    expect(rows[1]).toHaveClass("bg-red-50");
    expect(rows[3]).not.toHaveClass("bg-red-50");
    expect(within(rows[1]).getAllByRole("cell").map((cell) => cell.textContent)).toEqual([
      "cid@example.org",
      "topic of cid",
      "chat.lab.example",
      "3Failing",
      "HTTP 404 for cid@example.org",
      "November 27, 2026 06:00 UTC",
      "3",
    ]);
    expect(within(rows[4]).getAllByRole("cell")[5]).toHaveTextContent("—");
    expect(screen.getByText("2 of 5 failing")).toBeInTheDocument();
  });

  it("says when no lab channel is connected", async () => {
    operatorApi({ "GET /api/admin/channels": { status: 200, body: { channels: [] } } });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Channels" }));
    expect(await screen.findByText("No lab channel is connected.")).toBeInTheDocument();
    expect(screen.queryByRole("table", { name: "Lab channels" })).toBeNull();
  });

  it("shows the mail state and retries or drops dead mail", async () => {
    const mail: AdminMail = {
      transport: "smtp",
      smtp: { state: "failing", lastSuccessAt: null, lastErrorAt: "2026-11-27T06:00:00Z", lastError: "connection refused" },
      queued: 2,
      dead: [{ id: "m1", to: "bob@example.org", subject: "Your weekly digest", failedAt: "2026-11-27T06:00:00Z", attempts: 5, error: "550 no such user" }],
    };
    const mock = operatorApi({
      "GET /api/admin/mail": { status: 200, body: mail },
      "POST /api/admin/mail/dead/m1/retry": { status: 200, body: { message: "The mail is queued again." } },
      "DELETE /api/admin/mail/dead/m1": { status: 200, body: { message: "The mail was dropped." } },
    });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Mail" }));
    const state = await screen.findByRole("region", { name: "Mail" });
    expect(within(state).getByText("SMTP", { selector: "dt" }).nextElementSibling).toHaveTextContent("Failing");
    expect(within(state).getByText("Queued").nextElementSibling).toHaveTextContent("2");
    const dead = screen.getByRole("table", { name: "Dead mail" });
    expect(dead).toHaveTextContent("550 no such user");
    await user.click(within(dead).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(latestToast()?.description).toBe("The mail is queued again."));
    await user.click(within(screen.getByRole("table", { name: "Dead mail" })).getByRole("button", { name: "Drop" }));
    await waitFor(() => expect(latestToast()?.description).toBe("The mail was dropped."));
    expect(calls(mock, "DELETE", "/api/admin/mail/dead/m1")).toHaveLength(1);
  });

  it("shows Billing only with billing on: paying users apart from free or canceled ones, with Repair on each", async () => {
    const mock = operatorApi(
      {
        "GET /api/admin/billing": {
          status: 200,
          body: {
            enabled: true,
            users: [
              {
                id: "bob",
                email: "bob@example.org",
                plan: "pro",
                stripeCustomerId: "cus_1",
                subscriptionId: "sub_1",
                status: "active",
                currentPeriodEnd: "2026-12-20T00:00:00Z",
                cancelAtPeriodEnd: false,
              },
              {
                id: "cleo",
                email: "cleo@example.org",
                plan: "free",
                stripeCustomerId: "cus_2",
                subscriptionId: "sub_2",
                status: "canceled",
                currentPeriodEnd: "2026-11-20T00:00:00Z",
                cancelAtPeriodEnd: false,
              },
              {
                id: "dan",
                email: "dan@example.org",
                plan: "pro",
                stripeCustomerId: "cus_3",
                subscriptionId: "sub_3",
                status: "canceled",
                currentPeriodEnd: "2026-11-21T00:00:00Z",
                cancelAtPeriodEnd: false,
              },
            ],
          },
        },
        "POST /api/admin/users/bob/repair-subscription": { status: 200, body: { changed: true, tier: "team" } },
      },
      { billing: true },
    );
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Billing" }));
    const table = await screen.findByRole("table", { name: "Paid users" });
    expect(table).toHaveTextContent("sub_1");
    // Only paying accounts there: a free or canceled one is listed apart.
    expect(table).not.toHaveTextContent("cleo@example.org");
    expect(table).not.toHaveTextContent("dan@example.org");
    const others = screen.getByRole("table", { name: /^Other subscriptions on record/ });
    expect(others).toHaveTextContent("cleo@example.org");
    expect(others).toHaveTextContent("dan@example.org");
    await user.click(within(table).getByRole("button", { name: "Repair" }));
    await waitFor(() => expect(latestToast()?.description).toBe("bob@example.org is now on the team plan."));
    expect(calls(mock, "POST", "/api/admin/users/bob/repair-subscription")).toHaveLength(1);
  });

  it("backs up now and shows the report", async () => {
    const report: BackupReport = {
      path: "/srv/backups/papertide-2026-11-28T040000Z",
      createdAt: "2026-11-28T04:00:00Z",
      schemaVersion: 7,
      storeBytes: 3 * 1024 * 1024,
      indexBytes: 1536,
      files: 12,
      users: 3,
      papers: 1500,
      tookMs: 2300,
    };
    const mock = operatorApi({ "POST /api/admin/backup": { status: 200, body: report } });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Backup" }));
    await user.click(screen.getByRole("button", { name: "Back up now" }));
    expect(await screen.findByText("Backup complete.")).toBeInTheDocument();
    expect(screen.getByText(report.path)).toBeInTheDocument();
    expect(screen.getByText("Database").nextElementSibling).toHaveTextContent("3.0 MB");
    expect(screen.getByText("Took").nextElementSibling).toHaveTextContent("2.3 s");
    expect(requestBody(mock, "/api/admin/backup")).toEqual({ dest: null });
  });

  it("tells the operator to set PAPERTIDE_BACKUP_DIR when it is unset", async () => {
    operatorApi({
      "POST /api/admin/backup": { status: 409, body: { code: "backup_dir_unset", message: "No backup folder is set." } } satisfies Reply,
    });
    const user = renderConsole();
    await user.click(await screen.findByRole("tab", { name: "Backup" }));
    await user.click(screen.getByRole("button", { name: "Back up now" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("No backup folder is set.");
    expect(alert).toHaveTextContent("Set PAPERTIDE_BACKUP_DIR");
  });
});
