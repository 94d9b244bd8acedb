// The digest detail dialog (spec §2 Dashboard): the search term and how it was searched, the AI
// Research Summary, the sources with their counts, the papers (relevance as a percent, spec §3)
// and statistics, with a button that mails the digest again (spec §8 'Email Resent' / 'Resend
// Failed'). Each paper has its rating buttons for the digest's term (see RatingButtons), its
// citation as RIS or BibTeX, and its COinS (an empty span.Z3988 that reference managers' browser
// connectors read); the whole digest's citations download from the actions. The actions sit at
// the bottom left, away from the toasts' corner (bottom right), so the toast a resend shows never
// covers them.
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useId, useRef, useState, type ReactElement, type ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { Dialog } from "@/components/ui/Dialog";
import { errorMessage } from "@/lib/api";
import { formatDate } from "@/lib/dates";
import { isSameTerm } from "@/lib/searchTerm";
import { toast } from "@/state/toast";
import {
  digestCitationsUrl,
  digestPapers,
  noPapersMessage,
  paperCitationUrl,
  resendDigest,
  widenedNote,
  type DigestPaper,
  type EmailDigest,
  type Rating,
} from "./api";
import { CitationLinks } from "./CitationLinks";
import { RatingButtons } from "./RatingButtons";
import { loadRatings, ratings, searchTerms } from "./store";

const SOURCE_LABELS: Record<string, string> = { pubmed: "PubMed", arxiv: "arXiv", biorxiv: "bioRxiv", medrxiv: "medRxiv" };
const SOURCE_ORDER = ["pubmed", "arxiv", "biorxiv", "medrxiv"];

/** A source's display name ("arxiv" → "arXiv"); an unknown source as it came. */
export function sourceLabel(source: string): string {
  return SOURCE_LABELS[source.toLowerCase()] ?? source;
}

/** A 0–1 relevance score as a whole percent ("87%"). */
export function relevancePercent(score: number): string {
  return `${Math.round(relevanceOf(score) * 100)}%`;
}

export interface DigestDialogProps {
  digest: EmailDigest;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The element that opens the dialog; focus returns to it on close. */
  trigger?: ReactElement;
}

