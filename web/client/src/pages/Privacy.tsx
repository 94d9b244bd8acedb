// /privacy: Privacy Policy (spec §2 "Static pages").
import { PublicLayout } from "@/components/layout/PublicLayout";
import { PrivacyPolicy } from "@/features/legal";

export function PrivacyPage() {
  return (
    <PublicLayout footerVariant="light">
      <PrivacyPolicy />
    </PublicLayout>
  );
}
