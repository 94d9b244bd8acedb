// A term's ratings on the dashboard: "Ratings (3)" opens the list of papers rated from its digests
// (the paper's title, the verdict, a Remove button), "Seed papers (2)" the papers it was seeded
// from (each removable) with the form that adds more. Loaded when the term is shown; a removed
// rating or seed leaves its list at once.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useState } from "react";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { verdictLabel, type Rating } from "./api";
import { forgetRating, loadRatings, ratings } from "./store";
import { TermSeedPapers } from "./TermSeedPapers";

const toggleClass = "text-xs font-medium text-brand-700 hover:underline";

export function TermRatings({ termId, term }: { termId: string; term: string }) {
  useSignals();
  const [ratingsOpen, setRatingsOpen] = useState(false);
  const [seedsOpen, setSeedsOpen] = useState(false);
  const listId = useId();
  const seedsId = useId();
  const list = ratings.value[termId];

  useEffect(() => {
    loadRatings(termId).catch(() => undefined);
  }, [termId]);

  if (!list) return null;
  const rated = list.filter((rating) => !rating.seeded);
  const seeds = list.filter((rating) => rating.seeded);

  const remove = async ({ paperKey, title, seeded }: Rating) => {
    try {
      await forgetRating(termId, paperKey);
      toast(
        seeded
          ? { title: "Seed Paper Removed", description: `"${title}" no longer seeds "${term}".`, variant: "success" }
          : { title: "Rating Removed", description: `"${title}" no longer teaches "${term}".`, variant: "success" },
      );
    } catch (error) {
      toast({ title: "Remove Failed", description: errorMessage(error, "The rating could not be removed."), variant: "destructive" });
    }
  };

  return (
    <div className="space-y-1.5">
      <div className="flex flex-wrap gap-x-4 gap-y-1">
        <button type="button" aria-expanded={ratingsOpen} aria-controls={listId} onClick={() => setRatingsOpen(!ratingsOpen)} className={toggleClass}>
          {`Ratings (${rated.length})`}
        </button>
        <button type="button" aria-expanded={seedsOpen} aria-controls={seedsId} onClick={() => setSeedsOpen(!seedsOpen)} className={toggleClass}>
          {`Seed papers (${seeds.length})`}
        </button>
      </div>
      {ratingsOpen ? (
        rated.length === 0 ? (
          <p id={listId} className="text-xs text-slate-500">
            No ratings yet. Rate papers in a digest to teach this term what you want.
          </p>
        ) : (
          <ul id={listId} aria-label={`Ratings of ${term}`} className="space-y-1">
            {rated.map((rating) => (
              <li key={rating.paperKey} className="flex items-center justify-between gap-3 rounded-md bg-slate-50 px-2 py-1 text-xs">
                <span className="min-w-0 break-words text-slate-800">{rating.title}</span>
                <span className="flex shrink-0 items-center gap-2">
                  <span className="rounded-full bg-white px-2 py-0.5 font-medium text-slate-700">{verdictLabel(rating.verdict)}</span>
                  <Button variant="ghost" size="sm" aria-label={`Remove rating of ${rating.title}`} onClick={() => void remove(rating)}>
                    Remove
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {seedsOpen ? <TermSeedPapers id={seedsId} termId={termId} term={term} seeds={seeds} onRemove={(seed) => void remove(seed)} /> : null}
    </div>
  );
}
