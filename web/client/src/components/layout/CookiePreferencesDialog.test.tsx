import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CookiePreferencesDialog } from "./CookiePreferencesDialog";
import { clearAllCookies, cookieNames, setCookies } from "@/test/cookies";

const originalLocation = window.location;
let reload: ReturnType<typeof vi.fn>;

beforeEach(() => {
  reload = vi.fn();
  Object.defineProperty(window, "location", { configurable: true, value: { ...originalLocation, reload } });
});

afterEach(() => {
  Object.defineProperty(window, "location", { configurable: true, value: originalLocation });
  clearAllCookies();
});

async function openPreferences() {
  const user = userEvent.setup();
  render(<CookiePreferencesDialog trigger={<button type="button">Cookie Settings</button>} />);
  await user.click(screen.getByRole("button", { name: "Cookie Settings" }));
  const dialog = screen.getByRole("dialog", { name: "Cookie Preferences" });
  return { user, dialog };
}

describe("CookiePreferencesDialog", () => {
  it("shows essential cookies always on and disabled", async () => {
    const { dialog } = await openPreferences();
    const essential = within(dialog).getByRole("switch", { name: "Essential Cookies" });
    expect(essential).toBeChecked();
    expect(essential).toBeDisabled();
  });

  it("starts the analytics switch from the stored analyticsConsent", async () => {
    localStorage.setItem("analyticsConsent", "true");
    const { dialog } = await openPreferences();
    expect(within(dialog).getByRole("switch", { name: "Analytics Cookies" })).toBeChecked();
  });

  it("saving with analytics on stores accepted/true and reloads", async () => {
    const { user, dialog } = await openPreferences();
    const analytics = within(dialog).getByRole("switch", { name: "Analytics Cookies" });
    expect(analytics).not.toBeChecked();
    await user.click(analytics);
    await user.click(within(dialog).getByRole("button", { name: "Save Preferences" }));
    expect(localStorage.getItem("cookieConsent")).toBe("accepted");
    expect(localStorage.getItem("analyticsConsent")).toBe("true");
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("saving with analytics off stores declined/false, deletes analytics cookies and reloads", async () => {
    localStorage.setItem("cookieConsent", "accepted");
    localStorage.setItem("analyticsConsent", "true");
    setCookies("_ga=1", "_gid=1", "_pk_id=1", "other=1");
    const { user, dialog } = await openPreferences();
    await user.click(within(dialog).getByRole("switch", { name: "Analytics Cookies" }));
    await user.click(within(dialog).getByRole("button", { name: "Save Preferences" }));
    expect(localStorage.getItem("cookieConsent")).toBe("declined");
    expect(localStorage.getItem("analyticsConsent")).toBe("false");
    expect(cookieNames()).toEqual(["other"]);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("Cancel closes without storing or reloading", async () => {
    const { user, dialog } = await openPreferences();
    await user.click(within(dialog).getByRole("switch", { name: "Analytics Cookies" }));
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(localStorage.getItem("cookieConsent")).toBeNull();
    expect(localStorage.getItem("analyticsConsent")).toBeNull();
    expect(reload).not.toHaveBeenCalled();
  });
});
