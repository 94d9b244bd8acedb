// /dashboard for a signed-in user (spec §2): asks the server who is signed in, sends anyone
// else to /auth, loads what the cards show, and lays out the header, the seven cards and the
// light footer.
import { useSignals } from "@preact/signals-react/runtime";
import { Footer } from "@/components/layout/Footer";
import { Spinner } from "@/components/ui/Spinner";
import { currentUser } from "@/state/session";
import { useSignedInPage } from "@/state/useSignedInPage";
import { DashboardHeader } from "./DashboardHeader";
import { AccountStatusCard } from "./AccountStatusCard";
import { AddSearchTermCard } from "./AddSearchTermCard";
import { EmailPreferencesCard } from "./EmailPreferencesCard";
import { FeedsCard } from "./FeedsCard";
import { PlanEndedNotice } from "./PlanEndedNotice";
import { RecentDigestsCard } from "./RecentDigestsCard";
import { SearchQueueCard } from "./SearchQueueCard";
import { YourDataCard } from "./YourDataCard";
import { loadDashboard, resetDashboard } from "./store";

export function DashboardShell() {
  useSignals();
  const checked = useSignedInPage((user) => void loadDashboard(user.id), resetDashboard);

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
        {user.planEnded ? (
          <div className="mb-6">
            <PlanEndedNotice planEnded={user.planEnded} />
          </div>
        ) : null}
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
          <div className="min-w-0 space-y-6 lg:col-span-2">
            <AddSearchTermCard user={user} />
            <SearchQueueCard user={user} />
            <RecentDigestsCard user={user} />
          </div>
          <div className="min-w-0 space-y-6">
            <AccountStatusCard user={user} />
            <EmailPreferencesCard user={user} />
            <YourDataCard user={user} />
            <FeedsCard />
          </div>
        </div>
      </main>
      <Footer variant="light" />
    </div>
  );
}
