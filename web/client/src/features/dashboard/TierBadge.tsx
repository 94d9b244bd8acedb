import { cn } from "@/components/ui/cn";
import type { Tier } from "@/state/session";
import { TIER_LABELS } from "./tier";

const looks: Record<Tier, string> = {
  free: "bg-slate-100 text-slate-700 ring-slate-200",
  pro: "bg-brand-50 text-brand-700 ring-brand-100",
  team: "bg-brand-700 text-white ring-brand-700",
};

export function TierBadge({ tier }: { tier: Tier }) {
  return (
    <span
      className={cn("inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset", looks[tier])}
      aria-label={`Plan: ${TIER_LABELS[tier]}`}
    >
      {TIER_LABELS[tier]}
    </span>
  );
}
