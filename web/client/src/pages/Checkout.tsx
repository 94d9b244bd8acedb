// /checkout — Stripe's embedded Checkout (spec §2); with billing off, why not.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingGate } from "@/features/billing/BillingGate";
import { CheckoutScreen } from "@/features/billing/CheckoutScreen";

export function CheckoutPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingGate>
        <CheckoutScreen />
      </BillingGate>
    </PublicLayout>
  );
}
