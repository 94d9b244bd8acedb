// Client addresses more than one feature links to.

/** Where a signed-in user lands (spec §2): /dashboard?email=…, plus &pendingSearch=… when a topic waits. */
export function dashboardPath(email: string, pendingSearch?: string | null): string {
  const query = new URLSearchParams({ email });
  if (pendingSearch) query.set("pendingSearch", pendingSearch);
  return `/dashboard?${query.toString()}`;
}
