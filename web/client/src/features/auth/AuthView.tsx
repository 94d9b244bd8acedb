// The combined auth page (/auth): signup, login and forgot-password views, chosen by the query
// parameter `tab` (default signup) and written back to it when the user switches. Someone already
// signed in goes on to the dashboard (with the pending topic), or to /subscribe when asked.
import * as TabsPrimitive from "@radix-ui/react-tabs";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { cn } from "@/components/ui/cn";
import { clearPendingSearch, getPendingSearch } from "@/state/pendingSearch";
import { loadSession } from "@/state/session";
import { dashboardPath } from "./api";
import { CombinedLoginForm } from "./CombinedLoginForm";
import { CombinedSignupForm } from "./CombinedSignupForm";
import { AuthHeading, AuthShell } from "./fields";
import { ForgotPasswordForm } from "./ForgotPasswordForm";
import { CheckYourEmail } from "./ResendVerification";

export const AUTH_TABS = ["signup", "login", "forgot-password"] as const;
export type AuthTab = (typeof AUTH_TABS)[number];

function parseTab(raw: string | null): AuthTab {
  return AUTH_TABS.find((tab) => tab === raw) ?? "signup";
}

const triggerClass = cn(
  "flex-1 rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 transition-colors",
  "data-[state=active]:bg-white data-[state=active]:text-brand-700 data-[state=active]:shadow-sm",
  "focus-visible:outline-2 focus-visible:outline-brand-700",
);

export function AuthView() {
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const [pendingSearch] = useState(getPendingSearch);
  const [createdEmail, setCreatedEmail] = useState<string | null>(null);
  const tab = parseTab(searchParams.get("tab"));
  const successPath = searchParams.get("redirect") === "subscribe" ? "/subscribe" : undefined;

  // The forms show meanwhile: most visitors of /auth are signed out.
  useEffect(() => {
    let isCurrent = true;
    loadSession().then(
      (user) => {
        if (isCurrent && user) navigate(successPath ?? dashboardPath(user.email, getPendingSearch()), { replace: true });
      },
      () => undefined,
    );
    return () => {
      isCurrent = false;
    };
    // Once, on arrival: a sign-in on this page navigates by itself (re-running on a new
    // `navigate` or query would ask for the session again at each tab switch).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
  }, []);

  /** The /auth address showing `next`, keeping the other query parameters (e.g. redirect). */
  const hrefFor = (next: AuthTab) => {
    const query = new URLSearchParams(searchParams);
    query.set("tab", next);
    return `/auth?${query.toString()}`;
  };

  const switchTab = (next: string) => {
    setSearchParams(
      (previous) => {
        const query = new URLSearchParams(previous);
        query.set("tab", parseTab(next));
        return query;
      },
      { replace: true },
    );
  };

  const backToSearch = () => {
    clearPendingSearch();
    navigate("/");
  };

  const backLinkClass = "inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-brand-700";
  const backLink = pendingSearch ? (
    <button type="button" onClick={backToSearch} className={backLinkClass}>
      ← Back to search
    </button>
  ) : (
    <Link to="/" className={backLinkClass}>
      ← Back to home
    </Link>
  );

  const banner = pendingSearch ? (
    <div role="status" className="rounded-lg border border-brand-100 bg-brand-50 px-4 py-3 text-sm text-brand-900">
      <p className="font-semibold">Ready to search</p>
      <p>
        Your topic: <span className="font-medium">{pendingSearch}</span>. Create an account or sign in and we will run this
        search for you.
      </p>
    </div>
  ) : null;

  return (
    <AuthShell
      above={
        <>
          <div>{backLink}</div>
          {banner}
        </>
      }
    >
      <TabsPrimitive.Root value={tab} onValueChange={switchTab}>
        <TabsPrimitive.List aria-label="Sign up or sign in" className="mb-6 flex gap-1 rounded-lg bg-slate-100 p-1">
          <TabsPrimitive.Trigger value="signup" className={triggerClass}>
            Sign up
          </TabsPrimitive.Trigger>
          <TabsPrimitive.Trigger value="login" className={triggerClass}>
            Sign in
          </TabsPrimitive.Trigger>
        </TabsPrimitive.List>

        <TabsPrimitive.Content value="signup" className="outline-none">
          {createdEmail ? (
            <CheckYourEmail email={createdEmail} />
          ) : (
            <>
              <AuthHeading title="Create your account" description="Get started with your first search term free" />
              <CombinedSignupForm onCreated={setCreatedEmail} />
            </>
          )}
        </TabsPrimitive.Content>

        <TabsPrimitive.Content value="login" className="outline-none">
          <AuthHeading title="Welcome back" description="Sign in to your account" />
          <CombinedLoginForm pendingSearch={pendingSearch} forgotPasswordHref={hrefFor("forgot-password")} successPath={successPath} />
        </TabsPrimitive.Content>

        {/* Reached through 'Forgot password?', so it has no trigger; its heading names it. */}
        <TabsPrimitive.Content value="forgot-password" aria-labelledby="forgot-password-heading" className="outline-none">
          <AuthHeading
            id="forgot-password-heading"
            title="Reset your password"
            description="Enter your email and we will send you a link to set a new password."
          />
          <ForgotPasswordForm signInHref={hrefFor("login")} />
        </TabsPrimitive.Content>
      </TabsPrimitive.Root>
    </AuthShell>
  );
}
