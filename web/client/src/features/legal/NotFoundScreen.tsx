//! legal: the 404 screen every unknown path shows ("Page Not Found"). It lives with the other
//! static site pages.

import { useEffect } from "react";
import { useLocation } from "react-router-dom";
import { ButtonLink } from "@/components/layout/ButtonLink";

export function NotFoundScreen() {
  const { pathname } = useLocation();

  useEffect(() => {
    const previousTitle = document.title;
    document.title = "Page Not Found | Papertide";
    return () => {
      document.title = previousTitle;
    };
  }, []);

  return (
    <main id="main" className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-xl px-4 py-20 sm:py-28">
        <div className="rounded-xl border border-slate-200 bg-white px-6 py-12 text-center shadow-sm">
          <p className="text-5xl font-bold tracking-tight text-brand-700" aria-hidden="true">
            404
          </p>
          <h1 className="mt-4 text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Page Not Found</h1>
          <p className="mt-4 text-slate-600">
            There is nothing at <code className="rounded bg-slate-100 px-1.5 py-0.5 text-sm text-slate-800">{pathname}</code>.
            It may have moved, or the link may be mistyped.
          </p>
          <ButtonLink to="/" className="mt-8">
            Go back home
          </ButtonLink>
        </div>
      </div>
    </main>
  );
}
