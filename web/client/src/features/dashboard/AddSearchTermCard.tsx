// The 'Add New Search Term' card (spec §2 Dashboard, §4 immediate search, §5 search input,
// §8 immediate search and success toasts, §9 limits and toast durations). A new term is searched
// at once and its digest mailed; while that runs the queue shows it as 'Searching...'. A term the
// server refuses as text, or as a topic the user follows already, gets its message at the field.
// A term kept from before sign-in, or from a trip to /subscribe, is put back into the input.
// Papers the researcher knows may seed the new term (folded away until opened): a bad one refuses
// the whole request, with the server's word on each bad line under them; once the term is made,
// the papers found are listed.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { trackEvent } from "@/lib/analytics";
import { NO_SEEDS, SeedPapersField, seedErrors, SeedsFound, seedsRequest, type SeedPaperView, type SeedsValue } from "@/features/seeds";
import { searchTermError } from "@/lib/searchTerm";
import {
  classifySearchFailure,
  describeSearchOutcome,
  reportSearchFailure,
  runImmediateSearch,
  type ImmediateSearchAnswer,
} from "@/features/search";
import { clearPendingSearch, getPendingSearch, setPendingSearch } from "@/state/pendingSearch";
import { refreshCurrentUser, type CurrentUser, type Tier } from "@/state/session";
import { dismissToast, QUEUED_TOAST_DURATION_MS, RESTORE_TOAST_DURATION_MS, toast } from "@/state/toast";
import { TERM_LIMITS } from "./api";
import { digests, loadDigests, loadSearchTerms, preferences, searchTerms } from "./store";
import { TIER_LABELS } from "./tier";

/** While a search runs the queue is reloaded this often, so the new term shows as 'Searching...'. */
export const QUEUE_REFRESH_MS = 2000;

/** The query parameter of the post-login address that carries a pending term (spec §2). */
const PENDING_SEARCH_PARAM = "pendingSearch";

const INPUT_ID = "new-search-term";
const ERROR_ID = `${INPUT_ID}-error`;

export function AddSearchTermCard({ user }: { user: CurrentUser }) {
  const navigate = useNavigate();
  const [text, setText] = useState("");
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  const [seeds, setSeeds] = useState<SeedsValue>(NO_SEEDS);
  const [seedMessages, setSeedMessages] = useState<string[]>([]);
  const [seeded, setSeeded] = useState<SeedPaperView[]>([]);
  const isPending = useRestoredPendingSearch(setText, setFieldError);
  useQueueRefreshWhile(searching, user.id);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const term = text.trim();
    if (!term || searching) return;
    // The spec's rules (§5), told at the field before anything is sent; the server checks again.
    const refusal = searchTermError(term);
    if (refusal) {
      setFieldError(refusal);
      return;
    }
    // Sent now; a refused payment keeps it again for after the upgrade.
    isPending.current = false;
    clearPendingSearch();
    setSearching(true);
    setFieldError(null);
    setSeedMessages([]);
    setSeeded([]);
    setText("");
    toast({
      title: "Search Queued",
      description: "We'll email you the digest as soon as the search completes.",
      durationMs: QUEUED_TOAST_DURATION_MS,
    });
    let answer: ImmediateSearchAnswer;
    try {
      answer = await runImmediateSearch(user.email, term, seedsRequest(seeds));
    } catch (error) {
      setSearching(false);
      setSeedMessages(seedErrors(error));
      // Back into the input, so a term the server refused can be corrected.
      setText((current) => current || term);
      const failure = classifySearchFailure(error);
      if (failure.kind === "other" && failure.fieldMessage) setFieldError(failure.fieldMessage);
      if (failure.kind === "already-followed") setFieldError(failure.message);
      await reportSearchFailure(failure, term, navigate);
      // A refused payment stored nothing and leaves the dashboard; otherwise the term may now be failed.
      if (failure.kind !== "payment-required") await loadSearchTerms(user.id);
      return;
    }
    setSearching(false);
    setSeeds(NO_SEEDS);
    setSeeded(answer.seeded ?? []);
    trackEvent("search_added");
    const outcome = describeSearchOutcome(answer);
    toast({ title: outcome.title, description: outcome.description, variant: outcome.variant });
    // The account's free digests count may have changed too.
    await Promise.all([loadSearchTerms(user.id), loadDigests(user.id), refreshCurrentUser().catch(() => null)]);
  };

  return (
    <SectionCard
      title="Add New Search Term"
      intro={
        <>
          <p className="text-sm text-slate-600">Tell us a research topic and we will email you the newest papers about it, every week.</p>
          <FirstDigestNote />
        </>
      }
      contentClassName="space-y-3"
    >
      <form onSubmit={submit} className="space-y-3">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
          <div className="flex-1">
            <Field id={INPUT_ID} label="Research topic" error={fieldError ?? undefined}>
              <Input
                id={INPUT_ID}
                value={text}
                onChange={(event) => {
                  setText(event.target.value);
                  setFieldError(null);
                  // A restored term stays kept, as edited, until it is added (or emptied).
                  if (isPending.current) {
                    if (event.target.value.trim()) setPendingSearch(event.target.value);
                    else clearPendingSearch();
                  }
                }}
                placeholder="e.g. CRISPR base editing"
                autoComplete="off"
                aria-invalid={fieldError ? true : undefined}
                aria-describedby={fieldError ? ERROR_ID : undefined}
              />
            </Field>
          </div>
          {/* Lined up with the input, below its label, whether or not a message shows under it. */}
          <Button type="submit" disabled={searching || !text.trim()} className="sm:mt-[1.625rem]">
            {searching ? "Searching..." : "Add"}
          </Button>
        </div>
        <SeedPapersField value={seeds} onChange={setSeeds} errors={seedMessages} disabled={searching} collapsible />
      </form>
      <SeedsFound seeded={seeded} />
      <TermUsage tier={user.subscriptionTier} />
    </SectionCard>
  );
}

