// Every path no other route matches: "Page Not Found" (spec §2 route list).
import { PublicLayout } from "@/components/layout/PublicLayout";
import { NotFoundScreen } from "@/features/legal";

export function NotFoundPage() {
  return (
    <PublicLayout footerVariant="light">
      <NotFoundScreen />
    </PublicLayout>
  );
}
