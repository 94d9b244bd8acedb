// The operator console and a user's own data in the browser, against the real binary and
// maildev: an operator (by PAPERTIDE_ADMIN_EMAILS) reads the numbers, finds a user, changes their
// plan, makes them operator and back, disables them, re-sends a verification, opens Mail and
// Sources, backs up into PAPERTIDE_BACKUP_DIR and deletes a user; a non-operator is refused;
// a user downloads their data and deletes their own account.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { card, dismissCookieBanner, PASSWORD, screenshot, signIn, signUp, startStack, verifiedPage } from "./harness.mjs";

const OPERATOR = "olga@example.org";

let stack;
let backupDir;
before(async () => {
  backupDir = fs.mkdtempSync(path.join(os.tmpdir(), "papertide-e2e-backups-"));
  stack = await startStack({ env: { PAPERTIDE_ADMIN_EMAILS: OPERATOR, PAPERTIDE_BACKUP_DIR: backupDir } });
});
after(async () => {
  await stack?.stop();
  if (backupDir) fs.rmSync(backupDir, { recursive: true, force: true });
});

/** The value next to the label `name` in a label/value list inside `scope`. */
const fact = (scope, name) => scope.locator("dt", { hasText: new RegExp(`^${name}$`) }).locator("xpath=following-sibling::dd[1]");

/** The console's row of the user `email`. */
const userRow = (page, email) => page.locator("tr", { has: page.getByRole("cell", { name: email, exact: true }) });

/** The session's answer to "who am I?" (status and body) from `page`. */
async function whoAmI(page) {
  const answer = await page.request.get("/api/auth/me");
  return { status: answer.status(), body: answer.status() === 200 ? await answer.json() : null };
}

/** Finds users whose email contains `text` on the Users tab. */
async function search(page, text) {
  await page.getByLabel("Email contains").fill(text);
  await page.getByRole("button", { name: "Search", exact: true }).click();
}

/** Waits for a toast with `text`. */
const toastSays = (page, text) => page.getByText(text, { exact: true }).first().waitFor();

test("a signed-in user who is not an operator is refused, and has no link to the console", async () => {
  const page = await verifiedPage(stack, "nils@example.org");
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
  assert.equal(await page.getByRole("link", { name: "Operator console" }).count(), 0, "a non-operator sees the console link");
  await page.goto("/admin");
  await page.getByText("This page is for the service's operators.", { exact: true }).waitFor();
  assert.equal(await page.getByRole("tab").count(), 0, "a non-operator sees the console's tabs");
  const stats = await page.request.get("/api/admin/stats");
  assert.equal(stats.status(), 403, "the server refuses a non-operator too");
  await screenshot(page, "admin-refused");
  await page.context().close();

  const anonymous = await stack.newPage();
  await anonymous.goto("/admin");
  await anonymous.waitForURL((url) => url.pathname === "/auth");
  await anonymous.context().close();
});

