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
  /** Where users write for help; null when the operator gave none (then: "the operator of this server"). */
  supportEmail: string | null;
  /** None unless the operator configured a provider; loaded only after consent. */
  analytics: AnalyticsConfig | null;
  /** Whether paid plans are sold on this server (false until billing exists). */
  billingEnabled: boolean;
}

/** What the client assumes until the server answers: no address known, no analytics, billing off. */
export const DEFAULT_CONFIG: AppConfig = { supportEmail: null, analytics: null, billingEnabled: false };

/** Said instead of an address when the operator gave none. */
export const NO_SUPPORT_EMAIL_TEXT = "the operator of this server";

export const appConfig = signal<AppConfig>(DEFAULT_CONFIG);

let loading: Promise<AppConfig> | null = null;

/** Loads the configuration once; later calls share the first answer. */
export function loadAppConfig(): Promise<AppConfig> {
  loading ??= getJson<Partial<AppConfig> | null>("/api/config")
    .then((config) => {
      const answer = config && typeof config === "object" ? config : {};
      appConfig.value = {
        ...DEFAULT_CONFIG,
        ...answer,
        supportEmail: answer.supportEmail || null,
        billingEnabled: answer.billingEnabled === true,
      };
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
