// The calls of the mail pages (spec §7): test mail and the weekly digest on demand for the
// test-email page, the unsubscribe link's call, and the rating links' look and confirm. Failures
// are ApiErrors (spec §8).
import type { DoneWithMessage, RatingLinkConfirmed, RatingLinkRequest, RatingLinkView, TestEmailRequest, TriggerDigestAnswer, Verdict } from "@/api/contract";
import { getJson, getJsonOnce, postJson } from "@/lib/api";

export type { TriggerDigestAnswer };

export type TestEmailType = "welcome" | "digest";

export type TestEmailAnswer = DoneWithMessage;

export type UnsubscribeAnswer = DoneWithMessage;

/** A welcome mail, or the latest digest as a sample, to `email` (the user's own unless an operator). */
export const sendTestEmail = (email: string, type: TestEmailType) =>
  postJson<TestEmailAnswer>("/api/test-email", { email, type } satisfies TestEmailRequest);

/** The signed-in user's weekly digest now, one per active term (400 without one). */
export const triggerDigest = () => postJson<TriggerDigestAnswer>("/api/trigger-digest", {});

/** Turns weekly digests off for the link's token, asking the server once per token (single use). */
export function unsubscribeOnce(token: string): Promise<UnsubscribeAnswer> {
  return getJsonOnce<UnsubscribeAnswer>(`/api/unsubscribe/${encodeURIComponent(token)}`);
}

/** A rating link's verdict. */
export type LinkVerdict = Verdict;

/** What a digest mail's rating link stands for. */
export type RatingLink = RatingLinkView;

/** What a rating link would record; looking changes nothing. */
export const lookAtRatingLink = (token: string) => getJson<RatingLink>(`/api/ratings/link?token=${encodeURIComponent(token)}`);

/** Records a rating link's verdict (the same again changes nothing). */
export const confirmRatingLink = (token: string) => postJson<RatingLinkConfirmed>("/api/ratings/link", { token } satisfies RatingLinkRequest);
