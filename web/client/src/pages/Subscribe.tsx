// /subscribe — the plan chooser (spec §2); with billing off it shows the plans and how they are set here.
import { PublicLayout } from "@/components/layout/PublicLayout";
import { SubscribeScreen } from "@/features/billing/SubscribeScreen";

export function SubscribePage() {
  return (
    <PublicLayout footerVariant="light">
      <SubscribeScreen />
    </PublicLayout>
  );
}
