// /payment?tier=pro|team&email=… (spec §2 Custom payment, §4 card form flow, §5, §8 payment toasts),
// for a signed-in user only, who subscribes under their own address:
// the plan and a card form whose card fields are Stripe's own element. A subscription is made in
// two steps (ARCHITECTURE.md, Billing): the server answers a SetupIntent's secret, Stripe.js
// confirms the card with it (with the email and ZIP code as billing details), and the server then
// starts the subscription — or changes a Pro plan to Team in place — with that card. When the
// first payment needs the customer (3-D Secure) Stripe.js confirms it too. A subscription that is
// paid goes to /finalizing-subscription, which waits until the server has applied it; anything
// else to /payment-success. A failure (Stripe's word on the card at setup or payment, or the
// server's) is said in the form, under the card, as well as in a toast.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import type { StripeCardElement } from "@stripe/stripe-js";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { LockIcon } from "@/components/ui/LockIcon";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { Spinner } from "@/components/ui/Spinner";
import { ApiError, errorMessage } from "@/lib/api";
import { appConfig } from "@/state/config";
import { currentUser, loadSession } from "@/state/session";
import { toast } from "@/state/toast";
import { createSubscription, errorCode, type PaidTier, type SubscriptionAnswer } from "./api";
import { PageSpinner } from "./BillingGate";
import { SupportContact } from "./BillingUnavailable";
import { paidTierOf, PLANS, priceLabel, workflowBenefits } from "./plans";
import { loadStripe, type StripeClient } from "./stripe";

export const MSG_STRIPE_NOT_LOADED = "Stripe is not loaded properly. Please refresh and try again.";
export const MSG_NO_CARD_ELEMENT = "Card number element not found. Please refresh and try again.";
export const MSG_PAYMENT_FAILED = "An error occurred processing your payment.";
export const MSG_NO_CLIENT_SECRET = "No payment client secret received. Please try again.";
export const MSG_SUBSCRIPTION_ERROR = "Failed to create subscription. Please try again.";

/**
 * The page asks who is signed in: a card is only taken from a signed-in user, under that user's
 * own address. The address bar's `email` is never shown or sent; its absence sends only a
 * visitor to sign in (the spec asks it of everyone: README, "Where Papertide differs"), so a
 * signed-in user is never told to sign in.
 */
export function PaymentScreen() {
  useSignals();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const tier = paidTierOf(searchParams.get("tier"));
  const [session, setSession] = useState<"asking" | "known">("asking");
  const hasReported = useRef(false);

  useEffect(() => {
    let active = true;
    loadSession()
      .catch(() => null)
      .then(() => {
        if (active) setSession("known");
      });
    return () => {
      active = false;
    };
  }, []);

  const signedInEmail = currentUser.value?.email ?? null;
  useEffect(() => {
    if (hasReported.current) return;
    if (!tier) {
      hasReported.current = true;
      toast({ title: "Invalid Plan", description: "Please select a valid subscription plan.", variant: "destructive" });
      navigate("/subscribe", { replace: true });
    } else if (session === "known" && !signedInEmail) {
      hasReported.current = true;
      toast({ title: "Authentication Required", description: "Please sign in to continue with your subscription.", variant: "destructive" });
      navigate("/auth?redirect=subscribe", { replace: true });
    }
  }, [tier, session, signedInEmail, navigate]);

  if (!tier) return null;
  if (!signedInEmail) return session === "asking" ? <PageSpinner label="Loading" /> : null;
  return <PaymentForm tier={tier} email={signedInEmail} />;
}

