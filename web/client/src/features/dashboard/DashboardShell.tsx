// /dashboard for a signed-in user (spec §2): asks the server who is signed in, sends anyone
// else to /auth, and frames the dashboard with its header and the light footer.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router-dom";
import { Footer } from "@/components/layout/Footer";
import { Spinner } from "@/components/ui/Spinner";
import { currentUser, refreshCurrentUser } from "@/state/session";
import { DashboardHeader } from "./DashboardHeader";
import { WelcomeCard } from "./WelcomeCard";

export function DashboardShell() {
  useSignals();
  const navigate = useNavigate();
  const [checked, setChecked] = useState(false);

  useEffect(() => {
    let mounted = true;
    refreshCurrentUser()
      .catch(() => null)
      .then((user) => {
        if (!mounted) return;
        if (!user) navigate("/auth", { replace: true });
        else setChecked(true);
      });
    return () => {
      mounted = false;
    };
  }, [navigate]);

  const user = currentUser.value;
  if (!checked || !user) {
    return (
      <main className="flex min-h-screen items-center justify-center bg-slate-50">
        <Spinner label="Loading your dashboard" />
      </main>
    );
  }

  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <DashboardHeader user={user} />
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6 lg:px-8">
        <WelcomeCard email={user.email} />
      </main>
      <Footer variant="light" />
    </div>
  );
}
