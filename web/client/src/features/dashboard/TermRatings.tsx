// A term's ratings on the dashboard: "Ratings (3)" opens the list (the paper's title, the verdict,
// a Remove button). Loaded when the term is shown; a removed rating leaves the list at once.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { verdictLabel } from "./api";
import { forgetRating, loadRatings, ratings } from "./store";

export function TermRatings({ termId, term }: { termId: string; term: string }) {
  useSignals();
  const [open, setOpen] = useState(false);
  const listId = useId();
  const list = ratings.value[termId];

  useEffect(() => {
    loadRatings(termId).catch(() => undefined);
  }, [termId]);

  if (!list) return null;

  const remove = async (paperKey: string, title: string) => {
    try {
      await forgetRating(termId, paperKey);
      toast({ title: "Rating Removed", description: `"${title}" no longer teaches "${term}".`, variant: "success" });
    } catch (error) {
      toast({ title: "Remove Failed", description: errorMessage(error, "The rating could not be removed."), variant: "destructive" });
    }
  };

  return (
    <div className="space-y-1.5">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
        className="text-xs font-medium text-brand-700 hover:underline"
      >
        {`Ratings (${list.length})`}
      </button>
      {open ? (
        list.length === 0 ? (
          <p id={listId} className="text-xs text-slate-500">
            No ratings yet. Rate papers in a digest to teach this term what you want.
          </p>
        ) : (
          <ul id={listId} aria-label={`Ratings of ${term}`} className="space-y-1">
            {list.map((rating) => (
              <li key={rating.paperKey} className="flex items-center justify-between gap-3 rounded-md bg-slate-50 px-2 py-1 text-xs">
                <span className="min-w-0 break-words text-slate-800">{rating.title}</span>
                <span className="flex shrink-0 items-center gap-2">
                  <span className="rounded-full bg-white px-2 py-0.5 font-medium text-slate-700">{verdictLabel(rating.verdict)}</span>
                  <Button variant="ghost" size="sm" aria-label={`Remove rating of ${rating.title}`} onClick={() => void remove(rating.paperKey, rating.title)}>
                    Remove
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </div>
  );
}
