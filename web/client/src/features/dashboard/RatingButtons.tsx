// A paper's three rating buttons in the digest dialog: "Relevant", "Not relevant", "More like
// this". The term's current verdict shows pressed; pressing another records it, pressing the
// pressed one removes the rating. Busy while the server answers, never disabled (focus stays).
// The pressed one is filled and ticked at full strength (never faded, which reads as disabled);
// each is at least 44 px tall on a phone, a finger's target.
import { useRef, useState } from "react";
import { cn } from "@/components/ui/cn";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { VERDICTS, type Verdict } from "./api";
import { setRating } from "./store";

export interface RatingButtonsProps {
  termId: string;
  digestId: string;
  paperKey: string;
  title: string;
  /** The term's current verdict on the paper, if any. */
  current: Verdict | null;
}

export function RatingButtons({ termId, digestId, paperKey, title, current }: RatingButtonsProps) {
  const [busy, setBusy] = useState(false);
  const isBusyNow = useRef(false);

  const press = async (verdict: Verdict) => {
    if (isBusyNow.current) return;
    isBusyNow.current = true;
    setBusy(true);
    try {
      await setRating(termId, digestId, paperKey, current === verdict ? null : verdict);
    } catch (error) {
      toast({ title: "Rating Failed", description: errorMessage(error, "The rating could not be saved. Please try again."), variant: "destructive" });
    } finally {
      isBusyNow.current = false;
      setBusy(false);
    }
  };

  return (
    <div role="group" aria-label={`Rate ${title}`} aria-busy={busy} className="flex flex-wrap gap-2 pt-1">
      {VERDICTS.map(({ verdict, label }) => {
        const pressed = current === verdict;
        return (
          <button
            key={verdict}
            type="button"
            aria-pressed={pressed}
            onClick={() => void press(verdict)}
            className={cn(
              "inline-flex min-h-11 items-center gap-1.5 rounded-full border px-4 text-sm font-medium transition-colors sm:min-h-8 sm:px-3 sm:text-xs",
              "focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2",
              pressed ? "border-brand-700 bg-brand-700 text-white shadow-sm" : "border-slate-300 bg-white text-slate-700 hover:border-brand-500 hover:bg-brand-50",
              busy && "cursor-wait",
            )}
          >
            {pressed ? <span aria-hidden="true">✓</span> : null}
            {label}
          </button>
        );
      })}
    </div>
  );
}
