// /payment-success (spec §2, §4 payment-success page, §9): where Stripe's Checkout returns
// (?session_id=…) and where the card form goes when the payment is not settled yet (?tier=…).
// With a session id the session's status is asked (the server applies a complete session's
// subscription at once), then the user is asked again; the payment parameters are removed from
// the address bar. Every 2 s the user is asked again; once the session is complete with a
// subscription, or the plan is no longer free, 'Redirecting to dashboard...' and the dashboard
// after 1 s. Meanwhile a 7-second countdown; at zero the asking stops, 'Still processing your
// subscription upgrade', and the button becomes 'Check Again' (another 7 seconds).
import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Spinner } from "@/components/ui/Spinner";
import { refreshCurrentUser, type CurrentUser } from "@/state/session";
import { fetchSessionStatus } from "./api";
import { paidTierOf, PLANS } from "./plans";

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
  const [confirmed, setConfirmed] = useState(false);
  const [secondsLeft, setSecondsLeft] = useState(WEBHOOK_WAIT_SECONDS);
  const mounted = useRef(true);
  const waiting = !confirmed && secondsLeft > 0;

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

  const checkUser = () =>
    refreshCurrentUser()
      .catch(() => null)
      .then((user: CurrentUser | null) => {
        if (mounted.current && user && user.subscriptionTier !== "free") setConfirmed(true);
      });

  useEffect(() => {
    const start = async () => {
      if (sessionId) {
        try {
          const session = await fetchSessionStatus(sessionId);
          if (mounted.current && session?.status === "complete" && session.subscription_id) setConfirmed(true);
        } catch {
          // The user's plan, asked next and every 2 s, tells the same.
        }
      }
      await checkUser();
    };
    void start();
    // Once per page: the session id is read once.
  }, [sessionId]);

  useEffect(() => {
    if (!waiting) return;
    const poll = setInterval(() => void checkUser(), USER_REFRESH_MS);
    const tick = setInterval(() => setSecondsLeft((seconds) => Math.max(0, seconds - 1)), 1000);
    return () => {
      clearInterval(poll);
      clearInterval(tick);
    };
  }, [waiting]);

  useEffect(() => {
    if (!confirmed) return;
    const timer = setTimeout(() => navigate("/dashboard"), SUCCESS_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [confirmed, navigate]);

  const checkAgain = () => {
    setSecondsLeft(WEBHOOK_WAIT_SECONDS);
    void checkUser();
  };

  return (
    <main className="flex flex-1 items-center justify-center bg-slate-50 px-4 py-16">
      <Card className="w-full max-w-lg p-8 text-center">
        <div aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-green-50 text-2xl text-green-700">
          ✓
        </div>
        <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Payment Successful!</h1>
        <p className="mt-2 text-slate-600">{tier ? `Thank you for subscribing to ${PLANS[tier].productName}.` : "Thank you for subscribing."}</p>

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
