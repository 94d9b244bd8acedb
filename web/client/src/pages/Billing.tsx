// /subscribe, /checkout, /payment, /payment-success, /finalizing-subscription and
// /debug-subscription (spec §2): billing is not part of this server yet, and these say so.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { BillingUnavailable } from "@/features/billing/BillingUnavailable";

export function BillingPage() {
  return (
    <PublicLayout footerVariant="light">
      <BillingUnavailable />
    </PublicLayout>
  );
}
