// The three plans (spec §6 and §9): names, prices, what each includes, and the addresses of the
// pages that sell them. (The dashboard keeps its own term limits; features do not import each
// other.) Prices and the plans' own lines are kept here; what each plan gives of the workflows
// (seeds, feeds, citations, lab channels) is the server's word (`plans` of GET /api/config).
import type { PlanEntitlements } from "@/api/contract";
import type { AppConfig } from "@/state/config";
import type { Tier } from "@/state/session";
import type { PaidTier } from "./api";

export interface Plan {
  tier: Tier;
  /** The card's title on /subscribe. */
  label: string;
  /** The product's name on the payment pages (e.g. "Research Pro"). */
  productName: string;
  /** Whole dollars a month. */
  monthlyPrice: number;
  searchTerms: number;
  benefits: readonly string[];
}

const PAID_BENEFITS = ["All 4 sources: PubMed, arXiv, bioRxiv and medRxiv", "Choice of delivery day", "Priority email support"] as const;

/**
 * Said of the AI models only where the installation gives paid plans another chat model than the
 * free plan (`advancedModel` of GET /api/config). Every plan ranks papers alike, so no card
 * promises better relevance scoring.
 */
const STANDARD_MODEL = "Standard AI model for summaries and scoring";
const ADVANCED_MODEL = "A more advanced AI model for summaries and scoring";

/** Each workflow a plan may give, and the line its card lists for it. */
const WORKFLOW_LINES: ReadonlyArray<[keyof Pick<PlanEntitlements, "seeds" | "feeds" | "citations" | "labChannels">, string]> = [
  ["seeds", "Seed topics with papers you know"],
  ["feeds", "Private Atom feeds"],
  ["citations", "Citations for Zotero, Mendeley and EndNote"],
  ["labChannels", "Digests posted to your lab's Slack or Mattermost"],
];

/** The lines of the workflows `tier` gives, as the server's `plans` say; none for a plan it did not list. */
export function workflowBenefits(tier: Tier, plans: readonly PlanEntitlements[]): string[] {
  const plan = plans.find((entry) => entry.tier === tier);
  if (!plan) return [];
  return WORKFLOW_LINES.filter(([entitlement]) => plan[entitlement] === true).map(([, line]) => line);
}

/**
 * What a plan's card lists: its benefits, the workflows the server says it gives, and its AI
 * model where the plans' models differ.
 */
export function planBenefits(tier: Tier, config: Pick<AppConfig, "advancedModel" | "plans">): string[] {
  const benefits = [...PLANS[tier].benefits, ...workflowBenefits(tier, config.plans)];
  if (config.advancedModel) benefits.push(tier === "free" ? STANDARD_MODEL : ADVANCED_MODEL);
  return benefits;
}

export const PLANS: Record<Tier, Plan> = {
  free: {
    tier: "free",
    label: "Free",
    productName: "Research Free",
    monthlyPrice: 0,
    searchTerms: 1,
    benefits: ["1 search term", "PubMed only", "Digests delivered on Mondays", "2 free digests"],
  },
  pro: {
    tier: "pro",
    label: "Pro",
    productName: "Research Pro",
    monthlyPrice: 5,
    searchTerms: 5,
    benefits: ["5 search terms", ...PAID_BENEFITS],
  },
  team: {
    tier: "team",
    label: "Team",
    productName: "Research Team",
    monthlyPrice: 10,
    searchTerms: 10,
    benefits: ["10 search terms (more: contact support)", ...PAID_BENEFITS],
  },
};

export const TIER_ORDER: readonly Tier[] = ["free", "pro", "team"];

/** "$5/month"; "$0" for the free plan. */
export function priceLabel(tier: Tier): string {
  const price = PLANS[tier].monthlyPrice;
  return price === 0 ? "$0" : `$${price}/month`;
}

/** The tier of a query parameter when it is a paid one, else null. */
export function paidTierOf(value: string | null | undefined): PaidTier | null {
  return value === "pro" || value === "team" ? value : null;
}

/** The card form for `tier` (spec §2 /payment). */
export function paymentPath(tier: PaidTier, email: string): string {
  return `/payment?${new URLSearchParams({ tier, email }).toString()}`;
}

/** The embedded checkout for `tier`. */
export const checkoutPath = (tier: PaidTier) => `/checkout?tier=${tier}`;

/** Whether `to` is above `from` (free → pro or team, pro → team). */
export function isUpgrade(from: Tier, to: Tier): boolean {
  return TIER_ORDER.indexOf(to) > TIER_ORDER.indexOf(from);
}
