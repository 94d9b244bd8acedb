// The search-term rules (spec §5), as the server checks them (engine's search_term.rs), so that a
// page can tell the same message before anything is sent: the landing page's topic field before
// sign-up, and the dashboard's term field. The server checks again; its answer is the last word.
export const MSG_TOO_SHORT = "Search term must be at least 3 characters";
export const MSG_TOO_LONG = "Search term must be less than 200 characters";
export const MSG_INJECTION = "Search term contains invalid characters or patterns";
export const MSG_UNSUPPORTED = "Search term contains unsupported characters";

const MIN_CHARS = 3;
const MAX_CHARS = 200;

const ALLOWED_PUNCTUATION = new Set(["-", "_", ".", ",", "(", ")", "&", "+", "'", '"', ":", "/"]);
const FORBIDDEN_SEQUENCES = [";", "--", "/*", "*/", "#", "<", ">", "\\", "`"];
const STATEMENT_SHAPES = [
  ["union", "select"],
  ["union", "all"],
  ["select", "from"],
  ["insert", "into"],
  ["delete", "from"],
  ["drop", "table"],
  ["drop", "database"],
  ["alter", "table"],
  ["truncate", "table"],
  ["create", "table"],
  ["exec", "xp_cmdshell"],
].map((pair) => pair.join(" "));
const SCRIPT_CALLS = ["javascript:", "vbscript:", "data:text", "eval(", "alert(", "exec(", "execute(", "sleep(", "benchmark("];

/** Characters that show nothing (engine's validation.rs, INVISIBLE). */
const INVISIBLE: ReadonlyArray<readonly [number, number]> = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x0600, 0x0605],
  [0x061c, 0x061c],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x0890, 0x0891],
  [0x08e2, 0x08e2],
  [0x115f, 0x1160],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x3164, 0x3164],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];

const WHITESPACE = /^\p{White_Space}$/u;
const ALPHANUMERIC = /^[\p{Alphabetic}\p{N}]$/u;
const CONTROL = /^\p{Cc}$/u;

/** `text` without leading and trailing whitespace (Unicode White_Space, as the server trims). */
export function trimTerm(text: string): string {
  return text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
}

/** The message of the first rule `text` breaks, or null when it is a valid search term. */
/** Whether two terms are one topic: equal but for letter case and spacing (the server's `is_same_term`). */
export function isSameTerm(one: string, other: string): boolean {
  const words = (term: string) => term.toLowerCase().split(/\s+/u).filter((word) => word.length > 0).join(" ");
  return words(one) === words(other);
}

export function searchTermError(text: string): string | null {
  const term = trimTerm(text);
  const length = Array.from(term).length;
  if (length < MIN_CHARS) return MSG_TOO_SHORT;
  if (length > MAX_CHARS) return MSG_TOO_LONG;
  if (looksLikeInjection(term)) return MSG_INJECTION;
  if (!Array.from(term).every(isAllowed)) return MSG_UNSUPPORTED;
  return null;
}

function isInvisible(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return INVISIBLE.some(([first, last]) => code >= first && code <= last);
}

function isAllowed(character: string): boolean {
  const spaceWithinALine = WHITESPACE.test(character) && !CONTROL.test(character) && character !== "\u2028" && character !== "\u2029";
  return (ALPHANUMERIC.test(character) || spaceWithinALine || ALLOWED_PUNCTUATION.has(character)) && !isInvisible(character);
}

function looksLikeInjection(term: string): boolean {
  const lower = term.toLowerCase();
  if (FORBIDDEN_SEQUENCES.some((sequence) => lower.includes(sequence))) return true;
  const compact = Array.from(lower)
    .filter((character) => !WHITESPACE.test(character))
    .join("");
  if (SCRIPT_CALLS.some((call) => compact.includes(call)) || hasEventHandler(compact)) return true;
  const words = lower.split(/[^\p{Alphabetic}\p{N}_]+/u).filter((word) => word.length > 0);
  for (let index = 0; index + 1 < words.length; index += 1) {
    if (STATEMENT_SHAPES.includes(`${words[index]} ${words[index + 1]}`)) return true;
  }
  // A comparison next to a boolean operator or a quote: `or 1=1`, `' or 'a'='a`, `and x!=y`.
  const compares = lower.includes("=");
  return compares && (words.some((word) => ["or", "and", "not", "xor"].includes(word)) || lower.includes("'") || lower.includes('"'));
}

/** `onerror=`, `onload=`…: an HTML event attribute. */
function hasEventHandler(compact: string): boolean {
  for (let start = compact.indexOf("on"); start !== -1; start = compact.indexOf("on", start + 1)) {
    const rest = compact.slice(start + 2);
    const name = /^[a-z]*/i.exec(rest)?.[0] ?? "";
    if (name.length >= 3 && rest.slice(name.length).startsWith("=")) return true;
  }
  return false;
}
