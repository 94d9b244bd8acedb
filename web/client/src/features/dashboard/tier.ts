// How each plan is named and where it can upgrade to (spec §4: free → pro or team, pro → team).
import type { Tier } from "@/state/session";

export const TIER_LABELS: Record<Tier, string> = { free: "Free", pro: "Pro", team: "Team" };

export interface UpgradeOffer {
  label: string;
  to: string;
}

/** The header's Upgrade button for a tier; none for team, the highest plan. */
export function upgradeOfferFor(tier: Tier): UpgradeOffer | null {
  switch (tier) {
    case "free":
      // Both paid plans are open to a free user: the plan chooser lets them pick.
      return { label: "Upgrade", to: "/subscribe" };
    case "pro":
      return { label: "Upgrade to Team", to: "/subscribe?tier=team" };
    case "team":
      return null;
  }
}
