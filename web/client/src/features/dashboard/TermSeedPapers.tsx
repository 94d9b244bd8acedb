// A term's seed papers on the dashboard (the papers it was seeded from, not rated from a digest):
// the list, each removable, and "Add seed papers" (identifiers or a BibTeX or RIS file) that seeds
// the term and lists the papers found; a bad one refuses them all, with the server's word on each.
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { errorMessage } from "@/lib/api";
import { hasSeeds, NO_SEEDS, SeedPapersField, seedErrors, SeedsFound, seedsRequest, type SeedPaperView, type SeedsValue } from "@/features/seeds";
import { toast } from "@/state/toast";
import type { Rating } from "./api";
import { seedTerm } from "./store";

export interface TermSeedPapersProps {
  id: string;
  termId: string;
  term: string;
  /** The term's ratings marked seeded. */
  seeds: Rating[];
  onRemove: (rating: Rating) => void;
}

export function TermSeedPapers({ id, termId, term, seeds, onRemove }: TermSeedPapersProps) {
  const [value, setValue] = useState<SeedsValue>(NO_SEEDS);
  const [errors, setErrors] = useState<string[]>([]);
  const [found, setFound] = useState<SeedPaperView[]>([]);
  const [adding, setAdding] = useState(false);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const request = seedsRequest(value);
    if (!request || adding) return;
    setAdding(true);
    setErrors([]);
    setFound([]);
    try {
      const added = await seedTerm(termId, request);
      setValue(NO_SEEDS);
      setFound(added.seeded);
      toast({ title: "Seed Papers Added", description: `"${term}" now learns from the papers you gave.`, variant: "success" });
    } catch (error) {
      const messages = seedErrors(error);
      setErrors(messages);
      if (messages.length === 0) {
        toast({ title: "Seeding Failed", description: errorMessage(error, "The seed papers could not be added."), variant: "destructive" });
      }
    } finally {
      setAdding(false);
    }
  };

  return (
    <div id={id} className="space-y-3 rounded-md border border-slate-200 p-2">
      {seeds.length === 0 ? (
        <p className="text-xs text-slate-500">No seed papers yet. Add papers you know to teach this term what you want.</p>
      ) : (
        <ul aria-label={`Seed papers of ${term}`} className="space-y-1">
          {seeds.map((seed) => (
            <li key={seed.paperKey} className="flex items-center justify-between gap-3 rounded-md bg-slate-50 px-2 py-1 text-xs">
              <span className="min-w-0 break-words text-slate-800">{seed.title}</span>
              <span className="flex shrink-0 items-center gap-2">
                <span className="rounded-full bg-white px-2 py-0.5 font-medium text-slate-700">Seed paper</span>
                <Button variant="ghost" size="sm" aria-label={`Remove seed paper ${seed.title}`} onClick={() => onRemove(seed)}>
                  Remove
                </Button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <form aria-label={`Add seed papers to ${term}`} onSubmit={add} className="space-y-2">
        <SeedPapersField value={value} onChange={setValue} errors={errors} disabled={adding} />
        <Button type="submit" size="sm" variant="outline" disabled={adding || !hasSeeds(value)}>
          {adding ? "Adding..." : "Add seed papers"}
        </Button>
      </form>
      <SeedsFound seeded={found} />
    </div>
  );
}
