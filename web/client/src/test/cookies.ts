// Cookie helpers shared by the consent tests (not used by the app).

/** Sets each `name=value` entry as a cookie for path /. */
export function setCookies(...entries: string[]) {
  for (const entry of entries) document.cookie = `${entry}; path=/`;
}

/** The names of the cookies the page can see, sorted. */
export function cookieNames(): string[] {
  return document.cookie
    .split(";")
    .map((entry) => entry.split("=")[0].trim())
    .filter(Boolean)
    .sort();
}

export function clearAllCookies() {
  for (const name of cookieNames()) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
}
