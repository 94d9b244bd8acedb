// What the dashboard shows, shared by its cards: the signed-in user's search terms, digests
// and preferences. Each list is null until loaded; `loadError` holds why a load failed. Only the
// functions here write them, so a card that changes something reloads what it touched. Of two
// loads of one section in flight, only the later one's answer is kept.
import { signal } from "@preact/signals-react";
import { errorMessage } from "@/lib/api";
import {
  addSeeds,
  fetchDigests,
  fetchPreferences,
  fetchRatings,
  fetchSearchTerms,
  ratePaper,
  removeRating,
  type EmailDigest,
  type Preferences,
  type Rating,
  type SearchTerm,
  type SeedsAdded,
  type SeedsRequest,
  type Verdict,
} from "./api";

export const searchTerms = signal<SearchTerm[] | null>(null);
export const digests = signal<EmailDigest[] | null>(null);
export const preferences = signal<Preferences | null>(null);

/** Each term's ratings, by term id, once loaded. */
export const ratings = signal<Record<string, Rating[]>>({});

export type Section = "searchTerms" | "digests" | "preferences";
export const loadError = signal<Partial<Record<Section, string>>>({});

const latestLoad: Record<Section, number> = { searchTerms: 0, digests: 0, preferences: 0 };

/** Fetches a section; applies the answer only if no later load of it started meanwhile. */
async function load<T>(section: Section, fetchIt: () => Promise<T>, apply: (value: T) => void, fallback: string): Promise<void> {
  const ticket = ++latestLoad[section];
  try {
    const value = await fetchIt();
    if (ticket !== latestLoad[section]) return;
    apply(value);
    clearError(section);
  } catch (error) {
    if (ticket === latestLoad[section]) recordError(section, error, fallback);
  }
}

function recordError(section: Section, error: unknown, fallback: string) {
  loadError.value = { ...loadError.value, [section]: errorMessage(error, fallback) };
}

function clearError(section: Section) {
  if (!(section in loadError.value)) return;
  const { [section]: _cleared, ...rest } = loadError.value;
  loadError.value = rest;
}

export function loadSearchTerms(userId: string): Promise<void> {
  return load("searchTerms", () => fetchSearchTerms(userId), (terms) => (searchTerms.value = terms), "Your search terms could not be loaded.");
}

export function loadDigests(userId: string): Promise<void> {
  return load("digests", () => fetchDigests(userId), (list) => (digests.value = list), "Your digests could not be loaded.");
}

export function loadPreferences(userId: string): Promise<void> {
  return load("preferences", () => fetchPreferences(userId), (stored) => (preferences.value = stored), "Your email preferences could not be loaded.");
}

export function setPreferences(next: Preferences) {
  preferences.value = next;
}

/** Loads a term's ratings. */
export async function loadRatings(termId: string): Promise<void> {
  const list = await fetchRatings(termId);
  ratings.value = { ...ratings.value, [termId]: list };
}

/** Records `verdict` on a paper of the term's digest (or, with `null`, removes the rating), then reloads the term's ratings. */
export async function setRating(termId: string, digestId: string, paperKey: string, verdict: Verdict | null): Promise<void> {
  if (verdict === null) {
    await removeRating(termId, paperKey);
  } else {
    await ratePaper(termId, digestId, paperKey, verdict);
  }
  await loadRatings(termId);
}

/** Removes a rating, then reloads the term's ratings. */
export async function forgetRating(termId: string, paperKey: string): Promise<void> {
  await removeRating(termId, paperKey);
  await loadRatings(termId);
}

/** Seeds a term from papers the user knows, then reloads the term's ratings (which list them). */
export async function seedTerm(termId: string, seeds: SeedsRequest): Promise<SeedsAdded> {
  const added = await addSeeds(termId, seeds);
  await loadRatings(termId);
  return added;
}

/** Everything the dashboard shows, at once. */
export function loadDashboard(userId: string): Promise<void> {
  return Promise.all([loadSearchTerms(userId), loadDigests(userId), loadPreferences(userId)]).then(() => undefined);
}

/** Forgets everything (sign-out, another user, tests). */
export function resetDashboard() {
  searchTerms.value = null;
  digests.value = null;
  preferences.value = null;
  ratings.value = {};
  loadError.value = {};
}
