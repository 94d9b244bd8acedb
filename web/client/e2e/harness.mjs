// End-to-end harness: the real papertide binary on a loopback port with a fresh data directory,
// maildev as its SMTP server, and Debian's Chromium driven by playwright-core.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../../..");
export const artifactsDir = path.join(repoRoot, "test-artifacts", "e2e");
const papertideBin = process.env.PAPERTIDE_BIN ?? path.join(repoRoot, "target", "debug", "papertide");
const maildevBin = path.join(repoRoot, "tools", "node_modules", ".bin", "maildev");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** maildev on free ports; `emails()` lists what it received. */
export async function startMaildev() {
  for (const binary of [maildevBin, papertideBin]) {
    if (!fs.existsSync(binary)) throw new Error(`${binary} is missing: run the README's test command (make test)`);
  }
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const child = spawn(maildevBin, ["--smtp", String(smtpPort), "--web", String(webPort), "--ip", "127.0.0.1", "--silent"], {
    stdio: "ignore",
  });
  const api = `http://127.0.0.1:${webPort}`;
  await waitFor(async () => (await fetch(`${api}/email`)).ok, "maildev");
  const emails = async () => (await fetch(`${api}/email`)).json();
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    emails,
    /**
     * Waits until `count` mails to `to` have a subject that includes `subject`; returns the
     * newest such.
     */
    async waitForEmail(to, subject, { count = 1 } = {}) {
      let matching = [];
      await waitFor(async () => {
        const all = await emails();
        matching = all.filter((mail) => mail.to.some((r) => r.address === to) && mail.subject.includes(subject));
        return matching.length >= count;
      }, `${count} mail(s) "${subject}" to ${to}`, 20_000);
      return matching.at(-1);
    },
    stop: () => stopProcess(child),
  };
}

/** The papertide binary with its own data directory, mailing through `smtpUrl`. */
export async function startPapertide({ smtpUrl, env = {} }) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "papertide-e2e-"));
  const baseUrl = `http://127.0.0.1:${port}`;
  const spawnServer = async () => {
    const child = spawn(
      papertideBin,
      ["--data-dir", dataDir, "serve", "--bind", `127.0.0.1:${port}`, "--public-url", baseUrl, "--smtp-url", smtpUrl],
      { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, PAPERTIDE_LOG: "warn", PAPERTIDE_HARVEST_SOURCES: "none", PAPERTIDE_LIVE_SEARCH: "false", ...env } },
    );
    await waitFor(async () => (await fetch(`${baseUrl}/healthz`)).ok, "papertide");
    return child;
  };
  let child = await spawnServer();
  return {
    baseUrl,
    dataDir,
    /** `/healthz`, parsed. */
    health: async () => (await fetch(`${baseUrl}/healthz`)).json(),
    /**
     * Stops the service, runs `papertide ARGS` on its data directory (the operator's CLI needs
     * the database to itself) and starts it again on the same address; returns the CLI's stdout.
     */
    async runCli(args) {
      await stopProcess(child);
      const output = spawnSync(papertideBin, ["--data-dir", dataDir, ...args], { encoding: "utf8", env: { ...process.env, PAPERTIDE_LOG: "warn" } });
      child = await spawnServer();
      if (output.status !== 0) throw new Error(`papertide ${args.join(" ")}: ${output.stderr}`);
      return output.stdout;
    },
    async stop() {
      await stopProcess(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Saves a full-page screenshot as a test artifact. */
export async function screenshot(page, name) {
  fs.mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: true });
}

/** The first link in a mail's text that contains `marker`. */
export function linkIn(mail, marker) {
  const match = mail.text.match(new RegExp(`https?://\\S*${marker.replace(/[?]/g, "\\?")}\\S*`));
  if (!match) throw new Error(`no ${marker} link in mail "${mail.subject}"`);
  return match[0];
}

/**
 * A stack (maildev + papertide) and a browser for one test file. `env` adds settings of the
 * service (e.g. a replay server's source URLs).
 */
export async function startStack({ env = {} } = {}) {
  const maildev = await startMaildev();
  const papertide = await startPapertide({ smtpUrl: maildev.smtpUrl, env });
  const browser = await launchBrowser();
  const violations = watchContentSecurityPolicy(browser);
  return {
    maildev,
    papertide,
    browser,
    /** What the pages were refused under the service's Content-Security-Policy since the last call; forgotten then. */
    takeCspViolations: () => violations.splice(0, violations.length),
    /** A fresh browser context (its own cookies and storage) and page. */
    async newPage() {
      const context = await browser.newContext({ baseURL: papertide.baseUrl, viewport: { width: 1280, height: 800 } });
      return context.newPage();
    },
    /** Stops everything; fails when any page broke the Content-Security-Policy. */
    async stop() {
      await browser.close();
      await papertide.stop();
      await maildev.stop();
      if (violations.length > 0) {
        throw new Error(`pages broke the Content-Security-Policy:\n${violations.join("\n")}`);
      }
    },
  };
}

/**
 * Records every Content-Security-Policy violation in every context `browser` opens (the
 * browser's own console report, and the page's `securitypolicyviolation` event, which also
 * covers reports the console folds).
 */
function watchContentSecurityPolicy(browser) {
  const violations = [];
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    await context.exposeBinding("__reportCspViolation", ({ page }, text) => violations.push(`${page.url()}: ${text}`));
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        window.__reportCspViolation(`${event.effectiveDirective} refused ${event.blockedURI || "inline code"}`);
      });
    });
    context.on("console", (message) => {
      if (message.type() === "error" && message.text().includes("Content Security Policy")) {
        violations.push(`${message.page()?.url()}: ${message.text()}`);
      }
    });
    return context;
  };
  return violations;
}

export const PASSWORD = "Secret-123";

/** A card of the dashboard, by its title. */
export const card = (page, title) => page.getByRole("region", { name: title, exact: true });

/** Marks cookie consent as chosen, so the banner stays away (call on a page of the site). */
export async function dismissCookieBanner(page) {
  await page.evaluate(() => localStorage.setItem("cookieConsent", "declined"));
}

/** Fills and sends the combined signup form (on /auth, or opening it first). */
export async function signUp(page, email, { openForm = true } = {}) {
  if (openForm) await page.goto("/auth?tab=signup");
  await page.locator("#signup-email").fill(email);
  await page.locator("#signup-password").fill(PASSWORD);
  await page.locator("#signup-confirm-password").fill(PASSWORD);
  await page.locator("#signup-agree-terms").click();
  await page.locator("#signup-agree-privacy").click();
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText("Account Created Successfully!").first().waitFor();
}

export async function signIn(page, email, password = PASSWORD) {
  await page.goto("/auth?tab=login");
  await page.locator("#login-email").fill(email);
  await page.locator("#login-password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/**
 * A page signed in as a new, verified `email` (signed up and verified by its mailed link): a new
 * one, or `page` when given (a phone-sized one, say).
 */
export async function verifiedPage(stack, email, page) {
  page ??= await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await signUp(page, email);
  const mail = await stack.maildev.waitForEmail(email, "Verify your email");
  await page.goto(linkIn(mail, "/verify-email?token="));
  await page.getByText("Email Verified Successfully!").waitFor();
  return page;
}
