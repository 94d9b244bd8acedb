// The closing call to action of the landing page (spec §2).
import { ButtonLink } from "@/components/layout/ButtonLink";

export function CallToAction() {
  return (
    <section aria-labelledby="cta-title" className="bg-slate-50 px-4 py-20 sm:px-6 sm:py-24 lg:px-8">
      <div className="mx-auto max-w-5xl overflow-hidden rounded-3xl bg-gradient-to-br from-brand-700 to-brand-900 px-6 py-14 text-center shadow-xl sm:px-12 sm:py-16">
        <h2 id="cta-title" className="text-3xl font-bold tracking-tight text-white sm:text-4xl">
          Start your first research digest today
        </h2>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-brand-100">
          Free to start with one research topic. No credit card, no setup: your first digest is emailed as soon as you
          add a search term; after that, a new one arrives every week on your delivery day.
        </p>
        <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
          <ButtonLink to="/auth" variant="inverse" size="lg">
            Get Started Free
          </ButtonLink>
          <ButtonLink to="/blog" variant="inverse-outline" size="lg">
            Learn More
          </ButtonLink>
        </div>
      </div>
    </section>
  );
}
