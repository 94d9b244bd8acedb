// The footer (spec §1, §2) in a dark variant (landing) and a light one (content and app pages):
// legal links, the installation's support address, Cookie Settings and the copyright notice.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect } from "react";
import { Link } from "react-router-dom";
import { cn } from "@/components/ui/cn";
import { CookiePreferencesDialog } from "./CookiePreferencesDialog";
import { appConfig, loadAppConfig } from "@/state/config";
import { BrandMark } from "./BrandMark";

export type FooterVariant = "dark" | "light";

const looks: Record<FooterVariant, { footer: string; muted: string; link: string; rule: string }> = {
  dark: {
    footer: "bg-slate-900 text-slate-300",
    muted: "text-slate-400",
    link: "text-slate-300 hover:text-white focus-visible:outline-white",
    rule: "border-slate-800",
  },
  light: {
    footer: "border-t border-slate-200 bg-white text-slate-600",
    muted: "text-slate-500",
    link: "text-slate-600 hover:text-brand-700 focus-visible:outline-brand-700",
    rule: "border-slate-200",
  },
};

export function Footer({ variant = "dark" }: { variant?: FooterVariant }) {
  useSignals();
  useEffect(() => {
    void loadAppConfig();
  }, []);

  const look = looks[variant];
  const linkClass = cn("rounded-sm text-sm transition-colors focus-visible:outline-2 focus-visible:outline-offset-2", look.link);
  const supportEmail = appConfig.value.supportEmail;

  return (
    <footer className={look.footer}>
      <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6 lg:px-8">
        <div className="flex flex-col gap-8 md:flex-row md:items-start md:justify-between">
          <div className="max-w-sm">
            <BrandMark inverse={variant === "dark"} />
            <p className={cn("mt-3 text-sm leading-relaxed", look.muted)}>
              Weekly, AI-summarized digests of the newest papers in your field, from PubMed, arXiv, bioRxiv and medRxiv.
            </p>
          </div>
          <nav aria-label="Footer">
            <ul className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:gap-x-6">
              <li>
                <Link to="/terms" className={linkClass}>
                  Terms &amp; Conditions
                </Link>
              </li>
              <li>
                <Link to="/privacy" className={linkClass}>
                  Privacy Policy
                </Link>
              </li>
              {supportEmail ? (
                <li>
                  <a href={`mailto:${supportEmail}`} className={linkClass}>
                    Support
                  </a>
                </li>
              ) : null}
              <li>
                <CookiePreferencesDialog
                  trigger={
                    <button type="button" className={linkClass}>
                      Cookie Settings
                    </button>
                  }
                />
              </li>
            </ul>
          </nav>
        </div>
        <p className={cn("mt-8 border-t pt-6 text-sm", look.rule, look.muted)}>© 2025 Papertide. All rights reserved.</p>
      </div>
    </footer>
  );
}
