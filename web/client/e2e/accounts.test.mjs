// Accounts in the browser: signup with every error (the server's refusal of a common password
// included), the mailed verification link, sign-in and sign-out, and a password reset from the
// mailed link — against the real binary and maildev.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { dismissCookieBanner, linkIn, PASSWORD, screenshot, signIn, signUp, startStack, verifiedPage } from "./harness.mjs";

const NEW_PASSWORD = "Brand-New-456";
const COMMON_PASSWORD = "This password is on a list of common or leaked passwords that attackers try first; please choose another";

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

test("the combined signup form shows every error", async () => {
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await page.goto("/auth?tab=signup");
  await page.locator("#signup-email").fill("not-an-email");
  await page.locator("#signup-password").fill("short");
  await page.locator("#signup-confirm-password").fill("different");
  await page.getByRole("button", { name: "Create account" }).click();
  for (const message of [
    "Please enter a valid email address",
    "Password must be at least 8 characters long",
    "Passwords don't match",
    "You must agree to the Terms and Conditions",
    "You must agree to the Privacy Policy",
  ]) {
    await page.getByText(message, { exact: true }).waitFor();
  }
  await screenshot(page, "signup-errors");
  let health = await (await fetch(`${stack.papertide.baseUrl}/healthz`)).json();
  assert.equal(health.users, 0, "an invalid form reached the server");

  // A form the browser accepts, with a password on the server's list of common ones.
  await page.locator("#signup-email").fill("dee@example.org");
  await page.locator("#signup-password").fill("iloveyou");
  await page.locator("#signup-confirm-password").fill("iloveyou");
  await page.locator("#signup-agree-terms").click();
  await page.locator("#signup-agree-privacy").click();
  await page.getByRole("button", { name: "Create account" }).click();
  await page.locator("#signup-password-error").getByText(COMMON_PASSWORD, { exact: true }).waitFor();
  await screenshot(page, "signup-common-password");
  health = await (await fetch(`${stack.papertide.baseUrl}/healthz`)).json();
  assert.equal(health.users, 0, "a common password made an account");
  await page.context().close();
});

test("signup → the mailed link verifies and signs in → sign out → sign in", async () => {
  const email = "ada@example.org";
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await signUp(page, email);
  await screenshot(page, "signup-check-email");

  const mail = await stack.maildev.waitForEmail(email, "Verify your email");
  const link = linkIn(mail, "/verify-email?token=");
  await page.goto(link);
  await page.getByText("Email Verified Successfully!").waitFor();
  await screenshot(page, "verify-email-success");
  const me = await page.evaluate(async () => (await fetch("/api/auth/me", { credentials: "include" })).json());
  assert.equal(me.user.email, email, "verifying did not sign the user in");

  assert.equal(await page.getByRole("button", { name: "Continue to Sign In" }).count(), 0, "a signed-in user is not sent to sign in");
  await page.getByRole("button", { name: "Continue to Dashboard" }).click();
  await page.waitForURL("**/dashboard**");
  await page.getByText(email).first().waitFor();
  await page.getByText("Free", { exact: true }).first().waitFor();
  await screenshot(page, "dashboard-shell");

  await page.getByRole("button", { name: "Logout" }).click();
  await page.waitForURL((url) => url.pathname === "/auth");
  await page.goto("/dashboard");
  await page.waitForURL((url) => url.pathname === "/auth", { timeout: 10_000 });

  await signIn(page, email, "Wrong-Pass-1");
  await page.getByText("Invalid email or password").first().waitFor();
  await signIn(page, email, PASSWORD);
  await page.waitForURL("**/dashboard?email=**");
  await page.getByText(email).first().waitFor();
  await screenshot(page, "dashboard-after-login");
  await page.context().close();
});

