// The console's Backup tab: "Back up now" makes a consistent copy of the store and the index in
// a new dated folder of PAPERTIDE_BACKUP_DIR while the service runs, and shows its report.
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SectionCard } from "@/components/ui/Card";
import { errorCode, errorMessage } from "@/lib/api";
import { backUpNow, type BackupReport } from "./api";
import { formatBytes, formatTimestamp } from "./format";
import { Facts } from "./parts";

export const BACKUP_DIR_UNSET_TEXT =
  "Set PAPERTIDE_BACKUP_DIR to the folder where backups go (the daily backups go there too) and restart the service.";

export function BackupTab() {
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<BackupReport | null>(null);
  const [failure, setFailure] = useState<{ message: string; dirUnset: boolean } | null>(null);

  const backUp = async () => {
    setBusy(true);
    setFailure(null);
    try {
      setReport(await backUpNow());
    } catch (error) {
      setReport(null);
      setFailure({ message: errorMessage(error, "The backup failed."), dirUnset: (errorCode(error) as string | undefined) === "backup_dir_unset" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <SectionCard
      title="Backup"
      intro={<p className="text-sm text-slate-600">A consistent copy of the database and the search index, made while the service keeps running.</p>}
      contentClassName="space-y-4"
    >
      <Button onClick={() => void backUp()} disabled={busy}>
        {busy ? "Backing up..." : "Back up now"}
      </Button>
      {failure ? (
        <div role="alert" className="space-y-1 rounded-md bg-red-50 p-3 text-sm text-red-700">
          <p>{failure.message}</p>
          {failure.dirUnset ? <p>{BACKUP_DIR_UNSET_TEXT}</p> : null}
        </div>
      ) : null}
      {report ? (
        <div className="space-y-2" role="status">
          <p className="text-sm font-medium text-green-700">Backup complete.</p>
          <Facts
            label="Backup report"
            rows={[
              ["Folder", <code key="path" className="break-all text-xs">{report.path}</code>],
              ["Made", formatTimestamp(report.createdAt)],
              ["Schema version", report.schemaVersion],
              ["Database", formatBytes(report.storeBytes)],
              ["Index", formatBytes(report.indexBytes)],
              ["Files", report.files],
              ["Users", report.users],
              ["Papers", report.papers],
              ["Took", `${(report.tookMs / 1000).toFixed(1)} s`],
            ]}
          />
        </div>
      ) : null}
    </SectionCard>
  );
}
