import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SubscribePage } from "@/pages/Subscribe";
import { resetAppConfig } from "@/state/config";
import { forgetSession, type Tier } from "@/state/session";
import { renderRoute, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG } from "@/test/stripe";

const BILLING_OFF_CONFIG: Reply = { status: 200, body: { supportEmail: "help@example.org", analytics: null, billingEnabled: false, stripe: null } };

function serve({ tier, config = BILLING_ON_CONFIG }: { tier: Tier | null; config?: Reply }) {
  return stubFetch({
    "GET /api/config": config,
    "GET /api/auth/me": tier
      ? { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: tier } } }
      : { status: 401, body: { message: "Not authenticated" } },
  });
}

async function renderPlans(at = "/subscribe") {
  const user = userEvent.setup();
  renderRoute(<SubscribePage />, { at, routePath: "/subscribe" });
  await screen.findByRole("heading", { level: 1, name: "Choose Your Plan" });
  return user;
}

const card = (name: string) => screen.getByRole("region", { name });
const location = () => screen.getByTestId("location").textContent;

beforeEach(() => {
  resetAppConfig();
  forgetSession();
});
afterEach(() => vi.unstubAllGlobals());

describe("/subscribe with billing on", () => {
  it("shows the three plans with their prices and what each includes", async () => {
    serve({ tier: "free" });
    await renderPlans();
    expect(within(card("Free")).getByText("$0")).toBeInTheDocument();
    expect(card("Pro")).toHaveTextContent("$5/month");
    expect(card("Team")).toHaveTextContent("$10/month");
    const free = within(card("Free")).getByRole("list", { name: "What the Free plan includes" });
    expect(within(free).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "✓1 search term",
      "✓PubMed only",
      "✓Digests delivered on Mondays",
      "✓2 free digests",
    ]);
    for (const [name, terms] of [
      ["Pro", "5 search terms"],
      ["Team", "10 search terms (more: contact support)"],
    ]) {
      const list = within(card(name)).getByRole("list");
      expect(list).toHaveTextContent(terms);
      expect(list).toHaveTextContent("All 4 sources: PubMed, arXiv, bioRxiv and medRxiv");
      expect(list).toHaveTextContent("Choice of delivery day");
      expect(list).toHaveTextContent("Priority email support");
      // Every plan ranks alike, and this installation gives every plan one chat model.
      expect(list).not.toHaveTextContent(/advanced/i);
    }
  });

  it("promises a more advanced AI model only where paid plans get one", async () => {
    serve({ tier: "free", config: { ...BILLING_ON_CONFIG, body: { ...BILLING_ON_CONFIG.body, advancedModel: true } } });
    await renderPlans();
    expect(within(card("Free")).getByRole("list")).toHaveTextContent("Standard AI model for summaries and scoring");
    for (const name of ["Pro", "Team"]) {
      const list = within(card(name)).getByRole("list");
      expect(list).toHaveTextContent("A more advanced AI model for summaries and scoring");
      expect(list).not.toHaveTextContent("Advanced relevance scoring");
    }
  });

  it("lists the workflows each plan gives, as the server's plans say", async () => {
    const entitled = (tier: Tier, labChannels: boolean) => ({ tier, maxSearchTerms: 1, seeds: true, feeds: true, citations: true, labChannels });
    const plans = [entitled("free", false), entitled("pro", false), entitled("team", true)];
    serve({ tier: "free", config: { ...BILLING_ON_CONFIG, body: { ...BILLING_ON_CONFIG.body, plans } } });
    await renderPlans();
    const workflows = ["Seed topics with papers you know", "Private Atom feeds", "Citations for Zotero, Mendeley and EndNote"];
    const lines = (name: string) => within(within(card(name)).getByRole("list")).getAllByRole("listitem").map((item) => item.textContent?.replace("✓", ""));
    for (const name of ["Free", "Pro", "Team"]) expect(lines(name)).toEqual(expect.arrayContaining(workflows));
    expect(lines("Team")).toContain("Digests posted to your lab's Slack or Mattermost");
    expect(lines("Pro")).not.toContain("Digests posted to your lab's Slack or Mattermost");
    expect(lines("Free")).not.toContain("Digests posted to your lab's Slack or Mattermost");
  });

  it("a visitor: no plan badge, and every plan leads to signing in first", async () => {
    serve({ tier: null });
    const user = await renderPlans();
    expect(screen.queryByText(/Current plan:/)).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Current Plan" })).not.toBeInTheDocument();
    await user.click(within(card("Team")).getByRole("button", { name: "Upgrade to Team" }));
    expect(location()).toBe("/login?redirect=subscribe");
  });

  it("a visitor's back button leads home, not to a dashboard they do not have", async () => {
    serve({ tier: null });
    await renderPlans();
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.queryByRole("link", { name: "Back to Dashboard" })).toBeNull();
  });

  it("a visitor's Pro button and Free button", async () => {
    serve({ tier: null });
    const user = await renderPlans();
    expect(within(card("Free")).getByRole("button", { name: "Get Started Free" })).toBeEnabled();
    await user.click(within(card("Pro")).getByRole("button", { name: "Upgrade to Pro" }));
    expect(location()).toBe("/login?redirect=subscribe");
  });

  it.each([
    ["Pro", "/checkout?tier=pro"],
    ["Team", "/checkout?tier=team"],
  ])("a free user: Free is the current plan, and %s goes to %s", async (plan, address) => {
    serve({ tier: "free" });
    const user = await renderPlans();
    expect(screen.getByText(/Current plan:/)).toHaveTextContent("Current plan: Free");
    expect(within(card("Free")).getByRole("button", { name: "Current Plan" })).toBeDisabled();
    await user.click(within(card(plan)).getByRole("button", { name: `Upgrade to ${plan}` }));
    expect(location()).toBe(address);
  });

  it("a Pro user: Free is not offered, Pro is current, Team goes to the card form with the email", async () => {
    serve({ tier: "pro" });
    const user = await renderPlans();
    expect(screen.getByText(/Current plan:/)).toHaveTextContent("Current plan: Pro");
    const downgrade = within(card("Free")).getByRole("button", { name: "Downgrade Not Available" });
    expect(downgrade).toBeDisabled();
    expect(downgrade).toHaveAccessibleDescription(/A downgrade first requires reducing your search terms to this plan's limits/);
    expect(within(card("Pro")).getByRole("button", { name: "Current Plan" })).toBeDisabled();
    await user.click(within(card("Team")).getByRole("button", { name: "Upgrade to Team" }));
    expect(location()).toBe("/payment?tier=team&email=ada%40example.org");
  });

  it("a Team user: nothing to upgrade to, both lower plans disabled", async () => {
    serve({ tier: "team" });
    await renderPlans();
    expect(within(card("Team")).getByRole("button", { name: "Current Plan" })).toBeDisabled();
    expect(within(card("Pro")).getByRole("button", { name: "Downgrade Not Available" })).toBeDisabled();
    expect(within(card("Free")).getByRole("button", { name: "Downgrade Not Available" })).toBeDisabled();
    expect(screen.queryByRole("button", { name: /^Upgrade/ })).not.toBeInTheDocument();
  });

  it("?tier=team highlights the Team plan only", async () => {
    serve({ tier: "free" });
    await renderPlans("/subscribe?tier=team");
    expect(within(card("Team")).getByText("Selected plan")).toBeInTheDocument();
    expect(screen.getAllByText("Selected plan")).toHaveLength(1);
  });

  it("no tier, or an unknown one, highlights nothing", async () => {
    serve({ tier: "free" });
    await renderPlans("/subscribe?tier=gold");
    expect(screen.queryByText("Selected plan")).not.toBeInTheDocument();
  });

  it("the FAQ: downgrades need fewer terms first, more than 10 terms means writing to support", async () => {
    serve({ tier: "free" });
    await renderPlans();
    const faq = screen.getByRole("region", { name: "Frequently Asked Questions" });
    expect(faq).toHaveTextContent("A downgrade first requires reducing your search terms to the target plan's limits (1 on Free, 5 on Pro).");
    expect(faq).toHaveTextContent("What if I need more than 10 search terms?");
    expect(await within(faq).findByRole("link", { name: "help@example.org" })).toHaveAttribute("href", "mailto:help@example.org");
  });

  it("the terms and the privacy policy open in new tabs; the back button leads to the dashboard", async () => {
    serve({ tier: "free" });
    await renderPlans();
    for (const [name, href] of [
      ["Terms and Conditions", "/terms"],
      ["Privacy Policy", "/privacy"],
    ]) {
      const link = within(screen.getByRole("main")).getByRole("link", { name });
      expect(link).toHaveAttribute("href", href);
      expect(link).toHaveAttribute("target", "_blank");
      expect(link.getAttribute("rel")).toContain("noopener");
    }
    expect(screen.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/dashboard");
  });
});

describe("/subscribe with billing off", () => {
  it("shows the plans, how plans are set here and whom to write to, and sells nothing", async () => {
    serve({ tier: "free", config: BILLING_OFF_CONFIG });
    await renderPlans();
    const notice = screen.getByRole("region", { name: "Billing is not enabled on this server" });
    expect(notice).toHaveTextContent("Paid plans are not sold on this Papertide server: plans are set by the server's operator.");
    expect(within(notice).getByRole("link", { name: "help@example.org" })).toHaveAttribute("href", "mailto:help@example.org");
    expect(card("Pro")).toHaveTextContent("$5/month");
    expect(within(card("Free")).getByRole("button", { name: "Current Plan" })).toBeDisabled();
    expect(screen.queryByRole("button", { name: /Upgrade/ })).not.toBeInTheDocument();
    expect(card("Team")).toHaveTextContent("Set by this server's operator");
  });

  it("a visitor sees no buttons that lead to payment either", async () => {
    serve({ tier: null, config: BILLING_OFF_CONFIG });
    await renderPlans();
    expect(screen.queryByRole("button", { name: /Upgrade|Get Started/ })).not.toBeInTheDocument();
  });
});
