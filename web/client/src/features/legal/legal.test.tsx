import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { NotFoundPage } from "@/pages/NotFound";
import { PrivacyPage } from "@/pages/Privacy";
import { TermsPage } from "@/pages/Terms";
import { loadAppConfig, resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/" element={<h1>Home screen</h1>} />
        <Route path="/terms" element={<TermsPage />} />
        <Route path="/privacy" element={<PrivacyPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

/** The document's numbered section headings ("1. …"), in order. */
function numberedSectionTitles(): string[] {
  const main = screen.getByRole("main");
  return within(main)
    .getAllByRole("heading", { level: 2 })
    .map((heading) => heading.textContent ?? "")
    .filter((text) => /^\d+\. /.test(text));
}

function sectionNamed(name: RegExp): HTMLElement {
  return within(screen.getByRole("main")).getByRole("region", { name });
}

function answerConfigWith(supportEmail: string) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify({ supportEmail, analytics: null, billingEnabled: true }))),
  );
}

beforeEach(() => {
  resetAppConfig();
  forgetSession();
  // The configuration request stays unanswered unless a test answers it.
  vi.stubGlobal("fetch", vi.fn(() => new Promise<Response>(() => {})));
});

afterEach(() => {
  cleanup(); // unmount before the configuration changes under the mounted page
  vi.unstubAllGlobals();
  resetAppConfig();
  document.title = "";
});

describe("/terms", () => {
  it("shows the Terms and Conditions in exactly 10 numbered sections, last updated August 11, 2025", () => {
    renderAt("/terms");
    expect(screen.getByRole("heading", { level: 1, name: "Terms and Conditions" })).toBeInTheDocument();
    const titles = numberedSectionTitles();
    expect(titles).toHaveLength(10);
    expect(titles.map((title) => Number(title.split(".")[0]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(within(screen.getByRole("main")).getByText("Last updated: August 11, 2025")).toBeInTheDocument();
    expect(within(screen.getByRole("main")).getByText(/© 2025 Papertide/)).toBeInTheDocument();
  });

  it("states the plans and prices of spec §9 and how to cancel", () => {
    renderAt("/terms");
    const plans = sectionNamed(/Plans, Billing and Cancellation/);
    expect(plans).toHaveTextContent("one search term and your first two digests, drawn from PubMed");
    expect(plans).toHaveTextContent("$5 per month for up to five search terms");
    expect(plans).toHaveTextContent("$10 per month for up to ten search terms");
    expect(plans).toHaveTextContent(/cancel at any time from your dashboard/);
    expect(sectionNamed(/AI-Generated Summaries/)).toHaveTextContent(/may be incomplete, out of date or simply wrong/);
    expect(sectionNamed(/Self-Hosted Installations/)).toHaveTextContent(/operated by that operator/);
  });

  it("lists each section in the table of contents with a link to it", () => {
    renderAt("/terms");
    const contents = screen.getByRole("navigation", { name: "Contents" });
    const links = within(contents).getAllByRole("link");
    expect(links).toHaveLength(10);
    for (const link of links) {
      const target = link.getAttribute("href")?.slice(1) ?? "";
      expect(document.getElementById(target)?.tagName).toBe("SECTION");
    }
  });

  it("gives the installation's support address as the contact", async () => {
    answerConfigWith("help@lab.example");
    await loadAppConfig();
    renderAt("/terms");
    const contact = sectionNamed(/Contact Us/);
    expect(within(contact).getByRole("link")).toHaveAttribute("href", "mailto:help@lab.example");
    expect(vi.mocked(fetch).mock.calls.filter(([url]) => String(url) === "/api/config")).toHaveLength(1);
  });

  it("names the operator of this server when the installation has no support address", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ supportEmail: null, analytics: null, billingEnabled: false }))));
    await loadAppConfig();
    renderAt("/terms");
    const contact = sectionNamed(/Contact Us/);
    expect(contact).toHaveTextContent("are welcome at the operator of this server.");
    expect(within(contact).queryByRole("link")).not.toBeInTheDocument();
  });

  it("sets the document title while shown and restores it afterwards", () => {
    document.title = "Papertide";
    const { unmount } = renderAt("/terms");
    expect(document.title).toBe("Terms and Conditions | Papertide");
    unmount();
    expect(document.title).toBe("Papertide");
  });
});

describe("/privacy", () => {
  it("shows the Privacy Policy in exactly 11 numbered sections, last updated August 11, 2025", () => {
    renderAt("/privacy");
    expect(screen.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeInTheDocument();
    const titles = numberedSectionTitles();
    expect(titles).toHaveLength(11);
    expect(titles.map((title) => Number(title.split(".")[0]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(titles.some((title) => title.includes("GDPR"))).toBe(true);
    expect(titles.some((title) => title.includes("CCPA"))).toBe(true);
    expect(within(screen.getByRole("main")).getByText("Last updated: August 11, 2025")).toBeInTheDocument();
  });

  it("lists every GDPR right", () => {
    renderAt("/privacy");
    const gdpr = sectionNamed(/GDPR/);
    for (const right of ["Access", "Rectification", "Erasure", "Portability", "Objection", "Restriction", "Complaint"]) {
      expect(within(gdpr).getByText(right)).toBeInTheDocument();
    }
    expect(gdpr).toHaveTextContent(/supervisory authority/);
  });

  it("lists the CCPA rights and says Papertide does not sell personal information", () => {
    renderAt("/privacy");
    const ccpa = sectionNamed(/CCPA/);
    for (const right of ["Know", "Delete", "Opt out of the sale", "Non-discrimination"]) {
      expect(within(ccpa).getByText(right)).toBeInTheDocument();
    }
    expect(ccpa).toHaveTextContent("Papertide does not sell personal information");
  });

  it("covers the data collected, cookies, payments and password hashing", () => {
    renderAt("/privacy");
    const collected = sectionNamed(/Information We Collect/);
    for (const item of ["email address", "research field", "Search terms", "IP address at signup", "Digests sent"]) {
      expect(collected).toHaveTextContent(item);
    }
    const cookies = sectionNamed(/Cookies/);
    expect(cookies).toHaveTextContent(/session cookie that keeps you signed in/);
    expect(cookies).toHaveTextContent(/only if you accept them/);
    expect(sectionNamed(/Payment Processing/)).toHaveTextContent(/payment provider/);
    expect(sectionNamed(/Data Security/)).toHaveTextContent(/passwords stored only as salted hashes/);
  });
});

describe("404", () => {
  it("shows Page Not Found for an unknown path with a link home", async () => {
    const user = userEvent.setup();
    renderAt("/no/such/page");
    expect(screen.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeInTheDocument();
    expect(screen.getByRole("main")).toHaveTextContent("/no/such/page");
    expect(document.title).toBe("Page Not Found | Papertide");

    const home = within(screen.getByRole("main")).getByRole("link", { name: "Go back home" });
    expect(home).toHaveAttribute("href", "/");
    await user.click(home);
    expect(screen.getByRole("heading", { level: 1, name: "Home screen" })).toBeInTheDocument();
  });

  it("is not shown on known paths", () => {
    renderAt("/privacy");
    expect(screen.queryByRole("heading", { name: "Page Not Found" })).toBeNull();
  });
});
