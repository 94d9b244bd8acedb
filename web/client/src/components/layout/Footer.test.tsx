import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router-dom";
import { resetAppConfig } from "@/state/config";
import { Footer } from "./Footer";

beforeEach(() => resetAppConfig());
afterEach(() => vi.unstubAllGlobals());

describe("Footer", () => {
  it.each(["dark", "light"] as const)("opens Cookie Preferences from Cookie Settings (%s)", async (variant) => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ supportEmail: "help@example.org" }), { status: 200 })));
    render(
      <MemoryRouter future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <Footer variant={variant} />
      </MemoryRouter>,
    );
    expect(await screen.findByRole("link", { name: "Support" })).toHaveAttribute("href", "mailto:help@example.org");
    await userEvent.click(screen.getByRole("button", { name: "Cookie Settings" }));
    expect(screen.getByRole("dialog", { name: "Cookie Preferences" })).toBeInTheDocument();
  });

  it("leaves out the Support link when the installation has no support address", async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ supportEmail: null, analytics: null, billingEnabled: false }), { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);
    render(
      <MemoryRouter future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <Footer variant="light" />
      </MemoryRouter>,
    );
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await act(() => Promise.resolve());
    expect(screen.getByRole("link", { name: "Privacy Policy" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Support" })).not.toBeInTheDocument();
    expect(document.querySelector('a[href^="mailto:"]')).toBeNull();
  });
});
