// Client-side checks of every auth form (spec §5), written to match the server's rules in
// engine/src/validation.rs so the user sees the same message before and after a round trip.
// Each check returns the messages per field; an empty object means the form is valid.

export const MSG_INVALID_EMAIL = "Please enter a valid email address";
export const MSG_ENTER_PASSWORD = "Please enter your password";
export const MSG_PASSWORD_REQUIRED = "Password is required";
export const MSG_PASSWORD_MIN_6 = "Password must be at least 6 characters";
export const MSG_PASSWORD_MIN_8 = "Password must be at least 8 characters long";
export const MSG_PASSWORD_UPPERCASE = "Password must contain at least one uppercase letter";
export const MSG_PASSWORD_LOWERCASE = "Password must contain at least one lowercase letter";
export const MSG_PASSWORD_NUMBER = "Password must contain at least one number";
export const MSG_PASSWORD_SPECIAL = "Password must contain at least one special character";
export const MSG_PASSWORDS_DONT_MATCH = "Passwords don't match";
export const MSG_PASSWORDS_DO_NOT_MATCH = "Passwords do not match";
export const MSG_RESEARCH_FIELD_REQUIRED = "Please enter your research field";
export const MSG_RESEARCH_FIELD_INVALID = "Please select a valid research field";
export const MSG_AGREE_TERMS = "You must agree to the Terms and Conditions";
export const MSG_AGREE_PRIVACY = "You must agree to the Privacy Policy";

export const STANDALONE_MIN_PASSWORD_CHARS = 6;
export const COMPLEX_MIN_PASSWORD_CHARS = 8;
/** The server refuses any password shorter than this, whichever form sent it. */
export const SERVER_MIN_PASSWORD_CHARS = 8;
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

/** The complexity rules of the combined signup and reset forms: one message per broken rule. */
export function passwordComplexityErrors(password: string): string[] {
  const problems: string[] = [];
  if ([...password].length < COMPLEX_MIN_PASSWORD_CHARS) problems.push(MSG_PASSWORD_MIN_8);
  if (!/\p{Lu}/u.test(password)) problems.push(MSG_PASSWORD_UPPERCASE);
  if (!/\p{Ll}/u.test(password)) problems.push(MSG_PASSWORD_LOWERCASE);
  if (!/[0-9]/.test(password)) problems.push(MSG_PASSWORD_NUMBER);
  if (!/[^\p{L}\p{N}]/u.test(password)) problems.push(MSG_PASSWORD_SPECIAL);
  return problems;
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
  const passwordProblems = passwordComplexityErrors(values.password);
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

/**
 * The standalone /signup page. The spec's floor is 6 characters ('Password must be at least 6
 * characters'); the server refuses fewer than 8, so a password of 6 or 7 gets the server's own
 * message here, before a round trip that could only fail.
 */
export function validateStandaloneSignup(values: StandaloneSignupValues): FormErrors<keyof StandaloneSignupValues> {
  const errors: FormErrors<keyof StandaloneSignupValues> = {};
  if (!isValidEmail(values.email.trim())) errors.email = [MSG_INVALID_EMAIL];
  const passwordChars = [...values.password].length;
  if (passwordChars < STANDALONE_MIN_PASSWORD_CHARS) errors.password = [MSG_PASSWORD_MIN_6];
  else if (passwordChars < SERVER_MIN_PASSWORD_CHARS) errors.password = [MSG_PASSWORD_MIN_8];
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

/** The /reset-password page: the combined complexity rules and its own mismatch message. */
export function validateResetPassword(values: ResetPasswordValues): FormErrors<keyof ResetPasswordValues> {
  const errors: FormErrors<keyof ResetPasswordValues> = {};
  const passwordProblems = passwordComplexityErrors(values.password);
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
