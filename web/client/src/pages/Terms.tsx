// /terms: Terms and Conditions (spec §2 "Static pages").
import { PublicLayout } from "@/components/layout/PublicLayout";
import { TermsOfService } from "@/features/legal";

export function TermsPage() {
  return (
    <PublicLayout footerVariant="light">
      <TermsOfService />
    </PublicLayout>
  );
}
