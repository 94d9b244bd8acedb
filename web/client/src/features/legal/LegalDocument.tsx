//! legal: the frame shared by the Terms and Privacy screens: title, "Last updated" line, a
//! table of contents, and one numbered <section> (h2 "N. Title") per entry of the document.

import { useEffect, type ReactNode } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { appConfig, loadAppConfig, NO_SUPPORT_EMAIL_TEXT } from "@/state/config";

/** The date both documents were last revised (spec §9). */
export const LEGAL_LAST_UPDATED = "August 11, 2025";

export interface LegalSection {
  /** Fragment id of the section, e.g. "acceptance". */
  id: string;
  title: string;
  body: ReactNode;
}

export interface LegalDocumentProps {
  title: string;
  intro: ReactNode;
  sections: readonly LegalSection[];
  /** Shown under the last section, e.g. the copyright line. */
  closing?: ReactNode;
}

export function LegalDocument({ title, intro, sections, closing }: LegalDocumentProps) {
  useEffect(() => {
    const previousTitle = document.title;
    document.title = `${title} | Papertide`;
    return () => {
      document.title = previousTitle;
    };
  }, [title]);

  return (
    <main id="main" className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-4xl px-4 py-10 sm:px-6 sm:py-14 lg:px-8">
        <article
          aria-labelledby="legal-title"
          className="rounded-xl border border-slate-200 bg-white px-5 py-8 shadow-sm sm:px-10 sm:py-12"
        >
          <header className="border-b border-slate-200 pb-6">
            <h1 id="legal-title" className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
              {title}
            </h1>
            <p className="mt-2 text-sm text-slate-500">Last updated: {LEGAL_LAST_UPDATED}</p>
            <div className="mt-6 space-y-3 leading-7 text-slate-700">{intro}</div>
          </header>

          <nav aria-labelledby="legal-contents" className="mt-8 rounded-lg bg-slate-50 p-5">
            <p id="legal-contents" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
              Contents
            </p>
            <ol className="mt-3 grid gap-x-8 gap-y-1.5 text-sm sm:grid-cols-2">
              {sections.map((section, index) => (
                <li key={section.id}>
                  <a href={`#${section.id}`} className="text-brand-700 hover:underline">
                    {index + 1}. {section.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>

          <div className="mt-10 space-y-10">
            {sections.map((section, index) => (
              <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`} className="scroll-mt-8">
                <h2 id={`${section.id}-title`} className="text-xl font-semibold tracking-tight text-slate-900">
                  {index + 1}. {section.title}
                </h2>
                <div className="mt-3 space-y-3 leading-7 text-slate-700 [&_a]:font-medium [&_a]:text-brand-700 [&_a]:underline [&_a]:underline-offset-2 [&_strong]:font-semibold [&_strong]:text-slate-900 [&_ul]:list-disc [&_ul]:space-y-1.5 [&_ul]:pl-6">
                  {section.body}
                </div>
              </section>
            ))}
          </div>

          {closing ? <footer className="mt-12 border-t border-slate-200 pt-6 text-sm text-slate-500">{closing}</footer> : null}
        </article>
      </div>
    </main>
  );
}

/** The installation's support address as a mail link (from GET /api/config), or who to ask without one. */
export function SupportEmailLink() {
  useSignals();
  useEffect(() => {
    void loadAppConfig();
  }, []);
  const email = appConfig.value.supportEmail;
  return email ? <a href={`mailto:${email}`}>{email}</a> : <>{NO_SUPPORT_EMAIL_TEXT}</>;
}
