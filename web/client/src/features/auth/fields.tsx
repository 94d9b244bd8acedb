// Building blocks shared by the auth forms: a text field with all its messages, a checkbox
// with its label, the research-field select, and the page shell (white card on slate-50).
import * as CheckboxPrimitive from "@radix-ui/react-checkbox";
import * as LabelPrimitive from "@radix-ui/react-label";
import * as SelectPrimitive from "@radix-ui/react-select";
import type { InputHTMLAttributes, ReactNode } from "react";
import { PublicLayout } from "@/components/layout/PublicLayout";
import { Card } from "@/components/ui/Card";
import { Field } from "@/components/ui/Field";
import { Input } from "@/components/ui/Input";
import { cn } from "@/components/ui/cn";
import { RESEARCH_FIELDS } from "./validation";

/** Accessibility attributes tying an input to its messages. */
function describedBy(id: string, errors: string[] | undefined) {
  const isInvalid = Boolean(errors && errors.length > 0);
  return { "aria-invalid": isInvalid, "aria-describedby": isInvalid ? `${id}-error` : undefined };
}

/** Every message of a field; one message goes through the shared Field, several as a list. */
function FieldMessages({ id, errors }: { id: string; errors: string[] }) {
  return (
    <ul id={`${id}-error`} role="alert" className="list-disc space-y-0.5 pl-5 text-sm text-red-600">
      {errors.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> {
  id: string;
  label: ReactNode;
  value: string;
  onValueChange: (value: string) => void;
  errors?: string[];
  /** Content after the input and its messages (e.g. a "Forgot password?" link). */
  after?: ReactNode;
}

export function TextField({ id, label, value, onValueChange, errors, after, ...inputProps }: TextFieldProps) {
  const messages = errors ?? [];
  const input = (
    <Input id={id} name={id} value={value} onChange={(event) => onValueChange(event.target.value)} {...describedBy(id, messages)} {...inputProps} />
  );
  return (
    <div className="space-y-1.5">
      <Field id={id} label={label} error={messages.length === 1 ? messages[0] : undefined}>
        {input}
        {messages.length > 1 ? <FieldMessages id={id} errors={messages} /> : null}
      </Field>
      {after}
    </div>
  );
}

/** The email field every auth form starts with. */
export function EmailField(props: Omit<TextFieldProps, "label" | "type">) {
  return <TextField label="Email" type="email" autoComplete="email" placeholder="you@university.edu" {...props} />;
}

/** A password field; `isNew` for fields that set a password (signup, reset). */
export function PasswordField({ isNew = false, ...props }: Omit<TextFieldProps, "type"> & { isNew?: boolean }) {
  return <TextField type="password" autoComplete={isNew ? "new-password" : "current-password"} {...props} />;
}

export function CheckboxField({
  id,
  checked,
  onCheckedChange,
  errors,
  children,
}: {
  id: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  errors?: string[];
  children: ReactNode;
}) {
  const messages = errors ?? [];
  return (
    <div className="space-y-1">
      <div className="flex items-start gap-2">
        <CheckboxPrimitive.Root
          id={id}
          name={id}
          checked={checked}
          onCheckedChange={(state) => onCheckedChange(state === true)}
          {...describedBy(id, messages)}
          className={cn(
            "mt-0.5 flex h-4 w-4 shrink-0 items-center justify-center rounded border border-slate-400 bg-white",
            "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700",
            "data-[state=checked]:border-brand-700 data-[state=checked]:bg-brand-700 aria-[invalid=true]:border-red-500",
          )}
        >
          <CheckboxPrimitive.Indicator className="text-[10px] leading-none text-white">✓</CheckboxPrimitive.Indicator>
        </CheckboxPrimitive.Root>
        <LabelPrimitive.Root htmlFor={id} className="text-sm text-slate-700">
          {children}
        </LabelPrimitive.Root>
      </div>
      {messages.length > 0 ? (
        <p id={`${id}-error`} role="alert" className="text-sm text-red-600">
          {messages[0]}
        </p>
      ) : null}
    </div>
  );
}

/** The optional research field of the combined signup (Radix Select with readable labels). */
export function ResearchFieldSelect({
  id,
  value,
  onValueChange,
  errors,
}: {
  id: string;
  value: string;
  onValueChange: (value: string) => void;
  errors?: string[];
}) {
  const messages = errors ?? [];
  return (
    <Field id={id} label={<>Research field <span className="font-normal text-slate-500">(optional)</span></>} error={messages[0]}>
      <SelectPrimitive.Root value={value} onValueChange={onValueChange}>
        <SelectPrimitive.Trigger
          id={id}
          {...describedBy(id, messages)}
          className={cn(
            "flex h-10 w-full items-center justify-between rounded-md border border-slate-300 bg-white px-3 py-2 text-sm",
            "focus-visible:outline-2 focus-visible:outline-brand-600 data-[placeholder]:text-slate-400",
          )}
        >
          <SelectPrimitive.Value placeholder="Select your research field" />
          <SelectPrimitive.Icon className="text-slate-500">▾</SelectPrimitive.Icon>
        </SelectPrimitive.Trigger>
        <SelectPrimitive.Portal>
          <SelectPrimitive.Content
            position="popper"
            sideOffset={4}
            className="z-50 max-h-72 w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border border-slate-200 bg-white shadow-lg"
          >
            <SelectPrimitive.Viewport className="p-1">
              {RESEARCH_FIELDS.map((field) => (
                <SelectPrimitive.Item
                  key={field.value}
                  value={field.value}
                  className="cursor-pointer rounded px-2 py-1.5 text-sm text-slate-800 outline-none data-[highlighted]:bg-brand-50 data-[highlighted]:text-brand-900"
                >
                  <SelectPrimitive.ItemText>{field.label}</SelectPrimitive.ItemText>
                </SelectPrimitive.Item>
              ))}
            </SelectPrimitive.Viewport>
          </SelectPrimitive.Content>
        </SelectPrimitive.Portal>
      </SelectPrimitive.Root>
    </Field>
  );
}

/** The page around every auth screen: a white card centred on slate-50, under the site header
 * (which carries the Papertide name). */
export function AuthShell({ children, above }: { children: ReactNode; above?: ReactNode }) {
  return (
    <PublicLayout footerVariant="light">
      <main className="flex flex-1 items-start justify-center bg-slate-50 px-4 py-10 sm:items-center sm:py-16">
        <div className="w-full max-w-md space-y-4">
          {above}
          <Card className="p-6 sm:p-8">{children}</Card>
        </div>
      </main>
    </PublicLayout>
  );
}

/** A screen heading with its explanatory line. */
export function AuthHeading({ title, description, id }: { title: string; description?: ReactNode; id?: string }) {
  return (
    <div className="mb-6 space-y-1 text-center">
      <h1 id={id} className="text-2xl font-semibold tracking-tight text-slate-900">
        {title}
      </h1>
      {description ? <p className="text-sm text-slate-600">{description}</p> : null}
    </div>
  );
}
