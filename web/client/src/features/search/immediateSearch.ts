// The immediate search run after signup (spec §4): the stages the progress dialog walks
// through, the call itself, and how its failures are told apart (spec §8).
import { ApiError, errorMessage, postJson } from "@/lib/api";
import { setPendingSearch } from "@/state/pendingSearch";
import { toast } from "@/state/toast";

export interface SearchStage {
  label: string;
  percent: number;
  /** The simulated wait before the next stage; the last simulated stage is followed by the call. */
  waitAfterMs?: number;
}

/** Stages in order; the call runs while 'Sending email digest' shows. */
export const SEARCH_STAGES: readonly SearchStage[] = [
  { label: "Expanding search terms with AI", percent: 10, waitAfterMs: 1000 },
  { label: "Searching PubMed, arXiv and bioRxiv", percent: 30, waitAfterMs: 1000 },
  { label: "Analyzing papers with AI", percent: 60, waitAfterMs: 500 },
  { label: "Sending email digest", percent: 90 },
  { label: "Search complete", percent: 100 },
];

export const SENDING_STAGE_INDEX = 3;
export const COMPLETE_STAGE_INDEX = 4;
export const REDIRECT_AFTER_COMPLETE_MS = 1000;

/** From this many terms on, an upgrade is offered as team rather than pro. */
const TEAM_UPGRADE_FROM_COUNT = 5;

export const MSG_SEARCH_FAILED = "Failed to perform search";

/** `POST /api/immediate-search`. */
export function runImmediateSearch(email: string, searchTerm: string): Promise<unknown> {
  return postJson("/api/immediate-search", { email, searchTerm });
}

export type SearchFailure =
  | { kind: "max-searches"; message: string }
  | { kind: "payment-required"; tier: "pro" | "team"; message: string }
  | { kind: "other"; message: string };

export function classifySearchFailure(error: unknown): SearchFailure {
  if (error instanceof ApiError && error.status === 403 && error.field("requiresSupport")) {
    return { kind: "max-searches", message: errorMessage(error, "You have reached the maximum number of searches. Please contact support.") };
  }
  if (error instanceof ApiError && error.status === 402 && error.field("requiresPayment")) {
    const currentCount = Number(error.field("currentCount") ?? 0);
    return {
      kind: "payment-required",
      tier: currentCount >= TEAM_UPGRADE_FROM_COUNT ? "team" : "pro",
      message: errorMessage(error, "Upgrade your plan to add more search terms."),
    };
  }
  return { kind: "other", message: errorMessage(error, MSG_SEARCH_FAILED) };
}

export function dashboardPathFor(email: string): string {
  return `/dashboard?${new URLSearchParams({ email }).toString()}`;
}

/**
 * Tells the user why a search of `term` failed (spec §8). A full plan goes to /subscribe with the
 * term kept in session storage, so it comes back into the dashboard's input afterwards.
 */
export function reportSearchFailure(failure: SearchFailure, term: string, navigate: (to: string) => void) {
  switch (failure.kind) {
    case "max-searches":
      toast({ title: "Maximum Searches Reached", description: failure.message, variant: "destructive" });
      return;
    case "payment-required":
      setPendingSearch(term);
      toast({ title: "Subscription Required", description: failure.message, variant: "destructive" });
      navigate(`/subscribe?tier=${failure.tier}`);
      return;
    case "other":
      toast({ title: "Search Failed", description: failure.message, variant: "destructive" });
      return;
  }
}
