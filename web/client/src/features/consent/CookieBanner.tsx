// The cookie banner (spec §2, §4): shown 1 s after load, and only while no choice is stored.
// Closing it counts as declining.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { COOKIE_BANNER_DELAY_MS, readCookieConsent, saveCookieConsent } from "@/lib/consent";

export function CookieBanner({ onChoice }: { onChoice?: (allowAnalytics: boolean) => void }) {
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    if (readCookieConsent() !== null) return;
    const timer = setTimeout(() => {
      // The visitor may have chosen in the meantime (e.g. in the preferences dialog).
      if (readCookieConsent() === null) setVisible(true);
    }, COOKIE_BANNER_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);

  if (!visible) return null;

  const choose = (allowAnalytics: boolean) => {
    saveCookieConsent(allowAnalytics);
    setVisible(false);
    onChoice?.(allowAnalytics);
  };

  // Compact and at the bottom, so that on a first visit it covers neither the header nor the
  // landing page's topic field and its button (checked at 1280×800 and on a 390×844 phone).
  return (
    <section
      aria-labelledby="cookie-banner-title"
      aria-describedby="cookie-banner-description"
      className="fixed inset-x-0 bottom-0 z-50 p-2 sm:p-4"
    >
      <div className="relative mx-auto flex max-w-4xl flex-col gap-3 rounded-xl border border-slate-200 bg-white p-3 pr-10 shadow-xl sm:flex-row sm:items-center sm:gap-6 sm:p-4 sm:pr-12">
        <button
          type="button"
          aria-label="Close"
          onClick={() => choose(false)}
          className="absolute right-2 top-2 rounded-md p-1.5 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-700"
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
            <path d="M5 5l10 10M15 5L5 15" strokeLinecap="round" />
          </svg>
        </button>
        <div className="min-w-0 flex-1">
          <h2 id="cookie-banner-title" className="text-sm font-semibold text-slate-900">
            We use cookies
          </h2>
          <p id="cookie-banner-description" className="mt-1 text-xs leading-snug text-slate-600 sm:text-sm">
            Essential cookies keep you signed in; analytics cookies only with your permission. Change this any time
            under Cookie Settings. See our{" "}
            <Link to="/privacy" className="font-medium text-brand-700 underline-offset-4 hover:underline">
              Privacy Policy
            </Link>
            .
          </p>
        </div>
        <div className="flex shrink-0 gap-2">
          <Button variant="outline" size="sm" className="flex-1 sm:flex-none" onClick={() => choose(false)}>
            Essential only
          </Button>
          <Button size="sm" className="flex-1 sm:flex-none" onClick={() => choose(true)}>
            Accept all cookies
          </Button>
        </div>
      </div>
    </section>
  );
}
