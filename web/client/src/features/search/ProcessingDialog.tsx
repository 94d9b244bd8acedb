// The 'Processing Your Search' dialog (spec §2, §4, §8): walks through the simulated stages
// (10, 30, 60 % with waits of 1000, 1000 and 500 ms), then runs the real immediate search at
// 90 % and shows 100 % on success, then goes to the dashboard; a failure goes to /subscribe when
// the plan is full, else to the dashboard with the term back in its field for a signed-in user
// (the verification signs in), and to /login only for someone not signed in. Used after signup, for the topic typed before it. What the
// end says follows the answer: a digest on its way, a week without papers, or a term saved
// without a digest (the free digests are used).
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Dialog } from "@/components/ui/Dialog";
import { cn } from "@/components/ui/cn";
import { trackEvent } from "@/lib/analytics";
import { dashboardPath } from "@/lib/paths";
import { toast } from "@/state/toast";
import {
  classifySearchFailure,
  COMPLETE_STAGE_INDEX,
  describeSearchOutcome,
  MSG_DIGEST_ON_ITS_WAY,
  REDIRECT_AFTER_COMPLETE_MS,
  reportSearchFailure,
  runImmediateSearch,
  SEARCH_STAGES,
  SENDING_STAGE_INDEX,
  type ImmediateSearchAnswer,
  type SearchFailure,
} from "./immediateSearch";
import { clearPendingSearch, setPendingSearch } from "@/state/pendingSearch";
import { currentUser } from "@/state/session";

export interface ProcessingDialogProps {
  email: string;
  searchTerm: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Called once the search succeeded, just before the dialog leaves (after 1000 ms). */
  onComplete?: () => void;
}

export function ProcessingDialog({ email, searchTerm, open, onOpenChange, onComplete }: ProcessingDialogProps) {
  const navigate = useNavigate();
  const [stageIndex, setStageIndex] = useState(0);
  const [outcomeText, setOutcomeText] = useState(MSG_DIGEST_ON_ITS_WAY);
  const cancelRun = useRef<() => void>(() => {});
  // The run reads the newest callbacks without restarting when the parent re-renders.
  const latest = useRef({ navigate, onOpenChange, onComplete });
  latest.current = { navigate, onOpenChange, onComplete };

  useEffect(() => {
    if (!open) {
      setStageIndex(0);
      return;
    }
    let isCancelled = false;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const wait = (ms: number) => new Promise<void>((resolve) => timers.push(setTimeout(resolve, ms)));
    cancelRun.current = () => {
      isCancelled = true;
      timers.forEach(clearTimeout);
    };

    // What a failed search leads to: closed, told, and on to where the visitor can go on.
    const handleFailure = async (failure: SearchFailure, term: string) => {
      const { navigate: go, onOpenChange: setOpen } = latest.current;
      setOpen(false);
      await reportSearchFailure(failure, term, go);
      // A topic the account follows already: searched before, so on to the dashboard.
      if (failure.kind === "already-followed") {
        clearPendingSearch();
        go(dashboardPath(email));
        return;
      }
      if (failure.kind !== "other") return;
      if (currentUser.value) {
        // Signed in by the verification: the dashboard, with the term back in its field (and a
        // refused term's message there), never a sign-in form.
        setPendingSearch(term);
        go(dashboardPath(currentUser.value.email));
      } else {
        go("/login");
      }
    };

    const run = async () => {
      setStageIndex(0);
      for (let index = 0; index < SENDING_STAGE_INDEX; index += 1) {
        await wait(SEARCH_STAGES[index].waitAfterMs ?? 0);
        if (isCancelled) return;
        setStageIndex(index + 1);
      }
      let answer: ImmediateSearchAnswer;
      try {
        answer = await runImmediateSearch(email, searchTerm);
      } catch (error) {
        if (!isCancelled) await handleFailure(classifySearchFailure(error), searchTerm);
        return;
      }
      if (isCancelled) return;
      const outcome = describeSearchOutcome(answer);
      setOutcomeText(outcome.description);
      setStageIndex(COMPLETE_STAGE_INDEX);
      clearPendingSearch();
      trackEvent("search_added");
      toast({ title: outcome.title, description: outcome.description, variant: outcome.variant });
      await wait(REDIRECT_AFTER_COMPLETE_MS);
      if (isCancelled) return;
      const { onComplete: complete, navigate: go } = latest.current;
      complete?.();
      go(dashboardPath(email));
    };

    void run();
    return () => cancelRun.current();
  }, [open, email, searchTerm]);

  const cancel = () => {
    cancelRun.current();
    onOpenChange(false);
  };

  const isComplete = stageIndex === COMPLETE_STAGE_INDEX;
  const percent = SEARCH_STAGES[stageIndex].percent;

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? onOpenChange(true) : cancel())}
      dismissible={false}
      widthClassName="max-w-md"
      title="Processing Your Search"
      description={
        <>
          Finding new papers about <span className="font-medium text-slate-900">{searchTerm}</span>.
        </>
      }
    >
      <div className="mt-5 space-y-2">
        <div className="flex items-center justify-between text-sm">
          <span className="font-medium text-slate-700">{SEARCH_STAGES[stageIndex].label}</span>
          <span data-testid="search-progress-percent" className="font-semibold text-brand-700">
            {percent}%
          </span>
        </div>
        <div
          role="progressbar"
          aria-label="Search progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
        >
          <div className="h-full rounded-full bg-brand-700 transition-[width] duration-500" style={{ width: `${percent}%` }} />
        </div>
      </div>

      <ol className="mt-5 space-y-2" aria-label="Search steps">
        {SEARCH_STAGES.map((stage, index) => {
          const isDone = index < stageIndex || isComplete;
          const isCurrent = index === stageIndex && !isComplete;
          return (
            <li
              key={stage.label}
              aria-current={isCurrent ? "step" : undefined}
              className={cn(
                "flex items-center gap-2 text-sm",
                isDone ? "text-slate-900" : isCurrent ? "font-medium text-brand-700" : "text-slate-400",
              )}
            >
              <span
                aria-hidden="true"
                className={cn(
                  "flex h-5 w-5 items-center justify-center rounded-full border text-xs",
                  isDone ? "border-brand-700 bg-brand-700 text-white" : isCurrent ? "animate-pulse border-brand-700" : "border-slate-300",
                )}
              >
                {isDone ? "✓" : ""}
              </span>
              {stage.label}
            </li>
          );
        })}
      </ol>

      {isComplete ? (
        <p role="status" className="mt-5 rounded-md bg-green-50 p-3 text-sm font-medium text-green-800">
          {outcomeText}
        </p>
      ) : (
        <div className="mt-6 flex justify-end">
          <Button variant="outline" onClick={cancel}>
            Cancel
          </Button>
        </div>
      )}
    </Dialog>
  );
}