function PaymentForm({ tier, email }: { tier: PaidTier; email: string }) {
  const navigate = useNavigate();
  const plan = PLANS[tier];
  const [stripe, setStripe] = useState<StripeClient | null>(null);
  const [stripeFailed, setStripeFailed] = useState(false);
  const [cardMounted, setCardMounted] = useState(false);
  const cardContainer = useRef<HTMLDivElement>(null);
  const card = useRef<StripeCardElement | null>(null);
  const [zip, setZip] = useState("");
  const [processing, setProcessing] = useState(false);
  /** Why the last attempt failed, or what the card element says is wrong: shown in the form. */
  const [formError, setFormError] = useState<string | null>(null);
  const ids = useId();

  useEffect(() => {
    let active = true;
    const config = appConfig.value.stripe;
    if (!config) {
      setStripeFailed(true);
      return;
    }
    loadStripe(config).then(
      (client) => {
        if (active) setStripe(client);
      },
      () => {
        if (active) setStripeFailed(true);
      },
    );
    return () => {
      active = false;
    };
  }, []);

  useEffect(() => {
    if (!stripe || !cardContainer.current) return;
    let element: StripeCardElement;
    try {
      // Our own ZIP field gives the postal code.
      element = stripe.elements().create("card", { hidePostalCode: true });
      element.mount(cardContainer.current);
      // Stripe's element only reports what is wrong with what was typed; the form says it.
      element.on("change", (event) => setFormError(event.error?.message ?? null));
    } catch {
      return;
    }
    card.current = element;
    setCardMounted(true);
    return () => {
      card.current = null;
      setCardMounted(false);
      element.destroy();
    };
  }, [stripe]);

  const fail = (title: string, description: string) => {
    toast({ title, description, variant: "destructive" });
    setFormError(description);
    setProcessing(false);
  };

  /** Where a subscription the server has made leads. */
  const finish = async (client: StripeClient, answer: SubscriptionAnswer) => {
    let paymentStatus: string | null = null;
    if (answer.clientSecret) {
      const payment = await client.confirmCardPayment(answer.clientSecret);
      if (payment.error || !payment.paymentIntent) {
        fail("Payment Failed", payment.error?.message || MSG_PAYMENT_FAILED);
        return;
      }
      paymentStatus = payment.paymentIntent.status;
    }
    // Paid (or nothing left to confirm): wait for the server to apply it.
    if ((paymentStatus === null || paymentStatus === "succeeded") && answer.subscriptionId) {
      navigate(`/finalizing-subscription?subscriptionId=${encodeURIComponent(answer.subscriptionId)}`);
    } else {
      navigate(`/payment-success?tier=${tier}`);
    }
  };

  const alreadyActive = (answer: SubscriptionAnswer) => {
    toast({ title: "Subscription Already Active", description: `You already have an active ${answer.tier ?? tier} subscription.` });
    navigate("/dashboard");
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (processing) return;
    const postalCode = zip.trim();
    if (!postalCode) {
      toast({ title: "Missing Information", description: "Please enter your ZIP code.", variant: "destructive" });
      return;
    }
    if (!stripe) {
      toast({ title: "Payment Error", description: MSG_STRIPE_NOT_LOADED, variant: "destructive" });
      return;
    }
    const cardElement = card.current;
    if (!cardElement) {
      toast({ title: "Payment Error", description: MSG_NO_CARD_ELEMENT, variant: "destructive" });
      return;
    }

    setFormError(null);
    setProcessing(true);
    try {
      let answer = await createSubscription(tier);
      if (answer.alreadyActive) return alreadyActive(answer);
      if (answer.step === "setup") {
        if (!answer.clientSecret) return fail("Payment Failed", MSG_NO_CLIENT_SECRET);
        const setup = await stripe.confirmCardSetup(answer.clientSecret, {
          payment_method: { card: cardElement, billing_details: { email, address: { postal_code: postalCode } } },
        });
        if (setup.error || !setup.setupIntent) return fail("Payment Failed", setup.error?.message || MSG_PAYMENT_FAILED);
        answer = await createSubscription(tier, setup.setupIntent.id);
        if (answer.alreadyActive) return alreadyActive(answer);
      }
      await finish(stripe, answer);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // The session ended since the page was opened.
        fail("Authentication Required", "Please sign in to continue with your subscription.");
        navigate("/auth?redirect=subscribe");
      } else if (errorCode(error) === "card_declined") {
        fail("Payment Failed", errorMessage(error, MSG_PAYMENT_FAILED));
      } else {
        fail("Subscription Error", errorMessage(error, MSG_SUBSCRIPTION_ERROR));
      }
    }
  };

  const cardLabelIds = [`${ids}-number`, `${ids}-expiry`, `${ids}-cvc`];

  return (
    <main className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 sm:py-12">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900">Complete Your Subscription</h1>
        <p className="mt-2 text-slate-600">{`Subscribing as ${email}`}</p>

        <div className="mt-8 grid grid-cols-1 gap-6 lg:grid-cols-2">
          <Card className="p-6">
            <section aria-labelledby={`${ids}-plan`}>
              <div className="flex items-center justify-between gap-3">
                <h2 id={`${ids}-plan`} className="text-xl font-semibold text-slate-900">
                  {plan.productName}
                </h2>
                <span className="rounded-full bg-brand-700 px-3 py-1 text-sm font-semibold text-white">{priceLabel(tier)}</span>
              </div>
              <ul aria-label={`What ${plan.productName} includes`} className="mt-5 space-y-2 text-sm text-slate-700">
                {[
                  `${plan.searchTerms} search terms`,
                  "Weekly email digests",
                  "4 research sources: PubMed, arXiv, bioRxiv and medRxiv",
                  // Promised only where paid plans get another chat model (GET /api/config);
                  // every plan ranks papers alike, so no "advanced relevance scoring".
                  ...(appConfig.value.advancedModel ? ["AI summaries and scoring with a more advanced AI model"] : []),
                  // What the plan gives of the workflows, as the server says (GET /api/config plans).
                  ...workflowBenefits(tier, appConfig.value.plans),
                  "Priority email support",
                ].map((feature) => (
                  <li key={feature} className="flex gap-2">
                    <span aria-hidden="true" className="text-brand-700">
                      ✓
                    </span>
                    <span>{feature}</span>
                  </li>
                ))}
              </ul>
              <p className="mt-6 text-sm text-slate-600">
                Questions about your plan? Write to <SupportContact />.
              </p>
            </section>
          </Card>

          <Card className="p-6">
            <h2 className="text-xl font-semibold text-slate-900">Payment Details</h2>
            <form noValidate onSubmit={submit} className="mt-5 space-y-5">
              <fieldset disabled={processing} className="space-y-5">
                <div className="space-y-1.5">
                  {/* Stripe's card element holds the number, expiry and CVC together. */}
                  <div className="grid grid-cols-[1fr_auto_auto] gap-4 text-sm font-medium text-slate-700">
                    <span id={cardLabelIds[0]}>Card Number</span>
                    <span id={cardLabelIds[1]}>Expiry Date</span>
                    <span id={cardLabelIds[2]}>CVC</span>
                  </div>
                  <div
                    role="group"
                    aria-labelledby={cardLabelIds.join(" ")}
                    aria-describedby={formError ? `${ids}-card-error` : undefined}
                    className={cn("min-h-10 rounded-md border bg-white px-3 py-2.5", formError ? "border-red-500" : "border-slate-300")}
                  >
                    <div ref={cardContainer} />
                    {cardMounted || stripeFailed ? null : <Spinner label="Loading the card form" />}
                  </div>
                  {stripeFailed ? (
                    <p role="alert" className="text-sm text-red-600">
                      The card form could not be loaded. Please refresh and try again.
                    </p>
                  ) : null}
                  {formError ? (
                    <p id={`${ids}-card-error`} role="alert" className="text-sm text-red-600">
                      {formError}
                    </p>
                  ) : null}
                </div>
                <Field id={`${ids}-zip`} label="ZIP Code">
                  <Input
                    id={`${ids}-zip`}
                    name="postal-code"
                    autoComplete="postal-code"
                    inputMode="text"
                    placeholder="12345"
                    required
                    value={zip}
                    onChange={(event) => setZip(event.target.value)}
                  />
                </Field>
              </fieldset>
              <p className="text-sm text-slate-600">
                Your subscription renews each month. You can cancel anytime from your dashboard.
              </p>
              <Button type="submit" size="lg" className="h-auto min-h-12 w-full py-3" disabled={processing}>
                {processing ? "Processing Payment..." : `Subscribe to ${plan.productName} - ${priceLabel(tier)}`}
              </Button>
              <p className="flex items-center justify-center gap-2 text-xs text-slate-500">
                <LockIcon className="h-4 w-4 shrink-0" />
                Payments are processed securely by Stripe.
              </p>
            </form>
          </Card>
        </div>
      </div>
    </main>
  );
}
