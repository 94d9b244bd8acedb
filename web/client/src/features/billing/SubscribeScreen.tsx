// /subscribe (spec §2 Subscribe / pricing page, §4 allowed upgrades, §6 plans, §9 prices): the
// three plans with what each includes, the signed-in user's current plan, and the way to each
// allowed upgrade — a free user's through the embedded Checkout (/checkout?tier=…), a Pro user's
// to Team through the card form (/payment?tier=team&email=…), which changes the plan in place. A
// visitor is sent to sign in first. Downgrades are not offered (the FAQ says why). `?tier=pro|team`
// highlights that plan. With billing off the same plans are shown with how plans are set here.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useState, type ReactNode } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { appConfig, appConfigLoaded, loadAppConfig } from "@/state/config";
import { currentUser, loadSession, type CurrentUser, type Tier } from "@/state/session";
import { PageSpinner } from "./BillingGate";
import { BILLING_OFF_TITLE, BillingOffExplanation, SupportContact } from "./BillingUnavailable";
import { checkoutPath, isUpgrade, paidTierOf, paymentPath, planBenefits, PLANS, TIER_ORDER, type Plan } from "./plans";

/** What a plan card's button does for the one looking at it. */
type PlanAction =
  | { kind: "current" }
  | { kind: "downgrade" }
  | { kind: "go"; label: string; to: string }
  | { kind: "operator" };

export function planAction(plan: Tier, user: CurrentUser | null, billingEnabled: boolean): PlanAction {
  const planLabel = PLANS[plan].label;
  if (user?.subscriptionTier === plan) return { kind: "current" };
  if (!billingEnabled) return { kind: "operator" };
  if (!user) {
    return plan === "free" ? { kind: "go", label: "Get Started Free", to: "/auth?tab=signup" } : { kind: "go", label: `Upgrade to ${planLabel}`, to: "/login?redirect=subscribe" };
  }
  if (plan === "free" || !isUpgrade(user.subscriptionTier, plan)) return { kind: "downgrade" };
  // Checkout starts subscriptions; a paid plan changes in place through the card form.
  const to = user.subscriptionTier === "free" ? checkoutPath(plan) : paymentPath(plan, user.email);
  return { kind: "go", label: `Upgrade to ${planLabel}`, to };
}

export function SubscribeScreen() {
  useSignals();
  const [searchParams] = useSearchParams();
  const highlighted = paidTierOf(searchParams.get("tier"));
  const [sessionKnown, setSessionKnown] = useState(false);

  useEffect(() => {
    void loadAppConfig();
    // A server that cannot say who is signed in leaves the visitor's view.
    loadSession()
      .catch(() => null)
      .finally(() => setSessionKnown(true));
  }, []);

  if (!appConfigLoaded.value || !sessionKnown) return <PageSpinner label="Loading plans" />;
  const user = currentUser.value;
  const billingEnabled = appConfig.value.billingEnabled;

  return (
    <main className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12 lg:px-8">
        <ButtonLink to={user ? "/dashboard" : "/"} variant="ghost" size="sm" className="-ml-3">
          <span aria-hidden="true">←</span> {user ? "Back to Dashboard" : "Back to Home"}
        </ButtonLink>
        <header className="mt-6 text-center">
          <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">Choose Your Plan</h1>
          <p className="mx-auto mt-3 max-w-2xl text-slate-600">
            Weekly digests of the papers that matter to your research, with AI-written summaries and relevance scores.
          </p>
          {user ? (
            <p className="mt-4 text-sm text-slate-700">
              Current plan:{" "}
              <span className="inline-flex items-center rounded-full bg-brand-50 px-2.5 py-0.5 text-xs font-semibold text-brand-700 ring-1 ring-inset ring-brand-100">
                {PLANS[user.subscriptionTier].label}
              </span>
            </p>
          ) : null}
        </header>

        {billingEnabled ? null : (
          <section aria-labelledby="billing-off-title" className="mx-auto mt-8 max-w-2xl rounded-xl border border-amber-200 bg-amber-50 px-6 py-5">
            <h2 id="billing-off-title" className="text-lg font-semibold text-slate-900">
              {BILLING_OFF_TITLE}
            </h2>
            <BillingOffExplanation />
          </section>
        )}

        <div className="mt-10 grid grid-cols-1 gap-6 sm:grid-cols-3">
          {TIER_ORDER.map((tier) => (
            <PlanCard key={tier} plan={PLANS[tier]} action={planAction(tier, user, billingEnabled)} highlighted={tier === highlighted} />
          ))}
        </div>

        {/* Nothing is sold with billing off: no terms of subscribing. */}
        {billingEnabled ? (
          <p className="mt-8 text-center text-sm text-slate-600">
            Paid plans renew each month until you cancel. By subscribing you agree to our{" "}
            <a href="/terms" target="_blank" rel="noopener" className="font-medium text-brand-700 underline-offset-4 hover:underline">
              Terms and Conditions
            </a>{" "}
            and{" "}
            <a href="/privacy" target="_blank" rel="noopener" className="font-medium text-brand-700 underline-offset-4 hover:underline">
              Privacy Policy
            </a>
            .
          </p>
        ) : null}

        <Faq billingEnabled={billingEnabled} />
      </div>
    </main>
  );
}

