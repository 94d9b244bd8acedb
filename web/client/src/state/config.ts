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

/** The payment provider's browser side (Stripe.js), when billing is on. */
export interface StripeConfig {
  /** The publishable key handed to `Stripe(…)`. */
  publishableKey: string;
  /** Where Stripe.js is loaded from (the operator's setting; a stand-in in tests). */
  jsUrl: string;
}

export interface AppConfig {
  /** Where users write for help; null when the operator gave none (then: "the operator of this server"). */
  supportEmail: string | null;
  /** None unless the operator configured a provider; loaded only after consent. */
  analytics: AnalyticsConfig | null;
  /** Whether paid plans are sold on this server. */
  billingEnabled: boolean;
  /** Stripe.js and its key; null with billing off. */
  stripe: StripeConfig | null;
}

/** What the client assumes until the server answers: no address known, no analytics, billing off. */
export const DEFAULT_CONFIG: AppConfig = { supportEmail: null, analytics: null, billingEnabled: false, stripe: null };

/** Said instead of an address when the operator gave none. */
export const NO_SUPPORT_EMAIL_TEXT = "the operator of this server";

export const appConfig = signal<AppConfig>(DEFAULT_CONFIG);

/** True once the server answered GET /api/config (or could not: then the defaults stand). */
export const appConfigLoaded = signal(false);

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
        stripe: stripeConfig(answer.stripe),
      };
      return appConfig.value;
    })
    .catch(() => appConfig.value)
    .finally(() => {
      appConfigLoaded.value = true;
    });
  return loading;
}

/** The `stripe` answer when it names both a key and a script, else null. */
function stripeConfig(value: unknown): StripeConfig | null {
  if (!value || typeof value !== "object") return null;
  const { publishableKey, jsUrl } = value as Partial<Record<keyof StripeConfig, unknown>>;
  if (typeof publishableKey !== "string" || !publishableKey || typeof jsUrl !== "string" || !jsUrl) return null;
  return { publishableKey, jsUrl };
}

/** For tests: forget the loaded configuration. */
export function resetAppConfig() {
  loading = null;
  appConfig.value = DEFAULT_CONFIG;
  appConfigLoaded.value = false;
}
