// The payment pages' frame: until the server has said whether it sells plans (GET /api/config) a
// spinner; with billing off the explanation of BillingUnavailable; with billing on the page.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, type ReactNode } from "react";
import { Spinner } from "@/components/ui/Spinner";
import { appConfig, appConfigLoaded, loadAppConfig } from "@/state/config";
import { BillingUnavailable } from "./BillingUnavailable";

export function BillingGate({ children }: { children: ReactNode }) {
  useSignals();
  useEffect(() => {
    void loadAppConfig();
  }, []);
  if (!appConfigLoaded.value) return <PageSpinner label="Loading" />;
  if (!appConfig.value.billingEnabled) return <BillingUnavailable />;
  return <>{children}</>;
}

/** A page's whole body while it waits. */
export function PageSpinner({ label }: { label: string }) {
  return (
    <main className="flex flex-1 items-center justify-center bg-slate-50 px-4 py-24">
      <Spinner label={label} />
    </main>
  );
}
