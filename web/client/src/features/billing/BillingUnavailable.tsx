// What /checkout, /payment and the other payment pages show while this server sells no plans
// (GET /api/config `billingEnabled`: false): what the free plan includes, that paid plans are not
// sold here, and whom to ask, with the way back to the dashboard. Plans are set by the server's
// operator; nothing here asks the user to do more than write to them. /subscribe shows the plans
// with the same explanation (`BillingOffNotice`).
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect } from "react";
import { ButtonLink } from "@/components/layout/ButtonLink";
import { appConfig, loadAppConfig, NO_SUPPORT_EMAIL_TEXT } from "@/state/config";

/** The free plan of spec §6 and §9. */
const FREE_PLAN_LIMITS = ["1 search term", "PubMed only", "Digests delivered on Mondays", "2 free digests"] as const;

export const BILLING_OFF_TITLE = "Billing is not enabled on this server";

/** The operator's support address as a mail link, or "the operator of this server" when none is set. */
export function SupportContact() {
  useSignals();
  const { supportEmail } = appConfig.value;
  return supportEmail ? (
    <a href={`mailto:${supportEmail}`} className="font-medium text-brand-700 underline-offset-4 hover:underline">
      {supportEmail}
    </a>
  ) : (
    <>{NO_SUPPORT_EMAIL_TEXT}</>
  );
}

/** How plans are set on a server without billing, and whom to ask. */
export function BillingOffExplanation() {
  return (
    <>
      <p className="mt-4 text-slate-600">
        Paid plans are not sold on this Papertide server: plans are set by the server's operator. New accounts start on the Free plan.
      </p>
      <p className="mt-4 text-slate-600">
        To ask about more search terms, more sources or more digests, please write to <SupportContact />.
      </p>
    </>
  );
}

export function BillingUnavailable() {
  useEffect(() => {
    void loadAppConfig();
  }, []);

  return (
    <main className="flex-1 bg-slate-50">
      <section aria-labelledby="billing-title" className="mx-auto max-w-xl px-4 py-16 sm:py-20">
        <div className="rounded-xl border border-slate-200 bg-white px-6 py-10 shadow-sm sm:px-10">
          <h1 id="billing-title" className="text-2xl font-semibold tracking-tight text-slate-900">
            {BILLING_OFF_TITLE}
          </h1>
          <p className="mt-4 text-slate-600">
            Paid plans are not sold on this Papertide server: plans are set by the server's operator. New accounts start on the Free plan:
          </p>
          <ul aria-label="The Free plan" className="mt-4 list-disc space-y-1 pl-5 text-slate-700">
            {FREE_PLAN_LIMITS.map((limit) => (
              <li key={limit}>{limit}</li>
            ))}
          </ul>
          <p className="mt-4 text-slate-600">
            To ask about more search terms, more sources or more digests, please write to <SupportContact />.
          </p>
          <ButtonLink to="/dashboard" className="mt-8">
            Back to dashboard
          </ButtonLink>
        </div>
      </section>
    </main>
  );
}
