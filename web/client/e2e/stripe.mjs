// Stripe's API on loopback for the browser tests: localstripe through tools/stripe/launcher.py
// (installed into tools/stripe/.venv by the README's test command), in memory, with the plans
// price_pro (500 usd a month) and price_team (1000), and its Stripe.js stand-in, which the page
// loads from `jsUrl` (card element, confirmCardSetup/confirmCardPayment with a 3-D Secure dialog
// whose buttons are "Complete authentication" and "Fail authentication", and an embedded
// Checkout with a "Pay" button). tools/stripe/README.md says what each test card does.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, repoRoot, waitFor } from "./harness.mjs";

const python = path.join(repoRoot, "tools", "stripe", ".venv", "bin", "python");
const launcher = path.join(repoRoot, "tools", "stripe", "launcher.py");

export const cards = {
  ok: "4242424242424242",
  threeDSecure: "4000002500003155",
  declined: "4000000000000002",
  declinedOnCharge: "4000000000000341",
};

/**
 * localstripe on a free port, answering. `registerWebhook(url, secret)` sends every event to
 * `url` (replacing an earlier endpoint); `unregisterWebhooks()` sends none (a lost webhook);
 * `api(path, {method, form})` calls the API with the secret key and returns the parsed body
 * (e.g. `api("/v1/subscriptions?customer=cus_…&status=all")`); `eventTypes()` lists the events
 * so far, oldest first.
 */
export async function startLocalStripe() {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run the README's test command (make test)`);
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const secretKey = "sk_test_localstripe";
  const publishableKey = "pk_test_localstripe";
  const [planPro, planTeam] = ["price_pro", "price_team"];
  const child = spawn(
    python,
    [launcher, "--port", String(port), "--exit-with-stdin", "--plan", `${planPro}:500`, "--plan", `${planTeam}:1000`],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  const api = async (apiPath, { method = "GET", form } = {}) => {
    const response = await fetch(`${apiUrl}${apiPath}`, {
      method,
      headers: { Authorization: `Bearer ${secretKey}` },
      body: form ? new URLSearchParams(form) : undefined,
    });
    const body = await response.json().catch(() => null);
    if (!response.ok) throw new Error(`${method} ${apiPath}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error("localstripe exited");
    return (await fetch(`${apiUrl}/v1/plans/${planPro}`, { headers: { Authorization: `Bearer ${secretKey}` } })).ok;
  }, "localstripe");
  return {
    apiUrl,
    jsUrl: `${apiUrl}/js.stripe.com/v3/`,
    secretKey,
    publishableKey,
    planPro,
    planTeam,
    api,
    async registerWebhook(url, secret) {
      const response = await fetch(`${apiUrl}/_config/webhooks/papertide`, { method: "POST", body: new URLSearchParams({ url, secret }) });
      if (!response.ok) throw new Error(`registering the webhook ${url}: ${response.status}`);
    },
    async unregisterWebhooks() {
      const response = await fetch(`${apiUrl}/_config/webhooks`, { method: "DELETE" });
      if (!response.ok) throw new Error(`unregistering the webhooks: ${response.status}`);
    },
    async eventTypes() {
      const events = await api("/v1/events?limit=100");
      return events.data.map((event) => event.type).reverse();
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        // Closing its input ends the launcher (--exit-with-stdin); the signal is for good measure.
        child.stdin?.end();
        child.kill("SIGTERM");
      });
    },
  };
}
