// The signed-in user, as the server reports it. Only these functions write it.
import { signal } from "@preact/signals-react";
import { ApiError, getJson, postJson } from "@/lib/api";

export type Tier = "free" | "pro" | "team";

export interface CurrentUser {
  id: string;
  email: string;
  subscriptionTier: Tier;
  stripeCustomerId?: string;
  researchField?: string | null;
  isEmailVerified?: boolean;
  isAdmin?: boolean;
}

export const currentUser = signal<CurrentUser | null>(null);

/** Asks the server who is signed in; `null` when nobody is (401). */
export async function refreshCurrentUser(): Promise<CurrentUser | null> {
  try {
    const answer = await getJson<{ user: CurrentUser }>("/api/auth/me");
    currentUser.value = answer.user ?? null;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    currentUser.value = null;
  }
  return currentUser.value;
}

export function setCurrentUser(user: CurrentUser | null) {
  currentUser.value = user;
}

export async function signOut(): Promise<void> {
  await postJson("/api/auth/logout");
  currentUser.value = null;
}
