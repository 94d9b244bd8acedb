// What a card shows of a list from the store: why loading it failed, a spinner until it
// arrives, and then the card's own view of it.
import type { ReactNode } from "react";
import { Spinner } from "@/components/ui/Spinner";

export function Loaded<T>({
  value,
  error,
  spinnerLabel,
  children,
}: {
  value: T | null;
  error: string | undefined;
  spinnerLabel: string;
  children: (value: T) => ReactNode;
}) {
  return (
    <>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
      {value !== null ? (
        children(value)
      ) : error ? null : (
        <div className="flex justify-center py-6">
          <Spinner label={spinnerLabel} />
        </div>
      )}
    </>
  );
}