/**
 * While the user has no digest: when the first one comes (at once, when a term is added) and the
 * next ones (weekly, on the delivery day). Gone once a digest exists.
 */
function FirstDigestNote() {
  useSignals();
  if (digests.value?.length !== 0) return null;
  const day = preferences.value?.deliveryDay;
  const weekly = day ? `every ${day.charAt(0).toUpperCase()}${day.slice(1)}` : "every week on your delivery day";
  return (
    <p className="text-sm text-slate-600">{`Your first digest is emailed as soon as you add a search term; after that, a new one arrives ${weekly}.`}</p>
  );
}

/** "1 of 1 search terms used on the Free plan": the active terms against the plan's limit (spec §9). */
function TermUsage({ tier }: { tier: Tier }) {
  useSignals();
  const terms = searchTerms.value;
  if (!terms) return null;
  const activeCount = terms.filter((term) => term.isActive).length;
  return <p className="text-sm text-slate-500">{`${activeCount} of ${TERM_LIMITS[tier]} search terms used on the ${TIER_LABELS[tier]} plan`}</p>;
}

/**
 * Once per mount: a term kept in session storage, or else given as ?pendingSearch=, goes into
 * the input with a toast saying to click Add (or, if the rules refuse it, with their message at
 * the field); the parameter is dropped. The term stays kept in
 * session storage until it is added, so a trip away (e.g. to pay for a bigger plan) and back
 * brings it back again; the toast goes with the card, so it never speaks of a field left
 * behind. Answers whether the field holds a kept term.
 */
function useRestoredPendingSearch(setText: (term: string) => void, setFieldError: (message: string | null) => void) {
  const [searchParams, setSearchParams] = useSearchParams();
  const isDone = useRef(false);
  const isPending = useRef(false);
  const restoredTerm = useRef<string | null>(null);
  const toastId = useRef<string | null>(null);
  const toastDismissal = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    // StrictMode runs effects twice on mount; the ref survives, so the second run stops here.
    if (isDone.current) return;
    isDone.current = true;
    const fromUrl = searchParams.get(PENDING_SEARCH_PARAM)?.trim() || null;
    const term = getPendingSearch() ?? fromUrl;
    if (!term) return;
    setPendingSearch(term);
    isPending.current = true;
    if (searchParams.has(PENDING_SEARCH_PARAM)) {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.delete(PENDING_SEARCH_PARAM);
          return next;
        },
        { replace: true },
      );
    }
    setText(term);
    // A term the rules refuse (typed before sign-up, refused after verification) comes back
    // with the rule's message at the field instead of an invitation to click Add.
    const refusal = searchTermError(term);
    if (refusal) setFieldError(refusal);
    else restoredTerm.current = term;
  }, [searchParams, setSearchParams, setText, setFieldError]);

  // Declared after the restoring effect, so it runs after it. The dismissal waits a tick: StrictMode
  // unmounts and mounts again at once, and the toast stays for that second mount.
  useEffect(() => {
    const term = restoredTerm.current;
    if (!term) return;
    clearTimeout(toastDismissal.current);
    toastId.current ??= toast({ title: "Search term restored", description: `Click Add to search for "${term}".`, durationMs: RESTORE_TOAST_DURATION_MS });
    return () => {
      toastDismissal.current = setTimeout(() => {
        if (toastId.current) dismissToast(toastId.current);
        toastId.current = null;
      }, 0);
    };
  }, []);

  return isPending;
}

/** Reloads the queue now and every QUEUE_REFRESH_MS while `searching` holds. */
function useQueueRefreshWhile(searching: boolean, userId: string) {
  useEffect(() => {
    if (!searching) return;
    void loadSearchTerms(userId);
    const timer = setInterval(() => void loadSearchTerms(userId), QUEUE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [searching, userId]);
}
