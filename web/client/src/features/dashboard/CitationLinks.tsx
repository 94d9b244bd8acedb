// "Download citations: RIS · BibTeX": links to a citation file for reference managers (Zotero,
// Mendeley, EndNote). Plain links the browser downloads with the session's cookie; the server
// names the file (papertide-<term>-<date>.ris or .bib). Each link's name says what it cites, so a
// page of them reads apart ("RIS citation of Base editors in vivo").
import { Fragment } from "react";
import { cn } from "@/components/ui/cn";
import { CITATION_FORMATS, type CitationFormat } from "./api";

export interface CitationLinksProps {
  /** The words before the links, e.g. "Download citations:". */
  label: string;
  /** What the files cite, completing each link's name after its format ("citations of …"). */
  subject: string;
  href: (format: CitationFormat) => string;
  className?: string;
}

export function CitationLinks({ label, subject, href, className }: CitationLinksProps) {
  return (
    <p className={cn("flex flex-wrap items-center gap-x-1.5 text-xs text-slate-600", className)}>
      <span>{label}</span>{" "}
      {CITATION_FORMATS.map(({ format, label: formatLabel }, index) => (
        <Fragment key={format}>
          {index > 0 ? <span aria-hidden="true"> · </span> : null}
          <a href={href(format)} download aria-label={`${formatLabel} ${subject}`} className="font-medium text-brand-700 hover:underline">
            {formatLabel}
          </a>
        </Fragment>
      ))}
    </p>
  );
}
