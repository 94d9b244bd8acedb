// Providers (tooltips with the spec's delays, toasts) around the router.
import * as TooltipPrimitive from "@radix-ui/react-tooltip";
import { BrowserRouter } from "react-router-dom";
import { Toaster } from "@/components/ui/Toaster";
import { AppRoutes } from "./routes";

export const TOOLTIP_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

export function App() {
  return (
    <TooltipPrimitive.Provider delayDuration={TOOLTIP_DELAY_MS} skipDelayDuration={TOOLTIP_SKIP_DELAY_MS}>
      <BrowserRouter future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <AppRoutes />
      </BrowserRouter>
      <Toaster />
    </TooltipPrimitive.Provider>
  );
}
