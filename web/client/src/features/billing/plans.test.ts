import type { PlanEntitlements } from "@/api/contract";
import { planBenefits, workflowBenefits } from "./plans";

/** What every server gives today: seeds, feeds and citations on every plan, lab channels on Team. */
const PLANS: PlanEntitlements[] = [
  { tier: "free", maxSearchTerms: 1, seeds: true, feeds: true, citations: true, labChannels: false },
  { tier: "pro", maxSearchTerms: 5, seeds: true, feeds: true, citations: true, labChannels: false },
  { tier: "team", maxSearchTerms: 10, seeds: true, feeds: true, citations: true, labChannels: true },
];

const WORKFLOWS = ["Seed topics with papers you know", "Private Atom feeds", "Citations for Zotero, Mendeley and EndNote"];
const LAB_CHANNELS = "Digests posted to your lab's Slack or Mattermost";

describe("plan benefits from the server's entitlements", () => {
  it.each([
    ["seeds", "Seed topics with papers you know"],
    ["feeds", "Private Atom feeds"],
    ["citations", "Citations for Zotero, Mendeley and EndNote"],
    ["labChannels", LAB_CHANNELS],
  ] as const)("%s alone: its line alone", (entitlement, line) => {
    const plan: PlanEntitlements = { tier: "pro", maxSearchTerms: 5, seeds: false, feeds: false, citations: false, labChannels: false, [entitlement]: true };
    expect(workflowBenefits("pro", [plan])).toEqual([line]);
  });

  it("lists each plan's own: lab channels only on Team", () => {
    expect(workflowBenefits("free", PLANS)).toEqual(WORKFLOWS);
    expect(workflowBenefits("pro", PLANS)).toEqual(WORKFLOWS);
    expect(workflowBenefits("team", PLANS)).toEqual([...WORKFLOWS, LAB_CHANNELS]);
  });

  it("says nothing of a plan the server did not list (an older server, or the config not loaded)", () => {
    expect(workflowBenefits("team", [])).toEqual([]);
    expect(workflowBenefits("team", PLANS.slice(0, 2))).toEqual([]);
  });

  it("a card lists its own lines, then the workflows, then the AI model where models differ", () => {
    expect(planBenefits("free", { advancedModel: false, plans: [] })).toEqual(["1 search term", "PubMed only", "Digests delivered on Mondays", "2 free digests"]);
    expect(planBenefits("team", { advancedModel: true, plans: PLANS })).toEqual([
      "10 search terms (more: contact support)",
      "All 4 sources: PubMed, arXiv, bioRxiv and medRxiv",
      "Choice of delivery day",
      "Priority email support",
      ...WORKFLOWS,
      LAB_CHANNELS,
      "A more advanced AI model for summaries and scoring",
    ]);
  });
});
