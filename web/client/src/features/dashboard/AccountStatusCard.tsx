// Placeholder until the card is built.
import type { CurrentUser } from "@/state/session";

export function AccountStatusCard(_props: { user: CurrentUser }) {
  return null;
}
