// /debug-subscription — the subscription repair page (spec §2, §4); with billing off, why not.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingGate } from "@/features/billing/BillingGate";
import { DebugSubscriptionScreen } from "@/features/billing/DebugSubscriptionScreen";

export function DebugSubscriptionPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingGate>
        <DebugSubscriptionScreen />
      </BillingGate>
    </PublicLayout>
  );
}
