// /debug-subscription — spec §2
// Debug subscription, §4 debug page, §8, §9: 'Fix Subscription' for a signed-in user whose plan
// did not follow a payment. 'Check Payment Status' shows what Stripe knows of the account (its
// subscriptions, its invoices with amounts in dollars); 'Fix My Subscription' asks the server to
// apply what Stripe proves, then the dashboard after 2 s.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { errorMessage } from "@/lib/api";
import { appConfig, loadAppConfig, NO_SUPPORT_EMAIL_TEXT } from "@/state/config";
import { loadSession, refreshCurrentUser, type Tier } from "@/state/session";
import { toast } from "@/state/toast";
import { PageSpinner } from "./BillingGate";
import { fetchDebugStatus, fixSubscription, type DebugStatus } from "./api";
import { PLANS } from "./plans";

export const FIXED_REDIRECT_MS = 2000;

/** Cents as money: 500 → "$5.00". */
export function formatAmount(cents: number, currency?: string | null): string {
  const amount = cents / 100;
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: (currency || "usd").toUpperCase() }).format(amount);
  } catch {
    return `$${amount.toFixed(2)}`;
  }
}

/** "Please try again or contact support at …" with the operator's address, when there is one. */
function contactSupportText(): string {
  const { supportEmail } = appConfig.value;
  return supportEmail ? `Please try again or contact support at ${supportEmail}.` : `Please try again or contact ${NO_SUPPORT_EMAIL_TEXT}.`;
}

