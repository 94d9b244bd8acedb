// The seed papers' field, the same in the dashboard's add form, the signup form and a term's
// panel: identifiers pasted one per line and/or a BibTeX or RIS file (read in the browser, refused
// over 512 KiB before anything is sent), the server's message on each bad line as a list under it,
// and, once a topic is seeded, the papers found and where.
import { useId, useRef, useState, type ChangeEvent } from "react";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { foundInLabel, MAX_SEED_FILE_BYTES, MAX_SEED_PAPERS, SEED_FILE_TOO_LARGE, seededFromLabel, type SeedPaperView, type SeedsValue } from "./seeds";

export const SEEDS_TOGGLE_LABEL = "Seed it with papers you know (optional)";
export const SEED_IDS_LABEL = "DOIs, PMIDs or arXiv ids, one per line";
export const SEED_FILE_LABEL = "Or a BibTeX or RIS file";
const SEED_FILE_TYPES = ".bib,.bibtex,.ris,.txt";
const MSG_FILE_UNREADABLE = "The file could not be read.";

export interface SeedPapersFieldProps {
  value: SeedsValue;
  /** Called with how to change the value (a state setter fits). */
  onChange: (update: (current: SeedsValue) => SeedsValue) => void;
  /** The server's messages on the seeds, one per bad line. */
  errors?: readonly string[];
  disabled?: boolean;
  /** Folded away behind "Seed it with papers you know (optional)" until opened (the forms that make a topic). */
  collapsible?: boolean;
}

export function SeedPapersField({ value, onChange, errors = [], disabled = false, collapsible = false }: SeedPapersFieldProps) {
  const baseId = useId();
  const [open, setOpen] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const ids = { region: `${baseId}-seeds`, hint: `${baseId}-hint`, text: `${baseId}-ids`, file: `${baseId}-file`, fileError: `${baseId}-file-error`, errors: `${baseId}-errors` };
  // The server's messages open the section, so the lines they name can be corrected.
  const expanded = !collapsible || open || errors.length > 0;
  const invalid = errors.length > 0;

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.target;
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > MAX_SEED_FILE_BYTES) {
      input.value = "";
      setFileError(SEED_FILE_TOO_LARGE);
      onChange((current) => ({ ...current, file: null }));
      return;
    }
    setFileError(null);
    let text: string;
    try {
      text = await file.text();
    } catch {
      input.value = "";
      setFileError(MSG_FILE_UNREADABLE);
      return;
    }
    onChange((current) => ({ ...current, file: { name: file.name, text } }));
  };

  const removeFile = () => {
    if (fileInput.current) fileInput.current.value = "";
    setFileError(null);
    onChange((current) => ({ ...current, file: null }));
  };

  return (
    <div className="space-y-2">
      {collapsible ? (
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={ids.region}
          onClick={() => setOpen(!expanded)}
          className="text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          {SEEDS_TOGGLE_LABEL}
        </button>
      ) : null}
      {expanded ? (
        <div id={ids.region} className={cn("space-y-3", collapsible && "rounded-lg border border-slate-200 bg-slate-50 p-3")}>
          <p id={ids.hint} className="text-xs text-slate-600">
            {`The topic learns from them as from papers you rated relevant. Up to ${MAX_SEED_PAPERS} papers; a file of at most 512 KiB.`}
          </p>
          <div className="space-y-1.5">
            <label htmlFor={ids.text} className="text-sm font-medium text-slate-700">
              {SEED_IDS_LABEL}
            </label>
            <textarea
              id={ids.text}
              rows={4}
              value={value.ids}
              onChange={(event) => {
                const typed = event.target.value;
                onChange((current) => ({ ...current, ids: typed }));
              }}
              disabled={disabled}
              placeholder={"10.1038/s41586-021-03819-2\n34265844\narXiv:2106.09685"}
              spellCheck={false}
              aria-invalid={invalid ? true : undefined}
              aria-describedby={invalid ? `${ids.hint} ${ids.errors}` : ids.hint}
              className={cn(
                "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-sm",
                "placeholder:text-slate-400 focus-visible:outline-2 focus-visible:outline-brand-600",
                "disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-red-500",
              )}
            />
          </div>
          <div className="space-y-1.5">
            <label htmlFor={ids.file} className="block text-sm font-medium text-slate-700">
              {SEED_FILE_LABEL}
            </label>
            <input
              ref={fileInput}
              id={ids.file}
              type="file"
              accept={SEED_FILE_TYPES}
              onChange={(event) => void choose(event)}
              disabled={disabled}
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? ids.fileError : undefined}
              className="block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium"
            />
            {value.file ? (
              <p className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
                <span>
                  Chosen file: <span className="font-medium">{value.file.name}</span>
                </span>
                <Button variant="ghost" size="sm" onClick={removeFile} disabled={disabled}>
                  Remove file
                </Button>
              </p>
            ) : null}
            {fileError ? (
              <p id={ids.fileError} role="alert" className="text-sm text-red-600">
                {fileError}
              </p>
            ) : null}
          </div>
        </div>
      ) : null}
      {invalid ? (
        <div id={ids.errors} role="alert">
          <ul aria-label="Problems with the seed papers" className="list-disc space-y-0.5 pl-5 text-sm text-red-600">
            {errors.map((message, index) => (
              <li key={index}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** "Seeded from 4 papers:" and each paper's title, with where it was found. */
export function SeedsFound({ seeded }: { seeded: readonly SeedPaperView[] }) {
  if (seeded.length === 0) return null;
  return (
    <div role="status" className="space-y-1.5 rounded-lg bg-green-50 p-3 text-sm">
      <p className="font-medium text-green-900">{seededFromLabel(seeded.length)}</p>
      <ul aria-label="Seed papers found" className="space-y-1">
        {seeded.map((paper) => (
          <li key={paper.paperKey} className="flex flex-wrap items-baseline gap-x-2 text-slate-800">
            <span>{paper.title}</span>
            <span className="text-xs text-slate-600">{`(${foundInLabel(paper)})`}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
