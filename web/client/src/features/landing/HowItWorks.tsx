// Three steps from a topic to a digest.
const STEPS = [
  {
    title: "Add a research topic",
    description: "A disease, a method, a molecule, a question: whatever you follow.",
  },
  {
    title: "We search and rank",
    description: "New papers are found across the sources, scored for relevance and impact, and summarized.",
  },
  {
    title: "Read your weekly digest",
    description:
      "The best matches arrive in your inbox, with links to every paper. Your first digest is emailed as soon as you add a search term; after that, a new one arrives every week on your delivery day.",
  },
] as const;

export function HowItWorks() {
  return (
    <section aria-labelledby="how-title" className="border-y border-slate-200 bg-white py-20 sm:py-24">
      <div className="mx-auto max-w-6xl px-4 sm:px-6 lg:px-8">
        <h2 id="how-title" className="text-center text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
          How it works
        </h2>
        <ol className="mt-14 grid gap-10 md:grid-cols-3 md:gap-8">
          {STEPS.map((step, index) => (
            <li key={step.title} className="flex gap-4 md:flex-col md:items-center md:text-center">
              <span
                aria-hidden="true"
                className="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-brand-700 text-base font-semibold text-white"
              >
                {index + 1}
              </span>
              <div>
                <h3 className="text-lg font-semibold text-slate-900">{step.title}</h3>
                <p className="mt-2 text-sm leading-relaxed text-slate-600">{step.description}</p>
              </div>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
