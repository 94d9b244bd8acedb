// /payment — the card form (spec §2); with billing off, why not.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingGate } from "@/features/billing/BillingGate";
import { PaymentScreen } from "@/features/billing/PaymentScreen";

export function PaymentPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingGate>
        <PaymentScreen />
      </BillingGate>
    </PublicLayout>
  );
}
