// /unsubscribe?token=…: weekly digests off from a mail's link (spec §2, §4).
import { PublicLayout } from "@/components/layout/PublicLayout";
import { UnsubscribeScreen } from "@/features/email/UnsubscribeScreen";

export function UnsubscribePage() {
  return (
    <PublicLayout footerVariant="light">
      <UnsubscribeScreen />
    </PublicLayout>
  );
}
