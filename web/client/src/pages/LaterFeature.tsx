// Routes whose screens belong to parts of Papertide this build does not include yet: billing
// (plans, checkout, payment). They say so plainly.
import { Link } from "react-router-dom";
import { PublicLayout } from "@/components/layout/PublicLayout";

const texts = {
  billing: {
    title: "Billing is not enabled on this server",
    body: "Plans are managed by the operator of this Papertide installation. Ask them to change your plan (papertide users set-tier).",
  },
} as const;

export function LaterFeaturePage({ feature }: { feature: keyof typeof texts }) {
  const text = texts[feature];
  return (
    <PublicLayout>
      <section className="mx-auto max-w-xl px-4 py-20 text-center">
        <h1 className="text-2xl font-semibold">{text.title}</h1>
        <p className="mt-4 text-slate-600">{text.body}</p>
        <Link to="/dashboard" className="mt-8 inline-block text-brand-700 hover:underline">
          Back to dashboard
        </Link>
      </section>
    </PublicLayout>
  );
}
