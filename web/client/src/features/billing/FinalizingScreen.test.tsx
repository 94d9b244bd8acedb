import { act, fireEvent, screen } from "@testing-library/react";
import { FinalizingSubscriptionPage } from "@/pages/FinalizingSubscription";
import { resetAppConfig } from "@/state/config";
import { forgetSession } from "@/state/session";
import { callsTo, renderRoute, stubFetch, type Reply } from "@/test/harness";
import { BILLING_ON_CONFIG } from "@/test/stripe";
import { remainingTimeText } from "./FinalizingScreen";

const STATUS = "/api/subscriptions/sub_1/status";
const PENDING: Reply = { status: 200, body: { state: "pending", reason: null, tier: "pro" } };
const SUCCESS: Reply = { status: 200, body: { state: "success", reason: null, tier: "pro" } };

/** Answers the status calls in order; the last answer repeats. */
function serve(...answers: Reply[]) {
  const queue = [...answers];
  return stubFetch({
    "GET /api/config": BILLING_ON_CONFIG,
    "GET /api/auth/me": { status: 200, body: { user: { id: "u1", email: "ada@example.org", subscriptionTier: "free" } } },
    [`GET ${STATUS}`]: () => (queue.length > 1 ? queue.shift()! : queue[0]),
  });
}

/** Moves the fake clock, letting every answer and render in between happen. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function renderFinalizing(at = "/finalizing-subscription?subscriptionId=sub_1") {
  renderRoute(<FinalizingSubscriptionPage />, { at, routePath: "/finalizing-subscription" });
  await advance(0);
  await advance(0);
}

const location = () => screen.getByTestId("location").textContent;
const heading = () => screen.getByRole("heading", { level: 1 }).textContent;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  resetAppConfig();
  forgetSession();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("remainingTimeText", () => {
  it("is the attempts left times 2 s, in rounded minutes", () => {
    expect(remainingTimeText(0)).toBe("About 1 minute remaining");
    expect(remainingTimeText(15)).toBe("About 1 minute remaining");
    expect(remainingTimeText(16)).toBe("Less than a minute remaining");
    expect(remainingTimeText(30)).toBe("Less than a minute remaining");
  });
});

describe("/finalizing-subscription", () => {
  it("without a subscription id goes to /subscribe", async () => {
    const fetchMock = serve(PENDING);
    await renderFinalizing("/finalizing-subscription");
    expect(location()).toBe("/subscribe");
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes("/api/subscriptions/"))).toBe(false);
  });

  it("pending: asks at once and every 2 s, showing the attempt and the time left", async () => {
    const fetchMock = serve(PENDING);
    await renderFinalizing();
    expect(heading()).toBe("Finalizing Your Subscription");
    expect(callsTo(fetchMock, STATUS)).toBe(1);
    expect(screen.getByText("Checking status (attempt 1 of 30)")).toBeInTheDocument();
    expect(screen.getByText("About 1 minute remaining")).toBeInTheDocument();
    await advance(1999);
    expect(callsTo(fetchMock, STATUS)).toBe(1);
    await advance(1);
    expect(callsTo(fetchMock, STATUS)).toBe(2);
    expect(screen.getByText("Checking status (attempt 2 of 30)")).toBeInTheDocument();
  });

  it("success: 'Subscription Activated!', then the dashboard after 2 s", async () => {
    const fetchMock = serve(PENDING, PENDING, SUCCESS);
    await renderFinalizing();
    await advance(4000);
    expect(callsTo(fetchMock, STATUS)).toBe(3);
    expect(heading()).toBe("Subscription Activated!");
    expect(screen.getByText(/Redirecting to dashboard\.\.\./)).toBeInTheDocument();
    await advance(1999);
    expect(location()).toBe("/finalizing-subscription?subscriptionId=sub_1");
    await advance(1);
    expect(location()).toBe("/dashboard");
    expect(callsTo(fetchMock, STATUS)).toBe(3);
  });

  it("failed: the reason, and the card form again for the same plan", async () => {
    serve({ status: 200, body: { state: "failed", reason: "Your card was declined.", tier: "team" } });
    await renderFinalizing();
    expect(heading()).toBe("Payment Failed");
    expect(screen.getByRole("alert")).toHaveTextContent("Your card was declined.");
    expect(screen.getByRole("button", { name: "Check Status Again" })).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "Try Different Payment Method" }));
    expect(location()).toBe("/payment?tier=team&email=ada%40example.org");
  });

  it("failed without a reason: the default text", async () => {
    serve({ status: 200, body: { state: "failed", reason: null } });
    await renderFinalizing();
    expect(screen.getByRole("alert")).toHaveTextContent("There was an issue processing your payment.");
    // No plan known: the plans page.
    fireEvent.click(screen.getByRole("button", { name: "Try Different Payment Method" }));
    expect(location()).toBe("/subscribe");
  });

  it("'Check Status Again' after a failure starts over", async () => {
    const fetchMock = serve({ status: 200, body: { state: "failed", reason: "Declined." } }, PENDING);
    await renderFinalizing();
    fireEvent.click(screen.getByRole("button", { name: "Check Status Again" }));
    await advance(0);
    expect(callsTo(fetchMock, STATUS)).toBe(2);
    expect(heading()).toBe("Finalizing Your Subscription");
    expect(screen.getByText("Checking status (attempt 1 of 30)")).toBeInTheDocument();
  });

  it("30 attempts without an answer: 'Still processing...' and no more asking", async () => {
    const fetchMock = serve(PENDING);
    await renderFinalizing();
    await advance(15 * 2000);
    expect(screen.getByText("Checking status (attempt 16 of 30)")).toBeInTheDocument();
    expect(screen.getByText("Less than a minute remaining")).toBeInTheDocument();
    await advance(14 * 2000);
    expect(callsTo(fetchMock, STATUS)).toBe(30);
    expect(heading()).toBe("Still processing...");
    expect(screen.getByRole("button", { name: "Refresh Status" })).toBeInTheDocument();
    await advance(10 * 2000);
    expect(callsTo(fetchMock, STATUS)).toBe(30);
    fireEvent.click(screen.getByRole("button", { name: "Go to Dashboard" }));
    expect(location()).toBe("/dashboard");
  });

  it("failed requests are retried until the limit, then the timeout", async () => {
    const fetchMock = serve({ status: 500, body: { message: "boom" } });
    await renderFinalizing();
    expect(heading()).toBe("Finalizing Your Subscription");
    await advance(29 * 2000);
    expect(callsTo(fetchMock, STATUS)).toBe(30);
    expect(heading()).toBe("Still processing...");
  });

  it("'Refresh Status' resets the attempts to 0 and polls again until success", async () => {
    const answers: Reply[] = Array.from({ length: 30 }, () => PENDING);
    const fetchMock = serve(...answers, PENDING, SUCCESS);
    await renderFinalizing();
    await advance(29 * 2000);
    expect(heading()).toBe("Still processing...");
    fireEvent.click(screen.getByRole("button", { name: "Refresh Status" }));
    await advance(0);
    expect(callsTo(fetchMock, STATUS)).toBe(31);
    expect(screen.getByText("Checking status (attempt 1 of 30)")).toBeInTheDocument();
    expect(screen.getByText("About 1 minute remaining")).toBeInTheDocument();
    await advance(2000);
    expect(callsTo(fetchMock, STATUS)).toBe(32);
    expect(heading()).toBe("Subscription Activated!");
  });
});
