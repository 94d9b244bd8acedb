import { digests, loadDigests, loadError, loadSearchTerms, resetDashboard, searchTerms } from "./store";

afterEach(() => {
  resetDashboard();
  vi.unstubAllGlobals();
});

/** A fetch whose answers are released by hand, in any order. */
function deferredFetch() {
  const pending: Array<(body: unknown, status?: number) => void> = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(
      () =>
        new Promise<Response>((resolve) => {
          pending.push((body, status = 200) => resolve(new Response(JSON.stringify(body), { status })));
        }),
    ),
  );
  return pending;
}

const term = (text: string, status: string) => ({ id: text, userId: "u1", term: text, status, isActive: true });

describe("dashboard store", () => {
  it("keeps the later load's answer when an earlier one arrives last", async () => {
    const answers = deferredFetch();
    const first = loadSearchTerms("u1");
    const second = loadSearchTerms("u1");
    answers[1]([term("tau", "completed")]);
    await second;
    answers[0]([term("tau", "processing")]);
    await first;
    expect(searchTerms.value?.[0].status).toBe("completed");
  });

  it("records a failed load's message and clears it on the next success", async () => {
    const answers = deferredFetch();
    const failing = loadDigests("u1");
    answers[0]({ message: "database unavailable" }, 500);
    await failing;
    expect(loadError.value.digests).toBe("database unavailable");
    expect(digests.value).toBeNull();
    const next = loadDigests("u1");
    answers[1]([]);
    await next;
    expect(loadError.value.digests).toBeUndefined();
    expect(digests.value).toEqual([]);
  });
});
