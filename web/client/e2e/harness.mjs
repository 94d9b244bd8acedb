// End-to-end harness: the real papertide binary on a loopback port with a fresh data directory,
// maildev as its SMTP server, and Debian's Chromium driven by playwright-core.
import { spawn } from "node:child_process";
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

async function waitFor(check, what, timeoutMs = 30_000) {
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
    /** Waits for a mail to `to` whose subject includes `subject`; returns the newest such. */
    async waitForEmail(to, subject) {
      let found;
      await waitFor(async () => {
        const all = await emails();
        found = all.filter((mail) => mail.to.some((r) => r.address === to) && mail.subject.includes(subject)).pop();
        return Boolean(found);
      }, `mail "${subject}" to ${to}`, 20_000);
      return found;
    },
    stop: () => stopProcess(child),
  };
}

/** The papertide binary with its own data directory, mailing through `smtpUrl`. */
export async function startPapertide({ smtpUrl, env = {} }) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "papertide-e2e-"));
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(
    papertideBin,
    ["--data-dir", dataDir, "serve", "--bind", `127.0.0.1:${port}`, "--public-url", baseUrl, "--smtp-url", smtpUrl],
    { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, PAPERTIDE_LOG: "warn", PAPERTIDE_HARVEST_SOURCES: "none", ...env } },
  );
  await waitFor(async () => (await fetch(`${baseUrl}/healthz`)).ok, "papertide");
  return {
    baseUrl,
    dataDir,
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

/** A stack (maildev + papertide) and a browser for one test file. */
export async function startStack() {
  const maildev = await startMaildev();
  const papertide = await startPapertide({ smtpUrl: maildev.smtpUrl });
  const browser = await launchBrowser();
  return {
    maildev,
    papertide,
    browser,
    /** A fresh browser context (its own cookies and storage) and page. */
    async newPage() {
      const context = await browser.newContext({ baseURL: papertide.baseUrl, viewport: { width: 1280, height: 800 } });
      return context.newPage();
    },
    async stop() {
      await browser.close();
      await papertide.stop();
      await maildev.stop();
    },
  };
}
