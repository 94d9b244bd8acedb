// The console's small shared pieces: a loading or error line, a label/value list, a table, and
// the bar list of counts per week.
import type { ReactNode } from "react";
import { Spinner } from "@/components/ui/Spinner";
import type { WeekCount } from "@/api/contract";
import { formatCount } from "./format";

/** What a tab shows before its first answer, or when the server refused. */
export function LoadState({ loading, error, label }: { loading: boolean; error: string | null; label: string }) {
  if (error) {
    return (
      <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
        {error}
      </p>
    );
  }
  return loading ? <Spinner label={label} /> : null;
}

/** Label/value rows (numbers with thousands separators). */
export function Facts({ rows, label }: { rows: Array<[string, ReactNode]>; label?: string }) {
  return (
    <dl aria-label={label} className="grid grid-cols-[max-content_1fr] gap-x-6 gap-y-1 text-sm">
      {rows.map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-slate-600">{name}</dt>
          <dd className="font-medium text-slate-900">{typeof value === "number" ? formatCount(value) : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A table with a caption (its accessible name) and headers. */
export function Table({ caption, headers, children }: { caption: string; headers: string[]; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
          <tr>
            {headers.map((header) => (
              <th key={header} scope="col" className="px-3 py-2 font-medium">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}

export const cellClass = "px-3 py-2 align-top";

/** Counts per week as a list of horizontal bars (the longest bar is the largest count). */
export function WeekBars({ title, weeks }: { title: string; weeks: WeekCount[] }) {
  const largest = Math.max(1, ...weeks.map((week) => week.count));
  return (
    <figure className="space-y-2">
      <figcaption className="text-sm font-medium text-slate-700">{title}</figcaption>
      <ul aria-label={title} className="space-y-1">
        {weeks.map((week) => (
          <li key={week.week} className="grid grid-cols-[5.5rem_1fr_3rem] items-center gap-2 text-xs text-slate-600">
            <span>{week.week}</span>
            <span className="h-3 rounded bg-slate-100">
              <span className="block h-3 rounded bg-brand-600" style={{ width: `${(week.count / largest) * 100}%` }} />
            </span>
            <span className="text-right font-medium text-slate-900">
              {week.count}
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
