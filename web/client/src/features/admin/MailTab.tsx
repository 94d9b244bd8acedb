// The console's Mail tab: how mail leaves (SMTP or the outbox folder), whether SMTP works, the
// queue, and the dead mail (given up on) with Retry and Drop.
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { errorMessage } from "@/lib/api";
import { toast } from "@/state/toast";
import { dropDeadMail, fetchMail, retryDeadMail, type AdminMail } from "./api";
import { formatTimestamp } from "./format";
import { cellClass, Facts, LoadState, Table } from "./parts";
import { useLoaded } from "./useLoaded";

const SMTP_STATES: Record<AdminMail["smtp"]["state"], string> = { ok: "Working", failing: "Failing", idle: "Not used yet" };

export function MailTab() {
  const mail = useLoaded(fetchMail);
  const [busy, setBusy] = useState<string | null>(null);

  const act = async (id: string, [title, failedTitle]: readonly [string, string], action: () => Promise<{ message: string }>) => {
    setBusy(id);
    try {
      const answer = await action();
      toast({ title, description: answer.message, variant: "success" });
      mail.reload();
    } catch (error) {
      toast({ title: failedTitle, description: errorMessage(error, "The server could not do that."), variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  const data = mail.data;
  return (
    <div className="space-y-6">
      <SectionCard title="Mail" contentClassName="space-y-3">
        {data ? (
          <Facts
            label="Mail"
            rows={[
              ["Transport", data.transport === "smtp" ? "SMTP" : "Outbox folder (no SMTP server set)"],
              ["SMTP", SMTP_STATES[data.smtp.state] ?? data.smtp.state],
              ["Last sent", formatTimestamp(data.smtp.lastSuccessAt)],
              ["Last error", data.smtp.lastErrorAt ? `${formatTimestamp(data.smtp.lastErrorAt)}: ${data.smtp.lastError ?? ""}` : "—"],
              ["Queued", data.queued],
              ["Dead mail", data.dead.length],
            ]}
          />
        ) : null}
        <LoadState loading={mail.loading && !data} error={mail.error} label="Loading the mail state" />
      </SectionCard>
      {data ? (
        <SectionCard title="Dead mail" contentClassName="space-y-3">
          {data.dead.length === 0 ? (
            <p className="text-sm text-slate-600">No dead mail: every mail was delivered or is still being tried.</p>
          ) : (
            <Table caption="Dead mail" headers={["To", "Subject", "Failed", "Attempts", "Error", ""]}>
              {data.dead.map((dead) => (
                <tr key={dead.id}>
                  <td className={cellClass}>{dead.to}</td>
                  <td className={cellClass}>{dead.subject}</td>
                  <td className={cellClass}>{formatTimestamp(dead.failedAt)}</td>
                  <td className={cellClass}>{dead.attempts}</td>
                  <td className={`${cellClass} text-xs text-red-700`}>{dead.error}</td>
                  <td className={cellClass}>
                    <div className="flex gap-1">
                      <Button size="sm" variant="outline" disabled={busy !== null} onClick={() => void act(dead.id, ["Mail Queued Again", "Could Not Queue Mail Again"], () => retryDeadMail(dead.id))}>
                        Retry
                      </Button>
                      <Button
                        size="sm"
                        variant="outline"
                        className="text-red-600 hover:bg-red-50"
                        disabled={busy !== null}
                        onClick={() => void act(dead.id, ["Mail Dropped", "Could Not Drop Mail"], () => dropDeadMail(dead.id))}
                      >
                        Drop
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </SectionCard>
      ) : null}
    </div>
  );
}
