// /dashboard — the signed-in home (spec §2).
import { DashboardShell } from "@/features/dashboard/DashboardShell";

export function DashboardPage() {
  return <DashboardShell />;
}
