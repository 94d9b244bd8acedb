// The auth calls of spec §7, each a thin wrapper over the shared api module.
import type {
  CombinedSignupRequest,
  EmailRequest,
  LoginAnswer,
  LoginRequest,
  Message,
  ResetPasswordRequest,
  SeedsRequest,
  SignupAnswer,
  StandaloneSignupRequest,
  VerifyEmailAnswer,
} from "@/api/contract";
import { ApiError, errorMessage, fieldErrors, getJsonOnce, postJson } from "@/lib/api";
import type { CombinedSignupValues, FormErrors, StandaloneSignupValues } from "./validation";

export { dashboardPath } from "@/lib/paths";

export type { LoginAnswer, SignupAnswer };

export type MessageAnswer = Message;

/**
 * The verification link's answer. `pendingSearch` is the topic typed before signing up, as the
 * server kept it with the account (another tab's storage is out of reach).
 */
export type VerifyAnswer = VerifyEmailAnswer;

/**
 * `POST /api/signup`: the combined form on /auth. `pendingSearch`, the topic typed before signing
 * up, goes along so the server keeps it with the account (the verification link may open in
 * another tab, without this tab's session storage); `seeds`, the papers that topic starts from,
 * only when some were given (the server looks them up now; a bad one refuses the signup).
 */
export function signUpCombined(values: CombinedSignupValues, pendingSearch: string | null, seeds?: SeedsRequest): Promise<SignupAnswer> {
  return postJson<SignupAnswer>("/api/signup", {
    email: values.email.trim(),
    researchField: values.researchField || undefined,
    password: values.password,
    confirmPassword: values.confirmPassword,
    agreeToTerms: values.agreeToTerms,
    agreeToPrivacy: values.agreeToPrivacy,
    pendingSearch: pendingSearch ?? undefined,
    ...(seeds ? { seeds } : {}),
  } satisfies CombinedSignupRequest);
}

/** `POST /api/auth/signup`: the standalone /signup form, with the pending topic as above. */
export function signUpStandalone(values: StandaloneSignupValues, pendingSearch: string | null): Promise<SignupAnswer> {
  return postJson<SignupAnswer>("/api/auth/signup", {
    email: values.email.trim(),
    password: values.password,
    confirmPassword: values.confirmPassword,
    researchField: values.researchField.trim(),
    pendingSearch: pendingSearch ?? undefined,
  } satisfies StandaloneSignupRequest);
}

/** `POST /api/auth/login`, used by both sign-in forms. */
export function logIn(email: string, password: string): Promise<LoginAnswer> {
  return postJson<LoginAnswer>("/api/auth/login", { email: email.trim(), password } satisfies LoginRequest);
}

/** `POST /api/forgot-password`: the server answers the same whether or not the account exists. */
export function requestPasswordReset(email: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/forgot-password", { email: email.trim() } satisfies EmailRequest);
}

/** `POST /api/reset-password`. */
export function resetPassword(token: string, password: string, confirmPassword: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/reset-password", { token, password, confirmPassword } satisfies ResetPasswordRequest);
}

/** `POST /api/auth/resend-verification`. */
export function resendVerification(email: string): Promise<MessageAnswer> {
  return postJson<MessageAnswer>("/api/auth/resend-verification", { email: email.trim() } satisfies EmailRequest);
}

/** `GET /api/verify-email?token=`, at most once per token for the life of the page (single use). */
export function verifyEmailOnce(token: string): Promise<VerifyAnswer> {
  return getJsonOnce<VerifyAnswer>(`/api/verify-email?token=${encodeURIComponent(token)}`);
}

/** The per-field messages of a 400 `validation_failed` answer, in the forms' shape. */
export function serverFieldErrors(error: unknown): FormErrors {
  return fieldErrors(error);
}

/** Whether a failed sign-in was refused because the address is not verified yet. */
export function needsVerification(error: unknown): boolean {
  return error instanceof ApiError && error.field("requiresVerification") === true;
}

/** The text of a failed signup: the server's message, or the spec's defaults (§8). */
export function signupFailureMessage(error: unknown): string {
  if (error instanceof ApiError) return errorMessage(error, "Failed to create account");
  return "Something went wrong. Please try again.";
}
