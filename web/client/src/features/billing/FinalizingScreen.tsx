// /finalizing-subscription?subscriptionId=… (spec §2, §4 finalizing page, §8, §9): waits until the
// server has applied a paid subscription. Without an id: /subscribe. The status is asked at once
// and then every 2 s, at most 30 times (about a minute; the time left is shown in rounded
// minutes); a failed request counts as an attempt and is retried. success: the dashboard after
// 2 s; failed: the reason, 'Try Different Payment Method' and 'Check Status Again'; 30 attempts
// without an answer: 'Still processing...', 'Refresh Status' and 'Go to Dashboard'. Checking
// again starts over from attempt 0.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Spinner } from "@/components/ui/Spinner";
import { currentUser, loadSession, refreshCurrentUser } from "@/state/session";
import { fetchSubscriptionStatus, type PaidTier, type SubscriptionStatus } from "./api";
import { paidTierOf, paymentPath } from "./plans";

export const STATUS_POLL_MS = 2000;
export const MAX_STATUS_ATTEMPTS = 30;
export const FINALIZED_REDIRECT_MS = 2000;
export const MSG_PAYMENT_ISSUE = "There was an issue processing your payment.";

type View = { state: "pending" } | { state: "success" } | { state: "failed"; reason: string } | { state: "timeout" };

/** "About 1 minute remaining" for the attempts left, in rounded minutes. */
export function remainingTimeText(attemptsMade: number): string {
  const seconds = Math.max(0, MAX_STATUS_ATTEMPTS - attemptsMade) * (STATUS_POLL_MS / 1000);
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) return "Less than a minute remaining";
  return `About ${minutes} minute${minutes === 1 ? "" : "s"} remaining`;
}

export function FinalizingScreen() {
  useSignals();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const subscriptionId = searchParams.get("subscriptionId")?.trim() ?? "";
  const [tier, setTier] = useState<PaidTier | null>(paidTierOf(searchParams.get("tier")));
  const [view, setView] = useState<View>({ state: "pending" });
  const [attempts, setAttempts] = useState(0);
  const [run, setRun] = useState(0);

  useEffect(() => {
    if (!subscriptionId) navigate("/subscribe", { replace: true });
  }, [subscriptionId, navigate]);

  useEffect(() => {
    // For 'Try Different Payment Method': the card form needs the email.
    loadSession().catch(() => null);
  }, []);

  useEffect(() => {
    if (!subscriptionId) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    setView({ state: "pending" });

    const poll = async () => {
      attempt += 1;
      setAttempts(attempt);
      let answer: SubscriptionStatus | null = null;
      try {
        answer = await fetchSubscriptionStatus(subscriptionId);
      } catch {
        // Retried like a pending answer, until the limit.
      }
      if (stopped) return;
      const answeredTier = paidTierOf(answer?.tier);
      if (answeredTier) setTier(answeredTier);
      if (answer?.state === "success") {
        setView({ state: "success" });
      } else if (answer?.state === "failed") {
        setView({ state: "failed", reason: answer.reason || MSG_PAYMENT_ISSUE });
      } else if (attempt >= MAX_STATUS_ATTEMPTS) {
        setView({ state: "timeout" });
      } else {
        timer = setTimeout(() => void poll(), STATUS_POLL_MS);
      }
    };
    void poll();

    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [subscriptionId, run]);

  useEffect(() => {
    if (view.state !== "success") return;
    // The new plan, for the pages that show it.
    refreshCurrentUser().catch(() => null);
    const timer = setTimeout(() => navigate("/dashboard"), FINALIZED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [view.state, navigate]);

  if (!subscriptionId) return null;
  const checkAgain = () => setRun((count) => count + 1);
  const email = currentUser.value?.email;
  const otherPaymentPath = tier && email ? paymentPath(tier, email) : "/subscribe";

  return (
    <main className="flex flex-1 items-center justify-center bg-slate-50 px-4 py-16">
      <Card className="w-full max-w-lg p-8 text-center">
        {view.state === "pending" ? (
          <>
            <Spinner label="Finalizing your subscription" />
            <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Finalizing Your Subscription</h1>
            <p className="mt-2 text-slate-600">We are confirming your payment. This usually takes a few seconds.</p>
            <div role="status" className="mt-4 space-y-1 text-sm text-slate-600">
              <p>{`Checking status (attempt ${attempts} of ${MAX_STATUS_ATTEMPTS})`}</p>
              <p>{remainingTimeText(attempts)}</p>
            </div>
          </>
        ) : view.state === "success" ? (
          <>
            <Icon tone="success">✓</Icon>
            <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Subscription Activated!</h1>
            <p role="status" className="mt-2 text-slate-600">
              Your subscription is active. Redirecting to dashboard...
            </p>
          </>
        ) : view.state === "failed" ? (
          <>
            <Icon tone="error">!</Icon>
            <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Payment Failed</h1>
            <p role="alert" className="mt-2 text-slate-700">
              {view.reason}
            </p>
            <div className="mt-6 flex flex-col gap-2 sm:flex-row">
              <Button className="w-full sm:flex-1" onClick={() => navigate(otherPaymentPath)}>
                Try Different Payment Method
              </Button>
              <Button className="w-full sm:flex-1" variant="outline" onClick={checkAgain}>
                Check Status Again
              </Button>
            </div>
          </>
        ) : (
          <>
            <Icon tone="neutral">…</Icon>
            <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Still processing...</h1>
            <p className="mt-2 text-slate-600">
              Your payment is taking longer than usual to confirm. Your plan changes as soon as it is confirmed; you can check again or go to your
              dashboard.
            </p>
            <div className="mt-6 flex flex-col gap-2 sm:flex-row">
              <Button className="w-full sm:flex-1" onClick={checkAgain}>
                Refresh Status
              </Button>
              <Button className="w-full sm:flex-1" variant="outline" onClick={() => navigate("/dashboard")}>
                Go to Dashboard
              </Button>
            </div>
          </>
        )}
      </Card>
    </main>
  );
}

function Icon({ tone, children }: { tone: "success" | "error" | "neutral"; children: string }) {
  const looks = { success: "bg-green-50 text-green-700", error: "bg-red-50 text-red-700", neutral: "bg-slate-100 text-slate-700" }[tone];
  return (
    <div aria-hidden="true" className={`mx-auto flex h-12 w-12 items-center justify-center rounded-full text-2xl ${looks}`}>
      {children}
    </div>
  );
}
