// The console's Billing tab (only with billing on): the paying users, and apart from them the
// other users with a tracked subscription (free, canceled, unpaid), as the service last stored them, each with Repair (the user's own repair, run
// for them: the plan is set from what Stripe says).
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { fetchBilling, repairSubscription, type AdminBillingUser } from "./api";
import { formatTimestamp, yesNo } from "./format";
import { cellClass, LoadState, Table } from "./parts";
import { useLoaded } from "./useLoaded";

export function BillingTab() {
  const billing = useLoaded(fetchBilling);
  const [busy, setBusy] = useState<string | null>(null);

  const repair = async (id: string, email: string) => {
    setBusy(id);
    try {
      const answer = await repairSubscription(id);
      toast({
        title: "Subscription Checked",
        description: answer.changed ? `${email} is now on the ${answer.tier} plan.` : `${email}'s plan (${answer.tier}) already matches Stripe.`,
        variant: "success",
      });
      billing.reload();
    } catch (error) {
      toast({ title: "Repair Failed", description: errorMessage(error, "The subscription could not be checked."), variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  const data = billing.data;
  const paying = data?.users.filter(isPaying) ?? [];
  const others = data?.users.filter((user) => !isPaying(user)) ?? [];
  const table = (caption: string, users: AdminBillingUser[]) => (
    <Table caption={caption} headers={["Email", "Plan", "Customer", "Subscription", "Status", "Period ends", "Cancels at end", ""]}>
      {users.map((user) => (
        <tr key={user.id}>
          <td className={`${cellClass} font-medium text-slate-900`}>{user.email}</td>
          <td className={cellClass}>{user.plan}</td>
          <td className={`${cellClass} font-mono text-xs`}>{user.stripeCustomerId ?? "—"}</td>
          <td className={`${cellClass} font-mono text-xs`}>{user.subscriptionId ?? "—"}</td>
          <td className={cellClass}>{user.status ?? "—"}</td>
          <td className={cellClass}>{formatTimestamp(user.currentPeriodEnd)}</td>
          <td className={cellClass}>{yesNo(user.cancelAtPeriodEnd)}</td>
          <td className={cellClass}>
            <Button size="sm" variant="outline" disabled={busy !== null} onClick={() => void repair(user.id, user.email)}>
              Repair
            </Button>
          </td>
        </tr>
      ))}
    </Table>
  );

  return (
    <SectionCard title="Billing" contentClassName="space-y-3">
      {data && !data.enabled ? <p className="text-sm text-slate-600">Billing is off on this server.</p> : null}
      {data && data.enabled && paying.length === 0 ? <p className="text-sm text-slate-600">No paid user yet.</p> : null}
      {paying.length > 0 ? table("Paid users", paying) : null}
      {others.length > 0 ? (
        <>
          <h3 className="pt-2 text-sm font-semibold text-slate-900">Not paying: free, canceled or unpaid subscriptions on record</h3>
          {table("Other subscriptions on record (not paying: free, canceled or unpaid)", others)}
        </>
      ) : null}
      <LoadState loading={billing.loading && !data} error={billing.error} label="Loading billing" />
    </SectionCard>
  );
}

/** A paying account: on a paid plan, by a subscription that is not canceled or failed. */
function isPaying(user: AdminBillingUser): boolean {
  return user.plan !== "free" && user.status !== "canceled" && user.status !== "failed";
}