export function DebugSubscriptionScreen() {
  useSignals();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const subscriptionId = searchParams.get("subscriptionId")?.trim() ?? "";
  const [signedIn, setSignedIn] = useState(false);
  const [status, setStatus] = useState<DebugStatus | null>(null);
  const [checking, setChecking] = useState(false);
  const [fixing, setFixing] = useState(false);
  const [fixedTier, setFixedTier] = useState<Tier | null>(null);

  useEffect(() => {
    void loadAppConfig();
    let active = true;
    loadSession()
      .catch(() => null)
      .then((user) => {
        if (!active) return;
        if (user) setSignedIn(true);
        else navigate("/auth", { replace: true });
      });
    return () => {
      active = false;
    };
  }, [navigate]);

  useEffect(() => {
    if (!fixedTier) return;
    const timer = setTimeout(() => navigate("/dashboard"), FIXED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [fixedTier, navigate]);

  if (!signedIn) return <PageSpinner label="Loading" />;

  const check = async () => {
    setChecking(true);
    try {
      const answer = await fetchDebugStatus();
      setStatus(answer);
      toast({ title: "Status Checked", description: "Your payment details are shown below.", variant: "success" });
    } catch (error) {
      toast({ title: "Check Failed", description: errorMessage(error, `We could not check your payment status. ${contactSupportText()}`), variant: "destructive" });
    } finally {
      setChecking(false);
    }
  };

  const fix = async () => {
    setFixing(true);
    let tier: Tier;
    try {
      tier = (await fixSubscription()).tier;
    } catch (error) {
      setFixing(false);
      toast({ title: "Fix Failed", description: errorMessage(error, `We could not fix your subscription. ${contactSupportText()}`), variant: "destructive" });
      return;
    }
    toast({
      title: "Subscription Fixed",
      description: `Your subscription tier has been updated to ${tier}. Please refresh your dashboard.`,
      variant: "success",
    });
    refreshCurrentUser().catch(() => null);
    setFixedTier(tier);
  };

  return (
    <main className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
        <ButtonLink to="/dashboard" variant="ghost" size="sm" className="-ml-3">
          <span aria-hidden="true">←</span> Back to Dashboard
        </ButtonLink>
        <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">Fix Subscription</h1>
        <p className="mt-2 text-slate-600">
          Paid, but your plan has not changed? Check what our payment provider knows about your account, then let us bring your plan up to date.
        </p>
        {subscriptionId ? <p className="mt-2 text-sm text-slate-500">{`Subscription: ${subscriptionId}`}</p> : null}

        <div className="mt-6 flex flex-col gap-3 sm:flex-row">
          <Button variant="outline" onClick={check} disabled={checking || fixing}>
            {checking ? "Checking..." : "Check Payment Status"}
          </Button>
          <Button onClick={fix} disabled={fixing || fixedTier !== null}>
            {fixing && !fixedTier ? "Fixing..." : "Fix My Subscription"}
          </Button>
        </div>
        {fixedTier ? (
          <p role="status" className="mt-4 text-sm font-medium text-green-700">
            {`Your plan is now ${PLANS[fixedTier]?.label ?? fixedTier}. Redirecting to dashboard...`}
          </p>
        ) : null}

        {status ? <StatusDetails status={status} /> : null}
      </div>
    </main>
  );
}

function StatusDetails({ status }: { status: DebugStatus }) {
  const { user, stripe } = status;
  const subscriptions = stripe?.subscriptions ?? [];
  const invoices = stripe?.invoices ?? [];
  const customer = user.stripeCustomerId || stripe?.customerId || "None";

  return (
    <Card className="mt-8 p-6">
      <section aria-labelledby="payment-details-title" className="space-y-6">
        <h2 id="payment-details-title" className="text-xl font-semibold text-slate-900">
          Payment Details
        </h2>
        <dl className="space-y-2 text-sm">
          <Row label="Email" value={user.email} />
          <Row label="Plan" value={PLANS[user.subscriptionTier]?.label ?? user.subscriptionTier} />
          <Row label="Payment customer" value={customer} />
        </dl>

        <div>
          <h3 className="font-medium text-slate-900">Subscriptions</h3>
          {subscriptions.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">No subscriptions found.</p>
          ) : (
            <ul aria-label="Subscriptions" className="mt-2 space-y-2 text-sm">
              {subscriptions.map((subscription) => (
                <li key={subscription.id} className="flex flex-wrap items-center justify-between gap-2 rounded-md bg-slate-50 px-3 py-2">
                  <span className="break-all font-mono text-slate-700">{subscription.id}</span>
                  <span className="text-slate-900">
                    {subscription.tier ? `${PLANS[subscription.tier]?.label ?? subscription.tier} · ` : ""}
                    {subscription.status}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>

        <div>
          <h3 className="font-medium text-slate-900">Invoices</h3>
          {invoices.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">No invoices found.</p>
          ) : (
            <div className="mt-2 overflow-x-auto">
              <table className="w-full text-left text-sm">
                <thead className="text-slate-600">
                  <tr>
                    <th scope="col" className="py-2 pr-3 font-medium">Invoice</th>
                    <th scope="col" className="py-2 pr-3 font-medium">Status</th>
                    <th scope="col" className="py-2 pr-3 font-medium">Paid</th>
                    <th scope="col" className="py-2 pr-3 font-medium">Amount paid</th>
                    <th scope="col" className="py-2 font-medium">Amount due</th>
                  </tr>
                </thead>
                <tbody>
                  {invoices.map((invoice) => (
                    <tr key={invoice.id} className="border-t border-slate-100">
                      <td className="break-all py-2 pr-3 font-mono text-slate-700">{invoice.id}</td>
                      <td className="py-2 pr-3">{invoice.status ?? "unknown"}</td>
                      <td className="py-2 pr-3">{invoice.paid ? "Yes" : "No"}</td>
                      <td className="py-2 pr-3">{formatAmount(invoice.amount_paid, invoice.currency)}</td>
                      <td className="py-2">{formatAmount(invoice.amount_due, invoice.currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      </section>
    </Card>
  );
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex flex-wrap items-baseline justify-between gap-x-4">
      <dt className="text-slate-600">{label}</dt>
      <dd className="break-all font-medium text-slate-900">{value}</dd>
    </div>
  );
}
