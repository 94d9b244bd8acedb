// The console's Users tab: the service's numbers, and the users found by a part of their email,
// their plan and whether they verified, 50 a page, each with the operator's actions on them.
import { useSignals } from "@preact/signals-react/runtime";
import { useCallback, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";
import { errorMessage } from "@/lib/api";
import { formatDate } from "@/lib/dates";
import { appConfig } from "@/state/config";
import { currentUser } from "@/state/session";
import { toast } from "@/state/toast";
import {
  fetchStats,
  fetchUsers,
  resendVerification,
  setDisabled,
  setOperator,
  setPlan,
  type AdminStats,
  type AdminUser,
  type Tier,
  type UserFilter,
} from "./api";
import { DeleteUserDialog } from "./DeleteUserDialog";
import { formatTimestamp, yesNo } from "./format";
import { cellClass, Facts, LoadState, Table, WeekBars } from "./parts";
import { useLoaded } from "./useLoaded";

const PLANS: ReadonlyArray<{ value: Tier; label: string }> = [
  { value: "free", label: "Free" },
  { value: "pro", label: "Pro" },
  { value: "team", label: "Team" },
];

const selectClass = "h-10 rounded-md border border-slate-300 bg-white px-2 text-sm";

export function UsersTab() {
  const stats = useLoaded(fetchStats);
  const [filter, setFilter] = useState<UserFilter>({ q: "", plan: "", verified: "", page: 1 });
  const [typed, setTyped] = useState("");
  const loadUsers = useCallback(() => fetchUsers(filter), [filter]);
  const users = useLoaded(loadUsers);
  const [changed, setChanged] = useState<Record<string, AdminUser>>({});
  const [deleting, setDeleting] = useState<AdminUser | null>(null);

  const search = (event: FormEvent) => {
    event.preventDefault();
    setChanged({});
    setFilter((previous) => ({ ...previous, q: typed, page: 1 }));
    users.reload();
  };
  const refine = (change: Partial<UserFilter>) => {
    setChanged({});
    setFilter((previous) => ({ ...previous, q: typed, ...change, page: change.page ?? 1 }));
  };

  /** A user the server answered with after an action: shown in place, and the numbers reread. */
  const update = (user: AdminUser) => {
    setChanged((previous) => ({ ...previous, [user.id]: user }));
    stats.reload();
  };

  const page = users.data;
  const pages = page ? Math.max(1, Math.ceil(page.total / Math.max(1, page.pageSize))) : 1;

  return (
    <div className="space-y-6">
      <SectionCard title="Numbers" contentClassName="space-y-6">
        {stats.data ? <StatsView stats={stats.data} /> : <LoadState loading={stats.loading} error={stats.error} label="Loading the numbers" />}
      </SectionCard>

      <SectionCard title="Users" contentClassName="space-y-4">
        <form role="search" aria-label="Find users" className="flex flex-wrap items-end gap-3" onSubmit={search}>
          <label className="flex min-w-[14rem] flex-1 flex-col gap-1 text-sm font-medium text-slate-700">
            Email contains
            <Input type="search" value={typed} onChange={(event) => setTyped(event.target.value)} placeholder="part of an email" />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Plan
            <select className={selectClass} value={filter.plan} onChange={(event) => refine({ plan: event.target.value as Tier | "" })}>
              <option value="">All plans</option>
              {PLANS.map((plan) => (
                <option key={plan.value} value={plan.value}>
                  {plan.label}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
            Verification
            <select
              className={selectClass}
              value={filter.verified}
              onChange={(event) => refine({ verified: event.target.value as UserFilter["verified"] })}
            >
              <option value="">Everyone</option>
              <option value="true">Verified</option>
              <option value="false">Not verified</option>
            </select>
          </label>
          <Button type="submit">Search</Button>
        </form>

        {page ? (
          <>
            <Table
              caption="Users"
              headers={["Email", "Plan", "Verified", "Operator", "Disabled", "Created", "Terms", "Digests", "Actions"]}
            >
              {page.users.map((listed) => {
                const user = changed[listed.id] ?? listed;
                return <UserRow key={user.id} user={user} onChanged={update} onDelete={() => setDeleting(user)} />;
              })}
            </Table>
            {page.users.length === 0 ? <p className="text-sm text-slate-600">No user matches.</p> : null}
            <div className="flex items-center justify-between gap-3 text-sm text-slate-600">
              <span>{`Page ${page.page} of ${pages} · ${page.total} ${page.total === 1 ? "user" : "users"}`}</span>
              <span className="flex gap-2">
                <Button variant="outline" size="sm" disabled={page.page <= 1 || users.loading} onClick={() => refine({ page: page.page - 1 })}>
                  Previous
                </Button>
                <Button variant="outline" size="sm" disabled={page.page >= pages || users.loading} onClick={() => refine({ page: page.page + 1 })}>
                  Next
                </Button>
              </span>
            </div>
          </>
        ) : null}
        {!page || users.error ? <LoadState loading={users.loading} error={users.error} label="Loading users" /> : null}
      </SectionCard>

      <DeleteUserDialog
        user={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => {
          setDeleting(null);
          setChanged({});
          users.reload();
          stats.reload();
        }}
      />
    </div>
  );
}

function StatsView({ stats }: { stats: AdminStats }) {
  return (
    <>
      <div className="grid gap-6 sm:grid-cols-2">
        <Facts
          label="Users"
          rows={[
            ["Users", stats.users],
            ["Verified", stats.verified],
            ["Disabled", stats.disabled],
            ["Operators", stats.operators],
          ]}
        />
        <Facts
          label="Plans and activity"
          rows={[
            ["Free", stats.free],
            ["Pro", stats.pro],
            ["Team", stats.team],
            ["Active terms", stats.activeTerms],
            ["Digests sent", stats.digestsSent],
          ]}
        />
      </div>
      <div className="grid gap-6 sm:grid-cols-2">
        <WeekBars title="Signups per week" weeks={stats.signupsByWeek} />
        <WeekBars title="Digests per week" weeks={stats.digestsByWeek} />
      </div>
    </>
  );
}

function UserRow({ user, onChanged, onDelete }: { user: AdminUser; onChanged: (user: AdminUser) => void; onDelete: () => void }) {
  useSignals();
  const [busy, setBusy] = useState(false);
  const billingEnabled = appConfig.value.billingEnabled;
  // The server refuses an operator's removing, disabling or deleting themself: not offered.
  const isOwnRow = currentUser.value?.id === user.id;

  /**
   * Runs one action; its answer (a user, or a message) is shown under `title`, a refusal as a
   * toast titled `failedTitle`.
   */
  const act = async (
    [title, failedTitle]: readonly [string, string],
    action: () => Promise<AdminUser | { message: string }>,
    describe: (answer: AdminUser) => string,
  ) => {
    setBusy(true);
    try {
      const answer = await action();
      if ("id" in answer) {
        onChanged(answer);
        toast({ title, description: describe(answer), variant: "success" });
      } else {
        toast({ title, description: answer.message, variant: "success" });
      }
    } catch (error) {
      toast({ title: failedTitle, description: errorMessage(error, "The server could not do that. Please try again."), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  const changePlan = (plan: Tier) =>
    act(
      ["Plan Changed", "Plan Not Changed"],
      () => setPlan(user.id, plan),
      (answer) =>
        `${answer.email} is on the ${label(answer.plan)} plan.` +
        (billingEnabled ? " Billing is on: this does not change their Stripe subscription." : ""),
    );

  return (
    <tr data-user={user.email}>
      <td className={`${cellClass} font-medium text-slate-900`}>{user.email}</td>
      <td className={cellClass}>
        <select
          aria-label={`Plan of ${user.email}`}
          className={selectClass}
          value={user.plan}
          disabled={busy}
          onChange={(event) => void changePlan(event.target.value as Tier)}
        >
          {PLANS.map((plan) => (
            <option key={plan.value} value={plan.value}>
              {plan.label}
            </option>
          ))}
        </select>
      </td>
      <td className={cellClass}>{yesNo(user.verified)}</td>
      <td className={cellClass}>{user.operator ? (user.operatorByEmail ? "Yes (settings)" : "Yes") : "No"}</td>
      <td className={cellClass}>{yesNo(user.disabled)}</td>
      <td className={cellClass} title={formatTimestamp(user.createdAt)}>
        {formatDate(user.createdAt)}
      </td>
      <td className={cellClass}>{`${user.activeTerms} active of ${user.terms}`}</td>
      <td className={cellClass} title={user.lastDigestAt ? `Last: ${formatTimestamp(user.lastDigestAt)}` : undefined}>
        {user.digestsSent}
      </td>
      <td className={cellClass}>
        <div className="flex flex-wrap gap-1 whitespace-nowrap">
          {isOwnRow && user.operator ? null : (
            <Button
              variant="outline"
              size="sm"
              disabled={busy || (user.operator && user.operatorByEmail)}
              title={user.operatorByEmail ? "An operator by PAPERTIDE_ADMIN_EMAILS stays one until the setting changes" : undefined}
              onClick={() =>
                void act(
                  user.operator ? ["Operator Removed", "Could Not Remove Operator"] : ["Operator Added", "Could Not Make Operator"],
                  () => setOperator(user.id, !user.operator),
                  (answer) => (answer.operator ? `${answer.email} is an operator.` : `${answer.email} is no longer an operator.`),
                )
              }
            >
              {user.operator ? "Remove operator" : "Make operator"}
            </Button>
          )}
          {isOwnRow ? null : (
            <Button
              variant="outline"
              size="sm"
              disabled={busy}
              onClick={() =>
                void act(
                  user.disabled ? ["User Enabled", "Could Not Enable User"] : ["User Disabled", "Could Not Disable User"],
                  () => setDisabled(user.id, !user.disabled),
                  (answer) => (answer.disabled ? `${answer.email} is disabled and signed out.` : `${answer.email} may sign in again.`),
                )
              }
            >
              {user.disabled ? "Enable" : "Disable"}
            </Button>
          )}
          {user.verified ? null : (
            <Button
              variant="outline"
              size="sm"
              disabled={busy}
              onClick={() => void act(["Verification Sent", "Could Not Send Verification"], () => resendVerification(user.id), () => "")}
            >
              Resend verification
            </Button>
          )}
          {isOwnRow ? (
            <span className="text-xs text-slate-500">Your account</span>
          ) : (
            <Button variant="outline" size="sm" className="text-red-600 hover:bg-red-50" disabled={busy} onClick={onDelete}>
              Delete
            </Button>
          )}
        </div>
      </td>
    </tr>
  );
}

const label = (plan: Tier) => PLANS.find((entry) => entry.value === plan)?.label ?? plan;
