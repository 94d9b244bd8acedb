// Radix toasts bound to the toast signal: one region (F8 focuses it), swipe 50 px, 420 px wide
// on larger screens (spec §9). Toasts sit at the bottom so they cover no header or form control:
// from `sm` on in the bottom-right corner, at most 420 px wide (a dialog's actions kept to the
// bottom left, see DigestDialog, stay uncovered); on a phone a compact bar along the bottom edge,
// which leaves the header usable, with its close button. The region itself lets clicks through.
// Where a toast would still cover the control in use (the focused element's table row or form,
// e.g. a console row near the window's bottom), the page is scrolled to lift it above the toast.
import * as ToastPrimitive from "@radix-ui/react-toast";
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useRef, type RefObject } from "react";
import { DEFAULT_TOAST_DURATION_MS, dismissToast, toasts } from "@/state/toast";
import { cn } from "./cn";

/** Space kept between a lifted control and the toast above which it is lifted, in pixels. */
const LIFT_MARGIN_PX = 8;

export function Toaster() {
  useSignals();
  const viewport = useRef<HTMLOListElement>(null);
  const openToasts = toasts.value.filter((item) => item.open).map((item) => item.id).join(",");
  useControlInUseUncovered(viewport, openToasts);
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
      <ToastPrimitive.Viewport
        ref={viewport}
        className="pointer-events-none fixed inset-x-0 bottom-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-2 sm:left-auto sm:right-0 sm:max-w-[420px] sm:p-4"
      />
    </ToastPrimitive.Provider>
  );
}

/**
 * After each change of the open toasts (`openToasts`, their ids), lifts the control in use above
 * them: when the focused element's row or form (or the element, if that is taller than the room
 * above the toasts) is under a toast, the window scrolls by the overlap, with the page padded at
 * the bottom so that it can. Dialogs are fixed and left alone (their actions keep clear).
 */
function useControlInUseUncovered(viewport: RefObject<HTMLOListElement | null>, openToasts: string) {
  // The control last focused: a control disabled while its request runs loses the focus to the
  // page, and is still the one in use when the request's toast shows.
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const remember = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement) lastFocused.current = event.target;
    };
    document.addEventListener("focusin", remember);
    return () => document.removeEventListener("focusin", remember);
  }, []);
  useEffect(() => {
    const body = document.body;
    if (!openToasts) {
      body.style.paddingBottom = "";
      return;
    }
    const frame = requestAnimationFrame(() => {
      const boxes = Array.from(viewport.current?.children ?? []).map((item) => item.getBoundingClientRect());
      const focused = document.activeElement;
      const active = focused instanceof HTMLElement && focused !== body ? focused : lastFocused.current?.isConnected ? lastFocused.current : null;
      if (boxes.length === 0 || !active || active === body) return;
      if (active.closest('[role="dialog"], [role="alertdialog"]') || viewport.current?.contains(active)) return;
      const toastTop = Math.min(...boxes.map((box) => box.top));
      const toastLeft = Math.min(...boxes.map((box) => box.left));
      const toastRight = Math.max(...boxes.map((box) => box.right));
      const container = active.closest("tr, form");
      const containerBox = container?.getBoundingClientRect();
      const inUse = containerBox && containerBox.height < toastTop - LIFT_MARGIN_PX ? containerBox : active.getBoundingClientRect();
      const isUnder = inUse.left < toastRight && toastLeft < inUse.right && inUse.bottom > toastTop - LIFT_MARGIN_PX;
      if (!isUnder || inUse.top > window.innerHeight) return;
      body.style.paddingBottom = `${window.innerHeight - toastTop + LIFT_MARGIN_PX}px`;
      window.scrollBy({ top: inUse.bottom - toastTop + LIFT_MARGIN_PX });
    });
    return () => cancelAnimationFrame(frame);
  }, [viewport, openToasts]);
}
