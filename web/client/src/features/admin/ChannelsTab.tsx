// The console's Channels tab: every lab channel (a term's digests posted to a Slack or Mattermost
// webhook) with its user, term, host, failures in a row, last error, last post and the digests
// waiting to be posted. A channel failing FAILING_FROM times in a row or more is marked and listed
// first, the most failures first.
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { fetchChannels, type AdminChannel } from "./api";
import { formatCount, formatTimestamp } from "./format";
import { cellClass, LoadState, Table } from "./parts";
import { useLoaded } from "./useLoaded";

/** From this many failures in a row on, a channel is failing. */
export const FAILING_FROM = 3;

export const isFailing = (channel: Pick<AdminChannel, "failures">) => channel.failures >= FAILING_FROM;

/** Failing channels first, the most failures first; the others in the server's order. */
export function failingFirst(channels: readonly AdminChannel[]): AdminChannel[] {
  const rank = (channel: AdminChannel) => (isFailing(channel) ? channel.failures : 0);
  return [...channels].sort((a, b) => rank(b) - rank(a));
}

export function ChannelsTab() {
  const channels = useLoaded(fetchChannels);
  const data = channels.data;
  const rows = data ? failingFirst(data.channels) : [];
  const failing = rows.filter(isFailing).length;

  return (
    <SectionCard
      title="Lab channels"
      intro={
        <p className="text-sm text-slate-600">{`Each posts its term's digests to a Slack or Mattermost webhook; one failing ${FAILING_FROM} times in a row is marked.`}</p>
      }
      contentClassName="space-y-3"
    >
      {data ? (
        rows.length === 0 ? (
          <p className="text-sm text-slate-600">No lab channel is connected.</p>
        ) : (
          <>
            <p className="text-sm text-slate-700">{failing === 0 ? "No channel is failing." : `${failing} of ${rows.length} failing`}</p>
            <Table caption="Lab channels" headers={["User", "Term", "Host", "Failures", "Last error", "Last posted", "Pending"]}>
              {rows.map((channel, index) => (
                <tr key={`${channel.userEmail} ${channel.term} ${index}`} className={cn(isFailing(channel) && "bg-red-50")}>
                  <td className={cellClass}>{channel.userEmail}</td>
                  <td className={cellClass}>{channel.term}</td>
                  <td className={`${cellClass} font-mono text-xs`}>{channel.host}</td>
                  <td className={cellClass}>
                    <span className="flex items-center gap-2">
                      <span>{channel.failures}</span>
                      {isFailing(channel) ? (
                        <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-700">Failing</span>
                      ) : null}
                    </span>
                  </td>
                  <td className={`${cellClass} text-xs text-red-700`}>{channel.lastError ?? "—"}</td>
                  <td className={cellClass}>{formatTimestamp(channel.lastPostedAt)}</td>
                  <td className={cellClass}>{formatCount(channel.pending)}</td>
                </tr>
              ))}
            </Table>
          </>
        )
      ) : null}
      <div className="flex items-center gap-3">
        <LoadState loading={channels.loading && !data} error={channels.error} label="Loading the lab channels" />
        {data ? (
          <Button size="sm" variant="ghost" onClick={channels.reload} disabled={channels.loading}>
            Refresh
          </Button>
        ) : null}
      </div>
    </SectionCard>
  );
}
