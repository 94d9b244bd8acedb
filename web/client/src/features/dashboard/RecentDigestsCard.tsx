// The dashboard's "Recent Email Digests" card (spec §2 Dashboard, §9): the latest three digests
// with papers, newest first (the empty-week notices do not push a researcher's rated digests out
// of reach), and a button that lists every digest, the notices included. Each shows its search
// term, date ('MMMM d, yyyy'), paper count counted as its mail counts it (a digest without papers,
// the empty-week notice, reads 'No new papers this week'; a widened digest says how many of its
// papers are the week's); a click opens the digest dialog and reports email_digest_viewed (spec §7).
// Under a digest with papers: "Download citations: RIS · BibTeX".
import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { SectionCard } from "@/components/ui/Card";
import { trackEvent } from "@/lib/analytics";
import { formatDate } from "@/lib/dates";
import type { CurrentUser } from "@/state/session";
import { digestPapers, paperCountLabel, RECENT_DIGESTS, type EmailDigest } from "./api";
import { DigestCitationLinks, DigestDialog } from "./DigestDialog";
import { digests, loadError } from "./store";
import { Loaded } from "./Loaded";

const DIGEST_TYPE_LABELS: Record<string, string> = { immediate: "Immediate", weekly: "Weekly" };

/** How a digest type reads ("weekly" → "Weekly"). */
export function digestTypeLabel(digestType: string): string {
  return DIGEST_TYPE_LABELS[digestType] ?? digestType;
}

/**
 * The digests the card lists before "Show all": the latest three with papers, or, while no
 * digest has papers, the latest three notices. `all` is newest first.
 */
export function recentDigests(all: EmailDigest[]): EmailDigest[] {
  const withPapers = all.filter((digest) => digestPapers(digest).length > 0);
  return (withPapers.length > 0 ? withPapers : all).slice(0, RECENT_DIGESTS);
}

export function RecentDigestsCard(_props: { user: CurrentUser }) {
  useSignals();
  const [showAll, setShowAll] = useState(false);
  const all = digests.value;
  const error = loadError.value.digests;
  // The server lists digests newest first.
  return (
    <SectionCard title="Recent Email Digests" contentClassName="space-y-3">
      <Loaded value={all} error={error} spinnerLabel="Loading your digests">
        {(loaded) =>
          loaded.length === 0 ? (
            <div className="rounded-lg border border-dashed border-slate-300 p-6 text-center">
              <p className="font-medium text-slate-700">No digests yet</p>
              <p className="mt-1 text-sm text-slate-500">When you add a search term, its first digest is emailed at once and listed here.</p>
            </div>
          ) : (
            <DigestList all={loaded} showAll={showAll} onShowAll={setShowAll} />
          )
        }
      </Loaded>
    </SectionCard>
  );
}

function DigestList({ all, showAll, onShowAll }: { all: EmailDigest[]; showAll: boolean; onShowAll: (showAll: boolean) => void }) {
  const recent = recentDigests(all);
  const shown = showAll ? all : recent;
  const hidden = all.length - recent.length;
  const notices = all.filter((digest) => digestPapers(digest).length === 0).length;
  return (
    <>
      <ul className="space-y-2">
        {shown.map((digest) => (
          <DigestItem key={digest.id} digest={digest} />
        ))}
      </ul>
      {hidden > 0 ? (
        <button
          type="button"
          aria-expanded={showAll}
          className="text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
          onClick={() => onShowAll(!showAll)}
        >
          {showAll ? "Show only the latest digests" : showAllLabel(all.length, notices)}
        </button>
      ) : null}
    </>
  );
}

/** "Show all 7 digests (4 without new papers)". */
export function showAllLabel(count: number, notices: number): string {
  const without = notices === 0 ? "" : notices === 1 ? " (1 without new papers)" : ` (${notices} without new papers)`;
  return `Show all ${count} digests${without}`;
}

function DigestItem({ digest }: { digest: EmailDigest }) {
  const [isOpen, setIsOpen] = useState(false);
  const paperCount = digestPapers(digest).length;

  const changeOpen = (open: boolean) => {
    if (open && !isOpen) trackEvent("email_digest_viewed");
    setIsOpen(open);
  };

  return (
    <li>
      <DigestDialog
        digest={digest}
        open={isOpen}
        onOpenChange={changeOpen}
        trigger={
          <button
            type="button"
            className="flex w-full flex-wrap items-center justify-between gap-x-4 gap-y-1 rounded-lg border border-slate-200 p-4 text-left transition-colors hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
          >
            <span className="min-w-0">
              <span className="block truncate font-medium text-slate-900">{digest.searchTerm}</span>
              <span className="block text-sm text-slate-500">{formatDate(digest.sentAt)}</span>
            </span>
            <span className="flex items-center gap-2 text-sm text-slate-600">
              <span>{paperCountLabel(paperCount, digest.widened)}</span>
              <span className="rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700">{digestTypeLabel(digest.digestType)}</span>
            </span>
          </button>
        }
      />
      {paperCount > 0 ? <DigestCitationLinks digest={digest} className="mt-1.5 px-4" /> : null}
    </li>
  );
}
