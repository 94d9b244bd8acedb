// / — the landing page for signed-out visitors (spec §2).
import { PublicLayout } from "@/components/layout/PublicLayout";
import { CallToAction } from "@/features/landing/CallToAction";
import { FeatureCards } from "@/features/landing/FeatureCards";
import { Hero } from "@/features/landing/Hero";
import { HowItWorks } from "@/features/landing/HowItWorks";

export function LandingPage() {
  return (
    <PublicLayout footerVariant="dark">
      <main>
        <Hero />
        <FeatureCards />
        <HowItWorks />
        <CallToAction />
      </main>
    </PublicLayout>
  );
}
