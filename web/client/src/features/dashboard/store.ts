// What the dashboard shows, shared by its cards: the signed-in user's search terms, digests
// and preferences. Each list is null until loaded; `loadError` holds why a load failed. Only the
// functions here write them, so a card that changes something reloads what it touched.
import { signal } from "@preact/signals-react";
import { errorMessage } from "@/lib/api";
import { fetchDigests, fetchPreferences, fetchSearchTerms, type EmailDigest, type Preferences, type SearchTerm } from "./api";

export const searchTerms = signal<SearchTerm[] | null>(null);
export const digests = signal<EmailDigest[] | null>(null);
export const preferences = signal<Preferences | null>(null);

export type Section = "searchTerms" | "digests" | "preferences";
export const loadError = signal<Partial<Record<Section, string>>>({});

function recordError(section: Section, error: unknown, fallback: string) {
  loadError.value = { ...loadError.value, [section]: errorMessage(error, fallback) };
}

function clearError(section: Section) {
  if (!(section in loadError.value)) return;
  const { [section]: _cleared, ...rest } = loadError.value;
  loadError.value = rest;
}

export async function loadSearchTerms(userId: string): Promise<void> {
  try {
    searchTerms.value = await fetchSearchTerms(userId);
    clearError("searchTerms");
  } catch (error) {
    recordError("searchTerms", error, "Your search terms could not be loaded.");
  }
}

export async function loadDigests(userId: string): Promise<void> {
  try {
    digests.value = await fetchDigests(userId);
    clearError("digests");
  } catch (error) {
    recordError("digests", error, "Your digests could not be loaded.");
  }
}

export async function loadPreferences(userId: string): Promise<void> {
  try {
    preferences.value = await fetchPreferences(userId);
    clearError("preferences");
  } catch (error) {
    recordError("preferences", error, "Your email preferences could not be loaded.");
  }
}

export function setPreferences(next: Preferences) {
  preferences.value = next;
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
  loadError.value = {};
}
