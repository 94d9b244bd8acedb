// Client-side checks of every auth form (spec §5), written to match the server's rules in
// engine/src/validation.rs so the user sees the same message before and after a round trip.
// Each check returns the messages per field; an empty object means the form is valid.
//
// A new password (either signup, the reset) follows one rule, after NIST SP 800-63B: 8 to 256
// characters, no composition rules. The server also refuses common and leaked passwords and
// ones made from the account's address or the site's name; the list stays on the server, and
// its message comes back as the password field's (see `serverFieldErrors`).

export const MSG_INVALID_EMAIL = "Please enter a valid email address";
export const MSG_ENTER_PASSWORD = "Please enter your password";
export const MSG_PASSWORD_REQUIRED = "Password is required";
export const MSG_PASSWORD_MIN_8 = "Password must be at least 8 characters long";
export const MSG_PASSWORD_TOO_LONG = "Password must be at most 256 characters";
export const MSG_PASSWORDS_DONT_MATCH = "Passwords don't match";
export const MSG_PASSWORDS_DO_NOT_MATCH = "Passwords do not match";
export const MSG_RESEARCH_FIELD_REQUIRED = "Please enter your research field";
export const MSG_RESEARCH_FIELD_INVALID = "Please select a valid research field";
export const MSG_AGREE_TERMS = "You must agree to the Terms and Conditions";
export const MSG_AGREE_PRIVACY = "You must agree to the Privacy Policy";

/** The shortest and the longest new password, in characters (code points, as the server counts). */
export const MIN_PASSWORD_CHARS = 8;
export const MAX_PASSWORD_CHARS = 256;
const MAX_EMAIL_CHARS = 254;
const MAX_EMAIL_LOCAL_CHARS = 64;

/** The research fields of the combined signup form, in display order. */
export const RESEARCH_FIELDS = [
  { value: "medicine", label: "Medicine" },
  { value: "biology", label: "Biology" },
  { value: "physics", label: "Physics" },
  { value: "chemistry", label: "Chemistry" },
  { value: "computer-science", label: "Computer Science" },
  { value: "mathematics", label: "Mathematics" },
  { value: "psychology", label: "Psychology" },
  { value: "engineering", label: "Engineering" },
  { value: "other", label: "Other" },
] as const;

export type ResearchField = (typeof RESEARCH_FIELDS)[number]["value"];

/** Messages per field name; a field without problems is absent. */
export type FormErrors<Field extends string = string> = Partial<Record<Field, string[]>>;

export function hasErrors(errors: FormErrors): boolean {
  return Object.values(errors).some((messages) => messages && messages.length > 0);
}

/**
 * Whether `email` (trimmed by the caller) is an address mail can be sent to: a local part of
 * letters, digits and `_ ' + - .` (no leading, trailing or doubled dot), `@`, and a domain of
 * dot-separated labels ending in a top-level name of at least two letters. Same as the server.
 */
export function isValidEmail(email: string): boolean {
  if (email.length > MAX_EMAIL_CHARS) return false;
  const at = email.indexOf("@");
  if (at < 0) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  return isValidLocalPart(local) && isValidDomain(domain);
}

/** The length rule of every form that sets a password: its message, or none. Any characters. */
export function newPasswordErrors(password: string): string[] {
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS) return [MSG_PASSWORD_MIN_8];
  if (length > MAX_PASSWORD_CHARS) return [MSG_PASSWORD_TOO_LONG];
  return [];
}

export interface CombinedSignupValues {
  email: string;
  researchField: string;
  password: string;
  confirmPassword: string;
  agreeToTerms: boolean;
  agreeToPrivacy: boolean;
}

