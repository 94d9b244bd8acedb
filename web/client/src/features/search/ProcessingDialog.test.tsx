import { act, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { toasts } from "@/state/toast";
import { resetAppConfig } from "@/state/config";
import { getPendingSearch, setPendingSearch } from "@/state/pendingSearch";
import { forgetSession, setCurrentUser } from "@/state/session";
import { ProcessingDialog } from "./ProcessingDialog";

const EMAIL = "ada@example.org";
const TERM = "CRISPR base editing";

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

/** The dialog as a page would host it: open from the start, closed through onOpenChange. */
function Host({ onComplete, onOpenChange }: { onComplete?: () => void; onOpenChange?: (open: boolean) => void }) {
  const [open, setOpen] = useState(true);
  return (
    <ProcessingDialog
      email={EMAIL}
      searchTerm={TERM}
      open={open}
      onComplete={onComplete}
      onOpenChange={(next) => {
        onOpenChange?.(next);
        setOpen(next);
      }}
    />
  );
}

function renderDialog(props: Parameters<typeof Host>[0] = {}) {
  return render(
    <MemoryRouter initialEntries={["/verify-email?token=t"]}>
      <LocationProbe />
      <Routes>
        <Route path="/verify-email" element={<Host {...props} />} />
        <Route path="*" element={<p>elsewhere</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

/**
 * Answers POST /api/immediate-search with `status` and `body`, and GET /api/config (read when a
 * full plan decides whether to keep the term) with billing on or off.
 */
function answerSearch(status: number, body: unknown, { billingEnabled = false } = {}) {
  const mock = vi.fn(async (input: RequestInfo | URL) => {
    const isConfig = String(input) === "/api/config";
    const reply = isConfig ? { supportEmail: null, analytics: null, billingEnabled } : body;
    return new Response(JSON.stringify(reply), { status: isConfig ? 200 : status, headers: { "Content-Type": "application/json" } });
  });
  vi.stubGlobal("fetch", mock);
  return mock;
}

const location = () => screen.getByTestId("location").textContent;
const percent = () => screen.getByRole("progressbar").getAttribute("aria-valuenow");
const currentStep = () => screen.getByRole("list", { name: "Search steps" }).querySelector('[aria-current="step"]')?.textContent;
const latestToast = () => toasts.value[0];
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

/** Runs the simulated stages and the call: 1000 + 1000 + 500 ms, then lets the answer arrive. */
async function runToTheCall() {
  await advance(1000);
  await advance(1000);
  await advance(500);
}

beforeEach(() => {
  vi.useFakeTimers();
  toasts.value = [];
  resetAppConfig();
  forgetSession();
  setPendingSearch(TERM);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("ProcessingDialog", () => {
  it("walks 10, 30, 60, 90 with the spec's waits, then calls the search", async () => {
    const fetchMock = vi.fn(() => new Promise<Response>(() => {}));
    vi.stubGlobal("fetch", fetchMock);
    renderDialog();
    expect(screen.getByRole("dialog", { name: "Processing Your Search" })).toBeVisible();
    expect(percent()).toBe("10");
    expect(screen.getByText("10%")).toBeVisible();
    expect(currentStep()).toBe("Expanding search terms with AI");

    await advance(999);
    expect(percent()).toBe("10");
    await advance(1);
    expect(percent()).toBe("30");
    expect(currentStep()).toBe("Searching PubMed, arXiv and bioRxiv");

    await advance(1000);
    expect(percent()).toBe("60");
    expect(currentStep()).toBe("Analyzing papers with AI");
    expect(fetchMock).not.toHaveBeenCalled();

    await advance(499);
    expect(percent()).toBe("60");
    await advance(1);
    expect(percent()).toBe("90");
    expect(currentStep()).toBe("Sending email digest");
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/immediate-search");
    expect(init).toMatchObject({ method: "POST", credentials: "include" });
    expect(JSON.parse(String(init.body))).toEqual({ email: EMAIL, searchTerm: TERM });
  });

  it("lists the steps in the spec's order", () => {
    vi.stubGlobal("fetch", vi.fn(() => new Promise<Response>(() => {})));
    renderDialog();
    const steps = screen.getAllByRole("listitem").map((item) => item.textContent);
    expect(steps).toEqual([
      "Expanding search terms with AI",
      "Searching PubMed, arXiv and bioRxiv",
      "Analyzing papers with AI",
      "Sending email digest",
      "Search complete",
    ]);
  });

  it("success: 100 %, the digest message, a toast, the pending search cleared, the dashboard after 1000 ms", async () => {
    answerSearch(200, { success: true });
    const onComplete = vi.fn();
    renderDialog({ onComplete });
    await runToTheCall();
    expect(percent()).toBe("100");
    expect(screen.getByText("Check your email for the research digest!")).toBeVisible();
    expect(latestToast()).toMatchObject({ title: "Search Complete!" });
    expect(getPendingSearch()).toBeNull();
    expect(screen.queryByRole("button", { name: "Cancel" })).not.toBeInTheDocument();

    await advance(999);
    expect(location()).toBe("/verify-email?token=t");
    expect(onComplete).not.toHaveBeenCalled();
    await advance(1);
    expect(onComplete).toHaveBeenCalledTimes(1);
    expect(location()).toBe("/dashboard?email=ada%40example.org");
  });

  it("a week without papers: the server's words, in the dialog and the toast", async () => {
    const message = "No new papers about CRISPR base editing this week. We will look again next Monday.";
    answerSearch(200, { success: true, searchTerm: TERM, termId: "t1", digestId: "d1", papersFound: 0, digestSent: true, message });
    renderDialog();
    await runToTheCall();
    expect(percent()).toBe("100");
    expect(screen.getByRole("status")).toHaveTextContent(message);
    expect(latestToast()).toMatchObject({ title: "Search Complete!", description: message });
  });

  it("free digests used: 'Search Term Saved' with the server's message, never 'Search Complete!', then the dashboard", async () => {
    const message = "Your search term is saved. Your free plan's 2 digests have been used, so no digest was sent.";
    answerSearch(200, { success: true, searchTerm: TERM, termId: "t1", digestId: null, papersFound: 0, digestSent: false, message });
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Search Term Saved", description: message });
    expect(screen.getByRole("status")).toHaveTextContent(message);
    expect(screen.queryByText("Check your email for the research digest!")).not.toBeInTheDocument();
    expect(getPendingSearch()).toBeNull();
    await advance(1000);
    expect(location()).toBe("/dashboard?email=ada%40example.org");
  });

  it.each([
    [5, "team"],
    [7, "team"],
    [2, "pro"],
  ])("billing on, 402 with currentCount %i: 'Subscription Required' and /subscribe?tier=%s, the term kept", async (currentCount, tier) => {
    answerSearch(402, { message: "Upgrade to add more terms", requiresPayment: true, currentCount }, { billingEnabled: true });
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Subscription Required", variant: "destructive" });
    expect(location()).toBe(`/subscribe?tier=${tier}`);
    expect(getPendingSearch()).toBe(TERM);
  });

  it("billing off, 402: /subscribe explains, and the term is dropped so the dashboard does not offer it again", async () => {
    answerSearch(402, { message: "Your Free plan includes 1 search term.", requiresPayment: true, currentCount: 1 });
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Subscription Required", description: "Your Free plan includes 1 search term." });
    expect(location()).toBe("/subscribe?tier=pro");
    expect(getPendingSearch()).toBeNull();
  });

  it("403 with requiresSupport: 'Maximum Searches Reached' with the server's message, the dialog closes", async () => {
    answerSearch(403, { message: "You have reached 10 search terms. Contact support for more.", requiresSupport: true });
    const onOpenChange = vi.fn();
    renderDialog({ onOpenChange });
    await runToTheCall();
    expect(latestToast()).toMatchObject({
      title: "Maximum Searches Reached",
      description: "You have reached 10 search terms. Contact support for more.",
    });
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(location()).toBe("/verify-email?token=t");
  });

  it("a signed-in user (verification signs in) whose term fails: the dashboard, the term kept for its field, no sign-in form", async () => {
    setCurrentUser({ id: "u1", email: "ada@example.org", subscriptionTier: "free" });
    const message = "Search term contains invalid characters or patterns";
    answerSearch(400, { message, code: "validation_failed", errors: [{ field: "searchTerm", message }] });
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Search Failed", description: message });
    expect(location()).toBe("/dashboard?email=ada%40example.org");
    expect(getPendingSearch()).toBe(TERM);
  });

  it("any other failure: 'Search Failed' and /login", async () => {
    answerSearch(500, { message: "The search service is down" });
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Search Failed", description: "The search service is down" });
    expect(location()).toBe("/login");
  });

  it("a failure without a message says 'Failed to perform search' and goes to /login", async () => {
    answerSearch(502, "");
    renderDialog();
    await runToTheCall();
    expect(latestToast()).toMatchObject({ title: "Search Failed", description: "Failed to perform search" });
    expect(location()).toBe("/login");
  });

  it("Cancel stops the run and closes the dialog", async () => {
    const fetchMock = answerSearch(200, {});
    const onOpenChange = vi.fn();
    renderDialog({ onOpenChange });
    await advance(1000);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await advance(5000);
    expect(fetchMock).not.toHaveBeenCalled();
    expect(location()).toBe("/verify-email?token=t");
    expect(getPendingSearch()).toBe(TERM);
  });
});
