// What the server tells the client about this installation (GET /api/config).
import { signal } from "@preact/signals-react";
import type { AnalyticsView, ClientConfig, PlanEntitlements, StripeView, Tier } from "@/api/contract";
import { getJson } from "@/lib/api";

export type AnalyticsProvider = "plausible" | "umami" | "ga4";

/**
 * The server's analytics provider, of the kinds the client knows: the script to load once the
 * visitor consents, and the site (Plausible: the site's domain; Umami: the website id; GA4: the
 * measurement id).
 */
export type AnalyticsConfig = Omit<AnalyticsView, "provider"> & { provider: AnalyticsProvider };

/** The payment provider's browser side (Stripe.js), when billing is on: its key and script. */
export type StripeConfig = StripeView;

/**
 * What the client knows of the installation (`ClientConfig`): `supportEmail` is null when the
 * operator gave none (then: "the operator of this server"); analytics load only after consent;
 * `stripe` is null with billing off.
 */
export type AppConfig = Omit<ClientConfig, "supportEmail" | "analytics"> & {
  supportEmail: string | null;
  analytics: AnalyticsConfig | null;
};

/**
 * What the client assumes until the server answers: no address known, no analytics, billing off,
 * and no plan's entitlements known (the plan cards then list only their own lines).
 */
export const DEFAULT_CONFIG: AppConfig = { supportEmail: null, analytics: null, billingEnabled: false, advancedModel: false, plans: [], stripe: null };

/** Said instead of an address when the operator gave none. */
export const NO_SUPPORT_EMAIL_TEXT = "the operator of this server";

export const appConfig = signal<AppConfig>(DEFAULT_CONFIG);

/** True once the server answered GET /api/config (or could not: then the defaults stand). */
export const appConfigLoaded = signal(false);

let loading: Promise<AppConfig> | null = null;

/** Loads the configuration once; later calls share the first answer. */
export function loadAppConfig(): Promise<AppConfig> {
  loading ??= getJson<Partial<ClientConfig> | null>("/api/config")
    .then((config) => {
      const answer = config && typeof config === "object" ? config : {};
      appConfig.value = {
        ...DEFAULT_CONFIG,
        ...answer,
        analytics: analyticsConfig(answer.analytics),
        supportEmail: answer.supportEmail || null,
        billingEnabled: answer.billingEnabled === true,
        advancedModel: answer.advancedModel === true,
        plans: plansConfig(answer.plans),
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

/** The `analytics` answer when its provider is one the client knows, else null. */
function analyticsConfig(value: AnalyticsView | null | undefined): AnalyticsConfig | null {
  if (!value || typeof value !== "object") return null;
  const provider = value.provider as AnalyticsProvider;
  if (!["plausible", "umami", "ga4"].includes(provider)) return null;
  return { ...value, provider };
}

/** What a plan gives beyond its term and digest limits. */
export type Entitlements = Pick<PlanEntitlements, "seeds" | "feeds" | "citations" | "labChannels">;

/** The `plans` answer's entries that name a tier; none when it is not a list. */
function plansConfig(value: unknown): PlanEntitlements[] {
  if (!Array.isArray(value)) return [];
  return value.filter((plan): plan is PlanEntitlements => Boolean(plan) && typeof plan === "object" && typeof plan.tier === "string");
}

/**
 * What `tier` gives as the server says (`plans` of GET /api/config); until it has said, what
 * every server gives: seeds, feeds and citations on every plan, a lab channel on Team only.
 */
export function entitlementsOf(tier: Tier, plans: readonly PlanEntitlements[] = appConfig.value.plans): Entitlements {
  return plans.find((plan) => plan.tier === tier) ?? { seeds: true, feeds: true, citations: true, labChannels: tier === "team" };
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
