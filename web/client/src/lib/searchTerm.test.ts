// The same cases as the server's own (engine's search_term.rs tests): the two must agree.
import { MSG_INJECTION, MSG_TOO_LONG, MSG_TOO_SHORT, MSG_UNSUPPORTED, isSameTerm, searchTermError } from "./searchTerm";

describe("searchTermError", () => {
  it.each([
    "CRISPR gene editing",
    "  single-cell RNA-seq  ",
    "Alzheimer's disease",
    '"gene therapy" AND cancer',
    "COVID-19 vaccines (mRNA)",
    "T-cell receptor: repertoire / diversity",
    "drug selection in malaria",
    "protein drop-out & aggregation",
    "Schrödinger equation",
    "β-amyloid + tau",
    "gene\u00a0editing",
    "생물학 연구",
  ])("accepts %j", (topic) => {
    expect(searchTermError(topic)).toBeNull();
  });

  it("checks the length after trimming, in characters", () => {
    expect(searchTermError("ab")).toBe(MSG_TOO_SHORT);
    expect(searchTermError("   ab   ")).toBe(MSG_TOO_SHORT);
    expect(searchTermError("")).toBe(MSG_TOO_SHORT);
    expect(searchTermError("abc")).toBeNull();
    expect(searchTermError("a".repeat(200))).toBeNull();
    expect(searchTermError("a".repeat(201))).toBe(MSG_TOO_LONG);
    expect(searchTermError("é".repeat(200))).toBeNull();
    expect(searchTermError("𝛽".repeat(200))).toBeNull();
  });

  it.each([
    "cancer; DROP TABLE users",
    "cancer' OR '1'='1",
    "x or 1=1",
    "gene -- comment",
    "gene /* comment */",
    "tumor # note",
    "1 UNION SELECT password",
    "insert into users values",
    "<script>alert(1)</script>",
    "<b>x</b>",
    "javascript:alert(1)",
    "img onerror=steal()",
    "a > b",
    "eval (document)",
  ])("refuses the injection-like %j", (attack) => {
    expect(searchTermError(attack)).toBe(MSG_INJECTION);
  });

  it.each([
    "gene\r\nBcc: all",
    "gene\nX-Injected: yes",
    "gene\tediting",
    "gene\u2028editing",
    "gene\u0085editing",
    "gene\u200bediting",
    "gene\u202eediting",
    "gene\ufeffediting",
    "\u3164\u3164\u3164",
    "gene\u{e0041}editing",
    "cancer!",
    "gene@home",
    "p53 = tumour",
    "50% survival",
    "what?",
    "tilde~",
    "a*b",
    "brackets [x]",
    "{braces}",
  ])("refuses the unsupported %j", (term) => {
    expect(searchTermError(term)).toBe(MSG_UNSUPPORTED);
  });
});

describe("isSameTerm", () => {
  it("reads case and spacing as the server does", () => {
    expect(isSameTerm("CRISPR  Base\tediting ", "crispr base editing")).toBe(true);
    expect(isSameTerm("gene\u00a0editing", "gene editing")).toBe(true);
    expect(isSameTerm("base editing", "prime editing")).toBe(false);
    expect(isSameTerm("baseediting", "base editing")).toBe(false);
  });
});
