// The billing calls of spec §7 and the shapes they answer (spec §3; ARCHITECTURE.md, Billing).
// Each is a thin wrapper over the shared api module; failures are ApiErrors whose JSON body
// carries `message` and a machine-readable `code` (`card_declined`, `use_card_form`, …).
import type {
  CheckoutSessionAnswer,
  CreateSubscriptionAnswer,
  FixSubscriptionAnswer,
  InvoiceView,
  PaidTier,
  PlanChoice,
  SessionStatusAnswer,
  SubscriptionStatusAnswer,
  WebhookStatusAnswer,
} from "@/api/contract";
import { getJson, postJson } from "@/lib/api";

export { errorCode } from "@/lib/api";

export type { PaidTier };

/**
 * POST /api/create-subscription. Step 1 (`{tier}`) answers `step: "setup"` with a SetupIntent's
 * secret; step 2 (`{tier, setupIntentId}`) answers `step: "subscription"` with the first
 * payment's PaymentIntent secret when the customer must act (3-D Secure), else null.
 */
export type SubscriptionAnswer = CreateSubscriptionAnswer;

export const createSubscription = (tier: PaidTier, setupIntentId?: string) =>
  postJson<SubscriptionAnswer>("/api/create-subscription", (setupIntentId ? { tier, setupIntentId } : { tier }) satisfies PlanChoice);

/** POST /api/create-checkout-session: the embedded Checkout Session's secret. */
export const createCheckoutSession = (tier: PaidTier) =>
  postJson<CheckoutSessionAnswer>("/api/create-checkout-session", { tier } satisfies PlanChoice);

export type SessionStatus = SessionStatusAnswer;

export const fetchSessionStatus = (sessionId: string) =>
  getJson<SessionStatus>(`/api/session-status?session_id=${encodeURIComponent(sessionId)}`);

export type SubscriptionState = SubscriptionStatusAnswer["state"];

/** The finalizing page's poll; it reads the state, and the reason of a failure. */
export type SubscriptionStatus = Pick<SubscriptionStatusAnswer, "state"> & Partial<Omit<SubscriptionStatusAnswer, "state">>;

export const fetchSubscriptionStatus = (subscriptionId: string) =>
  getJson<SubscriptionStatusAnswer>(`/api/subscriptions/${encodeURIComponent(subscriptionId)}/status`);

export type DebugInvoice = InvoiceView;

export type DebugStatus = WebhookStatusAnswer;

export const fetchDebugStatus = () => getJson<DebugStatus>("/api/debug-webhook-status");

export const fixSubscription = () => postJson<FixSubscriptionAnswer>("/api/fix-subscription");
