// /payment-success — payment confirmation with polling (spec §2, §4); with billing off, why not.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingGate } from "@/features/billing/BillingGate";
import { PaymentSuccessScreen } from "@/features/billing/PaymentSuccessScreen";

export function PaymentSuccessPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingGate>
        <PaymentSuccessScreen />
      </BillingGate>
    </PublicLayout>
  );
}
