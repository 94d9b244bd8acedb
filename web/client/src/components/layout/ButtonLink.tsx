// A router link that looks like a Button (navigation stays a link for assistive technology and
// for opening in a new tab). The look mirrors components/ui/Button, which exports no classes.
import { Link, type LinkProps } from "react-router-dom";
import { cn } from "@/components/ui/cn";

type Variant = "primary" | "outline" | "ghost" | "inverse" | "inverse-outline";
type Size = "sm" | "md" | "lg";

const variants: Record<Variant, string> = {
  primary: "bg-brand-700 text-white hover:bg-brand-600 focus-visible:outline-brand-700",
  outline: "border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 focus-visible:outline-brand-700",
  ghost: "text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-brand-700",
  /** For dark backgrounds. */
  inverse: "bg-white text-brand-900 hover:bg-brand-50 focus-visible:outline-white",
  "inverse-outline": "border border-white/40 text-white hover:bg-white/10 focus-visible:outline-white",
};

const sizes: Record<Size, string> = {
  sm: "h-8 px-3 text-sm",
  md: "h-10 px-4 text-sm",
  lg: "h-12 px-6 text-base",
};

export function ButtonLink({
  variant = "primary",
  size = "md",
  className,
  ...props
}: LinkProps & { variant?: Variant; size?: Size }) {
  return (
    <Link
      className={cn(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2",
        variants[variant],
        sizes[size],
        className,
      )}
      {...props}
    />
  );
}
