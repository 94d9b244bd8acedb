// The public header (spec §2): brand (home), Blog and Login. It asks once per page load who is
// signed in (shared with every other public part of the page, see state/session); a signed-in
// user gets Dashboard instead of Login.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect } from "react";
import { Link } from "react-router-dom";
import { currentUser, loadSession } from "@/state/session";
import { BrandMark } from "./BrandMark";
import { ButtonLink } from "./ButtonLink";

export function Header() {
  useSignals();
  useEffect(() => {
    // Until the answer comes (or if the server cannot say) the visitor is offered Login.
    loadSession().catch(() => null);
  }, []);

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between px-4 sm:px-6 lg:px-8">
        <Link to="/" className="rounded-md focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-brand-700">
          <BrandMark />
        </Link>
        <nav aria-label="Main" className="flex items-center gap-1 sm:gap-2">
          <ButtonLink to="/blog" variant="ghost">
            Blog
          </ButtonLink>
          {currentUser.value ? <ButtonLink to="/dashboard">Dashboard</ButtonLink> : <ButtonLink to="/auth">Login</ButtonLink>}
        </nav>
      </div>
    </header>
  );
}
