import { useId, type HTMLAttributes, type ReactNode } from "react";
import { cn } from "./cn";

export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("rounded-xl border border-slate-200 bg-white shadow-sm", className)} {...props} />;
}

export function CardHeader({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("space-y-1.5 p-6 pb-2", className)} {...props} />;
}

export function CardTitle({ className, ...props }: HTMLAttributes<HTMLHeadingElement>) {
  return <h2 className={cn("text-xl font-semibold tracking-tight", className)} {...props} />;
}

export function CardContent({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("p-6 pt-2", className)} {...props} />;
}

/**
 * A card that is a labelled region of the page (its title names it for assistive technology):
 * the title, optional lines under it, and the content.
 */
export function SectionCard({
  title,
  intro,
  contentClassName,
  children,
}: {
  title: string;
  intro?: ReactNode;
  contentClassName?: string;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <section aria-labelledby={titleId} className="rounded-xl border border-slate-200 bg-white shadow-sm">
      <CardHeader>
        <CardTitle id={titleId}>{title}</CardTitle>
        {intro}
      </CardHeader>
      <CardContent className={contentClassName}>{children}</CardContent>
    </section>
  );
}
