// The landing hero: what Papertide does, and the research-topic field to start with. 'Access
// your dashboard' goes straight to the dashboard for someone signed in (the header asks).
import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "react-router-dom";
import { dashboardPath } from "@/lib/paths";
import { currentUser } from "@/state/session";
import { TopicForm } from "./TopicForm";

const SOURCES = ["PubMed", "arXiv", "bioRxiv", "medRxiv"] as const;

export function Hero() {
  useSignals();
  const user = currentUser.value;
  return (
    <section aria-labelledby="hero-title" className="relative overflow-hidden bg-gradient-to-b from-brand-50 via-white to-slate-50">
      <div aria-hidden="true" className="pointer-events-none absolute -top-40 left-1/2 h-[28rem] w-[56rem] -translate-x-1/2 rounded-full bg-brand-100/60 blur-3xl" />
      {/* Tight enough at the top that the topic field and its button sit above the cookie banner
          on a first visit, on a phone and on a laptop screen alike. */}
      <div className="relative mx-auto max-w-3xl px-4 pb-20 pt-8 text-center sm:px-6 sm:pt-14 lg:pb-28">
        <p className="inline-flex items-center gap-2 rounded-full border border-brand-100 bg-white px-3 py-1 text-sm font-medium text-brand-700 shadow-sm">
          <span aria-hidden="true" className="h-1.5 w-1.5 rounded-full bg-brand-500" />
          Your literature review, delivered weekly
        </p>
        <h1 id="hero-title" className="mt-4 text-3xl font-bold tracking-tight text-slate-900 sm:mt-6 sm:text-5xl lg:text-6xl">
          Never miss a paper that <span className="text-brand-700">matters to your research</span>
        </h1>
        <p className="mx-auto mt-4 max-w-2xl text-base leading-relaxed text-slate-600 sm:mt-6 sm:text-lg">
          Type a research topic. Every week Papertide searches new publications and preprints, ranks them for
          relevance and impact, and emails you a digest with clear AI-written summaries.
        </p>

        <div className="mx-auto mt-6 max-w-2xl sm:mt-8">
          <TopicForm />
          <p className="mt-4 text-sm text-slate-500">Free to start · No credit card · No setup</p>
        </div>

        <p className="mt-6 text-sm text-slate-600">
          Already have an account?{" "}
          <Link to={user ? dashboardPath(user.email) : "/auth"} className="font-medium text-brand-700 underline-offset-4 hover:underline">
            Access your dashboard
          </Link>
        </p>

        <ul aria-label="Sources searched" className="mt-12 flex flex-wrap items-center justify-center gap-x-8 gap-y-3 text-sm font-semibold uppercase tracking-wider text-slate-400">
          {SOURCES.map((source) => (
            <li key={source}>{source}</li>
          ))}
        </ul>
      </div>
    </section>
  );
}
