import { dismissToast, toast, toasts, TOAST_REMOVE_DELAY_MS } from "./toast";

describe("toasts", () => {
  beforeEach(() => {
    toasts.value = [];
  });

  it("shows at most one at a time, the newest", () => {
    toast({ title: "First" });
    toast({ title: "Second" });
    expect(toasts.value.map((t) => t.title)).toEqual(["Second"]);
  });

  it("keeps a dismissed toast until the removal delay", () => {
    vi.useFakeTimers();
    const id = toast({ title: "Bye" });
    dismissToast(id);
    expect(toasts.value[0].open).toBe(false);
    vi.advanceTimersByTime(TOAST_REMOVE_DELAY_MS - 1);
    expect(toasts.value).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(toasts.value).toHaveLength(0);
    vi.useRealTimers();
  });
});
