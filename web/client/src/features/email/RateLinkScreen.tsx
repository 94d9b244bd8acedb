// /rate?token=… — a digest mail's rating link ("Relevant", "Not relevant", "More like this" under
// each paper). Opening it records nothing (mail scanners open links too): the page asks the server
// what the link stands for and offers one button that records it, then thanks the reader, with a
// link to the dashboard. A broken, expired or orphaned link shows the server's word on it. While
// the page shows the paper, its citation is in the document's head as meta tags, so a reference
// manager's browser connector can save it from here.
import { useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { Button, buttonClasses } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Spinner } from "@/components/ui/Spinner";
import { ApiError, errorMessage } from "@/lib/api";
import { confirmRatingLink, lookAtRatingLink, type LinkVerdict, type RatingLink } from "./api";
import { useCitationMeta } from "./citationMeta";

export const MSG_INVALID_RATING_LINK = "This rating link is not valid.";
const MSG_RATING_FAILED = "The rating could not be saved. Please try again later.";

const ACTIONS: Record<LinkVerdict, string> = {
  relevant: "Mark as relevant to",
  notRelevant: "Mark as not relevant to",
  moreLikeThis: "Ask for more like this in",
};

/** The confirmation button's words, e.g. 'Mark as not relevant to “CRISPR”'. */
export function confirmLabel(link: RatingLink): string {
  return `${ACTIONS[link.verdict] ?? "Rate for"} “${link.term}”`;
}

type Stage =
  | { state: "loading" }
  | { state: "asking"; link: RatingLink; saving: boolean }
  | { state: "done"; link: RatingLink }
  | { state: "failed"; message: string };

export function RateLinkScreen() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get("token")?.trim() ?? "";
  const [stage, setStage] = useState<Stage>({ state: "loading" });

  useEffect(() => {
    if (!token) return;
    let isCurrent = true;
    setStage({ state: "loading" });
    lookAtRatingLink(token).then(
      (link) => {
        if (isCurrent) setStage({ state: "asking", link, saving: false });
      },
      (error: unknown) => {
        if (isCurrent) setStage({ state: "failed", message: failureMessage(error) });
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [token]);

  const confirm = async (link: RatingLink) => {
    setStage({ state: "asking", link, saving: true });
    try {
      await confirmRatingLink(token);
      setStage({ state: "done", link });
    } catch (error) {
      setStage({ state: "failed", message: failureMessage(error) });
    }
  };

  const shown: Stage = token ? stage : { state: "failed", message: MSG_INVALID_RATING_LINK };
  useCitationMeta(shown.state === "asking" || shown.state === "done" ? shown.link.citation : null);

  return (
    <main className="flex flex-1 items-center justify-center px-4 py-16">
      <Card className="w-full max-w-md p-8">
        {shown.state === "loading" ? (
          <div className="flex flex-col items-center gap-4 py-6 text-center">
            <Spinner label="Reading the rating link" />
          </div>
        ) : shown.state === "asking" ? (
          <div className="space-y-4 text-center">
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Rate this paper</h1>
            <p className="text-sm text-slate-700">{shown.link.title}</p>
            <Button onClick={() => void confirm(shown.link)} aria-busy={shown.saving} aria-disabled={shown.saving}>
              {confirmLabel(shown.link)}
            </Button>
            <p className="text-xs text-slate-500">Nothing is saved until you press the button.</p>
          </div>
        ) : shown.state === "done" ? (
          <div className="space-y-4 text-center">
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Rating saved</h1>
            <p role="status" className="text-sm text-slate-700">{`Thanks — your digests for “${shown.link.term}” will learn from this.`}</p>
            <Link to="/dashboard" className={buttonClasses("primary", "md")}>
              Go to your dashboard
            </Link>
          </div>
        ) : (
          <div className="space-y-4 text-center">
            <h1 className="text-2xl font-semibold tracking-tight text-slate-900">This link cannot rate a paper</h1>
            <p role="alert" className="text-sm text-slate-600">
              {shown.message}
            </p>
            <Link to="/dashboard" className={buttonClasses("outline", "md")}>
              Go to your dashboard
            </Link>
          </div>
        )}
      </Card>
    </main>
  );
}

/** The server's word on a refused link (invalid, expired, its term or digest gone); else a generic text. */
function failureMessage(error: unknown): string {
  if (error instanceof ApiError && [400, 404, 410, 429].includes(error.status)) return errorMessage(error, MSG_INVALID_RATING_LINK);
  return MSG_RATING_FAILED;
}
