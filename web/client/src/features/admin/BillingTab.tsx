// The console's Billing tab (only with billing on): paid users and users with a tracked
// subscription as the service last stored them, each with Repair (the user's own repair, run
// for them: the plan is set from what Stripe says).
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { fetchBilling, repairSubscription } from "./api";
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
  return (
    <SectionCard title="Billing" contentClassName="space-y-3">
      {data && !data.enabled ? <p className="text-sm text-slate-600">Billing is off on this server.</p> : null}
      {data && data.enabled && data.users.length === 0 ? <p className="text-sm text-slate-600">No paid user yet.</p> : null}
      {data && data.users.length > 0 ? (
        <Table caption="Paid users" headers={["Email", "Plan", "Customer", "Subscription", "Status", "Period ends", "Cancels at end", ""]}>
          {data.users.map((user) => (
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
      ) : null}
      <LoadState loading={billing.loading && !data} error={billing.error} label="Loading billing" />
    </SectionCard>
  );
}
