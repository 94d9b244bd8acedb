import { stubFetch } from "@/test/harness";
import { appConfig, appConfigLoaded, entitlementsOf, loadAppConfig, resetAppConfig } from "./config";

beforeEach(() => resetAppConfig());
afterEach(() => vi.unstubAllGlobals());

describe("loadAppConfig", () => {
  it("keeps Stripe.js's address and key when billing is on, and says it has loaded", async () => {
    stubFetch({
      "GET /api/config": {
        status: 200,
        body: { supportEmail: "help@example.org", billingEnabled: true, stripe: { publishableKey: "pk_test_1", jsUrl: "https://js.stripe.com/v3/" } },
      },
    });
    expect(appConfigLoaded.value).toBe(false);
    await loadAppConfig();
    expect(appConfigLoaded.value).toBe(true);
    expect(appConfig.value).toMatchObject({ billingEnabled: true, stripe: { publishableKey: "pk_test_1", jsUrl: "https://js.stripe.com/v3/" } });
  });

  it.each([null, {}, { publishableKey: "pk_test_1" }, { jsUrl: "https://js.stripe.com/v3/" }, { publishableKey: "", jsUrl: "x" }])(
    "stripe %j is none",
    async (stripe) => {
      stubFetch({ "GET /api/config": { status: 200, body: { billingEnabled: false, stripe } } });
      await loadAppConfig();
      expect(appConfig.value.stripe).toBeNull();
    },
  );

  it("a server that cannot answer leaves the defaults, loaded", async () => {
    stubFetch({ "GET /api/config": { status: 500, body: { message: "boom" } } });
    await loadAppConfig();
    expect(appConfigLoaded.value).toBe(true);
    expect(appConfig.value).toMatchObject({ billingEnabled: false, stripe: null });
  });

  it("keeps the plans' entitlements, and what each tier gives follows them", async () => {
    const plans = [
      { tier: "free", maxSearchTerms: 1, seeds: true, feeds: false, citations: true, labChannels: false },
      { tier: "team", maxSearchTerms: 10, seeds: true, feeds: true, citations: true, labChannels: true },
    ];
    stubFetch({ "GET /api/config": { status: 200, body: { plans: [...plans, null, { seeds: true }] } } });
    await loadAppConfig();
    expect(appConfig.value.plans).toEqual(plans);
    expect(entitlementsOf("free")).toMatchObject({ feeds: false, labChannels: false });
    expect(entitlementsOf("team")).toMatchObject({ labChannels: true });
  });

  it("before the server lists the plans: every plan has seeds, feeds and citations, Team alone lab channels", async () => {
    stubFetch({ "GET /api/config": { status: 200, body: { plans: "none" } } });
    await loadAppConfig();
    expect(appConfig.value.plans).toEqual([]);
    expect(entitlementsOf("free")).toEqual({ seeds: true, feeds: true, citations: true, labChannels: false });
    expect(entitlementsOf("pro").labChannels).toBe(false);
    expect(entitlementsOf("team").labChannels).toBe(true);
  });
});
