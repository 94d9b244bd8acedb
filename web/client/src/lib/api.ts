// The only place the client calls fetch. Every request sends credentials; bodies are JSON; a
// non-OK answer raises ApiError whose message is "status: JSON body" (spec §8). The shapes of
// requests, answers and error bodies are the server's, generated into `@/api/contract`.
import type { ErrorBody, ErrorCode } from "@/api/contract";

export type { ErrorBody, ErrorCode };

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    super(`${status}: ${JSON.stringify(body)}`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }

  /** A field of the JSON error body (`ErrorBody`), e.g. `message` or `requiresVerification`. */
  field<K extends keyof ErrorBody>(name: K): ErrorBody[K] | undefined {
    if (this.body && typeof this.body === "object" && name in this.body) {
      return (this.body as Partial<ErrorBody>)[name];
    }
    return undefined;
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return response.statusText;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function apiRequest<T = unknown>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    credentials: "include",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await readBody(response);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}

export const getJson = <T>(url: string) => apiRequest<T>("GET", url);

const onceRequests = new Map<string, Promise<unknown>>();

/**
 * `GET url` at most once for the life of the page, for calls that use up a single-use token
 * (verification, unsubscribe links): React StrictMode's second effect run, or a remount, shares
 * the first call's answer.
 */
export function getJsonOnce<T>(url: string): Promise<T> {
  let request = onceRequests.get(url);
  if (!request) {
    request = getJson<T>(url);
    onceRequests.set(url, request);
  }
  return request as Promise<T>;
}

/** For tests: forget the calls `getJsonOnce` made. */
export function forgetOnceRequests() {
  onceRequests.clear();
}
export const postJson = <T>(url: string, body: unknown = {}) => apiRequest<T>("POST", url, body);

/**
 * The per-field messages of a 400 `validation_failed` answer (`errors: [{ field, message }]`):
 * field name → its messages; empty for any other error.
 */
export function fieldErrors(error: unknown): Record<string, string[]> {
  if (!(error instanceof ApiError)) return {};
  const details: Array<{ field?: unknown; message?: unknown }> | undefined = error.field("errors");
  if (!Array.isArray(details)) return {};
  const errors: Record<string, string[]> = {};
  for (const detail of details) {
    if (typeof detail?.field !== "string" || typeof detail.message !== "string") continue;
    (errors[detail.field] ??= []).push(detail.message);
  }
  return errors;
}

/** The server's message in an error, or `fallback` when there is none. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) {
    const message = error.field("message");
    if (typeof message === "string" && message) return message;
  }
  return fallback;
}

/** The machine-readable `code` of an error answer (`card_declined`, …), if the server gave one. */
export function errorCode(error: unknown): ErrorCode | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const code = error.field("code");
  return typeof code === "string" ? code : undefined;
}

/** A file the server sent as an attachment: its bytes and the name it gave. */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/**
 * `GET url` for a file: the body as a Blob and the name from `Content-Disposition`
 * (`fallbackName` when none is given). A non-OK answer raises ApiError as other calls do.
 */
export async function fetchFile(url: string, fallbackName: string): Promise<DownloadedFile> {
  const response = await fetch(url, { method: "GET", credentials: "include" });
  if (!response.ok) throw new ApiError(response.status, await readBody(response));
  return { blob: await response.blob(), filename: attachmentName(response.headers.get("Content-Disposition")) ?? fallbackName };
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header, without any path. */
export function attachmentName(header: string | null): string | null {
  if (!header) return null;
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header);
  if (!match) return null;
  let name = match[1].trim();
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: the name as it came.
  }
  return name.split(/[\\/]/).pop() || null;
}
