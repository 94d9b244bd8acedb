import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { setCurrentUser } from "@/state/session";
import { Header } from "./Header";

afterEach(() => setCurrentUser(null));

function renderHeader() {
  render(
    <MemoryRouter>
      <Header />
    </MemoryRouter>,
  );
}

describe("Header", () => {
  it("offers Login to a visitor", () => {
    renderHeader();
    expect(screen.getByRole("link", { name: "Login" })).toHaveAttribute("href", "/auth");
    expect(screen.queryByRole("link", { name: "Dashboard" })).not.toBeInTheDocument();
  });

  it("offers the dashboard to someone known to be signed in", () => {
    setCurrentUser({ id: "u1", email: "ada@example.org", subscriptionTier: "free" });
    renderHeader();
    expect(screen.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByRole("link", { name: "Login" })).not.toBeInTheDocument();
  });
});
