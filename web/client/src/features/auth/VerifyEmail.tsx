// /verify-email?token=…: verifies once per token (StrictMode runs effects twice), signs the
// user in on the client too (the server already set the session cookie), then either runs the
// pending search in the progress dialog or continues to the dashboard. The pending topic comes
// from the server's answer (the link may open in a new tab, without this tab's session
// storage), else from session storage.
import { useEffect, useState, type ReactNode } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Spinner } from "@/components/ui/Spinner";
import { errorMessage } from "@/lib/api";
import { getPendingSearch } from "@/state/pendingSearch";
import { ProcessingDialog } from "@/features/search";
import { setCurrentUser } from "@/state/session";
import { dashboardPath, verifyEmailOnce } from "./api";
import { AuthShell } from "./fields";

type Verification =
  | { state: "verifying" }
  | { state: "failed"; message: string }
  | { state: "verified"; email: string | null; pendingSearch: string | null };

export const MSG_VERIFY_FAILED = "The verification link is invalid or has expired.";

export function VerifyEmail() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token")?.trim() ?? "";
  const [verification, setVerification] = useState<Verification>({ state: "verifying" });

  useEffect(() => {
    if (!token) return;
    let isCurrent = true;
    setVerification({ state: "verifying" });
    verifyEmailOnce(token).then(
      (answer) => {
        if (!isCurrent) return;
        if (answer.user) setCurrentUser(answer.user);
        const pendingSearch = answer.pendingSearch?.trim() || getPendingSearch();
        setVerification({ state: "verified", email: answer.user?.email ?? null, pendingSearch });
      },
      (error: unknown) => {
        if (isCurrent) setVerification({ state: "failed", message: errorMessage(error, MSG_VERIFY_FAILED) });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [token]);

  return <AuthShell>{token ? <VerificationState verification={verification} /> : <MissingToken />}</AuthShell>;
}

function StatusScreen({ icon, title, children }: { icon: string; title: string; children: ReactNode }) {
  return (
    <div className="space-y-4 text-center">
      <div aria-hidden="true" className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-2xl text-brand-700">
        {icon}
      </div>
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
      {children}
    </div>
  );
}

function MissingToken() {
  const navigate = useNavigate();
  return (
    <StatusScreen icon="!" title="Invalid Verification Link">
      <p className="text-sm text-slate-600">No verification token provided</p>
      <Button className="w-full" onClick={() => navigate("/")}>
        Return Home
      </Button>
    </StatusScreen>
  );
}

function VerificationState({ verification }: { verification: Verification }) {
  const navigate = useNavigate();
  const [isSearchOpen, setIsSearchOpen] = useState(false);

  switch (verification.state) {
    case "verifying":
      return (
        <div className="flex flex-col items-center gap-4 py-6 text-center">
          <Spinner label="Verifying your email" />
          <p className="text-sm text-slate-600">Verifying your email...</p>
        </div>
      );
    case "failed":
      return (
        <StatusScreen icon="✕" title="Verification Failed">
          <p className="text-sm text-slate-600">{verification.message}</p>
          <Button className="w-full" onClick={() => navigate("/signup")}>
            Create New Account
          </Button>
        </StatusScreen>
      );
    case "verified": {
      // Verifying signed the user in, so the way on is the dashboard, never a sign-in form.
      const { email, pendingSearch } = verification;
      const dashboard = email ? dashboardPath(email) : "/dashboard";
      return (
        <StatusScreen icon="✓" title="Email Verified Successfully!">
          <p className="text-sm text-slate-600">
            {pendingSearch ? (
              <>
                Your account is ready and you are signed in. We will now search for{" "}
                <span className="font-medium text-slate-900">{pendingSearch}</span> and email you the digest.
              </>
            ) : (
              "Your account is ready and you are signed in."
            )}
          </p>
          {pendingSearch && email ? (
            <>
              <Button className="w-full" onClick={() => setIsSearchOpen(true)}>
                Process Search & Continue
              </Button>
              <ProcessingDialog email={email} searchTerm={pendingSearch} open={isSearchOpen} onOpenChange={setIsSearchOpen} />
            </>
          ) : (
            <Button className="w-full" onClick={() => navigate(dashboard)}>
              Continue to Dashboard
            </Button>
          )}
        </StatusScreen>
      );
    }
  }
}
