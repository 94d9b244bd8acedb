// /finalizing-subscription — subscription status polling (spec §2, §4); with billing off, why not.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingGate } from "@/features/billing/BillingGate";
import { FinalizingScreen } from "@/features/billing/FinalizingScreen";

export function FinalizingSubscriptionPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingGate>
        <FinalizingScreen />
      </BillingGate>
    </PublicLayout>
  );
}
