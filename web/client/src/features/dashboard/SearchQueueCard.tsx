// The 'Your Search Queue' card (spec §2 Dashboard, §4 search term display, §8 dashboard toasts):
// the user's search terms with their status, whether they are active and when they last and
// next run, its exclusion words, its ratings and seed papers, its history as a citation file and
// its lab channel; Edit turns a row into inputs (the text, the words to exclude) with Save and
// Cancel (what the server refuses gets its message at its input), Delete asks first.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";
import { cn } from "@/components/ui/cn";
import { errorMessage, fieldErrors } from "@/lib/api";
import { formatDate } from "@/lib/dates";
import type { CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { deleteSearchTerm, termCitationsUrl, updateSearchTerm, type SearchTerm } from "./api";
import { CitationLinks } from "./CitationLinks";
import { ConfirmDialog } from "./ConfirmDialog";
import { LabChannel } from "./LabChannel";
import { loadError, loadSearchTerms, searchTerms } from "./store";
import { Loaded } from "./Loaded";
import { TermRatings } from "./TermRatings";

/** Exclusion words as typed ("mouse, in-vitro zebrafish"): split at commas and spaces. */
export function parseExcludeWords(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((word) => word.trim())
    .filter((word) => word.length > 0);
}

/** What a term's status reads as (spec §4); any status the client does not know is pending. */
export function statusLabel(status: string): string {
  switch (status) {
    case "processing":
      return "Searching...";
    case "completed":
      return "Complete";
    case "failed":
      return "Failed";
    default:
      return "Pending";
  }
}

export function SearchQueueCard({ user }: { user: CurrentUser }) {
  useSignals();
  const terms = searchTerms.value;
  const failure = loadError.value.searchTerms;
  const [editingId, setEditingId] = useState<string | null>(null);
  const [termToDelete, setTermToDelete] = useState<SearchTerm | null>(null);
  const [deleting, setDeleting] = useState(false);

  const confirmDelete = async () => {
    if (!termToDelete) return;
    setDeleting(true);
    try {
      await deleteSearchTerm(termToDelete.id);
      toast({ title: "Search Term Deleted", description: `"${termToDelete.term}" was removed from your queue.`, variant: "success" });
    } catch (error) {
      toast({ title: "Delete Failed", description: errorMessage(error, "The search term could not be deleted."), variant: "destructive" });
    }
    setDeleting(false);
    setTermToDelete(null);
    await loadSearchTerms(user.id);
  };

  return (
    <>
      <SectionCard
        title="Your Search Queue"
        intro={<p className="text-sm text-slate-600">Every active term is searched again each week.</p>}
        contentClassName="space-y-3"
      >
        <Loaded value={terms} error={failure} spinnerLabel="Loading your search terms">
          {(loaded) =>
            loaded.length === 0 ? (
              <p className="py-4 text-sm text-slate-600">No search terms yet. Add one above to get your first digest.</p>
            ) : (
              <ul aria-label="Search terms" className="divide-y divide-slate-100">
                {loaded.map((term) =>
                  term.id === editingId ? (
                    <li key={term.id} className="py-4">
                      <SearchTermEditor term={term} userId={user.id} onClose={() => setEditingId(null)} />
                    </li>
                  ) : (
                    <SearchTermRow key={term.id} term={term} user={user} onEdit={() => setEditingId(term.id)} onDelete={() => setTermToDelete(term)} />
                  ),
                )}
              </ul>
            )
          }
        </Loaded>
      </SectionCard>
      <ConfirmDialog
        open={termToDelete !== null}
        onOpenChange={(open) => {
          if (!open && !deleting) setTermToDelete(null);
        }}
        title="Delete this search term?"
        description={
          <>
            <span className="font-medium text-slate-900">{termToDelete?.term}</span> will no longer be searched and you will get no
            more digests for it.
          </>
        }
        confirmLabel="Delete"
        busy={deleting}
        onConfirm={confirmDelete}
      />
    </>
  );
}

function SearchTermRow({ term, user, onEdit, onDelete }: { term: SearchTerm; user: CurrentUser; onEdit: () => void; onDelete: () => void }) {
  return (
    <li className="flex flex-col gap-3 py-4 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0 space-y-1.5">
        <p className="break-words font-medium text-slate-900">{term.term}</p>
        <div className="flex flex-wrap gap-2">
          <Pill className={statusLooks[term.status] ?? PENDING_LOOK}>{statusLabel(term.status)}</Pill>
          <Pill className={term.isActive ? "bg-brand-50 text-brand-700" : "bg-slate-100 text-slate-600"}>
            {term.isActive ? "Active" : "Inactive"}
          </Pill>
        </div>
        {term.lastProcessedAt ? <p className="text-xs text-slate-500">{`Last searched: ${formatDate(term.lastProcessedAt)}`}</p> : null}
        {term.nextScheduledRun ? <p className="text-xs text-slate-500">{`Next digest: ${formatDate(term.nextScheduledRun)}`}</p> : null}
        {term.exclude && term.exclude.length > 0 ? <p className="text-xs text-slate-500">{`Excludes: ${term.exclude.join(", ")}`}</p> : null}
        <TermRatings termId={term.id} term={term.term} />
        <CitationLinks label="Export history:" subject={`export of the history of ${term.term}`} href={(format) => termCitationsUrl(term.id, format)} />
        <LabChannel termId={term.id} term={term.term} user={user} />
      </div>
      <div className="flex shrink-0 gap-2">
        <Button variant="outline" size="sm" aria-label={`Edit ${term.term}`} onClick={onEdit}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" aria-label={`Delete ${term.term}`} onClick={onDelete} className="text-red-600 hover:bg-red-50">
          Delete
        </Button>
      </div>
    </li>
  );
}

/** The inline edit of one term: Enter or Save saves, Escape or Cancel leaves it as it was. */
function SearchTermEditor({ term, userId, onClose }: { term: SearchTerm; userId: string; onClose: () => void }) {
  const [text, setText] = useState(term.term);
  const [excludeText, setExcludeText] = useState((term.exclude ?? []).join(", "));
  const [saving, setSaving] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [excludeError, setExcludeError] = useState<string | null>(null);
  const errorId = useId();
  const excludeErrorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const newText = text.trim();

  // The input was disabled while saving; a refused text is back to be corrected.
  useEffect(() => {
    if (fieldError) inputRef.current?.focus();
  }, [fieldError]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!newText || saving) return;
    const exclude = parseExcludeWords(excludeText);
    const textChanged = newText !== term.term;
    const excludeChanged = exclude.join(" ") !== (term.exclude ?? []).join(" ");
    if (!textChanged && !excludeChanged) {
      onClose();
      return;
    }
    setSaving(true);
    setFieldError(null);
    setExcludeError(null);
    try {
      await updateSearchTerm(term.id, { ...(textChanged ? { term: newText } : {}), ...(excludeChanged ? { exclude } : {}) });
    } catch (error) {
      setSaving(false);
      const errors = fieldErrors(error);
      setFieldError(errors.term?.[0] ?? null);
      setExcludeError(errors.exclude?.[0] ?? null);
      toast({ title: "Update Failed", description: errorMessage(error, "The search term could not be updated."), variant: "destructive" });
      return;
    }
    const description = textChanged ? `Your queue now searches for "${newText}".` : `"${newText}" now excludes the words you listed.`;
    toast({ title: "Search Term Updated", description, variant: "success" });
    onClose();
    await loadSearchTerms(userId);
  };

  const cancelOnEscape = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onClose();
  };

  return (
    <form onSubmit={save} className="flex flex-col gap-2 sm:flex-row sm:items-start">
      <div className="space-y-1.5 sm:flex-1">
        <Input
          ref={inputRef}
          aria-label={`New text for ${term.term}`}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setFieldError(null);
          }}
          onKeyDown={cancelOnEscape}
          disabled={saving}
          autoFocus
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? errorId : undefined}
        />
        {fieldError ? (
          <p id={errorId} role="alert" className="text-sm text-red-600">
            {fieldError}
          </p>
        ) : null}
        <label className="block space-y-1 text-xs font-medium text-slate-600">
          <span>Exclude words</span>
          <Input
            value={excludeText}
            placeholder="e.g. mouse, in-vitro"
            onChange={(event) => {
              setExcludeText(event.target.value);
              setExcludeError(null);
            }}
            onKeyDown={cancelOnEscape}
            disabled={saving}
            aria-invalid={excludeError ? true : undefined}
            aria-describedby={excludeError ? excludeErrorId : undefined}
          />
        </label>
        {excludeError ? (
          <p id={excludeErrorId} role="alert" className="text-sm text-red-600">
            {excludeError}
          </p>
        ) : null}
      </div>
      <div className="flex shrink-0 gap-2 sm:mt-1">
        <Button type="submit" size="sm" disabled={!newText || saving}>
          {saving ? "Saving..." : "Save"}
        </Button>
        <Button variant="outline" size="sm" onClick={onClose} disabled={saving}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

const PENDING_LOOK = "bg-slate-100 text-slate-700";

const statusLooks: Record<string, string> = {
  processing: "bg-amber-50 text-amber-800",
  completed: "bg-green-50 text-green-800",
  failed: "bg-red-50 text-red-700",
};

function Pill({ className, children }: { className: string; children: string }) {
  return <span className={cn("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium", className)}>{children}</span>;
}
