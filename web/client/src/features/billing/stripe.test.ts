import { createEmbeddedCheckout, forgetStripe, loadStripe, STRIPE_SCRIPT_ATTRIBUTE, type StripeClient } from "./stripe";

const CONFIG = { publishableKey: "pk_test_1", jsUrl: "http://localhost:8420/js.stripe.com/v3/" };
const scripts = () => [...document.head.querySelectorAll<HTMLScriptElement>(`script[${STRIPE_SCRIPT_ATTRIBUTE}]`)];

beforeEach(() => {
  forgetStripe();
  vi.stubGlobal("Stripe", undefined);
});
afterEach(() => {
  forgetStripe();
  vi.unstubAllGlobals();
});

describe("loadStripe", () => {
  it("injects the configured script once, then calls Stripe(publishableKey) once", async () => {
    const first = loadStripe(CONFIG);
    const second = loadStripe(CONFIG);
    await Promise.resolve();
    expect(scripts()).toHaveLength(1);
    expect(scripts()[0].src).toBe(CONFIG.jsUrl);

    const client = { elements: vi.fn() };
    const constructor = vi.fn(() => client);
    vi.stubGlobal("Stripe", constructor);
    scripts()[0].dispatchEvent(new Event("load"));

    await expect(first).resolves.toBe(client);
    await expect(second).resolves.toBe(client);
    await expect(loadStripe(CONFIG)).resolves.toBe(client);
    expect(constructor).toHaveBeenCalledTimes(1);
    expect(constructor).toHaveBeenCalledWith("pk_test_1");
  });

  it("a script that fails to load rejects, and the next call tries again", async () => {
    const failed = loadStripe(CONFIG);
    await Promise.resolve();
    scripts()[0].dispatchEvent(new Event("error"));
    await expect(failed).rejects.toThrow(/could not be loaded/);
    expect(scripts()).toHaveLength(0);

    const retry = loadStripe(CONFIG);
    await Promise.resolve();
    expect(scripts()).toHaveLength(1);
    vi.stubGlobal("Stripe", vi.fn(() => ({})));
    scripts()[0].dispatchEvent(new Event("load"));
    await expect(retry).resolves.toEqual({});
  });

  it("a script that loads without defining Stripe rejects", async () => {
    const loading = loadStripe(CONFIG);
    await Promise.resolve();
    scripts()[0].dispatchEvent(new Event("load"));
    await expect(loading).rejects.toThrow("Stripe.js did not define Stripe");
  });

  it("uses a Stripe already on the page without loading anything", async () => {
    const constructor = vi.fn(() => ({}));
    vi.stubGlobal("Stripe", constructor);
    await loadStripe(CONFIG);
    expect(scripts()).toHaveLength(0);
    expect(constructor).toHaveBeenCalledWith("pk_test_1");
  });
});

describe("createEmbeddedCheckout", () => {
  const options = { fetchClientSecret: async () => "cs_secret" };

  it("uses initEmbeddedCheckout, or else its newer name createEmbeddedCheckoutPage", async () => {
    const checkout = { mount: vi.fn(), unmount: vi.fn(), destroy: vi.fn() };
    const older = { initEmbeddedCheckout: vi.fn(async () => checkout) } as unknown as StripeClient;
    await expect(createEmbeddedCheckout(older, options)).resolves.toBe(checkout);
    const newer = { createEmbeddedCheckoutPage: vi.fn(async () => checkout) } as unknown as StripeClient;
    await expect(createEmbeddedCheckout(newer, options)).resolves.toBe(checkout);
    expect(newer.createEmbeddedCheckoutPage).toHaveBeenCalledWith(options);
  });

  it("rejects when Stripe.js has neither", async () => {
    await expect(createEmbeddedCheckout({} as StripeClient, options)).rejects.toThrow(/no embedded Checkout/);
  });
});