export function validateCombinedSignup(values: CombinedSignupValues): FormErrors<keyof CombinedSignupValues> {
  const errors: FormErrors<keyof CombinedSignupValues> = {};
  if (!isValidEmail(values.email.trim())) errors.email = [MSG_INVALID_EMAIL];
  if (values.researchField && !RESEARCH_FIELDS.some((field) => field.value === values.researchField)) {
    errors.researchField = [MSG_RESEARCH_FIELD_INVALID];
  }
  const passwordProblems = newPasswordErrors(values.password);
  if (passwordProblems.length > 0) errors.password = passwordProblems;
  if (values.confirmPassword !== values.password) errors.confirmPassword = [MSG_PASSWORDS_DONT_MATCH];
  if (!values.agreeToTerms) errors.agreeToTerms = [MSG_AGREE_TERMS];
  if (!values.agreeToPrivacy) errors.agreeToPrivacy = [MSG_AGREE_PRIVACY];
  return errors;
}

export interface CredentialsValues {
  email: string;
  password: string;
}

/** The login tab of /auth. */
export function validateCombinedLogin(values: CredentialsValues): FormErrors<keyof CredentialsValues> {
  const errors: FormErrors<keyof CredentialsValues> = {};
  if (!isValidEmail(values.email.trim())) errors.email = [MSG_INVALID_EMAIL];
  if (values.password.length < 1) errors.password = [MSG_PASSWORD_REQUIRED];
  return errors;
}

/** The standalone /login page. */
export function validateStandaloneLogin(values: CredentialsValues): FormErrors<keyof CredentialsValues> {
  const errors: FormErrors<keyof CredentialsValues> = {};
  if (!isValidEmail(values.email.trim())) errors.email = [MSG_INVALID_EMAIL];
  if (values.password.length < 1) errors.password = [MSG_ENTER_PASSWORD];
  return errors;
}

export interface StandaloneSignupValues {
  email: string;
  password: string;
  confirmPassword: string;
  researchField: string;
}

/** The standalone /signup page: the same password rule as the combined form, a free-text research field. */
export function validateStandaloneSignup(values: StandaloneSignupValues): FormErrors<keyof StandaloneSignupValues> {
  const errors: FormErrors<keyof StandaloneSignupValues> = {};
  if (!isValidEmail(values.email.trim())) errors.email = [MSG_INVALID_EMAIL];
  const passwordProblems = newPasswordErrors(values.password);
  if (passwordProblems.length > 0) errors.password = passwordProblems;
  if (values.confirmPassword !== values.password) errors.confirmPassword = [MSG_PASSWORDS_DONT_MATCH];
  if (values.researchField.trim().length < 1) errors.researchField = [MSG_RESEARCH_FIELD_REQUIRED];
  return errors;
}

export function validateForgotPassword(values: { email: string }): FormErrors<"email"> {
  return isValidEmail(values.email.trim()) ? {} : { email: [MSG_INVALID_EMAIL] };
}

export interface ResetPasswordValues {
  password: string;
  confirmPassword: string;
}

/** The /reset-password page: the same password rule and its own mismatch message. */
export function validateResetPassword(values: ResetPasswordValues): FormErrors<keyof ResetPasswordValues> {
  const errors: FormErrors<keyof ResetPasswordValues> = {};
  const passwordProblems = newPasswordErrors(values.password);
  if (passwordProblems.length > 0) errors.password = passwordProblems;
  if (values.confirmPassword !== values.password) errors.confirmPassword = [MSG_PASSWORDS_DO_NOT_MATCH];
  return errors;
}

function isValidLocalPart(local: string): boolean {
  return (
    local.length > 0 &&
    local.length <= MAX_EMAIL_LOCAL_CHARS &&
    /^[A-Za-z0-9_'+.-]+$/.test(local) &&
    !local.startsWith(".") &&
    !local.endsWith(".") &&
    !local.includes("..")
  );
}

function isValidDomain(domain: string): boolean {
  const labels = domain.split(".");
  const topLevel = labels.pop() ?? "";
  const isValidLabel = (label: string) => /^[A-Za-z0-9][A-Za-z0-9-]*$/.test(label);
  return labels.length > 0 && labels.every(isValidLabel) && topLevel.length >= 2 && /^[A-Za-z]+$/.test(topLevel);
}
