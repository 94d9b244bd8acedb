// Radix toasts bound to the toast signal: one region (F8 focuses it), swipe 50 px, 420 px wide
// on larger screens (spec §9). On small screens the region spans the top; from `sm` on it sits in
// the bottom-right corner, at most 420 px wide, so a dialog's actions kept to the bottom left
// (see DigestDialog) stay uncovered.
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
            "pointer-events-auto relative flex w-full items-start justify-between gap-4 rounded-md border p-4 pr-8 shadow-lg",
            item.variant === "destructive" ? "border-red-600 bg-red-600 text-white" : "border-slate-200 bg-white text-slate-900",
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{item.title}</ToastPrimitive.Title>
            {item.description ? (
              <ToastPrimitive.Description className="text-sm opacity-90">{item.description}</ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close aria-label="Close" className="absolute right-2 top-2 rounded p-1 opacity-70 hover:opacity-100">
            ×
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed top-0 z-[100] flex max-h-screen w-full flex-col-reverse gap-2 p-4 sm:bottom-0 sm:right-0 sm:top-auto sm:flex-col sm:max-w-[420px]" />
    </ToastPrimitive.Provider>
  );
}
