// A modal dialog (Radix): overlay, centred panel, title and description. Every dialog of the
// client is built from it, so they look and behave alike (Escape closes it; so does the overlay
// unless `dismissible` is false).
//
// Radix gives Escape only to the topmost layer, and a toast shown while the dialog is open (e.g.
// 'Email Resent') is one: the toast would take the Escape and the dialog stay open. So an Escape
// that reaches the dialog's content unhandled closes the dialog too. When the dialog itself is
// the topmost layer, Radix has already handled (and prevented) the Escape, so it closes once.
import * as DialogPrimitive from "@radix-ui/react-dialog";
import type { ReactElement, ReactNode } from "react";
import { cn } from "./cn";

export interface DialogProps {
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  /** The element that opens the dialog (it must accept a ref, e.g. a button). */
  trigger?: ReactElement;
  title: ReactNode;
  description?: ReactNode;
  /** false: a click outside does not close it (a running task). */
  dismissible?: boolean;
  /** Tailwind max-width class of the panel. */
  widthClassName?: string;
  children?: ReactNode;
}

export function Dialog({ open, onOpenChange, trigger, title, description, dismissible = true, widthClassName = "max-w-lg", children }: DialogProps) {
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <DialogPrimitive.Trigger asChild>{trigger}</DialogPrimitive.Trigger> : null}
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <DialogPrimitive.Content
          onPointerDownOutside={dismissible ? undefined : (event) => event.preventDefault()}
          onKeyDown={(event) => {
            if (event.key === "Escape" && !event.defaultPrevented) onOpenChange?.(false);
          }}
          className={cn(
            "fixed left-1/2 top-1/2 z-50 max-h-[calc(100vh-2rem)] w-[calc(100%-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto",
            "rounded-xl bg-white p-6 shadow-xl focus:outline-none",
            widthClassName,
          )}
          {...(description ? {} : { "aria-describedby": undefined })}
        >
          <DialogPrimitive.Title className="pr-6 text-lg font-semibold text-slate-900">{title}</DialogPrimitive.Title>
          {description ? <DialogPrimitive.Description className="mt-1 text-sm text-slate-600">{description}</DialogPrimitive.Description> : null}
          {children}
          {dismissible ? (
            <DialogPrimitive.Close aria-label="Close" className="absolute right-3 top-3 rounded p-1 text-slate-500 hover:text-slate-900">
              ×
            </DialogPrimitive.Close>
          ) : null}
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

/** A button that closes the dialog it is in (wraps a Button). */
export const DialogClose = DialogPrimitive.Close;
