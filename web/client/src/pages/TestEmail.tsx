// /test-email: the email testing page (spec §2).
import { PublicLayout } from "@/components/layout/PublicLayout";
import { TestEmailScreen } from "@/features/email/TestEmailScreen";

export function TestEmailPage() {
  return (
    <PublicLayout footerVariant="light">
      <TestEmailScreen />
    </PublicLayout>
  );
}
