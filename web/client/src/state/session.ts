// The signed-in user, as the server reports it. Only these functions write it.
//
// Public pages know the session through one call per page load: `loadSession()` asks
// GET /api/auth/me the first time and every later caller shares that answer (a 401 means signed
// out). What sign-in, verification and sign-out learn replaces it, and an answer the server gave
// before such a change is not applied over it. The dashboard asks afresh (`refreshCurrentUser`).
import { signal } from "@preact/signals-react";
import type { FreeDigests, MeAnswer, PlanEnded as PlanEndedView, Tier, UserView } from "@/api/contract";
import { ApiError, getJson, postJson } from "@/lib/api";
import { clearPendingSearch } from "./pendingSearch";

/** A free plan's digests: `used` counts only digests that had papers (an empty-week notice does not). */
export type { FreeDigests, Tier };

/**
 * A paid plan that ended (spec §4: cancelled, unpaid or expired), until an upgrade clears it;
 * `inactiveTerms`: search terms beyond the free plan's limit, made inactive when it ended.
 */
export type PlanEnded = Pick<PlanEndedView, "tier" | "endedAt" | "inactiveTerms"> & Partial<Pick<PlanEndedView, "cause">>;

/**
 * The signed-in user as the client keeps it (the server's `UserView`): who it is and its plan;
 * the rest is read when the server sent it.
 */
export type CurrentUser = Pick<UserView, "id" | "email" | "subscriptionTier"> &
  Partial<Pick<UserView, "stripeCustomerId" | "researchField" | "isEmailVerified" | "isAdmin" | "pendingSearch" | "freeDigests">> & {
    /** The paid plan that ended, if one did and no upgrade followed. */
    planEnded?: PlanEnded | null;
  };

export const currentUser = signal<CurrentUser | null>(null);

/** The latest known answer to "who is signed in?"; null until someone asks. */
let knownSession: Promise<CurrentUser | null> | null = null;
/** Bumped by every question and every write, so that only the latest one sets `currentUser`. */
let sessionVersion = 0;

/**
 * Who is signed in, asking the server only if nobody has asked (or told) yet during this page
 * load. `null` when nobody is; rejects when the server could not say (and stays so until
 * `refreshCurrentUser` asks again).
 */
export function loadSession(): Promise<CurrentUser | null> {
  return knownSession ?? refreshCurrentUser();
}

/** Asks the server who is signed in; `null` when nobody is (401). */
export function refreshCurrentUser(): Promise<CurrentUser | null> {
  const version = ++sessionVersion;
  const request = fetchSignedInUser().then((user) => {
    if (version === sessionVersion) currentUser.value = user;
    return currentUser.value;
  });
  knownSession = request;
  return request;
}

/** What a sign-in or a verification answered: the session is known without asking. */
export function setCurrentUser(user: CurrentUser | null) {
  sessionVersion += 1;
  currentUser.value = user;
  knownSession = Promise.resolve(user);
}

export async function signOut(): Promise<void> {
  await postJson("/api/auth/logout");
  // A term kept for this user is not offered to whoever signs in next in this tab.
  clearPendingSearch();
  setCurrentUser(null);
}

/** The account is gone (deleted by its owner): nobody is signed in any more in this tab. */
export function endSession() {
  clearPendingSearch();
  setCurrentUser(null);
}

/** For tests: nobody known to be signed in, and the server not asked yet. */
export function forgetSession() {
  sessionVersion += 1;
  currentUser.value = null;
  knownSession = null;
}

async function fetchSignedInUser(): Promise<CurrentUser | null> {
  try {
    const answer = await getJson<MeAnswer | null>("/api/auth/me");
    return answer?.user ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}