test("an operator walks the console: numbers, search, plan, operator, disable, re-send, mail, sources, backup, delete", async () => {
  const users = (await stack.papertide.health()).users;
  const bob = await verifiedPage(stack, "bob@example.org");
  const carolPage = await stack.newPage();
  await carolPage.goto("/");
  await dismissCookieBanner(carolPage);
  await signUp(carolPage, "carol@example.org");
  await stack.maildev.waitForEmail("carol@example.org", "Verify your email");
  await carolPage.context().close();

  const page = await verifiedPage(stack, OPERATOR);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Operator console" }).click();
  await page.waitForURL((url) => url.pathname === "/admin");

  // The numbers: everyone signed up so far, two more of them verified than carol.
  const numbers = card(page, "Numbers");
  await fact(numbers, "Users").getByText(String(users + 3), { exact: true }).waitFor();
  assert.equal(await fact(numbers, "Verified").innerText(), String(users + 2));
  await numbers.getByRole("list", { name: "Signups per week" }).waitFor();
  assert.equal(await numbers.getByRole("list", { name: "Signups per week" }).getByRole("listitem").count(), 12);
  await screenshot(page, "admin-01-users");

  // Find bob; put him on the team plan.
  await search(page, "BOB@");
  await userRow(page, "bob@example.org").waitFor();
  await page.getByText("Page 1 of 1 · 1 user", { exact: true }).waitFor();
  await page.getByLabel("Plan of bob@example.org").selectOption("team");
  await toastSays(page, "Plan Changed");
  assert.equal((await whoAmI(bob)).body.user.subscriptionTier, "team", "the plan did not change");
  await fact(numbers, "Team").getByText("1", { exact: true }).waitFor();

  // Operator, and back.
  await userRow(page, "bob@example.org").getByRole("button", { name: "Make operator" }).click();
  await userRow(page, "bob@example.org").getByRole("button", { name: "Remove operator" }).waitFor();
  assert.equal((await whoAmI(bob)).body.user.isAdmin, true, "bob is not an operator");
  await userRow(page, "bob@example.org").getByRole("button", { name: "Remove operator" }).click();
  await userRow(page, "bob@example.org").getByRole("button", { name: "Make operator" }).waitFor();
  assert.equal((await whoAmI(bob)).body.user.isAdmin, false, "bob is still an operator");

  // The operator's own row offers nothing that would always fail on it.
  await search(page, "olga");
  await userRow(page, OPERATOR).getByText("Your account").waitFor();
  for (const name of ["Remove operator", "Disable", "Delete"]) {
    assert.equal(await userRow(page, OPERATOR).getByRole("button", { name }).count(), 0, `${name} offered on the operator's own row`);
  }

  // Disabling ends bob's session.
  await search(page, "bob");
  await userRow(page, "bob@example.org").getByRole("button", { name: "Disable" }).click();
  await userRow(page, "bob@example.org").getByRole("button", { name: "Enable" }).waitFor();
  assert.equal((await whoAmI(bob)).status, 401, "a disabled user's session goes on");
  await screenshot(page, "admin-02-bob-changed");

  // Carol never verified: a new link goes out.
  await page.getByLabel("Verification").selectOption("false");
  await search(page, "");
  await userRow(page, "carol@example.org").waitFor();
  assert.equal(await userRow(page, "bob@example.org").count(), 0, "the filter lists a verified user");
  await userRow(page, "carol@example.org").getByRole("button", { name: "Resend verification" }).click();
  await stack.maildev.waitForEmail("carol@example.org", "Verify your email", { count: 2 });
  await page.getByLabel("Verification").selectOption("");

  // Mail and Sources.
  await page.getByRole("tab", { name: "Mail" }).click();
  const mail = card(page, "Mail");
  await fact(mail, "Transport").getByText("SMTP", { exact: true }).waitFor();
  await card(page, "Dead mail").getByText(/No dead mail/).waitFor();
  await screenshot(page, "admin-03-mail");
  await page.getByRole("tab", { name: "Sources" }).click();
  await card(page, "Index").waitFor();
  await fact(card(page, "Index"), "Papers").waitFor();
  await screenshot(page, "admin-04-sources");

  // A backup into a new folder of PAPERTIDE_BACKUP_DIR.
  await page.getByRole("tab", { name: "Backup" }).click();
  await page.getByRole("button", { name: "Back up now" }).click();
  await page.getByText("Backup complete.", { exact: true }).waitFor({ timeout: 60_000 });
  const folder = await fact(card(page, "Backup"), "Folder").innerText();
  assert.ok(folder.startsWith(backupDir), `the backup went to ${folder}, not into ${backupDir}`);
  assert.ok(fs.statSync(folder).isDirectory(), "the reported folder is not there");
  assert.equal(await fact(card(page, "Backup"), "Users").innerText(), String(users + 3));
  await screenshot(page, "admin-05-backup");

  // Deleting bob takes typing his address.
  await page.getByRole("tab", { name: "Users" }).click();
  await search(page, "bob");
  await userRow(page, "bob@example.org").getByRole("button", { name: "Delete" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete this user?" });
  assert.equal(await dialog.getByRole("button", { name: "Delete user" }).isDisabled(), true);
  await dialog.getByLabel("Type bob@example.org to confirm").fill("bob@example.org");
  await screenshot(page, "admin-06-delete-dialog");
  await dialog.getByRole("button", { name: "Delete user" }).click();
  await page.getByText("No user matches.", { exact: true }).waitFor();
  assert.equal((await stack.papertide.health()).users, users + 2, "bob was not deleted");
  await fact(numbers, "Users").getByText(String(users + 2), { exact: true }).waitFor();

  await bob.context().close();
  await page.context().close();
});

test("a user downloads their data, and deletes their account with their password", async () => {
  const email = "dee@example.org";
  const term = "zebrafish heart regeneration";
  const page = await verifiedPage(stack, email);
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Your Search Queue" }).waitFor();
  const input = card(page, "Add New Search Term").getByLabel("Research topic");
  await input.fill(term);
  await input.press("Enter");
  await card(page, "Your Search Queue").getByText(term).waitFor({ timeout: 30_000 });
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Your Data" }).waitFor();

  const [download] = await Promise.all([page.waitForEvent("download"), card(page, "Your Data").getByRole("button", { name: "Download my data" }).click()]);
  assert.match(download.suggestedFilename(), /^papertide-data-\d{4}-\d{2}-\d{2}\.json$/);
  const data = JSON.parse(fs.readFileSync(await download.path(), "utf8"));
  assert.equal(data.account.email, email);
  assert.ok(JSON.stringify(data.searchTerms).includes(term), "the export lacks the search term");
  assert.ok(Array.isArray(data.planHistory), "the export lacks the plan history");

  const users = (await stack.papertide.health()).users;
  await card(page, "Your Data").getByRole("button", { name: "Delete my account" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete your account?" });
  await dialog.getByText(/cannot be undone/).waitFor();
  await dialog.getByLabel("Your password").fill("Not-The-Password-1");
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await dialog.getByRole("alert").getByText("That password is not right.").waitFor();
  assert.equal((await stack.papertide.health()).users, users, "a wrong password deleted the account");
  await screenshot(page, "account-delete-wrong-password");

  await dialog.getByLabel("Your password").fill(PASSWORD);
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await toastSays(page, "Your account has been deleted.");
  await screenshot(page, "account-deleted");
  assert.equal((await whoAmI(page)).status, 401, "the session outlived the account");
  assert.equal((await stack.papertide.health()).users, users - 1);

  await signIn(page, email);
  await page.getByText("Invalid email or password").first().waitFor();
  await page.context().close();
});
