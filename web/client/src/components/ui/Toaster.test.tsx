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

  it("keeps to the bottom-right corner from `sm` on, at most 420 px wide, clear of dialogs' bottom-left actions", () => {
    render(<Toaster />);
    const viewport = within(screen.getByRole("region", { name: /Notifications/ })).getByRole("list");
    expect(viewport).toHaveClass("sm:bottom-0", "sm:right-0", "sm:top-auto", "sm:max-w-[420px]");
    // Full width only below `sm`, where it sits at the top instead.
    expect(viewport).not.toHaveClass("md:max-w-[420px]");
  });
});
