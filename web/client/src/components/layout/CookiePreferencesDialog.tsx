// Cookie Preferences (spec §2): essential cookies always on; analytics cookies on or off.
// Saving stores the choice and reloads the page, so a withdrawn consent also unloads any
// analytics script already running.
import { useState, type ReactElement } from "react";
import { Button } from "@/components/ui/Button";
import { Dialog, DialogClose } from "@/components/ui/Dialog";
import { Switch } from "@/components/ui/Switch";
import { hasAnalyticsConsent } from "@/lib/analytics";
import { saveCookieConsent } from "@/lib/consent";

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
    <Dialog
      open={open}
      onOpenChange={changeOpen}
      trigger={trigger}
      title="Cookie Preferences"
      description="Choose which cookies Papertide may use. Saving reloads the page to apply your choice."
    >
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
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button onClick={save}>Save Preferences</Button>
      </div>
    </Dialog>
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
      <Switch
        id={id}
        checked={checked}
        disabled={disabled}
        onCheckedChange={onCheckedChange}
        aria-describedby={`${id}-description`}
      />
    </div>
  );
}
