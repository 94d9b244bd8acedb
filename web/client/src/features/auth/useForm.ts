// Local form state for the auth forms: values, per-field messages, and a submitting flag.
// Messages appear on the first submit and then follow every change, so a fixed field clears
// its message at once.
import { useState, type FormEvent } from "react";
import { hasErrors, type FormErrors } from "./validation";

export interface FormState<Values> {
  values: Values;
  errors: FormErrors<Extract<keyof Values, string>>;
  isSubmitting: boolean;
  setValue: <Key extends keyof Values>(name: Key, value: Values[Key]) => void;
  /** Validates; returns the values when they are valid, else shows the messages. */
  validate: () => Values | null;
  /** Shows messages from elsewhere (the server), replacing the current ones. */
  showErrors: (errors: FormErrors) => void;
  /** Runs `work` with the submitting flag set. */
  submitWith: (work: () => Promise<void>) => Promise<void>;
  /** A submit handler: validates, then runs `work` with the valid values while submitting. */
  onSubmit: (work: (valid: Values) => Promise<void>) => (event: FormEvent) => void;
}

export function useForm<Values extends object>(
  initialValues: Values,
  check: (values: Values) => FormErrors<Extract<keyof Values, string>>,
): FormState<Values> {
  const [values, setValues] = useState(initialValues);
  const [errors, setErrors] = useState<FormErrors<Extract<keyof Values, string>>>({});
  const [wasSubmitted, setWasSubmitted] = useState(false);
  const [isSubmitting, setIsSubmitting] = useState(false);

  const setValue = <Key extends keyof Values>(name: Key, value: Values[Key]) => {
    const nextValues = { ...values, [name]: value };
    setValues(nextValues);
    if (wasSubmitted) setErrors(check(nextValues));
  };

  const validate = () => {
    setWasSubmitted(true);
    const found = check(values);
    setErrors(found);
    return hasErrors(found) ? null : values;
  };

  const showErrors = (serverErrors: FormErrors) => setErrors(serverErrors as typeof errors);

  const submitWith = async (work: () => Promise<void>) => {
    setIsSubmitting(true);
    try {
      await work();
    } finally {
      setIsSubmitting(false);
    }
  };

  const onSubmit = (work: (valid: Values) => Promise<void>) => (event: FormEvent) => {
    event.preventDefault();
    const valid = validate();
    if (valid) void submitWith(() => work(valid));
  };

  return { values, errors, isSubmitting, setValue, validate, showErrors, submitWith, onSubmit };
}
