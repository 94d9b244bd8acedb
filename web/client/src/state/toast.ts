// App-wide toasts (spec §9): at most one visible, 5 s by default, removed 1,000,000 ms after
// dismissal (the Radix/shadcn constants). `toast()` and `dismissToast()` are the only writers.
import { signal } from "@preact/signals-react";

export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;
export const DEFAULT_TOAST_DURATION_MS = 5000;
export const RESTORE_TOAST_DURATION_MS = 8000;
export const QUEUED_TOAST_DURATION_MS = 5000;

export type ToastVariant = "default" | "destructive" | "success";

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  durationMs?: number;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
}

export const toasts = signal<ToastItem[]>([]);

let counter = 0;
const removalTimers = new Map<string, ReturnType<typeof setTimeout>>();

export function toast(input: ToastInput): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const id = String(counter);
  toasts.value = [{ ...input, id, open: true }, ...toasts.value].slice(0, TOAST_LIMIT);
  return id;
}

export function dismissToast(id?: string) {
  toasts.value = toasts.value.map((item) => (id === undefined || item.id === id ? { ...item, open: false } : item));
  for (const item of toasts.value) {
    if (item.open || removalTimers.has(item.id)) continue;
    removalTimers.set(
      item.id,
      setTimeout(() => {
        removalTimers.delete(item.id);
        toasts.value = toasts.value.filter((other) => other.id !== item.id);
      }, TOAST_REMOVE_DELAY_MS),
    );
  }
}
