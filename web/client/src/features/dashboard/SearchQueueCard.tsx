// Placeholder until the card is built.
import type { CurrentUser } from "@/state/session";

export function SearchQueueCard(_props: { user: CurrentUser }) {
  return null;
}
