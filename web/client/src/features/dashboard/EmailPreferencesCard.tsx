// The dashboard's "Email Preferences" card (spec §2 Dashboard, §3 user_preferences, §5 Free-tier
// preferences, §6): weekly digest, sources and delivery day. Each change is saved at once
// ('Preferences Updated'); a refused change shows 'Update Failed' and the control returns to the
// stored value. Fields the plan locks (free: sources and day) are shown as the server reports them
// (Monday, PubMed only) and cannot be changed; weekly digest stays the user's choice.
import { useSignals } from "@preact/signals-react/runtime";
import { useState, type ReactNode } from "react";
import { Link } from "react-router-dom";
import { SectionCard } from "@/components/ui/Card";
import { Switch } from "@/components/ui/Switch";
import { errorMessage } from "@/lib/api";
import type { CurrentUser } from "@/state/session";
import { toast } from "@/state/toast";
import { DELIVERY_DAYS, updatePreferences, type DeliveryDay, type Preferences, type PreferencesChange } from "./api";
import { loadError, preferences, setPreferences } from "./store";
import { Loaded } from "./Loaded";

type Field = keyof PreferencesChange;

interface SwitchRow {
  field: Exclude<Field, "deliveryDay">;
  label: string;
  description: string;
}

const DIGEST_SWITCH: SwitchRow = { field: "weeklyDigest", label: "Weekly digest", description: "A digest of new papers for your search terms." };

const SOURCE_SWITCHES: SwitchRow[] = [
  { field: "includePubmed", label: "PubMed", description: "Biomedical and life-science literature." },
  { field: "includeArxiv", label: "arXiv", description: "Preprints in physics, mathematics, computer science and more." },
  { field: "includeBiorxiv", label: "bioRxiv / medRxiv", description: "Biology and health-science preprints." },
];

export const UPGRADE_NOTE = "Upgrade to choose your sources and delivery day";

export function EmailPreferencesCard({ user }: { user: CurrentUser }) {
  useSignals();
  const stored = preferences.value;
  const error = loadError.value.preferences;
  // Values being saved, shown until the server answers; then the stored value shows again.
  const [pending, setPending] = useState<PreferencesChange>({});

  const change = async <F extends Field>(field: F, value: Preferences[F]) => {
    const patch = { [field]: value } as PreferencesChange;
    setPending((current) => ({ ...current, ...patch }));
    try {
      setPreferences(await updatePreferences(user.id, patch));
      toast({ title: "Preferences Updated", description: "Your email preferences have been saved.", variant: "success" });
    } catch (failure) {
      toast({
        title: "Update Failed",
        description: errorMessage(failure, "Your preferences could not be saved. Please try again."),
        variant: "destructive",
      });
    } finally {
      setPending((current) => {
        const { [field]: _saved, ...rest } = current;
        return rest;
      });
    }
  };

  return (
    <SectionCard title="Email Preferences" contentClassName="space-y-4">
      <Loaded value={stored} error={error} spinnerLabel="Loading your email preferences">
        {(loaded) => <PreferencesForm stored={loaded} pending={pending} onChange={change} />}
      </Loaded>
    </SectionCard>
  );
}

function PreferencesForm({
  stored,
  pending,
  onChange,
}: {
  stored: Preferences;
  pending: PreferencesChange;
  onChange: <F extends Field>(field: F, value: Preferences[F]) => void;
}) {
  const shown = { ...stored, ...pending };
  const isLocked = (field: Field) => (stored.locked as readonly string[]).includes(field);
  const isSaving = (field: Field) => field in pending;
  const hasLockedFields = stored.locked.length > 0;

  const switchRow = ({ field, label, description }: SwitchRow) => (
    <SettingRow key={field} id={`preference-${field}`} label={label} description={description}>
      <Switch
        id={`preference-${field}`}
        checked={shown[field]}
        disabled={isLocked(field) || isSaving(field)}
        aria-describedby={`preference-${field}-description`}
        onCheckedChange={(checked) => onChange(field, checked)}
      />
    </SettingRow>
  );

  return (
    <div className="space-y-5">
      {switchRow(DIGEST_SWITCH)}

      <fieldset className="space-y-3">
        <legend className="mb-2 text-sm font-semibold text-slate-900">Sources</legend>
        {SOURCE_SWITCHES.map(switchRow)}
      </fieldset>

      <div className="space-y-1.5">
        <label htmlFor="preference-deliveryDay" className="text-sm font-semibold text-slate-900">
          Delivery day
        </label>
        <select
          id="preference-deliveryDay"
          value={shown.deliveryDay}
          disabled={isLocked("deliveryDay") || isSaving("deliveryDay")}
          onChange={(event) => onChange("deliveryDay", event.target.value as DeliveryDay)}
          className="flex h-10 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-60"
        >
          {DELIVERY_DAYS.map((day) => (
            <option key={day} value={day}>
              {capitalize(day)}
            </option>
          ))}
        </select>
      </div>

      {hasLockedFields ? (
        <p className="rounded-lg bg-brand-50 p-3 text-sm text-brand-900">
          Your plan sends PubMed papers on Mondays.{" "}
          <Link to="/subscribe?tier=pro" className="font-medium text-brand-700 underline-offset-4 hover:underline">
            {UPGRADE_NOTE}
          </Link>
          .
        </p>
      ) : null}
    </div>
  );
}

function SettingRow({ id, label, description, children }: { id: string; label: string; description: string; children: ReactNode }) {
  return (
    <div className="flex items-start justify-between gap-4">
      <div className="min-w-0">
        <label htmlFor={id} className="text-sm font-medium text-slate-900">
          {label}
        </label>
        <p id={`${id}-description`} className="text-xs text-slate-500">
          {description}
        </p>
      </div>
      {children}
    </div>
  );
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
