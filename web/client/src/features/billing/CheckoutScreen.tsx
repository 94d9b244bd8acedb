// /checkout?tier=pro|team (spec §2 Checkout, §5, §8): Stripe's embedded Checkout for a free user's
// first subscription. The tier is pro or team (anything else: pro). The server makes the Checkout
// Session (POST /api/create-checkout-session); Stripe.js shows it, and on completion Stripe sends
// the browser to the session's return_url, /payment-success?session_id=…. A Pro user is sent to
// the card form, which changes the plan in place (409 `use_card_form`); someone already on the
// plan to the dashboard (409 `already_active`); any other failure is the 'Checkout Error' card.
import { useEffect, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import type { StripeEmbeddedCheckout } from "@stripe/stripe-js";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { Card } from "@/components/ui/Card";
import { LockIcon } from "@/components/ui/LockIcon";
import { Spinner } from "@/components/ui/Spinner";
import { errorMessage } from "@/lib/api";
import { appConfig } from "@/state/config";
import { loadSession, type CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { createCheckoutSession, errorCode, type PaidTier } from "./api";
import { paidTierOf, paymentPath, PLANS, priceLabel } from "./plans";
import { createEmbeddedCheckout, loadStripe } from "./stripe";

export const CHECKOUT_FAILED = "Failed to create checkout session";
export const STRIPE_NOT_LOADED = "Stripe is not loaded properly. Please refresh and try again.";

export function CheckoutScreen() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const tier: PaidTier = paidTierOf(searchParams.get("tier")) ?? "pro";
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [mounted, setMounted] = useState(false);
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let active = true;
    let checkout: StripeEmbeddedCheckout | null = null;
    setFailure(null);
    setMounted(false);

    const start = async () => {
      const signedIn = await loadSession().catch(() => null);
      if (!active) return;
      if (!signedIn) {
        navigate("/auth?redirect=subscribe", { replace: true });
        return;
      }
      setUser(signedIn);

      let clientSecret: string | undefined;
      try {
        clientSecret = (await createCheckoutSession(tier))?.clientSecret;
      } catch (error) {
        if (!active) return;
        const code = errorCode(error);
        if (code === "use_card_form") {
          navigate(paymentPath(tier, signedIn.email), { replace: true });
        } else if (code === "already_active") {
          toast({ title: "Subscription Already Active", description: `You already have an active ${tier} subscription.` });
          navigate("/dashboard");
        } else {
          setFailure(errorMessage(error, CHECKOUT_FAILED));
        }
        return;
      }
      if (!active) return;
      if (!clientSecret) {
        setFailure(CHECKOUT_FAILED);
        return;
      }

      const stripeConfig = appConfig.value.stripe;
      try {
        if (!stripeConfig) throw new Error("no Stripe.js configured");
        const stripe = await loadStripe(stripeConfig);
        const secret = clientSecret;
        const created = await createEmbeddedCheckout(stripe, { fetchClientSecret: async () => secret });
        if (!active || !container.current) {
          created.destroy();
          return;
        }
        checkout = created;
        created.mount(container.current);
        setMounted(true);
      } catch {
        if (active) setFailure(STRIPE_NOT_LOADED);
      }
    };
    void start();

    return () => {
      active = false;
      checkout?.destroy();
    };
  }, [tier, navigate]);

  const plan = PLANS[tier];

  return (
    <main className="flex-1 bg-slate-50">
      <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
        <ButtonLink to="/subscribe" variant="ghost" size="sm" className="-ml-3">
          <span aria-hidden="true">←</span> Back to Plans
        </ButtonLink>
        <header className="mt-6">
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">{`Subscribe to ${plan.productName}`}</h1>
          <p className="mt-2 text-lg text-slate-700">
            <span className="font-semibold">{plan.productName}</span> · <span>{priceLabel(tier)}</span>
          </p>
          <p className="mt-3 flex items-center gap-2 text-sm text-slate-600">
            <LockIcon className="h-4 w-4 shrink-0" />
            Secure payment: your card details go straight to Stripe and never reach our servers.
          </p>
        </header>

        {failure ? (
          <Card className="mt-8 border-red-200 p-6" role="alert">
            <h2 className="text-xl font-semibold text-red-700">Checkout Error</h2>
            <p className="mt-2 text-slate-700">{failure}</p>
            <ButtonLink to="/subscribe" className="mt-6">
              Return to Plans
            </ButtonLink>
          </Card>
        ) : (
          <Card className="mt-8 p-4 sm:p-6">
            {mounted ? null : (
              <div className="flex justify-center py-10">
                <Spinner label="Loading secure checkout" />
              </div>
            )}
            <div ref={container} id="checkout" />
          </Card>
        )}

        {user && !failure ? (
          <p className="mt-6 text-center text-sm">
            <Link to={paymentPath(tier, user.email)} className="font-medium text-brand-700 underline-offset-4 hover:underline">
              Pay with a card on this page instead
            </Link>
          </p>
        ) : null}
      </div>
    </main>
  );
}