function PlanCard({ plan, action, highlighted }: { plan: Plan; action: PlanAction; highlighted: boolean }) {
  const navigate = useNavigate();
  const titleId = useId();
  const noteId = useId();
  const price = plan.monthlyPrice;

  return (
    <section
      aria-labelledby={titleId}
      className={cn(
        "flex flex-col rounded-xl border bg-white p-6 shadow-sm",
        highlighted ? "border-brand-600 ring-2 ring-brand-600" : "border-slate-200",
      )}
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id={titleId} className="text-xl font-semibold text-slate-900">
          {plan.label}
        </h2>
        {highlighted ? <span className="rounded-full bg-brand-700 px-2.5 py-0.5 text-xs font-semibold text-white">Selected plan</span> : null}
      </div>
      <p className="mt-3">
        <span className="text-3xl font-bold text-slate-900">{`$${price}`}</span>
        <span className="text-sm text-slate-600">{price === 0 ? " forever" : "/month"}</span>
      </p>
      <ul aria-label={`What the ${plan.label} plan includes`} className="mt-5 flex-1 space-y-2 text-sm text-slate-700">
        {planBenefits(plan.tier, appConfig.value).map((benefit) => (
          <li key={benefit} className="flex gap-2">
            <span aria-hidden="true" className="text-brand-700">
              ✓
            </span>
            <span>{benefit}</span>
          </li>
        ))}
      </ul>
      <div className="mt-6">
        {action.kind === "current" ? (
          <Button className="w-full" variant="secondary" disabled>
            Current Plan
          </Button>
        ) : action.kind === "downgrade" ? (
          <>
            <Button className="w-full" variant="outline" disabled aria-describedby={noteId}>
              Downgrade Not Available
            </Button>
            <p id={noteId} className="mt-2 text-xs text-slate-500">
              A downgrade first requires reducing your search terms to this plan's limits; see the questions below.
            </p>
          </>
        ) : action.kind === "go" ? (
          <Button className="w-full" variant={plan.tier === "free" ? "outline" : "primary"} onClick={() => navigate(action.to)}>
            {action.label}
          </Button>
        ) : (
          <p className="text-center text-sm text-slate-500">Set by this server's operator</p>
        )}
      </div>
    </section>
  );
}

/** With billing off nothing is paid here, so the FAQ says nothing of payments or buying an upgrade. */
function Faq({ billingEnabled }: { billingEnabled: boolean }) {
  const questions: Array<{ question: string; answer: ReactNode }> = [
    {
      question: "Can I upgrade later?",
      answer: billingEnabled
        ? "Yes. You can move from Free to Pro or Team, or from Pro to Team, at any time. A move from Pro to Team is charged only for the rest of the current month."
        : "Plans on this server are set by its operator: ask them to move you to Pro or Team.",
    },
    {
      question: "Can I downgrade my plan?",
      answer: (
        <>
          Downgrades are not offered here. A downgrade first requires reducing your search terms to the target plan's limits (1 on Free, 5 on
          Pro). To return to the Free plan, delete search terms until only 1 remains and cancel your subscription from the dashboard.
        </>
      ),
    },
    {
      question: "How do I cancel?",
      answer: "Cancel anytime from the Account Status card on your dashboard. Your search terms stay saved and you move to the Free plan.",
    },
    {
      question: "What if I need more than 10 search terms?",
      answer: (
        <>
          The Team plan includes 10 search terms. If you need more, please contact support at <SupportContact />.
        </>
      ),
    },
    ...(billingEnabled
      ? [
          {
            question: "Is my payment secure?",
            answer: "Payments are processed by Stripe. Your card details go straight to Stripe and never reach our servers.",
          },
        ]
      : []),
  ];

  return (
    <section aria-labelledby="faq-title" className="mx-auto mt-16 max-w-3xl">
      <h2 id="faq-title" className="text-center text-2xl font-semibold tracking-tight text-slate-900">
        Frequently Asked Questions
      </h2>
      <dl className="mt-8 space-y-6">
        {questions.map(({ question, answer }) => (
          <div key={question} className="rounded-xl border border-slate-200 bg-white p-5">
            <dt className="font-medium text-slate-900">{question}</dt>
            <dd className="mt-2 text-sm text-slate-600">{answer}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