export function DigestDialog({ digest, open, onOpenChange, trigger }: DigestDialogProps) {
  useSignals();
  const papers = digestPapers(digest);
  // The user's term this digest was made for, by its identity (a term deleted and added again
  // is another term), while it is still the same topic: its ratings.
  const term = (searchTerms.value ?? []).find((candidate) => candidate.id === digest.termId && isSameTerm(candidate.term, digest.searchTerm));
  const termId = term?.id ?? null;
  const termRatings: Rating[] = termId ? (ratings.value[termId] ?? []) : [];
  useEffect(() => {
    if (open && termId) loadRatings(termId).catch(() => undefined);
  }, [open, termId]);
  const note = widenedNote(digest.widened);
  const summaryLines = (digest.aiSummary ?? "")
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*•]\s+)?/, "").trim())
    .filter((line) => line.length > 0);

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      trigger={trigger}
      title={digest.searchTerm}
      description={digest.searchedAs ? `Searched as: ${digest.searchedAs}` : undefined}
      widthClassName="max-w-3xl"
    >
      <div className="mt-5 space-y-6">
        <Section title="AI Research Summary">
          {summaryLines.length > 0 ? (
            <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
              {summaryLines.map((line, index) => (
                <li key={index}>{line}</li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-500">No summary was written for this digest.</p>
          )}
        </Section>

        {note && papers.length > 0 ? (
          <p className="rounded-lg bg-sky-50 p-4 text-sm font-medium text-sky-900" role="note">
            {note}
          </p>
        ) : null}

        {papers.length === 0 ? (
          <p className="rounded-lg bg-slate-50 p-4 text-sm text-slate-600">{noPapersMessage(digest)}</p>
        ) : (
          <>
            <SourceCounts papers={papers} />
            <Section title={`Papers (${papers.length})`}>
              <ol className="space-y-3">
                {papers.map((paper, index) => (
                  <PaperItem
                    key={`${index}-${paper.title}`}
                    paper={paper}
                    rating={
                      termId && paper.paperKey
                        ? {
                            termId,
                            digestId: digest.id,
                            paperKey: paper.paperKey,
                            current: termRatings.find((rating) => rating.paperKey === paper.paperKey)?.verdict ?? null,
                          }
                        : null
                    }
                  />
                ))}
              </ol>
            </Section>
          </>
        )}

        <Statistics papers={papers} sentAt={digest.sentAt} />

        <div className="flex flex-wrap items-center justify-start gap-x-6 gap-y-3 border-t border-slate-200 pt-4">
          <ResendButton searchTerm={digest.searchTerm} />
          {papers.length > 0 ? <DigestCitationLinks digest={digest} /> : null}
        </div>
      </div>
    </Dialog>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="space-y-2">
      <h3 id={headingId} className="text-sm font-semibold uppercase tracking-wide text-slate-500">
        {title}
      </h3>
      {children}
    </section>
  );
}

/** How many papers each source contributed (by the source that first reported each paper). */
function SourceCounts({ papers }: { papers: DigestPaper[] }) {
  const counts = new Map<string, number>();
  for (const paper of papers) {
    const source = String(paper.source ?? "").toLowerCase();
    counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  const rank = (source: string) => (SOURCE_ORDER.includes(source) ? SOURCE_ORDER.indexOf(source) : SOURCE_ORDER.length);
  const sources = [...counts.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

  return (
    <Section title="Sources">
      <ul className="flex flex-wrap gap-2">
        {sources.map((source) => (
          <li key={source} className="rounded-full bg-brand-50 px-3 py-1 text-sm text-brand-900">
            {sourceLabel(source) || "Unknown"}: <span className="font-semibold">{counts.get(source)}</span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

interface PaperRating {
  termId: string;
  digestId: string;
  paperKey: string;
  current: Rating["verdict"] | null;
}

function PaperItem({ paper, rating }: { paper: DigestPaper; rating: PaperRating | null }) {
  const extraLinks = (paper.links ?? []).filter(([, url]) => url && url !== paper.url);
  const details = [paper.journal, sourceLabel(String(paper.source ?? ""))].filter(Boolean).join(" · ");

  return (
    <li>
      <article aria-label={paper.title} className="space-y-1.5 rounded-lg border border-slate-200 p-4">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <h4 className="font-medium text-slate-900">
            {paper.url ? (
              <a href={paper.url} target="_blank" rel="noopener noreferrer" className="text-brand-700 hover:underline">
                {paper.title}
              </a>
            ) : (
              paper.title
            )}
          </h4>
          <div className="flex shrink-0 items-center gap-2">
            {paper.retracted ? (
              <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-700">Retracted</span>
            ) : null}
            <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold text-slate-700">
              Relevance {relevancePercent(paper.relevanceScore)}
            </span>
          </div>
        </div>
        {paper.authors ? <p className="text-sm text-slate-600">{paper.authors}</p> : null}
        {details ? <p className="text-xs text-slate-500">{details}</p> : null}
        {paper.summary ? <p className="text-sm text-slate-700">{paper.summary}</p> : null}
        {paper.reason ? (
          <p className="text-sm text-slate-600">
            <span className="font-medium text-slate-700">Why it matched:</span> {paper.reason}
          </p>
        ) : null}
        {extraLinks.length > 0 ? (
          <p className="flex flex-wrap gap-3 text-xs">
            {extraLinks.map(([label, url]) => (
              <a key={url} href={url} target="_blank" rel="noopener noreferrer" className="text-brand-700 hover:underline">
                {label}
              </a>
            ))}
          </p>
        ) : null}
        {paper.paperKey ? (
          <CitationLinks label="Citation:" subject={`citation of ${paper.title}`} href={(format) => paperCitationUrl(paper.paperKey as string, format)} />
        ) : null}
        {rating ? <RatingButtons {...rating} title={paper.title} /> : null}
        {/* COinS: found by reference managers' browser connectors (Zotero), nothing to see or hear. */}
        {paper.coins ? <span className="Z3988" title={paper.coins} aria-hidden="true" /> : null}
      </article>
    </li>
  );
}

/** "Download citations: RIS · BibTeX" of a digest's papers (also in the dashboard's list). */
export function DigestCitationLinks({ digest, className }: { digest: Pick<EmailDigest, "id" | "searchTerm" | "sentAt">; className?: string }) {
  return (
    <CitationLinks
      label="Download citations:"
      subject={`citations of ${digest.searchTerm} (${formatDate(digest.sentAt)})`}
      href={(format) => digestCitationsUrl(digest.id, format)}
      className={className}
    />
  );
}

function Statistics({ papers, sentAt }: { papers: DigestPaper[]; sentAt: string }) {
  const scores = papers.map((paper) => relevanceOf(paper.relevanceScore));
  const average = scores.length > 0 ? scores.reduce((sum, score) => sum + score, 0) / scores.length : null;
  const highest = scores.length > 0 ? Math.max(...scores) : null;
  const rows: Array<[string, string]> = [
    ["Papers found", String(papers.length)],
    ["Average relevance", average === null ? "—" : relevancePercent(average)],
    ["Highest relevance", highest === null ? "—" : relevancePercent(highest)],
    ["Sent", formatDate(sentAt)],
  ];

  return (
    <Section title="Statistics">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {rows.map(([label, value]) => (
          <div key={label} className="rounded-lg bg-slate-50 p-3">
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="text-base font-semibold text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>
    </Section>
  );
}

/**
 * Busy while sending, but never `disabled`: a disabled button drops the focus out of the dialog
 * (to the page behind it), and the keyboard user would be lost. A second press meanwhile is ignored.
 */
function ResendButton({ searchTerm }: { searchTerm: string }) {
  const [isSending, setIsSending] = useState(false);
  const isSendingNow = useRef(false);

  const resend = async () => {
    if (isSendingNow.current) return;
    isSendingNow.current = true;
    setIsSending(true);
    try {
      await resendDigest(searchTerm);
      toast({ title: "Email Resent", description: "Check your inbox, and your spam folder if it does not arrive.", variant: "success" });
    } catch (error) {
      toast({
        title: "Resend Failed",
        description: errorMessage(error, "The digest could not be sent again. Please try again."),
        variant: "destructive",
      });
    } finally {
      isSendingNow.current = false;
      setIsSending(false);
    }
  };

  return (
    <Button
      variant="outline"
      onClick={resend}
      aria-disabled={isSending}
      aria-busy={isSending}
      className="aria-disabled:cursor-wait aria-disabled:opacity-50"
    >
      {isSending ? "Sending..." : "Resend email"}
    </Button>
  );
}

/** A score the server sent, as a number in 0–1 (anything unreadable counts as 0). */
function relevanceOf(score: unknown): number {
  const value = typeof score === "number" ? score : Number(score);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
