// The research topic a visitor typed before signing up, kept in session storage under
// pendingSearch (landing page) or pendingSearchTerm (spec §3) until it is processed or dropped.
export const PENDING_SEARCH_KEYS = ["pendingSearch", "pendingSearchTerm"] as const;

export function getPendingSearch(): string | null {
  for (const key of PENDING_SEARCH_KEYS) {
    const value = sessionStorage.getItem(key)?.trim();
    if (value) return value;
  }
  return null;
}

export function setPendingSearch(topic: string) {
  sessionStorage.setItem("pendingSearch", topic.trim());
}

export function clearPendingSearch() {
  for (const key of PENDING_SEARCH_KEYS) sessionStorage.removeItem(key);
}
