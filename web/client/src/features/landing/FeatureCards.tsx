// The three feature cards of the landing page (spec §2).
import type { ReactNode } from "react";
import { Card } from "@/components/ui/Card";

interface Feature {
  title: string;
  description: string;
  detail: string;
  icon: ReactNode;
}

const iconProps = {
  "aria-hidden": true,
  viewBox: "0 0 24 24",
  className: "h-6 w-6",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 1.75,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

const FEATURES: Feature[] = [
  {
    title: "Intelligent Discovery",
    description:
      "Describe your topic the way you would to a colleague. AI expands it into the synonyms, related concepts and field-specific terms that papers actually use, so relevant work is not missed because of wording.",
    detail: "AI-expanded search terms",
    icon: (
      <svg {...iconProps}>
        <circle cx="10.5" cy="10.5" r="6.5" />
        <path d="m20 20-4.9-4.9M10.5 7.5v6M7.5 10.5h6" />
      </svg>
    ),
  },
  {
    title: "Smart Curation",
    description:
      "Each paper is scored for relevance to your topic and for its likely impact, then summarized in plain language. Your digest opens with what is worth reading, not simply what was published last.",
    detail: "Relevance and impact scores, AI summaries",
    icon: (
      <svg {...iconProps}>
        <path d="M4 6h16M4 12h10M4 18h6" />
        <path d="m17 15 1.2 2.5 2.8.4-2 1.9.5 2.7-2.5-1.3-2.5 1.3.5-2.7-2-1.9 2.8-.4z" />
      </svg>
    ),
  },
  {
    title: "Comprehensive Coverage",
    description:
      "Peer-reviewed literature from PubMed and the latest preprints from arXiv, bioRxiv and medRxiv, brought together in one weekly email with each paper listed once.",
    detail: "PubMed on every plan; preprint servers on Pro and Team",
    icon: (
      <svg {...iconProps}>
        <path d="M12 3 3 7.5l9 4.5 9-4.5z" />
        <path d="m3 12 9 4.5 9-4.5M3 16.5 12 21l9-4.5" />
      </svg>
    ),
  },
];

export function FeatureCards() {
  return (
    <section aria-labelledby="features-title" className="bg-slate-50 py-20 sm:py-24">
      <div className="mx-auto max-w-6xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold uppercase tracking-wider text-brand-700">Why researchers use Papertide</p>
          <h2 id="features-title" className="mt-3 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            Keep up with your field in minutes a week
          </h2>
          <p className="mt-4 text-lg text-slate-600">
            Hundreds of papers appear every week. Papertide reads the firehose so you only read what counts.
          </p>
        </div>
        <ul className="mt-14 grid gap-6 md:grid-cols-3">
          {FEATURES.map((feature) => (
            <li key={feature.title}>
              <Card className="flex h-full flex-col p-6 transition-shadow hover:shadow-md">
                <span className="flex h-12 w-12 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
                  {feature.icon}
                </span>
                <h3 className="mt-5 text-lg font-semibold text-slate-900">{feature.title}</h3>
                <p className="mt-3 flex-1 text-sm leading-relaxed text-slate-600">{feature.description}</p>
                <p className="mt-5 border-t border-slate-100 pt-4 text-sm font-medium text-brand-700">{feature.detail}</p>
              </Card>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
