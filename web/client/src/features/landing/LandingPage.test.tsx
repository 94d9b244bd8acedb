import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { BlogPage } from "@/pages/Blog";
import { LandingPage } from "@/pages/Landing";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { callsTo, stubFetch } from "@/test/harness";

function renderLanding() {
  // The footer asks for the installation config; answer it without a network.
  vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ supportEmail: "help@example.org" }), { status: 200 })));
  render(
    <MemoryRouter initialEntries={["/"]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
      <Routes>
        <Route path="/" element={<LandingPage />} />
        <Route path="/auth" element={<h1>Auth page</h1>} />
        <Route path="/blog" element={<h1>Blog page</h1>} />
      </Routes>
    </MemoryRouter>,
  );
  return userEvent.setup();
}

const topicField = () => screen.getByRole("textbox", { name: "Research topic" });
const startButton = () => screen.getByRole("button", { name: "Start Discovery" });

beforeEach(() => {
  resetAppConfig();
  forgetSession();
});
afterEach(() => vi.unstubAllGlobals());

describe("LandingPage topic form", () => {
  it("does nothing for a blank or whitespace topic", async () => {
    const user = renderLanding();
    expect(startButton()).toBeDisabled();
    await user.type(topicField(), "   ");
    expect(startButton()).toBeDisabled();
    await user.type(topicField(), "{Enter}");
    expect(screen.queryByRole("heading", { name: "Auth page" })).not.toBeInTheDocument();
    expect(sessionStorage.getItem("pendingSearch")).toBeNull();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("stores the trimmed topic and goes to /auth on Start Discovery", async () => {
    const user = renderLanding();
    await user.type(topicField(), "  single-cell RNA sequencing  ");
    await user.click(startButton());
    expect(sessionStorage.getItem("pendingSearch")).toBe("single-cell RNA sequencing");
    expect(screen.getByRole("heading", { name: "Auth page" })).toBeInTheDocument();
  });

  it("submits with Enter too", async () => {
    const user = renderLanding();
    await user.type(topicField(), "protein folding{Enter}");
    expect(sessionStorage.getItem("pendingSearch")).toBe("protein folding");
    expect(screen.getByRole("heading", { name: "Auth page" })).toBeInTheDocument();
  });
});

describe("LandingPage content", () => {
  it("shows the three feature cards", () => {
    renderLanding();
    for (const title of ["Intelligent Discovery", "Smart Curation", "Comprehensive Coverage"]) {
      expect(screen.getByRole("heading", { name: title, level: 3 })).toBeInTheDocument();
    }
  });

  it("links to the dashboard, sign-up and the blog", () => {
    renderLanding();
    expect(screen.getByRole("link", { name: "Access your dashboard" })).toHaveAttribute("href", "/auth");
    expect(screen.getByRole("link", { name: "Get Started Free" })).toHaveAttribute("href", "/auth");
    expect(screen.getByRole("link", { name: "Learn More" })).toHaveAttribute("href", "/blog");
    expect(screen.getByRole("link", { name: "Login" })).toHaveAttribute("href", "/auth");
    expect(screen.getByRole("link", { name: "Blog" })).toHaveAttribute("href", "/blog");
  });

  it("has the footer with legal links, support mail and copyright", async () => {
    renderLanding();
    expect(screen.getByRole("link", { name: "Terms & Conditions" })).toHaveAttribute("href", "/terms");
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy");
    expect(await screen.findByRole("link", { name: "Support" })).toHaveAttribute("href", "mailto:help@example.org");
    expect(screen.getByRole("button", { name: "Cookie Settings" })).toBeInTheDocument();
    expect(screen.getByText("© 2025 Papertide. All rights reserved.")).toBeInTheDocument();
  });
});

describe("LandingPage for someone signed in", () => {
  const ME = { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: "free" } } };

  /** The landing page and the blog under one router, as one page load. */
  function renderSite() {
    render(
      <MemoryRouter initialEntries={["/"]} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <Routes>
          <Route path="/" element={<LandingPage />} />
          <Route path="/blog" element={<BlogPage />} />
        </Routes>
      </MemoryRouter>,
    );
    return userEvent.setup();
  }

  it("offers the dashboard: the header's Dashboard and 'Access your dashboard' to /dashboard?email=…", async () => {
    stubFetch({ "GET /api/auth/me": ME });
    renderSite();
    expect(await screen.findByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.getByRole("link", { name: "Access your dashboard" })).toHaveAttribute("href", "/dashboard?email=ada%40example.org");
    expect(screen.queryByRole("link", { name: "Login" })).not.toBeInTheDocument();
  });

  it("a visitor (401) keeps Login and 'Access your dashboard' to /auth", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    renderSite();
    await waitFor(() => expect(callsTo(fetchMock, "/api/auth/me")).toBe(1));
    expect(screen.getByRole("link", { name: "Login" })).toHaveAttribute("href", "/auth");
    expect(screen.getByRole("link", { name: "Access your dashboard" })).toHaveAttribute("href", "/auth");
  });

  it("asks who is signed in once for the whole page load, across public pages", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": ME });
    const user = renderSite();
    await screen.findByRole("link", { name: "Dashboard" });
    await user.click(screen.getByRole("link", { name: "Learn More" }));
    expect(await screen.findByRole("heading", { level: 1, name: /blog/i })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Dashboard" })).toBeInTheDocument();
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(1);
  });
});
