// A stand-in for Stripe.js in unit tests: `window.Stripe` returning an object with what the
// billing pages use, each a vi.fn the test can script and inspect. The real script is never
// loaded (the loader finds `window.Stripe` already there).
import { forgetStripe } from "@/features/billing/stripe";

export const STRIPE_CONFIG = { publishableKey: "pk_test_papertide", jsUrl: "http://stripe.test/v3/" };

/** GET /api/config of a server with billing on. */
export const BILLING_ON_CONFIG = {
  status: 200,
  body: { supportEmail: "help@example.org", analytics: null, billingEnabled: true, stripe: STRIPE_CONFIG },
};

export function installFakeStripe() {
  forgetStripe();
  const card = { mount: vi.fn(), destroy: vi.fn(), on: vi.fn(), unmount: vi.fn() };
  const elements = { create: vi.fn(() => card) };
  const checkout = { mount: vi.fn(), destroy: vi.fn(), unmount: vi.fn() };
  const stripe = {
    elements: vi.fn(() => elements),
    confirmCardSetup: vi.fn(async (_secret: string, _data?: unknown) => ({
      setupIntent: { id: "seti_123", status: "succeeded" },
    })) as ReturnType<typeof vi.fn>,
    confirmCardPayment: vi.fn(async (_secret: string) => ({
      paymentIntent: { id: "pi_123", status: "succeeded" },
    })) as ReturnType<typeof vi.fn>,
    initEmbeddedCheckout: vi.fn(async (_options: { fetchClientSecret: () => Promise<string> }) => checkout),
  };
  const constructor = vi.fn((_key: string) => stripe);
  vi.stubGlobal("Stripe", constructor);
  return { constructor, stripe, elements, card, checkout };
}
