// Types of routes not yet in contract.ts: the operator console (/api/admin/...) and a user's own
// data export and deletion. Written to the API of issue 27; contract.ts replaces this file once
// the server's wire types are generated into it.
import type { Tier } from "./contract";

/** The error codes these routes answer with, besides those of contract.ts. */
export type AdminErrorCode =
  | "operator_only"
  | "cannot_demote_self"
  | "operator_by_settings"
  | "cannot_disable_self"
  | "already_verified"
  | "cannot_delete_self"
  | "harvest_running"
  | "backup_dir_unset"
  | "wrong_password"
  | "payment_service_unavailable";

/** One ISO week's count, e.g. `{ week: "2026-W47", count: 3 }`. */
export type WeekCount = { week: string; count: number };

/** GET /api/admin/stats: the service's numbers; the weeks are the last 12, oldest first. */
export type AdminStats = {
  users: number;
  verified: number;
  disabled: number;
  free: number;
  pro: number;
  team: number;
  operators: number;
  activeTerms: number;
  digestsSent: number;
  signupsByWeek: WeekCount[];
  digestsByWeek: WeekCount[];
};

/** A user as the console lists them; `operator` is effective, `operatorByEmail` from the settings. */
export type AdminUser = {
  id: string;
  email: string;
  plan: Tier;
  verified: boolean;
  operator: boolean;
  operatorByEmail: boolean;
  disabled: boolean;
  createdAt: string;
  activeTerms: number;
  terms: number;
  digestsSent: number;
  lastDigestAt: string | null;
  stripeCustomerId: string | null;
};

/** GET /api/admin/users?q=&plan=&verified=&page= (pages from 1). */
export type AdminUserPage = { users: AdminUser[]; total: number; page: number; pageSize: number };

export type SourceName = "pubmed" | "arxiv" | "biorxiv" | "medrxiv";

export type AdminSource = {
  source: SourceName;
  enabled: boolean;
  cursor: string | null;
  lastSuccessAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
  papersThisWeek: number;
  nextRunAt: string | null;
  running: boolean;
};

/** GET /api/admin/sources: each harvested source and the index. */
export type AdminSources = {
  sources: AdminSource[];
  index: {
    papers: number;
    bySource: Record<SourceName, number>;
    vectors: { model: string | null; embedded: number; waiting: number };
  };
};

export type DeadMail = { id: string; to: string; subject: string; failedAt: string; attempts: number; error: string };

/** GET /api/admin/mail. */
export type AdminMail = {
  transport: "smtp" | "outbox";
  smtp: { state: "ok" | "failing" | "idle"; lastSuccessAt: string | null; lastErrorAt: string | null; lastError: string | null };
  queued: number;
  dead: DeadMail[];
};

export type AdminBillingUser = {
  id: string;
  email: string;
  plan: Tier;
  stripeCustomerId: string | null;
  subscriptionId: string | null;
  status: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
};

/** GET /api/admin/billing: paid users and users with a tracked subscription. */
export type AdminBilling = { enabled: boolean; users: AdminBillingUser[] };

/** POST /api/admin/backup `{ dest }` answers this. */
export type BackupReport = {
  path: string;
  createdAt: string;
  schemaVersion: number;
  storeBytes: number;
  indexBytes: number;
  files: number;
  users: number;
  papers: number;
  tookMs: number;
};

/** GET /api/users/{user_id}/export: everything the service keeps about a user. */
export type DataExport = {
  exportedAt: string;
  account: Record<string, unknown> & { email: string };
  preferences: unknown;
  searchTerms: unknown[];
  digests: unknown[];
  ratings: unknown[];
  planHistory: { at: string; from: Tier; to: Tier; reason: string }[];
  subscriptions: unknown[];
};
