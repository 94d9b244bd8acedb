// Dates as the spec shows them (§9: 'MMMM d, yyyy', e.g. "November 21, 2026"). The server sends
// UTC timestamps; they are shown in UTC so a date never shifts with the reader's time zone.

const LONG_DATE = new Intl.DateTimeFormat("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });

/** 'MMMM d, yyyy' in UTC; a value that is not a date is shown as it came. */
export function formatDate(value: string | number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return LONG_DATE.format(date);
}
