// The Papertide wordmark: a small wave-on-page logo and the name.
import { cn } from "@/components/ui/cn";

export function BrandMark({ inverse = false, className }: { inverse?: boolean; className?: string }) {
  return (
    <span className={cn("inline-flex items-center gap-2 text-lg font-semibold tracking-tight", className)}>
      <svg aria-hidden="true" viewBox="0 0 32 32" className="h-7 w-7 shrink-0">
        <rect width="32" height="32" rx="8" className={inverse ? "fill-white" : "fill-brand-700"} />
        <path
          d="M7 19c3-3.5 6-3.5 9 0s6 3.5 9 0M7 13c3-3.5 6-3.5 9 0s6 3.5 9 0"
          fill="none"
          strokeWidth="2.25"
          strokeLinecap="round"
          className={inverse ? "stroke-brand-700" : "stroke-white"}
        />
      </svg>
      <span className={inverse ? "text-white" : "text-slate-900"}>Papertide</span>
    </span>
  );
}