test("forgot password → the mailed link → the new password works and the old does not", async () => {
  const email = "bob@example.org";
  const setup = await verifiedPage(stack, email);
  await setup.context().close();

  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await page.goto("/auth?tab=login");
  await page.getByRole("button", { name: "Forgot password?" }).or(page.getByRole("link", { name: "Forgot password?" })).click();
  await page.locator("#forgot-email").fill(email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await page.getByText("Password Reset Email Sent").first().waitFor();
  await screenshot(page, "forgot-password-sent");

  const mail = await stack.maildev.waitForEmail(email, "Reset your Papertide password");
  await page.goto(linkIn(mail, "/reset-password?token="));
  await page.locator("#new-password").fill(NEW_PASSWORD);
  await page.locator("#confirm-new-password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Reset password" }).click();
  await page.getByText("Password Reset Complete").waitFor();
  await screenshot(page, "reset-password-complete");

  await signIn(page, email, PASSWORD);
  await page.getByText("Invalid email or password").first().waitFor();
  await signIn(page, email, NEW_PASSWORD);
  await page.waitForURL("**/dashboard?email=**");
  await page.getByText(email).first().waitFor();
  await page.context().close();
});

test("a topic typed before signup is processed after verification and its digest is mailed", async () => {
  const email = "cy@example.org";
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  await page.getByLabel("Research topic").fill("tau protein aggregation");
  await page.getByRole("button", { name: "Start Discovery" }).click();
  await page.waitForURL("**/auth");
  await page.getByText("Ready to search").waitFor();
  await signUp(page, email, { openForm: false });

  const mail = await stack.maildev.waitForEmail(email, "Verify your email");
  await page.goto(linkIn(mail, "/verify-email?token="));
  await page.getByRole("button", { name: "Process Search & Continue" }).click();
  await page.getByText("Processing Your Search").waitFor();
  await page.getByText("10%").waitFor();
  await screenshot(page, "processing-dialog");
  await page.getByText("Search Complete!").first().waitFor({ timeout: 15_000 });
  await screenshot(page, "processing-complete");
  await page.waitForURL("**/dashboard?email=**", { timeout: 15_000 });
  // This server harvests nothing, so the digest says why it is empty.
  const digest = await stack.maildev.waitForEmail(email, 'no new papers on "tau protein aggregation"');
  assert.match(digest.text, /Nothing published in the last 90 days matched "tau protein aggregation"/);
  assert.ok(digest.headers["list-unsubscribe"], "the digest offers one-click unsubscribe");
  await page.context().close();
});

test("a topic the rules refuse: the landing page says why before signup; one that still fails after verification lands, signed in, on the dashboard with the message", async () => {
  const page = await stack.newPage();
  await page.goto("/");
  await dismissCookieBanner(page);
  const topic = page.getByLabel("Research topic");
  await topic.fill("<b>x</b>");
  await page.getByRole("button", { name: "Start Discovery" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: "Search term contains invalid characters or patterns" });
  await refusal.waitFor();
  assert.equal(new URL(page.url()).pathname, "/", "no signup with a refused topic");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("pendingSearch")), null, "nothing kept");
  assert.equal(await topic.getAttribute("aria-invalid"), "true");
  await screenshot(page, "landing-topic-refused");
  await topic.fill("ab");
  await page.getByRole("button", { name: "Start Discovery" }).click();
  await page.getByRole("alert").filter({ hasText: "Search term must be at least 3 characters" }).waitFor();

  // A topic kept by an older page (or typed past it) still fails at the server after verification.
  const email = "dee-refused-topic@example.org";
  await page.evaluate(() => sessionStorage.setItem("pendingSearch", "<b>x</b>"));
  await page.goto("/auth?tab=signup");
  await page.getByText("Ready to search").waitFor();
  await signUp(page, email, { openForm: false });
  const mail = await stack.maildev.waitForEmail(email, "Verify your email");
  await page.goto(linkIn(mail, "/verify-email?token="));
  await page.getByRole("button", { name: "Process Search & Continue" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
  await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
  const field = page.locator("#new-search-term");
  assert.equal(await field.inputValue(), "<b>x</b>");
  await page.getByRole("alert").filter({ hasText: "Search term contains invalid characters or patterns" }).waitFor();
  assert.equal(await page.locator("#login-email, #login-password").count(), 0, "no sign-in form");
  const me = await page.evaluate(async () => (await fetch("/api/auth/me", { credentials: "include" })).status);
  assert.equal(me, 200, "still signed in");
  await screenshot(page, "verified-topic-refused-dashboard");
  await page.context().close();
});
