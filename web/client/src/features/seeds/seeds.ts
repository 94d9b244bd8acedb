// Seeds: the papers a researcher already knows, given when a term is made (the dashboard's add
// form, the signup form) or later (a term's panel). What was typed and which file was chosen,
// the request they make, the server's word on them, and how a found paper is described.
import type { SeedPaperView, SeedsRequest, Source } from "@/api/contract";
import { fieldErrors } from "@/lib/api";

export type { SeedPaperView, SeedsRequest };

/** The largest seed file read, as the server limits it (512 KiB). */
export const MAX_SEED_FILE_BYTES = 512 * 1024;

/** The most papers one request seeds from, as the server limits it. */
export const MAX_SEED_PAPERS = 50;

/** Said of a file over the limit, in the server's words. */
export const SEED_FILE_TOO_LARGE = "The file is larger than 512 KiB.";

/** A chosen file, read. */
export interface SeedFile {
  name: string;
  text: string;
}

/** What the researcher gave: identifiers one per line, and a BibTeX or RIS file. */
export interface SeedsValue {
  ids: string;
  file: SeedFile | null;
}

export const NO_SEEDS: SeedsValue = { ids: "", file: null };

/** The `seeds` of a request, only when something was given (blank lines are nothing). */
export function seedsRequest(value: SeedsValue): SeedsRequest | undefined {
  const ids = value.ids.trim();
  const file = value.file && value.file.text.trim() ? value.file.text : null;
  if (!ids && !file) return undefined;
  return { ...(ids ? { ids } : {}), ...(file ? { file } : {}) };
}

/** Whether anything was given. */
export const hasSeeds = (value: SeedsValue) => seedsRequest(value) !== undefined;

/** The server's messages on the seeds (a 400 `validation_failed` with `field: "seeds"`), one per bad line. */
export function seedErrors(error: unknown): string[] {
  return fieldErrors(error).seeds ?? [];
}

const SOURCE_NAMES: Record<Source, string> = { pubmed: "PubMed", arxiv: "arXiv", biorxiv: "bioRxiv", medrxiv: "medRxiv" };

/** Where a seed paper was found: "found in Papertide", or "looked up at PubMed" (arXiv, …). */
export function foundInLabel(paper: Pick<SeedPaperView, "foundIn" | "source">): string {
  if (paper.foundIn === "index") return "found in Papertide";
  return paper.source ? `looked up at ${SOURCE_NAMES[paper.source]}` : "looked up at Crossref";
}

/** "Seeded from 4 papers:", "Seeded from 1 paper:". */
export function seededFromLabel(count: number): string {
  return `Seeded from ${count === 1 ? "1 paper" : `${count} papers`}:`;
}
