// /rate?token=…: a digest mail's rating link, confirmed with one click.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { RateLinkScreen } from "@/features/email/RateLinkScreen";

export function RatePage() {
  return (
    <PublicLayout footerVariant="light">
      <RateLinkScreen />
    </PublicLayout>
  );
}
