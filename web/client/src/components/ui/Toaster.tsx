// Radix toasts bound to the toast signal: one region (F8 focuses it), swipe 50 px, 420 px wide
// on larger screens (spec §9). Toasts sit at the bottom so they cover no header or form control:
// from `sm` on in the bottom-right corner, at most 420 px wide (a dialog's actions kept to the
// bottom left, see DigestDialog, stay uncovered); on a phone a compact bar along the bottom edge,
// which leaves the header usable, with its close button. The region itself lets clicks through.
import * as ToastPrimitive from "@radix-ui/react-toast";
import { useSignals } from "@preact/signals-react/runtime";
import { DEFAULT_TOAST_DURATION_MS, dismissToast, toasts } from "@/state/toast";
import { cn } from "./cn";

export function Toaster() {
  useSignals();
  return (
    <ToastPrimitive.Provider duration={DEFAULT_TOAST_DURATION_MS} swipeDirection="right" swipeThreshold={50}>
      {toasts.value.map((item) => (
        <ToastPrimitive.Root
          key={item.id}
          open={item.open}
          duration={item.durationMs}
          onOpenChange={(open) => {
            if (!open) dismissToast(item.id);
          }}
          className={cn(
            "pointer-events-auto relative flex w-full items-start justify-between gap-3 rounded-md border p-3 pr-9 shadow-lg sm:gap-4 sm:p-4 sm:pr-8",
            item.variant === "destructive" ? "border-red-600 bg-red-600 text-white" : "border-slate-200 bg-white text-slate-900",
          )}
        >
          <div className="grid gap-0.5 sm:gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title>
            {item.description ? (
              <ToastPrimitive.Description className="text-xs opacity-90 sm:text-sm">{item.description}</ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close aria-label="Close" className="absolute right-1.5 top-1.5 rounded p-1.5 opacity-70 hover:opacity-100">
            ×
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="pointer-events-none fixed inset-x-0 bottom-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-2 sm:left-auto sm:right-0 sm:max-w-[420px] sm:p-4" />
    </ToastPrimitive.Provider>
  );
}
