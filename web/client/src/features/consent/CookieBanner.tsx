// The cookie banner (spec §2, §4): shown 1 s after load, and only while no choice is stored.
// Closing it counts as declining.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { COOKIE_BANNER_DELAY_MS, readCookieConsent, saveCookieConsent } from "./consent";

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

  return (
    <section
      aria-labelledby="cookie-banner-title"
      aria-describedby="cookie-banner-description"
      className="fixed inset-x-0 bottom-0 z-50 p-4 sm:p-6"
    >
      <div className="relative mx-auto max-w-3xl rounded-xl border border-slate-200 bg-white p-5 pr-12 shadow-xl sm:p-6 sm:pr-14">
        <button
          type="button"
          aria-label="Close"
          onClick={() => choose(false)}
          className="absolute right-3 top-3 rounded-md p-1.5 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-700"
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
            <path d="M5 5l10 10M15 5L5 15" strokeLinecap="round" />
          </svg>
        </button>
        <h2 id="cookie-banner-title" className="text-base font-semibold text-slate-900">
          We use cookies
        </h2>
        <p id="cookie-banner-description" className="mt-2 text-sm leading-relaxed text-slate-600">
          Essential cookies keep you signed in and remember this choice. With your permission we also use analytics
          cookies to learn which parts of Papertide are useful, so we can improve it. You can change your mind at any
          time under Cookie Settings. Read more in our{" "}
          <Link to="/privacy" className="font-medium text-brand-700 underline-offset-4 hover:underline">
            Privacy Policy
          </Link>
          .
        </p>
        <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => choose(false)}>
            Essential only
          </Button>
          <Button onClick={() => choose(true)}>Accept all cookies</Button>
        </div>
      </div>
    </section>
  );
}
