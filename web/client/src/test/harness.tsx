// Test helpers for screens: a router with marker routes that show where a screen navigated to,
// a fetch stub answering by "METHOD path", and what jsdom lacks for Radix (and File.text()).
import { render } from "@testing-library/react";
import { StrictMode, type ReactElement } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { toasts } from "@/state/toast";

/** Always rendered: the current path and query, for asserting navigation. */
function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

function Marker({ name }: { name: string }) {
  return <h1>{`${name} page`}</h1>;
}

const MARKER_PATHS = ["/", "/auth", "/login", "/signup", "/dashboard", "/subscribe"];

/** Renders `element` at `path` (its route is `routePath`), with marker pages on the other routes. */
export function renderRoute(element: ReactElement, { at, routePath, strict = false }: { at: string; routePath: string; strict?: boolean }) {
  const tree = (
    <MemoryRouter initialEntries={[at]}>
      <LocationProbe />
      <Routes>
        <Route path={routePath} element={element} />
        {MARKER_PATHS.filter((path) => path !== routePath).map((path) => (
          <Route key={path} path={path} element={<Marker name={path} />} />
        ))}
      </Routes>
    </MemoryRouter>
  );
  return render(strict ? <StrictMode>{tree}</StrictMode> : tree);
}

export interface Reply {
  status: number;
  body?: unknown;
}

type Handler = Reply | ((body: unknown) => Reply | Promise<Reply>);

/** Calls the site frame makes on its own (the footer reads the installation's config). */
const DEFAULT_HANDLERS: Record<string, Handler> = { "GET /api/config": { status: 200, body: {} } };

/**
 * Stubs fetch: each request is answered by the handler under "METHOD /path" (query ignored);
 * anything else fails the test with a 599. Returns the mock for call assertions.
 */
export function stubFetch(handlers: Record<string, Handler>) {
  const mock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://localhost");
    const key = `${init?.method ?? "GET"} ${url.pathname}`;
    const handler = handlers[key] ?? DEFAULT_HANDLERS[key];
    if (!handler) return new Response(JSON.stringify({ message: `unexpected ${key}` }), { status: 599 });
    const requestBody = init?.body ? JSON.parse(String(init.body)) : undefined;
    const reply = typeof handler === "function" ? await handler(requestBody) : handler;
    const text = reply.body === undefined ? null : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    return new Response(text, { status: reply.status, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", mock);
  return mock;
}

/** A handler that answers `reply` only once `release()` is called (a request in flight). */
export function held(reply: Reply) {
  let release: () => void = () => {};
  const handler = () =>
    new Promise<Reply>((resolve) => {
      release = () => resolve(reply);
    });
  return { handler, release: () => release() };
}

/** How many requests went to `path`. */
export function callsTo(mock: ReturnType<typeof stubFetch>, path: string): number {
  return mock.mock.calls.filter(([input]) => new URL(String(input), "http://localhost").pathname === path).length;
}

/** The JSON body of the first call to `path`. */
export function requestBody(mock: ReturnType<typeof stubFetch>, path: string): unknown {
  const call = mock.mock.calls.find(([input]) => new URL(String(input), "http://localhost").pathname === path);
  if (!call) throw new Error(`no request to ${path}`);
  return JSON.parse(String(call[1]?.body));
}

export function latestToast() {
  return toasts.value[0];
}

export function resetToasts() {
  toasts.value = [];
}

/** Radix measures elements (ResizeObserver) and captures pointers; jsdom has neither. */
export function polyfillBrowserApis() {
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  const proto = Element.prototype as unknown as Record<string, unknown>;
  proto.hasPointerCapture ??= () => false;
  proto.setPointerCapture ??= () => {};
  proto.releasePointerCapture ??= () => {};
  proto.scrollIntoView ??= () => {};
  // jsdom's File has no text(); the seed field reads its file with it.
  Blob.prototype.text ??= function (this: Blob) {
    return new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(reader.error);
      reader.readAsText(this);
    });
  };
}
