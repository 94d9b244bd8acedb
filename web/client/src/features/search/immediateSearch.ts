// The immediate search run after signup (spec §4): the stages the progress dialog walks
// through, the call itself, what its answer means, and how its failures are told apart (spec §8).
import type { ImmediateSearchAnswer, ImmediateSearchRequest } from "@/api/contract";
import { ApiError, errorMessage, fieldErrors, postJson } from "@/lib/api";
import { loadAppConfig } from "@/state/config";
import { clearPendingSearch, setPendingSearch } from "@/state/pendingSearch";
import { toast, type ToastVariant } from "@/state/toast";

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

export const MSG_DIGEST_ON_ITS_WAY = "Check your email for the research digest!";

/**
 * The answer of a search that went through: the term is saved, and usually its digest sent
 * (`digestSent: false`: a free plan's digests are used up).
 */
export type { ImmediateSearchAnswer };

/**
 * `POST /api/immediate-search`; `seeds`, the papers the new term starts from, only when some were
 * given (a bad one refuses the whole request: no term is made).
 */
export function runImmediateSearch(email: string, searchTerm: string, seeds?: ImmediateSearchRequest["seeds"]): Promise<ImmediateSearchAnswer> {
  return postJson<ImmediateSearchAnswer>("/api/immediate-search", { email, searchTerm, ...(seeds ? { seeds } : {}) } satisfies ImmediateSearchRequest);
}

/** How a search that went through is told: its toast, and the line the progress dialog ends on. */
export interface SearchOutcome {
  title: string;
  description: string;
  variant: ToastVariant;
}

/**
 * A digest on its way is 'Search Complete!'; a week without relevant papers says so in the
 * server's words; a term saved without a digest (the free digests are used) is 'Search Term Saved'
 * with the server's explanation, never 'Search Complete!'.
 */
export function describeSearchOutcome(answer: Partial<ImmediateSearchAnswer> | null | undefined): SearchOutcome {
  const serverMessage = typeof answer?.message === "string" ? answer.message : "";
  if (answer?.digestSent === false) {
    return {
      title: "Search Term Saved",
      description: serverMessage || "Your search term is saved, but no digest was sent.",
      variant: "default",
    };
  }
  if (answer?.papersFound === 0) {
    return { title: "Search Complete!", description: serverMessage || "No new papers matched this week.", variant: "success" };
  }
  return { title: "Search Complete!", description: MSG_DIGEST_ON_ITS_WAY, variant: "success" };
}

export type SearchFailure =
  | { kind: "max-searches"; message: string }
  /** The user follows this topic already (409 `term_already_followed`): nothing was searched or mailed. */
  | { kind: "already-followed"; message: string }
  | { kind: "payment-required"; tier: "pro" | "team"; message: string }
  /** `fieldMessage`: the server refused the term's text (400 `validation_failed`), to show at the field. */
  | { kind: "other"; message: string; fieldMessage?: string };

export function classifySearchFailure(error: unknown): SearchFailure {
  if (error instanceof ApiError && error.status === 409 && error.field("code") === "term_already_followed") {
    return { kind: "already-followed", message: errorMessage(error, "You already follow this topic: it is in your search terms.") };
  }
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
  const [fieldMessage] = fieldErrors(error).searchTerm ?? [];
  return { kind: "other", message: errorMessage(error, MSG_SEARCH_FAILED), fieldMessage };
}

/**
 * Tells the user why a search of `term` failed (spec §8). A full plan goes to /subscribe. With
 * billing on, the term is kept in session storage so it comes back into the dashboard's input
 * after an upgrade; with billing off no upgrade can be bought here, so it is dropped (kept, it
 * would come back only to be refused again).
 */
export async function reportSearchFailure(failure: SearchFailure, term: string, navigate: (to: string) => void): Promise<void> {
  switch (failure.kind) {
    case "max-searches":
      toast({ title: "Maximum Searches Reached", description: failure.message, variant: "destructive" });
      return;
    case "already-followed":
      toast({ title: "Already in Your Search Terms", description: failure.message });
      return;
    case "payment-required": {
      const { billingEnabled } = await loadAppConfig();
      if (billingEnabled) setPendingSearch(term);
      else clearPendingSearch();
      toast({ title: "Subscription Required", description: failure.message, variant: "destructive" });
      navigate(`/subscribe?tier=${failure.tier}`);
      return;
    }
    case "other":
      toast({ title: "Search Failed", description: failure.message, variant: "destructive" });
      return;
  }
}
