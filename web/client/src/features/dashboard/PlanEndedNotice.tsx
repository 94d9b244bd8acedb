// The notice of a paid plan that ended (GET /api/auth/me `planEnded`, ARCHITECTURE.md Billing):
// when, how many search terms became inactive, and the way to upgrade again, which reactivates
// them up to the new plan's limit.
import { ButtonLink } from "@/components/layout/ButtonLink";
import { formatDate } from "@/lib/dates";
import type { PlanEnded } from "@/state/session";
import { TIER_LABELS } from "./tier";

export function planEndedText({ tier, endedAt, inactiveTerms }: PlanEnded): string {
  const ended = `Your ${TIER_LABELS[tier] ?? tier} plan ended on ${formatDate(endedAt)}.`;
  if (inactiveTerms <= 0) return ended;
  if (inactiveTerms === 1) return `${ended} 1 search term is now inactive; upgrade to reactivate it.`;
  return `${ended} ${inactiveTerms} search terms are now inactive; upgrade to reactivate them.`;
}

export function PlanEndedNotice({ planEnded }: { planEnded: PlanEnded }) {
  const upgradeTo = planEnded.tier === "team" ? "team" : "pro";
  return (
    <section
      aria-label="Your plan ended"
      className="flex flex-col gap-3 rounded-xl border border-amber-200 bg-amber-50 p-4 sm:flex-row sm:items-center sm:justify-between"
    >
      <p className="text-sm text-amber-900">{planEndedText(planEnded)}</p>
      <ButtonLink to={`/subscribe?tier=${upgradeTo}`} size="sm" className="shrink-0">
        Upgrade to reactivate
      </ButtonLink>
    </section>
  );
}
