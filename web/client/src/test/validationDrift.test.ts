// The browser's validation rules against the table shared with the server
// (engine/tests/validation-cases.json, read by engine/tests/validation_drift.rs too): a rule
// changed on either side fails that side's test until the table, and the other side, follow.
import table from "../../../../engine/tests/validation-cases.json";
import {
  isValidEmail,
  newPasswordErrors,
  validateCombinedLogin,
  validateCombinedSignup,
  validateForgotPassword,
  validateResetPassword,
  validateStandaloneSignup,
  type CombinedSignupValues,
  type CredentialsValues,
  type FormErrors,
  type ResetPasswordValues,
  type StandaloneSignupValues,
} from "@/features/auth/validation";
import { searchTermError } from "@/lib/searchTerm";

interface TextCase {
  input: string;
  repeat?: number;
  valid?: boolean;
  message?: string | null;
  serverOnly?: boolean;
}

interface FormCase {
  form: string;
  values: Record<string, unknown>;
  errors: Record<string, string[]>;
  serverOnlyErrors?: Record<string, string[]>;
}

/** The table's shape (JSON imports are typed by their content, which is too narrow to check). */
interface Table {
  email: TextCase[];
  newPassword: TextCase[];
  searchTerm: TextCase[];
  forms: FormCase[];
}

const cases = table as unknown as Table;
const text = (entry: TextCase) => entry.input.repeat(entry.repeat ?? 1);
const label = (entry: TextCase) => JSON.stringify(entry.input) + (entry.repeat ? ` ×${entry.repeat}` : "");

/** The client's validation of `form` (as the table names it) with `values`. */
function validate(form: string, values: Record<string, unknown>): FormErrors {
  switch (form) {
    case "combinedSignup":
      return validateCombinedSignup(values as unknown as CombinedSignupValues);
    case "standaloneSignup":
      return validateStandaloneSignup(values as unknown as StandaloneSignupValues);
    case "login":
      return validateCombinedLogin(values as unknown as CredentialsValues);
    case "forgotPassword":
      return validateForgotPassword(values as unknown as { email: string });
    case "resetPassword":
      return validateResetPassword(values as unknown as ResetPasswordValues);
    default:
      throw new Error(`no form named ${form} in the table`);
  }
}

describe("the validation rules shared with the server", () => {
  const { email: emails, newPassword: passwords, searchTerm: terms, forms } = cases;

  it("has cases of every rule", () => {
    expect(emails.length).toBeGreaterThan(10);
    expect(passwords.length).toBeGreaterThan(5);
    expect(terms.length).toBeGreaterThan(10);
    expect(new Set(forms.map((entry) => entry.form))).toEqual(
      new Set(["combinedSignup", "standaloneSignup", "login", "forgotPassword", "resetPassword"]),
    );
  });

  it.each(emails.map((entry) => [label(entry), entry] as const))("judges the address %s as the server does", (_, entry) => {
    expect(isValidEmail(text(entry))).toBe(entry.valid);
  });

  it.each(passwords.map((entry) => [label(entry), entry] as const))("judges the new password %s as the server does", (_, entry) => {
    // A rule only the server checks (its list of common passwords…) lets the input through here.
    const expected = entry.serverOnly || entry.message == null ? [] : [entry.message];
    expect(newPasswordErrors(text(entry))).toEqual(expected);
  });

  it.each(terms.map((entry) => [label(entry), entry] as const))("judges the search term %s as the server does", (_, entry) => {
    expect(searchTermError(text(entry))).toBe(entry.message ?? null);
  });

  it.each(forms.map((entry) => [`${entry.form} ${JSON.stringify(entry.values)}`, entry] as const))(
    "gives the form %s the server's messages",
    (_, entry) => {
      expect(validate(entry.form, entry.values)).toEqual(entry.errors);
    },
  );
});
