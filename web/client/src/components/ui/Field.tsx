import * as LabelPrimitive from "@radix-ui/react-label";
import type { ReactNode } from "react";

/** A labelled form field with its error message (announced to screen readers). */
export function Field({ id, label, error, children }: { id: string; label: ReactNode; error?: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <LabelPrimitive.Root htmlFor={id} className="text-sm font-medium text-slate-700">
        {label}
      </LabelPrimitive.Root>
      {children}
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}
