// /payment-success (spec §2, §4 payment-success page, §9): where Stripe's Checkout returns
// (?session_id=…) and where the card form goes when the payment is not settled yet (?tier=…).
// It says 'Payment Successful!' only once the server confirms a payment: the Checkout Session
// (the caller's own) is complete with a subscription, or the signed-in user is on the plan
// named by ?tier= (or above it). Until then it is 'Confirming Your Payment': the session (with a
// session id) and the user are asked at once and every 2 s, the payment parameters are removed
// from the address bar, and a 7-second countdown runs; at zero the asking stops, 'Still
// processing your subscription upgrade', and the button becomes 'Check Again' (another 7
// seconds). Once confirmed: 'Redirecting to dashboard...' and the dashboard after 1 s. A visit
// with neither a session nor a plan has nothing to confirm and says so, with ways on.
import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Spinner } from "@/components/ui/Spinner";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { refreshCurrentUser, type CurrentUser, type Tier } from "@/state/session";
import { fetchSessionStatus, type PaidTier } from "./api";
import { isUpgrade, paidTierOf, PLANS } from "./plans";

export const WEBHOOK_WAIT_SECONDS = 7;
export const USER_REFRESH_MS = 2000;
export const SUCCESS_REDIRECT_MS = 1000;
/** What Stripe adds to the return address; none of it belongs in the address bar afterwards. */
export const PAYMENT_PARAMS = ["payment_intent", "payment_intent_client_secret", "redirect_status", "session_id"] as const;

export function PaymentSuccessScreen() {
  const navigate = useNavigate();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  // Read before the address bar is cleaned.
  const [sessionId] = useState(() => searchParams.get("session_id"));
  const tier = paidTierOf(searchParams.get("tier"));
  const hasPaymentToConfirm = Boolean(sessionId || tier);
  const [confirmed, setConfirmed] = useState(false);
  const [secondsLeft, setSecondsLeft] = useState(WEBHOOK_WAIT_SECONDS);
  const mounted = useRef(true);
  const waiting = hasPaymentToConfirm && !confirmed && secondsLeft > 0;

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    const params = new URLSearchParams(location.search);
    if (!PAYMENT_PARAMS.some((name) => params.has(name))) return;
    for (const name of PAYMENT_PARAMS) params.delete(name);
    const query = params.toString();
    navigate({ pathname: location.pathname, search: query ? `?${query}` : "", hash: location.hash }, { replace: true });
  }, [location, navigate]);

  /** Asks the server what it can confirm: the session's status, and the user's plan against ?tier=. */
  const check = async () => {
    if (sessionId) {
      try {
        const session = await fetchSessionStatus(sessionId);
        if (mounted.current && session?.status === "complete" && session.subscription_id) setConfirmed(true);
      } catch {
        // Not confirmed; asked again in 2 s.
      }
    }
    const user: CurrentUser | null = await refreshCurrentUser().catch(() => null);
    if (mounted.current && tier && user && isOnPlan(user.subscriptionTier, tier)) setConfirmed(true);
  };

  useEffect(() => {
    if (hasPaymentToConfirm) void check();
    // Once per page: the session id is read once.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per session id
  }, [sessionId]);

  useEffect(() => {
    if (!waiting) return;
    const poll = setInterval(() => void check(), USER_REFRESH_MS);
    const tick = setInterval(() => setSecondsLeft((seconds) => Math.max(0, seconds - 1)), 1000);
    return () => {
      clearInterval(poll);
      clearInterval(tick);
    };
    // The poll keeps the `check` of the render that started it, which holds ?tier= as the
    // address had it before it was cleaned.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- started and stopped by `waiting` only
  }, [waiting]);

  useEffect(() => {
    if (!confirmed) return;
    const timer = setTimeout(() => navigate("/dashboard"), SUCCESS_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [confirmed, navigate]);

  const checkAgain = () => {
    setSecondsLeft(WEBHOOK_WAIT_SECONDS);
    void check();
  };

  if (!hasPaymentToConfirm) return <NothingToConfirm />;

  const planName = tier ? PLANS[tier].productName : null;
  return (
    <main className="flex flex-1 items-center justify-center bg-slate-50 px-4 py-16">
      <Card className="w-full max-w-lg p-8 text-center">
        {confirmed ? (
          <>
            <div aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-green-50 text-2xl text-green-700">
              ✓
            </div>
            <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Payment Successful!</h1>
            <p className="mt-2 text-slate-600">{planName ? `Thank you for subscribing to ${planName}.` : "Thank you for subscribing."}</p>
          </>
        ) : (
          <>
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Confirming Your Payment</h1>
            <p className="mt-2 text-slate-600">
              {planName ? `We are checking your payment for ${planName} with our payment provider.` : "We are checking your payment with our payment provider."}
            </p>
          </>
        )}

        <div role="status" className="mt-6 flex min-h-12 flex-col items-center justify-center gap-2 text-sm">
          {confirmed ? (
            <p className="font-medium text-green-700">Redirecting to dashboard...</p>
          ) : waiting ? (
            <>
              <Spinner label="Activating your subscription" />
              <p className="text-slate-700">{`Waiting for webhook confirmation... ${secondsLeft}s`}</p>
            </>
          ) : (
            <>
              <p className="font-medium text-slate-900">Still processing your subscription upgrade</p>
              <p className="text-slate-600">
                Your plan changes as soon as the payment is confirmed. Check again in a moment, or{" "}
                <Link to="/debug-subscription" className="font-medium text-brand-700 underline-offset-4 hover:underline">
                  check your payment status
                </Link>
                .
              </p>
            </>
          )}
        </div>

        {confirmed ? null : waiting ? (
          <Button className="mt-6 w-full" onClick={() => navigate("/dashboard")}>
            Go to Dashboard
          </Button>
        ) : (
          <div className="mt-6 flex flex-col gap-2 sm:flex-row">
            <Button className="w-full sm:flex-1" onClick={checkAgain}>
              Check Again
            </Button>
            <Button className="w-full sm:flex-1" variant="outline" onClick={() => navigate("/dashboard")}>
              Go to Dashboard
            </Button>
          </div>
        )}
      </Card>
    </main>
  );
}

/** Whether a user on `current` has what `paid` sells (a Team user has all of Pro). */
function isOnPlan(current: Tier, paid: PaidTier): boolean {
  return current === paid || (current !== "free" && isUpgrade(paid, current));
}

/** A visit with no payment to look at: nothing is claimed, and the ways on. */
function NothingToConfirm() {
  return (
    <main className="flex flex-1 items-center justify-center bg-slate-50 px-4 py-16">
      <Card className="w-full max-w-lg p-8 text-center">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">No Payment to Confirm</h1>
        <p className="mt-2 text-slate-600">
          This page confirms a payment as you return from one, and there is none to look at here. Your current plan is shown on your
          dashboard.
        </p>
        <div className="mt-6 flex flex-col gap-2 sm:flex-row">
          <ButtonLink to="/dashboard" className="w-full sm:flex-1">
            Go to Dashboard
          </ButtonLink>
          <ButtonLink to="/subscribe" variant="outline" className="w-full sm:flex-1">
            View Plans
          </ButtonLink>
        </div>
      </Card>
    </main>
  );
}
