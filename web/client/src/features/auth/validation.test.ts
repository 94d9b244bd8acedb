import {
  isValidEmail,
  MSG_AGREE_PRIVACY,
  MSG_AGREE_TERMS,
  MSG_ENTER_PASSWORD,
  MSG_INVALID_EMAIL,
  MSG_PASSWORD_MIN_8,
  MSG_PASSWORD_REQUIRED,
  MSG_PASSWORD_TOO_LONG,
  MSG_PASSWORDS_DO_NOT_MATCH,
  MSG_PASSWORDS_DONT_MATCH,
  MSG_RESEARCH_FIELD_INVALID,
  MSG_RESEARCH_FIELD_REQUIRED,
  newPasswordErrors,
  validateCombinedLogin,
  validateCombinedSignup,
  validateForgotPassword,
  validateResetPassword,
  validateStandaloneLogin,
  validateStandaloneSignup,
} from "./validation";

describe("email addresses (same rules as the server)", () => {
  it.each(["ada@example.org", "a.b+tag@lab.uni-x.ac.uk", "o'neil@example.com", "x_y@a1.io"])("accepts %s", (email) => {
    expect(isValidEmail(email)).toBe(true);
  });

  it.each([
    "", "plain", "@example.org", "ada@", "ada@example", "ada@@example.org", "ada@example.c", ".ada@example.org",
    "ada.@example.org", "a..da@example.org", "ada@-example.org", "ada @example.org", "ada@example.org.",
    "ada@exa_mple.org", "ada@example.o2", `${"a".repeat(65)}@example.org`,
  ])("rejects %j", (email) => {
    expect(isValidEmail(email)).toBe(false);
  });
});

describe("a new password (same rule as the server, less its list)", () => {
  it("is 8 to 256 characters, counted as the server counts them", () => {
    expect(newPasswordErrors("")).toEqual([MSG_PASSWORD_MIN_8]);
    expect(newPasswordErrors("Abc-123")).toEqual([MSG_PASSWORD_MIN_8]);
    expect(newPasswordErrors("Zq4!xw7k")).toEqual([]);
    expect(newPasswordErrors("😀😀😀😀😀😀😀")).toEqual([MSG_PASSWORD_MIN_8]);
    expect(newPasswordErrors("😀".repeat(8))).toEqual([]);
    expect(newPasswordErrors("x".repeat(256))).toEqual([]);
    expect(newPasswordErrors("x".repeat(257))).toEqual([MSG_PASSWORD_TOO_LONG]);
  });

  it.each(["correct horse battery staple", "alllowercaseletters", "ALLUPPERCASELETTERS", "84719305162", "mot de passe très long"])(
    "asks for no kind of character: %j",
    (password) => {
      expect(newPasswordErrors(password)).toEqual([]);
    },
  );
});

describe("combined signup", () => {
  const valid = {
    email: "ada@example.org",
    researchField: "",
    password: "Secret-123",
    confirmPassword: "Secret-123",
    agreeToTerms: true,
    agreeToPrivacy: true,
  };

  it("accepts a complete form, with or without a research field", () => {
    expect(validateCombinedSignup(valid)).toEqual({});
    expect(validateCombinedSignup({ ...valid, researchField: "computer-science" })).toEqual({});
  });

  it("names each broken rule", () => {
    expect(validateCombinedSignup({ ...valid, email: "nope" })).toEqual({ email: [MSG_INVALID_EMAIL] });
    expect(validateCombinedSignup({ ...valid, researchField: "astrology" })).toEqual({ researchField: [MSG_RESEARCH_FIELD_INVALID] });
    expect(validateCombinedSignup({ ...valid, confirmPassword: "Secret-124" })).toEqual({ confirmPassword: [MSG_PASSWORDS_DONT_MATCH] });
    expect(validateCombinedSignup({ ...valid, agreeToTerms: false })).toEqual({ agreeToTerms: [MSG_AGREE_TERMS] });
    expect(validateCombinedSignup({ ...valid, agreeToPrivacy: false })).toEqual({ agreeToPrivacy: [MSG_AGREE_PRIVACY] });
    expect(validateCombinedSignup({ ...valid, password: "secret", confirmPassword: "secret" }).password).toEqual([MSG_PASSWORD_MIN_8]);
    expect(validateCombinedSignup({ ...valid, password: "secret-horse", confirmPassword: "secret-horse" })).toEqual({});
  });
});

describe("the other forms", () => {
  it("combined login requires a valid email and a password", () => {
    expect(validateCombinedLogin({ email: "x", password: "" })).toEqual({ email: [MSG_INVALID_EMAIL], password: [MSG_PASSWORD_REQUIRED] });
    expect(validateCombinedLogin({ email: " ada@example.org ", password: "p" })).toEqual({});
  });

  it("standalone login asks for the password in its own words", () => {
    expect(validateStandaloneLogin({ email: "x", password: "" })).toEqual({ email: [MSG_INVALID_EMAIL], password: [MSG_ENTER_PASSWORD] });
    expect(validateStandaloneLogin({ email: "ada@example.org", password: "p" })).toEqual({});
  });

  it("standalone signup: the same 8 to 256 characters, matching confirmation, a research field", () => {
    const form = { email: "ada@example.org", password: "Secret-123", confirmPassword: "Secret-123", researchField: "Neuroscience" };
    expect(validateStandaloneSignup(form)).toEqual({});
    expect(validateStandaloneSignup({ ...form, email: "ada@" })).toEqual({ email: [MSG_INVALID_EMAIL] });
    expect(validateStandaloneSignup({ ...form, password: "12345", confirmPassword: "12345" })).toEqual({ password: [MSG_PASSWORD_MIN_8] });
    expect(validateStandaloneSignup({ ...form, password: "1234567", confirmPassword: "1234567" })).toEqual({ password: [MSG_PASSWORD_MIN_8] });
    const long = "x".repeat(257);
    expect(validateStandaloneSignup({ ...form, password: long, confirmPassword: long })).toEqual({ password: [MSG_PASSWORD_TOO_LONG] });
    expect(validateStandaloneSignup({ ...form, confirmPassword: "Secret-12" })).toEqual({ confirmPassword: [MSG_PASSWORDS_DONT_MATCH] });
    expect(validateStandaloneSignup({ ...form, researchField: "   " })).toEqual({ researchField: [MSG_RESEARCH_FIELD_REQUIRED] });
  });

  it("forgot password needs a valid email", () => {
    expect(validateForgotPassword({ email: "nope" })).toEqual({ email: [MSG_INVALID_EMAIL] });
    expect(validateForgotPassword({ email: "ada@example.org" })).toEqual({});
  });

  it("reset password uses the same rule and 'Passwords do not match'", () => {
    expect(validateResetPassword({ password: "Secret-123", confirmPassword: "Secret-123" })).toEqual({});
    expect(validateResetPassword({ password: "Secret-123", confirmPassword: "Secret-321" })).toEqual({
      confirmPassword: [MSG_PASSWORDS_DO_NOT_MATCH],
    });
    expect(validateResetPassword({ password: "secret-123", confirmPassword: "secret-123" })).toEqual({});
    expect(validateResetPassword({ password: "Secret", confirmPassword: "Secret" })).toEqual({ password: [MSG_PASSWORD_MIN_8] });
  });
});
