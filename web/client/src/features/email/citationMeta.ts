// A paper's citation as <meta name="citation_title" content="…"> tags (Highwire Press tags, which
// the browser connectors of Zotero, Mendeley and EndNote read), in the document's head while a
// page shows the paper, and gone when it stops.
import { useEffect } from "react";

const MARKER = "data-citation-meta";

/** Puts `citation`'s `[name, content]` pairs into <head> as meta tags until it changes or the component unmounts. */
export function useCitationMeta(citation: ReadonlyArray<readonly [string, string]> | null | undefined) {
  // By value: a new array of the same tags changes nothing.
  const key = citation && citation.length > 0 ? JSON.stringify(citation) : null;
  useEffect(() => {
    if (!key) return;
    const pairs = JSON.parse(key) as Array<[string, string]>;
    const added = pairs.map(([name, content]) => {
      const meta = document.createElement("meta");
      meta.setAttribute("name", name);
      meta.setAttribute("content", content);
      meta.setAttribute(MARKER, "");
      document.head.appendChild(meta);
      return meta;
    });
    return () => added.forEach((meta) => meta.remove());
  }, [key]);
}
