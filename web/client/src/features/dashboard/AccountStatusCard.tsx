// The 'Account Status' card (spec §2 Dashboard, §5 cancel subscription, §6 plans, §8 dashboard
// toasts, §9 limits): the plan, how many search terms and digests the user has, the free plan's
// digests as the server counts them (an empty-week notice is not one), and for a paid plan
// 'Cancel Subscription' behind a confirmation. Cancelling with more than one active term is
// refused here already, without asking the server.
import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { ApiError, errorMessage } from "@/lib/api";
import { appConfig } from "@/state/config";
import { refreshCurrentUser, type CurrentUser, type FreeDigests } from "@/state/session";
import { toast } from "@/state/toast";
import { cancelSubscription, TERM_LIMITS } from "./api";
import { ConfirmDialog } from "./ConfirmDialog";
import { digests, loadPreferences, loadSearchTerms, searchTerms } from "./store";
import { TIER_LABELS } from "./tier";

/** A paid plan may be cancelled with at most this many active search terms (the free plan's limit). */
const ACTIVE_TERMS_ALLOWED_TO_CANCEL = TERM_LIMITS.free;

export function AccountStatusCard({ user }: { user: CurrentUser }) {
  useSignals();
  const tier = user.subscriptionTier;
  const terms = searchTerms.value;
  const activeCount = terms?.filter((term) => term.isActive).length ?? null;
  const digestCount = digests.value?.length ?? null;

  return (
    <SectionCard title="Account Status" contentClassName="space-y-4">
      <dl className="space-y-2 text-sm">
        <StatusRow label="Plan" value={TIER_LABELS[tier]} />
        <StatusRow label="Search terms" value={terms ? `${terms.length} of ${TERM_LIMITS[tier]}` : "…"} />
        <StatusRow label="Active search terms" value={activeCount ?? "…"} />
        <StatusRow label="Digests received" value={digestCount ?? "…"} />
      </dl>
      {tier === "free" ? <FreeDigestsUsage usage={user.freeDigests ?? null} /> : <CancelSubscription user={user} activeCount={activeCount} />}
    </SectionCard>
  );
}

function StatusRow({ label, value }: { label: string; value: string | number }) {
  return (
    <div className="flex items-baseline justify-between gap-4">
      <dt className="text-slate-600">{label}</dt>
      <dd className="font-medium text-slate-900">{value}</dd>
    </div>
  );
}

/**
 * The free plan's digests used so far, as the server counts them, and once they are all used an
 * invitation to upgrade (with billing off, /subscribe explains what this server offers instead).
 */
function FreeDigestsUsage({ usage }: { usage: FreeDigests | null }) {
  useSignals();
  if (!usage) return null;
  const used = Math.min(usage.used, usage.total);
  const billingEnabled = appConfig.value.billingEnabled;
  return (
    <div className="space-y-3 rounded-lg bg-slate-50 p-3 text-sm">
      <p className="text-slate-700">{`Free digests: ${used} of ${usage.total} used`}</p>
      {used >= usage.total ? (
        <>
          <p className="text-slate-600">
            {billingEnabled
              ? "You have used your free digests. Upgrade to Pro to keep your weekly digests coming."
              : "You have used your free digests. Your search terms stay saved; see how to get more digests on this server."}
          </p>
          <ButtonLink to="/subscribe?tier=pro" size="sm">
            Upgrade to Pro
          </ButtonLink>
        </>
      ) : null}
    </div>
  );
}

function CancelSubscription({ user, activeCount }: { user: CurrentUser; activeCount: number | null }) {
  const [confirming, setConfirming] = useState(false);
  const [cancelling, setCancelling] = useState(false);

  const start = () => {
    // While the terms are still loading the count is unknown; the server applies the same rule.
    if (activeCount !== null && activeCount > ACTIVE_TERMS_ALLOWED_TO_CANCEL) {
      refuseWithActiveTerms(activeCount);
      return;
    }
    setConfirming(true);
  };

  const cancel = async () => {
    setCancelling(true);
    try {
      await cancelSubscription();
    } catch (error) {
      setCancelling(false);
      setConfirming(false);
      reportCancelFailure(error);
      return;
    }
    setCancelling(false);
    setConfirming(false);
    toast({ title: "Subscription Canceled", description: "Your subscription has been canceled. You remain on the free tier.", variant: "success" });
    // The new plan changes the header, the limits and which preferences may be changed.
    await Promise.all([refreshCurrentUser().catch(() => null), loadSearchTerms(user.id), loadPreferences(user.id)]);
  };

  return (
    <>
      <Button variant="outline" className="w-full text-red-600 hover:bg-red-50" onClick={start}>
        Cancel Subscription
      </Button>
      <ConfirmDialog
        open={confirming}
        onOpenChange={(open) => {
          if (!cancelling) setConfirming(open);
        }}
        title="Cancel your subscription?"
        description={`Your ${TIER_LABELS[user.subscriptionTier]} plan ends and you move to the Free plan: 1 search term, PubMed only, digests on Monday.`}
        confirmLabel={cancelling ? "Cancelling..." : "Cancel Subscription"}
        cancelLabel="Keep Subscription"
        busy={cancelling}
        onConfirm={cancel}
      />
    </>
  );
}

function refuseWithActiveTerms(activeCount: number) {
  toast({ title: "Cannot Cancel Subscription", description: activeTermsMessage(activeCount), variant: "destructive" });
}

function activeTermsMessage(activeCount: number): string {
  return `You have ${activeCount} active search terms. Please delete search terms until only 1 remains, then cancel your subscription.`;
}

function reportCancelFailure(error: unknown) {
  if (error instanceof ApiError && error.status === 400 && error.field("requiresSearchDeletion")) {
    const count = error.field("currentSearchCount");
    const description =
      typeof count === "number"
        ? activeTermsMessage(count)
        : errorMessage(error, "Please delete search terms until only 1 remains, then cancel your subscription.");
    toast({ title: "Cannot Cancel Subscription", description, variant: "destructive" });
    return;
  }
  toast({ title: "Cancellation Failed", description: errorMessage(error, "Your subscription could not be canceled. Please try again."), variant: "destructive" });
}
