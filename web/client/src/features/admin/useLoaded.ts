// What a console tab shows: the answer of one GET, loaded when the tab opens and again on
// `reload()`; a failure keeps the last answer and gives the server's message.
import { useCallback, useEffect, useState } from "react";
import { errorMessage } from "@/lib/api";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Loads with `load` (a stable function: module-level or memoised) on mount, when it changes, and on reload. */
export function useLoaded<T>(load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => {
        if (live) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (live) setState((previous) => ({ data: previous.data, error: errorMessage(error, "The server could not answer. Please try again."), loading: false }));
      },
    );
    return () => {
      live = false;
    };
  }, [load, version]);

  const reload = useCallback(() => setVersion((value) => value + 1), []);
  return { ...state, reload };
}
