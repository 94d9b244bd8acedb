// Placeholder until the card is built.
import type { CurrentUser } from "@/state/session";

export function AddSearchTermCard(_props: { user: CurrentUser }) {
  return null;
}
