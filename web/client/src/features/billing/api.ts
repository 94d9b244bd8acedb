// The billing calls of spec §7 and the shapes they answer (spec §3; ARCHITECTURE.md, Billing).
// Each is a thin wrapper over the shared api module; failures are ApiErrors whose JSON body
// carries `message` and a machine-readable `code` (`card_declined`, `use_card_form`, …).
import { ApiError, getJson, postJson } from "@/lib/api";
import type { Tier } from "@/state/session";

export type PaidTier = "pro" | "team";

/**
 * POST /api/create-subscription. Step 1 (`{tier}`) answers `step: "setup"` with a SetupIntent's
 * secret; step 2 (`{tier, setupIntentId}`) answers `step: "subscription"` with the first
 * payment's PaymentIntent secret when the customer must act (3-D Secure), else null.
 */
export interface SubscriptionAnswer {
  alreadyActive: boolean;
  tier: Tier;
  step?: "setup" | "subscription";
  clientSecret: string | null;
  subscriptionId: string | null;
}

export const createSubscription = (tier: PaidTier, setupIntentId?: string) =>
  postJson<SubscriptionAnswer>("/api/create-subscription", setupIntentId ? { tier, setupIntentId } : { tier });

/** POST /api/create-checkout-session: the embedded Checkout Session's secret. */
export const createCheckoutSession = (tier: PaidTier) => postJson<{ clientSecret: string }>("/api/create-checkout-session", { tier });

export interface SessionStatus {
  status: string | null;
  subscription_id: string | null;
  payment_status?: string | null;
}

export const fetchSessionStatus = (sessionId: string) =>
  getJson<SessionStatus>(`/api/session-status?session_id=${encodeURIComponent(sessionId)}`);

export type SubscriptionState = "pending" | "success" | "failed";

export interface SubscriptionStatus {
  state: SubscriptionState;
  reason?: string | null;
  tier?: Tier | null;
}

export const fetchSubscriptionStatus = (subscriptionId: string) =>
  getJson<SubscriptionStatus>(`/api/subscriptions/${encodeURIComponent(subscriptionId)}/status`);

export interface DebugInvoice {
  id: string;
  status: string | null;
  paid: boolean;
  /** In the currency's smallest unit (cents). */
  amount_paid: number;
  amount_due: number;
  currency?: string | null;
  created?: number | null;
}

export interface DebugStatus {
  user: { email: string; subscriptionTier: Tier; stripeCustomerId?: string | null };
  stripe: {
    customerId?: string | null;
    subscriptions: Array<{ id: string; status: string; tier?: Tier | null }>;
    invoices: DebugInvoice[];
  };
}

export const fetchDebugStatus = () => getJson<DebugStatus>("/api/debug-webhook-status");

export const fixSubscription = () => postJson<{ tier: Tier; changed?: boolean }>("/api/fix-subscription");

/** The `code` of an error answer (e.g. `card_declined`), if the server gave one. */
export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const code = error.field<unknown>("code");
  return typeof code === "string" ? code : undefined;
}
