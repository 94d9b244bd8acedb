// The auth calls of spec §7, each a thin wrapper over the shared api module.
import { ApiError, errorMessage, getJsonOnce, postJson } from "@/lib/api";
import type { CurrentUser } from "@/state/session";
import type { CombinedSignupValues, FormErrors, StandaloneSignupValues } from "./validation";

export interface MessageAnswer {
  message: string;
}

export interface SignupAnswer extends MessageAnswer {
  requiresVerification: boolean;
  user: CurrentUser;
}

export interface LoginAnswer extends MessageAnswer {
  user: CurrentUser;
}

export interface VerifyAnswer extends MessageAnswer {
  success: boolean;
  user?: CurrentUser;
}

/** `POST /api/signup`: the combined form on /auth. */
export function signUpCombined(values: CombinedSignupValues): Promise<SignupAnswer> {
  return postJson<SignupAnswer>("/api/signup", {
    email: values.email.trim(),
    researchField: values.researchField || undefined,
    password: values.password,
    confirmPassword: values.confirmPassword,
    agreeToTerms: values.agreeToTerms,
    agreeToPrivacy: values.agreeToPrivacy,
  });
}

/** `POST /api/auth/signup`: the standalone /signup form. */
export function signUpStandalone(values: StandaloneSignupValues): Promise<SignupAnswer> {
  return postJson<SignupAnswer>("/api/auth/signup", {
    email: values.email.trim(),
    password: values.password,
    confirmPassword: values.confirmPassword,
    researchField: values.researchField.trim(),
  });
}

/** `POST /api/auth/login`, used by both sign-in forms. */
export function logIn(email: string, password: string): Promise<LoginAnswer> {
  return postJson<LoginAnswer>("/api/auth/login", { email: email.trim(), password });
}

/** `POST /api/forgot-password`: the server answers the same whether or not the account exists. */
export function requestPasswordReset(email: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/forgot-password", { email: email.trim() });
}

/** `POST /api/reset-password`. */
export function resetPassword(token: string, password: string, confirmPassword: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/reset-password", { token, password, confirmPassword });
}

/** `POST /api/auth/resend-verification`. */
export function resendVerification(email: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/auth/resend-verification", { email: email.trim() });
}

/** `GET /api/verify-email?token=`, at most once per token for the life of the page (single use). */
export function verifyEmailOnce(token: string): Promise<VerifyAnswer> {
  return getJsonOnce<VerifyAnswer>(`/api/verify-email?token=${encodeURIComponent(token)}`);
}

/** The per-field messages of a 400 `validation_failed` answer, in the forms' shape. */
export function serverFieldErrors(error: unknown): FormErrors {
  if (!(error instanceof ApiError)) return {};
  const details = error.field<Array<{ field?: unknown; message?: unknown }>>("errors");
  if (!Array.isArray(details)) return {};
  const errors: FormErrors = {};
  for (const detail of details) {
    if (typeof detail?.field !== "string" || typeof detail.message !== "string") continue;
    (errors[detail.field] ??= []).push(detail.message);
  }
  return errors;
}

/** Whether a failed sign-in was refused because the address is not verified yet. */
export function needsVerification(error: unknown): boolean {
  return error instanceof ApiError && error.field<boolean>("requiresVerification") === true;
}

/** The text of a failed signup: the server's message, or the spec's defaults (§8). */
export function signupFailureMessage(error: unknown): string {
  if (error instanceof ApiError) return errorMessage(error, "Failed to create account");
  return "Something went wrong. Please try again.";
}

/** Where a signed-in user lands: /dashboard?email=…, plus &pendingSearch=… when a topic waits. */
export function dashboardPath(email: string, pendingSearch?: string | null): string {
  const query = new URLSearchParams({ email });
  if (pendingSearch) query.set("pendingSearch", pendingSearch);
  return `/dashboard?${query.toString()}`;
}
