// What the server tells the client about this installation (GET /api/config).
import { signal } from "@preact/signals-react";
import { getJson } from "@/lib/api";

export type AnalyticsProvider = "plausible" | "umami" | "ga4";

export interface AnalyticsConfig {
  provider: AnalyticsProvider;
  /** The script to load once the visitor consents. */
  scriptUrl: string;
  /** Plausible: the site's domain; Umami: the website id; GA4: the measurement id. */
  siteId: string;
}

export interface AppConfig {
  supportEmail: string;
  /** None unless the operator configured a provider; loaded only after consent. */
  analytics: AnalyticsConfig | null;
  billingEnabled: boolean;
}

export const DEFAULT_CONFIG: AppConfig = { supportEmail: "support@localhost", analytics: null, billingEnabled: false };

export const appConfig = signal<AppConfig>(DEFAULT_CONFIG);

let loading: Promise<AppConfig> | null = null;

/** Loads the configuration once; later calls share the first answer. */
export function loadAppConfig(): Promise<AppConfig> {
  loading ??= getJson<AppConfig>("/api/config")
    .then((config) => {
      appConfig.value = { ...DEFAULT_CONFIG, ...config };
      return appConfig.value;
    })
    .catch(() => appConfig.value);
  return loading;
}

/** For tests: forget the loaded configuration. */
export function resetAppConfig() {
  loading = null;
  appConfig.value = DEFAULT_CONFIG;
}
