// Stripe.js, loaded from the address the server names in GET /api/config (`stripe.jsUrl`: Stripe's
// own in production, a stand-in in tests) — never from a hard-coded one, which is why this is not
// @stripe/stripe-js's `loadStripe` (that package gives the types only). The script is injected
// once; `Stripe(publishableKey)` is called once per key and its object shared.
import type { Stripe, StripeEmbeddedCheckout, StripeEmbeddedCheckoutOptions } from "@stripe/stripe-js";
import type { StripeConfig } from "@/state/config";

/** What the billing pages use of Stripe.js. */
export type StripeClient = Pick<Stripe, "elements" | "confirmCardSetup" | "confirmCardPayment"> & {
  /** Embedded Checkout (Stripe.js's name until 2025; still what the test stand-in offers). */
  initEmbeddedCheckout?: (options: StripeEmbeddedCheckoutOptions) => Promise<StripeEmbeddedCheckout>;
  /** Its newer name. */
  createEmbeddedCheckoutPage?: (options: StripeEmbeddedCheckoutOptions) => Promise<StripeEmbeddedCheckout>;
};

export const STRIPE_SCRIPT_ATTRIBUTE = "data-papertide-stripe";

let scriptLoad: { url: string; promise: Promise<void> } | null = null;
let instance: { key: string; promise: Promise<StripeClient> } | null = null;

function injectScript(url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.setAttribute(STRIPE_SCRIPT_ATTRIBUTE, "");
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => {
      script.remove();
      reject(new Error(`Stripe.js could not be loaded from ${url}`));
    });
    document.head.appendChild(script);
  });
}

async function scriptLoaded(url: string): Promise<void> {
  if (window.Stripe) return;
  if (!scriptLoad || scriptLoad.url !== url) {
    const load = { url, promise: injectScript(url) };
    scriptLoad = load;
    load.promise.catch(() => {
      if (scriptLoad === load) scriptLoad = null;
    });
  }
  await scriptLoad.promise;
}

/**
 * The Stripe object for `config`: loads the script if `window.Stripe` is not there yet, then
 * calls `window.Stripe(publishableKey)`, once for every caller. A failed load may be tried again.
 */
export function loadStripe(config: StripeConfig): Promise<StripeClient> {
  if (instance && instance.key === config.publishableKey) return instance.promise;
  const promise = scriptLoaded(config.jsUrl).then(() => {
    if (typeof window.Stripe !== "function") throw new Error("Stripe.js did not define Stripe");
    return window.Stripe(config.publishableKey) as unknown as StripeClient;
  });
  const entry = { key: config.publishableKey, promise };
  instance = entry;
  promise.catch(() => {
    if (instance === entry) instance = null;
  });
  return promise;
}

/** Creates the embedded Checkout with whichever name this Stripe.js gives it. */
export function createEmbeddedCheckout(stripe: StripeClient, options: StripeEmbeddedCheckoutOptions): Promise<StripeEmbeddedCheckout> {
  if (stripe.initEmbeddedCheckout) return stripe.initEmbeddedCheckout(options);
  if (stripe.createEmbeddedCheckoutPage) return stripe.createEmbeddedCheckoutPage(options);
  return Promise.reject(new Error("This Stripe.js offers no embedded Checkout"));
}

/** For tests: forget the script and the Stripe object. */
export function forgetStripe() {
  scriptLoad = null;
  instance = null;
  document.head.querySelectorAll(`script[${STRIPE_SCRIPT_ATTRIBUTE}]`).forEach((script) => script.remove());
}
