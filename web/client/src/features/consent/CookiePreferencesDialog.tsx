// Cookie Preferences (spec §2): essential cookies always on; analytics cookies on or off.
// Saving stores the choice and reloads the page, so a withdrawn consent also unloads any
// analytics script already running.
import * as DialogPrimitive from "@radix-ui/react-dialog";
import * as SwitchPrimitive from "@radix-ui/react-switch";
import { useState, type ReactElement } from "react";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { hasAnalyticsConsent } from "@/lib/analytics";
import { saveCookieConsent } from "./consent";

/** `trigger` is the element that opens the dialog (it must accept a ref, e.g. a button). */
export function CookiePreferencesDialog({ trigger }: { trigger: ReactElement }) {
  const [open, setOpen] = useState(false);
  const [analyticsEnabled, setAnalyticsEnabled] = useState(false);

  const changeOpen = (nextOpen: boolean) => {
    // Each opening starts from the stored choice, not from an unsaved toggle.
    if (nextOpen) setAnalyticsEnabled(hasAnalyticsConsent());
    setOpen(nextOpen);
  };

  const save = () => {
    saveCookieConsent(analyticsEnabled);
    window.location.reload();
  };

  return (
    <DialogPrimitive.Root open={open} onOpenChange={changeOpen}>
      <DialogPrimitive.Trigger asChild>{trigger}</DialogPrimitive.Trigger>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <DialogPrimitive.Content className="fixed left-1/2 top-1/2 z-50 w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl focus:outline-none">
          <DialogPrimitive.Title className="text-lg font-semibold text-slate-900">Cookie Preferences</DialogPrimitive.Title>
          <DialogPrimitive.Description className="mt-1 text-sm text-slate-600">
            Choose which cookies Papertide may use. Saving reloads the page to apply your choice.
          </DialogPrimitive.Description>

          <div className="mt-6 space-y-4">
            <PreferenceRow
              id="cookie-essential"
              title="Essential Cookies"
              description="Needed to sign you in, keep your session secure and remember this choice. They cannot be turned off."
              checked
              disabled
            />
            <PreferenceRow
              id="cookie-analytics"
              title="Analytics Cookies"
              description="Help us understand how Papertide is used, such as which pages are visited, so we can improve it. Never used for advertising."
              checked={analyticsEnabled}
              onCheckedChange={setAnalyticsEnabled}
            />
          </div>

          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <DialogPrimitive.Close asChild>
              <Button variant="outline">Cancel</Button>
            </DialogPrimitive.Close>
            <Button onClick={save}>Save Preferences</Button>
          </div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

function PreferenceRow({
  id,
  title,
  description,
  checked,
  disabled,
  onCheckedChange,
}: {
  id: string;
  title: string;
  description: string;
  checked: boolean;
  disabled?: boolean;
  onCheckedChange?: (checked: boolean) => void;
}) {
  return (
    <div className="flex items-start justify-between gap-4 rounded-lg border border-slate-200 p-4">
      <div>
        <label htmlFor={id} className="text-sm font-medium text-slate-900">
          {title}
        </label>
        <p id={`${id}-description`} className="mt-1 text-sm text-slate-600">
          {description}
        </p>
      </div>
      <SwitchPrimitive.Root
        id={id}
        checked={checked}
        disabled={disabled}
        onCheckedChange={onCheckedChange}
        aria-describedby={`${id}-description`}
        className={cn(
          "relative mt-0.5 inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors",
          "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700",
          "bg-slate-300 data-[state=checked]:bg-brand-700 disabled:cursor-not-allowed disabled:opacity-60",
        )}
      >
        <SwitchPrimitive.Thumb className="block h-5 w-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px]" />
      </SwitchPrimitive.Root>
    </div>
  );
}
