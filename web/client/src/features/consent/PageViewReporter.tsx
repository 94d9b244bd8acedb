// Mounted once at the top of the router. It loads the installation's config, starts analytics
// when the stored consent allows it (or as soon as the visitor accepts in the banner), reports a
// page_view on every route change (only with consent: see lib/analytics), and shows the cookie
// banner.
import { useEffect, useState } from "react";
import { useLocation } from "react-router-dom";
import { isAnalyticsLoaded, trackPageView } from "@/lib/analytics";
import { loadAppConfig } from "@/state/config";
import { CookieBanner } from "./CookieBanner";
import { startAnalyticsIfAllowed } from "@/lib/consent";

export function PageViewReporter() {
  const location = useLocation();
  const [analyticsReady, setAnalyticsReady] = useState(isAnalyticsLoaded);
  const path = `${location.pathname}${location.search}`;

  useEffect(() => {
    let mounted = true;
    void loadAppConfig().then((config) => {
      if (mounted && startAnalyticsIfAllowed(config)) setAnalyticsReady(true);
    });
    return () => {
      mounted = false;
    };
  }, []);

  // Also runs when analytics becomes ready, so the page the visitor consented on is counted.
  useEffect(() => {
    if (analyticsReady) trackPageView(path);
  }, [analyticsReady, path]);

  const startAfterChoice = (allowAnalytics: boolean) => {
    if (!allowAnalytics) return;
    void loadAppConfig().then((config) => {
      if (startAnalyticsIfAllowed(config)) setAnalyticsReady(true);
    });
  };

  return <CookieBanner onChoice={startAfterChoice} />;
}
