// How the console writes timestamps, sizes and durations (UTC, as the rest of the client).
import { formatDate } from "@/lib/dates";

const TIME = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

/** "November 21, 2026 06:00 UTC"; "—" for none. */
export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${formatDate(date)} ${TIME.format(date)} UTC`;
}

/** "1.5 MB", in powers of 1024. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A count with thousands separators: "120,331". */
export const formatCount = (value: number) => COUNT.format(value);

const COUNT = new Intl.NumberFormat("en-US");

export const yesNo = (value: boolean) => (value ? "Yes" : "No");
