// /admin — the operator console.
import { AdminConsole } from "@/features/admin";

export function AdminPage() {
  return <AdminConsole />;
}
