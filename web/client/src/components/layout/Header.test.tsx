import { render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { forgetSession, setCurrentUser, type CurrentUser } from "@/state/session";
import { callsTo, stubFetch } from "@/test/harness";
import { Header } from "./Header";

const USER: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: "free" };

beforeEach(forgetSession);
afterEach(() => vi.unstubAllGlobals());

function renderHeader() {
  render(
    <MemoryRouter>
      <Header />
    </MemoryRouter>,
  );
}

describe("Header", () => {
  it("offers Login to a visitor (the server answers 401)", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    renderHeader();
    await waitFor(() => expect(callsTo(fetchMock, "/api/auth/me")).toBe(1));
    expect(screen.getByRole("link", { name: "Login" })).toHaveAttribute("href", "/auth");
    expect(screen.queryByRole("link", { name: "Dashboard" })).not.toBeInTheDocument();
  });

  it("asks the server and offers the dashboard to a signed-in user", async () => {
    stubFetch({ "GET /api/auth/me": { status: 200, body: { user: USER } } });
    renderHeader();
    expect(await screen.findByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByRole("link", { name: "Login" })).not.toBeInTheDocument();
  });

  it("offers Login when the server cannot say", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": { status: 500, body: { message: "Database unavailable" } } });
    renderHeader();
    await waitFor(() => expect(callsTo(fetchMock, "/api/auth/me")).toBe(1));
    expect(screen.getByRole("link", { name: "Login" })).toBeInTheDocument();
  });

  it("does not ask again once the page knows (a sign-in told it)", () => {
    const fetchMock = stubFetch({});
    setCurrentUser(USER);
    renderHeader();
    expect(screen.getByRole("link", { name: "Dashboard" })).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(0);
  });
});
