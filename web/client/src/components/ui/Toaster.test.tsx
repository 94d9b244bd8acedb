import { act, render, screen, within } from "@testing-library/react";
import { toast, toasts } from "@/state/toast";
import { Toaster } from "./Toaster";

beforeEach(() => {
  toasts.value = [];
});

describe("Toaster", () => {
  it("shows the toast in a region F8 focuses", () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Email Resent", description: "Check your inbox." });
    });
    const region = screen.getByRole("region", { name: /Notifications \(F8\)/ });
    expect(within(region).getByText("Email Resent")).toBeInTheDocument();
  });

  it("keeps to the bottom: the bottom-right corner from `sm` on, at most 420 px wide; a bar along the bottom on a phone, never the top", () => {
    render(<Toaster />);
    const viewport = within(screen.getByRole("region", { name: /Notifications/ })).getByRole("list");
    expect(viewport).toHaveClass("bottom-0", "inset-x-0", "sm:left-auto", "sm:right-0", "sm:max-w-[420px]");
    expect(viewport).not.toHaveClass("top-0");
    // The empty region lets clicks through to what is under it.
    expect(viewport).toHaveClass("pointer-events-none");
  });
});
