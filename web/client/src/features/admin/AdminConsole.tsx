// /admin, the operator console: asks the server who is signed in, sends anyone
// anonymous to /auth, tells a signed-in non-operator the page is not theirs, and shows an
// operator the tabs Users, Sources, Mail, Channels, Billing (with billing on) and Backup. Each
// tab loads what it shows when it opens; the server checks every call again.
import * as TabsPrimitive from "@radix-ui/react-tabs";
import { useSignals } from "@preact/signals-react/runtime";
import { useState, type ReactNode } from "react";
import { BrandMark } from "@/components/layout/BrandMark";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Footer } from "@/components/layout/Footer";
import { Spinner } from "@/components/ui/Spinner";
import { appConfig, loadAppConfig } from "@/state/config";
import { currentUser, type CurrentUser } from "@/state/session";
import { useSignedInPage } from "@/state/useSignedInPage";
import { OPERATORS_ONLY_TEXT } from "./api";
import { BackupTab } from "./BackupTab";
import { BillingTab } from "./BillingTab";
import { ChannelsTab } from "./ChannelsTab";
import { MailTab } from "./MailTab";
import { SourcesTab } from "./SourcesTab";
import { UsersTab } from "./UsersTab";

/** An operator as the console requires one: the server's `isAdmin` (effective), and verified. */
export function isConsoleOperator(user: CurrentUser): boolean {
  return user.isAdmin === true && user.isEmailVerified !== false;
}

const triggerClass =
  "rounded-md px-4 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm";

export function AdminConsole() {
  useSignals();
  const checked = useSignedInPage(() => void loadAppConfig());
  const [tab, setTab] = useState("users");

  const user = currentUser.value;
  if (!checked || !user) {
    return (
      <main className="flex min-h-screen items-center justify-center bg-slate-50">
        <Spinner label="Loading the operator console" />
      </main>
    );
  }

  if (!isConsoleOperator(user)) {
    return (
      <Frame>
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-700 shadow-sm">{OPERATORS_ONLY_TEXT}</p>
      </Frame>
    );
  }

  const billingEnabled = appConfig.value.billingEnabled;
  return (
    <Frame>
      <TabsPrimitive.Root value={tab} onValueChange={setTab}>
        <TabsPrimitive.List aria-label="Console sections" className="mb-6 inline-flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1">
          <TabsPrimitive.Trigger value="users" className={triggerClass}>
            Users
          </TabsPrimitive.Trigger>
          <TabsPrimitive.Trigger value="sources" className={triggerClass}>
            Sources
          </TabsPrimitive.Trigger>
          <TabsPrimitive.Trigger value="mail" className={triggerClass}>
            Mail
          </TabsPrimitive.Trigger>
          <TabsPrimitive.Trigger value="channels" className={triggerClass}>
            Channels
          </TabsPrimitive.Trigger>
          {billingEnabled ? (
            <TabsPrimitive.Trigger value="billing" className={triggerClass}>
              Billing
            </TabsPrimitive.Trigger>
          ) : null}
          <TabsPrimitive.Trigger value="backup" className={triggerClass}>
            Backup
          </TabsPrimitive.Trigger>
        </TabsPrimitive.List>
        <TabsPrimitive.Content value="users" className="outline-none">
          <UsersTab />
        </TabsPrimitive.Content>
        <TabsPrimitive.Content value="sources" className="outline-none">
          <SourcesTab />
        </TabsPrimitive.Content>
        <TabsPrimitive.Content value="mail" className="outline-none">
          <MailTab />
        </TabsPrimitive.Content>
        <TabsPrimitive.Content value="channels" className="outline-none">
          <ChannelsTab />
        </TabsPrimitive.Content>
        {billingEnabled ? (
          <TabsPrimitive.Content value="billing" className="outline-none">
            <BillingTab />
          </TabsPrimitive.Content>
        ) : null}
        <TabsPrimitive.Content value="backup" className="outline-none">
          <BackupTab />
        </TabsPrimitive.Content>
      </TabsPrimitive.Root>
    </Frame>
  );
}

function Frame({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-3 sm:px-6 lg:px-8">
          <BrandMark />
          <ButtonLink to="/dashboard" variant="outline" size="sm">
            Dashboard
          </ButtonLink>
        </div>
      </header>
      <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-8 sm:px-6 lg:px-8">
        <h1 className="mb-6 text-2xl font-semibold tracking-tight text-slate-900">Operator console</h1>
        {children}
      </main>
      <Footer variant="light" />
    </div>
  );
}
