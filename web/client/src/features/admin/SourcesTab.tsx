// The console's Sources tab: each harvested source (where its cursor stands, its last success and
// error, this week's papers, its next run) with "Harvest now", and what the index holds.
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { fetchSources, harvestNow, type AdminSources, type SourceName } from "./api";
import { formatCount, formatTimestamp, yesNo } from "./format";
import { cellClass, Facts, LoadState, Table } from "./parts";
import { useLoaded } from "./useLoaded";

const SOURCE_LABELS: Record<SourceName, string> = { pubmed: "PubMed", arxiv: "arXiv", biorxiv: "bioRxiv", medrxiv: "medRxiv" };

export const sourceLabel = (source: string) => SOURCE_LABELS[source as SourceName] ?? source;

export function SourcesTab() {
  const sources = useLoaded(fetchSources);
  const [starting, setStarting] = useState<string | null>(null);

  const harvest = async (source: SourceName) => {
    setStarting(source);
    try {
      const answer = await harvestNow(source);
      toast({ title: "Harvest Started", description: answer.message, variant: "success" });
      sources.reload();
    } catch (error) {
      toast({ title: "Harvest Not Started", description: errorMessage(error, "The harvest could not be started."), variant: "destructive" });
    } finally {
      setStarting(null);
    }
  };

  const data = sources.data;
  return (
    <div className="space-y-6">
      <SectionCard title="Sources" contentClassName="space-y-3">
        {data ? (
          <Table
            caption="Sources"
            headers={["Source", "Enabled", "Cursor", "Last success", "Last error", "Papers this week", "Next run", "Running", ""]}
          >
            {data.sources.map((source) => (
              <tr key={source.source} data-source={source.source}>
                <td className={`${cellClass} font-medium text-slate-900`}>{sourceLabel(source.source)}</td>
                <td className={cellClass}>{yesNo(source.enabled)}</td>
                <td className={`${cellClass} font-mono text-xs`}>{source.cursor ?? "—"}</td>
                <td className={cellClass}>{formatTimestamp(source.lastSuccessAt)}</td>
                <td className={cellClass}>
                  {source.lastErrorAt ? (
                    <>
                      <span>{formatTimestamp(source.lastErrorAt)}</span>
                      {source.lastError ? <span className="block text-xs text-red-700">{source.lastError}</span> : null}
                    </>
                  ) : (
                    "—"
                  )}
                </td>
                <td className={cellClass}>{formatCount(source.papersDatedLast7Days)}</td>
                <td className={cellClass}>{formatTimestamp(source.nextRunAt)}</td>
                <td className={cellClass}>{yesNo(source.running)}</td>
                <td className={cellClass}>
                  <Button
                    size="sm"
                    variant="outline"
                    className="whitespace-nowrap"
                    aria-label={`Harvest ${sourceLabel(source.source)} now`}
                    disabled={!source.enabled || source.running || starting !== null}
                    onClick={() => void harvest(source.source)}
                  >
                    Harvest now
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        ) : null}
        {data && data.sources.length === 0 ? <p className="text-sm text-slate-600">No source is harvested on this server.</p> : null}
        <div className="flex items-center gap-3">
          <LoadState loading={sources.loading && !data} error={sources.error} label="Loading the sources" />
          {data ? (
            <Button size="sm" variant="ghost" onClick={sources.reload} disabled={sources.loading}>
              Refresh
            </Button>
          ) : null}
        </div>
      </SectionCard>
      {data ? <IndexCard index={data.index} /> : null}
    </div>
  );
}

/** How long the papers waiting for a vector take at the vectorizer's rate. */
export function timeLeft(waiting: number, hoursLeft: number | null): string {
  if (waiting === 0) return "none";
  if (hoursLeft === null) return "—";
  if (hoursLeft < 1) return `about ${Math.max(1, Math.round(hoursLeft * 60))} minutes`;
  return `about ${hoursLeft.toFixed(1)} hours`;
}

function IndexCard({ index }: { index: AdminSources["index"] }) {
  const { embedded, waiting, model, runtime, hoursLeft } = index.vectors;
  const total = embedded + waiting;
  const coverage = total === 0 ? "—" : `${((embedded / total) * 100).toFixed(1)}% (${formatCount(embedded)} of ${formatCount(total)})`;
  return (
    <SectionCard title="Index" contentClassName="grid gap-6 sm:grid-cols-2">
      <Facts
        label="Papers"
        rows={[
          ["Papers", index.papers],
          ...Object.entries(index.bySource).map(([source, count]): [string, number] => [sourceLabel(source), count]),
        ]}
      />
      <Facts
        label="Vectors"
        rows={[
          ["Model", model ?? "none"],
          ["Runtime", runtime ?? "—"],
          ["Vector coverage", coverage],
          ["Waiting to be embedded", waiting],
          ["Time left", timeLeft(waiting, hoursLeft)],
        ]}
      />
    </SectionCard>
  );
}
