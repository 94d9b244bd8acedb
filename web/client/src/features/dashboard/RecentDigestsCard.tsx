// The dashboard's "Recent Email Digests" card (spec §2 Dashboard, §9): the latest three digests,
// newest first, each with its search term, date ('MMMM d, yyyy'), paper count counted as its mail
// counts it (a digest without papers, the empty-week notice, reads 'No new papers this week'; a
// widened digest says how many of its papers are the week's); a click opens the
// digest dialog and reports email_digest_viewed (spec §7).
import { useSignals } from "@preact/signals-react/runtime";
import { useState } from "react";
import { SectionCard } from "@/components/ui/Card";
import { trackEvent } from "@/lib/analytics";
import { formatDate } from "@/lib/dates";
import type { CurrentUser } from "@/state/session";
import { digestPapers, paperCountLabel, RECENT_DIGESTS, type EmailDigest } from "./api";
import { DigestDialog } from "./DigestDialog";
import { digests, loadError } from "./store";
import { Loaded } from "./Loaded";

const DIGEST_TYPE_LABELS: Record<string, string> = { immediate: "Immediate", weekly: "Weekly" };

/** How a digest type reads ("weekly" → "Weekly"). */
export function digestTypeLabel(digestType: string): string {
  return DIGEST_TYPE_LABELS[digestType] ?? digestType;
}

export function RecentDigestsCard(_props: { user: CurrentUser }) {
  useSignals();
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
            <ul className="space-y-2">
              {loaded.slice(0, RECENT_DIGESTS).map((digest) => (
                <DigestItem key={digest.id} digest={digest} />
              ))}
            </ul>
          )
        }
      </Loaded>
    </SectionCard>
  );
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
    </li>
  );
}
