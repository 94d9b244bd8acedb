// The operator console's calls (/api/admin/...). Every one needs a verified operator's
// session: anonymous → 401, another user → 403 `operator_only`.
import type {
  AdminBilling,
  AdminBillingUser,
  AdminChannel,
  AdminChannels,
  AdminMail,
  AdminSources,
  AdminStats,
  AdminUser,
  AdminUserPage,
  BackupReport,
  FixSubscriptionAnswer,
  Message,
  Source as SourceName,
  Tier,
} from "@/api/contract";
import { apiRequest, getJson, postJson } from "@/lib/api";

export type { AdminBilling, AdminBillingUser, AdminChannel, AdminChannels, AdminMail, AdminSources, AdminStats, AdminUser, AdminUserPage, BackupReport, SourceName, Tier };

/** The refusal the server gives anyone but an operator, and the page shows. */
export const OPERATORS_ONLY_TEXT = "This page is for the service's operators.";

export interface UserFilter {
  /** Part of the email (case-insensitive); empty: everyone. */
  q: string;
  plan: Tier | "";
  verified: "true" | "false" | "";
  page: number;
}

const userPath = (id: string) => `/api/admin/users/${encodeURIComponent(id)}`;

export const fetchStats = () => getJson<AdminStats>("/api/admin/stats");

export function fetchUsers(filter: UserFilter) {
  const query = new URLSearchParams();
  if (filter.q.trim()) query.set("q", filter.q.trim());
  if (filter.plan) query.set("plan", filter.plan);
  if (filter.verified) query.set("verified", filter.verified);
  query.set("page", String(filter.page));
  return getJson<AdminUserPage>(`/api/admin/users?${query}`);
}

export const setPlan = (id: string, plan: Tier) => postJson<AdminUser>(`${userPath(id)}/plan`, { plan });
export const setOperator = (id: string, operator: boolean) => postJson<AdminUser>(`${userPath(id)}/operator`, { operator });
export const setDisabled = (id: string, disabled: boolean) => postJson<AdminUser>(`${userPath(id)}/disabled`, { disabled });
export const resendVerification = (id: string) => postJson<Message>(`${userPath(id)}/resend-verification`);
export const deleteUser = (id: string) => apiRequest<Message>("DELETE", userPath(id));

export const fetchSources = () => getJson<AdminSources>("/api/admin/sources");
export const harvestNow = (source: SourceName) => postJson<Message>(`/api/admin/sources/${encodeURIComponent(source)}/harvest`);

export const fetchMail = () => getJson<AdminMail>("/api/admin/mail");
export const retryDeadMail = (id: string) => postJson<Message>(`/api/admin/mail/dead/${encodeURIComponent(id)}/retry`);
export const dropDeadMail = (id: string) => apiRequest<Message>("DELETE", `/api/admin/mail/dead/${encodeURIComponent(id)}`);

/** Every lab channel, failing ones first. */
export const fetchChannels = () => getJson<AdminChannels>("/api/admin/channels");

export const fetchBilling = () => getJson<AdminBilling>("/api/admin/billing");
export const repairSubscription = (id: string) => postJson<FixSubscriptionAnswer>(`${userPath(id)}/repair-subscription`);

/** A backup into a new dated folder of `PAPERTIDE_BACKUP_DIR`. */
export const backUpNow = () => postJson<BackupReport>("/api/admin/backup", { dest: null });
