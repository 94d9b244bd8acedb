import { stubFetch } from "@/test/harness";
import { appConfig, appConfigLoaded, loadAppConfig, resetAppConfig } from "./config";

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
});
