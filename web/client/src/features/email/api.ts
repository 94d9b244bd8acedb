// The calls of the mail pages (spec §7): test mail and the weekly digest on demand for the
// test-email page, and the unsubscribe link's call. Failures are ApiErrors (spec §8).
import { getJsonOnce, postJson } from "@/lib/api";

export type TestEmailType = "welcome" | "digest";

export interface TestEmailAnswer {
  success?: boolean;
  message?: string;
}

export interface TriggerDigestAnswer {
  success?: boolean;
  /** Digests built, one per active search term. */
  digests?: number;
  papersFound?: number;
}

export interface UnsubscribeAnswer {
  success?: boolean;
  message?: string;
}

/** A welcome mail, or the latest digest as a sample, to `email` (the user's own unless an operator). */
export const sendTestEmail = (email: string, type: TestEmailType) => postJson<TestEmailAnswer>("/api/test-email", { email, type });

/** The signed-in user's weekly digest now, one per active term (400 without one). */
export const triggerDigest = () => postJson<TriggerDigestAnswer>("/api/trigger-digest", {});

/** Turns weekly digests off for the link's token, asking the server once per token (single use). */
export function unsubscribeOnce(token: string): Promise<UnsubscribeAnswer> {
  return getJsonOnce<UnsubscribeAnswer>(`/api/unsubscribe/${encodeURIComponent(token)}`);
}
