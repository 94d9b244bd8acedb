// /admin — the operator console (issue 27).
import { AdminConsole } from "@/features/admin";

export function AdminPage() {
  return <AdminConsole />;
}
